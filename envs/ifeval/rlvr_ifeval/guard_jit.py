"""The guard's counts over an ASCII response's tokens, in one pass compiled by numba.

``guard.content_rejection`` weighs an ASCII response's tokens (``guard.ascii_token_bytes``:
lowercase letters and digits, spaces between tokens) several times over, each a pass of its own
in Python: the content words of all of them and of those left once the prompt's copies are out
(``content_weight``), the distinct ones per window of the rest (``distinct_ratio``) and of
whichever list the repetition bound reads (``repeated_ratio_at_most``): ~60 us of a training
id's verdict on a labelled response, a fifth of the guard (issue 26's speed goal). Here one
pass over the token bytes and the copies' starts (``guard._copy_starts``) numbers each token by
its bytes (a hash table made per response: FNV-1a, open addressing, a hit confirmed byte for
byte, so two tokens share a number only when they are equal) and counts them all:

* ``content_weight``: a token counts when it has two characters or more that are not digits
  (what ``content_weight``'s translation to "x" and deletion of digits counts on ASCII tokens);
* the rest: the tokens outside every ``[start, start + k)`` of a copy (``strip_copies``' walk);
* ``distinct_ratio`` of the rest with the same arithmetic in the same order (a window's
  distinct count over the window's size, summed left to right from 0, over the windows' count:
  Python 3.11's ``sum`` of floats adds them plainly), and the distinct counts of the rest and of
  all the tokens.

``load`` (``prose_jit.load``) checks the kernel against the Python functions on a sample;
``tests/ifeval/test_ifeval_guard_jit.py`` compares the figures on the labelled responses under
their own and other prompts, and ``tests/ifeval/test_ifeval_contrast_jit.py`` whole verdicts.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

_HASH_START = 1469598103934665603
_HASH_PRIME = 1099511628211
"""FNV-1a (as ``copies_jit``); the arithmetic wraps in 64 bits, the slot is the hash's low bits."""


