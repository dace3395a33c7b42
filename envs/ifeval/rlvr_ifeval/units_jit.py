"""The relevance gate's units of ASCII text (``relevance.units``), compiled by numba.

``relevance.units`` splits a text into its words (a Python string each), takes the distinct ones
out of a stop list and cuts each to its first ``prefix`` letters: ~40 us of a training id's
verdict (issue 26's speed goal). Here one compiled pass over the text as ``units`` cleans it
(ASCII letters; everything else a space) keys each word by its lowercase letters, 5 bits each
(exact for the 12 letters a 64-bit key holds), drops the words whose key is in the stop list's,
cuts the rest to their prefix and writes each distinct one once, so that Python makes a string
only per distinct unit. Round 10: the stop list's keys and the prefixes written are hash tables
(one lookup a word, where a binary search of the stop keys per word and a sort of the prefixes
cost 2x the pass), and a text shorter than ``SHORT_TEXT`` is read in Python. A word longer than
12 letters is handed back by position and settled in Python (the stop lists have a few such
words). The same set as ``units``' own path: ``tests/ifeval/test_ifeval_prose_jit.py`` and
``tests/ifeval/test_ifeval_speed_round10_units.py`` compare them.

Loaded with ``prose_jit`` (``prose_jit.load``); without numba ``ascii_units`` answers None.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

KEY_LETTERS = 12
MIN_WORD = 3
"""``relevance.MIN_WORD`` (a word shorter is not a unit; repeated here to keep the import one way)."""
_LETTERS_TABLE = bytes(c if (65 <= c <= 90 or 97 <= c <= 122) else 32 for c in range(256))
"""``relevance._ASCII_WORD_TABLE``."""


def _ascii_units(data: Any, drop_table: Any, prefix: int, out: Any, long_spans: Any) -> tuple[int, int]:
    """Writes the distinct prefixes of the words of ``data`` (ASCII letters and spaces) of
    ``MIN_WORD`` letters or more, up to ``KEY_LETTERS`` letters and not in ``drop_table`` (an
    open-addressing table of the stop words' keys, 0 for empty), to ``out`` (lowercase, each
    followed by a space); returns the bytes written (-1: prefixes made to collide, see
    ``MAX_PROBES_PER_WORD``) and how many longer words were written to ``long_spans``."""
    size = data.shape[0]
    drop_mask = drop_table.shape[0] - 1
    table_size = 8
    while table_size < 2 * (size // (MIN_WORD + 1) + 1):
        table_size *= 2
    mask = table_size - 1
    seen = np.zeros(table_size, np.int64)  # the prefixes written so far (keys are never 0)
    pos = 0
    n = 0
    probes = 0
    n_long = 0
    i = 0
    while i < size:
        if data[i] == 32:
            i += 1
            continue
        start = i
        key = 0
        while i < size and data[i] != 32:
            if i - start < KEY_LETTERS:
                ch = data[i]
                key = key * 32 + (ch - 96 if ch >= 97 else ch - 64)
            i += 1
        length = i - start
        if length < MIN_WORD:
            continue
        if length > KEY_LETTERS:
            long_spans[2 * n_long] = start
            long_spans[2 * n_long + 1] = i
            n_long += 1
            continue
        # A key's first slot: the key mixed (a xorshift and an odd multiplier, wrapping in 64
        # bits; ``_python_slot`` is the same in Python) so that keys sharing letters spread out.
        at = (((key ^ (key >> 17)) * _MIX) >> 21) & drop_mask
        dropped = False
        while drop_table[at] != 0:
            if drop_table[at] == key:
                dropped = True
                break
            at = (at + 1) & drop_mask
        if dropped:
            continue
        cut = 0  # the prefix, ``prefix`` slots of 5 bits (0 after a shorter word's end)
        for k in range(prefix):
            cut *= 32
            if k < length:
                ch = data[start + k]
                cut += ch - 96 if ch >= 97 else ch - 64
        n += 1
        at = (((cut ^ (cut >> 17)) * _MIX) >> 21) & mask
        new = True
        while seen[at] != 0:
            if seen[at] == cut:
                new = False
                break
            at = (at + 1) & mask
            probes += 1
        if probes > MAX_PROBES_PER_WORD * n + 1024:
            return -1, n_long
        if not new:
            continue
        seen[at] = cut
        for k in range(prefix):
            code = (cut >> (5 * (prefix - 1 - k))) & 31
            if code == 0:
                break
            out[pos] = code + 96
            pos += 1
        out[pos] = 32
        pos += 1
    return pos, n_long


_MIX = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed 64-bit integer
MAX_PROBES_PER_WORD = 16
"""Probes past the first, per word, before the kernel gives up (prefixes chosen to share their
slots): ``ascii_units`` then counts in Python, in linear time."""
SHORT_TEXT = 250
"""Below this many characters Python's string methods are faster than a call of the kernel (its
dispatch and arrays): measured on the relevance gate's calls over the labelled responses."""


