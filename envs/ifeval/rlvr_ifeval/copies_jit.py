"""Where an ASCII response's copies of its prompt start (``guard.strip_copies``), compiled by numba.

``strip_copies`` marks one flag byte a token (is it a word of the prompt?), finds with a regular
expression where ``k`` flagged tokens follow each other, makes a tuple of the ``k`` tokens at
each such place and looks it up in the prompt's n-grams. On a long on-topic answer that is
hundreds of tuples (the prompt's "the", "of", "a" flag most tokens): ~10% of a training id's
verdict, the guard's largest rule (issue 26's speed goal). Mapping the tokens to numbers in
Python first costs as much as the tuples, so here the kernel reads the response's token bytes
themselves (``guard.ascii_token_bytes``: lowercase letters and digits, spaces between tokens,
whose ``split()`` is ``guard.tokens``):

* the prompt's vocabulary is a hash table made once per prompt (``Vocabulary``): open
  addressing on FNV-1a hashes of the tokens' UTF-8 bytes, each slot the token's number (1..V),
  a hit confirmed by comparing the bytes (exact: no two tokens share a number);
* the prompt's n-grams are sorted integer codes of their numbers (base V + 1, exact);
* one pass numbers each response token (0: not the prompt's) and returns, ascending, the
  positions whose n-gram is the prompt's: the starts ``strip_copies`` finds.

``load`` (``prose_jit.load``) checks the kernels against a plain scan on a sample;
``tests/ifeval/test_ifeval_contrast_jit.py`` compares the starts over the labelled responses
under their own and other prompts, and whole verdicts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

MAX_VOCABULARY = 2_000_000
"""Above this many distinct prompt tokens a 3-gram's code could overflow 63 bits: the Python
path then (no real prompt comes near)."""
_HASH_START = 1469598103934665603
_HASH_PRIME = 1099511628211
"""FNV-1a's multiplier; the arithmetic wraps in 64 bits (numba's integers), the slot is the
hash's low bits."""


def _fill(data: Any, offsets: Any, slots: Any) -> None:
    """Puts token ``n`` (``data[offsets[n - 1]:offsets[n]]``, n from 1) in ``slots`` (the same
    hash and probing as ``_copy_starts``)."""
    mask = slots.shape[0] - 1
    for n in range(1, offsets.shape[0]):
        h = _HASH_START
        for i in range(offsets[n - 1], offsets[n]):
            h = (h ^ data[i]) * _HASH_PRIME
        at = h & mask
        while slots[at] != 0:
            at = (at + 1) & mask
        slots[at] = n


def _copy_starts(
    text: Any, vocab: Any, offsets: Any, slots: Any, k: int, base: int, codes: Any, out: Any
) -> int:  # fmt: skip
    """Writes to ``out`` the token positions (ascending) of ``text`` (tokens separated by spaces)
    where ``k`` tokens of the vocabulary follow each other and their code is in ``codes``."""
    size = text.shape[0]
    mask = slots.shape[0] - 1
    ids = np.zeros(k, np.int64)  # the last k tokens' numbers, as a ring
    found = 0
    run = 0
    position = -1
    i = 0
    while i < size:
        if text[i] == 32:
            i += 1
            continue
        start = i
        while i < size and text[i] != 32:
            i += 1
        position += 1
        length = i - start
        number = 0
        h = _HASH_START
        for m in range(start, i):
            h = (h ^ text[m]) * _HASH_PRIME
        at = h & mask
        while slots[at] != 0:
            n = slots[at]
            if offsets[n] - offsets[n - 1] == length:
                same = True
                for m in range(length):
                    if vocab[offsets[n - 1] + m] != text[start + m]:
                        same = False
                        break
                if same:
                    number = n
                    break
            at = (at + 1) & mask
        if number == 0:
            run = 0
            continue
        ids[position % k] = number
        run += 1
        if run < k:
            continue
        code = 0
        for m in range(position - k + 1, position + 1):
            code = code * base + ids[m % k]
        hit = np.searchsorted(codes, code)
        if hit < codes.shape[0] and codes[hit] == code:
            out[found] = position - k + 1
            found += 1
    return found


class Vocabulary:
    """A prompt's tokens as a hash table (``_fill``) and its n-grams as sorted codes."""

    def __init__(self, fill: Any, vocabulary: frozenset[str], grams: Iterable[tuple[str, ...]]) -> None:
        ordered = sorted(vocabulary)
        numbers = {t: n for n, t in enumerate(ordered, start=1)}
        encoded = [t.encode("utf-8") for t in ordered]
        self.data = np.frombuffer(b"".join(encoded), dtype=np.uint8) if encoded else np.zeros(0, np.uint8)
        self.offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        self.offsets[1:] = np.cumsum([len(e) for e in encoded], dtype=np.int64)
        size = 8
        while size < 2 * len(encoded) + 2:
            size *= 2
        self.slots = np.zeros(size, dtype=np.int64)
        fill(self.data, self.offsets, self.slots)
        self.base = len(encoded) + 1
        self.usable = len(encoded) <= MAX_VOCABULARY
        codes = []
        for gram in grams:
            code = 0
            for t in gram:
                code = code * self.base + numbers[t]
            codes.append(code)
        self.codes = np.array(sorted(codes), dtype=np.int64)

    def starts(self, kernel: Any, text: bytes, k: int) -> list[int]:
        """The token positions of ``text`` where one of the prompt's ``k``-grams starts."""
        data = np.frombuffer(text, dtype=np.uint8)
        out = np.empty(len(text) // 2 + 1, dtype=np.int64)
        found = kernel(data, self.data, self.offsets, self.slots, k, self.base, self.codes, out)
        return out[:found].tolist()


def compile_kernels() -> tuple[Any, Any]:
    """(table filler, starts kernel), compiled or loaded from numba's cache (raises without numba)."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    return jit(_fill), jit(_copy_starts)


def check(fill: Any, kernel: Any) -> bool:
    """Whether the kernels find the starts of a plain scan on a small sample (overlapping copies,
    a copy at each end, a run of prompt words that is no n-gram of it, a prefix of a word)."""
    prompt = "write a poem about the sea and the sky 2".split()
    grams = set(zip(prompt, prompt[1:], prompt[2:], strict=False))
    vocabulary = Vocabulary(fill, frozenset(prompt), grams)
    toks = "write a poem about the sky and the sea and the sky 2 wri a poems about the sea and".split()
    plain = [i for i in range(len(toks) - 2) if tuple(toks[i : i + 3]) in grams]
    text = ("  " + "   ".join(toks) + " ").encode("ascii")
    return vocabulary.starts(kernel, text, 3) == plain and vocabulary.starts(kernel, b"write a", 3) == []
