"""Issues 17 and 20 for the code family: one data vocabulary, and bad rows rejected at make().

Before, a HumanEval row with ``prompt: null`` failed with a bare ``TypeError`` (or, without a
solution column, a ``KeyError``), an MBPP row with ``text: null`` became the prompt
``"None\\nYour code should pass..."``, a stdin/stdout row without a problem statement got a
generic one, a null stdin case became the input ``"None"``, an empty test list a task every
program passes, and the presets only read their data (``path=``) on first use.
"""

from __future__ import annotations

import json
import sys
import time
import types

import pytest

import rlvr_envs
from rlvr_envs.errors import ConfigurationError, DataError, DataRequiredError, DataUnavailableError
from tests.helpers.data import shared_path

HUMANEVAL = {
    "task_id": "HumanEval/0",
    "prompt": 'def add(a, b):\n    """a + b"""\n',
    "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n",
    "entry_point": "add",
    "canonical_solution": "    return a + b\n",
}
MBPP = {
    "task_id": 1,
    "text": "Write a function to add two numbers.",
    "code": "def add(a, b):\n    return a + b",
    "test_list": ["assert add(1, 2) == 3", "assert add(0, 0) == 0"],
    "test_setup_code": "",
    "split": "test",
}
STDIO = {"id": "double", "prompt": "Print 2*n.", "inputs": ["3\n", "-1\n"], "outputs": ["6\n", "-2\n"]}
NATIVE = {
    "id": "sq",
    "prompt": "Write square(x).",
    "answer": {
        "format": "asserts",
        "tests": ["assert square(3) == 9"],
        "canonical_solution": "def square(x):\n    return x*x",
    },
}
LAYOUTS = {
    "humaneval": (HUMANEVAL, ["prompt", "test", "entry_point"]),
    "mbpp": (MBPP, ["text", "test_list"]),
    "stdio": (STDIO, ["prompt", "inputs", "outputs"]),
    "native": (NATIVE, ["prompt"]),
}
CASES = [(layout, column) for layout, (_, columns) in LAYOUTS.items() for column in columns]


def _second(good: dict, column: str, bad: object) -> dict:
    """A copy of ``good`` with ``column`` set to ``bad`` ("missing": removed), as a second row."""
    broken = {**good, "task_id": 2, "id": "second"} if "task_id" in good else {**good, "id": "second"}
    if bad == "missing":
        del broken[column]
    else:
        broken[column] = bad
    return broken


def _write_jsonl(path, rows, blank_lines_before: int = 0) -> str:
    path.write_text("\n" * blank_lines_before + "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("bad", [None, "", "   ", "missing"])
@pytest.mark.parametrize("layout, column", CASES)
def test_user_rows_with_a_null_empty_or_missing_required_column_fail_naming_row_and_column(layout, column, bad):
    good = LAYOUTS[layout][0]
    with pytest.raises(DataError) as caught:
        rlvr_envs.make("code-python", data=[good, _second(good, column, bad)])
    message = str(caught.value)
    assert message.startswith("data row 2:"), message
    assert repr(column) in message, message
    assert f"columns={{{column!r}: 'your column'}}" in message, message
    assert "None" not in message.replace("NoneType", "")


@pytest.mark.parametrize(
    "env_id, good, column",
    [("code-humaneval", HUMANEVAL, c) for c in ("prompt", "test", "entry_point", "canonical_solution", "task_id")]
    + [("code-mbpp", MBPP, c) for c in ("text", "test_list", "code", "task_id")],
)
@pytest.mark.parametrize("bad", [None, "", "missing"])
def test_presets_reject_a_null_or_missing_field_at_make(env_id, good, column, bad):
    with pytest.raises(DataError) as caught:
        rlvr_envs.make(env_id, data=[good, _second(good, column, bad)])
    message = str(caught.value)
    assert "row 2" in message and repr(column) in message and "columns={" in message, message


def test_regression_a_null_humaneval_prompt_names_the_file_line_and_column(tmp_path):
    rows = [HUMANEVAL, {**HUMANEVAL, "task_id": "HumanEval/1", "prompt": None}]
    path = _write_jsonl(tmp_path / "HumanEval.jsonl", rows, blank_lines_before=1)
    for env_id in ("code-humaneval", "code-python"):
        with pytest.raises(DataError) as caught:
            rlvr_envs.make(env_id, data=path)
        message = str(caught.value)
        # The file's line 3 (a blank line, then two rows), the column, and how to map another one.
        assert message.startswith(f"{path} row 3: the prompt column 'prompt' is null"), message
        assert "columns={'prompt': 'your column'}" in message


def test_regression_null_mbpp_text_never_becomes_the_prompt_none():
    with pytest.raises(DataError, match=r"data row 1: the text column 'text' is null"):
        rlvr_envs.make("code-mbpp", data=[{**MBPP, "text": None}])


def test_regression_a_stdio_row_without_a_problem_statement_is_refused():
    row = {"inputs": ["1\n"], "outputs": ["1\n"]}
    with pytest.raises(DataError, match=r"no column 'prompt'"):
        rlvr_envs.make("code-python", data=[row])


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"inputs": ["3\n", None]}, r"item 2 of the inputs column 'inputs' is null"),
        ({"outputs": [None, "2\n"]}, r"item 1 of the outputs column 'outputs' is null"),
        ({"inputs": ["3\n"]}, r"1 inputs \(column 'inputs'\) but 2 outputs \(column 'outputs'\)"),
        ({"inputs": [], "outputs": []}, r"the inputs column 'inputs' is an empty list"),
        ({"inputs": "3\n"}, r"the inputs column 'inputs' must be a list, got str"),
        ({"outputs": [["6"], "2\n"]}, r"item 1 of the outputs column 'outputs' must be text, got list"),
    ],
)
def test_stdio_cases_must_be_lists_of_text_of_equal_length(change, expected):
    with pytest.raises(DataError, match=expected):
        rlvr_envs.make("code-python", data=[{**STDIO, **change}])


