"""Contest presets load their sets' rows (written here in each set's shape) into tasks: fields,
public/hidden split, stated limits, difficulty, language, checkers; the built-in comparisons.

Nothing here runs a sandbox (``test_code_contests_checkers.py`` does, in the serial pass)."""

from __future__ import annotations

import base64
import json
import os
import pickle
import time
import zlib
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_code.contests.checkers import CheckerSpecError, floats_close, parse_checker, stated_tolerance, tokens_equal
from rlvr_code.split import split_tests
from rlvr_envs.errors import ConfigurationError, DataError, DataUnavailableError
from tests.code.contest_fixtures import (
    PRESET_ROWS,
    SUM_CPP,
    SUM_PY,
    apps_rows,
    codecontests_rows,
    lcb_compress,
    livecodebench_rows,
    taco_rows,
)

PRESETS = PRESET_ROWS


@pytest.mark.parametrize("env_id", sorted(PRESETS))
def test_every_preset_loads_a_local_copy_from_a_file_and_from_rows(env_id: str, tmp_path: Path) -> None:
    rows = PRESETS[env_id]()
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    from_file = rlvr_envs.make(env_id, path=str(path))
    from_rows = rlvr_envs.make(env_id, data=rows)
    assert [t.id for t in from_file.tasks] == [t.id for t in from_rows.tasks]
    assert len(from_rows.tasks) == len(rows)
    for task in from_rows.tasks:
        assert task.answer["format"] in ("stdio", "asserts")
        assert task.prompt.strip()


def test_code_contests_maps_tests_limits_difficulty_and_solutions() -> None:
    env = rlvr_envs.make("code-contests-v1", data=codecontests_rows())
    first, second = env.tasks
    assert first.id == "1_A. Sum"
    cases = first.answer["cases"]
    assert [c["input"] for c in cases] == ["1 2\n", "10 20\n", "-5 5\n", "1000000000 1000000000\n"]
    assert first.answer["public_tests"] == [0]
    public, hidden = split_tests(first)
    assert [t.key for t in public] == ["case 0"] and len(hidden) == 3
    assert first.answer["case_timeout_s"] == 2.0 and second.answer["case_timeout_s"] == 1.5
    assert first.metadata["difficulty"] == "A" and first.difficulty.label == "A"
    assert second.difficulty.label is None  # UNKNOWN_DIFFICULTY is no label
    assert first.metadata["platform"] == "CODEFORCES" and first.metadata["cf_rating"] == 800
    assert first.answer["canonical_solution"] == SUM_PY  # the PYTHON3 one, not the C++ listed first
    assert first.answer["checker"] == {"type": "tokens"}
    assert second.answer["checker"] == {"type": "float", "abs_tol": 1e-6, "rel_tol": 1e-6}
    assert first.answer["language"] == "python"
    # what the policy sees: difficulty and limits, never the answer
    _, info = env.reset(seed=0)
    assert set(info["metadata"]) <= {"source", "platform", "difficulty", "language", "case_time_limit_s"}
    assert info["metadata"]["case_time_limit_s"] in (1.5, 2.0)


def test_code_contests_options_generated_tests_language_and_checker() -> None:
    rows = codecontests_rows()
    env = rlvr_envs.make("code-contests-v1", data=rows, generated_tests=False, language="cpp", checker=None)
    task = env.tasks[0]
    assert len(task.answer["cases"]) == 3
    assert task.answer["language"] == "cpp" and "checker" not in task.answer
    assert task.answer["canonical_solution"] == SUM_CPP
    gold = env.gold_completion(task)
    assert gold is not None and gold.startswith("```cpp") and gold.count("```") == 2
    prompt, _ = env.reset(seed=0)
    assert "C++" in prompt and "```cpp" in prompt and "Python" not in prompt
    both = rlvr_envs.make("code-contests-v1", data=rows, language=["python", "cpp"])
    gold = both.gold_completion(both.tasks[0])
    assert gold is not None and gold.startswith("```python") and gold.count("```") == 2
    assert both.prompt_format.follows_format(gold)
    with pytest.raises(ConfigurationError, match="unknown language"):
        rlvr_envs.make("code-contests-v1", data=rows, language="cobol")


