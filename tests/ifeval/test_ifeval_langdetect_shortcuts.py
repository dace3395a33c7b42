"""The shortcuts of language.obvious_language decide the same with numba's counting pass
(langdetect_jit.ENGLISH and per-character tables) as with string methods and regular expressions."""

from __future__ import annotations

import random

import pytest

from rlvr_ifeval import langdetect_jit, language
from rlvr_ifeval.text import STOPWORDS
from tests.helpers.data import read_jsonl

pytestmark = pytest.mark.skipif(not langdetect_jit.load(), reason="numba is not installed")

HOSTILE_TEXTS = [
    "",
    "a",
    " ",
    "\x00" * 100,
    "😀" * 500,
    "A" * 100_000,
    "the " * 50,
    "THE AND OF " * 30,
    "the’s and—of “to” is… that for with " * 10,
    "İstanbul ﬁne ẞtraße the and of to is " * 10,
    "\ud800 the and of to is that " * 20,
    "Kelvin K and Å ångström of the " * 20,
    "한국어 텍스트입니다 " * 20,
    "한국어 텍스트입니다 " * 20 + "English words here",
    "ไทย " * 40 + "😀" * 40,
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 letters " * 20,
    "the" + "e" * 30 + " and " * 30,
    "the and of to is that for with " * 3000,
]


def _shared_texts() -> list[str]:
    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl") + read_jsonl("ifbench_responses_labeled.jsonl")
    responses = [r["response"] for r in rows]
    texts = responses + [t.upper() for t in responses] + [t.lower() for t in responses] + [r["prompt"] for r in rows]
    return list(dict.fromkeys(texts))


def _generated_texts(count: int) -> list[str]:
    """Word salads near the thresholds: stop words, markers, prefixes and extensions of them,
    words longer than 12 letters, capitals, apostrophes and non-ASCII separators and letters."""
    rng = random.Random(3)
    stop = sorted(STOPWORDS)
    separators = [" ", " ", " ", ", ", "’", "—", "…", "\n", "'", "-", "1", " “", "” ", "😀"]
    markers = ["the", "and", "of", "to", "is", "that", "for", "with"]
    texts = []
    for _ in range(count):
        # Per text, the shares of stop words, markers and capitals vary around the thresholds.
        stop_share, marker_share, capital_share = rng.uniform(0.2, 0.6), rng.uniform(0, 0.15), rng.uniform(0, 0.5)
        foreign_share = rng.choice((0.0, 0.0, 0.02))
        words = []
        for _ in range(rng.randint(5, 200)):
            kind = rng.random()
            if kind < marker_share:
                word = rng.choice(markers)
            elif kind < stop_share:
                word = rng.choice(stop)
            elif kind < stop_share + 0.05:
                word = rng.choice(stop) + rng.choice("sxe")
            elif kind < stop_share + 0.1:
                word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(11, 16)))
            elif kind < stop_share + 0.1 + foreign_share:
                word = rng.choice(("é", "ñ", "ß", "ω", "ж", "中", "가", "ก")) * rng.randint(1, 3)
            else:
                word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 9)))
            if rng.random() < capital_share:
                word = word.upper() if rng.random() < 0.5 else word.capitalize()
            words.append(word + rng.choice(separators))
        texts.append("".join(words))
    return texts


def test_compiled_shortcuts_decide_as_the_string_version() -> None:
    fired = 0
    for text in [*_shared_texts(), *_generated_texts(1500), *HOSTILE_TEXTS]:
        compiled = language.obvious_language(text, compiled=True)
        assert compiled == language.obvious_language(text, compiled=False), text[:80]
        fired += compiled is not None
    assert fired > 1500  # the shortcuts do fire (and then agree)


def test_lowercasing_a_non_letter_never_yields_an_ascii_letter() -> None:
    # The compiled pass treats every non-ASCII character as a word separator when all letters
    # are ASCII; the string version lowercases the text first. They agree because lowercasing
    # a character that is not a letter gives neither an ASCII letter nor the empty string.
    ascii_letters = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    for code in range(128, 0x110000):
        ch = chr(code)
        if not ch.isalpha():
            lowered = ch.lower()
            assert lowered and not ascii_letters & set(lowered), hex(code)


def test_word_keys_are_exact_and_refuse_other_words() -> None:
    words = ["a", "the", "zzzzzzzzzzzz", "yourselves", "and", "an", "ant"]
    keys = [langdetect_jit.word_key(w) for w in words]
    assert len(set(keys)) == len(words)
    for bad in ("The", "don't", "thirteenletter", "", "é"):
        with pytest.raises(ValueError):
            langdetect_jit.word_key(bad)


def test_set_compiled_switches_both_paths_and_restores() -> None:
    from rlvr_ifeval import langdetect_exact

    text = "Ceci est un texte en français qui ne prend aucun raccourci."
    expected = language.fast_langdetect(text)
    assert langdetect_exact.engine().enable_kernels()
    previous = language.set_compiled(False)
    try:
        assert previous is True
        assert not langdetect_exact.engine().compiled
        assert language.fast_langdetect(text) == expected
        assert language.obvious_language("the and of to is that for with " * 10) == "en"
    finally:
        language.set_compiled(previous)
    assert langdetect_exact.engine().compiled


def test_a_counter_whose_kernels_fail_or_miscount_is_not_used() -> None:
    assert language._FastCounter.checked(langdetect_jit.ENGLISH, langdetect_jit.CLASSES) is not None

    def broken(*args):
        raise RuntimeError("no machine code here")

    assert language._FastCounter.checked(broken, langdetect_jit.CLASSES) is None
    assert language._FastCounter.checked(langdetect_jit.ENGLISH, broken) is None
    assert language._FastCounter.checked(lambda *args: (0, 0, 0, 0, 0), langdetect_jit.CLASSES) is None


def test_shortcuts_alone_do_not_import_numba() -> None:
    # A worker whose texts all take a shortcut never pays for numba's import.
    import subprocess
    import sys

    code = (
        "import sys; from rlvr_ifeval.language import detect_language; "
        "assert detect_language('the cat and the dog are on the mat, that is all for now ' * 3) == 'en'; "
        "print('numba' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "False"


def test_warm_up_loads_everything_detection_needs() -> None:
    # In a fresh process: after warm_up, detecting any kind of text loads nothing slow (the
    # profiles take over a second, compiling a kernel about one), so that a worker's first
    # verification stays well within its budget.
    import subprocess
    import sys

    code = (
        "import time; from rlvr_ifeval import language; language.warm_up(); "
        "start = time.perf_counter(); "
        "[language.detect_language(t) for t in ('Das ist gut und schön, aber nicht ganz.', 'Это тест 😀 ok', "
        "'THE CAT AND THE DOG', 'the cat and the dog are on the mat, that is all for now ' * 3)]; "
        "print(time.perf_counter() - start)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert float(result.stdout.strip()) < 0.5
