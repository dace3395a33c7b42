"""The relevance gate's word counts on ASCII text, compiled by numba: the function-word count
of ``relevance.function_share``, the prompt-word flags of ``shuffled_prompt`` and
``interleaved_prompt`` (``vocabulary_flags``) and, through ``units_jit``, ``relevance.units``.

Profiled (issue 26's speed goal, ``bench/ifeval_checks.py --rules``), the language-likeness rule
cost ~65 us a verdict of the training ids, most of it making a Python string of every prose word
(``analysis.prose_words``) and looking each up in two sets. Here one compiled pass over the
text as ``analysis.prose_words`` cleans it (letters, ``'``, spaces, newlines between segments)
reads the words of the regular expression ``LATIN_CYRILLIC_WORD_RE`` (``[a-zA-Z]+(?:'[a-z]+)?``
on that text) segment by segment, keeps the segments of ``PROSE_SEGMENT_WORDS`` words or more,
and counts, without making a string:

* the prose words, those in the prompt's ``drop`` set and each function word kept;
* a word of up to 12 characters is keyed exactly by its lowercase letters and apostrophes, 5 bits
  each (a = 1 ... z = 26, ``'`` = 27), and looked up in the sorted keys of the sets; a longer one
  cannot be a function word (``tables`` refuses lists that have one) and is handed back by
  position, to be looked up in ``drop`` as a string.

The counts are those of the Python path (``prose_words`` and ``collections.Counter``):
``tests/ifeval/test_ifeval_prose_jit.py`` compares them on the labelled responses and on random
texts over an alphabet of letters, apostrophes and separators. ``load()`` compiles the kernel (or
loads it from numba's cache) and checks it on a sample; without numba, or before ``load()``,
``counts`` answers None and the caller keeps its Python path.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import Any

import numpy as np

from rlvr_ifeval import asides_jit, contrast_jit, copies_jit, frames_jit, guard_jit, units_jit
from rlvr_ifeval.analysis import JOINER_CHARS, PROSE_SEGMENT_WORDS, ascii_view, joined_words, replace_each

KEY_CHARS = 12
"""The longest word keyed (5 bits a character: 60 bits)."""
_APOSTROPHE_CODE = 27

# analysis.prose_words' cleaning: ASCII letters and "'" kept, segment characters to "\n",
# everything else a space (the same table, rebuilt here to keep the import one way).
_SEGMENT_CHARS = b'\n|{}<>"[]`=;'
_PROSE_TABLE = bytes(
    c if (chr(c).isascii() and chr(c).isalpha()) or c == ord("'") else 10 if c in _SEGMENT_CHARS else 32
    for c in range(256)
)


def _prose_counts(data: Any, drop_keys: Any, func_keys: Any, func_counts: Any, long_spans: Any) -> tuple[int, int, int]:
    """Prose words of ``data`` (cleaned ASCII bytes), those whose key is in ``drop_keys``, and
    how many words longer than ``KEY_CHARS`` were written to ``long_spans`` (start, end pairs);
    ``func_counts[i]`` is incremented for each occurrence of ``func_keys[i]``."""
    size = data.shape[0]
    starts = np.empty(size // 2 + 1, np.int64)
    ends = np.empty(size // 2 + 1, np.int64)
    words = 0
    dropped = 0
    n_long = 0
    seg = 0
    while seg <= size:
        end = seg
        while end < size and data[end] != 10:
            end += 1
        m = 0
        i = seg
        while i < end:
            ch = data[i]
            if (65 <= ch <= 90) or (97 <= ch <= 122):
                start = i
                i += 1
                while i < end and ((65 <= data[i] <= 90) or (97 <= data[i] <= 122)):
                    i += 1
                # (?:'[a-z]+)?: an apostrophe kept on only before a lowercase letter
                if i + 1 < end and data[i] == 39 and 97 <= data[i + 1] <= 122:
                    i += 2
                    while i < end and 97 <= data[i] <= 122:
                        i += 1
                starts[m] = start
                ends[m] = i
                m += 1
            else:
                i += 1
        if m >= PROSE_SEGMENT_WORDS:
            for w in range(m):
                words += 1
                if ends[w] - starts[w] > KEY_CHARS:
                    long_spans[2 * n_long] = starts[w]
                    long_spans[2 * n_long + 1] = ends[w]
                    n_long += 1
                    continue
                key = 0
                for k in range(starts[w], ends[w]):
                    ch = data[k]
                    if ch == 39:
                        code = _APOSTROPHE_CODE
                    elif ch >= 97:
                        code = ch - 96
                    else:
                        code = ch - 64
                    key = key * 32 + code
                # Binary searches written out (np.searchsorted's generic version costs more).
                lo, hi = 0, drop_keys.shape[0]
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if drop_keys[mid] < key:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo < drop_keys.shape[0] and drop_keys[lo] == key:
                    dropped += 1
                lo, hi = 0, func_keys.shape[0]
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if func_keys[mid] < key:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo < func_keys.shape[0] and func_keys[lo] == key:
                    func_counts[lo] += 1
        seg = end + 1
    return words, dropped, n_long


def _vocabulary_flags(data: Any, vocab_keys: Any, flags: Any, long_spans: Any) -> tuple[int, int]:
    """The words of ``data`` (ASCII letters; everything else a space): how many, and how many
    longer than ``KEY_CHARS`` were written to ``long_spans`` (start, end pairs, flagged 0 here);
    ``flags[w]`` is 1 when the ``w``-th word's key is in ``vocab_keys``, else 0."""
    size = data.shape[0]
    words = 0
    n_long = 0
    i = 0
    while i < size:
        ch = data[i]
        if ch == 32:
            i += 1
            continue
        start = i
        key = 0
        while i < size and data[i] != 32:
            ch = data[i]
            key = key * 32 + (ch - 96 if ch >= 97 else ch - 64)
            i += 1
        flag = 0
        if i - start > KEY_CHARS:
            long_spans[2 * n_long] = start
            long_spans[2 * n_long + 1] = i
            n_long += 1
        else:
            at = np.searchsorted(vocab_keys, key)
            if at < vocab_keys.shape[0] and vocab_keys[at] == key:
                flag = 1
        flags[words] = flag
        words += 1
    return words, n_long


