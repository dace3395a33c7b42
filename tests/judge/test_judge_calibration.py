"""Calibration maths, the shipped calibration-set builders, injection probes and the CLI.

Judged by the scripted STAND-IN judge server (string rules, not a model), whose error rates are
known in advance, so the reported numbers can be checked.
"""

import argparse
import json
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_envs.cli import main as cli_main
from rlvr_envs.registration import spec
from rlvr_judge.calibration import calibrate
from rlvr_judge.calibration_sets import IFEVAL_FILES, describe_instruction, ifeval_rows, math_rows
from rlvr_judge.metrics import best_threshold, binary_report, cohen_kappa, pearson, wilson
from rlvr_judge.probes import PROBES, probe_rows
from rlvr_judge.testing import ScriptedJudgeServer
from tests.helpers.data import shared_path
from tests.judge import conformance  # noqa: F401 -- loads the plugin at collection


def _labelled(suite: str) -> Path:
    """The peer data folder, once it is known to hold this suite's labelled responses (else: skip)."""
    return shared_path(IFEVAL_FILES[suite]).parent


# -- maths against hand-computed values -----------------------------------------------------------
def test_kappa_rates_and_intervals_match_hand_computation():
    predicted = [True] * 20 + [False] * 30 + [True] * 10 + [False] * 40
    labels = [True] * 20 + [True] * 30 + [False] * 10 + [False] * 40  # tp 20, fn 30, fp 10, tn 40
    r = binary_report(predicted, labels)
    assert r["confusion"] == {"tp": 20, "fp": 10, "tn": 40, "fn": 30}
    assert r["agreement"] == 0.6 and r["fpr"] == 0.2 and r["fnr"] == 0.6
    # po = 0.6, pe = 0.3*0.5 + 0.7*0.5 = 0.5 -> kappa 0.2
    assert r["kappa"] == pytest.approx(0.2)
    lo, hi = wilson(60, 100)
    assert lo == pytest.approx(0.5020, abs=1e-3) and hi == pytest.approx(0.6906, abs=1e-3)
    assert wilson(0, 0) is None
    assert cohen_kappa({"tp": 5, "fp": 0, "tn": 0, "fn": 0}) is None  # one class: undefined, not 1


def test_best_threshold_and_length_correlation():
    scores = [0.1, 0.4, 0.6, 0.7, 0.9, 0.95]
    labels = [False, False, False, True, True, True]
    assert best_threshold(scores, labels) == (0.7, 1.0)
    assert pearson([1, 2, 3, 4], [2, 4, 6, 8]) == pytest.approx(1.0)
    assert pearson([1, 1, 1], [1, 2, 3]) is None


# -- the calibration sets ------------------------------------------------------------------------
def test_math_set_labels_are_the_math_verifiers():
    rows = math_rows(n_tasks=10, seed=3)
    assert {r["label"] for r in rows} == {True, False}
    from rlvr_envs.types import Task
    from rlvr_math.verifier import MathVerifier

    v = MathVerifier()
    for r in rows:
        assert v.verify(Task(id="t", prompt=r["prompt"], answer=r["reference"]), r["response"]).passed == r["label"]


def test_ifeval_set_is_built_from_the_shared_labels():
    rows = ifeval_rows("ifeval", _labelled("ifeval"))
    assert len(rows) == 541
    assert all(len(r["rubric"]) == len(r["criteria_labels"]) for r in rows)
    assert rows[0]["rubric"][0] == {
        "text": "The response contains no commas.",
        "weight": 1,
        "group": "punctuation:no_comma",
    }
    assert len(ifeval_rows("ifbench", _labelled("ifbench"))) == 294
    assert "keyword1='kaleidoscope'" in describe_instruction("count:keywords_multiple", {"keyword1": "kaleidoscope"})


# -- calibrate end to end on stand-ins with known behaviour ---------------------------------------
def _env(server, env_id, rows, **kw):
    return rlvr_envs.make(
        env_id, data=rows, base_url=server.base_url, model=f"stand-in-{server.mode}", cache=False, **kw
    )


def test_an_always_yes_judge_is_flagged_untrustworthy():
    rows = ifeval_rows("ifeval", _labelled("ifeval"), limit=40)
    with ScriptedJudgeServer("yes") as s:
        report = calibrate(_env(s, "rubric", rows), rows)
    negatives = sum(not x for r in rows for x in r["criteria_labels"])
    assert report["criteria_overall"]["fpr"] == 1.0 and report["criteria_overall"]["fnr"] == 0.0
    assert report["criteria_overall"]["confusion"]["fp"] == negatives
    assert report["trust"].startswith("DO NOT TRUST")
    assert "punctuation:no_comma" in report["per_criterion"]


def test_noisy_stand_in_agreement_tracks_its_flip_rate():
    rows = math_rows(n_tasks=40, seed=1)
    with ScriptedJudgeServer("rules") as exact, ScriptedJudgeServer("noisy", flip=0.3) as noisy:
        clean = calibrate(_env(exact, "judge-ref", rows), rows)["overall"]
        messy = calibrate(_env(noisy, "judge-ref", rows), rows)["overall"]
    assert clean["fpr"] == 0.0  # string rules never accept a wrong number
    assert messy["agreement"] < clean["agreement"] - 0.1


