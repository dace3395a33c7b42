"""TRL and verl adapters on real envs: TRL's calling convention, routing, None on verifier errors."""

from __future__ import annotations

import pytest

import rlvr_envs
from rlvr_envs.adapters.routing import EnvRouter, RoutingError, task_from_json, task_to_json
from rlvr_envs.adapters.trl import build_dataset, build_rows, completion_text, reward_function, split_counts
from rlvr_envs.adapters.verl import (
    compute_score,
    compute_score_batch,
    compute_score_detailed,
    configure,
    export_parquet,
)
from tests.helpers.data import read_jsonl, shared_path
from tests.helpers.toy import HangingVerifier, ToyAddEnv


@pytest.fixture(scope="module")
def arith():
    return rlvr_envs.make("math-arith", level=3)


@pytest.fixture(scope="module")
def gsm8k():
    return rlvr_envs.make("math-gsm8k", path=shared_path("gsm8k_test.jsonl"), limit=30)


def _completions(env, tasks):
    """Gold and a sure-wrong completion per task, with the expected reward."""
    out = []
    for task in tasks:
        out.append((task, env.gold_completion(task), 1.0))
        out.append((task, env.prompt_format.render_answer("-987654321"), 0.0))
    return out


def test_reward_function_follows_trl_convention(arith):
    rows = build_rows(arith, 6, seed=1)
    fn = reward_function("math-arith")
    assert fn.__name__ == "reward_math_arith_v4"
    tasks = [task_from_json(r["task"]) for r in rows]
    cases = _completions(arith, tasks)
    by_id = {r["task_id"]: r for r in rows}
    kwargs = {
        "prompts": [by_id[t.id]["prompt"] for t, _, _ in cases],
        "completions": [c for _, c, _ in cases],
        "completion_ids": [[1] * 5 for _ in cases],
        "task": [task_to_json(t) for t, _, _ in cases],
        "env_id": [by_id[t.id]["env_id"] for t, _, _ in cases],
        "task_id": [t.id for t, _, _ in cases],
        "trainer_state": object(),  # TRL passes extra keywords; they must be accepted and ignored
        "log_metric": lambda *a: None,
    }
    rewards = fn(**kwargs)
    assert rewards == [expected for _, _, expected in cases]
    assert all(isinstance(r, float) for r in rewards)
    assert [v.reason.value for v in fn.last_verdicts][:2] == ["ok", "wrong"]


