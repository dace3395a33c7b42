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

import os
import threading
from typing import Any, NamedTuple

import numpy as np

from rlvr_ifeval import copies_jit

_HASH_START = 1469598103934665603
_HASH_PRIME = 1099511628211
"""FNV-1a (as ``copies_jit``); the arithmetic wraps in 64 bits, the slot is the hash's low bits."""


def _figures(text: Any, starts: Any, k: int, window: int, out: Any) -> Any:
    """Writes to ``out`` (float64, 7 slots): tokens, their content weight, tokens of the rest,
    its content weight, the rest's ``distinct_ratio`` over ``window``, distinct tokens of the
    rest and of all the tokens."""
    cap = text.shape[0] // 2 + 1
    tok_start = np.empty(cap, np.int64)
    tok_end = np.empty(cap, np.int64)
    hashes = np.empty(cap, np.int64)
    is_content = np.empty(cap, np.bool_)
    empty = np.zeros(8, np.int64)  # (no prompt table: the copies' starts are given)
    n, content, _ = _scan(
        text, tok_start, tok_end, hashes, is_content, text[:0], empty[:1], empty, 0, 1, empty[:0], empty[:0]
    )
    ids = np.empty(n, np.int64)
    distinct = _number_tokens(text, tok_start, tok_end, hashes, n, ids)
    if distinct < 0:
        out[0] = -1.0  # tokens made to collide: the Python path counts (linear time there)
        return out
    _rest_figures(ids, n, distinct, is_content, content, starts, starts.shape[0], k, window, out)
    return out


# The three steps both kernels share (``_figures`` and ``_fused`` differ in how they read the
# tokens and find the copies): compiled as globals of their own (``_jit_helpers``), which the
# kernels call compiled.
def _scan(
    text: Any, tok_start: Any, tok_end: Any, hashes: Any, is_content: Any,
    vocab: Any, offsets: Any, vslots: Any, k: int, base: int, codes: Any, starts: Any,
) -> tuple[int, int, int]:  # fmt: skip
    """Finds the tokens of ``text`` (runs of bytes other than 32), with each token's bounds, its
    FNV-1a hash and whether it is a content word (two characters or more that are not digits
    0-9; a character counted by its UTF-8 lead byte), and, with ``k`` > 0, writes to ``starts``
    where a copy of the prompt begins (``copies_jit._copy_starts``: ``k`` tokens of its table
    ``vocab``/``offsets``/``vslots`` whose code is in ``codes``), the hash reused for the
    prompt's table (the same FNV-1a); the counts of tokens, of content words and of copies."""
    size = text.shape[0]
    vmask = vslots.shape[0] - 1
    ring = np.zeros(max(k, 1), np.int64)  # the last k tokens' numbers in the prompt's table
    run = 0
    found = 0
    n = 0
    content = 0
    i = 0
    while i < size:
        if text[i] == 32:
            i += 1
            continue
        a = i
        h = _HASH_START
        letters = 0
        while i < size and text[i] != 32:
            ch = text[i]
            h = (h ^ ch) * _HASH_PRIME
            if (ch < 48 or ch > 57) and (ch & 0xC0) != 0x80:  # a character that is not a digit 0-9
                letters += 1
            i += 1
        tok_start[n] = a
        tok_end[n] = i
        hashes[n] = h
        is_content[n] = letters >= 2
        if letters >= 2:
            content += 1
        if k > 0:
            number = 0
            at = h & vmask
            length = i - a
            while vslots[at] != 0:
                v = vslots[at]
                if offsets[v] - offsets[v - 1] == length:
                    same = True
                    for m in range(length):
                        if vocab[offsets[v - 1] + m] != text[a + m]:
                            same = False
                            break
                    if same:
                        number = v
                        break
                at = (at + 1) & vmask
            if number == 0:
                run = 0
            else:
                ring[n % k] = number
                run += 1
                if run >= k:
                    code = 0
                    for m in range(n - k + 1, n + 1):
                        code = code * base + ring[m % k]
                    hit = np.searchsorted(codes, code)
                    if hit < codes.shape[0] and codes[hit] == code:
                        starts[found] = n - k + 1
                        found += 1
        n += 1
    return n, content, found


