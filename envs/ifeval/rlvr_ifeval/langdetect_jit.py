"""langdetect's per-text loops compiled by numba, when numba is installed.

Each kernel is a single pass that replaces several numpy calls and Python steps:

* ``NGRAMS`` (``_ngram_rows``): ``Detector._extract_ngrams`` as profile rows, in langdetect's
  order, straight from the code points of the text as ``Detector.append`` cuts it: space
  runs collapsed, Latin letters dropped from mostly non-Latin text (``cleaning_text``),
  characters normalised through the tables of the Basic Multilingual Plane, the
  capital-word and space rules, and the row lookup (direct tables for n-grams of ASCII
  letters and spaces, the open-addressing hash table otherwise). The same rows as
  ``_Engine.ngram_rows``'s numpy path.
* ``TRIALS`` (``_run_trials``): langdetect's whole trial loop (``Detector._detect_block``) on
  one text: for each trial the ``gauss`` weight, the ``choice`` draws by CPython's rejection
  sampling read off the seeded 32-bit stream (``word >> (32 - n.bit_length())``, drawn again
  while it is ``>= n``), the walk, the sum into the result, and the early stop once the
  leader cannot be overtaken. At step ``i`` every language's probability is multiplied by
  ``weight + p(gram | language)``; after steps 0, 5, 10, ... the vector is divided by its sum
  (added left to right, as CPython 3.11's ``sum`` adds floats) and the trial stops once the
  largest share passes the threshold or ``i`` reaches the limit. The same IEEE operations in
  the same order, without fast-math, so every probability is bit-identical to langdetect's
  and to ``_Engine._trial``.
* ``ENGLISH`` and ``CLASSES``: the counts behind ``language.obvious_language`` (letters,
  lowercase letters, words, stop words; letters per script).

The ``gauss`` values are not computed here: their logarithm, cosine and sine must be the
ones CPython's ``math`` returns, so Python tabulates the weight for every stream position
once per process (``langdetect_compiled.gauss_weights``) and the kernel reads the table.

They are None until ``load()`` (``rlvr_ifeval.language`` loads them in the background after the
first detection, or at once in ``warm_up``). Without numba all stay None and the callers use their
numpy and string paths; ``TRIALS`` is
also None on CPython 3.12+, whose ``sum`` of floats is compensated (the numpy replay calls
``sum`` itself and follows it on any version). The engine compares the kernels with those
paths once per process and keeps to the latter if they fail or differ.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

STREAM_EXHAUSTED = -1
"""``TRIALS``'s answer when the text needs more of the stream than it was given."""
BEYOND_TABLES = -1
"""``NGRAMS``'s answer for a raw code point beyond the Basic Multilingual Plane."""
NEEDS_VIETNAMESE = -2
"""``NGRAMS``'s answer for a text that ``NGram.normalize_vi`` may change."""

# Unsigned 64-bit constants: numba turns uint64-with-int64 arithmetic into floats.
_U1 = np.uint64(1)
_U21 = np.uint64(21)
_U42 = np.uint64(42)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_EMPTY_KEY = np.uint64((1 << 64) - 1)
_SPACE = 32
_ASCII_SYMBOLS = 53
_KEY_LETTERS = 12  # the longest word _english_counts keys (5 bits a letter)


def _row_of(key: Any, table_keys: Any, table_rows: Any, mask: Any, hash_shift: Any) -> int:
    """The profile row of an n-gram key (``langdetect_exact._gram_key``), or -1."""
    slot = (key * _GOLDEN) >> hash_shift
    while True:
        found = table_keys[slot]
        if found == key:
            return table_rows[slot]
        if found == _EMPTY_KEY:
            return -1
        slot = (slot + _U1) & mask


