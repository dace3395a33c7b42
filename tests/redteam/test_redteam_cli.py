"""``rlvr-envs redteam``: it finds the holes it exists to find, and reports none where there are none."""

from __future__ import annotations

import json

import pytest

import rlvr_envs
from rlvr_envs.cli import main
from rlvr_envs.redteam import CLASSES

for _id, _entry in {
    "toyredteam-salad-v0": "FormatOnlyEnv",
    "toyredteam-substring-v0": "SubstringEnv",
    "toyredteam-strict-v0": "StrictEnv",
    "toyredteam-naivecode-v0": "NaiveCodeEnv",
    "toyredteam-strictcode-v0": "StrictCodeEnv",
}.items():
    rlvr_envs.register(_id, f"tests.redteam.toys:{_entry}", size=None, data_source="generated", override=True)


def _run(capsys, tmp_path, *argv: str) -> tuple[int, dict, str, str]:
    out_json, out_md = tmp_path / "report.json", tmp_path / "report.md"
    code = main(["redteam", *argv, "--quiet", "--json", str(out_json), "--markdown", str(out_md)])
    captured = capsys.readouterr()
    return code, json.loads(out_json.read_text()), out_md.read_text(), captured.out


def _by_name(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["classes"]}


def test_finds_the_word_salad_hole_in_an_env_without_a_relevance_check(capsys, tmp_path):
    code, report, markdown, stdout = _run(capsys, tmp_path, "toyredteam-salad", "--quick", "-n", "4")
    classes = _by_name(report)
    assert code == 1 and report["exit_code"] == 1
    salad = classes["word_salad"]
    assert salad["status"] == "HOLE" and salad["tasks_with_holes"] == 4
    assert "lowercase" in salad["hole_variants"]
    assert salad["examples"] and salad["examples"][0]["reward"] == 1.0
    # Only the off-topic classes (the salad, an essay pasted under every prompt, and round 12's essay
    # stuffed with the prompt's words): refusals, echoes, notes to the grader, binary and huge inputs
    # earn nothing there.
    assert report["hole_classes"] == ["word_salad", "paste_many", "keyword_stuffing"]
    # No gold answer: the answer-based classes say why they did not run.
    assert classes["hedge"]["status"] == "n/a" and "short gold answer" in classes["hedge"]["not_applicable"]
    assert "word_salad" in stdout and "HOLE" in stdout
    assert "## `word_salad`" in markdown and "| `word_salad` | HOLE |" in markdown


def test_finds_the_multi_answer_hole_in_a_substring_verifier(capsys, tmp_path):
    code, report, markdown, _ = _run(capsys, tmp_path, "toyredteam-substring", "--quick", "-n", "3")
    classes = _by_name(report)
    assert code == 1
    multi = classes["multi_answer"]
    assert multi["status"] == "HOLE" and multi["holes"] == multi["expected_wrong"] > 0
    assert {"gold-slot-then-wrong-slot", "list-in-one-answer"} <= set(multi["hole_variants"])
    assert {"hedge", "after_answer", "negation", "value_suffix", "think"} <= set(report["hole_classes"])
    # The substring verifier still refuses what does not contain the gold.
    for name in ("empty", "word_salad", "binary"):
        assert classes[name]["holes"] == 0, name
    assert report["gold_control"]["rewarded"] == report["gold_control"]["checked"] == 3
    assert "## `multi_answer`" in markdown


def test_a_strict_verifier_has_no_hole_in_the_full_set(capsys, tmp_path):
    code, report, _, stdout = _run(capsys, tmp_path, "toyredteam-strict", "-n", "5")
    classes = _by_name(report)
    assert code == 0 and report["holes"] == 0 and report["raised"] == 0
    assert report["gold_control"] == {"checked": 5, "rewarded": 5, "examples_not_rewarded": []}
    for name in (
        "empty", "hedge", "after_answer", "multi_answer", "think", "value_suffix", "negation", "word_salad", "huge",
        "binary",
    ):  # fmt: skip
        assert classes[name]["status"] == "ok" and classes[name]["probes"] > 0, name
    assert "no wrong answer rewarded" in stdout


@pytest.mark.slow  # one subprocess per probe
def test_code_exploits_are_found_in_a_harness_that_trusts_its_exit_status(capsys, tmp_path):
    code, report, _, _ = _run(
        capsys, tmp_path, "toyredteam-naivecode", "--quick", "--max-turns", "4", "--episodes", "2"
    )
    classes = _by_name(report)
    assert code == 1
    assert {"code_exit", "code_always_equal", "code_tamper", "feedback_mining"} <= set(report["hole_classes"])
    assert {"sys.exit-at-import", "os._exit-at-import", "atexit-status-0"} <= set(classes["code_exit"]["hole_variants"])
    assert "plain" in classes["code_always_equal"]["hole_variants"]
    mined = classes["feedback_mining"]["examples"][0]
    assert mined["reward"] == 1.0 and mined["variant"].endswith("-from-feedback-3-hidden")


@pytest.mark.slow  # one subprocess per probe
def test_a_harness_that_compares_results_outside_the_program_has_no_code_hole(capsys, tmp_path):
    code, report, _, _ = _run(capsys, tmp_path, "toyredteam-strictcode", "--max-turns", "4", "--episodes", "2")
    classes = _by_name(report)
    assert code == 0 and report["holes"] == 0
    for name in ("code_exit", "code_always_equal", "code_tamper", "feedback_mining"):
        assert classes[name]["status"] == "ok" and classes[name]["probes"] > 0, name
    # Hedges and value tails need a short gold; a program is not one.
    assert classes["hedge"]["status"] == classes["value_suffix"]["status"] == "n/a"


def test_classes_option_list_and_usage_errors(capsys):
    assert main(["redteam", "--list-classes"]) == 0
    listed = capsys.readouterr().out
    assert all(c.name in listed for c in CLASSES)
    assert main(["redteam", "toyredteam-strict", "--classes", "nonsense", "--quiet"]) == 2
    assert "unknown attack class" in capsys.readouterr().err
    assert main(["redteam", "toyredteam-strict", "-n", "0", "--quiet"]) == 2
    assert "-n must be at least 1" in capsys.readouterr().err
    assert main(["redteam", "no-such-env-v0", "--quiet"]) == 2
    assert "cannot make" in capsys.readouterr().err
    assert main(["redteam", "toyredteam-substring", "--classes", "empty,word_salad", "--quiet", "-n", "2"]) == 0
    out = capsys.readouterr().out
    assert "empty" in out and "hedge" not in out


def test_make_arguments_reach_the_env(capsys, tmp_path):
    # --arg is the same vocabulary as the other subcommands: here limit= keeps 2 of 5 tasks.
    code, report, _, _ = _run(capsys, tmp_path, "toyredteam-strict", "--quick", "--arg", "limit=2", "-n", "5")
    assert code == 0 and sorted(report["task_ids"]) == ["sum0", "sum1"]
