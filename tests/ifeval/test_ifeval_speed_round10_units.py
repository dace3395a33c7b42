"""The relevance gate's units of ASCII text (``units_jit``, round 10 of issue 26's speed goal).

Round 10 looks the stop words and the prefixes already written up in hash tables (a lookup per
word) where the kernel searched a sorted array for each word and sorted every prefix, and reads a
text shorter than ``units_jit.SHORT_TEXT`` with Python's string methods (a kernel call's dispatch
and arrays cost more there). Compared here with ``relevance.units``' own Python path on texts
long enough to reach the kernel (``test_ifeval_prose_jit.py`` compares the labelled texts): words
of every length around the 12 letters a key holds, stop words, repeats, case; and prefixes made
to collide in the kernel's table, which it hands back to Python.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from rlvr_ifeval import analysis, prose_jit, relevance, units_jit


@pytest.fixture(scope="module")
def kernel() -> Any:
    pytest.importorskip("numba", reason="without numba the Python path is the only one")
    assert prose_jit.load() and prose_jit.units_kernel() is not None
    return prose_jit.units_kernel()


def _python(text: str, drop: frozenset[str], prefix: int, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    with monkeypatch.context() as patch:
        patch.setattr(prose_jit, "_UNITS", None)
        return relevance.units(text, drop, prefix)


DROP = frozenset({"the", "their", "and", "garden", "abcdefghijkl", "abcdefghijklm", "characteristically"})
WORDS = (
    "the", "The", "THEIR", "and", "garden", "Gardens", "gardening", "abcdefghijkl", "abcdefghijklm", "ab", "abc",
    "abcdefghijk", "characteristically", "zzzzzzzzzzzzz", "x", "qwerty", "Qwertyuiopas",
)  # fmt: skip


def test_long_texts_are_read_by_the_kernel_as_the_python_path(kernel, monkeypatch) -> None:
    rng = random.Random(10)
    reached = 0
    for _ in range(300):
        parts = [
            rng.choice(WORDS)
            if rng.random() < 0.5
            else "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABC") for _ in range(rng.randint(1, 15)))
            for _ in range(rng.randint(40, 400))
        ]
        text = "".join(p + rng.choice([" ", ", ", ".\n", "'", "-", "  "]) for p in parts)
        view = analysis.ascii_view(text)
        assert view is not None
        reached += len(view) >= units_jit.SHORT_TEXT
        for drop in (DROP, relevance.STOP_WORDS):
            for prefix in (relevance.PREFIX_V0, relevance.PREFIX):
                assert units_jit.ascii_units(kernel, view, drop, prefix) == _python(text, drop, prefix, monkeypatch)
    assert reached > 250


def test_the_stop_word_table_holds_every_key_once(kernel) -> None:
    table = units_jit.drop_keys(relevance.STOP_WORDS)
    keys = {k for w in relevance.STOP_WORDS if (k := units_jit._word_key(w)) is not None}
    assert sorted(int(k) for k in table if k) == sorted(keys)
    assert len(table) >= 2 * len(keys) and len(table) & (len(table) - 1) == 0


def test_prefixes_made_to_collide_are_read_in_python(kernel, monkeypatch) -> None:
    # 600 distinct 5-letter words whose prefixes share their first slot in the kernel's table
    # (2,048 slots for this text): past its probe bound it gives up and the Python path answers.
    size = 8
    text_words: list[str] = []
    letters = "abcdefghijklmnopqrstuvwxyz"
    candidates = (
        a + b + c + d + e for a in letters for b in letters for c in letters for d in letters for e in letters
    )
    for word in candidates:
        key = units_jit._word_key(word)
        assert key is not None
        cut = key * 32  # (the prefix of 6 slots a 5-letter word fills)
        if units_jit._python_slot(cut, 2047) == 0:
            text_words.append(word)
        if len(text_words) == 600:
            break
    view = " ".join(text_words)
    while size < 2 * (len(view) // (units_jit.MIN_WORD + 1) + 1):
        size *= 2
    assert size == 2048  # (the table the kernel makes for this text)
    data = units_jit.np.frombuffer(view.encode("ascii"), dtype=units_jit.np.uint8)
    out = units_jit.np.empty(7 * len(view), dtype=units_jit.np.uint8)
    spans = units_jit.np.empty(2 * len(view), dtype=units_jit.np.int64)
    assert kernel(data, units_jit.drop_keys(DROP), 6, out, spans)[0] == -1
    assert units_jit.ascii_units(kernel, view, DROP, 6) == _python(view, DROP, 6, monkeypatch) == set(text_words)
