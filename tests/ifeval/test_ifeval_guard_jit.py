"""The guard's compiled counts (``guard_jit``, issue 26's speed goal) are the Python functions'.

``guard.content_rejection`` reads an ASCII response's content weight, the rest left once the
prompt's copies are out, the rest's ``distinct_ratio`` and the distinct counts behind
``repeated_ratio_at_most`` from one compiled pass. Compared here, figure for figure (floats
exactly), with ``content_weight``, ``strip_copies``, ``distinct_ratio`` and ``set`` on the
labelled responses under their own prompts and pasted under others, and on random token texts
(repeats, digits, copies overlapping, windows); and the guard's reasons with the kernel and
without it over the same cases plus the guard tests' degenerate and legitimate responses.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from rlvr_ifeval import guard, guard_jit, prose_jit
from rlvr_ifeval.scoring import build_checkers
from tests.ifeval.test_ifeval_guard_degenerate import DEGENERATE, LEGIT
from tests.ifeval.test_ifeval_verify_speed_equivalence import _rows


@pytest.fixture(scope="module")
def kernel() -> Any:
    pytest.importorskip("numba", reason="without numba the Python path is the only one")
    # With numba, a kernel that fails its check at load is a failure here, not a silent fallback.
    assert prose_jit.load() and prose_jit.guard_kernel() is not None
    return prose_jit.guard_kernel()


def _python_figures(toks: list[str], profile: guard.PromptProfile, text: bytes) -> guard_jit.Figures:
    rest = guard.strip_copies(toks, profile, (), text).rest
    return guard_jit.Figures(
        len(toks),
        int(guard.content_weight(toks)),
        len(rest),
        int(guard.content_weight(rest)),
        guard.distinct_ratio(rest),
        len(set(rest)),
        len(set(toks)),
    )


def _compare(kernel: Any, prompt: str, response: str) -> bool:
    text = guard.ascii_token_bytes(response)
    toks = text.decode("ascii").split()
    profile = guard.prompt_profile(prompt, "plain")
    starts = guard._copy_starts(toks, profile, text)
    found = guard_jit.figures(kernel, text, starts, profile.k, guard.DIVERSITY_WINDOW)
    assert found == _python_figures(toks, profile, text), (prompt[:80], response[:200])
    return bool(starts)


def test_the_figures_are_the_python_functions_on_labelled_responses(kernel) -> None:
    rows = [r for r in _rows() if r["response"].isascii()]
    rng = random.Random(30)
    with_copies = 0
    for row in rows:
        with_copies += _compare(kernel, row["prompt"], row["response"])
        other = rng.choice(rows)
        _compare(kernel, other["prompt"], row["response"])
    assert with_copies > len(rows) // 3  # (the rest was compared, not only the whole)


def test_the_figures_are_the_python_functions_on_random_texts(kernel) -> None:
    rng = random.Random(26)
    vocabulary = ["the", "a", "cat", "sat", "1", "22", "a1", "x9y", "mat", "on", "and", "zz", "q"]
    for _ in range(400):
        prompt_words = rng.sample(vocabulary, rng.randint(1, 8))
        prompt = " ".join(rng.choice(prompt_words) for _ in range(rng.randint(1, 30)))
        n = rng.choice([0, 1, 2, 3, 49, 50, 51, 99, 100, 101, rng.randint(0, 400)])
        words = [rng.choice(vocabulary if rng.random() < 0.7 else prompt_words) for _ in range(n)]
        separators = [rng.choice([" ", "  ", ", ", "\n", "--", "..."]) for _ in range(n)]
        response = rng.choice(["", " ", "("]) + "".join(w + s for w, s in zip(words, separators, strict=True))
        _compare(kernel, prompt, response)


def _reasons(cases: list[tuple[str, str, tuple[Any, ...]]]) -> list[str | None]:
    return [guard.content_rejection(p, "plain", r, c, 8) for p, r, c in cases]


def test_the_guard_gives_the_same_reasons_with_and_without_the_kernel(kernel, monkeypatch) -> None:
    rows = _rows()
    rng = random.Random(7)
    cases = []
    for row in rows:
        checkers = tuple(build_checkers(row["instruction_id_list"], row["kwargs"]))
        cases.append((row["prompt"], row["response"], checkers))
        other = rng.choice(rows)
        cases.append((other["prompt"], row["response"], checkers))
    for case in DEGENERATE + LEGIT:
        task: Any = case[1]
        (prompt, ids, kwargs), response = task, case[2]
        cases.append((prompt, response, tuple(build_checkers(ids, kwargs))))
    fast = _reasons(cases)
    with monkeypatch.context() as patch:
        patch.setattr(prose_jit, "_GUARD", None)
        patch.setattr(prose_jit, "_started", True)  # (no background load meanwhile)
        plain = _reasons(cases)
    assert fast == plain
    # The rules the figures feed were reached: degenerate responses refused by each of them.
    assert {guard.FEW_DISTINCT, guard.REPEATED, guard.NO_WORDS, guard.ECHO} <= set(fast)


def _fnv(token: str) -> int:
    h = guard_jit._HASH_START
    for byte in token.encode("ascii"):
        h = ((h ^ byte) * guard_jit._HASH_PRIME) & 0xFFFF_FFFF_FFFF_FFFF
    return h


def test_tokens_made_to_collide_are_counted_in_python_in_linear_time(kernel, monkeypatch) -> None:
    # 300 distinct tokens sharing their hash's low 10 bits (the table of 1,024 slots the kernel
    # makes for them): every new token would walk the whole chain before it.
    rng = random.Random(5)
    found: list[str] = []
    while len(found) < 300:
        token = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(7))
        if _fnv(token) & 1023 == 0 and token not in found:
            found.append(token)
    response = " ".join(found)
    text = guard.ascii_token_bytes(response)
    assert guard_jit.figures(kernel, text, [], 3, guard.DIVERSITY_WINDOW) is None
    checkers = tuple(build_checkers(["punctuation:no_comma"], [{}]))
    fast = guard.content_rejection("Write an essay about gardens.", "plain", response, checkers, 8)
    with monkeypatch.context() as patch:
        patch.setattr(prose_jit, "_GUARD", None)
        patch.setattr(prose_jit, "_started", True)
        assert guard.content_rejection("Write an essay about gardens.", "plain", response, checkers, 8) == fast
