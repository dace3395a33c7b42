"""Reference mode: does the text after the final answer take it back?

The judge is shown the final answer and everything after it (template ``ref-v1`` tells it that a
later hedge or alternative makes the answer not equivalent), but a lenient judge pays "<answer>The
Danube</answer> But I am not sure." all the same. ``hedged`` refuses it first, with the core's
reading of a tail (``rlvr_envs.answer_tail``: a hedge, an alternative value, a value word, another
final answer saying something else) and qualified doubts ("not entirely sure"). A sentence with a
doubt that says enough of its own ("I don't know the exact length though") is a remark about
something else: it goes to the judge, which decides.
"""

from __future__ import annotations

import re
import unicodedata

from rlvr_envs.answer_tail import SENTENCE_END, TailFinding, concealed, second_answer, tail_refusal
from rlvr_judge.screen import _FUNCTION_WORDS, Screened, tokens, visible
from rlvr_judge.screen_lexicon import _alternation
from rlvr_judge.unseen_markup import unseen_at

READ_CHARS = 40_000
"""How much of the text after the answer the checks here read: all of it the verifier lets through
(``max_final_chars``, the response cap). Round 10: they read 2,000 characters, so a retraction
("Nein, eigentlich ist es der Rhein.") or a qualified doubt after 2,000 characters of padding
reached the judge, which is shown everything after the answer."""


def hedged(answer: str, after: str, level: int = 2) -> Screened | None:
    """Reference mode: whether the text after the final answer takes it back (``rlvr_envs.answer_tail``:
    a hedge, an alternative value, a value word, another final answer saying something else); from
    ``level`` 3 also a retraction in any claimed language ("Nein, eigentlich ist es der Rhein.")."""
    if not after.strip():
        return None
    if level >= 3:
        taken = retracted(answer, after)
        if taken is not None:
            return taken
    other = second_answer(after, answer)
    if other is not None:
        # The same answer restated with more words ("The answer is Danube because it flows through
        # Vienna") holds every content word of the one read, or the other way round.
        said, read = _content(other), _content(answer)
        if said and read and not (said <= read or read <= said):
            return Screened("hedge", f"another final answer after the one read ({other[:60]!r})")
    found = tail_refusal(after, answer)
    if found is None:
        degree = _DEGREE_HEDGE.search(after[:READ_CHARS])
        found = TailFinding("hedge", degree.group(0)) if degree is not None else None
    if found is None or (found.kind == "hedge" and _remark(after, found.text, answer)):
        return None
    return Screened("hedge", f"the text after the final answer takes it back ({found.describe()})")


def _content(text: str) -> set[str]:
    """The words of ``text`` that carry its content (numbers included), as a reader sees them."""
    return {t for t in tokens(visible(text)) if t not in _FUNCTION_WORDS}


# "Not sure" qualified by a degree ("not entirely sure", "nicht ganz sicher"): the core lexicon's
# phrases are unqualified.
_DEGREE_HEDGE = re.compile(
    r"(?<![\w'-])(?:not|isn't|am\s+not|i'm\s+not)\s+(?:completely|entirely|totally|fully|quite|absolutely|really|100\s*%)"
    r"\s+(?:sure|certain|confident)|nicht\s+(?:ganz|völlig|hundertprozentig|100\s*%)\s+sicher"
    r"|pas\s+(?:tout\s+à\s+fait|complètement|entièrement|100\s*%)\s+sûr|no\s+(?:estoy\s+)?(?:del\s+todo|completamente"
    r"|100\s*%)\s+segur[oa]",
    re.IGNORECASE,
)
# Words about being right or sure say nothing of their own (en, de, fr, es, it, pt).
_CERTAINTY_WORDS = frozenset(
    """sure certain right correct wrong true answer confident completely entirely totally quite really fully
    absolutely one hundred percent sicher richtig falsch antwort ganz völlig sûr certain juste faux réponse
    tout fait seguro segura correcto correcta respuesta cierto del todo certo giusto risposta certeza
    resposta""".split()
)
REMARK_WORDS = 3
"""Content words of its own that make a sentence with a hedge phrase a remark about something else
("I don't know the exact length though") rather than about the answer ("But I am not sure.")."""