def test_stdio_cases_may_be_empty_strings_and_numbers_are_text():
    env = rlvr_envs.make("code-python", data=[{**STDIO, "inputs": ["", 5], "outputs": ["", "10\n"]}])
    assert env.tasks[0].answer["cases"] == [{"input": "", "output": ""}, {"input": "5", "output": "10\n"}]


@pytest.mark.parametrize(
    "answer, expected",
    [
        ({"format": "mystery"}, r"format 'mystery'; expected one of \['humaneval', 'asserts', 'stdio'\]"),
        ({"format": "asserts", "tests": []}, r"needs 'tests', a non-empty list"),
        ({"format": "asserts", "tests": ["assert f()", None]}, r"needs 'tests'"),
        ({"format": "asserts"}, r"needs 'tests'"),
        ({"format": "humaneval", "test": "def check(c): pass", "entry_point": None}, r"needs 'entry_point'"),
        ({"format": "stdio", "cases": [{"input": "1", "output": None}]}, r"case 1 is"),
        ({"format": "stdio", "cases": []}, r"needs 'cases'"),
    ],
)
def test_native_answers_need_their_format_s_fields(answer, expected):
    with pytest.raises(DataError, match=expected):
        rlvr_envs.make("code-python", data=[{"id": "x", "prompt": "p", "answer": answer}])


def test_an_empty_mbpp_test_list_is_refused_not_a_free_pass():
    with pytest.raises(DataError, match=r"the test_list column 'test_list' is an empty list"):
        rlvr_envs.make("code-python", data=[{**MBPP, "test_list": []}])
    with pytest.raises(DataError, match=r"item 2 of the test_list column 'test_list' is empty"):
        rlvr_envs.make("code-python", data=[{**MBPP, "test_list": ["assert add(1, 2) == 3", " "]}])


def test_rows_of_no_known_layout_list_their_columns_and_the_mapping(tmp_path):
    with pytest.raises(DataError) as caught:
        rlvr_envs.make("code-python", data=[NATIVE, {"question": "q", "tests": ["assert f()"]}])
    message = str(caught.value)
    assert message.startswith("data row 2: not a code task") and "['question', 'tests']" in message
    assert "columns={'test_list'" in message
    lines = tmp_path / "rows.jsonl"
    lines.write_text(json.dumps(NATIVE) + '\n"just text"\n', encoding="utf-8")
    with pytest.raises(DataError, match=rf"{lines} row 2: expected an object with columns, got str"):
        rlvr_envs.make("code-python", data=str(lines))


