import json

import pytest

import rlvr_envs
from rlvr_envs.cli import main
from rlvr_envs.cli.core import parse_env_args

rlvr_envs.register(
    "toycli-add-v0",
    "tests.helpers.toy:ToyAddEnv",
    size=None,
    data_source="procedural",
    difficulty_fields=("level",),
    override=True,
)
rlvr_envs.register("toycli-list-v0", "tests.helpers.toy:ToyListEnv", size=5, data_source="generated", override=True)


def test_list_shows_a_table_and_json(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "toycli-add-v0" in out and "procedural" in out and "environment(s)" in out
    assert main(["list", "--json", "--family", "toycli"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rows} == {"toycli-add-v0", "toycli-list-v0"}


def test_show_hides_answers_unless_asked(capsys):
    assert main(["show", "toycli-list", "-n", "2"]) == 0
    out = capsys.readouterr().out
    assert '"answer"' not in out and "What is" in out
    assert main(["show", "toycli-list", "-n", "1", "--with-answers", "--arg", "n=3"]) == 0
    assert '"answer"' in capsys.readouterr().out


def test_verify_round_trips_a_file(tmp_path, capsys):
    env = rlvr_envs.make("toycli-list")
    rows = [
        {"task_id": "t1", "completion": "\\boxed{2}"},
        {"task_id": "t2", "completion": "\\boxed{5}"},
        {"task": env.tasks[3].model_dump(), "completion": "#### 6"},
    ]
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    assert main(["verify", "toycli-list", "--input", str(src), "--output", str(dst), "--quiet"]) == 0
    out = [json.loads(line) for line in dst.read_text().splitlines()]
    assert [(o["task_id"], o["passed"], o["reason"]) for o in out] == [
        ("t1", True, "ok"),
        ("t2", False, "wrong"),
        ("t3", True, "ok"),
    ]
    assert "2/3 passed" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"task_id": "t1", "completion": "x"}\n{not json}\n', "in.jsonl:2: not valid JSON"),
        ('{"task_id": "t1"}\n', "in.jsonl:1: missing the 'completion' field"),
        ("[1, 2]\n", "in.jsonl:1: expected a JSON object"),
        ('{"completion": "x"}\n', "in.jsonl:1: needs a 'task' object or a 'task_id'"),
        ('{"task_id": "nope", "completion": "x"}\n', "in.jsonl:1: toycli-list-v0 has no task 'nope'"),
        ('{"task": {"prompt": 3}, "completion": "x"}\n', "in.jsonl:1: invalid 'task'"),
    ],
)
def test_verify_names_the_bad_line(tmp_path, capsys, content, message):
    src = tmp_path / "in.jsonl"
    src.write_text(content)
    assert main(["verify", "toycli-list", "--input", str(src), "--output", str(tmp_path / "o.jsonl")]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "raw",
    [
        b'{"task_id": "t1", "completion": "x"}\n{"task_id": "t2", "completion": "\xff\xfe"}\n',  # Latin-1 bytes
        b'{"task_id": "t1", "completion": "x"}\n' + '{"task_id": "t2", "completion": "ü"}\n'.encode("utf-16"),
        b'{"task_id": "t1", "completion": "x"}\n{"task_id": "t2", "completion": "\xed\xa0\x80"}\n',  # a surrogate
    ],
)
def test_verify_names_a_line_that_is_not_utf8(tmp_path, capsys, raw):
    # A line of other bytes was a UnicodeDecodeError traceback (exit 1) that named no line.
    src = tmp_path / "in.jsonl"
    src.write_bytes(raw)
    assert main(["verify", "toycli-list", "--input", str(src), "--output", str(tmp_path / "o.jsonl")]) == 2
    assert "in.jsonl:2: not UTF-8" in capsys.readouterr().err


def test_unknown_env_is_a_clean_error(capsys):
    assert main(["show", "toycli-ad"]) == 1
    assert "did you mean 'toycli-add'" in capsys.readouterr().err


def test_missing_input_file_is_a_clean_error(tmp_path, capsys):
    assert main(["verify", "toycli-list", "--input", str(tmp_path / "none.jsonl"), "--output", "x"]) == 2
    assert "No such file" in capsys.readouterr().err


def test_env_args_parse_json_values():
    assert parse_env_args(["size=10", "path=a.jsonl", "flag=true", "lst=[1,2]"]) == {
        "size": 10,
        "path": "a.jsonl",
        "flag": True,
        "lst": [1, 2],
    }
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_env_args(["novalue"])


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "rlvr-envs" in capsys.readouterr().out


# -- subcommands from the rlvr_envs.cli entry-point group ---------------------------------------

