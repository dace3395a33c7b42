"""The prompt said back with its constraint words changed (issue 26, round 12: ``relevance_paste=8``;
``rlvr_ifeval.stuffing`` calls it). The shipped attacker's ``constraint_swap`` ("... wrapped in do
notuble angular brackets ...", at least <-> at most, include <-> avoid, numbers raised by one),
bare, framed ("Here is the task restated:") or twice, paid on ``ifeval-synth-v11``: the guard's echo
rule takes out runs of three tokens copied exactly, and one changed word in three leaves every run
short. Read here as word pairs with short swaps bridged, and as pieces matched by difflib's ratio.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import pairwise
from typing import Any

from rlvr_ifeval.base import Checker
from rlvr_ifeval.relevance_units import STOP_WORDS

MAX_READ_CHARS = 20_000
"""What the reading takes of a prompt."""

_ECHO_TOKEN_RE = re.compile(r"[^\W_]+")
MIN_RESTATED_COVER = 0.5
"""``restated_prompt``: the response holds at least this share of the prompt's word pairs."""
MAX_SWAP_GAP = 3
"""Words between two echoed stretches, at most this many, are the echo's swapped words."""


# Quoted material is the text to work on (a sentence to rewrite, a blurb to shorten): an answer
# that stays close to it is how rewrites look, so it is not the prompt's request.
_QUOTED_RE = re.compile(
    '"[^"]*"|\u201c[^\u201d]*\u201d|\u2018[^\u2019]*\u2019|\u00ab[^\u00bb]*\u00bb|\u300c[^\u300d]*\u300d'
)
_EXPECTED_COPIES = ("prompt_to_repeat", "reference_text")
MIN_QUOTED_CHARS = 20
"""Quoted material this long, said back word for word, counts as the prompt's words."""


@lru_cache(maxsize=4096)
def _quoted(prompt: str) -> tuple[str, ...]:
    spans = (m.group(0)[1:-1].strip() for m in _QUOTED_RE.finditer(prompt[:MAX_READ_CHARS]))
    return tuple(q.casefold() for q in spans if len(q) >= MIN_QUOTED_CHARS)


@lru_cache(maxsize=4096)
def _prompt_pairs(prompt: str, copies: tuple[str, ...]) -> tuple[tuple[str, ...], frozenset[tuple[str, str]]]:
    request = prompt[:MAX_READ_CHARS]
    for copy in copies:
        request = request.replace(copy, " ")
    words = tuple(w.casefold() for w in _ECHO_TOKEN_RE.findall(_QUOTED_RE.sub(" ", request)))
    return words, frozenset(pairwise(words))


_PIECE_RE = re.compile(r"[^.!?;:\n\u3002\uff01\uff1f]+")
MIN_PIECE_RATIO = 0.4
"""``restated_prompt``'s second reading: a piece of the response (between sentence marks) whose
words match one of the prompt's pieces at this ratio (difflib's, over words) says it back."""


