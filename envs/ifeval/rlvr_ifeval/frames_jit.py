"""``stuffing.framed_units``' exits in one compiled pass (issue 26's speed goal, round 13).

Round 12's frame reading was the largest share of a ``-v12`` verdict (~120 us of ~420 on long
answers): before its Python reading it tokenised the response into a list of strings, counted the
task's mentions with a regex over the space-joined tokens, masked the prompt's words with a second
regex, joined the masked tokens twice (forwards and reversed) for ``_FRAME_RE``, and did all of it
again over the content words. Seven responses in ten leave there (``None``), so that work is the
rule's cost. Here one numba pass over the response's bytes (``stuffing._ASCII_TOKENS``' reading:
lowercase letters, ``0`` for a sentence mark or a line end, spaces) makes no string at all:

* each word is keyed by its letters, 5 bits each (exact up to 12 letters; a longer word by a
  64-bit hash, marked apart), its unit by its first ``PREFIX`` letters (exact: a unit has at most
  ``PREFIX`` letters), looked up in the sorted keys of the prompt's units, of the task's units that
  are the prompt's, and of the stop words;
* fewer than ``MIN_FRAME_REPEATS`` mentions of the task (a word whose unit is the task's and the
  prompt's, as ``framed_units`` counts them): the rule's answer is None;
* else, over every word and over content words only, the words two by two after a prompt word (and
  before one), as ``_may_frame``'s regexes read them, sorted, and a pair seen three times or more
  means the Python reading must run.

Where this answers "no frame" the Python reading would answer None: it counts the same mentions
and ``_framed`` counts only frames ``_may_frame`` sees (``stuffing._may_frame``'s docstring). A
hash shared by two long words, or by two pairs, can only merge counts, so it can send a response to
the Python reading, never keep one from it. The same verdicts: ``tests/ifeval/
test_ifeval_speed_round13_frames.py`` compares ``framed_units`` with and without this pass on the
labelled responses, the stuffing tables and random texts.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

import numpy as np

PREFIX = 6
"""``relevance_units.PREFIX`` (repeated to keep the import one way; ``stuffing`` passes its own)."""
MIN_FRAME_REPEATS = 3
"""``stuffing.MIN_FRAME_REPEATS``."""
ASCII_TOKENS = bytes(0 if chr(c) in ".!?;:\n" else c | 0x20 if chr(c).isalpha() and c < 128 else 32 for c in range(256))
"""``stuffing._ASCII_TOKENS``: letters lowercased, a sentence mark or a line end 0, else a space."""
_HELPERS_LOCK = threading.Lock()
KEY_LETTERS = 12
_LONG_MARK = 1 << 62
"""Set on a longer word's hash: an exact key is below 32 ** 12 = 2 ** 60."""
_MIX = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed 64-bit integer


def _member(keys: Any, key: int) -> bool:
    at = np.searchsorted(keys, key)
    return at < keys.shape[0] and keys[at] == key


def _repeats(ids: Any, slot: Any, kept: Any, n: int, least: int) -> bool:
    """Whether two words (no prompt word, no break) follow a prompt word ``least`` times or more
    with the same pair, or precede one so (``stuffing._may_frame`` over the tokens ``kept``)."""
    seq = np.empty(n, np.int64)
    marks = np.empty(n, np.bool_)
    m = 0
    for i in range(n):
        if kept[i]:
            seq[m] = ids[i]
            marks[m] = slot[i]
            m += 1
    for direction in range(2):
        pairs = np.empty(m, np.int64)
        p = 0
        for i in range(m):
            if not marks[i]:
                continue
            a = i + 1 if direction == 0 else i - 1
            b = i + 2 if direction == 0 else i - 2
            if b < 0 or b >= m or marks[a] or marks[b] or seq[a] < 0 or seq[b] < 0:
                continue
            pairs[p] = seq[a] * _MIX + (seq[b] ^ (seq[b] >> 29))  # (wraps: a shared key only merges)
            p += 1
        if p < least:
            continue
        found = np.sort(pairs[:p])
        run = 1
        for i in range(1, p):
            run = run + 1 if found[i] == found[i - 1] else 1
            if run >= least:
                return True
    return False


def _frame_exit(
    data: Any, prompt_keys: Any, named_keys: Any, stop_keys: Any, prefix: int, least: int
) -> tuple[int, int]:
    """The task's mentions by content words (``asides``' count) and 1 where ``framed_units``
    must read ``data`` in Python, 0 where its answer is None."""
    size = data.shape[0]
    cap = size // 2 + 2
    ids = np.empty(cap, np.int64)
    slot = np.zeros(cap, np.bool_)
    content = np.zeros(cap, np.bool_)
    everything = np.ones(cap, np.bool_)
    n = 0
    named = 0
    content_named = 0
    i = 0
    while i < size:
        ch = data[i]
        if ch == 32:
            i += 1
            continue
        if ch == 0:  # a sentence mark or a line end: its own token, never a frame's word
            ids[n] = -1
            content[n] = True
            n += 1
            i += 1
            continue
        start = i
        key = 0
        unit = 0
        hashed = -3750763034362895579  # FNV-1a's offset basis as a signed 64-bit integer
        while i < size and data[i] > 32:
            code = data[i] - 96
            if i - start < KEY_LETTERS:
                key = key * 32 + code
            if i - start < prefix:
                unit = unit * 32 + code
            hashed = (hashed ^ data[i]) * 1099511628211
            i += 1
        length = i - start
        ids[n] = key if length <= KEY_LETTERS else (hashed & (_LONG_MARK - 1)) | _LONG_MARK
        if length >= 3:
            content[n] = length > KEY_LETTERS or not _member(stop_keys, key)
            if _member(prompt_keys, unit):
                slot[n] = True
                if _member(named_keys, unit):
                    named += 1
                    content_named += content[n]
        n += 1
    if named < least:
        return content_named, 0
    if _repeats(ids, slot, everything, n, least) or _repeats(ids, slot, content, n, least):
        return content_named, 1
    return content_named, 0