def _number_tokens(text: Any, tok_start: Any, tok_end: Any, hashes: Any, n: int, ids: Any) -> int:
    """Numbers the ``n`` tokens of ``text`` (``text[tok_start[t]:tok_end[t]]``, hashed to
    ``hashes[t]``) into ``ids`` in a hash table made for them (open addressing, a hit confirmed
    byte for byte: two tokens share a number only when they are equal); the count of distinct
    tokens, or -1 when tokens were made to collide (``MAX_PROBES_PER_TOKEN``)."""
    table_size = 8
    while table_size < 2 * n + 2:
        table_size *= 2
    mask = table_size - 1
    slots = np.full(table_size, -1, np.int64)  # the first token with these bytes
    distinct = 0
    probes = 0
    for t in range(n):
        a = tok_start[t]
        b = tok_end[t]
        at = hashes[t] & mask
        number = -1
        while slots[at] != -1:
            other = slots[at]
            c = tok_start[other]
            # (equal tokens hash alike: the full hashes set most other tokens apart without a byte read)
            if hashes[other] == hashes[t] and tok_end[other] - c == b - a:
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
            return -1
        if number == -1:
            slots[at] = t
            number = distinct
            distinct += 1
        ids[t] = number
    return distinct


def _rest_figures(
    ids: Any, n: int, distinct: int, is_content: Any, content: int, starts: Any, found: int, k: int, window: int,
    out: Any,
) -> None:  # fmt: skip
    """Writes ``_figures``' seven slots to ``out`` from the tokens' numbers ``ids`` (``distinct``
    of them), which are content words (``is_content``; ``content`` of all), and the first
    ``found`` copies' ``starts``: the rest is the tokens outside every ``[start, start + k)``
    (``strip_copies``' walk)."""
    kept = np.ones(n, np.bool_)
    for j in range(found):
        for t in range(starts[j], min(starts[j] + k, n)):
            kept[t] = False
    rest = np.empty(n, np.int64)
    n_rest = 0
    content_rest = 0
    for t in range(n):
        if kept[t]:
            rest[n_rest] = ids[t]
            n_rest += 1
            if is_content[t]:
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

    _jit_helpers(numba)
    return numba.njit(cache=True, nogil=True)(_figures)


_HELPERS_LOCK = threading.Lock()


def _jit_helpers(numba: Any) -> None:
    """Makes ``_scan``, ``_number_tokens`` and ``_rest_figures`` compiled functions, once per process and
    before either kernel compiles (numba calls a global compiled only when it is one; the two
    kernels load on different threads)."""
    global _scan, _number_tokens, _rest_figures
    with _HELPERS_LOCK:
        if not hasattr(_scan, "py_func"):
            jit = numba.njit(cache=True, nogil=True)
            _scan, _number_tokens, _rest_figures = jit(_scan), jit(_number_tokens), jit(_rest_figures)


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


# Round 10 (issue 26's speed goal): ``guard.content_rejection`` ran ``copies_jit``'s kernel and
# ``_figures`` one after the other, each tokenising the response and hashing every token (the
# same FNV-1a), with a Python ``split`` of the whole text between them for rules that read a few
# tokens at most: ~40 us of the guard's ~60 on a labelled ASCII response. ``_fused`` does both
# in one pass: each token is hashed once, looked up in the prompt's table (``copies_jit``: a
# copy starts where ``k`` of its tokens make one of its n-grams) and numbered in the response's
# own table (the figures above). A character is counted by its UTF-8 lead byte, so the same
# kernel counts tokens of any script written with spaces (``guard.token_bytes`` says which).


def _fused(
    text: Any, vocab: Any, offsets: Any, vslots: Any, k: int, base: int, codes: Any, window: int, starts: Any, out: Any
) -> int:  # fmt: skip
    """``copies_jit._copy_starts`` (written to ``starts``; their count returned) and ``_figures``
    (written to ``out``; ``out[0]`` = -1 when tokens were made to collide) of ``text``'s tokens,
    separated by spaces (bytes 32), in UTF-8. ``k`` = 0: no copies sought."""
    cap = text.shape[0] // 2 + 1
    tok_start = np.empty(cap, np.int64)
    tok_end = np.empty(cap, np.int64)
    hashes = np.empty(cap, np.int64)
    is_content = np.empty(cap, np.bool_)
    n, content, found = _scan(
        text, tok_start, tok_end, hashes, is_content, vocab, offsets, vslots, k, base, codes, starts
    )
    ids = np.empty(n, np.int64)
    distinct = _number_tokens(text, tok_start, tok_end, hashes, n, ids)
    if distinct < 0:
        out[0] = -1.0
        return found
    _rest_figures(ids, n, distinct, is_content, content, starts, found, k, window, out)
    return found


_NO_PROMPT = (np.zeros(0, np.uint8), np.zeros(1, np.int64), np.zeros(8, np.int64), np.zeros(0, np.int64))
"""An empty prompt table (``k`` = 0: a prompt without tokens has no n-grams to copy)."""


