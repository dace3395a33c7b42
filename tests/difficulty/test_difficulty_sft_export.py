"""`rlvr-envs sft-export` on a real profile store (math-arith profiled by a scripted policy).

Checked: the file loads with `datasets` and has exactly TRL's conversational language-modelling
column (`messages`: the prompt format's system/user turns, then the completion as the assistant
turn; TRL's own `is_conversational` agrees); only verified-correct samples are kept, at most k per
task, the shortest first when asked, none over the length cap, duplicates (after normalising
whitespace and Unicode) dropped; `--sample` samples and exports in one command; the summary,
its JSON and the length histogram are written.
"""

from __future__ import annotations

import json
import random
import re

import pytest

import rlvr_envs
from rlvr_envs.cli import main
from rlvr_envs.difficulty.profile import profile_env
from rlvr_envs.difficulty.sft import normalised, sft_rows
from rlvr_envs.samplers.base import FunctionSampler, SamplingParams

_SUM = re.compile(r"What is (\d+) ([+-]) (\d+)\?")
N, TASKS = 8, 20


def _answer(prompt: str, seed: int | None, index: int, r1: bool) -> str:
    found = _SUM.search(prompt)
    assert found is not None, prompt
    a, op, b = found.groups()
    total = int(a) + int(b) if op == "+" else int(a) - int(b)
    rng = random.Random(f"{prompt}|{seed}|{index}")
    value = total if index % 4 != 3 else total + rng.choice([-3, 7])  # every fourth sample is wrong
    if index == 5:  # the same text as sample 1 but for spacing and a full-width digit: a duplicate
        value = total
        body = "The  sum  is\u3000" + f"\\boxed{{{value}}}."
    else:
        body = "Let me add the numbers. " * (index % 3) + f"The sum is \\boxed{{{value}}}."
    if index == 1:
        body = "The sum is " + f"\\boxed{{{value}}}."
    return f"<think>{body}</think> <answer>{value}</answer>" if r1 else body


def make_sampler(params: SamplingParams | None = None, r1: bool = False) -> FunctionSampler:
    name = "sft-scripted-r1" if r1 else "sft-scripted"
    return FunctionSampler(lambda text, n, seed: [_answer(text, seed, i, r1) for i in range(n)], name, params)


@pytest.fixture()
def store(tmp_path):
    db = tmp_path / "profiles.sqlite"
    env = rlvr_envs.make("math-arith", level=2)
    profile_env(env, make_sampler(), db, n=N, limit=TASKS, progress=False)
    return db


def _load(path):
    datasets = pytest.importorskip("datasets")
    return datasets.load_dataset("json", data_files=str(path), split="train")


def test_the_export_is_trl_conversational_and_keeps_only_verified_samples(store, tmp_path, capsys):
    out = tmp_path / "sft.jsonl"
    argv = ["sft-export", "math-arith", "--arg", "level=2", "--db", str(store), "--out", str(out)]
    assert main([*argv, "--per-task", "2", "--shortest-first"]) == 0
    printed = capsys.readouterr().out
    assert f"tasks: {TASKS} covered of {TASKS} stored" in printed
    data = _load(out)
    assert data.column_names == ["messages"] and len(data) == 2 * TASKS
    from trl.data_utils import is_conversational

    env = rlvr_envs.make("math-arith", level=2)
    by_prompt = {env.prompt_format.user_message(t.prompt): t for t in env.tasks[:TASKS]}
    per_task: dict[str, list[str]] = {}
    for example in data:
        assert is_conversational(example)
        turns = example["messages"]
        assert [t["role"] for t in turns] == ["user", "assistant"]  # plain has no system prompt
        assert all(set(t) == {"role", "content"} for t in turns)
        task = by_prompt[turns[0]["content"]]
        assert env.verify(task, turns[1]["content"]).passed
        per_task.setdefault(task.fingerprint, []).append(turns[1]["content"])
    for kept in per_task.values():  # the two shortest correct ones, different after normalising
        assert len(kept) == 2 and len(kept[0]) <= len(kept[1]) and normalised(kept[0]) != normalised(kept[1])
        assert "Let me add" not in kept[0]
    summary = json.loads((tmp_path / "sft.summary.json").read_text())
    assert summary["samples_written"] == 2 * TASKS and summary["samples_per_task"] == {"2": TASKS}
    assert summary["dropped"]["duplicates"] == 3 * TASKS  # samples 1, 5 and 6 repeat sample 0, normalised
    assert (tmp_path / "sft.lengths.png").stat().st_size > 1000


def test_dedup_length_cap_and_per_task_cap(store):
    env = rlvr_envs.make("math-arith", level=2)
    rows, summary = sft_rows(store, env, per_task=N)
    correct_per_task = 6  # indices 3 and 7 are wrong
    assert summary.samples_correct == correct_per_task * TASKS
    # correct samples 0, 1, 2, 4, 5, 6: 1, 5 (other spacing, a full-width space) and 6 are 0's text again
    assert summary.dropped_duplicates == 3 * TASKS and len(rows) == summary.samples_written == 3 * TASKS
    undeduped, raw = sft_rows(store, env, per_task=N, dedup=False)
    assert len(undeduped) == correct_per_task * TASKS and raw.dropped_duplicates == 0
    capped, cut = sft_rows(store, env, per_task=N, max_chars=40)
    assert all(len(r["messages"][-1]["content"]) <= 40 for r in capped) and cut.dropped_too_long > 0
    one, single = sft_rows(store, env, per_task=1)
    assert len(one) == TASKS and single.dropped_over_k > 0
    with pytest.raises(ValueError):
        sft_rows(store, env, per_task=0)


def test_a_format_with_a_system_prompt_gives_a_system_turn(tmp_path):
    db = tmp_path / "r1.sqlite"
    env = rlvr_envs.make("math-arith", level=2, prompt_format="r1")
    profile_env(env, make_sampler(r1=True), db, n=4, limit=5, progress=False)
    rows, summary = sft_rows(db, env, per_task=4)
    assert rows and summary.prompt_format == "r1"
    for row in rows:
        roles = [t["role"] for t in row["messages"]]
        assert roles == ["system", "user", "assistant"]
        assert row["messages"][0]["content"] == env.prompt_format.system_prompt


def test_sample_then_export_in_one_command(tmp_path, capsys):
    db, out = tmp_path / "fresh.sqlite", tmp_path / "fresh.jsonl"
    factory = "tests.difficulty.test_difficulty_sft_export:make_sampler"
    argv = ["sft-export", "math-arith", "--arg", "level=2", "--db", str(db), "--out", str(out), "--sample"]
    argv += ["--sampler", "python", "--model", factory, "-n", "4", "--limit", "6", "--no-progress"]
    assert main(argv) == 0
    assert len(_load(out)) > 0 and "samples generated and verified: 24" in capsys.readouterr().out


def test_a_wrong_output_or_a_missing_store_is_refused_before_any_work(tmp_path, capsys):
    assert main(["sft-export", "math-arith", "--db", str(tmp_path / "none.sqlite"), "--out", "x.csv"]) == 1
    assert "*.jsonl" in capsys.readouterr().err
    assert main(["sft-export", "math-arith", "--db", str(tmp_path / "none.sqlite"), "--out", "x.jsonl"]) == 1
    assert "--sample" in capsys.readouterr().err
    assert main(["sft-export", "math-arith", "--out", str(tmp_path / "y.jsonl"), "--sample"]) == 1
    assert "--sampler and --model" in capsys.readouterr().err
