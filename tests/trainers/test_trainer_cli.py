"""``rlvr-envs export | serve | train`` from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import pytest

import rlvr_envs
from rlvr_envs.adapters.routing import task_from_json
from rlvr_envs.cli import main


def test_export_verl_parquet(tmp_path, capsys):
    import pyarrow.parquet as pq

    out = tmp_path / "arith.parquet"
    assert main(["export", "math-arith", "--format", "verl", "-n", "7", "--out", str(out), "--arg", "level=3"]) == 0
    rows = pq.read_table(out).to_pylist()
    assert len(rows) == 7 and rows[0]["data_source"] == "math-arith-v4"
    assert "wrote 7 tasks" in capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["openrlhf", "trl"])
def test_export_jsonl(tmp_path, fmt):
    out = tmp_path / f"{fmt}.jsonl"
    assert main(["export", "math-arith", "--format", fmt, "-n", "5", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 5
    if fmt == "openrlhf":
        label = json.loads(rows[0]["label"])
        assert label["env_id"] == "math-arith-v4" and task_from_json(label["task"]).answer is not None
    else:
        assert rows[0]["env_id"] == "math-arith-v4" and task_from_json(rows[0]["task"]).id


def test_export_procedural_without_n_is_a_clear_error(tmp_path, capsys):
    assert main(["export", "math-arith", "--format", "openrlhf", "--out", str(tmp_path / "x.jsonl")]) == 1
    assert "pass -n" in capsys.readouterr().err


def test_train_with_a_bad_config_reports_the_field(tmp_path, capsys):
    config = tmp_path / "bad.yaml"
    config.write_text("envs: [math-arith-v4]\nmodel: m\npreset: ppo\n")
    assert main(["train", "--config", str(config)]) == 1
    assert "preset" in capsys.readouterr().err


def test_serve_answers_get_reward(tmp_path):
    env = rlvr_envs.make("math-arith")
    task = env.sample(1, seed=3)[0]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from rlvr_envs.cli import main; sys.exit(main())",
            "serve",
            "math-arith",
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        line = proc.stdout.readline()  # "rlvr-envs reward server on http://127.0.0.1:PORT/get_reward ..."
        url = line.split(" on ", 1)[1].split()[0]
        from rlvr_envs.server import openrlhf_label

        body = {
            "query": [env.gold_completion(task), "no"],
            "prompts": ["", ""],
            "labels": [openrlhf_label(env.env_id, task)] * 2,
        }
        request = urllib.request.Request(
            url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            assert json.loads(response.read())["rewards"] == [1.0, 0.0]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_train_from_a_yaml_config_with_a_saved_model(tmp_path, capsys):
    pytest.importorskip("trl")
    from rlvr_envs.adapters.trl import prompt_for
    from rlvr_trainers.tiny import build_model, build_tokenizer

    env = rlvr_envs.make("math-arith", prompt_format="answer_tag")
    corpus = [prompt_for(env, t, conversational=False) + env.gold_completion(t) for t in env.sample(100, seed=0)]
    tokenizer = build_tokenizer(corpus, vocab_size=300)
    build_model(tokenizer, hidden_size=32, layers=1, heads=2).save_pretrained(tmp_path / "model")
    tokenizer.save_pretrained(tmp_path / "model")
    config = tmp_path / "run.yaml"
    config.write_text(
        f"envs: [math-arith-v4]\nenv_kwargs: {{level: 1}}\nmodel: {tmp_path / 'model'}\nprompt_format: answer_tag\n"
        f"conversational: false\npreset: grpo\nnum_generations: 2\nprompts_per_step: 2\nmax_new_tokens: 6\n"
        f"max_steps: 1\neval_size: 2\neval_k: 2\nplot: false\nsave_model: true\noutput_dir: {tmp_path / 'out'}\n"
    )
    assert main(["train", "--config", str(config), "--set", "learning_rate=0.001"]) == 0
    saved = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert saved["steps"] == 1 and saved["device"] == "cpu" and "pass@1" in saved["after"]
    assert (tmp_path / "out" / "final" / "config.json").exists()
    assert json.loads((tmp_path / "out" / "config.json").read_text())["learning_rate"] == 0.001


def test_train_comes_from_the_trainers_entry_point():
    from importlib import metadata

    from rlvr_envs.cli import build_parser

    assert any(ep.value == "rlvr_trainers.cli:add_parsers" for ep in metadata.entry_points(group="rlvr_envs.cli"))
    args = build_parser().parse_args(["train", "--config", "run.yaml", "--resume"])
    assert args.func.__module__ == "rlvr_trainers.cli" and args.resume == "latest"
    assert build_parser().parse_args(["train", "--config", "run.yaml"]).resume is None
