"""Each contest set's row as a ``Problem``: its own field names, enums and encodings.

* CodeContests (``deepmind/code_contests``): ``name``, ``description``, ``public_tests``,
  ``private_tests``, ``generated_tests`` (each ``{"input": [...], "output": [...]}``),
  ``solutions`` (``{"language": [enum], "solution": [...]}``), ``time_limit``
  (``{"seconds", "nanos"}``), ``difficulty`` / ``source`` (enums), ``cf_rating``, ``cf_tags``.
* TACO (``BAAI/TACO``) and APPS (``codeparrot/apps``): ``question``, ``input_output`` (JSON text
  ``{"inputs", "outputs", "fn_name"?}``), ``solutions`` (JSON list), ``starter_code``,
  ``difficulty``; TACO's ``time_limit`` ("1 second"), ``source``, ``tags``; APPS' ``problem_id``.
* LiveCodeBench code generation (``livecodebench/code_generation_lite``): ``question_id``,
  ``question_title``, ``question_content``, ``platform``, ``difficulty``, ``starter_code``,
  ``public_test_cases`` (JSON) and ``private_test_cases`` (JSON, or base64 of zlib of a pickled
  JSON string), each case ``{"input", "output", "testtype": "stdin" | "functional"}``, and
  ``metadata`` (JSON, ``func_name``).
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from typing import Any

from rlvr_code.contests.rows import Problem, case_text, compressed_json, json_field, pairs, untestable
from rlvr_code.envs import RowPlace
from rlvr_code.limits import parse_seconds

CC_DIFFICULTY = (
    "UNKNOWN_DIFFICULTY",
    "EASY",
    "MEDIUM",
    "HARD",
    "HARDER",
    "HARDEST",
    "EXTERNAL",
    *"ABCDEFGHIJKLMNOPQRSTUV",
)
CC_SOURCE = ("UNKNOWN_SOURCE", "CODECHEF", "CODEFORCES", "HACKEREARTH", "CODEJAM", "ATCODER", "AIZU")
CC_LANGUAGE = ("UNKNOWN_LANGUAGE", "PYTHON", "CPP", "PYTHON3", "JAVA")
_CC_SOLUTION_LANGUAGE = {"python": "PYTHON3", "cpp": "CPP", "java": "JAVA"}


def _enum(names: tuple[str, ...], value: Any) -> Any:
    """An enum's name; numbers out of range stay numbers (a numpy integer from Parquet: an int)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return names[int(value)] if 0 <= int(value) < len(names) else int(value)
    return value


def _first_solution(solutions: Any, wanted: str) -> str | None:
    """CodeContests' first solution in the task's first language (Python 3 for Python)."""
    if not isinstance(solutions, Mapping):
        return None
    languages, texts = solutions.get("language"), solutions.get("solution")
    if languages is None or texts is None:
        return None
    target = _CC_SOLUTION_LANGUAGE.get(wanted)
    for language, text in zip(list(languages), list(texts)):
        if _enum(CC_LANGUAGE, language) == target and isinstance(text, str) and text.strip():
            return text
    return None


def codecontests_problem(row: Mapping[str, Any], place: RowPlace, *, language: str, generated: bool = True) -> Problem:
    name = str(place.need(row, "name"))
    statement = place.text(row, "description")
    public = pairs(place, row.get("public_tests"), "public_tests")
    hidden = pairs(place, row.get("private_tests"), "private_tests")
    extra = pairs(place, row.get("generated_tests"), "generated_tests") if generated else ([], [])
    inputs = public[0] + hidden[0] + extra[0]
    outputs = public[1] + hidden[1] + extra[1]
    if not inputs:
        raise untestable(place, "no tests: public_tests, private_tests and generated_tests are all empty")
    source = _enum(CC_SOURCE, row.get("source"))
    difficulty = _enum(CC_DIFFICULTY, row.get("difficulty"))
    metadata: dict[str, Any] = {"source": "code_contests", "platform": source}
    for key in ("cf_rating", "cf_contest_id", "memory_limit_bytes"):
        value = row.get(key)
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and value:
            number = float(value)
            metadata[key] = int(number) if number.is_integer() else number
    if isinstance(row.get("cf_index"), str) and row["cf_index"]:
        metadata["cf_index"] = row["cf_index"]
    tags = row.get("cf_tags")
    if tags is not None and len(tags):
        metadata["tags"] = [str(t) for t in tags]
    return Problem(
        id=name,
        statement=statement,
        inputs=inputs,
        outputs=outputs,
        files=_cc_files(row, place),
        public_count=len(public[0]),
        solution=_first_solution(row.get("solutions"), language),
        time_limit_s=parse_seconds(row.get("time_limit")),
        difficulty=None if difficulty == CC_DIFFICULTY[0] else difficulty,
        metadata=metadata,
    )


def _cc_files(row: Mapping[str, Any], place: RowPlace) -> dict[str, str] | None:
    """CodeContests' ``input_file``/``output_file`` (empty: standard streams); None where the row
    has neither column."""
    if "input_file" not in row and "output_file" not in row:
        return None
    from rlvr_code.languages.runner import file_io

    spec = {side: row.get(f"{side}_file") or None for side in ("input", "output")}
    try:
        found = file_io(spec)
    except ValueError as exc:
        raise place.error(f"input_file/output_file: {exc}") from None
    if found is None:
        return {}
    return {side: name for side, name in (("input", found.input), ("output", found.output)) if name}


