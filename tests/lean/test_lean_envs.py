"""The Lean envs (data options, presets, difficulty), the conformance kit, and ``rlvr-envs lean doctor``."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_envs import Reason
from rlvr_envs.errors import ConfigurationError, DataError, DataRequiredError, DataUnavailableError
from rlvr_envs.testing import check_env
from rlvr_lean.cli import add_parsers
from rlvr_lean.envs import minif2f_label
from tests.helpers.data import read_jsonl, shared_path
from tests.lean.conformance import make_env

STANDIN = f"{sys.executable} {Path(__file__).with_name('repl_standin.py')}"


def test_ids_are_registered_lazily():
    ids = {s.id for s in rlvr_envs.registry.latest() if s.family == "lean"}
    assert ids == {"lean-v9", "lean-minif2f-v9", "lean-workbook-v9"}
    # Listing the ids imports the registration module only: no env, verifier or backend.
    code = "import sys, rlvr_envs; rlvr_envs.registry.latest(); print(sorted(m for m in sys.modules if m.startswith('rlvr_lean')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "['rlvr_lean', 'rlvr_lean.registration']", out.stderr[-500:]


@pytest.mark.parametrize("env_id", ["lean-v9", "lean-minif2f-v9", "lean-workbook-v9"])
def test_conformance_kit(env_id):
    report = check_env(make_env(env_id), n_tasks=2, seeds=(0,))
    assert report.tasks_checked >= 1 and report.adversarial_checked >= 5


def test_minif2f_splits_and_difficulty():
    data = shared_path("minif2f_statements.jsonl")
    test, valid = rlvr_envs.make("lean-minif2f", data=data), rlvr_envs.make("lean-minif2f", data=data, split="valid")
    assert len(test.tasks) == len(valid.tasks) == 244
    assert not {t.id for t in test.tasks} & {t.id for t in valid.tasks}
    labels = {t.difficulty.label for t in test.tasks}
    assert {"amc", "aime", "imo", "mathd"} <= labels and None not in labels
    task = test.get_task("mathd_algebra_478")
    assert task.difficulty.config == {"source": "mathd", "subject": "algebra"}
    assert "theorem mathd_algebra_478" in task.prompt and "sorry" not in task.prompt.split("```lean4\n")[1]
    _, info = test.reset(options={"task": task})
    assert info["metadata"] == {"name": "mathd_algebra_478", "split": "test", "source": "mathd"}
    with pytest.raises(ValueError, match="splits"):
        rlvr_envs.make("lean-minif2f", data=data, split="train")


def test_minif2f_labels():
    assert minif2f_label("amc12a_2019_p21") == ("amc", {"source": "amc", "year": 2019})
    assert minif2f_label("aimeI_2000_p7")[0] == "aime"
    assert minif2f_label("imo_1959_p1") == ("imo", {"source": "imo", "year": 1959})
    assert minif2f_label("induction_12dvd4expnp1p20")[0] == "induction"
    assert minif2f_label("weird") == (None, {})


def test_presets_fail_at_make_offline_naming_data(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for env_id in ("lean-minif2f", "lean-workbook"):
        start = time.perf_counter()
        with pytest.raises(DataUnavailableError, match="data="):
            rlvr_envs.make(env_id)
        assert time.perf_counter() - start < 1.0


def test_user_data_rows_must_have_statement_and_header():
    with pytest.raises(DataError, match="statement"):
        rlvr_envs.make("lean", data=[{"header": "import Mathlib", "statement": None}])
    with pytest.raises(DataError, match="header"):
        rlvr_envs.make("lean", data=[{"statement": "theorem a : True :="}])
    with pytest.raises(DataError, match="row 1"):
        rlvr_envs.make("lean", data=[{"header": "", "statement": "def x := 1"}])
    with pytest.raises(DataError, match="header"):
        rlvr_envs.make("lean-minif2f", data=[{"name": "x", "split": "test", "formal_statement": "theorem x : True :="}])
    with pytest.raises(DataRequiredError, match="data="):
        rlvr_envs.make("lean")
    env = rlvr_envs.make("lean", data=[{"statement": "theorem a : True :="}], default_header="import Mathlib\n")
    assert env.tasks[0].answer["header"] == "import Mathlib\n"
    core = rlvr_envs.make("lean", data=[{"header": "", "statement": "theorem a : True :="}])
    assert core.tasks[0].answer == {"header": "", "statement": "theorem a : True :="}


def test_a_bad_row_is_named_by_its_file_line_and_limit_keeps_the_first_tasks(tmp_path):
    good = {"header": "import Mathlib", "statement": "theorem a : True :="}
    path = tmp_path / "gappy.jsonl"
    path.write_text("\n" + json.dumps(good) + "\n\n" + json.dumps({"header": "import Mathlib"}) + "\n")
    with pytest.raises(DataError, match=r"gappy.jsonl row 4: .*'statement'"):
        rlvr_envs.make("lean", data=str(path))
    minif2f = tmp_path / "minif2f.jsonl"
    stated = {"header": "import Mathlib", "formal_statement": "theorem a : True :="}
    rows = [{"name": f"mathd_algebra_{i}", "split": "valid" if i % 2 else "test", **stated} for i in range(6)]
    rows[5] = {"name": "mathd_algebra_5", "split": "valid", "header": "import Mathlib"}
    minif2f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(DataError, match=r"minif2f.jsonl row 6: .*'formal_statement'"):
        rlvr_envs.make("lean-minif2f", data=str(minif2f), split="valid")
    rows[5]["formal_statement"] = "theorem a : True :="
    minif2f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = rlvr_envs.make("lean-minif2f", data=str(minif2f), split="valid", limit=2)
    assert [t.id for t in env.tasks] == ["mathd_algebra_1", "mathd_algebra_3"]
    with pytest.raises(ValueError, match="limit"):
        rlvr_envs.make("lean", data=[good], limit=0)


def test_column_mapping_and_reference_rows():
    rows = [
        {"src": "import Mathlib\n", "thm": "theorem a : True :=", "key": "A", "lvl": 3},
        {"reference": "theorem b : 1 = 1 := sorry\n", "key": "B", "lvl": 1},
    ]
    env = rlvr_envs.make("lean", data=rows, header_key="src", statement_key="thm", id_key="key", difficulty_key="lvl")
    a, b = env.tasks
    assert (a.id, a.answer, a.difficulty.label) == (
        "A",
        {"header": "import Mathlib\n", "statement": "theorem a : True :="},
        3,
    )
    assert b.answer == {"reference": "theorem b : 1 = 1 := sorry\n"} and "Replace every `sorry`" in b.prompt
    assert env.verify(b, "theorem b : 1 = 1 := rfl\n").reason is Reason.VERIFIER_ERROR
    assert env.verify(b, "theorem b : 1 = 2 := rfl\n").details["rule"] == "reference_drift"


def test_policy_options_reach_the_verifier():
    rows = read_jsonl("lean_cases.jsonl")[:3]
    strict = rlvr_envs.make("lean", data=rows, id_key="id")
    loose = rlvr_envs.make("lean", data=rows, id_key="id", allow_native_decide=True)
    task = strict.tasks[0]
    assert strict.verify(task, "by native_decide").details["rule"] == "native_decide"
    assert loose.verify(task, "by native_decide").reason is Reason.VERIFIER_ERROR
    with pytest.raises(ConfigurationError, match="not both"):
        rlvr_envs.make("lean", data=rows, verifier=strict.verifier, allow_helpers=False)


def _doctor(argv):
    parser = argparse.ArgumentParser()
    add_parsers(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["lean", "doctor", *argv])
    return args.func(args)


def test_doctor_reports_what_is_missing_and_the_fix(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert _doctor(["--no-run"]) == 1
    out = capsys.readouterr().out
    assert "MISSING  elan" in out and "elan-init.sh" in out and "MISSING  repl binary" in out and "lake build" in out
    project = tmp_path / "proofs"
    (project / ".lake/packages/mathlib").mkdir(parents=True)
    (project / "lakefile.toml").write_text('name = "proofs"\n')
    (project / "lean-toolchain").write_text("leanprover/lean4:v4.15.0\n")
    (project / "lake-manifest.json").write_text(json.dumps({"packages": [{"name": "mathlib"}]}))
    assert _doctor(["--no-run", "--project", str(project)]) == 1
    out = capsys.readouterr().out
    assert "ok       project" in out and "v4.15.0" in out and "lake exe cache get" in out


def test_doctor_runs_a_repl(capsys):
    assert _doctor(["--repl-command", STANDIN, "--timeout", "20"]) == 0
    assert "ok       repl run" in capsys.readouterr().out
    assert _doctor(["--repl-command", "/nonexistent/repl", "--timeout", "5"]) == 1


def test_doctor_through_the_core_cli(capsys):
    from rlvr_envs.cli import main

    assert main(["lean", "doctor", "--repl-command", STANDIN, "--timeout", "20"]) == 0
    assert "ok       repl run" in capsys.readouterr().out
