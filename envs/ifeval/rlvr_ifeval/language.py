"""Deterministic language identification: langdetect with a fixed seed, plus exact shortcuts.

langdetect samples n-grams at random unless its factory is seeded; seeding makes the verdict a
pure function of the text, as a verifier must be. ``langdetect_exact`` reproduces its seeded
computation bit for bit at a fraction of the cost. Texts whose language is beyond doubt skip
even that: prose written in a script that only one of langdetect's languages uses, and plain
English prose (ASCII, mostly lowercase letters, many English function words). Both shortcuts
agreed with langdetect on all 3,346 texts of the shared data; tests/ifeval re-checks a sample.
"""

from __future__ import annotations

import re
import sys
import threading
from functools import lru_cache
from typing import Any

from rlvr_ifeval.text import STOPWORDS

_LOCK = threading.Lock()
_SEED = 0
_MIN_LETTERS = 40
_SCRIPT_SHARE = 0.98
# Scripts that only one of langdetect's languages uses: code and Unicode ranges.
_SCRIPT_RANGES = (
    ("ko", ((0xAC00, 0xD7AF), (0x1100, 0x11FF), (0x3130, 0x318F))),
    ("th", ((0x0E00, 0x0E7F),)),
    ("he", ((0x0590, 0x05FF),)),
    ("el", ((0x0370, 0x03FF),)),
    ("bn", ((0x0980, 0x09FF),)),
    ("pa", ((0x0A00, 0x0A7F),)),
    ("gu", ((0x0A80, 0x0AFF),)),
    ("ta", ((0x0B80, 0x0BFF),)),
    ("te", ((0x0C00, 0x0C7F),)),
    ("kn", ((0x0C80, 0x0CFF),)),
    ("ml", ((0x0D00, 0x0D7F),)),
)
_UNIQUE_SCRIPTS = tuple(
    (code, re.compile("[" + "".join(f"\\u{low:04x}-\\u{high:04x}" for low, high in ranges) + "]"))
    for code, ranges in _SCRIPT_RANGES
)
_ASCII_WORD = re.compile(r"[A-Za-z]+")
_ENGLISH_MARKERS = frozenset(("the", "and", "of", "to", "is", "that", "for", "with"))