@lru_cache(maxsize=1 << 16)  # (per word: each new prompt's tables key ~300 function words again)
def word_key(word: str) -> int | None:
    """The kernel's key of a lowercase word, None when no prose word of ASCII text can be it
    (a character other than a-z and ``'``) or it is longer than ``KEY_CHARS``."""
    if not word or len(word) > KEY_CHARS or not all("a" <= c <= "z" or c == "'" for c in word):
        return None
    key = 0
    for c in word:
        key = key * 32 + (_APOSTROPHE_CODE if c == "'" else ord(c) - 96)
    return key


def _can_match(word: str) -> bool:
    return bool(word) and all("a" <= c <= "z" or c == "'" for c in word)


class Tables:
    """The sorted keys of a prompt's ``drop`` set and of the function words it keeps."""

    def __init__(self, kept: frozenset[str], drop: frozenset[str]) -> None:
        self.func_keys = np.array(sorted({k for w in kept if (k := word_key(w)) is not None}), dtype=np.int64)
        self.drop_keys = np.array(sorted({k for w in drop if (k := word_key(w)) is not None}), dtype=np.int64)
        self.long_drop = frozenset(w for w in drop if len(w) > KEY_CHARS and _can_match(w))


@lru_cache(maxsize=4096)
def tables(kept: frozenset[str], drop: frozenset[str]) -> Tables | None:
    """The kernel's tables for these sets (per prompt); None when a function word that ASCII
    prose could hold is too long to key (then the Python path counts)."""
    if any(len(w) > KEY_CHARS and _can_match(w) for w in kept):
        return None
    return Tables(kept, drop)


_KERNEL: Any = None
_FLAGS: Any = None
_UNITS: Any = None
_CONTRAST: Any = None
_COPIES: tuple[Any, Any] = (None, None)
_GUARD: Any = None
_FRAMES: Any = None
_ASIDES: Any = None
_LOCK = threading.Lock()
_loaded = False
_started = False


def counts(text: str, kept: frozenset[str], drop: frozenset[str]) -> tuple[int, list[int]] | None:
    """(prose words not in ``drop``, the counts of the function words in ``kept`` that occur) as
    ``relevance.function_share`` computes them from ``analysis.prose_words``, or None when the
    kernel is not loaded (the first call starts loading it on a daemon thread) or the text is not
    ASCII (with common punctuation read as spaces)."""
    if _KERNEL is None:
        if not _started:
            start()
        return None
    return _counts(_KERNEL, text, kept, drop)