def test_column_mapping_reads_other_column_names_and_errors_name_the_user_s_column():
    rows = [{"qid": "a", "question": "Add.", "tests": ["assert add(1, 1) == 2"], "reference": MBPP["code"]}]
    mapping = {"text": "question", "test_list": "tests", "code": "reference"}
    env = rlvr_envs.make("code-python", data=rows, columns=mapping, id_key="qid")
    task = env.tasks[0]
    assert task.id == "a" and task.prompt.startswith("Add.\n") and task.answer["tests"] == rows[0]["tests"]
    assert task.answer["canonical_solution"] == MBPP["code"] and task.answer["solution_names"] == ["add"]
    with pytest.raises(DataError, match=r"data row 1: the test_list column 'tests' is null"):
        rlvr_envs.make("code-python", data=[{**rows[0], "tests": None}], columns=mapping)
    # prompt_key= is short for columns={"prompt": ...}
    stdio = {"statement": "Echo.", "inputs": ["x"], "outputs": ["x"]}
    assert rlvr_envs.make("code-python", data=[stdio], prompt_key="statement").tasks[0].prompt == "Echo."
    with pytest.raises(ConfigurationError, match="disagree"):
        rlvr_envs.make("code-python", data=[stdio], prompt_key="statement", columns={"prompt": "other"})
    # A preset reads a file with other column names through the same mapping.
    renamed = {("body" if k == "prompt" else k): v for k, v in HUMANEVAL.items()}
    assert rlvr_envs.make("code-humaneval", data=[renamed], columns={"prompt": "body"}).tasks[0].id == "HumanEval/0"


def test_duplicate_ids_name_both_rows():
    with pytest.raises(DataError, match=r"data row 2: task id 'double' is already the id of data row 1.*id_key="):
        rlvr_envs.make("code-python", data=[STDIO, STDIO])


def test_a_null_id_is_never_the_id_none():
    env = rlvr_envs.make("code-python", data=[{**NATIVE, "id": None}, {**STDIO, "id": None}])
    assert [t.id for t in env.tasks] == ["0", "stdio/1"]


def test_mbpp_sanitized_layout_and_csv_cells_holding_json_lists(tmp_path):
    sanitized = {
        "task_id": 7,
        "prompt": "Write a function to find the gcd.",
        "code": "import math\ndef g(a, b):\n    return math.gcd(a, b)",
        "test_imports": ["import math"],
        "test_list": ["assert g(4, 6) == 2"],
    }
    task = rlvr_envs.make("code-mbpp", data=[sanitized, {**sanitized, "task_id": 8, "test_imports": []}]).tasks[0]
    assert task.prompt.startswith("Write a function to find the gcd.") and task.answer["setup"] == "import math"
    csv_path = tmp_path / "mbpp.csv"
    csv_path.write_text(
        'task_id,text,code,test_list\n1,"Add.","def add(a, b):\n    return a + b","[""assert add(1, 2) == 3""]"\n',
        encoding="utf-8",
    )
    task = rlvr_envs.make("code-mbpp", data=str(csv_path)).tasks[0]
    assert task.id == "mbpp/1" and task.answer["tests"] == ["assert add(1, 2) == 3"]


def test_presets_take_data_rows_or_a_path_and_keep_path_as_an_alias():
    humaneval = str(shared_path("humaneval.jsonl"))
    by_data = rlvr_envs.make("code-humaneval", data=humaneval, limit=3)
    by_path = rlvr_envs.make("code-humaneval", path=humaneval, limit=3)
    by_rows = rlvr_envs.make("code-humaneval", data=[HUMANEVAL])
    assert (
        [t.id for t in by_data.tasks] == [t.id for t in by_path.tasks] == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
    )
    assert by_rows.tasks[0].answer["canonical_solution"] == HUMANEVAL["prompt"] + HUMANEVAL["canonical_solution"]
    from rlvr_envs.errors import ConfigurationError

    for env_id in ("code-humaneval", "code-mbpp"):
        # The core reads path= as data= for every id: the same file twice is one file, two differ.
        with pytest.raises(ConfigurationError, match="path="):
            rlvr_envs.make(env_id, data=humaneval, path=str(shared_path("mbpp.jsonl")))


def test_the_real_files_load_whole_and_by_split_and_limit():
    assert len(rlvr_envs.make("code-humaneval", data=str(shared_path("humaneval.jsonl"))).tasks) == 164
    mbpp = str(shared_path("mbpp.jsonl"))
    # -v6 leaves out MBPP/367 (test split): two hidden yes/no asserts on trees its setup builds, none
    # derivable, so a guess passed 1 time in 4 (tests/code/test_code_redteam_round9.py).
    assert len(rlvr_envs.make("code-mbpp", data=mbpp).tasks) == 973
    sizes = {
        s: len(rlvr_envs.make("code-mbpp", data=mbpp, split=s).tasks) for s in ("prompt", "train", "validation", "test")
    }
    assert sizes == {"prompt": 10, "train": 374, "validation": 90, "test": 499}
    limited = rlvr_envs.make("code-mbpp", data=mbpp, split="validation", limit=5)
    assert len(limited.tasks) == 5 and {t.metadata["split"] for t in limited.tasks} == {"validation"}
    with pytest.raises(ConfigurationError, match="limit="):
        rlvr_envs.make("code-mbpp", data=mbpp, limit=0)