def test_taco_and_apps_map_stdio_and_call_based_problems() -> None:
    taco = rlvr_envs.make("code-taco-v1", data=taco_rows())
    stdio, call = taco.tasks
    assert stdio.id == "taco/0" and stdio.answer["case_timeout_s"] == 1.0
    assert stdio.metadata["difficulty"] == "EASY" and stdio.metadata["platform"] == "codeforces"
    assert "public_tests" not in stdio.answer  # the set does not say: the statement decides (split)
    assert call.answer["format"] == "asserts" and call.answer["solution_names"] == ["total"]
    assert call.answer["tests"][0].startswith("assert _contest_same(total(*[[1, 2, 3]]), [6], True)")
    assert "case_timeout_s" not in call.answer  # TACO's null time_limit: the calibrated/global one applies
    apps = rlvr_envs.make("code-apps-v1", data=apps_rows())
    first, method = apps.tasks
    assert first.id == "apps/4000" and first.difficulty.label == "introductory"
    public, hidden = split_tests(first)
    assert [t.key for t in public] == ["case 0"] and [t.key for t in hidden] == ["case 1"]  # the statement's example
    assert method.answer["solution_names"] == ["Solution"]
    assert "Solution().rev(" in method.answer["tests"][0]
    only = rlvr_envs.make("code-apps-v1", data=apps_rows(), level="interview")
    assert [t.id for t in only.tasks] == ["apps/4001"]


def test_livecodebench_decodes_compressed_private_tests_and_functional_calls() -> None:
    env = rlvr_envs.make("code-livecodebench-v1", data=livecodebench_rows())
    stdin, functional = env.tasks
    assert stdin.id == "lcb/abc001_a" and stdin.metadata["platform"] == "atcoder"
    assert [c["input"] for c in stdin.answer["cases"]] == ["2 3\n", "4 5\n"]
    assert stdin.answer["public_tests"] == [0]
    assert functional.answer["format"] == "asserts" and functional.answer["public_tests"] == [0]
    assert functional.answer["tests"] == [
        "assert _contest_same(Solution().largestSum(*[[1, 2, 3], 2]), 5, False)",
        "assert _contest_same(Solution().largestSum(*[[4], 1]), 4, False)",
    ]
    assert functional.difficulty.label == "medium"


