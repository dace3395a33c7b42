"""Round 12's speed work on the contrast walk gives the figures and verdicts it gave before (issue 26).

``contrast_jit.Walk.run`` numbers a response's units that the background knows by a set
intersection and a ``map`` in C (``contrast_jit.ROUND_12``), where round 11 looked each unit up
in a Python comprehension. The walk sorts the numbers itself, so the two give the same arrays
whatever order the units come in. Compared with the path it replaced (``ROUND_12`` off, as
``bench/_ifeval_speed_off.without_speed_round12`` sets it): crafted unit sets (empty, unknown
only, every unit of a prompt, a set and a frozenset, scripts without spaces), the labelled
responses' units under their own and other prompts, and whole verdicts of the newest training
ids (``test_ifeval_verify_speed_equivalence._cases``).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from rlvr_ifeval import contrast, contrast_jit, prose_jit, relevance
from rlvr_ifeval.contrast import Background
from rlvr_ifeval.scoring import build_checkers
from tests.ifeval.test_ifeval_verify_speed_equivalence import _cases, _newest_training_ids, _rows


@contextlib.contextmanager
def _round_11() -> Iterator[None]:
    saved = contrast_jit.ROUND_12
    contrast_jit.ROUND_12 = False
    try:
        yield
    finally:
        contrast_jit.ROUND_12 = saved


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _rows()


@pytest.fixture(scope="module")
def kernel() -> Any:
    pytest.importorskip("numba", reason="without numba the walk is the plain one")
    assert prose_jit.load() and prose_jit.contrast_kernel() is not None
    return prose_jit.contrast_kernel()


@pytest.fixture(scope="module")
def background(rows) -> Background:
    found = Background.build((r["prompt"], build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows)
    assert found is not None
    return found


def _both(background: Background, kernel: Any, response: Any, own: int | None, task: frozenset[str]) -> None:
    args = (own, task, contrast.MIN_RARE_UNITS * background.unseen, contrast.MIN_OUTRANK_COVER)
    walk = background.walk()
    order, values, best_i, best, similar = walk.run(kernel, response, *args)
    with _round_11():
        order_11, values_11, best_i_11, best_11, similar_11 = walk.run(kernel, response, *args)
    assert np.array_equal(order, order_11) and np.array_equal(values, values_11)
    assert (best_i, best, similar) == (best_i_11, best_11, similar_11)


def test_crafted_unit_sets_walk_alike(background, kernel) -> None:
    first, second = background.units[0], background.units[1]
    cases: list[Any] = [
        set(),
        frozenset(),
        {"zzzzqq", "xqxqxq"},  # no unit the background knows
        set(first),
        frozenset(first | second),
        set(first) | {"zzzzqq", "花园", "城市", "garten", "jardín"},  # known beside unknown, other scripts
        {u for found in background.units[:40] for u in found},  # many prompts met at once
    ]
    for response in cases:
        for own in (None, 0, 1):
            task = background.units[own] if own is not None else frozenset()
            _both(background, kernel, response, own, task)


def test_labelled_responses_walk_alike(rows, background, kernel) -> None:
    rng = random.Random(12)
    checked = 0
    for row in rows:
        found = relevance.units(row["response"][: relevance.MAX_RELEVANCE_CHARS])
        for other in [row, *rng.sample(rows, 2)]:
            checkers = tuple(build_checkers(other["instruction_id_list"], other["kwargs"]))
            task = relevance.task_units(other["prompt"], checkers).units
            _both(background, kernel, found, background.index.get(other["prompt"]), task)
            checked += 1
    assert checked == 3 * len(rows)


def test_whole_verdicts_either_way(rows, kernel) -> None:
    verifiers = _newest_training_ids(rows)
    cases = list(_cases(rows, 1))[::4]  # (a quarter of the cases, every class of them)
    refused = 0
    for name, verifier in verifiers.items():
        now = [verifier.verify(task, response) for task, response in cases]
        with _round_11():
            before = [verifier.verify(task, response) for task, response in cases]
        assert [v.model_dump() for v in now] == [v.model_dump() for v in before], name
        refused += sum(v.details.get("rejected") == relevance.OFF_TOPIC for v in now)
    assert refused > 20  # the gate refused some: the walk's picks were read