def pack(word: str) -> int | None:
    """A word's key as the kernel makes it (a-z only, up to ``KEY_LETTERS``), else None."""
    if not word or len(word) > KEY_LETTERS or not all("a" <= c <= "z" for c in word):
        return None
    key = 0
    for c in word:
        key = key * 32 + ord(c) - 96
    return key


@lru_cache(maxsize=4096)
def keys(words: frozenset[str]) -> np.ndarray:
    """The sorted keys of the words an ASCII token could be (the others can never match one)."""
    return np.array(sorted({k for w in words if (k := pack(w)) is not None}), dtype=np.int64)


def usable_stop_list(stop: frozenset[str]) -> bool:
    """Whether the kernel reads ``stop`` exactly: no word of more than ``KEY_LETTERS`` ASCII
    letters (such a word would be keyed by a hash, and a hash may not decide a drop)."""
    return not any(w.isascii() and w.isalpha() and len(w) > KEY_LETTERS for w in stop)


def compile_kernel() -> Any:
    """The kernel, compiled or loaded from numba's cache and checked (raises without numba, or
    where it disagrees with the Python reading on ``check``'s samples)."""
    import numba

    global _member, _repeats
    jit = numba.njit(cache=True, nogil=True)
    with _HELPERS_LOCK:  # (numba calls a global compiled only when it is one: made so first)
        if not hasattr(_repeats, "py_func"):
            _member, _repeats = jit(_member), jit(_repeats)
    kernel = jit(_frame_exit)
    if not check(kernel):
        raise RuntimeError("frames_jit's kernel disagrees with stuffing's Python reading")
    return kernel


def read(
    kernel: Any, text: str, prompt_units: frozenset[str], task: frozenset[str], stop: frozenset[str]
) -> tuple[int, bool]:
    """The kept, casefolded ASCII ``text`` (``stuffing``'s lines said once) read by ``kernel``:
    how often a content word names the task (a word of three letters or more, not in ``stop``,
    whose unit is the prompt's and the task's), and whether ``framed_units`` answers None."""
    data = np.frombuffer(text.encode("ascii").translate(ASCII_TOKENS), dtype=np.uint8)
    named, full = kernel(data, keys(prompt_units), keys(prompt_units & task), keys(stop), PREFIX, MIN_FRAME_REPEATS)
    return int(named), not full


def python_reading(
    text: str, prompt_units: frozenset[str], task: frozenset[str], stop: frozenset[str]
) -> tuple[int, bool]:
    """The kernel's answers read plainly, over strings (its check, and the tests')."""
    from collections import Counter
    from itertools import compress

    tokens = text.encode("ascii").translate(ASCII_TOKENS).replace(b"\x00", b" \x00 ").decode("ascii").split()
    ours = [len(t) >= 3 and t[:PREFIX] in prompt_units for t in tokens]
    named = [t for t, mine in zip(tokens, ours) if mine and t[:PREFIX] in task]
    content_named = sum(1 for t in named if t not in stop)
    if len(named) < MIN_FRAME_REPEATS:
        return content_named, True
    masked = ["\x01" if mine else t for t, mine in zip(tokens, ours)]
    content = [t == "\x00" or (len(t) >= 3 and t not in stop) for t in tokens]
    for seq in (masked, list(compress(masked, content))):
        for order in (seq, seq[::-1]):
            pairs = Counter(
                (order[i + 1], order[i + 2])
                for i in range(len(order) - 2)
                if order[i] == "\x01" and order[i + 1] not in "\x00\x01" and order[i + 2] not in "\x00\x01"
            )
            if pairs and max(pairs.values()) >= MIN_FRAME_REPEATS:
                return content_named, False
    return content_named, True


def check(kernel: Any) -> bool:
    """Whether ``kernel`` answers as ``python_reading`` on texts built to have frames (after and
    before a prompt word, over content words only, broken by a sentence mark, with a long word)
    and not to (too few mentions, pairs seen twice)."""
    prompt = frozenset({"laptop", "choosi", "news", "report", "tea"})
    task = frozenset({"laptop", "choosi", "news", "tea"})
    stop = frozenset({"the", "and", "about", "while", "his", "was"})
    samples = (
        "while he thought about laptop and he saw news. while he thought about news too\n" * 3,
        "at dusk he thought about laptop.\nat dusk he thought about news and choosing " * 2,
        "laptop the and news the and choosing the and tea",
        "the cat laptop sat on it; the dog news sat on it! and choosing sat on it",
        "laptops are tools for news and reports about choosing well tea",
        "extraordinarilylongword internationalization laptop " * 4,
        "green quiet was laptop! green quiet the news green quiet and choosing.",
        "a laptop the was ok, news the was ok and tea the was ok",
        "laptop one two. news one two. choosing three four tea five six",
    )
    for text in samples:
        data = np.frombuffer(text.encode("ascii").translate(ASCII_TOKENS), dtype=np.uint8)
        named, full = kernel(data, keys(prompt), keys(prompt & task), keys(stop), PREFIX, MIN_FRAME_REPEATS)
        if (named, not full) != python_reading(text, prompt, task, stop):
            return False
    return True
