"""The task's words stuffed into a text about something else (issue 26, round 12:
``relevance_paste=8``, ``ifeval-data-v12`` / ``ifeval-synth-v12``).

The overlap rule counts the task's units a response holds; round 10 (``rlvr_ifeval.detached``)
refuses a task named in one prose paragraph that nothing else takes up. The shipped attacker
(``rlvr-envs redteam ifeval-synth-v11``, class ``keyword_stuffing``) beat both with a fluent essay
on a lighthouse keeper's day that mentions the task everywhere or in one place prose rules spare:

* as an aside in every sentence ("... at dusk while he thought about laptop and choosing."): the
  units are in every paragraph, so nothing is "named in one place";
* under a title made of them ("<<Tips Public Libraries>>"), or over a closing "Keywords: tips,
  public, libraries" line: a heading is how real answers name a task, so round 10 spares it;
* with every other word transliterated into Cyrillic (``script_swap``): half the text is no
  language a reader of the prompt reads, and the Latin half carries the stuffed words.

Three readings, each about how the task's words sit in the response rather than which words:

* **framed** (``framed_units``): where a response mentions its task, the words around the mention
  vary as the text goes on; a stuffed text carries the task's words in a frame, the same two words
  before them (or after them) at most of their mentions. Mentions inside a frame seen three times
  or more are not counted, and if the mentions left hold fewer of the task's units than the gate
  needs, the response is refused.
* **labelled** (``label_only``): the task's units occur only in a block of lines at the start or
  the end (a title, a keywords line, a list of the task's words, an opening "This response covers
  ...") and the rest, at least ``MIN_BODY_WORDS`` words, holds none of them. Judged only where
  prompts are topical by construction (the generator's: "Write a blog post about urban
  gardening."): a real answer there says "gardening" in its body. Labelled data has titled
  answers whose bodies share no word with a terse task ("RUBRIC FOR EVALUATING A MUSICAL
  COMPOSITION" over a body on melody), so ``ifeval-data`` does not apply it.
* **mixed script** (``mixed_script``): words of two alphabets alternate through the prose (Latin
  and Cyrillic or Greek, one word in each every few words) or letters of two alphabets share one
  word ("lіghthouse" with a Cyrillic і), where the prompt is written in one alphabet and asks for
  no other language. Real bilingual text switches alphabet at a phrase or a sentence, not every
  second word.

And the prompt said back with its constraint words changed (``rlvr_ifeval.swapped``).

Round 13 (speed, same answers): ``framed_units`` leaves through one compiled pass over the head's
bytes (``frames_jit``: the mentions, the pairs beside the prompt's words, a high count of framed
mentions) and reads in Python only where that cannot show its answer is None (~3% of the labelled
responses, from ~23%); the pass also counts the task's mentions that ``asides`` reads
(``task_mentions``), once per head. ``mixed_script`` answers None at once for a Latin prompt over a
head without a Greek or Cyrillic letter. What follows is round 12's account.

Cost: run only where every earlier rule passed (reward above 0). ``mixed_script`` exits on an
ASCII text, ``label_only`` on a prompt word in the middle third (one compiled ``units`` call),
``restated_prompt`` on a response longer than twice the prompt; ``framed_units`` tokenises in C
and exits before its Python reading unless the task is mentioned three times and two words stand
three times before (or after) the prompt's words (regexes over the masked text). Still the
largest share: row-paired on the 835 labelled rows (each row verified by ``-v11`` and ``-v12`` back
to back, order alternating, 4 passes, warm task memos, load 2.4), ``ifeval-data-v12`` 506 us a
verdict against ``-v11``'s 352 (1.44x), ``ifeval-synth`` 443 against 320 (1.38x); a compiled
(numba) reading of the frames is the next step.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import compress, pairwise
from typing import Any

from rlvr_ifeval import frames_jit, prose_jit, reading
from rlvr_ifeval.base import Checker
from rlvr_ifeval.relevance_units import PREFIX, STOP_WORDS, _fold, units
from rlvr_ifeval.swapped import restated_prompt

MAX_READ_CHARS = 20_000
"""What the rules read of a response (a stuffed essay shows its frame in the first few hundred
words; the gate's other rules read more)."""
MIN_FRAME_REPEATS = 3
"""A frame (the two words before a mention, or the two after it) seen this often is a frame."""
MIN_FILLERS = 3
"""A frame is a slot when this many different sets of task words fill it."""
MIN_FRAMED_SHARE = 0.6
"""... and it carries at least this share of the response's mentions of its task."""
MIN_BODY_WORDS = 60
"""``label_only``: the unlabelled rest holds at least this many words."""
MIN_LABEL_PROMPT_SHARE = 0.6
"""``label_only``: at least this share of the label's content words are the prompt's."""
MAX_BODY_PROMPT_UNITS = 0
"""``label_only``: the body shares at most this many of the prompt's content words (one is too
many: the labelled rubric under "RUBRIC FOR EVALUATING A MUSICAL COMPOSITION" says "RUBRIC" once
more and no other word of its prompt)."""
MIN_MIXED_WORDS = 20
"""``mixed_script``: alphabetic words read before the rule judges."""
MIN_MINORITY_SHARE = 0.15
MIN_SWITCH_SHARE = 0.25
"""Words of the second alphabet are at least this share, and adjacent words switch alphabet at
this share of word boundaries or more (bilingual text: a few switches at phrase boundaries)."""
MIN_HYBRID_WORDS = 3
MIN_HYBRID_SHARE = 0.05
"""Words that mix two alphabets inside them: at least this many and this share of the words."""

_TOKEN_RE = re.compile(r"[^\W\d_]+|\n|[.!?;:\u3002\uff01\uff1f]+")
_LINE_WORD_RE = re.compile(r"[^\W\d_]+")
_BREAK = "\x00"
# ASCII text read as ``_TOKEN_RE`` reads it: letters kept, a sentence mark or a line end a
# ``_BREAK`` token, anything else a space.
_ASCII_TOKENS = bytes(
    0 if chr(c) in ".!?;:\n" else c | 0x20 if chr(c).isalpha() and c < 128 else 32 for c in range(256)
)
"""A sentence or paragraph end: a frame never reaches across one."""


def _unit(word: str) -> str | None:
    folded = _fold(word)
    return folded[:PREFIX] if len(folded) >= 3 else None


def _line_units(line: str) -> tuple[int, set[str]]:
    """A line's word count and its units (words of three letters or more, first ``PREFIX``)."""
    found = _LINE_WORD_RE.findall(line)
    if line.isascii():
        return len(found), {w.lower()[:PREFIX] for w in found if len(w) >= 3}
    return len(found), {u for w in found if (u := _unit(w)) is not None}


def _content_unit(word: str) -> str | None:
    folded = _fold(word)
    return folded[:PREFIX] if len(folded) >= 3 and folded not in STOP_WORDS else None


@lru_cache(maxsize=4096)
def _pairs(text: str) -> frozenset[tuple[str, ...]]:
    """The prompt's word pairs, over every word and over its content words (the two readings)."""
    words = [_fold(w) for w in _LINE_WORD_RE.findall(text[:MAX_READ_CHARS])]
    content = [w for w in words if len(w) >= 3 and w not in STOP_WORDS]
    return frozenset(pairwise(words)) | frozenset(pairwise(content))


@lru_cache(maxsize=4096)
def _prompt_units(prompt: str) -> frozenset[str]:
    """The prompt's content words as units (per prompt: a data set's prompts repeat)."""
    return frozenset(
        folded[:PREFIX]
        for w in _LINE_WORD_RE.findall(prompt)
        if len(folded := _fold(w)) >= 3 and folded not in STOP_WORDS
    )


@lru_cache(maxsize=8)
def _kept_text(head: str) -> str:
    """``head``'s lines casefolded, a line said again word for word (a chorus, a refrain, a
    repeated heading) kept once: a song's chorus repeats its frame by design, a stuffed text's
    sentences differ."""
    seen: set[str] = set()
    kept = []
    for line in head[:MAX_READ_CHARS].split("\n"):
        key = line.strip().casefold()
        if key and key not in seen:
            seen.add(key)
            kept.append(key)
    return "\n".join(kept) + "\n"


def _tokens(head: str, text: str | None = None) -> list[str]:
    """``head``'s words (of ``_kept_text``, or ``text`` where the caller made it), casefolded and
    accents dropped, with ``_BREAK`` for each sentence mark and line end."""
    if text is None:
        text = _kept_text(head)
    if text.isascii():  # (the common case: one translate and one split, in C)
        return text.encode("ascii").translate(_ASCII_TOKENS).replace(b"\x00", b" \x00 ").decode("ascii").split()
    found = _TOKEN_RE.findall(text)
    folded = {w: _fold(w) if w[0].isalpha() else _BREAK for w in set(found)}  # (once a distinct word)
    return list(map(folded.__getitem__, found))


ROUND_13 = True
"""Round 13's compiled exits (``frames_jit``); ``bench/_ifeval_speed_off.without_speed_round13``
turns them off to time the round's gain (the same verdicts)."""
# A character outside ASCII that ``_TOKEN_RE`` reads (a letter, or a sentence mark of a script
# without spaces); any other one (curly quotes, dashes, symbols) only parts words there, as a
# space does in ``_ASCII_TOKENS``' reading, so a text with none reads the same with them spaces.
_READ_OUTSIDE_ASCII_RE = re.compile(r"(?![\x00-\x7f])[^\W\d_]|[\u3002\uff01\uff1f]")
_OUTSIDE_ASCII_RE = re.compile(r"[^\x00-\x7f]+")
_STOP_EXACT = frames_jit.usable_stop_list(STOP_WORDS)


def compiled_reading(prompt: str, head: str, task: frozenset[str]) -> tuple[int, bool] | None:
    """``head`` read once for the rules that read how it mentions its task (``frames_jit``):
    how often a content word of it names the task (a word of three letters or more, not a stop
    word, whose unit is the prompt's and in ``task``: ``asides``' count) and whether
    ``framed_units``' answer is None; None where the kernel cannot tell (not loaded yet, letters
    outside ASCII). Kept for the response being verified: round 13's rules read the same head."""
    kernel = prose_jit.frames_kernel() if ROUND_13 and _STOP_EXACT else None
    if kernel is None:
        return None
    # (a caller's plain set is made hashable for the memo: the rules pass frozensets)
    return _compiled_reading(kernel, prompt, head, task if isinstance(task, frozenset) else frozenset(task))


@lru_cache(maxsize=8)
def _compiled_reading(kernel: Any, prompt: str, head: str, task: frozenset[str]) -> tuple[int, bool] | None:
    text = _kept_text(head)
    if not text.isascii():
        if _READ_OUTSIDE_ASCII_RE.search(text):
            return None
        text = _OUTSIDE_ASCII_RE.sub(" ", text)
    return frames_jit.read(kernel, text, _prompt_units(prompt), task, STOP_WORDS)


def task_mentions(prompt: str, head: str, task: frozenset[str]) -> int | None:
    """How often a content word of ``head`` names the task (``compiled_reading``), or None."""
    found = compiled_reading(prompt, head, task)
    return None if found is None else found[0]


@lru_cache(maxsize=4096)
def _word_res(prompt: str, task: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """Regexes matching, as whole tokens of a space-joined ASCII text, the words whose unit is
    the prompt's, and those whose unit is the task's (a unit of six letters begins a longer word;
    a shorter one is the whole word). None when a unit is not plain ASCII letters."""
    found = []
    for group in (_prompt_units(prompt), task):
        if not all(u.isascii() and u.isalpha() for u in group):
            return None
        alts = "|".join(f"{u}[a-z]*" if len(u) == PREFIX else u for u in sorted(group, key=len, reverse=True))
        # (A leading literal space, not a look-behind: the engine jumps from space to space.)
        found.append(re.compile(f" (?:{alts})(?= )") if alts else re.compile("(?!)"))
    return found[0], found[1]


def _ascii_may_frame(every: list[str], prompt: str, task: frozenset[str]) -> bool:
    """``framed_units``'s exits, read in C over an ASCII text: fewer than three mentions of the
    task, or no frame three times over in either reading (``_may_frame``). True where the full
    reading is needed (and wherever this one cannot answer: text or units outside ASCII)."""
    res = _word_res(prompt, task)
    if res is None or not all(map(str.isascii, every[:1])):
        return True
    line = " " + " ".join(every) + " "
    if not line.isascii():
        return True
    prompt_words, task_words = res
    if len(task_words.findall(line)) < MIN_FRAME_REPEATS:
        return False
    masked = prompt_words.sub(" " + _SLOT, line).split()
    if _may_frame(masked):
        return True
    distinct = set(every)
    content = distinct - STOP_WORDS
    content.difference_update([t for t in content if len(t) < 3])
    content.add(_BREAK)
    return _may_frame(list(compress(masked, map(content.__contains__, every))))


def framed_units(prompt: str, head: str, task: frozenset[str], needed: int) -> dict[str, Any] | None:
    """What was found when the task's mentions sit in a repeated frame and those outside it hold
    fewer than ``needed`` of the task's units, else None. A frame the prompt itself uses ("what
    has a dome ..., what has a vault ...") is the prompt's, said back or answered in kind.

    Read twice: over every word ("while he thought about X and Y") and over content words only,
    so that a frame is read past "a", "and", "were" ("... and bicycle and an were never far from
    his mind": its frame is "never far")."""
    compiled = compiled_reading(prompt, head, task)
    if compiled is not None and compiled[1]:
        return None
    every = _tokens(head)
    words = _prompt_units(prompt)
    if compiled is None and not _ascii_may_frame(every, prompt, task):  # (no compiled answer: C regexes)
        return None
    # One pass over the distinct words (a text's words repeat), then C ``map``s over the tokens:
    # each word's unit where it is the prompt's, its mask (the prompt's words one placeholder),
    # whether it names the task, whether it is a content word.
    unit_of: dict[str, str] = {}
    mask: dict[str, str] = {}
    named: set[str] = set()
    content = {_BREAK}
    for t in set(every):
        mask[t] = t
        if len(t) >= 3:
            if t not in STOP_WORDS:
                content.add(t)
            unit = t[:PREFIX]
            if unit in words:
                unit_of[t] = unit
                mask[t] = _SLOT
                if unit in task:
                    named.add(t)
    # Fewer than three mentions of the task: no frame can carry them (the common exit).
    if sum(map(named.__contains__, every)) < MIN_FRAME_REPEATS:
        return None
    ours = _pairs(prompt)
    masked = list(map(mask.__getitem__, every))
    if _may_frame(masked):
        found = _framed(every, list(map(unit_of.get, every)), ours, task, needed)
        if found is not None:
            return found
    keep = list(map(content.__contains__, every))
    if not _may_frame(list(compress(masked, keep))):
        return None
    kept = list(compress(every, keep))
    return _framed(kept, list(map(unit_of.get, kept)), ours, task, needed)


_SLOT = "\x01"
# A prompt word then two other words, read forwards (a frame after a mention) and over the
# reversed text (a frame before one). The placeholder is always a whole token, so the pattern
# starts with it (the regex engine skips to each one) and needs no look-ahead at every position.
_FRAME_RE = re.compile(f"{_SLOT} ([^ {_SLOT}{_BREAK}]+ [^ {_SLOT}{_BREAK}]+)(?= |$)")


def _may_frame(masked: list[str]) -> bool:
    """Whether some two words stand before (or after) the prompt's words three times or more: what
    ``_framed`` needs of a frame, read in C (regexes over the text with each of the prompt's words
    ``_SLOT``). A mention starts after a word that is not the prompt's (runs are maximal) and ends
    before two such words (a word between two of the prompt's joins them), so every frame
    ``_framed`` counts is one of these: most texts stop here."""
    for text in (" ".join(masked), " ".join(reversed(masked))):
        found = _FRAME_RE.findall(text)
        if found and max(Counter(found).values()) >= MIN_FRAME_REPEATS:
            return True
    return False


def _framed(
    tokens: list[str],
    units: list[str | None],
    ours: frozenset[tuple[str, ...]],
    task: frozenset[str],
    needed: int,
) -> dict[str, Any] | None:
    # A mention: a run of the prompt's content words (the task's units and the prompt's other
    # words: a stuffed text borrows both) with at most one other word between two of them
    # ("laptop and choosing" is one mention); its frame the two words before it and the two after.
    mentions: list[tuple[int, int, set[str]]] = []
    n = len(tokens)
    end = -1
    for i in compress(range(n), units):
        if i < end:
            continue
        found: set[str] = set()
        j = i
        while j < n:
            unit = units[j]
            if unit is not None:
                found.add(unit)
                j += 1
                continue
            after = units[j + 1] if j + 1 < n and tokens[j] is not _BREAK else None
            if after is None:
                break
            found.add(after)
            j += 2
        mentions.append((i, j, found))
        end = j
    if len(mentions) < MIN_FRAME_REPEATS:
        return None
    # A frame is a slot: the same two words before (or after) the mention, filled with different
    # task words ("... thought about news and report.", "... thought about report and choosing.").
    # A list or a refrain repeats its frame with the same filler ("with the graphs", "The American
    # Revolution", "In a world of innovation"): that is one phrase said again, not a slot.
    fillers: dict[tuple[str, ...], set[frozenset[str]]] = {}
    frames: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    for s, e, found in mentions:
        left, right = tuple(tokens[max(0, s - 2) : s]), tuple(tokens[e : e + 2])
        # Made of words: a sentence end after many mentions is no frame.
        left = left if len(left) == 2 and _BREAK not in left else ()
        right = right if len(right) == 2 and _BREAK not in right else ()
        frames.append((left, right))
        for side, key in (("<", left), (">", right)):
            if key:
                fillers.setdefault((side, *key), set()).add(frozenset(found))
    framed = 0
    free: set[str] = set()
    for (left, right), (_, _, found) in zip(frames, mentions):
        mine = found & task
        if not mine:
            continue  # (the prompt's other words: they fill slots, they do not count)
        if (left and left not in ours and len(fillers[("<", *left)]) >= MIN_FILLERS) or (
            right and right not in ours and len(fillers[(">", *right)]) >= MIN_FILLERS
        ):
            framed += 1
        else:
            free |= mine
    named = sum(1 for _, _, found in mentions if not found.isdisjoint(task))
    if framed < MIN_FRAME_REPEATS or framed < MIN_FRAMED_SHARE * named or len(free) >= needed:
        return None
    return {"framed_mentions": framed, "mentions": named, "free_units": len(free), "needed": needed}


def label_only(
    prompt: str, head: str, task: frozenset[str], prompt_share: float = MIN_LABEL_PROMPT_SHARE
) -> dict[str, Any] | None:
    """What was found when the task's units occur only in a label at the start or the end of
    ``head`` (a run of lines, or the first or last paragraph) and the rest (``MIN_BODY_WORDS``
    words or more) holds none of them, nor any other content word of the prompt, else None."""
    text = head[:MAX_READ_CHARS].strip()
    if reading.ROUND_15 and "\n" not in text:
        # One line has no label apart from a body (``lines`` below): settled before the units of
        # its middle third are read (speed round 15; 21% of the labelled responses are one line).
        return None
    # The common exit, in one compiled call (``relevance_units.units``): a label is short, at the
    # start or the end, so a word of the prompt in the middle third of the text is the body's.
    third = len(text) // 3
    if not _prompt_units(prompt).isdisjoint(units(text[third : len(text) - third], STOP_WORDS)):
        return None
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) < 2:
        return None
    # Line k's paragraph (blank lines part paragraphs): a keyword list is a paragraph of lines.
    paragraph: list[int] = []
    p = 0
    for k, line in enumerate(text.split("\n")):
        if not line.strip():
            p += k > 0
        else:
            paragraph.append(p)
    naming = []
    words = []
    read = [_line_units(line) for line in lines]
    for k, (count, mine) in enumerate(read):
        words.append(count)
        if not task.isdisjoint(mine):
            naming.append(k)
    if not naming:
        return None
    first, last = naming[0], naming[-1]
    start = first == 0 and (last - first + 1 == len(naming) or paragraph[last] == paragraph[0])
    end = last == len(lines) - 1 or paragraph[first] == paragraph[-1]
    end = end and (last - first + 1 == len(naming) or paragraph[first] == paragraph[-1])
    if not (start or end):
        return None  # named in the body, or in lines apart: not a label on someone else's text
    label = {k for k in range(len(lines)) if paragraph[k] == paragraph[first if start else last]} | set(
        range(first, last + 1)
    )
    body = sum(w for k, w in enumerate(words) if k not in label)
    if body < MIN_BODY_WORDS:
        return None
    # The label is made of the prompt's words ("<<Tips Public Libraries>>", "Keywords: laptop,
    # choosing", "This response covers laptops and choosing."): a title of the answer's own
    # ("Ars Caninica" over a parody, "Day 1: Welcome to the land of the Anteaters! ...") is not.
    # (``prompt_share`` 0: a generator's task, whose honest answers name their topic in the body.)
    ours = _prompt_units(prompt)
    label_words = [u for k in label for w in _LINE_WORD_RE.findall(lines[k]) if (u := _content_unit(w)) is not None]
    if sum(u in ours for u in label_words) < prompt_share * len(label_words):
        return None
    # A real body under a title takes up something of its prompt besides the topic (the "rubric"
    # it was asked for, the "letter", the "itinerary"); a text on something else shares nothing.
    # (Not closed: an essay that meets one prompt word by chance, "rocky point" under "bullet
    # point"; the labelled rubric's body shares one word too.)
    shared: set[str] = set()
    for k, (_, mine) in enumerate(read):
        if k not in label:
            shared |= ours & mine
            if len(shared) > MAX_BODY_PROMPT_UNITS:
                return None
    return {"label_only": len(label), "body_words": body, "task_units": len(task)}


# One match per run of letters of one alphabet: Latin (with its accented letters), Greek,
# Cyrillic. Two runs that touch are one word in two alphabets ("lіghthouse" with a Cyrillic і).
_RUN_RE = re.compile(r"[A-Za-z\u00c0-\u024f]+|[\u0370-\u03ff]+|[\u0400-\u052f]+")


def _alphabet(ch: str) -> int:
    code = ord(ch)
    return 0 if code < 0x250 else 1 if code < 0x400 else 2


@lru_cache(maxsize=4096)
def _alphabets_of(text: str) -> frozenset[int]:
    """The alphabets of a prompt's words (per prompt: a data set's prompts repeat)."""
    if text.isascii():
        return frozenset({0}) if any(c.isalpha() for c in text) else frozenset()
    return frozenset(_alphabet(m.group(0)[0]) for m in _RUN_RE.finditer(text))


# Greek or Cyrillic (``_RUN_RE``'s alphabets 1 and 2): without one, every run is Latin.
_GREEK_OR_CYRILLIC_RE = re.compile(r"[\u0370-\u052f]")


def mixed_script(prompt: str, head: str, checkers: Sequence[Checker]) -> dict[str, Any] | None:
    """What was found when the response's words alternate between two alphabets, or mix two in
    one word, under a prompt written in one alphabet that asks for no other language; else None."""
    prompt_alphabets = _alphabets_of(prompt)
    if len(prompt_alphabets) != 1:
        return None  # a prompt in two alphabets (a translation task, a Greek formula) sets none
    if any(isinstance(c.kwargs.get("language"), str) for c in checkers):
        return None  # the response's language is asked for: round 4's rule reads it
    head = head[:MAX_READ_CHARS]
    if head.isascii():
        return None  # one alphabet (the common case, read in C)
    main = next(iter(prompt_alphabets))
    if ROUND_13 and main == 0 and not _GREEK_OR_CYRILLIC_RE.search(head):
        # Round 13: only Latin runs (curly quotes, accents): no run touches one of another
        # alphabet (no hybrid) and none is another's (``other`` 0), so the answer is None.
        return None
    kinds: list[int] = []
    hybrid = 0
    start = end = -1
    for m in _RUN_RE.finditer(head):
        kind = _alphabet(m.group(0)[0])
        if m.start() == end and kinds:
            # Touches the run before: one word of two alphabets ("μm", "Δx" are a symbol
            # beside a unit: only words of four letters or more count).
            if kinds[-1] != kind and kinds[-1] != -2:
                kinds[-1] = -2
                hybrid += m.end() - start > 3
        else:
            kinds.append(kind)
            start = m.start()
        end = m.end()
    if len(kinds) < MIN_MIXED_WORDS:
        return None
    if hybrid >= MIN_HYBRID_WORDS and hybrid >= MIN_HYBRID_SHARE * len(kinds):
        return {"mixed_script_words": hybrid, "words": len(kinds)}
    counts = Counter(kinds)
    other = sum(v for k, v in counts.items() if k not in (main, -2))
    switches = sum(1 for a, b in pairwise(kinds) if a != b)
    if other >= MIN_MINORITY_SHARE * len(kinds) and switches >= MIN_SWITCH_SHARE * (len(kinds) - 1):
        return {"other_alphabet_words": other, "alphabet_switches": switches, "words": len(kinds)}
    return None


def stuffed(
    prompt: str,
    head: str,
    checkers: Sequence[Checker],
    task: frozenset[str],
    needed: int,
    *,
    label_share: float = MIN_LABEL_PROMPT_SHARE,
    min_words: int = 5,
) -> dict[str, Any] | None:
    """Round 12's rules, in order of cost: what was found, or None. ``task``: the task's units
    (``relevance.task_units``), ``needed``: how many the gate asks for; ``label_share``: the
    share of a label's words that must be the prompt's (``label_only``; 0 for prompts topical by
    construction)."""
    found = restated_prompt(prompt, head, min_words, checkers) or mixed_script(prompt, head, checkers)
    if found is not None or not task or any(c.allows_short_answer() for c in checkers):
        return found
    found = framed_units(prompt, head, task, max(1, needed))
    if found is None:
        found = label_only(prompt, head, task, label_share)
    return found


ROUND_12_PASTE = 8
"""The ``relevance_paste`` level (``ifeval-data-v12`` / ``ifeval-synth-v12``) from which the
verifier applies these rules; lower levels keep their verdicts."""


def hook_reading(
    prompt: str, response: str, checkers: Sequence[Checker], min_share: float
) -> tuple[str, frozenset[str], int, float]:
    """What the verifier's late hooks (round 12's ``stuffed_text``, round 13's ``round13_text``)
    read: the response within the gate's cap, the task's units, how many the gate needs, and the
    label share (``min_share`` above ``relevance.MIN_SHARE``: prompts topical by construction,
    ``ifeval-synth``, where any label counts, not only one made of the prompt's words). Made once
    a verdict (``rlvr_ifeval.reading``: rounds 12, 13 and 14 each asked for it)."""
    open_reading = reading.current()
    if open_reading is None:
        return _hook_reading(prompt, response, checkers, min_share)
    key = ("hook_reading", prompt, response, tuple(checkers), min_share)
    found = open_reading.values.get(key)
    if found is None:
        found = open_reading.values[key] = _hook_reading(prompt, response, checkers, min_share)
    return found  # (this function stores only these under its key)


def _hook_reading(
    prompt: str, response: str, checkers: Sequence[Checker], min_share: float
) -> tuple[str, frozenset[str], int, float]:
    from rlvr_ifeval import relevance  # (relevance imports the gate's modules; this one is read last)

    task = relevance.task_units(prompt, tuple(checkers), round9=True, round10=True)
    share = max(min_share, relevance.MIN_SHARE)
    need = task.needed if share == relevance.MIN_SHARE else relevance.needed(len(task.units), share)
    label_share = 0.0 if share > relevance.MIN_SHARE else MIN_LABEL_PROMPT_SHARE
    return response[: relevance.MAX_RELEVANCE_CHARS], task.units, need, label_share


def stuffed_text(prompt: str, response: str, checkers: Sequence[Checker], min_share: float) -> dict[str, Any] | None:
    """The verifier's hook: round 12's rules on a response the gate's earlier rules passed."""
    head, task_units, need, label_share = hook_reading(prompt, response, checkers, min_share)
    return stuffed(prompt, head, checkers, task_units, need, label_share=label_share)