def _word_key(word: str) -> int | None:
    if not word or len(word) > KEY_LETTERS or not all("a" <= c <= "z" for c in word):
        return None
    key = 0
    for c in word:
        key = key * 32 + ord(c) - 96
    return key


def _python_slot(key: int, mask: int) -> int:
    """The kernel's first slot of ``key`` with Python's integers (the 64-bit wrap made explicit;
    an arithmetic or a logical shift give the same bits under ``mask``, below 2**43)."""
    mixed = ((key ^ (key >> 17)) * (_MIX & 0xFFFF_FFFF_FFFF_FFFF)) & 0xFFFF_FFFF_FFFF_FFFF
    return (mixed >> 21) & mask


@lru_cache(maxsize=64)
def drop_keys(drop: frozenset[str]) -> np.ndarray:
    """The keys of the words of ``drop`` that an ASCII word could be (a-z, up to 12) in an
    open-addressing table (``_python_slot``, linear probing, 0 for empty, at most half full)."""
    keys = sorted({k for w in drop if (k := _word_key(w)) is not None})
    size = 8
    while size < 2 * len(keys) + 2:
        size *= 2
    table = np.zeros(size, dtype=np.int64)
    for key in keys:
        at = _python_slot(key, size - 1)
        while table[at] != 0:
            at = (at + 1) & (size - 1)
        table[at] = key
    return table


def _python_units(view: str, drop: frozenset[str], prefix: int) -> set[str]:
    """``relevance.units``' own path over an ASCII ``view``."""
    words = view.encode("ascii").translate(_LETTERS_TABLE).decode("ascii").lower().split()
    return {w[:prefix] for w in set(words).difference(drop) if len(w) >= MIN_WORD}


def ascii_units(kernel: Any, view: str, drop: frozenset[str], prefix: int) -> set[str]:
    """``relevance.units`` of an ASCII ``view`` (common punctuation already read as spaces)."""
    if len(view) < SHORT_TEXT:
        return _python_units(view, drop, prefix)
    data = np.frombuffer(view.encode("ascii").translate(_LETTERS_TABLE), dtype=np.uint8)
    return _kernel_units(kernel, view, data, drop, prefix)


def _kernel_units(kernel: Any, view: str, data: Any, drop: frozenset[str], prefix: int) -> set[str]:
    out = np.empty((prefix + 1) * (len(data) // (MIN_WORD + 1) + 1), dtype=np.uint8)
    long_spans = np.empty(2 * (len(data) // (KEY_LETTERS + 2) + 1), dtype=np.int64)
    written, n_long = kernel(data, drop_keys(drop), prefix, out, long_spans)
    if written < 0:
        return _python_units(view, drop, prefix)
    found = set(out[:written].tobytes().decode("ascii").split())
    if n_long:  # words of 13 letters or more: rare, looked up as strings
        raw = data.tobytes()
        for i in range(n_long):
            word = raw[long_spans[2 * i] : long_spans[2 * i + 1]].lower().decode("ascii")
            if word not in drop:
                found.add(word[:prefix])
    return found


def compile_kernel() -> Any:
    """The kernel, compiled or loaded from numba's cache (raises without numba)."""
    import numba

    kernel = numba.njit(cache=True, nogil=True)(_ascii_units)
    # ``prose_jit.load``'s sample is shorter than ``SHORT_TEXT`` (read in Python): the kernel is
    # checked here on texts it reads, and a kernel that fails is not used at all.
    drop = frozenset({"the", "and", "with", "internationalization", "toy"})
    words = "the cat's toy sat on the mat with extraordinarily long internationalization ab abc abcd"
    for prefix in (4, 6):
        for text in (f"{words} " * 3, " ".join(f"{w}{w[::-1]}" for w in words.split()) * 4):
            view = text + " padding" * (SHORT_TEXT // 8)
            data = np.frombuffer(view.encode("ascii").translate(_LETTERS_TABLE), dtype=np.uint8)
            found = _kernel_units(kernel, view, data, drop, prefix)
            if found != _python_units(view, drop, prefix):
                raise RuntimeError("units_jit's kernel disagrees with the Python path")
    return kernel
