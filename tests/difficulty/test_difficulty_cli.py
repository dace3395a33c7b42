"""The profile / filter / eval / audit commands, including a profile killed mid-run and resumed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlvr_envs.audit import closeness, parse_number
from rlvr_envs.cli import main
from rlvr_envs.difficulty.filter import read_tasks
from tests.difficulty.helpers_difficulty import CHILD_CLI, FakeOpenAIServer, register_toy_ids
from tests.helpers.toy import ToyAddEnv

REPO = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"
SCRIPTED = ["--sampler", "python", "--model", "tests.difficulty.helpers_difficulty:scripted_sampler"]


@pytest.fixture(autouse=True)
def toy_ids():
    register_toy_ids()


def done_tasks(db: Path) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(db, timeout=10)
    try:
        return con.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
    except sqlite3.OperationalError:  # schema not created yet
        return 0
    finally:
        con.close()


def sample_rows(db: Path) -> dict[tuple[str, int], tuple]:
    con = sqlite3.connect(db, timeout=10)
    try:
        rows = con.execute("SELECT task_fp, idx, completion, reward, passed, created FROM samples").fetchall()
    finally:
        con.close()
    return {(r[0], r[1]): r[2:] for r in rows}


def run_child(args: list[str], **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD_CLI, *args],
        cwd=REPO,
        env=env,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


@pytest.mark.slow
def test_profile_killed_mid_run_resumes_and_loses_nothing(tmp_path):
    size, n = 30, 4
    expected = len({t.fingerprint for t in ToyAddEnv(size=size).tasks})
    db = tmp_path / "profile.sqlite"
    with FakeOpenAIServer(delay_s=0.08, max_requests=400) as server:
        args = [
            "profile",
            "difftoy-add-v0",
            "--arg",
            f"size={size}",
            "--sampler",
            "openai",
            "--model",
            "toy",
            "--base-url",
            server.base_url,
            "--concurrency",
            "1",
            "-n",
            str(n),
            "--batch-tasks",
            "2",
            "--db",
            str(db),
            "--no-card",
        ]
        child = run_child(args)
        deadline = time.monotonic() + 120
        while done_tasks(db) < 5:
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the profile never got going"
            time.sleep(0.05)
        os.killpg(child.pid, signal.SIGKILL)  # no chance to clean up, as with an OOM kill or a lost node
        child.communicate(timeout=30)
        assert child.returncode == -signal.SIGKILL
        before = sample_rows(db)
        done_at_kill = done_tasks(db)
        assert 5 <= done_at_kill < expected, "killed too late to test resuming"
        assert len(before) == done_at_kill * n  # each committed task has all its samples, none half-written

    # The rerun talks to a server of its own (the URL is not part of the sampler's key): a request
    # the killed child sent just before dying may still sit in the first one's accept queue and be
    # counted whenever its thread gets the CPU, so counting on the first server "after a sleep"
    # could blame the rerun for it under load.
    with FakeOpenAIServer(delay_s=0.08, max_requests=400) as rerun_server:
        rerun_args = [rerun_server.base_url if a == server.base_url else a for a in args]
        child = run_child(rerun_args)
        out, err = child.communicate(timeout=180)
        assert child.returncode == 0, err
        assert f"{done_at_kill} already done, {expected - done_at_kill} profiled now" in out
        assert "generation:" in out and "verification:" in out
        assert "ETA" in err or "<" in err  # tqdm's progress bar with its remaining-time estimate
        # Nothing verified before the kill was regenerated, changed or lost.
        assert rerun_server.requests == expected - done_at_kill
        after = sample_rows(db)
        assert {k: after[k] for k in before} == before
        assert len(after) == expected * n
        assert sorted({idx for _, idx in after}) == list(range(n))
        assert server.over_limit == 0 and rerun_server.over_limit == 0


def test_filter_command_writes_jsonl_and_parquet(tmp_path, capsys):
    db = tmp_path / "p.sqlite"
    card = tmp_path / "card.png"
    assert (
        main(
            [
                "profile",
                "difftoy-add-v0",
                "--arg",
                "size=20",
                *SCRIPTED,
                "-n",
                "8",
                "--db",
                str(db),
                "--no-progress",
                "--card",
                str(card),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "difficulty card: difftoy-add-v0" in out and "in band [0.2-0.8]" in out
    assert card.read_bytes()[:8] == PNG
    for suffix in (".jsonl", ".parquet"):
        dest = tmp_path / f"kept{suffix}"
        assert (
            main(
                [
                    "filter",
                    "difftoy-add-v0",
                    "--arg",
                    "size=20",
                    "--band",
                    "0.2",
                    "0.8",
                    "--db",
                    str(db),
                    "--out",
                    str(dest),
                ]
            )
            == 0
        )
        kept = read_tasks(dest)
        assert kept and all(0.2 <= t.difficulty.pass_rate.rate <= 0.8 for t in kept)
        assert f"kept {len(kept)} of" in capsys.readouterr().out
    assert (
        main(
            [
                "filter",
                "difftoy-add-v0",
                "--arg",
                "size=20",
                "--band",
                "0.95",
                "0.99",
                "--db",
                str(db),
                "--out",
                str(tmp_path / "none.jsonl"),
            ]
        )
        == 3
    )
    assert main(["filter", "difftoy-add-v0", "--db", str(tmp_path / "missing.sqlite"), "--out", "x.jsonl"]) == 1
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.slow
def test_eval_command_reports_pass_at_k_maj_at_k_and_writes_plots(tmp_path, capsys):
    db, plots, metrics = tmp_path / "e.sqlite", tmp_path / "plots", tmp_path / "m.json"
    code = main(
        [
            "eval",
            "difftoy-add-v0",
            "--arg",
            "size=16",
            *SCRIPTED,
            "-k",
            "1,2,4,8,16",
            "--db",
            str(db),
            "--plots",
            str(plots),
            "--json",
            str(metrics),
            "--no-progress",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "pass@1" in out and "maj@k" in out and "accuracy by completion length (chars)" in out
    report = json.loads(metrics.read_text())
    pass_k = [report["pass_at_k"][str(k)] for k in (1, 2, 4, 8, 16)]
    assert pass_k == sorted(pass_k) and pass_k[-1] > pass_k[0]
    p1 = report["pass_at_1"]
    assert p1["low"] <= p1["value"] <= p1["high"]
    # pass@1 is the mean per-task pass rate of what was stored.
    con = sqlite3.connect(db)
    rates = [p / s for p, s in con.execute("SELECT passes, samples FROM tasks")]
    assert p1["value"] == pytest.approx(sum(rates) / len(rates))
    for name in ("difftoy-add-v0.scaling.png", "difftoy-add-v0.length.png"):
        assert (plots / name).read_bytes()[:8] == PNG
    # k above the samples per task is reported, not silently estimated.
    assert (
        main(
            [
                "eval",
                "difftoy-add-v0",
                "--arg",
                "size=16",
                *SCRIPTED,
                "-k",
                "1,64",
                "-n",
                "16",
                "--db",
                str(db),
                "--plots",
                str(plots),
                "--no-progress",
            ]
        )
        == 0
    )
    assert "k=64 skipped" in capsys.readouterr().out


def test_audit_command_surfaces_formatting_false_negatives(tmp_path, capsys):
    db, out_file = tmp_path / "a.sqlite", tmp_path / "audit.jsonl"
    formatting = ["--sampler", "python", "--model", "tests.difficulty.helpers_difficulty:formatting_sampler"]
    assert (
        main(
            [
                "profile",
                "difftoy-add-v0",
                "--arg",
                "size=6",
                *formatting,
                "-n",
                "4",
                "--db",
                str(db),
                "--no-progress",
                "--no-card",
            ]
        )
        == 0
    )
    assert main(["audit", "difftoy-add-v0", "--arg", "size=6", "--db", str(db), "--out", str(out_file)]) == 0
    printed = capsys.readouterr().out
    cases = [json.loads(line) for line in out_file.read_text().splitlines()]
    extracted = {c["extracted"].split("=")[-1].strip().removesuffix(".0") == c["gold"] for c in cases}
    assert cases and extracted == {True}  # every flagged case is the right sum in another form
    assert not any(c["extracted"] == "-7" for c in cases)  # a plainly wrong answer is not flagged
    kinds = {k for c in cases for k in c["kinds"]}
    assert {"numerically_equal", "formatting_only"} <= kinds
    assert "close to the gold" in printed
    md = tmp_path / "audit.md"
    assert main(["audit", "difftoy-add-v0", "--db", str(db), "--out", str(md), "--limit", "2"]) == 0
    assert md.read_text().count("## ") == 2


@pytest.mark.parametrize(
    ("extracted", "gold", "kinds"),
    [
        ("42.0", "42", ["numerically_equal"]),
        ("\\frac{1}{2}", "0.5", ["numerically_equal"]),
        ("1,234", "1234", ["numerically_equal", "formatting_only"]),
        ("0.333", "1/3", ["numerically_near"]),
        ("x = 5", "5", ["numerically_equal", "formatting_only"]),
        ("\\text{(B)}", "(B)", ["formatting_only"]),
        ("5 apples", "5", ["contains_gold"]),
        ("15", "5", []),
        ("-5", "5", []),
        ("5.5", "5", []),
        ("2.5", "5", []),
        ("7", "5", []),
        ("", "5", []),
        ("3\\sqrt{2}", "4\\sqrt{2}", []),
        ("the answer is 12 cm", "12 cm", ["contains_gold"]),
        ("12", "12 cm", ["inside_gold"]),
    ],
)
def test_closeness_table(extracted, gold, kinds):
    assert closeness(extracted, gold) == kinds


def test_parse_number_never_raises_on_odd_input():
    for text in ["", "1/0", "1e999", "--", "\\frac{}{}", "1/2/3", "∞", "0x10"]:
        parse_number(text)
    assert parse_number("-3/4") == -0.75 and parse_number("$12\\%$") == 12.0
