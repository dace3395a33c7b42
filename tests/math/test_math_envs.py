"""The math dataset envs: presets from ../shared/data, user data in every accepted form."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import rlvr_envs
import rlvr_envs.data
from rlvr_envs.errors import DataError, DataRequiredError
from rlvr_math.data import DataUnavailableError
from tests.helpers.data import read_jsonl, shared_path


@pytest.fixture(scope="module")
def aime():
    return rlvr_envs.make("math-aime", path=shared_path("aime.jsonl"), isolation="inline")


@pytest.fixture(scope="module")
def math500():
    return rlvr_envs.make("math-500", path=shared_path("math500.jsonl"), isolation="inline")


@pytest.fixture(scope="module")
def gsm8k():
    return rlvr_envs.make("math-gsm8k", path=shared_path("gsm8k_test.jsonl"), isolation="inline")


def test_aime_has_both_years_and_parts_as_metadata(aime):
    tasks = aime.tasks
    assert len(tasks) == 60
    by_contest = {}
    for task in tasks:
        key = (task.metadata["year"], task.metadata["part"])
        by_contest[key] = by_contest.get(key, 0) + 1
        assert 0 <= int(task.answer) <= 999
        assert task.difficulty.config["problem_number"] in range(1, 16)
    assert by_contest == {(2024, "I"): 15, (2024, "II"): 15, (2025, "I"): 15, (2025, "II"): 15}
    assert len({t.id for t in tasks}) == 60
    _, info = aime.reset(options={"index": 0})
    assert set(info["metadata"]) == {"year", "part", "problem_number"}


def test_aime_year_filter():
    env = rlvr_envs.make("math-aime", path=shared_path("aime.jsonl"), years=[2025])
    assert len(env.tasks) == 30 and {t.metadata["year"] for t in env.tasks} == {2025}


def test_math500_level_and_subject_are_difficulty(math500):
    tasks = math500.tasks
    assert len(tasks) == 500
    assert {t.difficulty.label for t in tasks} == {1, 2, 3, 4, 5}
    assert len({t.difficulty.config["subject"] for t in tasks}) == 7
    level5 = rlvr_envs.make("math-500", path=shared_path("math500.jsonl"), levels=[5])
    assert len(level5.tasks) == sum(1 for t in tasks if t.difficulty.label == 5)


def test_gsm8k_answer_is_the_number_after_hashes(gsm8k):
    rows = read_jsonl("gsm8k_test.jsonl")
    assert len(gsm8k.tasks) == len(rows) == 1319
    for task, row in zip(gsm8k.tasks, rows):
        assert task.answer == row["answer_raw"].rsplit("####", 1)[-1].strip().replace(",", "")


def test_gsm8k_hub_layout_with_worked_solutions(tmp_path):
    """Hub rows carry question + a worked answer ending in "#### n" (with thousands commas)."""
    path = tmp_path / "gsm8k.jsonl"
    rows = [{"question": "How many?", "answer": "3 * 412 = <<3*412=1236>>1236\n#### 1,236"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    env = rlvr_envs.make("math-gsm8k", data_files=str(path))
    assert env.tasks[0].answer == "1236" and env.tasks[0].prompt == "How many?"
    assert env.verify(env.tasks[0], "so 1,236 eggs.\n#### 1,236").passed
    assert env.verify(env.tasks[0], "\\boxed{1236}").passed


@pytest.mark.parametrize("fixture", ["aime", "math500", "gsm8k"])
def test_every_gold_answer_scores_one_and_a_wrong_one_zero(fixture, request):
    """The reference answers of the whole preset, written as a policy would, all verify."""
    env = request.getfixturevalue(fixture)
    failures = []
    for task in env.tasks:
        verdict = env.verify(task, env.gold_completion(task))
        if not verdict.passed:
            failures.append((task.id, task.answer, verdict.details))
    assert not failures, failures[:10]
    for task in env.tasks[:40]:
        assert not env.verify(task, env.hedged_completion(task)).passed, task.answer
        assert not env.verify(task, "The final answer is \\boxed{\\text{I do not know}}.").passed


def test_r1_format_gold_scores_one(math500):
    env = rlvr_envs.make("math-500", path=shared_path("math500.jsonl"), prompt_format="r1", limit=50)
    for task in env.tasks:
        completion = env.gold_completion(task)
        assert completion.startswith("<think>")
        assert env.verify(task, completion).passed, task.answer


def test_offline_without_path_fails_at_make_naming_the_option():
    code = (
        "import rlvr_envs\n"
        "try:\n    rlvr_envs.make('math-aime')\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert "DataUnavailableError" in out.stdout, out.stdout + out.stderr
    assert "path=" in out.stdout


def test_missing_local_file_is_a_clear_error(tmp_path):
    with pytest.raises(DataUnavailableError, match="no such data file"):
        rlvr_envs.make("math-500", path=tmp_path / "missing.jsonl")


ROWS = [
    {"question": "What is 2 + 2?", "solution": "4", "uid": "a", "lvl": 1, "source": "toy"},
    {"question": "What is \\frac{1}{2} + \\frac{1}{3}?", "solution": "\\frac{5}{6}", "uid": "b", "lvl": 2},
]
COLUMNS = {"problem_key": "question", "answer_key": "solution", "id_key": "uid", "difficulty_key": "lvl"}


def _check_custom(env):
    assert [t.id for t in env.tasks] == ["a", "b"]
    assert env.tasks[1].difficulty.label == 2
    assert env.verify(env.tasks[1], "\\boxed{5/6}").passed
    assert not env.verify(env.tasks[1], "\\boxed{1/6}").passed


def test_custom_data_from_a_list_of_dicts():
    _check_custom(rlvr_envs.make("math", data=ROWS, **COLUMNS))


def test_custom_data_from_jsonl(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    _check_custom(rlvr_envs.make("math", data=str(path), **COLUMNS))


def test_custom_data_from_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "mine.parquet"
    pq.write_table(
        pa.Table.from_pylist([{k: r.get(k) for k in ("question", "solution", "uid", "lvl")} for r in ROWS]), path
    )
    _check_custom(rlvr_envs.make("math", data=path, **COLUMNS))


def test_custom_data_from_a_datasets_dataset():
    datasets = pytest.importorskip("datasets")
    table = {k: [r[k] for r in ROWS] for k in ("question", "solution", "uid", "lvl")}
    _check_custom(rlvr_envs.make("math", data=datasets.Dataset.from_dict(table), **COLUMNS))
    both = datasets.DatasetDict({"train": datasets.Dataset.from_dict(table), "test": datasets.Dataset.from_dict(table)})
    _check_custom(rlvr_envs.make("math", data=both, split="test", **COLUMNS))
    with pytest.raises(DataUnavailableError, match="split"):
        rlvr_envs.make("math", data=both, **COLUMNS)


def test_custom_data_errors_name_the_fix():
    with pytest.raises(DataRequiredError, match="data="):
        rlvr_envs.make("math")
    with pytest.raises(DataError, match="problem_key"):
        rlvr_envs.make("math", data=ROWS)  # the default column names are problem/answer
    with pytest.raises(DataError, match="duplicate task id"):
        rlvr_envs.make("math", data=[ROWS[0], ROWS[0]], **COLUMNS)
    with pytest.raises(DataUnavailableError, match="dicts"):
        rlvr_envs.make("math", data=["not a row"])


def test_verifier_options_pass_through_make():
    env = rlvr_envs.make("math", data=ROWS, rel_tol=1e-2, fallback="none", **COLUMNS)
    assert env.verifier.config.rel_tol == 1e-2 and env.verifier.fallback == "none"
    assert env.verify(env.tasks[1], "\\boxed{0.834}").passed
    assert not env.verify(env.tasks[0], "4").passed  # no marked answer with fallback="none"


def test_answer_never_reaches_reset_info(math500):
    for index in range(0, 500, 50):
        obs, info = math500.reset(options={"index": index})
        task = math500.tasks[index]
        assert "answer" not in json.dumps(info["metadata"])
        assert set(info["metadata"]) <= {"subject", "level"}
        assert obs.startswith(task.prompt)


def test_hub_loading_maps_the_hub_layouts(monkeypatch):
    """With the Hub mocked: the dataset ids asked for, and their columns mapped to tasks."""
    datasets = pytest.importorskip("datasets")
    asked = []
    hub = {
        "HuggingFaceH4/aime_2024": [
            {
                "id": 60,
                "problem": "P1",
                "answer": "033",
                "year": "2024",
                "url": "https://artofproblemsolving.com/wiki/index.php/2024_AIME_II_Problems/Problem_4",
            },
        ],
        "MathArena/aime_2025": [{"problem_idx": 17, "problem": "P2", "answer": 70}],
        "HuggingFaceH4/MATH-500": [
            {"problem": "Q", "answer": "\\frac{1}{2}", "subject": "Algebra", "level": 3, "unique_id": "test/a/1.json"}
        ],
        "openai/gsm8k": [{"question": "Q", "answer": "work\n#### 1,000"}],
    }

    def fake_load_dataset(dataset_id, config=None, split=None, data_files=None):
        asked.append((dataset_id, config, split))
        return hub[dataset_id]

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    monkeypatch.setattr(rlvr_envs.data, "hub_offline_reason", lambda *a, **k: None)  # the Hub "reachable"
    aime = rlvr_envs.make("math-aime")
    assert [(t.id, t.answer, t.metadata["part"]) for t in aime.tasks] == [
        ("2024-II-4", "33", "II"),
        ("2025-II-2", "70", "II"),
    ]
    math500 = rlvr_envs.make("math-500")
    assert math500.tasks[0].difficulty.label == 3 and math500.tasks[0].id == "test/a/1.json"
    gsm8k = rlvr_envs.make("math-gsm8k")
    assert gsm8k.tasks[0].answer == "1000"
    assert ("openai/gsm8k", "main", "test") in asked and ("HuggingFaceH4/MATH-500", None, "test") in asked