def test_conversational_completions_are_read(arith):
    task = arith.sample(1, seed=3)[0]
    gold = arith.gold_completion(task)
    fn = reward_function(arith)
    conv = [[{"role": "assistant", "content": gold}], [{"role": "assistant", "content": "no idea"}], []]
    assert fn(prompts=[""] * 3, completions=conv, task=[task_to_json(task)] * 3) == [1.0, 0.0, 0.0]
    assert completion_text([{"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}]) == "ab"


def test_hostile_completions_never_raise(arith):
    task = arith.sample(1, seed=4)[0]
    fn = reward_function(arith)
    hostile = [
        "",
        "\x00" * 1000,
        "\\boxed{" * 5000,
        "<answer>" + "9" * 100_000 + "</answer>",
        None,
        42,
        "x" * 3_000_000,
    ]
    rewards = fn(prompts=[""] * len(hostile), completions=hostile, task=[task.model_dump_json()] * len(hostile))
    assert rewards == [0.0] * len(hostile)


def test_verifier_error_gives_none_and_timeout_gives_zero():
    env = ToyAddEnv(verifier=HangingVerifier())
    task = env.sample(1, seed=0)[0]
    fn = reward_function(env)
    completions = [f"<answer>{task.answer}</answer>", "raise", "hang", "<answer>-1</answer>"]
    rewards = fn(prompts=[""] * 4, completions=completions, task=[task_to_json(task)] * 4)
    # A broken verifier says nothing about the completion: TRL leaves None out of the update.
    assert rewards == [1.0, None, 0.0, 0.0]
    assert fn.reason_counts["verifier_error"] == 1 and fn.reason_counts["timeout"] == 1


def test_mixed_dataset_routes_rows_by_env_id(arith, gsm8k):
    rows = build_rows([arith, gsm8k], 20, weights=[3, 1], seed=0)
    counts = {arith.env_id: 0, gsm8k.env_id: 0}
    for r in rows:
        counts[r["env_id"]] += 1
    assert counts == {arith.env_id: 15, gsm8k.env_id: 5}
    fn = reward_function([arith, gsm8k])
    envs = {arith.env_id: arith, gsm8k.env_id: gsm8k}
    completions, expected = [], []
    for i, r in enumerate(rows):
        task = task_from_json(r["task"])
        env = envs[r["env_id"]]
        right = i % 2 == 0
        completions.append(env.gold_completion(task) if right else env.prompt_format.render_answer("-31337"))
        expected.append(1.0 if right else 0.0)
    columns = {k: [r[k] for r in rows] for k in ("task", "env_id", "task_id")}
    assert fn(prompts=[r["prompt"] for r in rows], completions=completions, **columns) == expected
    # An answer valid for one env must not be scored by the other env's verifier.
    with pytest.raises(RoutingError):
        reward_function(arith)(prompts=[""], completions=["x"], task=[rows[0]["task"]], env_id=["math-500-v1"])


def test_bare_and_versioned_ids_route_and_wrong_version_is_refused(arith):
    router = EnvRouter([arith])
    assert router.env_for("math-arith") is arith
    assert router.env_for("math-arith-v4") is arith
    assert router.env_for(None) is arith
    with pytest.raises(RoutingError):
        router.env_for("math-arith-v7")


def test_reward_function_needs_the_task_column(arith):
    with pytest.raises(KeyError, match="task"):
        reward_function(arith)(prompts=["p"], completions=["c"])


def test_shaping_adds_format_and_overlong_terms(arith):
    task = arith.sample(1, seed=5)[0]
    gold = arith.gold_completion(task)
    fn = reward_function(arith, format_weight=0.5, l_max=10, l_cache=4)
    rewards = fn(
        prompts=["", ""], completions=[gold, gold], completion_ids=[[0] * 3, [0] * 10], task=[task_to_json(task)] * 2
    )
    # 1 (correct) + 0.5 (format); the second is at l_max, so the soft penalty is -1.
    assert rewards == [1.5, 0.5]


def test_dataset_builder_emits_prompt_and_reward_columns(arith):
    ds = build_dataset(arith, 12, seed=2)
    assert set(ds.column_names) == {"prompt", "env_id", "task", "verifier", "task_id"}
    first = ds[0]
    task = task_from_json(first["task"])
    # The policy sees the env's messages and nothing else; the answer travels in the task column.
    assert first["prompt"] == arith.prompt_format.messages(task.prompt)
    assert task.answer is not None and first["env_id"] == "math-arith-v4"
    plain = build_rows(arith, 3, conversational=False)
    assert isinstance(plain[0]["prompt"], str)
    held = {task_from_json(r["task"]).fingerprint for r in build_rows(arith, 50, seed=9)}
    train = build_rows(arith, 100, seed=10, exclude=held)
    assert not held & {task_from_json(r["task"]).fingerprint for r in train}


def test_split_counts_sum_and_validate():
    assert split_counts(10, [1, 1, 1]) == [4, 3, 3]
    assert sum(split_counts(7, [0.2, 0.5, 0.3])) == 7
    with pytest.raises(ValueError):
        split_counts(5, [0, 0])


@pytest.mark.parametrize("which", ["arith", "gsm8k"])
def test_verl_export_round_trips_through_compute_score(tmp_path, which, request):
    import pyarrow.parquet as pq

    env = request.getfixturevalue(which)
    configure([env])
    path = export_parquet(env, tmp_path / f"{which}.parquet", n=12, seed=1)
    table = pq.read_table(path).to_pylist()
    assert len(table) == 12
    assert set(table[0]) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    assert table[0]["reward_model"]["style"] == "rule"
    sources, solutions, truths, extras, expected = [], [], [], [], []
    for row in table:
        task = task_from_json(row["extra_info"]["task"])
        assert row["prompt"][-1]["content"] == env.prompt_format.user_message(task.prompt)
        for text, want in ((env.gold_completion(task), 1.0), (env.prompt_format.render_answer("-4242"), 0.0)):
            sources.append(row["data_source"])
            solutions.append(text)
            truths.append(row["reward_model"]["ground_truth"])
            extras.append(row["extra_info"])
            expected.append(want)
    assert [compute_score(s, sol, gt, ei) for s, sol, gt, ei in zip(sources, solutions, truths, extras)] == expected
    assert [d["score"] for d in compute_score_batch(sources, solutions, truths, extras)] == expected
    detailed = compute_score_detailed(sources[0], solutions[0], truths[0], extras[0])
    assert detailed == {"score": 1.0, "acc": 1.0, "verifier_error": 0.0}


def test_verl_compute_score_with_ground_truth_only(gsm8k):
    # Rows written by another exporter carry only the answer; the env's verifier still applies.
    configure([gsm8k])
    rows = read_jsonl("gsm8k_test.jsonl")[:5]
    for row in rows:
        answer = row["answer"].split("####")[-1].strip().replace(",", "")
        assert compute_score("math-gsm8k", f"The answer is \\boxed{{{answer}}}.", answer) == 1.0
        assert compute_score("math-gsm8k", "The answer is \\boxed{-0.5}.", answer) == 0.0
