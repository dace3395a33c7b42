"""``asides.aside_mentions``' reading in one compiled pass (issue 26's speed goal, round 14).

Round 13's aside rule (``rlvr_ifeval.asides``) read every response the gate passed into Python
strings (``stuffing._tokens``), numbered its distinct words' units, flagged the prompt's words and
the content words in Python and walked its sentences over those lists: ~70 us of a ~450 us
``-v13`` verdict, for a rule that answers None on every labelled response. Here one numba pass
over the kept text's bytes (``frames_jit.ASCII_TOKENS``' reading: lowercase letters, ``0`` for a
sentence mark or a line end, spaces) makes no string:

* each word's unit is its first ``PREFIX`` letters packed 5 bits each (exact: a unit has at most
  ``PREFIX`` ASCII letters), looked up in the sorted keys of the prompt's units and the task's; a
  word of ``frames_jit.KEY_LETTERS`` letters or fewer is a stop word by its exact key, a longer one
  never is (``frames_jit.usable_stop_list``: no stop word is that long);
* a word is the prompt's where it has three letters or more, is no stop word and its unit is the
  prompt's (``aside_mentions``' ``unit_of``); a content word where it has three letters or more and
  is no stop word, a long one where it has four or more;
* the sentences holding the prompt's words are then read in order exactly as
  ``asides._Reading.sentence`` reads them (runs, the edge test, the core's content words, the
  task's words said outside the aside), with the rule's own exits (a third free mention, too many
  plain sentences, too few asides) at the same points.

What the kernel cannot tell exactly, it hands back: the units of each aside (their keys, exact), so
that Python counts the different fillers (``MIN_FILLERS``) as sets. The same answers:
``tests/ifeval/test_ifeval_speed_round14_asides.py`` compares this pass with the Python reading on
the labelled responses under their own and other prompts, on round 13's hostile tables and on random
texts built to have asides.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

from rlvr_ifeval import frames_jit

ASCII_TOKENS = frames_jit.ASCII_TOKENS


def _member(keys: Any, key: int) -> bool:
    at = np.searchsorted(keys, key)
    return at < keys.shape[0] and keys[at] == key


def _count(flags: Any, start: int, end: int) -> int:
    found = 0
    for i in range(start, end):
        found += flags[i]
    return found


def _asides(
    data: Any,
    prompt_keys: Any,
    task_keys: Any,
    stop_keys: Any,
    prefix: int,
    key_letters: int,
    edge_words: int,
    edge_content: int,
    min_core: int,
    min_asides: int,
    share: float,
    max_free: int,
) -> tuple[int, int, int, int, Any, Any]:
    """(read, asides, plain, free, units, offsets): ``read`` 0 where the rule's answer is None at
    one of its exits, else 1 with the counts and each aside's unit keys
    (``units[offsets[a]:offsets[a + 1]]``)."""
    size = data.shape[0]
    cap = size + 1  # (every byte may be a token of its own: "a.b.c")
    unit_of = np.zeros(cap, np.int64)
    ours = np.zeros(cap, np.bool_)
    tasky = np.zeros(cap, np.bool_)
    content = np.zeros(cap, np.int64)
    long_content = np.zeros(cap, np.int64)
    breaks = np.zeros(cap, np.bool_)
    n = 0
    mentions = 0
    i = 0
    while i < size:
        ch = data[i]
        if ch == 32:
            i += 1
            continue
        if ch == 0:
            breaks[n] = True
            n += 1
            i += 1
            continue
        start = i
        key = 0
        unit = 0
        while i < size and data[i] > 32:
            code = data[i] - 96
            if i - start < key_letters:
                key = key * 32 + code
            if i - start < prefix:
                unit = unit * 32 + code
            i += 1
        length = i - start
        if length >= 3 and (length > key_letters or not _member(stop_keys, key)):
            content[n] = 1
            long_content[n] = length >= 4
            if _member(prompt_keys, unit):
                ours[n] = True
                unit_of[n] = unit
                tasky[n] = _member(task_keys, unit)
                mentions += 1
        n += 1
    empty = np.zeros(0, np.int64)
    none = np.zeros(1, np.int64)
    if mentions < min_asides:
        return 0, 0, 0, 0, empty, none
    # The sentences holding the prompt's words: their count bounds the asides (``least``).
    sentences = 0
    held = False
    for t in range(n + 1):
        if t == n or breaks[t]:
            sentences += held
            held = False
        elif ours[t]:
            held = True
    least = share * sentences - 1e-9
    at = np.empty(n, np.int64)
    units = np.empty(mentions, np.int64)
    offsets = np.zeros(mentions + 1, np.int64)
    asides = plain = free = 0
    used = 0
    start = 0
    for t in range(n + 1):
        if t < n and not breaks[t]:
            continue
        sentence_start, end = start, t
        start = t + 1
        m = 0
        for j in range(sentence_start, end):
            if ours[j]:
                at[m] = j
                m += 1
        if m == 0:
            continue
        # The first run ends at the first gap of more than one word, the last starts after the last.
        first_end = 0
        while first_end + 1 < m and at[first_end + 1] - at[first_end] <= 2:
            first_end += 1
        last_start = m - 1
        while last_start > 0 and at[last_start] - at[last_start - 1] <= 2:
            last_start -= 1
        lo = hi = -1
        core = 0
        after = at[m - 1] + 1
        if end - after <= edge_words and _count(long_content, after, end) <= edge_content:
            lo, hi = last_start, m
            core = _count(content, sentence_start, at[last_start])
        elif at[0] - sentence_start <= edge_words and _count(long_content, sentence_start, at[0]) <= edge_content:
            lo, hi = 0, first_end + 1
            core = _count(content, at[first_end] + 1, end)
        outside = 0
        if lo >= 0 and core >= min_core:
            asides += 1
            for a in range(lo, hi):
                units[used] = unit_of[at[a]]
                used += 1
            offsets[asides] = used
            for a in range(m):
                if (a < lo or a >= hi) and tasky[at[a]]:
                    outside += 1
        else:
            plain += 1
            for a in range(m):
                outside += tasky[at[a]]
        free += outside
        if free > max_free or sentences - plain < least:
            return 0, asides, plain, free, empty, none
    if asides < min_asides:
        return 0, asides, plain, free, empty, none
    return 1, asides, plain, free, units[:used], offsets[: asides + 1]


def compile_kernel() -> Any:
    """The kernel, compiled or loaded from numba's cache (raises without numba). Not checked here:
    ``asides`` checks it against its Python reading before its first use (``check``), so that this
    module needs nothing of the rule's (it would be an import circle through ``prose_jit``)."""
    import numba

    global _member, _count
    jit = numba.njit(cache=True, nogil=True)
    with frames_jit._HELPERS_LOCK:  # (numba calls a global compiled only when it is one: made so first)
        if not hasattr(_count, "py_func"):
            _member, _count = jit(_member), jit(_count)
    return jit(_asides)


