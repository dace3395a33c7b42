"""Scoring flaws of reasoning-gym 0.1.25 stay fixed; partial credit, levels, configs, filter."""

from __future__ import annotations

import pytest

import rlvr_envs
from rlvr_envs import Reason, Task
from rlvr_reasoning_gym import generation
from rlvr_reasoning_gym.blocklist import blocked_words_in, is_clean


def _env(name: str, **kwargs) -> rlvr_envs.Env:
    return rlvr_envs.make(f"rg-{name}", isolation="inline", **kwargs)


def _first_task(env: rlvr_envs.Env, predicate=lambda gold: True, tries: int = 40) -> Task:
    for i in range(tries):  # one at a time: some generators (sokoban) are slow
        task = env.sample(1, seed=11 + i)[0]
        if predicate(env.answer_text(task)):
            return task
    raise AssertionError("no task matched")


def _payload_task(name: str, answer: str, metadata: dict | None = None) -> Task:
    payload = {"dataset": name, "answer": answer, "metadata": metadata or {}, "level": None, "overrides": {}}
    return Task(id=f"hand-{name}", prompt="(hand-written)", answer=payload)


def _rg_score(task: Task, answer: str) -> float:
    p = task.answer
    entry = {"question": task.prompt, "answer": p["answer"], "metadata": p["metadata"]}
    return generation.score(p["dataset"], p["level"], p["overrides"], answer, entry)


# Each row: dataset, how to corrupt the gold answer, and whether reasoning-gym pays it 1.0.
FLAWS = [
    ("gsm_symbolic", lambda g: f"{g} 12345", True),
    ("game_of_life_halting", lambda g: "True" if g == "False" else "False", True),
    ("knights_knaves", lambda g: f"{g} Also maybe the opposite.", True),
    ("sokoban", lambda g: f"{g} (I am not sure)", True),
    ("survo", lambda g: f"the grid might be {g} or not", True),
    ("quantum_lock", lambda g: f"{g} → A → B", None),
    ("chain_sum", lambda g: f"{g} or {int(g) + 1}", False),
    ("spell_backward", lambda g: f"{g} reversed", False),
    ("number_sorting", lambda g: g.replace("'", "").replace(".", "5."), None),
]


@pytest.mark.parametrize(("name", "corrupt", "rg_pays_full"), FLAWS, ids=[f[0] for f in FLAWS])
def test_known_scorer_flaws_score_zero(name, corrupt, rg_pays_full):
    env = _env(name)
    task = _first_task(env)
    bad = corrupt(env.answer_text(task))
    verdict = env.verify(task, env.prompt_format.render_answer(bad))
    assert not verdict.passed and verdict.reward == 0.0 and verdict.reason is Reason.WRONG
    if rg_pays_full:  # documents why the dataset is patched (fails if reasoning-gym changes)
        assert _rg_score(task, bad) == 1.0


def test_gsm_symbolic_accepts_a_correct_negative_answer():
    env = _env("gsm_symbolic")
    task = _payload_task("gsm_symbolic", "-12")
    assert env.verify(task, "<answer>-12</answer>").passed
    assert not env.verify(task, "<answer>12</answer>").passed
    assert _rg_score(task, "-12") < 1.0  # reasoning-gym marks it wrong


def test_partial_credit_only_when_asked():
    strict, lenient = _env("spell_backward"), _env("spell_backward", partial_credit=True)
    task = _first_task(strict, lambda g: len(g) >= 5)
    gold = strict.answer_text(task)
    near = gold[:-1] + ("a" if gold[-1] != "a" else "b")
    assert strict.verify(task, f"<answer>{near}</answer>").reward == 0.0
    partial = lenient.verify(task, f"<answer>{near}</answer>")
    assert 0.0 < partial.reward < 1.0 and not partial.passed
    assert lenient.verify(task, f"<answer>{gold}</answer>").reward == 1.0


def test_partial_credit_never_pays_a_scorer_flaw():
    env = _env("knights_knaves", partial_credit=True)
    task = _first_task(env)
    # The clauses in another order (not the gold's text: an answer holding the whole gold beside
    # other text is a hedge, refused before any scorer), then junk reasoning-gym ignores.
    clauses = env.answer_text(task).split(", and ")
    junk = f"{', and '.join(reversed(clauses))} Or the reverse."
    verdict = env.verify(task, f"<answer>{junk}</answer>")
    assert verdict.reward == 0.0 and verdict.details["rg_score"] == 1.0
    hedge = env.verify(task, f"<answer>{env.answer_text(task)} Or the reverse.</answer>")
    assert hedge.reward == 0.0 and hedge.details["partial"].startswith("refused")
    halting = _env("game_of_life_halting", partial_credit=True)
    task = _first_task(halting)
    wrong = "True" if halting.answer_text(task) == "False" else "False"
    assert halting.verify(task, f"<answer>{wrong}</answer>").reward == 0.0


def test_unsafe_scorers_never_see_model_text(monkeypatch):
    envs = [_env(name, partial_credit=True) for name in ("countdown", "binary_matrix", "simple_integration")]
    tasks = [_first_task(env) for env in envs]
    calls = []
    monkeypatch.setattr(generation, "score", lambda *a, **k: calls.append(a) or 0.5)
    for hostile in ("__import__('os').system('echo pwned')", "(lambda: 1)()", "x.__class__", "9**9**9**9"):
        for env, task in zip(envs, tasks):
            assert env.verify(task, f"<answer>{hostile}</answer>").reward == 0.0
    assert calls == []