def _remark(after: str, phrase: str, answer: str) -> bool:
    """Whether the sentence holding ``phrase`` says enough of its own to be a remark about something
    other than the answer (the judge is shown it and decides); with no number in it when the answer
    is a number (then a number beside the hedge is another answer)."""
    for sentence in SENTENCE_END.split(after):
        if phrase.casefold() not in sentence.casefold():
            continue
        rest = sentence.casefold().replace(phrase.casefold(), " ")
        own = [t for t in tokens(rest) if len(t) >= 3 and t not in _FUNCTION_WORDS and t not in _CERTAINTY_WORDS]
        numeric = any(ch.isdigit() for ch in answer)
        return len(own) >= REMARK_WORDS and not (numeric and any(ch.isdigit() for ch in rest))
    return False


# A retraction after the answer (our list; level 3): the answer is called wrong, then something else
# is said. Each opens with a word no remark uses to go on ("No,", "Wait", "Correction", "I was wrong").
_RETRACTIONS = [
    r"no\s*[,!:;]", r"no\.(?!\s*\d)", r"nee\s*[,.!:;]", r"wacht\s*[,.!:;]", r"wait\s*[,.!:;—-]",
    r"scratch\s+that", r"correction", r"i\s+was\s+wrong", r"my\s+mistake",
    r"i\s+mean", r"on\s+second\s+thoughts?", r"actually\s*,?\s+no", r"not\s+the\s+\w+\s*[,;:]\s*(?:it'?s|it\s+is)",
    r"nein\s*[,.!:;]", r"moment\s*[,.!:;]", r"korrektur", r"ich\s+habe\s+mich\s+geirrt", r"ich\s+meine",
    r"non\s*[,.!:;]", r"attends\s*[,.!:;—-]", r"je\s+me\s+suis\s+trompée?", r"je\s+veux\s+dire", r"pardon\s*[,.!:;]",
    r"espera\s*[,.!:;—-]", r"corrección", r"me\s+equivoqué", r"quiero\s+decir", r"mejor\s+dicho",
    r"aspetta\s*[,.!:;—-]", r"correzione", r"mi\s+sono\s+sbagliat[oa]", r"anzi", r"não\s*[,.!:;]", r"correção",
    r"me\s+enganei", r"нет\s*[,.!:;]", r"подожди(?:те)?\s*[,.!:;—-]", r"поправка", r"я\s+ошибл(?:ся|ась)", r"точнее",
    r"hapana\s*[,.!:;]", r"samahani\s*[,.!:;]", r"nie\s*[,.!:;]", r"pomyliłem\s+się", r"hayır\s*[,.!:;]",
    r"yanıldım", r"không\s*[,.!:;]", r"tôi\s+nhầm", r"ei\s*[,.!:;]",
]  # fmt: skip
_RETRACTIONS_CJK = """不对 不對 不是的 等等 更正 我错了 我錯了 说错了 說錯了
    いや 違います 違う 訂正 間違えました 아니요 아니 정정 잘못""".split()
_RETRACTION = _alternation(_RETRACTIONS, _RETRACTIONS_CJK)


def retracted(answer: str, after: str) -> Screened | None:
    """Whether ``after`` takes the answer back and says something else: a retraction word, then content
    words the answer does not have (a restatement after "I mean" says the same thing)."""
    text = visible(after[:READ_CHARS])
    found = _RETRACTION.search(text)
    if found is None:
        return None
    said = _content(text[found.end() :]) - _CERTAINTY_WORDS
    if said and not said <= _content(answer):
        return Screened("hedge", f"the text after the final answer takes it back ({found.group(0).strip()!r})")
    return None


_ANY_TAG = re.compile(r"</?\s*([^\s<>/=\"']{3,24})\s*>")
_TAG_NAMES = frozenset({"answer", "think", "final", "finalanswer", "final_answer", "response", "solution"})


