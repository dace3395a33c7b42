"""Rows that carry their task: TRL and verl verify an exported row with no dataset to be had."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

import rlvr_envs
import rlvr_envs.registration as registration
from rlvr_envs.adapters.routing import EnvRouter, RoutingError, task_from_json
from rlvr_envs.adapters.rows import SpecError, spec_from_value, verifier_from_spec, verifier_spec
from rlvr_envs.adapters.trl import build_rows, reward_function
from rlvr_envs.adapters.verl import export_parquet, ground_truth_text
from tests.helpers.data import REPO_ROOT, shared_path

END_PHRASE = "Is there anything else I can help with?"


@pytest.fixture(scope="module")
def math500():
    return rlvr_envs.make("math-500", path=shared_path("math500.jsonl"), limit=40)


@pytest.fixture(scope="module")
def ifeval_partial():
    rows = [
        {
            "key": 1,
            "prompt": "Write about tea. Finish with the phrase given, and no commas.",
            "instruction_id_list": ["startend:end_checker", "punctuation:no_comma"],
            "kwargs": [{"end_phrase": END_PHRASE}, {}],
        },
    ]
    return rlvr_envs.make("ifeval", data=rows, partial_credit=True)


@pytest.fixture
def no_data(monkeypatch):
    """Making any env, or loading any Hub dataset, fails: only the row itself is available."""
    made: list[str] = []

    def refuse(env_id, **kwargs):
        made.append(env_id)
        raise rlvr_envs.DataUnavailableError(f"no data for {env_id} in this test")

    monkeypatch.setattr(registration, "make", refuse)
    monkeypatch.setattr(rlvr_envs, "make", refuse, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    return made


def test_exported_rows_verify_with_no_env_and_no_data(math500, ifeval_partial, no_data):
    rows = build_rows([math500], 6, seed=3) + build_rows([ifeval_partial], 1)
    fn = reward_function()  # no env id: every row names its env and carries its verifier
    completions, expected = [], []
    for row in rows:
        task = task_from_json(row["task"])
        if row["env_id"].startswith("math-500"):
            completions += [f"So the answer is \\boxed{{{task.answer}}}.", "So the answer is \\boxed{-31337}."]
            expected += [1.0, 0.0]
        else:
            # One of two instructions followed: the row's partial_credit=True makes it 0.5 (the default would be 0).
            completions += [f"Tea is lovely, warm, and calming. {END_PHRASE}", f"Tea is lovely and warm. {END_PHRASE}"]
            expected += [0.5, 1.0]
    doubled = [r for r in rows for _ in range(2)]
    columns = {k: [r[k] for r in doubled] for k in ("task", "env_id", "verifier", "task_id")}
    assert fn(prompts=[r["prompt"] for r in doubled], completions=completions, **columns) == expected
    assert no_data == [], "verifying a self-contained row must never make an env"


def test_rows_without_a_verifier_column_still_fall_back_to_the_env(math500):
    rows = build_rows([math500], 2, seed=4)
    task = task_from_json(rows[0]["task"])
    fn = reward_function([math500])
    assert fn(prompts=[""], completions=[f"\\boxed{{{task.answer}}}"], task=[rows[0]["task"]]) == [1.0]


def test_spec_round_trips_every_family_verifier(math500, ifeval_partial):
    envs = [
        math500,
        ifeval_partial,
        rlvr_envs.make("math-arith", level=2),
        rlvr_envs.make("code-humaneval", data=str(shared_path("humaneval.jsonl")), limit=2),
    ]
    for env in envs:
        spec = json.loads(json.dumps(verifier_spec(env)))
        rebuilt = verifier_from_spec(env.env_id, spec)
        assert type(rebuilt) is type(env.verifier)
        assert rebuilt.__dict__ == env.verifier.__dict__


@pytest.mark.parametrize(
    "cls",
    [
        "os:system",
        "builtins:eval",
        "rlvr_envs.runtime.local.pool:VerificationPool",
        "rlvr_math.envs:Math500Env",
        "rlvr_code.verifier:CodeVerifier",
    ],
)
def test_a_spec_cannot_name_code_outside_the_env_family(math500, cls):
    spec = verifier_spec(math500)
    spec["class"] = cls
    with pytest.raises(SpecError):
        verifier_from_spec("math-500-v0", spec)
    spec = verifier_spec(math500)
    spec["state"]["config"]["__dataclass__"] = "subprocess:Popen"
    with pytest.raises(SpecError):
        verifier_from_spec("math-500-v0", spec)
    with pytest.raises(SpecError):
        spec_from_value("{not json")


def test_hostile_specs_are_refused_as_routing_errors(math500):
    task = math500.tasks[0]
    router = EnvRouter(None)
    for spec in (
        '{"v": 1, "class": "os:system", "state": {}}',
        '{"v": 99}',
        "[1, 2]",
        json.dumps({**verifier_spec(math500), "time_budget_s": 1e9}),
    ):
        with pytest.raises(RoutingError):
            router.verify([("math-500-v0", task, "\\boxed{1}", spec)])
    with pytest.raises(RoutingError, match="no environment named"):
        router.verify([("no-such-env-v0", task, "x", None)])


def test_concurrent_first_use_builds_an_env_once(monkeypatch):
    calls: list[str] = []
    real_make = registration.make
    barrier = threading.Barrier(8)

    def counting(env_id, **kwargs):
        calls.append(env_id)
        return real_make(env_id, **kwargs)

    monkeypatch.setattr(registration, "make", counting)
    router = EnvRouter(None)
    got = []

    def use():
        barrier.wait()
        got.append(router.env_for("math-arith"))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len({id(e) for e in got}) == 1


def test_verl_ground_truth_is_plain_text_with_the_structured_task_beside_it(tmp_path, math500, ifeval_partial):
    import pyarrow.parquet as pq

    rows = pq.read_table(export_parquet(math500, tmp_path / "m.parquet", n=5, seed=0)).to_pylist()
    for row in rows:
        task = task_from_json(row["extra_info"]["task"])
        assert row["reward_model"]["ground_truth"] == task.answer  # not '"15"'
        assert row["extra_info"]["env_id"] == math500.env_id and row["extra_info"]["verifier"]
    rows = pq.read_table(export_parquet(ifeval_partial, tmp_path / "i.parquet")).to_pylist()
    assert json.loads(rows[0]["reward_model"]["ground_truth"])["instruction_id_list"][0] == "startend:end_checker"
    assert ground_truth_text(15) == "15" and ground_truth_text("15") == "15"
    with pytest.raises(ValueError, match="parquet"):
        export_parquet(math500, tmp_path / "x.jsonl", n=2)


VERL_LOADER = textwrap.dedent(
    """
    # verl's own path, reproduced: verl/trainer/ppo/reward.py get_custom_reward_fn loads the file as a separate
    # module copy named "custom_module"; the naive reward manager reads the parquet through `datasets` and calls
    # compute_score(data_source=, solution_str=, ground_truth=, extra_info=) with extra_info["num_turns"] added.
    import importlib.util, json, sys
    from functools import partial

    def _call_with_kwargs(raw_fn, extra_kwargs, *args, **kwargs):
        return raw_fn(*args, **{**kwargs, **extra_kwargs})

    path, out, parquets = sys.argv[1], sys.argv[2], sys.argv[3:]
    spec = importlib.util.spec_from_file_location("custom_module", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["custom_module"] = module
    spec.loader.exec_module(module)
    compute_score = partial(_call_with_kwargs, getattr(module, "compute_score"), {})

    import datasets
    import rlvr_envs.registration as registration
    def refuse(env_id, **kw):
        raise RuntimeError("an env was made: the row was not self-contained")
    registration.make = refuse
    scores = []
    for parquet in parquets:
      for row in datasets.load_dataset("parquet", data_files=parquet)["train"]:
        extra = dict(row["extra_info"] or {})
        extra["num_turns"] = 1
        answer = row["reward_model"]["ground_truth"]
        for text in (f"The answer is \\\\boxed{{{answer}}}.", "The answer is \\\\boxed{-4242}."):
            scores.append(compute_score(data_source=row["data_source"], solution_str=text,
                                        ground_truth=row["reward_model"]["ground_truth"], extra_info=extra))
    json.dump({"scores": scores, "copy_is_separate": module.__name__ == "custom_module"}, open(out, "w"))
    """
)


@pytest.mark.slow
def test_verl_loads_the_adapter_file_as_its_own_module_and_scores_offline(tmp_path, math500):
    import pyarrow as pa
    import pyarrow.parquet as pq

    import rlvr_envs.adapters.verl as verl_adapter

    ours = export_parquet(math500, tmp_path / "ours.parquet", n=6, seed=2)
    # A row as verl's own gsm8k preprocessor writes it (plain ground truth, verl's data_source, no task).
    native = tmp_path / "native.parquet"
    pq.write_table(
        pa.Table.from_pylist(
            [
                {
                    "data_source": "openai/gsm8k",
                    "prompt": [{"role": "user", "content": "2+2?"}],
                    "ability": "math",
                    "reward_model": {"style": "rule", "ground_truth": "72"},
                    "extra_info": {"split": "test", "index": 0},
                }
            ]
        ),
        native,
    )
    script = tmp_path / "verl_loader.py"
    script.write_text(VERL_LOADER)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "PYTHONPATH": str(REPO_ROOT)}
    out = tmp_path / "scores.json"
    proc = subprocess.run(
        [sys.executable, str(script), verl_adapter.__file__, str(out), str(ours), str(native)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["copy_is_separate"]
    assert result["scores"] == [1.0, 0.0] * 7  # 6 exported rows, then verl's own gsm8k row


def test_trl_jsonl_export_of_two_families_loads_with_datasets_and_scores_offline(tmp_path, monkeypatch):
    import datasets

    from rlvr_envs.cli import main

    ifeval_rows = tmp_path / "ifeval_rows.jsonl"
    ifeval_rows.write_text(
        json.dumps(
            {
                "key": 3,
                "prompt": "Say hi.",
                "instruction_id_list": ["startend:end_checker"],
                "kwargs": [{"end_phrase": END_PHRASE}],
            }
        )
        + "\n"
    )
    parts = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    assert (
        main(
            [
                "export",
                "math-500",
                "--format",
                "trl",
                "-n",
                "3",
                "--out",
                str(parts[0]),
                "--arg",
                f"path={shared_path('math500.jsonl')}",
            ]
        )
        == 0
    )
    assert main(["export", "ifeval", "--format", "trl", "--out", str(parts[1]), "--arg", f"data={ifeval_rows}"]) == 0
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(parts[0].read_text() + parts[1].read_text())
    ds = datasets.load_dataset("json", data_files=str(mixed), split="train")
    monkeypatch.setattr(registration, "make", lambda env_id, **kw: pytest.fail(f"made {env_id}"))
    completions = []
    for row in ds:
        task = task_from_json(row["task"])
        good = (
            f"\\boxed{{{task.answer}}}"
            if row["env_id"].startswith("math")
            else f"Hello there, friend of mine. {END_PHRASE}"
        )
        completions.append(good)
    columns = {k: ds[k] for k in ("task", "env_id", "verifier")}
    assert reward_function()(prompts=ds["prompt"], completions=completions, **columns) == [1.0] * 4