def read(
    kernel: Any,
    text: str,
    prompt_units: frozenset[str],
    task: frozenset[str],
    stop: frozenset[str],
    bounds: tuple[Any, ...],
) -> tuple[int, int, int, int] | None:
    """The kept, casefolded ASCII ``text`` read by ``kernel`` as ``asides`` reads it: None where
    the rule answers None at one of its exits, else (asides, plain sentences, free mentions,
    different fillers). ``bounds`` is ``asides.BOUNDS`` (the unit prefix and the rule's bounds)."""
    prefix, max_edge, max_edge_content, min_core, min_asides, min_share, max_free = bounds
    data = np.frombuffer(text.encode("ascii").translate(ASCII_TOKENS), dtype=np.uint8)
    done, asides, plain, free, units, offsets = kernel(
        data,
        frames_jit.keys(prompt_units),
        frames_jit.keys(task),
        frames_jit.keys(stop),
        prefix,
        frames_jit.KEY_LETTERS,
        max_edge,
        max_edge_content,
        min_core,
        min_asides,
        min_share,
        max_free,
    )
    if not done:
        return None
    found = units.tolist()
    bounds = offsets.tolist()
    fillers = {frozenset(found[a:b]) for a, b in pairwise(bounds)}
    return int(asides), int(plain), int(free), len(fillers)


def check(kernel: Any, reference: Any, stop: frozenset[str], bounds: tuple[Any, ...]) -> bool:
    """Whether ``kernel`` answers as ``reference`` (``asides.python_reading``) on texts built to
    have asides (after and before the sentence, one filler, a third free mention, short sentences)
    and not to; ``stop`` and ``bounds`` as ``read`` takes them."""
    prompt = frozenset({"laptop", "choosi", "weathe", "arctic", "velvet", "orchar"})
    task = frozenset({"laptop", "choosi", "weathe", "arctic"})
    core = "the keeper trimmed every wick and polished the brass lens until morning came"
    samples = (
        "".join(f"{core} while he thought about {w}. " for w in ("laptop", "weather", "velvet orchard", "arctic")),
        "".join(f"recalling {w}, {core}.\n" for w in ("laptop", "weather", "velvet", "arctic", "choosing")),
        "".join(f"{core} as {w} came to mind. " for w in ("laptop", "laptop", "laptop", "laptop")),
        f"laptop weather arctic. {core} laptop. " * 3,
        "arctic weather is cold. laptop choosing. velvet orchard. arctic laptop.",
        f"{core} laptop and weather and arctic. " * 5 + "a.b.c.d.e.f.g.h",
        "extraordinarilylongwords " * 3 + f"{core} with laptops. " * 4,
    )
    for text in samples:
        got = read(kernel, text, prompt, task, stop, bounds)
        if got != reference(text, prompt, task):
            return False
    return True