def _ngram_rows(
    points: Any,
    upper: Any,
    raw: bool,
    check_marks: bool,
    limit: int,
    bmp_normal: Any,
    bmp_upper: Any,
    ascii_symbol: Any,
    rows1: Any,
    rows2: Any,
    rows3: Any,
    table_keys: Any,
    table_rows: Any,
    mask: Any,
    hash_shift: Any,
    out: Any,
) -> int:
    """Write the profile rows of the n-grams of ``points[:limit]`` into ``out`` in
    langdetect's order and return how many there are, ``BEYOND_TABLES`` or
    ``NEEDS_VIETNAMESE``.

    With ``raw``, ``points`` are the code points of the text after URL and e-mail removal
    (``Detector.append`` cuts it at ``limit``): here runs of spaces are collapsed, Latin
    letters dropped from mostly non-Latin text (``Detector.cleaning_text``) and characters
    normalised through the tables of the Basic Multilingual Plane; a code point beyond it
    gives ``BEYOND_TABLES``. With ``check_marks``, a combining mark that
    ``NGram.normalize_vi`` may fold into the letter before it (anywhere in ``points``; pass
    one point past the cut) gives ``NEEDS_VIETNAMESE``: the caller normalises and calls
    again. Without ``raw``, ``points`` are the prepared text's normalised characters and
    ``upper`` says which are capitals. The leading space langdetect puts before the text is
    implicit. ``ascii_symbol`` numbers ASCII letters and the space 0..52
    (-1 for the rest), the index of ``rows1``/``rows2``/``rows3``.
    """
    size = min(points.shape[0], limit)
    drop_latin = False
    if check_marks:
        for i in range(points.shape[0]):
            code = points[i]
            if code == 0x300 or code == 0x301 or code == 0x303 or code == 0x309 or code == 0x323:
                return NEEDS_VIETNAMESE
    if raw:
        # Counted on code points: [A-z] is U+0041-U+007A; "non-Latin" is U+0300 and above
        # outside Latin Extended Additional (U+1E00-U+1EFF), as langdetect's regex says.
        latin = non_latin = 0
        for i in range(size):
            code = points[i]
            if code >= 0x10000:
                return BEYOND_TABLES
            if 0x41 <= code <= 0x7A:
                latin += 1
            elif code >= 0x300 and not 0x1E00 <= code <= 0x1EFF:
                non_latin += 1
        drop_latin = latin * 2 < non_latin
    count = 0
    before = 0  # the character two back, once there is one
    prev = _SPACE
    prev_upper = False
    prev_symbol = 0
    before_symbol = 0
    raw_prev = 0
    for i in range(size):
        if raw:
            code = points[i]
            # A space right after a space (in the text as cut, before Latin letters are
            # dropped) is not appended.
            if code == _SPACE and raw_prev == _SPACE:
                continue
            raw_prev = code
            if drop_latin and 0x41 <= code <= 0x7A:
                continue
            ch = bmp_normal[code]
            is_upper = bmp_upper[ch]
        else:
            ch = points[i]
            is_upper = upper[i]
        symbol = ascii_symbol[ch] if ch < 128 else -1
        # Within a word of capitals langdetect emits nothing.
        if not (is_upper and prev_upper):
            if ch != _SPACE:
                if symbol >= 0:
                    row = rows1[symbol]
                else:
                    row = _row_of(np.uint64(ch) + _U1, table_keys, table_rows, mask, hash_shift)
                if row >= 0:
                    out[count] = row
                    count += 1
            if not (ch == _SPACE and prev == _SPACE):
                if symbol >= 0 and prev_symbol >= 0:
                    row = rows2[prev_symbol * _ASCII_SYMBOLS + symbol]
                else:
                    key = ((np.uint64(prev) + _U1) << _U21) | (np.uint64(ch) + _U1)
                    row = _row_of(key, table_keys, table_rows, mask, hash_shift)
                if row >= 0:
                    out[count] = row
                    count += 1
            # After a space langdetect's buffer restarts: a 3-gram needs the character before
            # not to be a space (the implicit leading space covers the first character).
            if prev != _SPACE:
                if symbol >= 0 and prev_symbol >= 0 and before_symbol >= 0:
                    row = rows3[(before_symbol * _ASCII_SYMBOLS + prev_symbol) * _ASCII_SYMBOLS + symbol]
                else:
                    key = (
                        ((np.uint64(before) + _U1) << _U42) | ((np.uint64(prev) + _U1) << _U21) | (np.uint64(ch) + _U1)
                    )
                    row = _row_of(key, table_keys, table_rows, mask, hash_shift)
                if row >= 0:
                    out[count] = row
                    count += 1
        before, before_symbol = prev, prev_symbol
        prev, prev_symbol, prev_upper = ch, symbol, is_upper
    return count


def _run_trials(
    profiles: Any,
    gram_rows: Any,
    stream: Any,
    first_weights: Any,
    second_weights: Any,
    shift: int,
    n_trial: int,
    threshold: float,
    limit: int,
    early_stop: bool,
    margin: float,
    prob: Any,
    total: Any,
    trace: Any,
) -> int:
    """langdetect's trials on the n-grams ``gram_rows``, from stream word 0.

    ``first_weights[p]`` / ``second_weights[p]`` are the step weights of the ``gauss`` pair
    drawn from words ``p .. p + 3``. Adds each trial's probabilities / ``n_trial`` to
    ``total``, writes (steps, stream position after) per trial into ``trace`` and returns the
    number of trials run, or ``STREAM_EXHAUSTED``. ``prob`` is scratch space.
    """
    n = gram_rows.shape[0]
    n_langs = total.shape[0]
    available = stream.shape[0]
    pos = 0
    pending = 0.0
    fresh = True
    for trial in range(1, n_trial + 1):
        # random.gauss draws a pair and hands out its second value at the next call.
        if fresh:
            if pos >= first_weights.shape[0]:
                return STREAM_EXHAUSTED
            weight = first_weights[pos]
            pending = second_weights[pos]
            pos += 4
        else:
            weight = pending
        fresh = not fresh
        for lang in range(n_langs):
            prob[lang] = 1.0 / n_langs
        step = 0
        while True:
            while True:
                if pos >= available:
                    return STREAM_EXHAUSTED
                draw = stream[pos] >> shift
                pos += 1
                if draw < n:
                    break
            row = gram_rows[draw]
            for lang in range(n_langs):
                prob[lang] *= weight + profiles[row, lang]
            if step % 5 == 0:
                sum_prob = 0.0
                top = 0.0
                for lang in range(n_langs):
                    sum_prob += prob[lang]
                    if top < prob[lang]:
                        top = prob[lang]
                # Division by a positive sum is monotonic under rounding, so the largest share
                # is top / sum_prob exactly; the divisions then vectorise.
                largest = top / sum_prob
                for lang in range(n_langs):
                    prob[lang] /= sum_prob
                if largest > threshold or step >= limit:
                    break
            step += 1
        for lang in range(n_langs):
            total[lang] += prob[lang] / n_trial
        trace[trial - 1, 0] = step + 1
        trace[trial - 1, 1] = pos
        if early_stop and trial < n_trial:
            first = second = -np.inf
            for lang in range(n_langs):
                value = total[lang]
                if value > first:
                    first, second = value, first
                elif value > second:
                    second = value
            # Each trial left adds at most 1 / n_trial to any language.
            if first - second > (n_trial - trial) / n_trial + margin:
                return trial
    return n_trial