def _io_problem(row: Mapping[str, Any], place: RowPlace, id_: str, source: str) -> Problem:
    """TACO and APPS share ``question``, ``input_output``, ``solutions`` and ``starter_code``."""
    statement = place.text(row, "question")
    spec = json_field(place, row, "input_output", required=False)
    if spec is None:
        raise untestable(place, "input_output is empty: no tests")
    if not isinstance(spec, Mapping):
        raise place.error("the input_output column must be a JSON object with 'inputs' and 'outputs'")
    inputs, outputs = spec.get("inputs"), spec.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
        raise place.error("input_output needs 'inputs' and 'outputs', lists of the same length")
    if not inputs:
        raise untestable(place, "input_output has no tests")
    solutions = json_field(place, row, "solutions", required=False)
    solution = (
        next((s for s in solutions if isinstance(s, str) and s.strip()), None) if isinstance(solutions, list) else None
    )
    starter = str(row.get("starter_code") or "")
    fn_name = spec.get("fn_name")
    problem = Problem(
        id=id_,
        statement=statement,
        inputs=[],
        outputs=[],
        declared_public=False,  # the sets do not say: cases the statement shows are public (split)
        starter_code=starter,
        solution=solution,
        difficulty=row.get("difficulty") if isinstance(row.get("difficulty"), (str, int)) else None,
        metadata={"source": source},
    )
    if fn_name:
        problem.fn_name = str(fn_name)
        problem.unwrap = True
        problem.call_args = [args if isinstance(args, list) else [args] for args in inputs]
        problem.call_expected = list(outputs)
    else:
        problem.inputs = [case_text(i) for i in inputs]
        problem.outputs = [case_text(o) for o in outputs]
    return problem


def taco_problem(row: Mapping[str, Any], place: RowPlace, index: int) -> Problem:
    problem = _io_problem(row, place, f"taco/{index}", "taco")
    problem.time_limit_s = parse_seconds(row.get("time_limit"))
    for key in ("source", "url", "name"):
        if isinstance(row.get(key), str) and row[key]:
            problem.metadata["platform" if key == "source" else key] = row[key]
    tags = row.get("tags")
    if isinstance(tags, str):
        try:
            tags = json.loads(tags.replace("'", '"'))
        except json.JSONDecodeError:
            tags = None
    if isinstance(tags, list):
        problem.metadata["tags"] = [str(t) for t in tags]
    return problem


def apps_problem(row: Mapping[str, Any], place: RowPlace, index: int) -> Problem:
    number = row.get("problem_id")
    problem = _io_problem(row, place, f"apps/{number if number is not None else index}", "apps")
    if isinstance(row.get("url"), str):
        problem.metadata["url"] = row["url"]
    return problem


def _lcb_cases(place: RowPlace, value: Any, name: str) -> list[Mapping[str, Any]]:
    cases = compressed_json(place, value, name) if value is not None else []
    if not isinstance(cases, list) or any(not isinstance(c, Mapping) for c in cases):
        raise place.error(f"the {name} column must be a list of {{'input', 'output', 'testtype'}}")
    return cases


def _lcb_args(place: RowPlace, text: str) -> list[Any]:
    """A functional case's input: one JSON value per line, the method's arguments in order."""
    try:
        return [json.loads(line) for line in str(text).split("\n") if line.strip()]
    except json.JSONDecodeError as exc:
        raise place.error(f"a functional test's input is not one JSON value per line: {exc}") from None


def livecodebench_problem(row: Mapping[str, Any], place: RowPlace) -> Problem:
    public = _lcb_cases(place, place.need(row, "public_test_cases"), "public_test_cases")
    hidden = _lcb_cases(place, row.get("private_test_cases"), "private_test_cases")
    cases = public + hidden
    if not cases:
        raise untestable(place, "no tests: public_test_cases and private_test_cases are empty")
    kinds = {str(c.get("testtype", "stdin")) for c in cases}
    if len(kinds) != 1 or not kinds <= {"stdin", "functional"}:
        raise place.error(f"test types {sorted(kinds)}: expected all 'stdin' or all 'functional'")
    title = str(row.get("question_title") or "").strip()
    content = place.text(row, "question_content")
    platform = row.get("platform")
    problem = Problem(
        id=f"lcb/{place.need(row, 'question_id')}",
        statement=f"{title}\n\n{content}" if title else content,
        inputs=[],
        outputs=[],
        public_count=len(public),
        starter_code=str(row.get("starter_code") or ""),
        difficulty=row.get("difficulty") if isinstance(row.get("difficulty"), str) else None,
        metadata={"source": "livecodebench", "platform": platform, "contest_date": str(row.get("contest_date") or "")},
    )
    if kinds == {"functional"}:
        meta = json_field(place, row, "metadata", required=False) or {}
        fn_name = meta.get("func_name") if isinstance(meta, Mapping) else None
        if not fn_name:
            raise place.error("functional tests need metadata's 'func_name'")
        problem.fn_name = str(fn_name)
        problem.call_args = [_lcb_args(place, c.get("input", "")) for c in cases]
        try:
            problem.call_expected = [json.loads(str(c.get("output", ""))) for c in cases]
        except json.JSONDecodeError as exc:
            raise place.error(f"a functional test's output is not JSON: {exc}") from None
    else:
        problem.inputs = [case_text(c.get("input", "")) for c in cases]
        problem.outputs = [case_text(c.get("output", "")) for c in cases]
    return problem