def test_levels_change_the_config_and_appear_on_tasks():
    env = _env("chain_sum", level=1)
    easy = env.sample(3, seed=1)
    env.set_level(3)
    hard = env.sample(3, seed=1)
    assert {t.difficulty.level for t in easy} == {1} and {t.difficulty.level for t in hard} == {3}
    assert easy[0].difficulty.config != hard[0].difficulty.config
    assert hard[0].difficulty.config["dataset"] == "chain_sum"
    default = _env("chain_sum")
    assert default.level is None and default.sample(1, seed=1)[0].difficulty.level is None
    with pytest.raises(ValueError):
        env.set_level(env.max_level + 1)


def test_config_fields_pass_through_and_bad_ones_fail_clearly():
    env = _env("chain_sum", min_terms=5, max_terms=5)
    task = env.sample(1, seed=3)[0]
    assert task.difficulty.config["min_terms"] == 5 and task.prompt.count("+") + task.prompt.count("-") >= 4
    with pytest.raises(ValueError, match="no config field"):
        _env("chain_sum", no_such_field=1)
    with pytest.raises(ValueError, match="invalid config"):
        _env("chain_sum", min_terms=9, max_terms=2)


def test_cut_levels():
    assert _env("caesar_cipher").max_level == 2
    knight = _env("knight_swap")
    assert knight.max_level is None
    with pytest.raises(TypeError):
        knight.set_level(1)


def test_word_filter_redraws_tasks_with_blocked_words(monkeypatch):
    from importlib import resources

    words = resources.files("reasoning_gym.data").joinpath("words3to10.txt").read_text()
    blocked = blocked_words_in(words)
    assert blocked, "the blocklist no longer matches anything in reasoning-gym's word list"
    real = generation.generate_entry
    calls = {"n": 0}

    def first_one_dirty(name, level, overrides, seed):
        entry = real(name, level, overrides, seed)
        calls["n"] += 1
        if calls["n"] == 1:
            entry = {**entry, "question": f"Spell this word backward: {blocked[0]}", "answer": blocked[0][::-1]}
        return entry

    monkeypatch.setattr(generation, "generate_entry", first_one_dirty)
    task = _env("spell_backward").sample(1, seed=5)[0]
    assert calls["n"] == 2 and is_clean(task.prompt, task.answer["answer"])


def test_composite_mixes_by_weight_and_judges_each_task_by_its_dataset():
    env = rlvr_envs.make(
        "rg-composite", datasets={"chain_sum": 1.0, "word_sorting": 1.0, "gcd": 0.0}, isolation="inline"
    )
    tasks = env.sample(20, seed=0)
    names = {t.metadata["dataset"] for t in tasks}
    assert names == {"chain_sum", "word_sorting"}
    for task in tasks:
        assert env.verify(task, env.gold_completion(task)).passed
        assert not env.verify(task, "<answer>I don't know</answer>").passed
    with pytest.raises(ValueError):
        rlvr_envs.make("rg-composite", datasets={"boxnet": 1.0})


def test_pool_agrees_with_inline():
    env = rlvr_envs.make("rg-countdown", size=4, isolation="pool")  # "auto" would run these here too
    tasks = list(env.tasks)
    completions = [env.gold_completion(t) for t in tasks[:2]] + ["<answer>1+1</answer>", "<answer>x</answer>"]
    pooled = env.verify_batch(tasks, completions)
    inline = [env.verify(t, c) for t, c in zip(tasks, completions)]
    assert pooled == inline
    assert [v.passed for v in pooled] == [True, True, False, False]


def test_set_level_is_all_or_nothing():
    env = _env("chain_sum", level=2)
    before = (env.level, dict(env.config))
    with pytest.raises(ValueError):
        env.set_level(99)
    assert (env.level, env.config) == before


def _datasets_with_levels() -> list[str]:
    from rlvr_reasoning_gym.catalog import DATASETS

    return [name for name in DATASETS if generation.max_level(name)]


@pytest.mark.slow
@pytest.mark.parametrize("name", _datasets_with_levels())
def test_hardest_level_gold_scores_one_and_hedges_zero(name):
    env = _env(name)
    env.set_level(env.max_level)
    task = env.sample(1, seed=3)[0]
    assert task.difficulty.level == env.max_level
    assert env.verify(task, env.gold_completion(task)).passed
    for bad in (env.hedged_completion(task), "<answer>I don't know</answer>"):
        assert env.verify(task, bad).reward == 0.0


def test_the_core_level_curriculum_moves_rg_levels_with_the_pass_rate():
    from rlvr_envs.difficulty import LevelCurriculum

    env = _env("chain_sum")
    assert env.level is None and not hasattr(env, "step_level")  # the family has no curriculum of its own
    curriculum = LevelCurriculum(env, target=(0.2, 0.8), window=4)
    assert env.level == 1  # entering the curriculum starts at the easiest level
    assert curriculum.update(0.9, count=4) == 2 and env.level == 2
    assert {t.difficulty.level for t in env.sample(3, seed=0)} == {2}
    assert curriculum.update(0.5, count=4) is None and env.level == 2
    assert curriculum.update(0.1, count=4) == 1
    assert curriculum.update(0.0, count=4) is None and env.level == 1
    for _ in range(env.max_level + 2):
        curriculum.update(1.0, count=4)
    assert env.level == env.max_level
    with pytest.raises(ValueError):
        curriculum.update(1.5)
    mix = rlvr_envs.make("rg-composite", datasets=["chain_sum", "gcd"], isolation="inline", level=1)
    assert LevelCurriculum(mix, window=1).observe([True]) == 2
    assert {t.difficulty.level for t in mix.sample(4, seed=0)} == {2}