_DROP_ASCII_LOWER = str.maketrans("", "", "abcdefghijklmnopqrstuvwxyz")
_DROP_ASCII_LETTERS = str.maketrans("", "", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


_COMPILED = True


def set_compiled(enabled: bool) -> bool:
    """Use numba's kernels (where numba is installed) or only the numpy and string paths, for
    the shortcuts and for ``langdetect_exact``; returns the previous setting. Benchmarks use
    this to measure what a machine without numba runs; the results are the same."""
    global _COMPILED
    from rlvr_ifeval import langdetect_exact

    previous, _COMPILED = _COMPILED, enabled
    langdetect_exact.engine().enable_kernels(use=enabled)
    return previous


def obvious_language(text: str, *, compiled: bool | None = None) -> str | None:
    """The language langdetect would certainly return, when that is beyond doubt; else None.

    With numba (``langdetect_jit.ENGLISH``) the letters, scripts and words are counted by
    table lookups and one compiled pass; ``compiled=False`` (or no numba) counts them with
    string methods and regular expressions. Both decide identically (tests/ifeval). By
    default the compiled pass is used once numba's kernels are loaded anyway (in the background
    after the first text that needs ``langdetect_exact``, or by ``warm_up``), so that a process
    whose texts all take a shortcut never pays for importing numba (1-3 s).
    """
    if compiled is None:
        jit = sys.modules.get("rlvr_ifeval.langdetect_jit")
        compiled = _COMPILED and jit is not None and jit.ENGLISH is not None
    counter = _FastCounter.get() if compiled else None
    if counter is None:
        return _obvious_language_strings(text)
    if text.isascii():
        data = text.encode("ascii")
    else:
        letters, foreign_letters, script_counts = counter.letters(text)
        if letters < _MIN_LETTERS:
            return None
        if foreign_letters:
            for (code, _), count in zip(_SCRIPT_RANGES, script_counts):
                if count >= _SCRIPT_SHARE * letters:
                    return code
            return None
        # Every letter is ASCII: other characters only separate words (lowercasing one never
        # yields an ASCII letter, a test checks every code point).
        data = text.encode("ascii", "replace")
    n_letters, lowercase, n_words, stop, markers = counter.english(data)
    return _english_verdict(n_letters, lowercase, n_words, stop, markers)


def _english_verdict(n_letters: int, lowercase: int, n_words: int, stop: int, markers: int) -> str | None:
    if n_letters < _MIN_LETTERS:
        return None
    # langdetect's profiles are case-sensitive and it often calls capitalised English German or
    # Somali; only mostly-lowercase English is beyond doubt.
    if lowercase < 0.6 * n_letters:
        return None
    if n_words < 20:
        return None
    if stop >= 0.35 * n_words and markers >= 0.08 * n_words:
        return "en"
    return None


def _obvious_language_strings(text: str) -> str | None:
    """``obvious_language`` with string methods and regular expressions only."""
    if text.isascii():  # counted without building the string of letters
        n_letters = len(text) - len(text.translate(_DROP_ASCII_LETTERS))
        lowercase = len(text) - len(text.translate(_DROP_ASCII_LOWER))
    else:
        letters = "".join(filter(str.isalpha, text))
        if len(letters) < _MIN_LETTERS:
            return None
        if not letters.isascii():
            for code, pattern in _UNIQUE_SCRIPTS:
                if len(pattern.findall(letters)) >= _SCRIPT_SHARE * len(letters):
                    return code
            return None
        n_letters = len(letters)
        lowercase = len(letters) - len(letters.translate(_DROP_ASCII_LOWER))
    if n_letters < _MIN_LETTERS or lowercase < 0.6 * n_letters:
        return None
    words = _ASCII_WORD.findall(text.lower())
    stop = sum(map(STOPWORDS.__contains__, words))
    markers = sum(map(_ENGLISH_MARKERS.__contains__, words))
    return _english_verdict(n_letters, lowercase, len(words), stop, markers)


class _FastCounter:
    """Tables for ``obvious_language``'s compiled counting, built once per process (~10 ms)."""

    _instance: _FastCounter | None = None
    _failed = False

    @classmethod
    def get(cls) -> _FastCounter | None:
        if cls._instance is None and not cls._failed:
            with _LOCK:
                if cls._instance is None and not cls._failed:
                    from rlvr_ifeval import langdetect_jit

                    if not langdetect_jit.loaded():
                        return None  # not yet: the string version counts meanwhile
                    if langdetect_jit.ENGLISH is not None and langdetect_jit.CLASSES is not None:
                        cls._instance = cls.checked(langdetect_jit.ENGLISH, langdetect_jit.CLASSES)
                    cls._failed = cls._instance is None
        return cls._instance

    @classmethod
    def checked(cls, english: Any, count_classes: Any) -> _FastCounter | None:
        """A counter on these kernels if they run here and count as the string version does."""
        sample = "The cat’s toy is on the mat, and that is all for now with the dog. 한국어 😀"
        try:
            counter = cls(english, count_classes)
            letters = counter.letters(sample)
            english = counter.english(sample.encode("ascii", "replace"))
        except Exception:
            return None
        alpha = [c for c in sample if c.isalpha()]
        words = _ASCII_WORD.findall(sample.lower())
        expected_english = (
            sum(c.isascii() for c in alpha),
            sum(c.islower() and c.isascii() for c in alpha),
            len(words),
            sum(map(STOPWORDS.__contains__, words)),
            sum(map(_ENGLISH_MARKERS.__contains__, words)),
        )
        expected_letters = (len(alpha), sum(not c.isascii() for c in alpha), [0] * len(_SCRIPT_RANGES))
        expected_letters[2][0] = 3  # 한국어
        return counter if (letters, english) == (expected_letters, expected_english) else None

    def __init__(self, english: Any, count_classes: Any) -> None:
        import numpy as np

        from rlvr_ifeval.langdetect_jit import word_key

        self.np = np
        self.english_kernel = english
        self.count_classes = count_classes
        plain = [w for w in STOPWORDS if w.isascii() and w.isalpha()]  # "don't" is never a run of letters
        self.stop_keys = np.array(sorted(map(word_key, plain)), dtype=np.int64)
        self.marker_keys = np.array(sorted(map(word_key, _ENGLISH_MARKERS)), dtype=np.int64)
        # Per character of the Basic Multilingual Plane: 0 no letter, 1 ASCII letter, 2 other
        # letter, 3 + k a letter of _SCRIPT_RANGES[k].
        classes = np.array([c.isalpha() for c in map(chr, range(0x10000))], dtype=np.uint8) * 2
        classes[:128] //= 2
        for index, (_, ranges) in enumerate(_SCRIPT_RANGES):
            for low, high in ranges:
                span = classes[low : high + 1]
                span[span > 0] = 3 + index
        self.classes = classes
        self.n_classes = 3 + len(_SCRIPT_RANGES)

    def letters(self, text: str) -> tuple[int, int, list[int]]:
        """Letters (``str.isalpha``), letters beyond ASCII, and letters of each unique script."""
        np = self.np
        points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        counts = np.zeros(self.n_classes, dtype=np.int64)
        extra = 0
        if self.count_classes(points, self.classes, counts):
            # Outside the table (emoji, historic scripts): no unique script; ask str.isalpha.
            extra = sum(chr(c).isalpha() for c in points[points >= 0x10000].tolist())
        counts = counts.tolist()
        letters = sum(counts[1:]) + extra
        return letters, letters - counts[1], counts[3:]

    def english(self, data: bytes) -> tuple[int, int, int, int, int]:
        np = self.np
        return self.english_kernel(np.frombuffer(data, dtype=np.uint8), self.stop_keys, self.marker_keys)


def langdetect_language(text: str) -> str | None:
    """langdetect's own ``detect`` (seeded); the slow reference for ``fast_langdetect``."""
    from langdetect import DetectorFactory, LangDetectException, detect

    with _LOCK:
        DetectorFactory.seed = _SEED
        try:
            return str(detect(text))
        except LangDetectException:
            return None


_EXACT_ENGINE_OK: bool | None = None


def fast_langdetect(text: str) -> str | None:
    """langdetect's decision (seed 0), computed faster and identically.

    ``langdetect_exact`` replays the same algorithm on the same random draws (numba's kernels
    or numpy) with bit-identical arithmetic. At first use it checks that its reading of
    Python's seeded random stream matches ``random.Random`` on this interpreter; if not,
    langdetect runs.
    """
    global _EXACT_ENGINE_OK
    from rlvr_ifeval import langdetect_exact

    if _EXACT_ENGINE_OK is None:
        _EXACT_ENGINE_OK = langdetect_exact.self_check()
    if not _EXACT_ENGINE_OK:
        return langdetect_language(text)
    engine = langdetect_exact.engine()
    if _COMPILED:
        engine.start_kernels()
    return engine.detect(text)


def warm_up() -> None:
    """Load what language detection needs once per process: the engine's tables (read from
    the on-disk cache of ``langdetect_tables``, or built in 2-3 s the first time on a machine)
    and numba's kernels (loaded from numba's cache in 1-3 s, or compiled in about 5 s where there
    is none yet), here and now rather than in the background. A verifier calls this when a pool
    worker unpickles it, so that no call's time budget pays for it."""
    from rlvr_ifeval import langdetect_exact

    fast_langdetect("Ceci est un court texte pour charger les profils.")
    if _COMPILED and _EXACT_ENGINE_OK:
        langdetect_exact.engine().enable_kernels()
        _FastCounter.get()
    if _COMPILED:
        from rlvr_ifeval import guard_jit, prose_jit  # the relevance gate's function-word count

        prose_jit.load()
        guard_jit.load_fused()  # (the guard's counts in one pass: round 10)


@lru_cache(maxsize=128)
def detect_language(text: str) -> str | None:
    """The ISO code langdetect assigns to ``text``, or None when it finds no features."""
    return obvious_language(text) or fast_langdetect(text)
