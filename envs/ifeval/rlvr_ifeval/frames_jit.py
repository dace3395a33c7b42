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
* else, over every word and over content words only (``framed_units``' two readings), the words
  two by two after a prompt word (and before one), as ``_may_frame``'s regexes read them, sorted:
  no pair seen three times, and that reading answers None;
* else ``_framed``'s mentions (runs of prompt words, one other word allowed between two) and
  their frames (the two words before, the two after), and ``_framed``'s count of framed mentions
  taken high: a mention is counted where its frame stands at three mentions or more, where
  ``_framed`` also needs three different fillers among them and a frame not the prompt's own. Under
  three, or under ``MIN_FRAMED_SHARE`` of the mentions naming the task, that reading answers None.
  (Round 12 sent ~23% of the labelled responses to its Python reading, every one of them to be
  answered None; this sends ~3%.)

Where this answers None the Python reading would: it counts the same mentions, ``_framed`` counts
only frames ``_may_frame`` sees (``stuffing._may_frame``'s docstring), and a count taken high is
under the bar only where the true one is. A hash shared by two long words, or by two pairs or
frames, can only merge counts (raise them), so it can send a response to the Python reading, never
keep one from it. The same verdicts: ``tests/ifeval/
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
MIN_FRAMED_SHARE = 0.6
"""``stuffing.MIN_FRAMED_SHARE``."""
ASCII_TOKENS = bytes(0 if chr(c) in ".!?;:\n" else c | 0x20 if chr(c).isalpha() and c < 128 else 32 for c in range(256))
"""``stuffing._ASCII_TOKENS``: letters lowercased, a sentence mark or a line end 0, else a space."""
_LIMITS = (PREFIX, MIN_FRAME_REPEATS, MIN_FRAMED_SHARE)
_HELPERS_LOCK = threading.Lock()
KEY_LETTERS = 12
_LONG_MARK = 1 << 62
"""Set on a longer word's hash: an exact key is below 32 ** 12 = 2 ** 60."""
_MIX = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed 64-bit integer


def _member(keys: Any, key: int) -> bool:
    at = np.searchsorted(keys, key)
    return at < keys.shape[0] and keys[at] == key


def _reading_exits(ids: Any, slot: Any, tasky: Any, kept: Any, n: int, least: int, share: float) -> bool:
    """Whether ``framed_units``' reading of the tokens ``kept`` answers None, shown two ways:

    * no two words (no prompt word, no break) follow a prompt word ``least`` times or more as the
      same pair, nor precede one so (``stuffing._may_frame``: ``_framed`` is not asked);
    * or ``_framed``'s count of framed mentions is below ``least``, or below ``share`` of the
      mentions that name the task, even counted high: a mention counts as framed here where the
      two words before it (or after it) stand so at ``least`` mentions or more, where ``_framed``
      also needs ``MIN_FILLERS`` different fillers among them and a frame that is not the
      prompt's own pair. The mentions are ``_framed``'s: runs of prompt words with at most one
      other word (not a break) between two of them."""
    seq = np.empty(n, np.int64)
    marks = np.empty(n, np.bool_)
    named = np.empty(n, np.bool_)
    m = 0
    for i in range(n):
        if kept[i]:
            seq[m] = ids[i]
            marks[m] = slot[i]
            named[m] = tasky[i]
            m += 1
    repeated = False
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
                repeated = True
    if not repeated:
        return True
    # The mentions, as ``_framed`` walks them, and their frames (0: none; keys only merge).
    left = np.zeros(m, np.int64)
    right = np.zeros(m, np.int64)
    names = np.zeros(m, np.bool_)
    k = 0
    i = 0
    while i < m:
        if not marks[i]:
            i += 1
            continue
        j = i
        tells = False
        while j < m:
            if marks[j]:
                tells = tells or named[j]
                j += 1
                continue
            if j + 1 < m and seq[j] >= 0 and marks[j + 1]:
                tells = tells or named[j + 1]
                j += 2
                continue
            break
        if i >= 2 and seq[i - 2] >= 0 and seq[i - 1] >= 0:
            left[k] = (seq[i - 2] * _MIX + (seq[i - 1] ^ (seq[i - 1] >> 29))) | 1
        if j + 2 <= m and seq[j] >= 0 and seq[j + 1] >= 0:
            right[k] = (seq[j] * _MIX + (seq[j + 1] ^ (seq[j + 1] >> 29))) | 1
        names[k] = tells
        k += 1
        i = j
    if k < least:
        return True
    framed = 0
    mentions = 0
    for a in range(k):
        if not names[a]:
            continue
        mentions += 1
        for side in (left, right):
            if side[a] == 0:
                continue
            seen = 0
            for b in range(k):
                seen += side[b] == side[a]
            if seen >= least:
                framed += 1
                break
    return framed < least or framed < share * mentions


def _frame_exit(
    data: Any, prompt_keys: Any, named_keys: Any, stop_keys: Any, prefix: int, least: int, share: float
) -> tuple[int, int]:
    """The task's mentions by content words (``asides``' count) and 1 where ``framed_units``
    must read ``data`` in Python, 0 where its answer is None."""
    size = data.shape[0]
    # Every byte may be a token of its own (a sentence mark is one, unspaced: "a.b.c" is five);
    # numba checks no bounds, so a smaller cap let such a text write past the arrays' ends.
    cap = size + 1
    ids = np.empty(cap, np.int64)
    slot = np.zeros(cap, np.bool_)
    tasky = np.zeros(cap, np.bool_)
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
                    tasky[n] = True
                    named += 1
                    content_named += content[n]
        n += 1
    if named < least:
        return content_named, 0
    if _reading_exits(ids, slot, tasky, everything, n, least, share):
        if _reading_exits(ids, slot, tasky, content, n, least, share):
            return content_named, 0
    return content_named, 1


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

    global _member, _reading_exits
    jit = numba.njit(cache=True, nogil=True)
    with _HELPERS_LOCK:  # (numba calls a global compiled only when it is one: made so first)
        if not hasattr(_reading_exits, "py_func"):
            _member, _reading_exits = jit(_member), jit(_reading_exits)
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
    named, full = kernel(data, keys(prompt_units), keys(prompt_units & task), keys(stop), *_LIMITS)
    return int(named), not full


def python_reading(
    text: str, prompt_units: frozenset[str], task: frozenset[str], stop: frozenset[str]
) -> tuple[int, bool]:
    """The kernel's answers read plainly, over strings (its check, and the tests')."""
    from itertools import compress

    tokens = text.encode("ascii").translate(ASCII_TOKENS).replace(b"\x00", b" \x00 ").decode("ascii").split()
    ours = [len(t) >= 3 and t[:PREFIX] in prompt_units for t in tokens]
    named = [mine and t[:PREFIX] in task for t, mine in zip(tokens, ours)]
    content_named = sum(1 for t, told in zip(tokens, named) if told and t not in stop)
    if sum(named) < MIN_FRAME_REPEATS:
        return content_named, True
    content = [t == "\x00" or (len(t) >= 3 and t not in stop) for t in tokens]
    for kept in ([True] * len(tokens), content):
        if not _plain_exits(list(compress(tokens, kept)), list(compress(ours, kept)), list(compress(named, kept))):
            return content_named, False
    return content_named, True


def _plain_exits(tokens: list[str], ours: list[bool], named: list[bool]) -> bool:
    from collections import Counter

    least = MIN_FRAME_REPEATS
    word = [t != "\x00" and not mine for t, mine in zip(tokens, ours)]
    n = len(tokens)
    repeated = False
    for step in (1, -1):
        pairs = Counter(
            (tokens[i + step], tokens[i + 2 * step])
            for i in range(n)
            if ours[i] and 0 <= i + 2 * step < n and word[i + step] and word[i + 2 * step]
        )
        repeated = repeated or bool(pairs and max(pairs.values()) >= least)
    if not repeated:
        return True
    mentions = []
    i = 0
    while i < n:
        if not ours[i]:
            i += 1
            continue
        j, tells = i, False
        while j < n and (ours[j] or (j + 1 < n and tokens[j] != "\x00" and ours[j + 1])):
            step = 1 if ours[j] else 2
            tells = tells or named[j + step - 1]
            j += step
        left = tuple(tokens[i - 2 : i]) if i >= 2 and "\x00" not in tokens[i - 2 : i] else None
        right = tuple(tokens[j : j + 2]) if j + 2 <= n and "\x00" not in tokens[j : j + 2] else None
        mentions.append((left, right, tells))
        i = j
    if len(mentions) < least:
        return True
    lefts = Counter(m[0] for m in mentions if m[0] is not None)
    rights = Counter(m[1] for m in mentions if m[1] is not None)
    told = [m for m in mentions if m[2]]
    framed = sum(
        1 for a, b, _ in told if (a is not None and lefts[a] >= least) or (b is not None and rights[b] >= least)
    )
    return framed < least or framed < MIN_FRAMED_SHARE * len(told)


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
        # (a pair repeated after a prompt word that is not the task's: the framed count exits)
        "report sat on. report sat on. report sat on. laptop bright sky. news dark sea. choosing warm wind.",
    )
    for text in samples:
        data = np.frombuffer(text.encode("ascii").translate(ASCII_TOKENS), dtype=np.uint8)
        named, full = kernel(data, keys(prompt), keys(prompt & task), keys(stop), *_LIMITS)
        if (named, not full) != python_reading(text, prompt, task, stop):
            return False
    return True
