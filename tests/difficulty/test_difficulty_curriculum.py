"""Curricula: weighting toward a pass-rate band, and stepping procedural levels."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from rlvr_envs import PassRate, Task, Verdict
from rlvr_envs.difficulty.curriculum import LevelCurriculum, PassRateCurriculum, band_weight
from tests.difficulty.helpers_difficulty import LeveledAddEnv
from tests.helpers.toy import ToyAddEnv


def test_band_weight_is_one_inside_and_falls_off_outside():
    band = (0.2, 0.8)
    assert band_weight(0.5, band) == band_weight(0.2, band) == band_weight(0.8, band) == 1.0
    assert band_weight(0.1, band) < 1.0
    assert band_weight(0.0, band) < band_weight(0.1, band)
    assert band_weight(1.0, band) == pytest.approx(band_weight(0.0, band))
    assert band_weight(0.0, band, floor=0.05) == 0.05
    assert band_weight(None, band, unknown=0.3) == 0.3


def tasks_with_rates(rates):
    return [Task(id=f"t{i}", prompt=f"q{i}", answer=i) for i in range(len(rates))]


def test_pass_rate_curriculum_samples_mostly_from_the_band():
    rates = [0.0] * 40 + [0.5] * 10 + [1.0] * 40
    tasks = tasks_with_rates(rates)
    curriculum = PassRateCurriculum(
        tasks,
        (0.2, 0.8),
        rates={t.fingerprint: PassRate(passes=int(r * 8), samples=8, sampler="s") for t, r in zip(tasks, rates)},
        seed=0,
    )
    draws = Counter(curriculum.rate(t) for t in curriculum.sample(2000))
    assert draws[0.5] / 2000 > 0.85  # 10 of 90 tasks, but most of the draws
    assert draws[0.0] > 0  # the floor keeps every task reachable


def test_observations_move_a_task_into_and_out_of_favour():
    tasks = tasks_with_rates([0, 0])
    curriculum = PassRateCurriculum(
        tasks, (0.2, 0.8), rates={tasks[0].fingerprint: 0.0, tasks[1].fingerprint: 0.5}, decay=0.5
    )
    assert curriculum.weights()[0] < 0.1
    curriculum.observe(tasks[0], [1.0, 0.0, 1.0, 0.0])
    assert curriculum.rate(tasks[0]) == pytest.approx(2 / 4.5)
    assert curriculum.weights()[0] == 1.0
    ok = Verdict.correct("1")
    for _ in range(6):
        curriculum.observe(tasks[1], [ok, ok])
    assert curriculum.rate(tasks[1]) > 0.95 and curriculum.weights()[1] < 0.1
    with pytest.raises(TypeError):
        curriculum.observe(tasks[1], ["yes"])


def test_unmeasured_tasks_take_the_unknown_weight():
    tasks = tasks_with_rates([0, 0])
    curriculum = PassRateCurriculum(tasks, (0.2, 0.8), unknown=0.25)
    assert curriculum.weights() == [0.25, 0.25]
    with pytest.raises(ValueError):
        PassRateCurriculum([], (0.2, 0.8))
    with pytest.raises(ValueError):
        PassRateCurriculum(tasks, (0.9, 0.1))


def simulate(curriculum: LevelCurriculum, skill: dict[int, float], steps: int, seed: int = 0) -> list[int]:
    """A policy whose pass rate depends only on the level; returns the level after each step."""
    rng = random.Random(seed)
    levels = []
    for _ in range(steps):
        curriculum.observe([rng.random() < skill[curriculum.level] for _ in range(8)])
        levels.append(curriculum.level)
    return levels


def test_level_curriculum_climbs_to_the_level_that_fits_and_stays():
    env = LeveledAddEnv(size=4)
    curriculum = LevelCurriculum(env, (0.3, 0.7), window=64)
    levels = simulate(curriculum, {1: 0.95, 2: 0.9, 3: 0.5, 4: 0.05}, steps=200)
    assert levels[-1] == 3 and env.level == 3
    assert levels[-150:].count(3) == 150  # stable once in the band
    assert [h["to"] for h in curriculum.history] == [2, 3]
    # The env's tasks now come from level 3 (3-digit operands at most, some above 99).
    assert any(t.answer > 198 for t in env.tasks)


def test_level_curriculum_steps_down_and_respects_its_bounds():
    env = LeveledAddEnv(size=4, level=4)
    curriculum = LevelCurriculum(env, (0.3, 0.7), window=16, min_level=2)
    levels = simulate(curriculum, {1: 1.0, 2: 0.0, 3: 0.0, 4: 0.0}, steps=40)
    assert min(levels) == 2 and levels[-1] == 2
    top = LevelCurriculum(LeveledAddEnv(size=4), (0.3, 0.7), window=4)
    simulate(top, {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0}, steps=20)
    assert top.level == 4
    state = top.state_dict()
    again = LevelCurriculum(LeveledAddEnv(size=4), (0.3, 0.7), window=4)
    again.load_state_dict(state)
    assert again.level == 4 and again.seen == top.seen


def test_level_curriculum_refuses_envs_without_levels():
    with pytest.raises(TypeError, match="no difficulty levels"):
        LevelCurriculum(ToyAddEnv(size=3), (0.2, 0.8))
    with pytest.raises(ValueError):
        LevelCurriculum(LeveledAddEnv(size=3), (0.2, 0.8), window=0)


def test_level_curriculum_takes_batch_pass_rates_from_a_trainer():
    env = LeveledAddEnv(size=4)
    curriculum = LevelCurriculum(env, (0.3, 0.7), window=64)
    assert curriculum.update(0.9, count=32) is None  # half a window: no decision yet
    assert curriculum.running_rate == 0.9
    assert curriculum.update(0.8, count=32) == 2  # mean 0.85 over a full window
    assert curriculum.running_rate is None
    for _ in range(63):
        assert curriculum.update(0.5) is None  # one observation per call by default
    assert curriculum.update(0.5) is None and curriculum.level == 2  # in band: stays
    with pytest.raises(ValueError):
        curriculum.update(1.5)
