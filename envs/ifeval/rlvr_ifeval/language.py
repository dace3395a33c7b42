"""Deterministic language identification: langdetect with a fixed seed, plus exact shortcuts.

langdetect samples n-grams at random unless its factory is seeded; seeding makes the verdict a
pure function of the text, as a verifier must be. It is also slow (10-20 ms a call), so texts
whose language is beyond doubt skip it: prose written in a script that only one of
langdetect's languages uses, and plain English prose (ASCII, mostly lowercase letters, many
English function words). Both shortcuts agreed with langdetect on all 3,346 texts of the
shared data; tests/ifeval re-checks a sample.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

from rlvr_ifeval.text import STOPWORDS

_LOCK = threading.Lock()
_SEED = 0
_MIN_LETTERS = 40
_SCRIPT_SHARE = 0.98
_UNIQUE_SCRIPTS = (
    ("ko", re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")),
    ("th", re.compile(r"[\u0e00-\u0e7f]")),
    ("he", re.compile(r"[\u0590-\u05ff]")),
    ("el", re.compile(r"[\u0370-\u03ff]")),
    ("bn", re.compile(r"[\u0980-\u09ff]")),
    ("pa", re.compile(r"[\u0a00-\u0a7f]")),
    ("gu", re.compile(r"[\u0a80-\u0aff]")),
    ("ta", re.compile(r"[\u0b80-\u0bff]")),
    ("te", re.compile(r"[\u0c00-\u0c7f]")),
    ("kn", re.compile(r"[\u0c80-\u0cff]")),
    ("ml", re.compile(r"[\u0d00-\u0d7f]")),
)
_ASCII_WORD = re.compile(r"[A-Za-z]+")
_ENGLISH_MARKERS = frozenset(("the", "and", "of", "to", "is", "that", "for", "with"))


def _letters(text: str) -> str:
    return "".join(c for c in text if c.isalpha())


def obvious_language(text: str) -> str | None:
    """The language langdetect would certainly return, when that is beyond doubt; else None."""
    letters = _letters(text)
    if len(letters) < _MIN_LETTERS:
        return None
    for code, pattern in _UNIQUE_SCRIPTS:
        if len(pattern.findall(letters)) >= _SCRIPT_SHARE * len(letters):
            return code
    # langdetect's profiles are case-sensitive and it often calls capitalised English German or
    # Somali; only mostly-lowercase English is beyond doubt.
    if not letters.isascii() or sum(c.islower() for c in letters) < 0.6 * len(letters):
        return None
    words = [w.lower() for w in _ASCII_WORD.findall(text)]
    if len(words) < 20:
        return None
    stop = sum(1 for w in words if w in STOPWORDS)
    markers = sum(1 for w in words if w in _ENGLISH_MARKERS)
    if stop >= 0.35 * len(words) and markers >= 0.08 * len(words):
        return "en"
    return None


def langdetect_language(text: str) -> str | None:
    """langdetect's own ``detect`` (seeded); the slow reference for ``fast_langdetect``."""
    from langdetect import DetectorFactory, LangDetectException, detect

    with _LOCK:
        DetectorFactory.seed = _SEED
        try:
            return str(detect(text))
        except LangDetectException:
            return None


# Memos of profile rows as vectors and of normalised characters; cleared when they grow past
# these sizes so hostile input cannot make a worker's memory grow without bound.
_VECTORS: dict[str, object] = {}
_NORMALISED: dict[str, str] = {}
_MAX_VECTORS = 50_000
_MAX_NORMALISED = 20_000


def _extract_ngrams(text: str, table: dict) -> list[str]:
    """langdetect's n-gram extraction (1- to 3-grams of normalised characters, words in
    capitals skipped), with the per-character normalisation memoised."""
    from langdetect.utils.ngram import NGram

    if len(_NORMALISED) > _MAX_NORMALISED:
        _NORMALISED.clear()
    result: list[str] = []
    grams, capital = " ", False
    for raw in text:
        ch = _NORMALISED.get(raw)
        if ch is None:
            ch = _NORMALISED[raw] = NGram.normalize(raw)
        last = grams[-1]
        if last == " ":
            grams, capital = " ", False
            if ch == " ":
                continue
        elif len(grams) >= 3:
            grams = grams[1:]
        grams += ch
        if ch.isupper():
            if last.isupper():
                capital = True
        else:
            capital = False
        if capital:
            continue
        for n in (1, 2, 3):
            if len(grams) < n:
                break
            gram = grams[-n:]
            if gram != " " and gram in table:
                result.append(gram)
    return result


def fast_langdetect(text: str) -> str | None:
    """langdetect's decision, computed faster and identically.

    Same cleaning, same n-grams, same random draws; the 55 language probabilities are
    multiplied as numpy vectors (bit-identical element-wise IEEE operations) and normalised
    with the same sequential sum. Trials stop early once the leading language cannot be
    overtaken by the trials left (each trial adds at most 1/n_trial to any language).
    """
    import numpy as np
    from langdetect import detector_factory

    detector_factory.init_factory()
    factory = detector_factory._factory
    with _LOCK:
        factory.seed = _SEED
        detector = factory.create()
    detector.append(text)
    detector.cleaning_text()
    table = detector.word_lang_prob_map
    ngrams = _extract_ngrams(detector.text, table)
    if not ngrams:
        return None
    if len(_VECTORS) > _MAX_VECTORS:
        _VECTORS.clear()
    n_langs = len(detector.langlist)
    n_trial = detector.n_trial
    rng = detector.random
    rng.seed(detector.seed)
    total = np.zeros(n_langs)
    for trial in range(1, n_trial + 1):
        prob = np.array([1.0 / n_langs] * n_langs)
        alpha = detector.alpha + rng.gauss(0.0, 1.0) * detector.ALPHA_WIDTH
        weight = alpha / detector.BASE_FREQ
        i = 0
        while True:
            word = rng.choice(ngrams)
            vector = _VECTORS.get(word)
            if vector is None:
                vector = _VECTORS[word] = np.array(table[word])
            prob *= weight + vector
            if i % 5 == 0:
                prob /= sum(prob.tolist())
                if prob.max() > detector.CONV_THRESHOLD or i >= detector.ITERATION_LIMIT:
                    break
            i += 1
        total += prob / n_trial
        top_two = np.sort(total)[-2:]
        if trial < n_trial and top_two[1] - top_two[0] > (n_trial - trial) / n_trial + 1e-9:
            break
    best = int(np.argmax(total))
    if total[best] <= detector.PROB_THRESHOLD:
        return "unknown"
    return str(detector.langlist[best])


@lru_cache(maxsize=128)
def detect_language(text: str) -> str | None:
    """The ISO code langdetect assigns to ``text``, or None when it finds no features."""
    return obvious_language(text) or fast_langdetect(text)