def fused_figures(
    kernel: Any, text: bytes, table: Any, k: int, window: int
) -> tuple[Figures, list[int]] | None:  # fmt: skip
    """``figures`` of ``text`` and the starts of its copies of the prompt (``table``: its
    ``copies_jit.Vocabulary``, None with ``k`` = 0), in one pass; None when tokens were made to
    collide (the caller counts in Python then)."""
    out = np.empty(7, np.float64)
    starts = np.empty(len(text) // 2 + 1, np.int64)
    data = np.frombuffer(text, dtype=np.uint8)
    if table is None or not k:
        vocab, offsets, slots, codes = _NO_PROMPT
        found = kernel(data, vocab, offsets, slots, 0, 1, codes, window, starts, out)
    else:
        found = kernel(data, table.data, table.offsets, table.slots, k, table.base, table.codes, window, starts, out)
    n, content, rest, content_rest, ratio, distinct_rest, distinct = out.tolist()
    if n < 0:
        return None
    counted = Figures(int(n), int(content), int(rest), int(content_rest), ratio, int(distinct_rest), int(distinct))
    return counted, starts[:found].tolist()


_FUSED: Any = None
_fused_started = False
_FUSED_LOCK = threading.Lock()


def fused_kernel() -> Any:
    """``_fused`` once loaded and checked, else None (the first call starts loading it on a
    daemon thread: a process's first verdicts count with the round-9 kernels meanwhile)."""
    if _FUSED is None and not _fused_started:
        start_fused()
    return _FUSED


def start_fused() -> None:
    """``load_fused`` on a daemon thread, once per process (no lock is held while it compiles,
    so a fork meanwhile leaves the child nothing held; the child starts over when asked)."""
    global _fused_started, _FUSED_LOCK
    with _FUSED_LOCK:
        if _fused_started:
            return
        _fused_started = True
    os.register_at_fork(after_in_child=_forget_fused_start)
    threading.Thread(target=load_fused, name="rlvr-ifeval-guard-numba", daemon=True).start()


def _forget_fused_start() -> None:
    global _fused_started, _FUSED_LOCK
    _FUSED_LOCK = threading.Lock()
    if _FUSED is None:
        _fused_started = False


def load_fused() -> bool:
    """Compile ``_fused`` (or load it from numba's cache) and check it on samples; whether it is
    in use (``language.warm_up`` calls this, so a pool worker's verdicts never wait for it)."""
    global _FUSED
    if _FUSED is None:
        try:
            import numba

            _jit_helpers(numba)
            jit = numba.njit(cache=True, nogil=True)
            fill, kernel = jit(copies_jit._fill), jit(_fused)
            ok = check_fused(fill, kernel)
        except Exception:  # no numba, or a kernel that fails its check: the round-9 path counts
            ok = False
        if ok:
            _FUSED = kernel
    return _FUSED is not None


def check_fused(fill: Any, kernel: Any) -> bool:
    """Whether ``kernel`` gives a plain scan's copy starts and plain Python's figures on samples:
    ASCII tokens with copies overlapping, at both ends and across windows; tokens of accented
    Latin and Cyrillic, whose characters are several bytes; no prompt at all; a short text."""
    samples = (
        ("write a poem about the sea and the sky 2", "write a poem about the sky and the sea and the sky 2 wri a"),
        ("écris un poème sur la mer", "écris un poème sur la mer été é 12 ж9 жж mer la sur poème " * 9),
        ("", "ab 1 ab"),
    )
    for prompt, response in samples:
        words = prompt.split()
        k = min(3, len(words))
        grams = set(zip(*(words[i:] for i in range(k)), strict=False)) if k else set()
        toks = response.split()
        plain = [i for i in range(len(toks) - k + 1) if tuple(toks[i : i + k]) in grams] if k else []
        covered = {t for s in plain for t in range(s, s + k)}
        rest = [w for t, w in enumerate(toks) if t not in covered]

        def content(found: list[str]) -> int:
            return sum(len(w.translate(str.maketrans("", "", "0123456789"))) >= 2 for w in found)

        window = 50
        if len(rest) > window:
            windows = [len(set(rest[i : i + window])) / window for i in range(0, len(rest) - window + 1, window)]
            ratio = sum(windows) / len(windows)
        else:
            ratio = len(set(rest)) / len(rest) if rest else 1.0
        expected = Figures(
            len(toks), content(toks), len(rest), content(rest), ratio, len(set(rest)), len(set(toks))
        )  # fmt: skip
        table = copies_jit.Vocabulary(fill, frozenset(words), grams) if k else None
        text = ("  " + "   ".join(toks) + " ").encode("utf-8")
        if fused_figures(kernel, text, table, k, window) != (expected, plain):
            return False
    return True