CLI_GOOD = """
def add_parsers(subparsers):
    p = subparsers.add_parser("hello", help="say hello (from a plugin)")
    p.add_argument("--name", default="world")
    p.set_defaults(func=lambda args: print(f"hello {args.name}") or 0)
"""
CLI_TRAIN = """
def add_parsers(subparsers):
    p = subparsers.add_parser("train", help="the plugin's trainer")
    p.add_argument("--config", required=True)
    p.set_defaults(func=lambda args: print(f"plugin train {args.config}") or 0)
"""
CLI_CLASH = """
def add_parsers(subparsers):
    subparsers.add_parser("extra", help="added before the clash").set_defaults(func=lambda a: 0)
    subparsers.add_parser("list", help="tries to take a core command")
"""
CLI_BROKEN = "raise RuntimeError('cli plugin broken on purpose')\n"


def _fake_cli_plugins(tmp_path, plugins):
    for ep_name, source in plugins.items():
        module = f"cliplug_{ep_name}"
        (tmp_path / f"{module}.py").write_text(source)
        dist = tmp_path / f"{module}-0.1.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
        (dist / "entry_points.txt").write_text(f"[rlvr_envs.cli]\n{ep_name} = {module}:add_parsers\n")


def _cli(tmp_path, *argv):
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.getcwd()]))
    code = "import sys; from rlvr_envs.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env, timeout=120)


def test_plugins_add_subcommands_and_a_broken_one_only_warns(tmp_path):
    _fake_cli_plugins(tmp_path, {"good": CLI_GOOD, "broken": CLI_BROKEN, "clash": CLI_CLASH})
    proc = _cli(tmp_path, "hello", "--name", "plugin")
    assert proc.returncode == 0 and proc.stdout.strip() == "hello plugin", proc.stderr
    assert "cli plugin broken on purpose" in proc.stderr and "'broken'" in proc.stderr
    assert "wants the command 'list'" in proc.stderr
    helped = _cli(tmp_path, "--help")
    assert helped.returncode == 0 and "hello" in helped.stdout and "say hello" in helped.stdout
    assert "added before the clash" not in helped.stdout  # a plugin that failed half-way adds nothing
    listed = _cli(tmp_path, "list", "--family", "no-such-family")
    assert listed.returncode == 0 and "0 environment(s)" in listed.stdout
    assert "broken on purpose" not in listed.stderr  # a core command does not even import the plugins


def _only_these_cli_plugins(monkeypatch, tmp_path, plugins):
    """In this process, the rlvr_envs.cli group holds exactly ``plugins`` (not the installed ones)."""
    from importlib import metadata

    import rlvr_envs.cli as cli

    for ep_name, source in plugins.items():
        (tmp_path / f"cliplug_{ep_name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    eps = [metadata.EntryPoint(n, f"cliplug_{n}:add_parsers", cli.ENTRY_POINT_GROUP) for n in plugins]
    monkeypatch.setattr(cli, "plugin_entry_points", lambda: eps)


def test_train_comes_only_from_a_plugin(tmp_path, monkeypatch, capsys):
    from rlvr_envs.cli import _core_parser

    assert "train" not in _core_parser()[2]  # the core never imports the trainers
    _only_these_cli_plugins(monkeypatch, tmp_path, {"trainers": CLI_TRAIN})
    assert main(["train", "--config", "x.yaml"]) == 0
    assert capsys.readouterr().out.strip() == "plugin train x.yaml"


def test_a_plugin_that_fails_half_way_leaves_no_command_behind(tmp_path, monkeypatch, capsys):
    half = CLI_TRAIN + "    raise RuntimeError('failed after adding train')\n"
    _only_these_cli_plugins(monkeypatch, tmp_path, {"trainershalf": half})
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    captured = capsys.readouterr()
    assert "invalid choice: 'train'" in captured.err and "failed after adding train" in captured.err


def test_list_accepts_the_family_or_its_distribution_name(capsys):
    import rlvr_envs

    rlvr_envs.register("toyfam-add-v0", "tests.helpers.toy:ToyAddEnv", family="toyfam", distinct_tasks={1: 10})
    assert main(["list", "--family", "toyfam"]) == 0
    out = capsys.readouterr().out
    assert "toyfam-add-v0" in out and "level 1: 10" in out and "sample() repeats" in out
    if any(s.family == "rg" for s in rlvr_envs.registry.latest()):
        counts = []
        for name in ("rg", "reasoning-gym", "reasoning_gym"):
            assert main(["list", "--json", "--family", name]) == 0
            counts.append(len(json.loads(capsys.readouterr().out)))
        assert counts[0] > 100 and len(set(counts)) == 1