def test_probes_flip_a_gullible_judge_and_not_the_rule_judge():
    rows = math_rows(n_tasks=10, seed=2)
    probes = probe_rows(rows, limit=5)
    assert {p["probe"] for p in probes} == set(PROBES) and not any(p["label"] for p in probes)
    with ScriptedJudgeServer("gullible") as g, ScriptedJudgeServer("rules") as r:
        gullible = calibrate(_env(g, "judge-ref", rows), rows, probes=probes)["probes"]
        strict = calibrate(_env(r, "judge-ref", rows), rows, probes=probes)["probes"]
    assert gullible["total"]["flipped"] >= 5  # the notes to the judge beside a real answer: the model's to refuse
    assert strict["total"]["flipped"] == 0
    # A forged fence close or verdict is the screen's (forged_format, round 6): refused before any judge call.
    for kind in ("closes_fence", "imitates_format"):
        assert gullible["per_kind"][kind]["guarded"] == gullible["per_kind"][kind]["probes"] == 5
    # The flip rate (flipped / graded) with its 95% Wilson interval, overall and per kind.
    g = gullible["total"]
    assert g["flip_rate"] == g["flipped"] / (g["probes"] - g["errors"])
    low, high = g["flip_rate_ci"]
    assert low < g["flip_rate"] < high and 0 < low and high <= 1
    assert strict["total"]["flip_rate"] == 0.0 and strict["total"]["flip_rate_ci"][0] == 0.0
    assert 0 < strict["total"]["flip_rate_ci"][1] < 0.15  # 0 of 40: the interval still says how sure
    for kind in gullible["per_kind"].values():
        assert kind["flip_rate"] == kind["flipped"] / (kind["probes"] - kind["errors"])


def test_rubric_echo_probes_are_caught_by_the_env():
    rows = ifeval_rows("ifeval", _labelled("ifeval"), limit=60)
    probes = [p for p in probe_rows(rows, kinds=["repeats_rubric"], limit=5)]
    with ScriptedJudgeServer("yes") as s:
        result = calibrate(_env(s, "rubric", rows[:1]), rows[:1], probes=probes)["probes"]["per_kind"]["repeats_rubric"]
    # every probe row whose rubric has a criterion of 24+ characters is rejected before the judge
    assert result["guarded"] == result["probes"] == 5 and result["flipped"] == 0


# -- the command line ----------------------------------------------------------------------------
def test_add_parsers_registers_judge_calibrate(tmp_path):
    from rlvr_judge.cli import add_parsers

    parser = argparse.ArgumentParser()
    add_parsers(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["judge", "calibrate", "judge-ref", "--labels", "math-arith", "--scripted-judge", "rules"])
    assert args.func.__name__ == "cmd_calibrate" and args.labels == "math-arith"


def test_cli_calibrate_writes_markdown_and_png(tmp_path, capsys):
    out = tmp_path / "cal"
    code = cli_main([
        "judge", "calibrate", "rubric", "--labels", "ifbench", "--data-dir", str(_labelled("ifbench")), "--limit", "30",
        "--scripted-judge", "yes", "--cache", "none", "--probes", "--out", str(out),
    ])  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "| whole response (pass vs label) | 30 |" in printed and "DO NOT TRUST" in printed
    assert "scripted STAND-IN judge" in printed and "Injection probes" in printed
    assert "**Injection flip rate: " in printed and "the judge model's" in printed
    newest = spec("rubric").id  # the unversioned name resolves to the newest rubric id
    assert (out / "calibration.md").read_text().startswith(f"# Judge calibration: {newest}\n")
    assert (out / "calibration.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_calibrate_reads_a_labels_file(tmp_path, capsys):
    labels = tmp_path / "labels.jsonl"
    rows = [
        {"prompt": "2+2?", "reference": "4", "response": f"<answer>{x}</answer>", "label": x == 4} for x in range(6)
    ]
    labels.write_text("\n".join(json.dumps(r) for r in rows))
    with ScriptedJudgeServer() as s:
        code = cli_main([
            "judge", "calibrate", "judge-ref", "--labels", str(labels), "--base-url", s.base_url, "--model", "m",
            "--cache", "none", "--json", "--out", str(tmp_path / "o"),
        ])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["overall"]["agreement"] == 1.0 and report["overall"]["confusion"]["tp"] == 1


def test_cli_verify_through_the_core_command(tmp_path):
    rows = tmp_path / "rows.jsonl"
    task = {"id": "t", "prompt": "Capital of France?", "answer": {"reference": "Paris", "rubric": None}}
    rows.write_text(
        "\n".join(
            json.dumps({"task": task, "completion": c}) for c in ["<answer>Paris</answer>", "<answer>Rome</answer>"]
        )
    )
    out = tmp_path / "verdicts.jsonl"
    with ScriptedJudgeServer() as s:
        code = cli_main([
            "verify", "judge-ref", "--input", str(rows), "--output", str(out), "--quiet",
            "--arg", f"base_url={s.base_url}", "--arg", "model=m", "--arg", "cache=false",
        ])  # fmt: skip
    verdicts = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 0 and [v["passed"] for v in verdicts] == [True, False]


def test_cli_without_a_judge_says_which_option(capsys, monkeypatch):
    monkeypatch.delenv("RLVR_JUDGE_BASE_URL", raising=False)
    code = cli_main(["judge", "calibrate", "judge-ref", "--labels", "math-arith", "--limit", "6"])
    assert code == 1 and "base_url=" in capsys.readouterr().err
