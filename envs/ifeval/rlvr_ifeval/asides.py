"""The task's words stuffed into a text on something else, read without the frame's text (issue 26,
round 13: ``relevance_paste=9``, ``ifeval-data-v13`` / ``ifeval-synth-v13``; ``rlvr_ifeval.round13``
calls it).

Round 12 (``stuffing.framed_units``) refuses a text whose mentions of its task sit in a repeated
frame ("... while he thought about X and Y." in every sentence). An attacker who varies the frame
at every mention ("while he thought about X", "as X came to mind", "recalling X", "(X)", "his
mind on X") repeats no two words, and round 12 also spares the text when the essay meets a task
word once by chance outside the frames ("he wrote the weather in a worn logbook" under a task on
Arctic weather): that one free mention holds as many units as a one-unit gate asks for.

Read here by where the mentions sit, not by the words around them: a mention is an **aside**
when it is bolted to one edge of its sentence (at most ``MAX_EDGE_WORDS`` words between it and
the sentence's end, or its start; a short insert in brackets or between dashes is read as moved
to its sentence's end) and the rest of the sentence is a sentence of its own (its
core, at least ``MIN_CORE_WORDS`` content words): the sentence is about something else, and the
prompt's words are hung on it. A text whose sentences holding the prompt's words (the task's,
and its keywords and genre words: a stuffed text borrows them all) are nearly all asides
(``MIN_ASIDE_SHARE``, at least ``MIN_ASIDES``), filled with different sets of those words, and
that says the task's words elsewhere at most twice (``MAX_FREE_MENTIONS``: a chance meeting) has
not taken the task up anywhere.

An honest answer weaves its task into its sentences: two mentions in one sentence, the topic
inside a clause with the prompt's other words beside it, sentences whose core carries the
prompt's words; the calibration (tests/ifeval/test_ifeval_round13_calibration.py) holds every
labelled-good answer the gate reached.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from itertools import compress, pairwise
from operator import itemgetter
from typing import Any

from rlvr_ifeval import asides_jit, frames_jit, prose_jit, stuffing
from rlvr_ifeval.relevance_units import PREFIX, STOP_WORDS
from rlvr_ifeval.stuffing import (
    _BREAK,
    _OUTSIDE_ASCII_RE,
    _READ_OUTSIDE_ASCII_RE,
    _prompt_units,
    _tokens,
    task_mentions,
)

MAX_EDGE_WORDS = 6
MAX_EDGE_CONTENT_WORDS = 2
"""An aside ends at most this many words (of them this many content words of four letters or
more: "ihm", "lui", "his" are a frame's glue in any language) before its sentence's end ("came
to mind", "were never far from his mind", "ging ihm nicht aus dem Kopf") or starts as near its
start ("Recalling", "His mind on"). Three content words at the edge let the rule alone refuse
labelled-good keys 1936 and 3453."""
MIN_CORE_WORDS = 5
"""The rest of an aside's sentence holds at least this many content words (a sentence of its own)."""
MIN_ASIDES = 4
MIN_ASIDE_SHARE = 0.8
"""At least this many of the sentences holding the prompt's words are asides, and this share of
them (at 3, the rule alone refuses labelled-good key 1601)."""
MAX_FREE_MENTIONS = 2
"""The task's words said outside asides at most this often, in all: a chance meeting ("weather"
in the logbook and "village" in the harbour under a task on Siberian villages' weather). At 3 the
rule alone refuses labelled-good keys 1634, 2590, 2918 and 3540 ("The pitch needs ...", "The
pitch could ...")."""
MIN_FILLERS = 2
"""The asides are filled with at least this many different sets of the task's words (a refrain
or a list repeats one phrase: the same filler). At 1 the rule alone refuses labelled-good keys
2372, 2416, 2531 and 3401; at 2, none."""


def aside_mentions(prompt: str, head: str, task: frozenset[str], needed: int) -> dict[str, Any] | None:
    """What was found when ``head`` names its task (units ``task``) only in asides and by chance,
    else None. ``needed``: how many of the task's units the gate asks for."""
    if not task:
        return None
    # The common exits: the task never named (round 12's compiled reading of the same head counts
    # its mentions), fewer prompt words than asides could be made of, then sentences read only
    # where they hold the prompt's words, left at the first sign of an answer (a third free
    # mention of the task, too many sentences without an aside).
    counted = task_mentions(prompt, head, task)
    if counted is not None and counted < 1:
        return None  # (the task never named: the overlap rule's to judge)
    text = stuffing._kept_text(_inserts_last(head))  # (by the module: round 13's switch replaces it)
    found = _compiled(text, _prompt_units(prompt), task) if ROUND_14 else _UNREAD
    if found is _UNREAD:
        found = python_reading(text, _prompt_units(prompt), task)
    if found is None:
        return None
    asides, plain, free, fillers = found
    if asides < MIN_ASIDES or fillers < MIN_FILLERS:
        return None
    return {"aside_mentions": asides, "mentions": asides + plain, "free_mentions": free, "needed": needed}


ROUND_14 = True
"""Round 14's compiled reading (``asides_jit``); ``bench/_ifeval_speed_off.without_speed_round14``
turns it off to time the round's gain (the same verdicts)."""
_UNREAD: Any = object()
_STOP_EXACT = frames_jit.usable_stop_list(STOP_WORDS)
BOUNDS = (
    PREFIX,
    MAX_EDGE_WORDS,
    MAX_EDGE_CONTENT_WORDS,
    MIN_CORE_WORDS,
    MIN_ASIDES,
    MIN_ASIDE_SHARE,
    MAX_FREE_MENTIONS,
)
"""The unit prefix and the rule's bounds, as ``asides_jit.read`` takes them."""
_CHECKED: dict[int, bool] = {}
"""id(kernel) -> whether it answered as ``python_reading`` on ``asides_jit.check``'s samples (once a
kernel; two threads checking it at once both find the same answer)."""


def _checked_kernel() -> Any:
    """``prose_jit``'s aside kernel once it has answered as ``python_reading`` does, or None."""
    kernel = prose_jit.asides_kernel()
    if kernel is None:
        return None
    ok = _CHECKED.get(id(kernel))
    if ok is None:
        try:
            ok = asides_jit.check(kernel, python_reading, STOP_WORDS, BOUNDS)
        except Exception:  # a kernel that fails on its own samples is not used
            ok = False
        _CHECKED[id(kernel)] = ok
    return kernel if ok else None


def _compiled(text: str, ours: frozenset[str], task: frozenset[str]) -> Any:
    """``python_reading``'s answer from ``asides_jit``'s pass, or ``_UNREAD`` where the kernel
    cannot give it (not loaded yet, letters outside ASCII)."""
    kernel = _checked_kernel() if _STOP_EXACT else None
    if kernel is None:
        return _UNREAD
    if not text.isascii():
        # (as ``stuffing._compiled_reading``: with no letter outside ASCII, the other characters
        # only part words, as a space does in the kernel's reading)
        if _READ_OUTSIDE_ASCII_RE.search(text):
            return _UNREAD
        text = _OUTSIDE_ASCII_RE.sub(" ", text)
    task = task if isinstance(task, frozenset) else frozenset(task)
    return asides_jit.read(kernel, text, ours, task, STOP_WORDS, BOUNDS)


def python_reading(text: str, ours: frozenset[str], task: frozenset[str]) -> tuple[int, int, int, int] | None:
    """The kept text ``text`` (``stuffing._kept_text``) read sentence by sentence: None at one of
    the rule's exits, else (asides, plain sentences, free mentions, different fillers)."""
    every = _tokens(text, text)
    # Each distinct word once, the filters in C (``map``/``compress``), then flags over the
    # tokens and running counts, so that a sentence is read by its prompt words alone.
    distinct = list(set(every))
    near = compress(distinct, map(ours.__contains__, map(_FIRST_LETTERS, distinct)))
    unit_of = {t: t[:PREFIX] for t in near if len(t) >= 3 and t not in STOP_WORDS}
    n = len(every)
    at_prompt = list(compress(range(n), map(unit_of.__contains__, every)))
    # Every word of the prompt, not only the task's: a stuffed text hangs the prompt's keywords and
    # genre words on its sentences too ("... while he thought about velvet and orchard.", "...
    # about short and story.") and the task's one unit on two of them.
    if len(at_prompt) < MIN_ASIDES:
        return None
    breaks = [-1, *compress(range(n), map(_BREAK.__eq__, every)), n]
    sentences = sorted({bisect_right(breaks, i) for i in at_prompt})
    # Content words (three letters or more, not stop words) and those of four letters or more,
    # counted over a sentence's span only when it is read (most texts leave after a few).
    content = set(compress(distinct, map((2).__lt__, map(len, distinct)))) - STOP_WORDS
    reading = _Reading(
        every, unit_of, task, content, set(compress(distinct, map((3).__lt__, map(len, distinct)))) & content
    )
    # (Asides at most as many as the sentences not yet found plain: a bound in the rule's own terms.)
    least_asides = MIN_ASIDE_SHARE * len(sentences) - 1e-9
    asides = plain = free = 0
    fillers: set[frozenset[str]] = set()
    for k in sentences:
        start, end = breaks[k - 1] + 1, breaks[k]
        at = at_prompt[bisect_left(at_prompt, start) : bisect_left(at_prompt, end)]
        filler, outside = reading.sentence(start, end, at)
        if filler is None:
            plain += 1
        else:
            asides += 1
            fillers.add(filler)
        free += outside
        # Outside its asides the text says the task's words at most twice: the essay met the
        # task by chance ("he wrote the weather in a worn logbook"). An answer on the task says
        # them again wherever its sentences begin with them ("The pitch needs ...", "The pitch
        # could ...").
        if free > MAX_FREE_MENTIONS or len(sentences) - plain < least_asides:
            return None
    if asides < MIN_ASIDES:
        return None
    return asides, plain, free, len(fillers)


_FIRST_LETTERS = itemgetter(slice(0, PREFIX))
# A short insert in brackets or between dashes inside a sentence: "He trimmed the wick (bread and
# prices) and polished the lens." is the sentence with an aside hung on it, moved to its end.
_INSERT_RE = re.compile(
    r"[ \t]*(?:\(([^()\n.!?;:]{1,80})\)"  # (an insert)
    r"|\[([^\[\]\n.!?;:]{1,80})\]"  # [an insert]
    r"|[ \t][\u2014\u2013-][ \t]([^\n.!?;:\u2014\u2013]{1,80}?)[ \t][\u2014\u2013-][ \t]"  # - an insert -
    r"|\u2014([^\n.!?;:\u2014]{1,80})\u2014)"  # \u2014an insert\u2014
    r"([^\n.!?;:]*)"  # the rest of the sentence
)


def _inserts_last(head: str) -> str:
    """``head`` with each short bracketed or dashed insert moved to the end of its sentence (text
    without one is returned as it is)."""
    if "(" not in head and "[" not in head and "\u2014" not in head and " - " not in head and "\u2013" not in head:
        return head
    if not ROUND_14:
        return _INSERT_RE.sub(_moved, head)
    # Round 14: no match of ``_INSERT_RE`` holds a sentence mark or a line end (neither its
    # spaces, nor its inserts, nor the rest of its sentence), so each stretch between two of them
    # is rewritten on its own as the whole text would be, and only a stretch that holds an
    # opener is searched at all (the pattern starts with spaces: tried at every character, ~80 us
    # over a long answer).
    parts = _STRETCH_RE.split(head)
    for i in range(0, len(parts), 2):  # (the marks themselves at the odd places)
        part = parts[i]
        # (each alternative's own characters: brackets opened and closed, a hyphen after a space)
        if (
            ("(" in part and ")" in part)
            or ("[" in part and "]" in part)
            or "\u2014" in part
            or "\u2013" in part
            or " -" in part
            or "\t-" in part
        ):
            parts[i] = _INSERT_RE.sub(_moved, part)
    return "".join(parts)


def _moved(m: re.Match[str]) -> str:
    return f" {m.group(5)} {next(g for g in m.groups()[:4] if g is not None)}"


_STRETCH_RE = re.compile(r"([\n.!?;:])")


class _Reading:
    """A response's tokens and its content words (three letters or more, not stop words) and
    those of four letters or more: a span's count is read in C when a sentence is read."""

    __slots__ = ("content", "every", "long_content", "task", "unit_of")

    def __init__(
        self,
        every: list[str],
        unit_of: dict[str, str],
        task: frozenset[str],
        content: set[str],
        long_content: set[str],
    ) -> None:
        self.every, self.unit_of, self.task = every, unit_of, task
        self.content, self.long_content = content, long_content

    def _count(self, words: set[str], start: int, end: int) -> int:
        return sum(map(words.__contains__, self.every[start:end]))

    def sentence(self, start: int, end: int, at: list[int]) -> tuple[frozenset[str] | None, int]:
        """A sentence (tokens ``start:end``) that names the task, ``at`` its prompt words: the
        units of its aside (None when it has none) and how many of the task's words it says
        elsewhere. A mention is a run of the prompt's words with at most one other word between
        two of them ("weather and conditions"); an aside is the run at one edge, its core (the
        rest) ``MIN_CORE_WORDS`` content words or more: "... he wrote the weather in a worn
        logbook ... while he thought about cold and year." has its aside at the end and
        "weather" free in its core."""
        runs: list[list[int]] = [[at[0]]]
        for a, b in pairwise(at):
            if b - a > 2:
                runs.append([])
            runs[-1].append(b)
        aside: list[int] = []
        if self._edge(runs[-1][-1] + 1, end):
            aside = runs[-1]
            core = self._count(self.content, start, aside[0])
        elif self._edge(start, runs[0][0]):
            aside = runs[0]
            core = self._count(self.content, aside[-1] + 1, end)
        else:
            core = 0
        units = self.unit_of
        filler = frozenset(units[self.every[i]] for i in aside) if core >= MIN_CORE_WORDS else frozenset()
        # (A short sentence is all mention: "Arctic weather is cold.")
        if not filler:
            return None, sum(1 for i in at if units[self.every[i]] in self.task)
        taken = set(aside)
        return filler, sum(1 for i in at if i not in taken and units[self.every[i]] in self.task)

    def _edge(self, start: int, end: int) -> bool:
        """Whether the tokens ``start:end`` (between a mention and its sentence's edge) are few
        enough to be the aside's own frame."""
        return end - start <= MAX_EDGE_WORDS and self._count(self.long_content, start, end) <= MAX_EDGE_CONTENT_WORDS