def _english_counts(data: Any, stop_keys: Any, marker_keys: Any) -> tuple[int, int, int, int, int]:
    """ASCII letters, lowercase letters, words (runs of letters), stop words and marker words
    of ``data`` (ASCII bytes), for ``language.obvious_language``. A word of up to 12 letters
    is keyed exactly by its lowercase letters, 5 bits each (``word_key``); ``stop_keys`` and
    ``marker_keys`` are the sorted keys of the lists, whose words are all that short."""
    letters = lowercase = words = stop = markers = 0
    key = 0
    length = 0
    size = data.shape[0]
    for i in range(size + 1):
        ch = data[i] if i < size else 0
        code = 0
        if 97 <= ch <= 122:
            code = ch - 96
            lowercase += 1
        elif 65 <= ch <= 90:
            code = ch - 64
        if code:
            letters += 1
            if length < _KEY_LETTERS:
                key = key * 32 + code
            length += 1
        elif length:
            words += 1
            if length <= _KEY_LETTERS:
                at = np.searchsorted(stop_keys, key)
                if at < stop_keys.shape[0] and stop_keys[at] == key:
                    stop += 1
                at = np.searchsorted(marker_keys, key)
                if at < marker_keys.shape[0] and marker_keys[at] == key:
                    markers += 1
            key = 0
            length = 0
    return letters, lowercase, words, stop, markers


def _count_classes(points: Any, classes: Any, counts: Any) -> int:
    """Add up ``classes[point]`` for the code points below 0x10000 into ``counts``; return how
    many are beyond (the caller classifies those)."""
    beyond = 0
    for i in range(points.shape[0]):
        point = points[i]
        if point < 0x10000:
            counts[classes[point]] += 1
        else:
            beyond += 1
    return beyond


def word_key(word: str) -> int:
    """``_english_counts``'s key of a lowercase ASCII word of at most 12 letters."""
    if not (word.isascii() and word.isalpha() and word.islower() and len(word) <= _KEY_LETTERS):
        raise ValueError(f"not a lowercase ASCII word of at most {_KEY_LETTERS} letters: {word!r}")
    key = 0
    for ch in word:
        key = key * 32 + ord(ch) - 96
    return key


def _compile() -> tuple[Any, Any, Any, Any]:
    try:
        import numba
    except ImportError:
        return None, None, None, None
    # cache=True keeps the machine code next to this file, so pool workers load it instead of
    # compiling again (seconds) where the directory is writable.
    jit = numba.njit(cache=True, nogil=True, fastmath=False)
    global _row_of
    _row_of = jit(_row_of)  # a global, so that numba calls it compiled from _ngram_rows
    ngrams = jit(_ngram_rows)
    # CPython 3.12's sum() of floats is compensated, so langdetect's normalisation rounds
    # differently there; this kernel adds left to right as 3.11 does.
    trials = jit(_run_trials) if sys.version_info < (3, 12) else None
    return ngrams, trials, jit(_english_counts), jit(_count_classes)


# The kernels, None until ``load()``: importing numba and loading its cached machine code costs
# 1-3 s, which a process that verifies a handful of texts, or its first verdict, must not pay.
NGRAMS: Any = None
TRIALS: Any = None
ENGLISH: Any = None
CLASSES: Any = None
_LOAD_LOCK = threading.Lock()
_loaded = False


def load() -> bool:
    """Compile the kernels, or load them from numba's cache, once per process; whether numba's
    ``NGRAMS`` is there (``TRIALS`` also needs CPython < 3.12)."""
    global NGRAMS, TRIALS, ENGLISH, CLASSES, _loaded
    with _LOAD_LOCK:
        if not _loaded:
            ngrams, trials, english, classes = _compile()
            # Published together, the trial loop last: a reader that sees NGRAMS sees the rest.
            ENGLISH, CLASSES, TRIALS, NGRAMS = english, classes, trials, ngrams
            _loaded = True
    return NGRAMS is not None


def loaded() -> bool:
    """Whether ``load()`` has run (and the kernels, if any, are usable)."""
    return _loaded