def _figures(text: Any, starts: Any, k: int, window: int, out: Any) -> Any:
    """Writes to ``out`` (float64, 7 slots): tokens, their content weight, tokens of the rest,
    its content weight, the rest's ``distinct_ratio`` over ``window``, distinct tokens of the
    rest and of all the tokens."""
    size = text.shape[0]
    tok_start = np.empty(size // 2 + 1, np.int64)
    tok_end = np.empty(size // 2 + 1, np.int64)
    n = 0
    i = 0
    while i < size:
        if text[i] == 32:
            i += 1
            continue
        tok_start[n] = i
        while i < size and text[i] != 32:
            i += 1
        tok_end[n] = i
        n += 1
    table_size = 8
    while table_size < 2 * n + 2:
        table_size *= 2
    mask = table_size - 1
    slots = np.full(table_size, -1, np.int64)  # the first token with these bytes
    ids = np.empty(n, np.int64)
    distinct = 0
    content = 0
    probes = 0
    for t in range(n):
        a = tok_start[t]
        b = tok_end[t]
        letters = 0
        h = _HASH_START
        for m in range(a, b):
            ch = text[m]
            h = (h ^ ch) * _HASH_PRIME
            if ch < 48 or ch > 57:
                letters += 1
        if letters >= 2:
            content += 1
        at = h & mask
        number = -1
        while slots[at] != -1:
            other = slots[at]
            c = tok_start[other]
            if tok_end[other] - c == b - a:
                same = True
                for m in range(b - a):
                    if text[c + m] != text[a + m]:
                        same = False
                        break
                if same:
                    number = ids[other]
                    break
            at = (at + 1) & mask
            probes += 1
        if probes > MAX_PROBES_PER_TOKEN * (t + 1) + 1024:
            out[0] = -1.0  # tokens made to collide: the Python path counts (linear time there)
            return out
        if number == -1:
            slots[at] = t
            number = distinct
            distinct += 1
        ids[t] = number
    # The rest: tokens outside every copy [start, start + k) (``strip_copies``' walk).
    kept = np.ones(n, np.bool_)
    for j in range(starts.shape[0]):
        for t in range(starts[j], min(starts[j] + k, n)):
            kept[t] = False
    rest = np.empty(n, np.int64)
    n_rest = 0
    content_rest = 0
    for t in range(n):
        if kept[t]:
            rest[n_rest] = ids[t]
            n_rest += 1
            a = tok_start[t]
            letters = 0
            for m in range(a, tok_end[t]):
                if text[m] < 48 or text[m] > 57:
                    letters += 1
            if letters >= 2:
                content_rest += 1
    stamp = np.zeros(distinct, np.int64)
    distinct_rest = 0
    for j in range(n_rest):
        if stamp[rest[j]] == 0:
            stamp[rest[j]] = 1
            distinct_rest += 1
    if n_rest == 0:
        ratio = 1.0
    elif n_rest <= window:
        ratio = distinct_rest / n_rest
    else:
        total = 0.0
        count = 0
        for w0 in range(0, n_rest - window + 1, window):
            mark = count + 2  # stamps 0 and 1 are taken above
            seen = 0
            for j in range(w0, w0 + window):
                if stamp[rest[j]] != mark:
                    stamp[rest[j]] = mark
                    seen += 1
            total += seen / window
            count += 1
        ratio = total / count
    out[0] = n
    out[1] = content
    out[2] = n_rest
    out[3] = content_rest
    out[4] = ratio
    out[5] = distinct_rest
    out[6] = distinct
    return out


MAX_PROBES_PER_TOKEN = 16
"""Hash-table probes past the first, per token, before the kernel gives up: a half-full table
probes about one; only tokens chosen to share their hash's low bits come near (then ``figures``
answers None and the guard counts in Python, in linear time)."""


class Figures(NamedTuple):
    tokens: int
    content: int
    rest: int
    content_rest: int
    distinct_ratio_rest: float
    distinct_rest: int
    distinct: int


def figures(kernel: Any, text: bytes, starts: list[int], k: int, window: int) -> Figures | None:
    """The kernel's figures for ``text`` (``guard.ascii_token_bytes``) with copies at ``starts``;
    None when its tokens were made to collide in the hash table (``MAX_PROBES_PER_TOKEN``)."""
    out = kernel(
        np.frombuffer(text, dtype=np.uint8), np.array(starts, dtype=np.int64), k, window, np.empty(7, np.float64)
    )
    n, content, rest, content_rest, ratio, distinct_rest, distinct = out.tolist()
    if n < 0:
        return None
    return Figures(int(n), int(content), int(rest), int(content_rest), ratio, int(distinct_rest), int(distinct))


def compile_kernel() -> Any:
    """The kernel, compiled or loaded from numba's cache (raises without numba)."""
    import numba

    return numba.njit(cache=True, nogil=True)(_figures)


def check(kernel: Any) -> bool:
    """Whether ``kernel`` gives the figures of plain Python (the guard's functions, repeated here
    to keep the import one way) on a sample: repeated tokens, digits, copies overlapping and at
    both ends, more than one window."""
    words = "the cat 12 a3 sat 7b on the mat and the cat sat again 99 x y zz".split() * 7
    text = ("  " + "   ".join(words) + " ").encode("ascii")
    starts, k, window = [0, 1, 5, 40, len(words) - 3], 3, 50
    covered = {t for s in starts for t in range(s, s + k)}
    rest = [w for t, w in enumerate(words) if t not in covered]

    def content(toks: list[str]) -> int:
        return sum(len(w.translate(str.maketrans("", "", "0123456789"))) >= 2 for w in toks)

    windows = [len(set(rest[i : i + window])) / window for i in range(0, len(rest) - window + 1, window)]
    expected = Figures(
        len(words), content(words), len(rest), content(rest), sum(windows) / len(windows), len(set(rest)),
        len(set(words)),
    )  # fmt: skip
    short = Figures(3, 2, 3, 2, 2 / 3, 2, 2)
    return figures(kernel, text, starts, k, window) == expected and figures(kernel, b"ab 1 ab", [], 3, 50) == short
