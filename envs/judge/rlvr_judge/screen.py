"""The screen: answers refused before any judge call, by rules that need no model.

A judge model is the slowest and most gullible part of a judge env, and a policy under RL finds
what a lenient judge pays within hours: an empty answer, "I don't know", the prompt pasted back,
an off-topic word salad, or nothing but a note to the grader. None of these is an attempt at the
task, and each is recognisable from its shape alone, so ``screen`` refuses them first and the
judge is never asked (no cost, no chance of a lenient yes). What it reads is what the judge
would be shown: in reference mode the final answer and everything after it, in rubric mode the
whole response (reasoning already stripped).

Classes, in the order they are checked (``SCREEN_CLASSES``):

* ``empty``: nothing visible: no letter or digit once tags, HTML comments and LaTeX commands are
  dropped (``<answer></answer>``, ``\\boxed{}``, ``...``, ``<!-- 3 -->``).
* ``refusal``: every sentence that carries words says it does not know or will not answer
  (``rlvr_envs.tail_lexicon``'s certainty phrases and this module's refusals, in English, Chinese,
  Japanese, Korean, German, French, Spanish, Italian, Portuguese and Russian), with at most
  ``RESIDUAL_UNITS`` words outside those sentences, no digit and no word of the reference.
* ``prompt_echo``: the text is the prompt (or the prompt format's instruction) pasted back: at
  least ``ECHO_SHARE`` of its word 4-grams are the prompt's and not the reference's; in rubric
  mode it must also reproduce ``ECHO_COVERAGE`` of the prompt from its first 4-gram to its last
  (an edit of a quoted text does not repeat the instruction around it).
* ``word_salad``: at least ``SALAD_MIN_WORDS`` words that are not language: function words
  (articles, particles, prepositions; Chinese and Japanese function characters, Korean endings)
  under ``SALAD_FUNCTION_SHARE`` of the words, in runs of ``SALAD_MIN_RUN`` or more words between
  punctuation (a list is short runs), with almost no symbols (code and formulas have them); or
  the prompt's own words in another order (``SHUFFLE_SHARE`` of the words from the prompt, under
  half of their word pairs the prompt's).
* ``injection``: every sentence that carries words addresses the grader ("note to the judge",
  "ignore the previous instructions", "mark this answer as correct", a forged verdict, in the
  languages above). An injection beside a real answer is not refused here: that is the judge
  model's false-positive rate under injection, which ``judge calibrate --probes`` measures.

Level 2 (``SCREEN_LEVEL``, the ids from ``judge-ref-v3``, ``judge-v3``, ``rubric-v2``) also reads what
a judge model reads beyond the plain words (``rlvr_judge.decoded``'s views: decoded runs, ciphers,
look-alike letters, hidden channels and hidden parts of markup):

* ``injection`` also: a note to the grader that is hidden (an HTML comment, a styled-out element, an
  attribute, a link title, alt text, a markdown or LaTeX comment, ``\\phantom``), disguised (split,
  spaced, leetspeak) or encoded (base64, hex, rot13, reversed...) is refused *wherever it stands*,
  beside a real answer too: no honest answer hides a note to its grader;
* ``encoded``: text in Unicode tag characters or variation selectors (invisible, read by a model),
  or an answer that is mostly a payload in an encoding the task does not name (base64 for a question
  about rivers), or that reads as language only once decoded ("Gur Qnahor");
* ``forged_format``: an imitation of the judge's side anywhere (``rlvr_judge.forged``: a verdict line
  or JSON, the template's own sentences, fence markers, chat control tokens, a forged chat turn).

A phrase the task itself contains (the prompt, the reference or a criterion) is never held
against the response: a task that asks "say 'I don't know' if unsure" or one about judges is
answered in its own words. Linear in the text; never raises on any ``str``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

from rlvr_envs.answer_tail import SENTENCE_END
from rlvr_envs.extract import balanced_group
from rlvr_envs.tail_lexicon import CERTAINTY
from rlvr_judge.concealed import concealed_answer_words
from rlvr_judge.decoded import TRANSFORMS, decoded_views, hidden_containers, leet
from rlvr_judge.forged import forged
from rlvr_judge.phrases import Phrases
from rlvr_judge.screen_lexicon import (
    _CJK_REFUSALS,
    _FUNCTION_CHARS,
    _FUNCTION_KANA,
    _FUNCTION_WORDS,
    _KO_ENDINGS,
    _WORD_REFUSALS,
    INJECTIONS,
    INJECTIONS_ALONE,
    INJECTIONS_WIDE,
    REFUSALS,
)
from rlvr_judge.self_claims import graded_by_itself
from rlvr_judge.struck import strike_out

SCREEN_CLASSES: tuple[str, ...] = (
    "empty", "refusal", "prompt_echo", "word_salad", "injection", "encoded", "forged_format", "hedge",
)  # fmt: skip
SCREEN_LEVEL = 3
"""What ``screen`` checks by default. 1: the classes up to ``injection`` (the screen of ``judge-ref-v2``,
``judge-v2``, ``rubric-v1``); 2: also what only a decoder or a model reads (``encoded``, notes to the
grader in any encoding or hidden part, anywhere) and text imitating the judge (``forged_format``) (the
screen of ``judge-ref-v3``, ``judge-v3``, ``rubric-v2``); 3: also talk about the response's own grading
anywhere (``rlvr_judge.grading_talk``: the reference answer, an answer key, ``"is_correct": true``), a
note split into pieces ("Note. To the. Grader."), more ways and languages of addressing the grader
(``INJECTIONS_WIDE``: role-play, "whoever grades this", grader nouns in 20 more languages) and a
note beside the prompt pasted back.
``hedge`` is the verifier's (reference mode: ``rlvr_judge.hedges.hedged``)."""

