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