def look_alike_tag(response: str) -> Screened | None:
    """Level 3: a tag whose name only looks like an answer or think tag (``<answеr>`` with a Cyrillic
    е): the extractor skips it, a judge model reads a second answer in it. Two real answer tags are
    the project's convention (the last one is the answer, as in every family) and are left alone."""
    from rlvr_judge.decoded import _LOOKALIKE

    for found in _ANY_TAG.finditer(response[:40_000]):
        name = found.group(1)
        if name.isascii():
            continue
        folded = unicodedata.normalize("NFKC", name).translate(_LOOKALIKE).casefold()
        if folded in _TAG_NAMES:
            return Screened("forged_format", f"a tag that only looks like <{folded}> ({found.group(0)!r})")
    return None


def hidden_answer(response: str) -> Screened | None:
    """The marked final answer where a reader does not see it (inside ``\\phantom{}``, a box scaled
    to zero, a hidden or white element, an unclosed comment, struck out), else None: the judge
    would be shown an answer the response does not visibly give."""
    from rlvr_envs.extract import extract_answer

    found = extract_answer(response) if isinstance(response, str) else None
    if found is None or not found.text.strip():
        return None
    why = concealed(response, found)
    return None if why is None else Screened("hedge", f"the final answer is not visible ({why})")


def doubted_lead(response: str, start: int | None) -> Screened | None:
    """Level 3 (round 12): doubt in the final answer's lead-in ("Unverified: <answer>X</answer>", "Grobe
    Schätzung:", "未验证：", a label line above it), read as math and reasoning-gym read it
    (``rlvr_envs.tail_doubt.doubted_before``). The judge is shown that sentence (``ref-v2``), but a judge
    that grades the answer's value pays a guess labelled as one: 28 of 28 such probes of ``rlvr-envs
    redteam`` (``said_in_words``, seed 12) were paid by the rules stand-in."""
    from rlvr_envs.tail_doubt import doubted_before

    if start is None or start <= 0 or not isinstance(response, str):
        return None
    doubt = doubted_before(response[:start])
    return None if doubt is None else Screened("hedge", f"the final answer is given as a guess ({doubt[:60]!r})")


def unseen_answer(response: str, start: int | None) -> Screened | None:
    """Round 11: the final answer (starting at ``start``) inside a part of the response that the
    allow-lists of ``rlvr_judge.unseen_markup`` cannot show to be in sight: an element carrying a
    class or a style not known to be harmless, a folded ``<details>``, a LaTeX ``comment``
    environment, a link's destination. The judge would be shown an answer a reader never sees."""
    if start is None or not isinstance(response, str):
        return None
    what = unseen_at(response, start)
    return None if what is None else Screened("hedge", f"the final answer is not visible (inside {what!r})")