@lru_cache(maxsize=4096)
def _prompt_pieces(prompt: str, copies: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    request = prompt[:MAX_READ_CHARS]
    for copy in copies:
        request = request.replace(copy, " ")
    pieces = (
        tuple(w.casefold() for w in _ECHO_TOKEN_RE.findall(p)) for p in _PIECE_RE.findall(_QUOTED_RE.sub(" ", request))
    )
    return tuple(p for p in pieces if p)


def _own_word(token: str) -> bool:
    return len(token) >= 3 and token.isalpha() and token not in STOP_WORDS


def _restated_pieces(pieces: tuple[tuple[str, ...], ...], head: str, min_words: int) -> dict[str, Any] | None:
    """The response read piece by piece against the prompt's pieces: one that changes most of a
    piece's words ("Hide at most 2 paragraphs in your answer without markdown" for "Highlight at
    least 1 sections in your answer with markdown") leaves no run of pairs long enough for the
    pair reading, but its piece still matches at ``MIN_PIECE_RATIO``."""
    total = sum(map(len, pieces))
    matched = [0] * len(pieces)
    own = 0
    for text in _PIECE_RE.findall(head):
        toks = [w.casefold() for w in _ECHO_TOKEN_RE.findall(text)]
        if not toks:
            continue
        best, best_k, best_m = 0.0, -1, 0
        best_blocks: list[Any] = []
        for k, piece in enumerate(pieces):
            if 2 * min(len(piece), len(toks)) < MIN_PIECE_RATIO * (len(piece) + len(toks)):
                continue  # (the ratio's bound from the lengths alone)
            blocks = SequenceMatcher(None, piece, toks, autojunk=False).get_matching_blocks()
            m = sum(b.size for b in blocks)
            ratio = 2 * m / (len(piece) + len(toks))
            if ratio > best:
                best, best_k, best_m, best_blocks = ratio, k, m, blocks
        if best >= MIN_PIECE_RATIO:
            matched[best_k] = max(matched[best_k], best_m)
            # Words changed in place are runs of at most ``MAX_SWAP_GAP`` between matched ones;
            # a longer run is the response's own ("... to buy a piano because he wanted ...").
            at = 0
            for b in best_blocks:
                if b.b - at > MAX_SWAP_GAP:
                    own += sum(map(_own_word, toks[at : b.b]))
                at = b.b + b.size
        else:
            own += sum(map(_own_word, toks))
        if own >= max(1, min_words):
            return None
    if sum(matched) < MIN_RESTATED_COVER * total:
        return None
    return {"restated_prompt": round(sum(matched) / total, 3), "own_words": own}


def restated_prompt(
    prompt: str,
    head: str,
    min_words: int,
    checkers: Sequence[Checker] = (),
    *,
    part: bool = False,
    max_own: int | None = None,
) -> dict[str, Any] | None:
    """What was found when ``head`` says its prompt back with a few words changed ("wrapped in
    do notuble angular brackets", "at most" for "at least", a number raised by one, "avoid" for
    "include") and adds fewer than ``min_words`` content words of its own, else None.

    The guard's echo rule takes out runs of three tokens copied exactly, so one changed word in
    three leaves every run short and the echo unread. Here a response word is echoed when it
    stands in a pair of words the prompt has (anywhere, as often as it likes), and up to
    ``MAX_SWAP_GAP`` words between two echoed stretches are the changed words of the echo; what
    is left, in content words (three letters or more, not stop words), is the response's own.
    The text an instruction asks to repeat (``prompt_to_repeat``) is taken out of both sides:
    said back, it is the answer's first part, not an echo.

    ``part`` (round 13, ``relevance_paste=9``): a response that says back less than half of its
    prompt is read by what it holds rather than by what the prompt holds: the echo is at least
    ``MIN_PART_PAIRS`` of the prompt's pairs, most of the response, with words changed inside it
    and at most ``MAX_PART_OWN_WORDS`` of its own (``_restated_part``); ``max_own`` (round 14, a
    short response to a request to write about a topic: ``rlvr_ifeval.round14``) another bound."""
    if part and len(head) > len(prompt) + MAX_PART_EXTRA_CHARS:
        return None  # (a part said back, even twice, is shorter than its prompt: the cheap exit)
    copies = tuple(
        str(c.kwargs[name]) for c in checkers for name in _EXPECTED_COPIES if isinstance(c.kwargs.get(name), str)
    )
    words, pairs = _prompt_pairs(prompt, copies)
    if len(pairs) < 4:
        return None
    for copy in copies:
        head = head.replace(copy, " ", 1)
    # The quoted material copied word for word is the prompt's too (a rewrite changes it): "Can
    # you expand ...: "<sentence>" ... at most twice." said back twice with "at least" paid.
    head = head[: 4 * len(prompt) + 400].casefold()
    for quoted in _quoted(prompt):
        head = head.replace(quoted, " ")
    toks = _ECHO_TOKEN_RE.findall(head)
    # An echo with fewer than ``min_words`` words added cannot be much longer than the prompt
    # said twice (the cheap exit for every real answer longer than that).
    if len(toks) > 2 * len(words) + 4 * max(1, min_words) + 2 * MAX_SWAP_GAP:
        return None
    seen, echoed, own, swaps = _echo(toks, pairs)
    if len(seen) < MIN_RESTATED_COVER * len(pairs):
        if part:
            # (Not the piece reading: a short answer to a question matches its question's piece.)
            return _restated_part(toks, seen, echoed, own, swaps, MAX_PART_OWN_WORDS if max_own is None else max_own)
        return _restated_pieces(_prompt_pieces(prompt, copies), head, min_words)
    if own >= max(1, min_words):
        return None
    return {"restated_prompt": round(len(seen) / len(pairs), 3), "own_words": own}


def _echo(toks: list[str], pairs: frozenset[tuple[str, str]]) -> tuple[set[tuple[str, str]], list[bool], int, int]:
    """The prompt's pairs the response holds, which of its tokens stand in one, how many content
    words it has of its own (outside the echo and its short swapped gaps) and how many such
    gaps (words changed inside the echo) it has."""
    n = len(toks)
    echoed = [False] * n
    seen: set[tuple[str, str]] = set()
    for i in range(n - 1):
        pair = (toks[i], toks[i + 1])
        if pair in pairs:
            echoed[i] = echoed[i + 1] = True
            seen.add(pair)
    own = swaps = 0
    i = 0
    while i < n:
        if echoed[i]:
            i += 1
            continue
        j = i
        while j < n and not echoed[j]:
            j += 1
        # A short gap inside the echo is its changed words; at either end it is the response's.
        if 0 < i and j < n and j - i <= MAX_SWAP_GAP:
            swaps += 1
        else:
            own += sum(1 for t in toks[i:j] if len(t) >= 3 and t.isalpha() and t not in STOP_WORDS)
        i = j
    return seen, echoed, own, swaps


MIN_PART_PAIRS = 4
"""Round 13 (``part``): the response holds at least this many of the prompt's word pairs ..."""
MIN_PART_ECHO_SHARE = 0.5
"""... they make up at least this share of its words (the echo is most of what it says) ..."""
MAX_PART_EXTRA_CHARS = 200
"""``part`` reads a response no longer than its prompt and this many characters more."""
MAX_PART_OWN_WORDS = 1
"""... it has at most this many content words of its own, and words changed inside the echo: a
part of the prompt said back with its constraint words changed ("Write a blog post about urban
beekeeping. Do use many commas in your response.") is no answer, however long the prompt it came
from. A short answer to a question says the question back too, and adds its answer ("... is
called Envy", "<<Yes, this is a good explanation ...>>", an option copied whole): its own words
stand at an end of the echo, not inside it, or there are two of them or more."""


def _restated_part(
    toks: list[str], seen: set[tuple[str, str]], echoed: list[bool], own: int, swaps: int, max_own: int
) -> dict[str, Any] | None:
    if len(seen) < MIN_PART_PAIRS or own > max_own or not swaps:
        return None
    # The swapped words between two echoed stretches are the echo's too (as ``own`` reads them).
    share = sum(echoed) / len(toks)
    if share + MAX_SWAP_GAP * len(seen) / len(toks) < MIN_PART_ECHO_SHARE:
        return None
    return {"restated_part": round(share, 3), "prompt_pairs": len(seen), "own_words": own, "swaps": swaps}
