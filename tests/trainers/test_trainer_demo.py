"""The demo: from one warm start, RL with the verifier's reward must help and a random reward
must not."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")

from rlvr_envs import Task
from rlvr_trainers.demo import ABSTENTION, DemoSettings, any_answer_reward, habit_pairs, random_reward, run_demo


def test_random_reward_ignores_the_completion():
    fn = random_reward(0)
    rewards = fn(prompts=["p"] * 400, completions=["right"] * 200 + ["wrong"] * 200)
    assert set(rewards) == {0.0, 1.0}
    # Same completion, different rewards: nothing about the text reaches the reward.
    assert 0.35 < sum(rewards[:200]) / 200 < 0.65 and 0.35 < sum(rewards[200:]) / 200 < 0.65


def test_any_answer_reward_pays_right_and_wrong_answers_alike_but_not_declining():
    import rlvr_envs
    from rlvr_envs.adapters.routing import task_to_json

    env = rlvr_envs.make("math-arith", level=2, prompt_format="answer_tag")
    task = env.sample(1, seed=0)[0]
    completions = [env.gold_completion(task), "<answer>-999</answer>", ABSTENTION, "", "<answer>"]
    fn = any_answer_reward(env)
    rewards = fn(completions=completions, task=[task_to_json(task)] * 5, env_id=[env.env_id] * 5)
    assert rewards == [1.0, 1.0, 0.0, 0.0, 0.0]


class _Format:
    @staticmethod
    def render_answer(answer: str) -> str:
        return f"<answer>{answer}</answer>"


class _Env:
    prompt_format = _Format()


@pytest.mark.parametrize("rate", [0.25, 0.5, 0.6, 0.75])
def test_habit_pairs_make_up_the_requested_share(rate):
    tasks = [Task(id=str(i), prompt=f"What is {i} + 3?", answer=str(i + 3)) for i in range(400)]
    gold = [(t.prompt, f"<answer>{t.answer}</answer>") for t in tasks]
    abstain = habit_pairs(_Env(), tasks, rate, "abstain", lambda t: t.prompt)
    assert {c for _, c in abstain} == {ABSTENTION}
    share = len(abstain) / (len(abstain) + len(gold))
    assert abs(share - rate) < 0.04, share
    copy = habit_pairs(_Env(), tasks, rate, "copy", lambda t: t.prompt)
    # The copied answer is the question's first number, never the sum (3 is never 0).
    assert all(c == f"<answer>{p.split()[2]}</answer>" for p, c in copy)


def test_habit_settings_are_checked():
    task = [Task(id="0", prompt="What is 1 + 2?", answer="3")]
    assert habit_pairs(_Env(), task, 0.0, "abstain", lambda t: t.prompt) == []
    with pytest.raises(SystemExit, match="below 1"):
        habit_pairs(_Env(), task, 1.0, "abstain", lambda t: t.prompt)
    with pytest.raises(SystemExit, match="habit must be one of"):
        habit_pairs(_Env(), task, 0.5, "ramble", lambda t: t.prompt)


def test_verifier_reward_helps_and_random_reward_does_not(tmp_path):
    # The demo's own warm start, then a shortened schedule for both runs: 40 RL steps, 64
    # held-out tasks x 4 samples. In the full demo pass@1 has gained about 35 points by step 40.
    settings = DemoSettings(
        out_dir=str(tmp_path),
        profile_pool=64,
        profile_samples=4,
        rl_steps=40,
        heldout=64,
        eval_k=4,
        eval_every=0,
        control=True,
        controls=("random",),  # the any-answer control is covered by its own test and by make demo
    )
    summary = run_demo(settings, quiet=True)
    control, real = summary["control"], summary
    assert real["before"]["n_tasks"] == 64
    # The warm start must leave room to improve, or neither assertion could fail.
    assert real["before"]["pass@1"] < 0.5 and control["before"]["pass@1"] < 0.5
    control_gain = control["after"]["pass@1"] - control["before"]["pass@1"]
    real_gain = real["after"]["pass@1"] - real["before"]["pass@1"]
    # A random reward's updates are noise: the answer-or-decline choice drifts a few points
    # either way (-9 to +7 over 120 steps in the README's seeds), never by the verifier's gain.
    assert control_gain <= 0.10, control
    assert real_gain >= 0.20, (real["before"], real["after"])
    assert real_gain >= control_gain + 0.15


# -- the carry task (--task carry): RL must teach carrying, no injected habit ---------------


def test_carries_counts_column_carries():
    from rlvr_trainers.demo_carry import carries

    assert [carries(123, 456), carries(15, 7), carries(999, 1), carries(450, 550), carries(0, 0)] == [0, 1, 3, 2, 0]
    # Against the column-by-column definition on a grid of pairs.
    for a in range(0, 1000, 37):
        for b in range(0, 1000, 41):
            da, db = f"{a:03d}"[::-1], f"{b:03d}"[::-1]
            carry = count = 0
            for x, y in zip(da, db):
                carry = int(int(x) + int(y) + carry >= 10)
                count += carry
            assert carries(a, b) == count, (a, b)


def test_carry_env_keeps_its_band_and_share():
    from rlvr_envs.errors import ConfigurationError
    from rlvr_trainers.demo_carry import CarryAdditionEnv, carries

    def operands(task):
        a, b = task.prompt.removeprefix("What is ").removesuffix("?").split(" + ")
        assert int(a) + int(b) == int(task.answer)
        return int(a), int(b)

    heavy = CarryAdditionEnv(min_carries=2).sample(300, seed=0)
    assert all(carries(*operands(t)) >= 2 for t in heavy)
    assert all(100 <= x <= 999 for t in heavy for x in operands(t))
    none = CarryAdditionEnv(max_carries=0).sample(200, seed=0)
    assert all(carries(*operands(t)) == 0 for t in none)
    mixed = CarryAdditionEnv(carry_share=0.25).sample(800, seed=0)
    share = sum(carries(*operands(t)) > 0 for t in mixed) / len(mixed)
    assert 0.19 < share < 0.31, share
    assert CarryAdditionEnv().verify(heavy[0], f"<answer>{heavy[0].answer}</answer>").passed
    assert not CarryAdditionEnv().verify(heavy[0], f"<answer>{int(heavy[0].answer) - 10}</answer>").passed
    for bad in ({"digits": 0}, {"min_carries": 4}, {"min_carries": 2, "max_carries": 1}, {"carry_share": 1.5}):
        with pytest.raises(ConfigurationError):
            CarryAdditionEnv(**bad)


def test_task_option_selects_the_carry_preset_and_flags_still_win():
    from rlvr_trainers.demo import TASKS, parse_args

    # make demo runs the carry task (issue 27: the honest story); the habit one is behind --task habit.
    carry = parse_args([])
    assert carry.task == "carry" and carry == parse_args(["--task", "carry"])
    for name, value in TASKS["carry"].items():
        assert getattr(carry, name) == value, name
    assert carry.habit_steps == 0 and carry.env.endswith(":CarryAdditionEnv")
    habit = parse_args(["--task", "habit"])
    assert habit.env == "math-arith" and habit.habit_steps > 0 and not habit.sft_env_kwargs
    mine = parse_args(["--task", "carry", "--out", "elsewhere", "--set", "habit_steps=5", 'sft_env_kwargs="{}"'])
    assert (mine.out_dir, mine.habit_steps, mine.sft_env_kwargs) == ("elsewhere", 5, "{}")


def test_carry_task_runs_end_to_end_on_a_tiny_schedule(tmp_path):
    from rlvr_trainers.demo import parse_args

    settings = parse_args(["--task", "carry", "--out", str(tmp_path), "--no-control"])
    settings.sft_steps, settings.sft_tasks, settings.profile_pool, settings.profile_samples = 5, 200, 8, 2
    settings.rl_steps, settings.heldout, settings.eval_k, settings.eval_every = 2, 8, 2, 0
    summary = run_demo(settings, quiet=True)
    assert summary["env_id"] == "CarryAdditionEnv" and summary["before"]["n_tasks"] == 8
    assert (tmp_path / "demo_summary.json").exists()


def test_every_plot_of_a_demo_run_names_the_run(tmp_path, monkeypatch):
    """curves.png had no title (issue 27): a reader could not tell which task, seed and settings drew it."""
    import matplotlib.pyplot as plt

    from rlvr_trainers.demo import parse_args

    titles: list[str] = []
    close = plt.close

    def keep_title(fig=None):
        if fig is not None and getattr(fig, "_suptitle", None) is not None:
            titles.append(fig._suptitle.get_text())
        elif fig is not None:
            titles.append(fig.axes[0].get_title())
        close(fig)

    monkeypatch.setattr(plt, "close", keep_title)
    settings = parse_args(["--out", str(tmp_path), "--seed", "3", "--set", 'controls=["random"]'])
    settings.sft_steps, settings.sft_tasks, settings.profile_pool, settings.profile_samples = 5, 200, 8, 2
    settings.rl_steps, settings.heldout, settings.eval_k, settings.eval_every = 2, 8, 2, 0
    run_demo(settings, quiet=True)
    curves = [t for t in titles if "control" in t or "DAPO" in t]
    assert len(curves) == 2, titles
    for title in titles:
        title = " ".join(title.split())  # long titles are wrapped to fit the figure
        assert "--task carry" in title and "--seed 3" in title and "RL 2 steps" in title, title