# -- round 10: the reference named only to be denied ----------------------------------------------------
# Words that deny what follows them in a clause (en, de, fr, es, it, pt, ru, nl, pl), and what may stand
# between (articles, copulas: "not the Danube", "ce n'est pas le Danube", "no es el Danubio").
_NEGATORS = frozenset(
    "not never no neither nor isn aren wasn nicht kein keine keinen keiner nie niemals weder pas non ni jamais "
    "nunca nem não mai не ни niet geen 不 非 没 沒 无 無".split()
)
_BETWEEN = frozenset(
    "t s the a an it is was be die der das den ein eine ist le la les l est c n el es un una il è é o de het "
    "是 的".split()
)
# After the reference: it is called wrong or not the answer ("The Danube is wrong", "... ist falsch").
_DENIED_AFTER = re.compile(
    r"^\W*(?:is|was|would\s+be|ist|wäre|est|serait|es|sería|è|sarebbe|é|seria)?\s*(?:n'?t|not|nicht|pas|no|non|não)?\s*"
    r"(?:wrong|incorrect|false|not\s+(?:the\s+)?(?:answer|correct|right|it)|n'?t\s+(?:the\s+)?(?:answer|correct|right|it)"
    r"|falsch|nicht\s+(?:die\s+)?(?:antwort|richtig|korrekt)|faux|fausse|pas\s+(?:la\s+)?(?:réponse|correcte?|juste)"
    r"|incorrect[oa]|falso|falsa|no\s+(?:es\s+)?(?:la\s+)?(?:respuesta|correct[oa])|sbagliat[oa]|errad[oa]|неверн\w*|неправильн\w*)\b",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[,.;:!?…\n，。；：！？、()\[\]]+")
_CJK_DENIED_BEFORE = re.compile(r"(?:不是|并非|並非|并不是|並不是|不|非|没有|沒有)\s*(?:的|是)?\s*$")
_CJK_DENIED_AFTER = re.compile(
    r"^\s*(?:では(?:ない|ありません)|じゃ(?:ない|ありません)|이?가?\s*아니|는\s*아니|不对|不對|是错的|是錯的|错了|錯了)"
)


def negated_reference(shown: str, reference: str) -> Screened | None:
    """Reference mode, level 3: the answer names the reference only to deny it ("Not the Danube.",
    "Ce n'est pas le Danube.", "The Danube is wrong; it is the Rhine.", "不是多瑙河"): a judge that
    matches words finds the reference there. Refused when the reference's content words stand in the
    text and every place they do is denied in its own clause; a reference that is itself a denial
    ("not prime") is left to the judge, and so is any answer that also names it plainly."""
    if not isinstance(shown, str) or not isinstance(reference, str):
        return None
    ref_toks = tokens(visible(reference))
    if not ref_toks or _NEGATORS & set(ref_toks):
        return None
    units = {t for t in ref_toks if (len(t) >= 3 and t not in _FUNCTION_WORDS) or any(c.isdigit() for c in t)}
    ref_all = set(ref_toks)  # the rest of the reference ("32 °F") stands between it and "is wrong"
    text = visible(shown[:8_000])
    if not units:
        return _negated_cjk(text, reference)
    places = denied = 0
    for clause in _CLAUSE.split(text):
        toks = tokens(clause)
        for i, tok in enumerate(toks):
            if tok not in units or (i and toks[i - 1] in units):
                continue  # one place per run of the reference's words
            places += 1
            j = i - 1
            while j >= 0 and not _denies(toks, j) and (toks[j] in _BETWEEN or toks[j] in units) and i - j <= 4:
                j -= 1
            if j >= 0 and _denies(toks, j):
                denied += 1
                continue
            rest = clause.casefold().split(tok, 1)[-1] if tok in clause.casefold() else ""
            for _ in range(8):  # bounded: each pass drops one word of the reference, or stops
                first = tokens(rest[:40])[:1]
                if not first or first[0] not in ref_all or first[0] not in rest:
                    break
                rest = rest.split(first[0], 1)[-1]
            if _DENIED_AFTER.search(rest):
                denied += 1
    if places and denied == places:
        return Screened("hedge", "the answer names the reference only to deny it")
    return None


# What stands before the "t" of "n't" ("isn't" -> "isn", "t"); not any word ending in n ("sin T").
_CONTRACTED = frozenset(
    "n isn aren wasn weren don doesn didn can couldn won wouldn shouldn hasn haven hadn ain mustn needn".split()
)


def _denies(toks: list[str], j: int) -> bool:
    # "n't" is read as two words ("isn't" -> "isn", "t"; an answer view may show "is n't").
    return toks[j] in _NEGATORS or (toks[j] == "t" and j > 0 and toks[j - 1] in _CONTRACTED)


def _negated_cjk(text: str, reference: str) -> Screened | None:
    ref = visible(reference).strip()
    if not ref or ref not in text:
        return None
    at, places, denied = text.find(ref), 0, 0
    while at >= 0:
        places += 1
        before, after = text[max(0, at - 4) : at], text[at + len(ref) : at + len(ref) + 8]
        denied += bool(_CJK_DENIED_BEFORE.search(before) or _CJK_DENIED_AFTER.search(after))
        at = text.find(ref, at + len(ref))
    return Screened("hedge", "the answer names the reference only to deny it") if denied == places else None