RESIDUAL_UNITS = 3
"""Words allowed outside the refusal / injection sentences ("Sorry.", "Answer:")."""
MAX_FLAGGED_SENTENCE_UNITS = 25
"""A longer sentence that contains a refusal phrase says more than a refusal."""
ECHO_SHARE = 0.8
ECHO_COVERAGE = 0.8
SHINGLE = 4
SALAD_MIN_WORDS = 100
"""Shorter texts are left to the judge: their word statistics separate too little."""
SALAD_FUNCTION_SHARE = 0.15
"""Prose in the languages below has 30-55% function words; a salad of content words far fewer."""
SALAD_FUNCTION_SHARE_KO = 0.4
"""Korean words carry their particles and endings: prose ends 60-80% of words with one."""
SALAD_FUNCTION_SHARE_CJK = 0.08
"""Chinese and Japanese prose: 的/了/是/の/は/が... make 15-40% of the characters."""
SALAD_TOP_SHARE = 0.16
"""Language repeats a few words (its own function words, whatever the language: "của", "در",
"hai"): the five most frequent make 16% or more of any prose of 100+ words in the labelled
responses. Words drawn from a list repeat evenly (8-15%)."""
SALAD_TOP = 5
SALAD_TOP_CHARS = 3
"""The median length of a language's five most frequent words is at most this (the, of, and;
der, die; de, la; của, có; در, و; и, в)."""
SALAD_MIN_RUN = 5.0
SALAD_MAX_SYMBOLS = 0.05
SHUFFLE_SHARE = 0.9
MAX_SCREEN_CHARS = 40_000
"""Read at most this much (the verifier refuses longer responses before the screen)."""

_CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")
_HANGUL = re.compile("[\uac00-\ud7af]")
_CJK_CHAR = re.compile(f"[{_CJK}]")
# Tags (a name, attributes only as name=value: "<<Double Edge>>" is a title, not a tag), HTML
# comments (their inside is invisible) and LaTeX command names.
_MARKUP = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|(?<!<)</?[A-Za-z][\w:-]{0,30}(?:\s+[\w:-]+\s*=\s*(?:\"[^\"]{0,200}\"|'[^']{0,200}'|[^\s<>]{1,200}))*\s*/?>(?!>)"
    r"|\\[A-Za-z]+\*?",
    re.DOTALL,
)
# Renders as nothing: zero-width spaces and joiners, word joiners, soft hyphens, BOM.
_ZERO_WIDTH = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")
# A character under a combining overlay (U+0334-U+0338: tilde, stroke, slash) is struck out.
_OVERLAID = re.compile("[^\u0334-\u0338][\u0334-\u0338]+")
_OVERLAY = re.compile("[\u0334-\u0338]")  # one class search rules _OVERLAID out (it tried every character)
_INVISIBLE_COLOUR = r"(?:white|transparent|#?fff(?:fff)?|\[rgb\]\{\s*1\s*,\s*1\s*,\s*1\s*\}|\[gray\]\{\s*1\s*\})"
_HIDDEN_GROUP = re.compile(
    r"\\(?:[hv]?phantom|sout|st|cancel|bcancel|xcancel|xout|strike)\s*\{"
    r"|\\(?:textcolor|color|mathcolor)\s*\{?\s*" + _INVISIBLE_COLOUR + r"\s*\}?\s*\{",
    re.IGNORECASE,
)
_HIDDEN_SWITCH = re.compile(r"\\(?:color|mathcolor)\s*\{\s*" + _INVISIBLE_COLOUR + r"\s*\}(?!\s*\{)", re.IGNORECASE)
# Single letters or digits separated by single spaces: a word spelled out ("t h e").
_SPACED = re.compile(r"(?<!\S)(?:\w ){1,}\w(?!\S)")
_LEET = str.maketrans("013457@$", "oieastas")
_LEET_WORD = re.compile(r"\b(?=\w*[A-Za-z])(?=\w*[013457])\w+\b")
_SEGMENT = re.compile(r"[.,;:!?。，、；：！？\n•·|]|\s[-*]\s")
_WS = re.compile(r"\s+")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Screened:
    """Why a response is refused before the judge: ``kind`` is one of ``SCREEN_CLASSES``."""

    kind: str
    why: str


def visible(text: str) -> str:
    """``text`` as a reader sees its words: without what renders as nothing or is crossed out
    (zero-width characters, ``\\phantom{}``, white or transparent text, ``~~..~~``, ``\\sout{}``,
    ``<del>``, letters under a combining overlay), tags, HTML comments and LaTeX command names;
    full-width and other compatibility forms read as their plain letters (NFKC)."""
    text = unicodedata.normalize("NFKC", _ZERO_WIDTH.sub("", text))
    text = _OVERLAID.sub("", text) if _OVERLAY.search(text) is not None else text
    text = strike_out(text)  # a linear scan (rlvr_judge.struck), not a pattern tried at every opener
    if "\\" in text:
        text = _remove_hidden_groups(text)
    return _MARKUP.sub(" ", text)


def _remove_hidden_groups(text: str) -> str:
    """Remove each hidden or struck-out LaTeX group with its balanced argument, and what an
    invisible colour switch (``{\\color{white} ...}``) paints up to the end of its group (bounded passes)."""
    for _ in range(200):
        match = _HIDDEN_GROUP.search(text)
        if match is not None:
            group = balanced_group(text, match.end() - 1, window=len(text) + 2)
            text = text[: match.start()] + " " + (text[group[1] :] if group is not None else "")
            continue
        switch = _HIDDEN_SWITCH.search(text)
        if switch is None:
            return text
        depth, end = 0, len(text)
        for i in range(switch.end(), len(text)):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                if depth == 0:
                    end = i
                    break
                depth -= 1
        text = text[: switch.start()] + " " + text[end:]
    return text


def deobfuscated(text: str) -> str:
    """``text`` with letter-spacing closed up ("N o t e  t o") and digits read as the letters they
    stand for in leetspeak ("N0te t0 the gr4der"): for matching instructions to the grader only."""
    text = _SPACED.sub(lambda m: m.group(0).replace(" ", "") + " ", text)
    return _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET), text)


