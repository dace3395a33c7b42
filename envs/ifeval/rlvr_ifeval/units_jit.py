"""The relevance gate's units of ASCII text (``relevance.units``), compiled by numba.

``relevance.units`` splits a text into its words (a Python string each), takes the distinct ones
out of a stop list and cuts each to its first ``prefix`` letters: ~40 us of a training id's
verdict (issue 26's speed goal). Here one compiled pass over the text as ``units`` cleans it
(ASCII letters; everything else a space) keys each word by its lowercase letters, 5 bits each
(exact for the 12 letters a 64-bit key holds), drops the words whose key is in the stop list's,
cuts the rest to their prefix, sorts the prefixes and writes each distinct one once, so that
Python makes a string only per distinct unit. A word longer than 12 letters is handed back by
position and settled in Python (the stop lists have a few such words). The same set as
``units``' own path: ``tests/ifeval/test_ifeval_prose_jit.py`` compares them.

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


def _ascii_units(data: Any, drop_keys: Any, prefix: int, out: Any, long_spans: Any) -> tuple[int, int]:
    """Writes the distinct prefixes of the words of ``data`` (ASCII letters and spaces) of
    ``MIN_WORD`` letters or more, up to ``KEY_LETTERS`` letters and not in ``drop_keys``, to
    ``out`` (lowercase, each followed by a space); returns the bytes written and how many
    longer words were written to ``long_spans`` (start, end pairs)."""
    size = data.shape[0]
    keys = np.empty(size // (MIN_WORD + 1) + 1, np.int64)
    n = 0
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
        at = np.searchsorted(drop_keys, key)
        if at < drop_keys.shape[0] and drop_keys[at] == key:
            continue
        # The prefix, left-aligned on ``prefix`` slots (0 after a shorter word's end), so that
        # sorting the keys never puts two equal prefixes apart.
        cut = 0
        for k in range(prefix):
            cut *= 32
            if k < length:
                ch = data[start + k]
                cut += ch - 96 if ch >= 97 else ch - 64
        keys[n] = cut
        n += 1
    found = np.sort(keys[:n])
    pos = 0
    previous = -1
    for j in range(n):
        cut = found[j]
        if cut == previous:
            continue
        previous = cut
        for k in range(prefix):
            code = (cut >> (5 * (prefix - 1 - k))) & 31
            if code == 0:
                break
            out[pos] = code + 96
            pos += 1
        out[pos] = 32
        pos += 1
    return pos, n_long


def _word_key(word: str) -> int | None:
    if not word or len(word) > KEY_LETTERS or not all("a" <= c <= "z" for c in word):
        return None
    key = 0
    for c in word:
        key = key * 32 + ord(c) - 96
    return key


@lru_cache(maxsize=64)
def drop_keys(drop: frozenset[str]) -> np.ndarray:
    """The sorted keys of the words of ``drop`` that an ASCII word could be (a-z, up to 12)."""
    return np.array(sorted({k for w in drop if (k := _word_key(w)) is not None}), dtype=np.int64)


def ascii_units(kernel: Any, view: str, drop: frozenset[str], prefix: int) -> set[str]:
    """``relevance.units`` of an ASCII ``view`` (common punctuation already read as spaces)."""
    data = np.frombuffer(view.encode("ascii").translate(_LETTERS_TABLE), dtype=np.uint8)
    out = np.empty((prefix + 1) * (len(data) // (MIN_WORD + 1) + 1), dtype=np.uint8)
    long_spans = np.empty(2 * (len(data) // (KEY_LETTERS + 2) + 1), dtype=np.int64)
    written, n_long = kernel(data, drop_keys(drop), prefix, out, long_spans)
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

    return numba.njit(cache=True, nogil=True)(_ascii_units)