def test_mbpp_split_needs_a_split_column_in_a_local_copy():
    rows = [{k: v for k, v in MBPP.items() if k != "split"}]
    assert len(rlvr_envs.make("code-mbpp", data=rows).tasks) == 1
    with pytest.raises(DataError, match=r"split='test' picks rows by their 'split' column"):
        rlvr_envs.make("code-mbpp", data=rows, split="test")
    with pytest.raises(ConfigurationError, match="unknown MBPP split 'dev'"):
        rlvr_envs.make("code-mbpp", data=rows, split="dev")


def test_datasets_objects_and_dataset_dict_splits():
    datasets = pytest.importorskip("datasets")
    one = datasets.Dataset.from_list([HUMANEVAL])
    assert rlvr_envs.make("code-humaneval", data=one).tasks[0].id == "HumanEval/0"
    both = datasets.DatasetDict(
        {
            "train": datasets.Dataset.from_list([{**MBPP, "task_id": 1}]),
            "test": datasets.Dataset.from_list([{**MBPP, "task_id": 2}]),
        }
    )
    assert [t.id for t in rlvr_envs.make("code-mbpp", data=both).tasks] == ["mbpp/1", "mbpp/2"]
    assert [t.metadata["split"] for t in rlvr_envs.make("code-mbpp", data=both, split="test").tasks] == ["test"]
    with pytest.raises(DataError, match=r"data\[test\] row 1: the text column 'text' is null"):
        rlvr_envs.make(
            "code-mbpp", data=datasets.DatasetDict({"test": datasets.Dataset.from_list([{**MBPP, "text": None}])})
        )


def test_code_python_without_data_or_with_a_missing_file_fails_at_make(tmp_path):
    with pytest.raises(DataRequiredError, match=r"code-python needs your tasks: pass data="):
        rlvr_envs.make("code-python")
    with pytest.raises(DataUnavailableError, match="no such data file"):
        rlvr_envs.make("code-python", data=str(tmp_path / "nope.jsonl"))
    with pytest.raises(DataUnavailableError, match="no such data file"):
        rlvr_envs.make("code-humaneval", data=str(tmp_path / "nope.jsonl"))


@pytest.mark.parametrize("env_id", ["code-humaneval", "code-mbpp"])
def test_presets_fail_at_make_offline_within_a_second_naming_data(env_id, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.perf_counter()
    with pytest.raises(DataUnavailableError) as caught:
        rlvr_envs.make(env_id)
    assert time.perf_counter() - start < 1.0
    message = str(caught.value)
    assert message.startswith(f"{env_id}: cannot load") and "HF_HUB_OFFLINE is set" in message
    assert f"make({env_id!r}, data='/path/to/" in message and "path=" in message


def _fake_datasets(monkeypatch, load_dataset):
    import rlvr_envs.data

    monkeypatch.setattr(rlvr_envs.data, "hub_offline_reason", lambda timeout_s=0.8: None)
    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))


def test_a_hub_failure_fails_at_make_naming_data(monkeypatch):
    def refuse(*args, **kwargs):
        raise ConnectionError("the dataset is gated")

    _fake_datasets(monkeypatch, refuse)
    with pytest.raises(DataUnavailableError, match=r"code-humaneval: could not load openai/openai_humaneval.*data="):
        rlvr_envs.make("code-humaneval")


def test_hub_rows_are_checked_and_mbpp_splits_are_tagged_and_ordered(monkeypatch):
    calls = []

    def load_dataset(name, config=None, *, split, data_files=None):
        calls.append((name, config, split))
        if name == "openai/openai_humaneval":
            return [HUMANEVAL, {**HUMANEVAL, "task_id": "HumanEval/1", "test": None}]
        first = {"prompt": 2, "train": 1, "validation": 4, "test": 3}[split]
        return [{**MBPP, "task_id": first}]

    _fake_datasets(monkeypatch, load_dataset)
    env = rlvr_envs.make("code-mbpp")
    assert [(t.id, t.metadata["split"]) for t in env.tasks] == [
        ("mbpp/1", "train"),
        ("mbpp/2", "prompt"),
        ("mbpp/3", "test"),
        ("mbpp/4", "validation"),
    ]
    assert calls == [("google-research-datasets/mbpp", "full", s) for s in ("prompt", "train", "validation", "test")]
    assert [t.id for t in rlvr_envs.make("code-mbpp", split="test").tasks] == ["mbpp/3"]
    with pytest.raises(DataError, match=r"openai/openai_humaneval row 2: the test column 'test' is null"):
        rlvr_envs.make("code-humaneval")