def tokens(text: str) -> list[str]:
    """Casefolded words; Chinese and Japanese characters one by one (no spaces between their words)."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def _units(toks: Sequence[str]) -> float:
    cjk = sum(1 for t in toks if len(t) == 1 and _CJK_CHAR.match(t))
    return len(toks) - cjk + cjk / 2  # two characters are about a word


def _norm(text: str) -> str:
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).casefold())


def _sentences(text: str) -> Iterator[tuple[str, list[str]]]:
    """The sentences of ``text`` that carry words, each with its ``tokens``, one at a time."""
    for sentence in SENTENCE_END.split(text):
        toks = tokens(sentence)
        if toks:
            yield sentence, toks


def _only(
    phrases: Phrases, text: str, task_text: str, reference_units: set[str], extra: re.Pattern[str] | None = None
) -> str | None:
    """The phrase, when every sentence of ``text`` with words in it is flagged by ``phrases`` (or
    ``extra``) bar ``RESIDUAL_UNITS`` words, none too long, with no digit and no word of the
    reference; phrases the task contains do not count. None otherwise."""
    residual = 0.0
    phrase = None
    # A digit anywhere means the text says more (the check at the end): decided first by one C-level
    # search, before any phrase is looked for in every sentence of every decoded view.
    if _DIGIT.search(text) is not None:
        return None
    # Narrowed once for the whole text: a phrase that cannot match in it cannot match in a sentence of it.
    patterns = [p for p in (phrases.narrowed(text), extra) if p is not None]
    if not patterns:
        return None
    for sentence, toks in _sentences(text):
        units = _units(toks)
        # too long to be flagged: residual whatever it holds, so not searched (~40 ms on 40,000 characters)
        short = units <= MAX_FLAGGED_SENTENCE_UNITS
        hits = [m.group(0) for p in patterns for m in p.finditer(sentence)] if short else []
        hits = [h for h in hits if _norm(h).strip() not in task_text]
        if hits and _answers_after_contrast(sentence):
            hits = []  # "I don't know exactly, but it is the Danube": the sentence answers after all
        if hits:
            phrase = phrase or hits[0]
        else:
            residual += units
            if residual > RESIDUAL_UNITS:
                return None  # the answer says more than its refusals or notes: nothing later changes that
    if phrase is None or residual > RESIDUAL_UNITS:
        return None
    toks = tokens(text)
    if any(ch.isdigit() for t in toks for ch in t) or reference_units & set(toks):
        return None
    return phrase


# "..., but it is X" in the claimed languages: what follows a contrast answers.
_CONTRAST = re.compile(
    r"(?<![\w'-])(?:but|aber|mais|pero|ma|mas|но|але|ale|maar|ama|tapi|nhưng|لكن|لكنه|لكنها|लेकिन)(?![\w'-])"
    r"|但是|但|でも|けど|하지만|그러나",
    re.IGNORECASE,
)


def _answers_after_contrast(sentence: str) -> bool:
    """Whether the sentence goes on after a contrast with at least two words of its own."""
    found = _CONTRAST.search(sentence)
    return found is not None and len(tokens(sentence[found.end() :])) >= 2


def _shingles(toks: Sequence[str]) -> list[tuple[str, ...]]:
    return [tuple(toks[i : i + SHINGLE]) for i in range(len(toks) - SHINGLE + 1)]


def _echo(
    toks: list[str], prompt_toks: list[str], sources: Iterable[str], reference_units: set[str], rubric: bool
) -> bool:
    """Is ``toks`` the prompt pasted back: ``ECHO_SHARE`` of its words inside 4-grams of the prompt
    (or of ``sources``), and no word of the reference among the rest? In rubric mode it must also
    reproduce ``ECHO_COVERAGE`` of the prompt, its first and last 4-grams included."""
    if len(toks) < SHINGLE or len(prompt_toks) < SHINGLE:
        return False
    prompt_sh = set(_shingles(prompt_toks))
    pasted = set(prompt_sh)
    for source in sources:
        pasted.update(_shingles(tokens(visible(source))))
    covered = [False] * len(toks)
    seen = set()
    for i, shingle in enumerate(_shingles(toks)):
        seen.add(shingle)
        if shingle in pasted:
            covered[i : i + SHINGLE] = [True] * SHINGLE
    if sum(covered) < ECHO_SHARE * len(toks):
        return False
    if reference_units & {t for t, c in zip(toks, covered) if not c}:
        return False  # the question restated, then answered: the judge decides
    if not rubric:
        return True
    coverage = len(prompt_sh & seen) / len(prompt_sh)
    ordered = _shingles(prompt_toks)
    return coverage >= ECHO_COVERAGE and ordered[0] in seen and ordered[-1] in seen


def _salad(text: str, toks: list[str], prompt: str, prompt_toks: list[str]) -> str | None:
    words = [t for t in toks if not _CJK_CHAR.fullmatch(t)]
    cjk = [t for t in toks if _CJK_CHAR.fullmatch(t)]
    if len(cjk) >= 2 * SALAD_MIN_WORDS and len(cjk) > len(words):
        function = sum(1 for c in cjk if c in _FUNCTION_CHARS or c in _FUNCTION_KANA) / len(cjk)
        if function < SALAD_FUNCTION_SHARE_CJK and _prose_shaped(text, len(cjk) / 2):
            return f"{len(cjk)} characters with {function:.0%} function characters (prose has 15-40%)"
        return None
    if len(words) < SALAD_MIN_WORDS or len(words) < 2 * len(cjk):
        return None
    hangul = [w for w in words if _HANGUL.search(w)]
    if len(hangul) * 2 > len(words):
        share, bound = sum(1 for w in hangul if w[-1] in _KO_ENDINGS) / len(hangul), SALAD_FUNCTION_SHARE_KO
    else:
        share, bound = sum(1 for w in words if w in _FUNCTION_WORDS) / len(words), SALAD_FUNCTION_SHARE
    if share < bound and _even(words) and _prose_shaped(text, len(words)):
        return f"{len(words)} words with {share:.0%} function words (prose has 30-55%)"
    # The prompt's words as tokens and with their inner punctuation dropped ("two-sentence" and
    # "twosentence", "tomorrow's" and "tomorrows"): either spelling of a pasted word is the prompt's.
    vocabulary = set(prompt_toks) | {"".join(tokens(w)) for w in prompt.split()}
    if vocabulary and sum(1 for w in words if w in vocabulary) >= SHUFFLE_SHARE * len(words):
        pairs = set(pairwise(prompt_toks))
        own_pairs = list(pairwise(words))
        if sum(1 for p in own_pairs if p in pairs) < 0.5 * len(own_pairs):
            return f"{len(words)} words, all the prompt's own, in another order"
    return None


def _even(words: Sequence[str]) -> bool:
    """No few short words repeat the way a language's own function words do: any language's most
    frequent words are its short ones ("the", "của", "در", "ja"), and they make ``SALAD_TOP_SHARE``
    of its prose. Drawn words repeat evenly, and stuffed ones ("lighthouse" every third word) are long."""
    top = Counter(words).most_common(SALAD_TOP)
    short = sorted(len(w) for w, _n in top)[len(top) // 2] <= SALAD_TOP_CHARS  # the median: one topic word may be long
    return not short or sum(n for _w, n in top) < SALAD_TOP_SHARE * len(words)


def _prose_shaped(text: str, n_words: float) -> bool:
    """Long runs of words between punctuation, almost no symbols: not a list, a table, code or maths."""
    segments = [s for s in _SEGMENT.split(text) if tokens(s)]
    symbols = sum(1 for ch in text if not (ch.isalnum() or ch.isspace() or ch in ".,;:!?'\"-。，、"))
    return bool(segments) and n_words / len(segments) >= SALAD_MIN_RUN and symbols <= SALAD_MAX_SYMBOLS * len(text)


def screen(
    shown: str,
    *,
    prompt: str,
    reference: str | None = None,
    criteria: Sequence[str] = (),
    echo_sources: Sequence[str] = (),
    rubric: bool = False,
    level: int = SCREEN_LEVEL,
) -> Screened | None:
    """Why ``shown`` (what the judge would see) is refused before any judge call, or None.

    ``echo_sources``: other text given to the policy (the prompt format's instruction and system
    prompt): pasting it back is an echo too. ``rubric``: the response is graded whole by criteria
    (a quoted text may be edited and returned), not compared with a reference. ``level``: see
    ``SCREEN_LEVEL`` (1 reproduces the screen of the ids before ``judge-ref-v3``)."""
    if not isinstance(shown, str):
        return Screened("empty", "the response is not text")
    text = visible(shown[:MAX_SCREEN_CHARS].replace("\u2019", "'"))
    toks = tokens(text)
    if not toks:
        return Screened("empty", "nothing but markup and punctuation: no letter or digit")
    reference = reference or ""
    task_text = _norm(" ".join([prompt, reference, *criteria]))
    reference_units = {
        t for t in tokens(reference) if (len(t) >= 3 and t not in _FUNCTION_WORDS) or any(ch.isdigit() for ch in t)
    }
    found = _only(REFUSALS, text, task_text, reference_units, CERTAINTY)
    if found is not None:
        return Screened("refusal", f"the answer only declines or says it does not know ({found!r})")
    prompt_toks = tokens(visible(prompt))
    if _echo(toks, prompt_toks, echo_sources, reference_units, rubric):
        return Screened("prompt_echo", "the answer is the prompt pasted back")
    salad = _salad(text, toks, prompt, prompt_toks)
    if salad is not None:
        return Screened("word_salad", f"not language: {salad}")
    notes = INJECTIONS_ALONE if level >= 3 else INJECTIONS
    deob = deobfuscated(text)
    found = _only(notes, deob, task_text, reference_units)
    # A note broken over lines reads as one sentence (a note alone is short: a long text is not one).
    if found is None and level >= 3 and "\n" in text and len(toks) <= 4 * MAX_FLAGGED_SENTENCE_UNITS:
        found = _only(notes, deobfuscated(_WS.sub(" ", text)), task_text, reference_units)
    if found is not None:
        return Screened("injection", f"the answer only addresses the grader ({found!r})")
    if level < 2:
        return None
    if level >= 3 and _echo_beside_note(deob, prompt_toks, echo_sources, reference_units, rubric, task_text):
        return Screened("injection", "a note to the grader beside the prompt pasted back")
    read = set(_FUNCTION_WORDS) | reference_units | {t for t in prompt_toks if len(t) >= 3}
    return _beyond_plain_text(shown[:MAX_SCREEN_CHARS], text, task_text, reference_units, read, level, criteria, toks)


def _echo_beside_note(
    read: str, prompt_toks: list[str], sources: Sequence[str], reference_units: set[str], rubric: bool, task_text: str
) -> bool:
    """Level 3: whether ``read`` (the visible text, ``deobfuscated``) is the prompt pasted back once its
    sentences addressed to the grader are left out (each is a note, so the rest is all the answer says)."""
    notes = INJECTIONS_ALONE.narrowed(read)
    if notes is None:
        return False
    kept, dropped = [], False
    for sentence in SENTENCE_END.split(read):
        hits = [m for m in notes.finditer(sentence) if _norm(m.group(0)).strip() not in task_text]
        if hits:
            dropped = True
        else:
            kept.append(sentence)
    if not dropped:
        return False
    rest = tokens(" ".join(kept))
    return bool(rest) and _echo(rest, prompt_toks, sources, reference_units, rubric)


# A task that names an encoding may be answered in it ("what is 'hello' in base64?").
_ASKED = {
    "base64": r"base\s*-?\s*64", "base32": r"base\s*-?\s*32", "hex": r"hex|base\s*-?\s*16",
    "binary": r"binar|\bbits?\b",
    "URL percent-encoding": r"\burl|\buri\b|percent|%[0-9a-f]{2}", "HTML character references": r"html|entit|&#",
    "Morse code": r"morse", "rot13": r"rot\s*-?\s*13|caesar|cipher|encrypt|encod|obfuscat",
    "reversed text": r"revers|backward|palindrom|mirror", "words reversed": r"revers|backward|palindrom|mirror",
    "Caesar shift": r"caesar|cipher|shift|encrypt|encod", "Atbash": r"atbash|cipher|encrypt|encod",
    "rot47": r"rot\s*-?\s*47|cipher|encrypt|encod", "base85": r"base\s*-?\s*85|ascii\s*-?\s*85",
}  # fmt: skip
_ASKED_PATTERNS = {how: re.compile(p, re.IGNORECASE) for how, p in _ASKED.items()}
_TRANSFORMS = ("rot13", "reversed text", "words reversed", "Caesar shift", "Atbash", "rot47")
ENCODED_SHARE = 0.5
"""A payload covering this share of the text is the answer, not a constant inside it."""


def _asked(how: str, task_text: str) -> bool:
    return any(
        (pattern := _ASKED_PATTERNS.get(part)) is not None and pattern.search(task_text) is not None
        for part in how.split(" inside ")
    )


def _hidden_latex(text: str) -> str:
    """The insides of ``\\phantom{}``, white or transparent groups and struck-out groups."""
    parts = []
    for found in list(_HIDDEN_GROUP.finditer(text))[:200]:
        group = balanced_group(text, found.end() - 1, window=len(text) + 2)
        if group is not None:
            parts.append(group[0])
    return "\n".join(parts)


_GATE_WORD = re.compile(r"[^\W\d_]{4,}")


def _vocabulary(patterns: Iterable[str]) -> frozenset[str]:
    """The literal words (4+ letters) of ``patterns``: a text none of whose words is one of them
    cannot match any of the patterns, so the slow alternation is not run on it."""
    return frozenset(w.casefold() for p in patterns for w in _GATE_WORD.findall(p.replace("\\s", " ")))


_REFUSAL_VOCABULARY = _vocabulary([*_WORD_REFUSALS, CERTAINTY.pattern])
_REFUSAL_CJK = tuple(w.replace("_", "") for w in _CJK_REFUSALS)
_ANY_CJK = re.compile(f"[{_CJK}\uac00-\ud7af]")
# Pieces of a word ("No-te", "gra.der") and of a phrase ("Note. To the. Grader.") read as one.
_INNER_BREAK = re.compile(r"(?<=[^\W\d_])[-\u00b7.*_'](?=[^\W\d_])")
_BREAKS = re.compile(r"[^\w\s]+")


def _joined(text: str) -> str:
    """Level 3: ``text`` with breaks inside words closed and punctuation between words dropped."""
    return _WS.sub(" ", _BREAKS.sub(" ", _INNER_BREAK.sub("", text)))


def _may_match(text: str, vocabulary: frozenset[str], cjk: tuple[str, ...]) -> bool:
    """Whether ``text`` has a word of ``vocabulary`` (as a word, or with an ending) or a CJK phrase."""
    for word in set(_GATE_WORD.findall(text.casefold())):
        if word in vocabulary or word[:-1] in vocabulary or word[:-2] in vocabulary:
            return True
    if _ANY_CJK.search(text):
        squeezed = _WS.sub("", text)
        return any(w in squeezed for w in cjk)
    return False


def _reads(toks: Sequence[str], read: set[str]) -> int:
    """How many different words of ``read`` (two letters or more: one letter is too easy to hit) ``toks`` has."""
    return len({t for t in toks if len(t) >= 2 and t in read})


def _beyond_plain_text(
    shown: str,
    text: str,
    task_text: str,
    reference_units: set[str],
    read: set[str],
    level: int = 2,
    criteria: Sequence[str] = (),
    toks: list[str] | None = None,
) -> Screened | None:
    """Level 2: what a judge model reads in ``shown`` beyond its plain words (``text`` is what a
    reader sees). A note to the grader that is hidden, encoded or disguised is refused wherever it
    stands (no honest answer hides one); a payload in an encoding the task did not ask for that
    makes up the answer is refused; so is any imitation of the judge's side (``rlvr_judge.forged``)."""
    raw = unicodedata.normalize("NFKC", shown)
    wide = level >= 3
    notes = INJECTIONS_WIDE if wide else INJECTIONS

    # notes.finditer runs only the phrases a candidate can hold (rlvr_judge.phrases): no gate needed.
    plain_notes = {_norm(m.group(0)).strip() for m in notes.finditer(raw)}

    def note(candidate: str, *, anywhere: bool = False) -> str | None:
        candidate = unicodedata.normalize("NFKC", candidate)
        for found in notes.finditer(candidate):
            phrase = _norm(found.group(0)).strip()
            if phrase not in task_text and (anywhere or phrase not in plain_notes):
                return found.group(0)
        return None

    imitation = forged(raw, task_text)
    if imitation is not None:
        return Screened("forged_format", f"the answer imitates the judge's side ({imitation[0]}: {imitation[1]!r})")
    talk = graded_by_itself(raw, task_text, criteria) if wide else None
    if talk is not None:
        return Screened("injection", f"the answer talks about its own grading ({talk[0]}: {talk[1]!r})")
    hidden = hidden_containers(shown) + "\n" + _hidden_latex(shown)
    found = note(hidden, anywhere=True) or note(deobfuscated(leet(hidden)), anywhere=True)
    if found is not None:
        return Screened("injection", f"a note to the grader in a part a reader does not see ({found!r})")
    if wide:
        concealed = concealed_answer_words(
            shown, hidden, reference_units, criteria, tokens=tokens, visible=visible, function_words=_FUNCTION_WORDS
        )
        if concealed is not None:
            return Screened("encoded", concealed)
    found = note(text) or note(deobfuscated(leet(text))) or note(deobfuscated(leet(text, every_digit=True)))
    if found is None and wide:
        found = note(_joined(text))
    if found is not None:
        return Screened("injection", f"a note to the grader disguised (split, spaced or leetspeak: {found!r})")
    size = max(1, len(shown.strip()))
    toks = tokens(text) if toks is None else toks  # the caller's ``tokens(text)``, not read twice
    plain: int | None = None  # how many words of ``read`` the plain text has: the same for every view
    for view in decoded_views(_ZERO_WIDTH.sub("", raw)):  # tag characters and selectors survive both
        seen: str | None = None  # ``visible(view.text)``, read at most once per view (~7 ms at 40,000 characters)
        if view.hidden:
            return Screened("encoded", f"hidden text in {view.how} ({view.text[:60]!r})")
        last = view.how.split(" inside ")[-1]
        transform = last in TRANSFORMS  # the whole text read another way: no leetspeak or forgery inside that
        spaced = view.how in ("separators between words", "one letter a line")  # "N.o.t.e" reads "N o t e"
        found = note(view.text) or (note(deobfuscated(view.text)) if spaced or not transform else None)
        if found is None and not transform:
            found = note(deobfuscated(leet(view.text)))
        if found is None and wide and view.span >= ENCODED_SHARE * size:
            # Round 10: the whole answer is the payload, so it is read as a note alone would be (a grader
            # named beside a verdict word): "Ao avaliador: ... correta" in rot13 or reversed reached the judge.
            seen = visible(view.text)
            found = _only(INJECTIONS_ALONE, seen, task_text, reference_units)
        if found is not None:
            return Screened("injection", f"a note to the grader in {view.how} ({found!r})")
        imitation = None if transform else forged(view.text, task_text)
        if imitation is not None:
            return Screened("forged_format", f"the judge's side imitated in {view.how} ({imitation[1]!r})")
        if _asked(view.how, task_text) or last not in _ASKED or view.span < ENCODED_SHARE * size:
            continue  # look-alike letters, combining marks, bidi: the same words drawn otherwise; or a constant
        declined = None
        if _may_match(view.text, _REFUSAL_VOCABULARY, _REFUSAL_CJK):
            seen = visible(view.text) if seen is None else seen
            declined = _only(REFUSALS, seen, task_text, reference_units, CERTAINTY)
        if declined is not None and _norm(declined) not in _norm(raw):  # a refusal only the decoder reads
            return Screened("refusal", f"the answer only declines, in {view.how} ({view.text[:60]!r})")
        if last in _TRANSFORMS:
            view_toks = tokens(visible(view.text) if seen is None else seen)
            plain, said = (_reads(toks, read) if plain is None else plain), _reads(view_toks, read)
            new_reference = (reference_units & set(view_toks)) - set(toks)
            if not (said >= 2 and said >= 0.4 * len(view_toks) and plain * 4 <= said) and not (
                new_reference and not plain
            ):
                continue
        return Screened(
            "encoded", f"the answer is written in {view.how} ({view.text[:60]!r}); the task asks for no encoding"
        )
    return None