class _Marker:
    """Unpickling this runs ``os.system``: a data file must never be able to do that."""

    path = ""

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def test_a_livecodebench_pickle_that_names_a_function_is_refused_unrun(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _Marker.path = str(marker)
    rows = livecodebench_rows()
    rows[0]["private_test_cases"] = base64.b64encode(zlib.compress(pickle.dumps(_Marker()))).decode("ascii")
    with pytest.raises(DataError, match="refusing to load"):
        rlvr_envs.make("code-livecodebench-v1", data=rows)
    assert not marker.exists()
    rows[0]["private_test_cases"] = "not base64 at all!!"
    with pytest.raises(DataError, match="private_test_cases"):
        rlvr_envs.make("code-livecodebench-v1", data=rows)
    rows[0]["private_test_cases"] = json.dumps([{"input": "1 1\n", "output": "1\n", "testtype": "stdin"}])
    assert len(rlvr_envs.make("code-livecodebench-v1", data=rows).tasks[0].answer["cases"]) == 2  # plain JSON too


def test_mixed_livecodebench_test_types_and_missing_func_name_are_refused() -> None:
    rows = livecodebench_rows()
    rows[1]["metadata"] = "{}"
    with pytest.raises(DataError, match="func_name"):
        rlvr_envs.make("code-livecodebench-v1", data=rows)
    rows = livecodebench_rows()
    rows[0]["private_test_cases"] = lcb_compress([{"input": "[1]", "output": "1", "testtype": "functional"}])
    with pytest.raises(DataError, match="test types"):
        rlvr_envs.make("code-livecodebench-v1", data=rows)


@pytest.mark.parametrize(
    ("env_id", "break_row", "message"),
    [
        ("code-contests-v1", lambda r: r["private_tests"].update(output=["1\n"]), "2 inputs but 1 outputs"),
        ("code-contests-v1", lambda r: r.pop("description"), "description"),
        ("code-taco-v1", lambda r: r.update(input_output="{not json"), "not valid JSON"),
        ("code-apps-v1", lambda r: r.update(input_output=json.dumps({"inputs": ["1"], "outputs": []})), "same length"),
    ],
)
def test_a_broken_row_fails_at_make_naming_the_row(env_id: str, break_row, message: str) -> None:
    rows = PRESETS[env_id]()
    break_row(rows[0])
    with pytest.raises(DataError, match=message) as caught:
        rlvr_envs.make(env_id, data=rows)
    assert "row 1" in str(caught.value)


def test_livecodebench_versions_name_the_set_s_files(monkeypatch: pytest.MonkeyPatch) -> None:
    from rlvr_code.contests import envs

    asked: list[dict] = []

    def fake_hub(dataset_id: str, config: str | None = None, **options):  # what datasets would be asked
        asked.append({"id": dataset_id, "config": config, **options})
        return apps_rows() if dataset_id == "codeparrot/apps" else livecodebench_rows()

    monkeypatch.setattr(envs, "load_hub", fake_hub)
    monkeypatch.setattr(envs, "hub_offline_reason", lambda: None)
    env = rlvr_envs.make("code-livecodebench-v1", version="release_v3")
    assert len(env.tasks) == 2
    assert asked[-1]["id"] == "livecodebench/code_generation_lite" and asked[-1]["config"] is None
    assert asked[-1]["data_files"] == {"test": ["test.jsonl", "test2.jsonl", "test3.jsonl"]}
    rlvr_envs.make("code-livecodebench-v1", version="v6")
    assert asked[-1]["data_files"] == {"test": ["test6.jsonl"]}
    assert [t.id for t in rlvr_envs.make("code-apps-v1", level="introductory").tasks] == ["apps/4000"]
    assert asked[-1]["id"] == "codeparrot/apps" and asked[-1]["data_files"] is None and asked[-1]["config"] is None
    with pytest.raises(ConfigurationError, match="unknown version"):
        rlvr_envs.make("code-livecodebench-v1", version="release_v9")


@pytest.mark.parametrize("env_id", sorted(PRESETS))
def test_presets_offline_fail_at_make_at_once_naming_data(env_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.monotonic()
    with pytest.raises(DataUnavailableError, match="data="):
        rlvr_envs.make(env_id)
    assert time.monotonic() - start < 5.0


def test_a_problem_gets_its_own_special_judge_by_id() -> None:
    judge = {"type": "program", "source": "import sys\nsys.exit(0)\n"}
    env = rlvr_envs.make("code-contests-v1", data=codecontests_rows(), checkers={"1_A. Sum": judge})
    assert env.tasks[0].answer["checker"] == judge and env.tasks[1].answer["checker"]["type"] == "float"
    with pytest.raises(ConfigurationError, match="does not have"):
        rlvr_envs.make("code-contests-v1", data=codecontests_rows(), checkers={"9_Z. Nope": judge})


def test_a_stated_per_case_limit_is_not_taken_for_the_sample_s_limit() -> None:
    from rlvr_code.limits import stated_limit

    env = rlvr_envs.make("code-contests-v1", data=codecontests_rows())
    # calibrate derives the whole sample's wall clock; the set's 2 s is one case's
    assert [stated_limit(t) for t in env.tasks] == [None, None]
    assert [t.answer["case_timeout_s"] for t in env.tasks] == [2.0, 1.5]


def test_rows_without_any_test_are_left_out_with_a_warning_and_listed() -> None:
    rows = apps_rows()
    rows[0]["input_output"] = ""  # APPS has such rows
    rows[1]["solutions"] = ""  # and rows without solutions, which still load
    with pytest.warns(UserWarning, match="left out 1 rows without tests"):
        env = rlvr_envs.make("code-apps-v1", data=rows)
    assert [t.id for t in env.tasks] == ["apps/4001"] and "canonical_solution" not in env.tasks[0].answer
    from rlvr_code.contests.envs import ContestEnv

    assert isinstance(env, ContestEnv) and len(env.skipped) == 1 and "row 1" in env.skipped[0]
    contests = codecontests_rows()
    for key in ("public_tests", "private_tests", "generated_tests"):
        contests[1][key] = {"input": [], "output": []}
    with pytest.warns(UserWarning):
        assert [t.id for t in rlvr_envs.make("code-contests-v1", data=contests).tasks] == ["1_A. Sum"]
    with pytest.raises(DataError):  # nothing left: make fails
        rlvr_envs.make("code-contests-v1", data=contests[1:])


def test_a_parquet_copy_with_numpy_values_loads_as_the_rows_do(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rows = codecontests_rows()
    path = tmp_path / "test.parquet"
    pandas.DataFrame(rows).to_parquet(path)
    from_parquet = rlvr_envs.make("code-contests-v1", path=str(path)).tasks
    from_rows = rlvr_envs.make("code-contests-v1", data=rows).tasks
    assert [t.answer for t in from_parquet] == [t.answer for t in from_rows]
    assert [t.metadata for t in from_parquet] == [t.metadata for t in from_rows]
    assert from_parquet[0].difficulty.label == "A"


@pytest.mark.parametrize(
    "checker",
    [
        {"type": "float", "rel_tol": 2},  # a relative tolerance of 1 or more accepts any answer of the sign
        {"type": "float", "abs_tol": -1},
        {"type": "float", "abs_tol": float("nan")},
        {"type": "float", "abs_tol": 0, "rel_tol": 0},  # no tolerance at all: 'tokens' is the checker for that
    ],
    ids=["rel_tol-2", "abs_tol-negative", "abs_tol-nan", "no-tolerance"],
)
def test_an_invalid_checker_is_refused_at_make(checker: dict) -> None:
    # (An absolute tolerance of 1 or more is valid: a Kattis package may state one for large answers.)
    with pytest.raises(DataError, match="checker"):
        rlvr_envs.make("code-contests-v1", data=codecontests_rows(), checker=checker)


# -- the built-in comparisons --------------------------------------------------------------------


def test_tokens_ignore_spacing_but_not_content() -> None:
    assert tokens_equal("1 2\n3", "1\n2 3\n")[0]
    assert tokens_equal("  \n", "")[0]
    assert not tokens_equal("1 2", "1 2 3")[0]
    assert not tokens_equal("1 2 3", "1 2")[0]
    assert not tokens_equal("Yes", "YES")[0]
    ok, why = tokens_equal("x" * 100_000, "y")
    assert not ok and why is not None and len(why) < 300


@pytest.mark.parametrize(
    ("got", "want", "accepted"),
    [
        ("0.3333333", "0.333333333333", True),
        ("0.33333", "0.333333333333", False),
        ("1000000.5", "1000000", True),  # relative 5e-7
        ("1000002", "1000000", False),
        ("3.0000001e2", "300.0", True),
        ("nan", "0.5", False),
        ("inf", "1e308", False),
        ("1e999", "1e308", False),
        ("0x10", "16", False),
        ("1_000", "1000", False),
        ("YES 0.5", "YES 0.5000001", True),
        ("NO 0.5", "YES 0.5", False),
        ("0.5", "0.5 0.5", False),
        ("-0.0000001", "0", True),
    ],
)
def test_float_tolerance_compares_numbers_within_abs_or_rel_and_other_tokens_exactly(
    got: str, want: str, accepted: bool
) -> None:
    assert floats_close(got, want, 1e-6, 1e-6)[0] is accepted


@pytest.mark.parametrize(
    ("statement", "tolerance"),
    [
        ("Your answer is considered correct if its absolute or relative error does not exceed 10^{-6}.", 1e-6),
        ("The relative or absolute error must not exceed 10^-9", 1e-9),
        ("Output with an absolute error of at most 1e-4.", 1e-4),
        ("answers with absolute error less than 0.001 are accepted", 1e-3),
        ("Print the sum of a and b.", None),
        ("Find the number of errors; n ≤ 10^5.", None),
    ],
)
def test_a_statement_s_tolerance_is_found(statement: str, tolerance: float | None) -> None:
    found = stated_tolerance(statement)
    assert found == pytest.approx(tolerance) if tolerance is not None else found is None


@pytest.mark.parametrize(
    "spec",
    [
        {"type": "regex"},
        {"type": "float", "abs_tol": 0, "rel_tol": 0},
        {"type": "float", "abs_tol": -1},
        {"type": "program"},
        {"type": "program", "source": "x", "language": "cobol"},
        {"type": "program", "source": "x", "timeout_s": 0},
        {"type": "program", "source": "x", "memory_mb": 10**9},
        ["tokens"],
    ],
)
def test_malformed_checker_specs_are_refused(spec: object) -> None:
    with pytest.raises(CheckerSpecError):
        parse_checker(spec)


def test_checker_shorthands() -> None:
    assert parse_checker("tokens") is not None and parse_checker(None) is None
    checker = parse_checker("float")
    assert checker is not None and checker.abs_tol == 1e-6
    program = parse_checker({"type": "program", "source": "print(1)", "language": "c++"})
    assert program is not None and program.language == "cpp" and not program.builtin