def _counts(kernel: Any, text: str, kept: frozenset[str], drop: frozenset[str]) -> tuple[int, list[int]] | None:
    view = ascii_view(text)
    if view is None:
        return None
    found = tables(kept, drop)
    if found is None:
        return None
    data = np.frombuffer(view.encode("ascii").translate(_PROSE_TABLE), dtype=np.uint8)
    func_counts = np.zeros(len(found.func_keys), dtype=np.int64)
    long_spans = np.empty(2 * (len(data) // (KEY_CHARS + 1) + 1), dtype=np.int64)
    words, dropped, n_long = kernel(data, found.drop_keys, found.func_keys, func_counts, long_spans)
    if n_long and found.long_drop:
        raw = data.tobytes()
        for i in range(n_long):
            word = raw[long_spans[2 * i] : long_spans[2 * i + 1]].lower().decode("ascii")
            dropped += word in found.long_drop
    return words - dropped, func_counts[func_counts > 0].tolist()


# analysis.joined_words' table: ASCII letters kept, everything else a space.
_LETTERS_TABLE = bytes(c if chr(c).isascii() and chr(c).isalpha() else 32 for c in range(256))


class Vocabulary:
    """The sorted keys of a prompt's vocabulary, and its words too long to key."""

    def __init__(self, vocabulary: frozenset[str]) -> None:
        self.keys = np.array(sorted({k for w in vocabulary if (k := word_key(w)) is not None}), dtype=np.int64)
        self.long = frozenset(w for w in vocabulary if len(w) > KEY_CHARS and _can_match(w))


@lru_cache(maxsize=4096)
def vocabulary_tables(vocabulary: frozenset[str]) -> Vocabulary:
    return Vocabulary(vocabulary)


def vocabulary_flags(text: str, vocabulary: frozenset[str]) -> bytes | None:
    """``bytes(map(vocabulary.__contains__, analysis.joined_words(text)))`` (one byte a word),
    or None when the kernel is not loaded or the text is not ASCII once its apostrophes and
    hyphens are dropped (common punctuation read as spaces)."""
    if _FLAGS is None:
        if not _started:
            start()
        return None
    return _flags(_FLAGS, text, vocabulary)


def _flags(kernel: Any, text: str, vocabulary: frozenset[str]) -> bytes | None:
    view = ascii_view(replace_each(text, JOINER_CHARS, ""))
    if view is None:
        return None
    found = vocabulary_tables(vocabulary)
    data = np.frombuffer(view.encode("ascii").translate(_LETTERS_TABLE), dtype=np.uint8)
    flags = np.empty(len(data) // 2 + 1, dtype=np.uint8)
    long_spans = np.empty(2 * (len(data) // (KEY_CHARS + 1) + 1), dtype=np.int64)
    words, n_long = kernel(data, found.keys, flags, long_spans)
    if n_long and found.long:
        raw = data.tobytes()
        # Word positions of the long words: count the words before each (rare: words of 13+ letters).
        for i in range(n_long):
            start, end = int(long_spans[2 * i]), int(long_spans[2 * i + 1])
            if raw[start:end].lower().decode("ascii") in found.long:
                flags[len(raw[:start].split())] = 1
    return flags[:words].tobytes()


_SAMPLE = (
    "The cat's toy is on the mat, and that is all for now with the dog.\n"
    "Rock'n'roll x'yZ it's DON'T extraordinarily-long-word internationalization of the and\n"
    "short line\n| a b c d e f g | the of and to in"
)


def _python_counts(text: str, kept: frozenset[str], drop: frozenset[str]) -> tuple[int, list[int]]:
    """What ``counts`` must give, from ``analysis.prose_words`` (the kernel's check)."""
    from collections import Counter

    from rlvr_ifeval.analysis import prose_words

    prose = prose_words(text)[0]
    counted = Counter(filter(kept.__contains__, prose))
    return len(prose) - sum(map(drop.__contains__, prose)), sorted(counted.values())


def units_kernel() -> Any:
    """``units_jit``'s kernel once ``load`` has checked it, else None."""
    return _UNITS


def contrast_kernel() -> Any:
    """``contrast_jit``'s kernel once ``load`` has checked it, else None (the first call starts
    loading it on a daemon thread)."""
    if _CONTRAST is None and not _started:
        start()
    return _CONTRAST


def copies_kernels() -> tuple[Any, Any]:
    """``copies_jit``'s kernels (table filler, starts) once ``load`` has checked them, else
    (None, None) (the first call starts loading them on a daemon thread)."""
    if _COPIES[1] is None and not _started:
        start()
    return _COPIES


def guard_kernel() -> Any:
    """``guard_jit``'s kernel once ``load`` has checked it, else None (the first call starts
    loading it on a daemon thread)."""
    if _GUARD is None and not _started:
        start()
    return _GUARD


def frames_kernel() -> Any:
    """``frames_jit``'s kernel once ``load`` has checked it, else None (the first call starts
    loading it on a daemon thread)."""
    if _FRAMES is None and not _started:
        start()
    return _FRAMES


def asides_kernel() -> Any:
    """``asides_jit``'s kernel once ``load`` has checked it, else None (the first call starts
    loading it on a daemon thread)."""
    if _ASIDES is None and not _started:
        start()
    return _ASIDES


def start() -> None:
    """``load`` on a daemon thread, once: a process's first verdicts count in Python instead of
    waiting for numba (1-3 s from its cache, ~15 s compiling on a loaded machine)."""
    global _started
    with _LOCK:
        if _started or _loaded:
            return
        _started = True
    # A fork while the thread holds _LOCK would leave the child a lock nobody releases: its
    # ``load`` (a pool worker's warm_up) would wait forever. The child starts over instead.
    os.register_at_fork(after_in_child=_forget_load)
    threading.Thread(target=load, name="rlvr-ifeval-prose-numba", daemon=True).start()


def _forget_load() -> None:
    global _LOCK, _started, _loaded
    _LOCK = threading.Lock()
    if _KERNEL is None:  # not published before the fork: load again here when asked
        _started = _loaded = False


def load() -> bool:
    """Compile the kernel (or load it from numba's cache) and check it on a sample, once per
    process; whether it is in use. Called by ``language.warm_up``."""
    global _KERNEL, _FLAGS, _UNITS, _CONTRAST, _COPIES, _GUARD, _FRAMES, _ASIDES, _loaded
    with _LOCK:
        if not _loaded:
            _loaded = True
            try:
                import numba

                jit = numba.njit(cache=True, nogil=True)
                kernel, flags = jit(_prose_counts), jit(_vocabulary_flags)
                units = units_jit.compile_kernel()
                walk = contrast_jit.compile_kernel()
                copies = copies_jit.compile_kernels()
                guard = guard_jit.compile_kernel()
            except Exception:  # no numba: the Python path counts
                return False
            kept = frozenset({"the", "of", "and", "to", "in", "is", "it's", "with"})
            drop = frozenset({"with", "internationalization", "toy"})
            vocabulary = frozenset({"the", "cats", "internationalization", "dont", "rocknroll"})
            try:  # (compiled, or loaded from numba's cache, at these first calls)
                got = _counts(kernel, _SAMPLE, kept, drop)
                ok = got is not None and (got[0], sorted(got[1])) == _python_counts(_SAMPLE, kept, drop)
                expected = bytes(map(vocabulary.__contains__, joined_words(_SAMPLE)))
                ok = ok and _flags(flags, _SAMPLE, vocabulary) == expected
                letters = _SAMPLE.encode("ascii").translate(units_jit._LETTERS_TABLE).decode("ascii")
                words = set(letters.lower().split()) - drop
                ok = ok and units_jit.ascii_units(units, _SAMPLE, drop, 6) == {w[:6] for w in words if len(w) >= 3}
                ok = ok and contrast_jit.check(walk) and copies_jit.check(*copies)
                ok = ok and guard_jit.check(guard)
            except Exception:
                ok = False
            if ok:  # published only once checked: another thread may be counting meanwhile
                _GUARD, _COPIES, _CONTRAST, _UNITS, _FLAGS, _KERNEL = guard, copies, walk, units, flags, kernel
            try:  # round 13's frame reading, on its own: a failure there keeps the others
                _FRAMES = frames_jit.compile_kernel()  # (checked there: it raises on a disagreement)
            except Exception:
                _FRAMES = None
            try:  # round 14's aside reading, on its own as well
                _ASIDES = asides_jit.compile_kernel()  # (asides checks it before its first use)
            except Exception:
                _ASIDES = None
    return _KERNEL is not None
