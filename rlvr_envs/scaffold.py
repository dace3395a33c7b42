"""``rlvr-envs new NAME``: write a working family package that a contributor then edits.

It writes the one shape every family has, in the tree or out of it (docs/DESIGN.md, "The family
contract"): a distribution folder with ``pyproject.toml`` (the ``rlvr_envs.envs`` entry point),
the README with the sections every family README has (``README_SECTIONS``) and the package
``rlvr_<name>/`` (``registration.py``: ids only; ``envs.py``; ``verifier.py``), and a tests
folder ``tests/<name>/`` with the conformance hook (``conformance.py``: ``make_env(id)`` for the
ids that need data), the family's tests and their small offline data. Out of the tree both
folders sit in ``NAME/`` (``NAME/tests/<name>/``, with a ``conftest.py`` that registers the ids
of an uninstalled package); in this repository the distribution goes under ``envs/`` and the
tests under the top-level ``tests/`` (``--tests-out tests``), where the hub's conformance test
finds the hook. ``shape_problems`` says how a family differs from the shape.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import tomllib

from rlvr_envs.errors import ConfigurationError

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
README_SECTIONS = ("Ids", "Task schema", "Verdicts", "Hostile inputs", "Measured")
"""The ``##`` sections every family README has, in this order (a heading may go on: ``## Verdicts and
guards``, ``## Measured: agreement with the reference``); other sections may come between them."""
PACKAGE_FILES = ("__init__.py", "registration.py", "envs.py", "verifier.py")


def package_name(name: str) -> str:
    return "rlvr_" + name.replace("-", "_")


def suite_folder(name: str) -> str:
    """The family's folder under ``tests/`` (an importable name: ``tests.<it>.conformance``)."""
    return name.replace("-", "_")


def render(name: str) -> dict[str, str]:
    """Relative path -> file text of the package for family ``name`` (tests under ``tests/``)."""
    if not NAME_PATTERN.match(name):
        raise ConfigurationError(
            f"family name {name!r}: use lower-case letters, digits and single hyphens, starting with a letter "
            "(it becomes the id prefix: NAME-v0, NAME-parity-v0)"
        )
    subs = {
        "NAME": name,
        "PKG": package_name(name),
        "DIR": suite_folder(name),
        "TITLE": name.replace("-", " ").title().replace(" ", ""),
    }

    def fill(text: str) -> str:
        for key, value in subs.items():
            text = text.replace(f"@{key}@", value)
        return text.lstrip("\n")

    return {fill(path): _one_first_party_block(fill(text)) for path, text in _TEMPLATES.items()}


_FIRST_PARTY = re.compile(r"^(?:import|from) (?:rlvr_\w+|tests)\b")
_TEST_DEF = re.compile(r"^\s*(?:async\s+)?def test|^class Test", re.MULTILINE)


def _one_first_party_block(text: str) -> str:
    """Merge the imports of rlvr_envs, the family's package and tests into one block, sorted as ruff
    sorts them when all three are first party (out of the tree through the generated pyproject's
    isort setting, inside rlvr-envs once envs/<name> is in ruff's `src`): the order depends on the
    family's name (rlvr_demo < rlvr_envs < rlvr_parity)."""
    lines = text.split("\n")
    at = [i for i, line in enumerate(lines) if _FIRST_PARTY.match(line)]
    if not at or any(lines[i].strip() and i not in at for i in range(at[0], at[-1] + 1)):
        return text
    block = sorted((lines[i] for i in at), key=lambda line: (line.startswith("from "), line.split()[1]))
    return "\n".join(lines[: at[0]] + block + lines[at[-1] + 1 :])


def write_package(
    name: str, out: str | Path = ".", *, tests_out: str | Path | None = None, force: bool = False
) -> Path:
    """Write the family into ``out/NAME`` and its tests into ``NAME/tests/<name>/``, or into
    ``tests_out/<name>/`` (a repository's own test suite: no ``conftest.py`` is written then).

    Refuses a non-empty target directory unless ``force``.
    """
    files = render(name)
    root = Path(out).expanduser() / name
    targets: dict[Path, str] = {}
    for rel, text in files.items():
        if tests_out is None:
            targets[root / rel] = text
        elif rel.startswith(f"tests/{suite_folder(name)}/"):
            targets[Path(tests_out).expanduser() / rel.removeprefix("tests/")] = text
        elif not rel.startswith("tests/"):
            targets[root / rel] = text
    folders = {root} if tests_out is None else {root, Path(tests_out).expanduser() / suite_folder(name)}
    for folder in sorted(folders):
        if folder.exists() and any(folder.iterdir()) and not force:
            raise ConfigurationError(f"{folder} exists and is not empty (pass --force to write over it)")
    for path, text in targets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def shape_problems(distribution: Path, tests: Path) -> list[str]:
    """How a family differs from the one shape; empty when it has it.

    ``distribution`` is the folder with the family's ``pyproject.toml``, ``tests`` its folder of
    tests (``tests/<name>/``).
    """
    problems: list[str] = []
    try:
        project = tomllib.loads((distribution / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        return [f"{distribution}/pyproject.toml: {exc}"]
    points = project.get("project", {}).get("entry-points", {}).get("rlvr_envs.envs", {})
    # One entry point per id prefix the family claims (ifeval and ifbench), all to one function.
    if len(set(points.values())) != 1:
        return [f"{distribution}/pyproject.toml: rlvr_envs.envs entry points {points}: one registration function"]
    target = next(iter(points.values()))
    module, _, function = str(target).partition(":")
    package = module.split(".")[0]
    if module != f"{package}.registration" or not function:
        problems.append(f"the entry point {target!r} is not PACKAGE.registration:FUNCTION")
    for rel in PACKAGE_FILES:
        if not (distribution / package / rel).is_file():
            problems.append(f"{package}/{rel} is missing")
    # A module is tests when pytest would collect tests from it, not for its name alone
    # (rlvr_lean/test_kernel.py builds the Lean test kernel).
    inside = [p for p in (distribution / package).rglob("test_*.py") if _TEST_DEF.search(p.read_text("utf-8"))]
    inside.append(distribution / package / "tests")
    problems += [
        f"{p.relative_to(distribution)}: tests go in {tests}, not in the package" for p in inside if p.exists()
    ]
    problems += _readme_problems(distribution / "README.md")
    hook = tests / "conformance.py"
    if not hook.is_file():
        problems.append(f"{hook} is missing (the conformance hook: make_env(env_id) -> Env | None)")
    else:
        tree = ast.parse(hook.read_text(encoding="utf-8"))
        if not any(isinstance(n, ast.FunctionDef) and n.name == "make_env" for n in tree.body):
            problems.append(f"{hook} defines no make_env(env_id)")
    if not list(tests.glob("test_*.py")):
        problems.append(f"{tests} holds no test_*.py")
    return problems


def _readme_problems(readme: Path) -> list[str]:
    if not readme.is_file():
        return [f"{readme} is missing"]
    headings = [line[3:].strip() for line in readme.read_text(encoding="utf-8").splitlines() if line.startswith("## ")]
    found = []
    for section in README_SECTIONS:
        at = [i for i, h in enumerate(headings) if h == section or h.startswith((f"{section}:", f"{section} "))]
        if not at:
            return [f"{readme}: no '## {section}' section (the sections are {', '.join(README_SECTIONS)})"]
        found.append(at[0])
    if found != sorted(found):
        return [f"{readme}: the sections {', '.join(README_SECTIONS)} are not in this order"]
    return []


_TEMPLATES: dict[str, str] = {}

_TEMPLATES["pyproject.toml"] = """
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "rlvr-envs-@NAME@"
version = "0.1.0"
description = "rlvr-envs plugin family @NAME@"
readme = "README.md"
requires-python = ">=3.10"
dependencies = ["rlvr-envs"]

[project.optional-dependencies]
test = ["pytest>=8"]

# The entry point's name is the id prefix the family claims: @NAME@, @NAME@-*.
[project.entry-points."rlvr_envs.envs"]
@NAME@ = "@PKG@.registration:register_envs"

# Subcommands for `rlvr-envs` would go here (a callable add_parsers(subparsers)):
# [project.entry-points."rlvr_envs.cli"]
# @NAME@ = "@PKG@.cli:add_parsers"

[tool.setuptools.packages.find]
include = ["@PKG@*"]

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
addopts = "--import-mode=importlib"

# Lines and imports as inside rlvr-envs, so that the family moves into its tree unchanged.
[tool.ruff]
line-length = 120

[tool.ruff.lint.isort]
known-first-party = ["rlvr_envs", "tests"]
"""

_TEMPLATES["@PKG@/__init__.py"] = '''
"""rlvr-envs family @NAME@. Importing it is cheap: registration reads no env code."""
'''

_TEMPLATES["@PKG@/registration.py"] = '''
"""Ids and versions only: nothing here imports the env or the verifier.

Bump an id's version (-v1) whenever a change alters any reward, so published results stay
reproducible.
"""

from __future__ import annotations

import rlvr_envs


def register_envs() -> None:
    rlvr_envs.register(
        "@NAME@-v0",
        "@PKG@.envs:@TITLE@Env",
        user_data=True,
        data_source="your rows: make('@NAME@', data='rows.jsonl')",
        description="your own prompt/answer rows, answers compared exactly",
    )
    rlvr_envs.register(
        "@NAME@-parity-v0",
        "@PKG@.envs:@TITLE@ParityEnv",
        kwargs={"max_number": 999},
        data_source="procedural",
        difficulty_fields=("level",),
        description="is this number even or odd? (procedural example)",
    )
'''

_TEMPLATES["@PKG@/verifier.py"] = '''
"""The family's verifier: picklable configuration only, a pure function, never raises on model output."""

from __future__ import annotations

import unicodedata

from rlvr_envs.answer_tail import taken_back
from rlvr_envs.extract import METHODS, extract_answer
from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.verifier import Verifier


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().casefold()


class ExactVerifier(Verifier):
    """The final answer (last <answer>, \\\\boxed{}, "#### x", "The answer is") must equal the task's."""

    time_budget_s = 1.0

    def __init__(self, methods: tuple[str, ...] = METHODS) -> None:
        self.methods = tuple(methods)  # how the chosen prompt format asks for the answer

    def verify(self, task: Task, completion: str) -> Verdict:
        found = extract_answer(completion, self.methods)
        if found is None:
            return Verdict.failure(Reason.NO_ANSWER)
        refused = taken_back(completion, found)  # a hedge or a second answer after it, a TeX redefinition
        if refused is not None:
            return Verdict.failure(Reason.WRONG, extracted=found.text, details={"refused": refused.describe()})
        if normalise(found.text) == normalise(str(task.answer)):
            return Verdict.correct(found.text)
        return Verdict.failure(Reason.WRONG, extracted=found.text)
'''

_TEMPLATES["@PKG@/envs.py"] = '''
"""The family's env classes: subclasses of the core's ProceduralEnv and DatasetEnv."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

from rlvr_envs.data import numbered_records, require_fields, source_name
from rlvr_envs.env import DatasetEnv, ProceduralEnv
from rlvr_envs.errors import DataRequiredError
from rlvr_envs.formats import get_format
from rlvr_envs.types import Difficulty, Task

from @PKG@.verifier import ExactVerifier


def _verifier(prompt_format: Any, default: str) -> tuple[ExactVerifier, Any]:
    fmt = get_format(prompt_format or default)
    return ExactVerifier(tuple(fmt.methods)), fmt


class @TITLE@ParityEnv(ProceduralEnv):
    """Is n even or odd? Levels widen the range of n. Options: level, max_number, size/limit, seed."""

    family: ClassVar[str] = "@NAME@"
    max_level: ClassVar[int | None] = 3

    def __init__(self, *, max_number: int = 999, prompt_format: Any = None, **kwargs: Any) -> None:
        verifier, fmt = _verifier(prompt_format, self.default_prompt_format)
        self.max_number = max_number
        super().__init__(verifier, prompt_format=fmt, **kwargs)

    def generate(self, rng: random.Random) -> Task:
        top = self.max_number * 10 ** ((self.level or 1) - 1)
        n = rng.randint(0, top)
        return Task(
            id="parity",
            prompt=f"Is {n} even or odd? Answer with one word.",
            answer="even" if n % 2 == 0 else "odd",
            difficulty=Difficulty(level=self.level),
        )

    def answer_text(self, task: Task) -> str | None:  # lets the kit render gold and hedged completions
        return str(task.answer)


class @TITLE@Env(DatasetEnv):
    """Your own rows. Options: data= (path, list of dicts, datasets object), split=, limit=,
    prompt_key=/answer_key=/id_key= (column mapping), prompt_format=."""

    family: ClassVar[str] = "@NAME@"

    def __init__(
        self,
        data: Any = None,
        *,
        split: str | None = None,
        prompt_key: str = "prompt",
        answer_key: str = "answer",
        id_key: str | None = None,
        prompt_format: Any = None,
        **kwargs: Any,
    ) -> None:
        if data is None:
            raise DataRequiredError("@NAME@: pass your rows with make('@NAME@', data='rows.jsonl')")
        verifier, fmt = _verifier(prompt_format, self.default_prompt_format)
        super().__init__(verifier, prompt_format=fmt, **kwargs)
        self.data, self.split = data, split
        self.prompt_key, self.answer_key, self.id_key = prompt_key, answer_key, id_key
        self._tasks  # noqa: B018 -- load now, so bad data fails at make() and names the row

    def _load_tasks(self) -> Sequence[Task]:
        source = source_name(self.data)
        tasks = []
        for number, row in numbered_records(self.data, split=self.split):
            values = require_fields(
                row,
                {"prompt": self.prompt_key, "answer": self.answer_key},
                source=source,
                row_number=number,
                mapping_hint="prompt_key=/answer_key=",
            )
            task_id = str(row[self.id_key]) if self.id_key else f"row-{number}"
            tasks.append(Task(id=task_id, prompt=str(values["prompt"]), answer=str(values["answer"]).strip()))
        return tasks

    def answer_text(self, task: Task) -> str | None:
        return str(task.answer)
'''

_TEMPLATES["README.md"] = """
# rlvr-envs-@NAME@

A family of [rlvr-envs](https://github.com/) environments. Install it next to rlvr-envs with
`pip install -e .`; then `rlvr-envs list --family @NAME@` shows its ids.

```python
import rlvr_envs

env = rlvr_envs.make("@NAME@-parity", level=2)
env = rlvr_envs.make("@NAME@", data="rows.jsonl", limit=100)  # rows with "prompt" and "answer"
```

## Ids

| id | tasks | options |
|---|---|---|
| `@NAME@-v0` | your rows | `data=` (path, rows or dataset), `split=`, `limit=`, `prompt_key=`/`answer_key=`/`id_key=` |
| `@NAME@-parity-v0` | procedural, levels 1-3 | `level=`, `max_number=`, `size=`/`limit=`, `seed=` |

## Task schema

`Task.prompt` is the question; `Task.answer` the exact answer as a string; `Task.difficulty.level`
the generator level (parity).

## Verdicts

| reason | when |
|---|---|
| `ok` | the final answer equals the task's (after Unicode NFKC, trimming and case folding) |
| `wrong` | another final answer |
| `no_answer` | no final answer found in the completion |
| `format_error` | not a string, or over the size cap (never reaches the verifier) |

## Hostile inputs

Hostile completions (empty, "I don't know", the prompt echoed, the answer hedged among fifty
candidates, megabytes of text, `None`) score 0: `tests/@DIR@/` checks them, with the rlvr-envs
conformance kit over every id.

## Measured

Nothing measured yet. Put agreement with a reference grader and speed here, with the command
that produced each figure.
"""

_TEMPLATES["tests/conftest.py"] = '''
"""Out of the rlvr-envs tree: register the ids even when the package is not installed (a fresh clone)."""

import rlvr_envs


def pytest_configure(config):
    from @PKG@.registration import register_envs

    if "@NAME@-parity-v0" not in rlvr_envs.registry:
        register_envs()
'''

_TEMPLATES["tests/@DIR@/data/rows.jsonl"] = """
{"id": "capital-fr", "prompt": "What is the capital of France?", "answer": "Paris"}
{"id": "capital-jp", "prompt": "日本の首都はどこですか？", "answer": "東京"}
{"id": "sum", "prompt": "What is 17 + 25?", "answer": "42"}
"""

_TEMPLATES["tests/@DIR@/conformance.py"] = '''
"""Conformance hook: the ids that need data are made from small offline rows (tests/@DIR@/data).

The conformance kit (rlvr_envs.testing.check_env) asks ``make_env`` first; ``None`` means
``rlvr_envs.make(env_id)`` needs nothing (a procedural id). Tests never download.
"""

from __future__ import annotations

from pathlib import Path

import rlvr_envs

DATA = Path(__file__).parent / "data"


def make_env(env_id: str) -> rlvr_envs.Env | None:
    if rlvr_envs.registry.resolve(env_id).name == "@NAME@":
        return rlvr_envs.make(env_id, data=str(DATA / "rows.jsonl"), id_key="id")
    return None
'''

_TEMPLATES["tests/@DIR@/test_@DIR@_conformance.py"] = '''
"""The conformance kit over every id of the family (through the hook, as the hub's own suite does)."""

import pytest

import rlvr_envs
from rlvr_envs.testing import check_env
from tests.@DIR@.conformance import make_env

IDS = [s.id for s in rlvr_envs.registry.latest() if s.id.startswith("@NAME@-")]


@pytest.mark.parametrize("env_id", IDS)
def test_every_id_conforms(env_id):
    env = make_env(env_id) or rlvr_envs.make(env_id)
    report = check_env(env, n_tasks=3, seeds=(0,))
    assert report.gold_checked > 0 and report.adversarial_checked > 0
'''

_TEMPLATES["tests/@DIR@/test_@DIR@_envs.py"] = '''
"""The family's own checks: exact answers, hostile completions, data errors at make()."""

import pytest

import rlvr_envs
from rlvr_envs.errors import DataError, DataRequiredError
from tests.@DIR@.conformance import DATA


def test_answers_are_compared_exactly_and_hostile_completions_score_zero():
    env = rlvr_envs.make("@NAME@", data=str(DATA / "rows.jsonl"), id_key="id", isolation="inline")
    task = env.get_task("capital-jp")
    assert env.verify(task, "<answer>東京</answer>").passed
    assert env.verify(task, "\\\\boxed{東京}").passed
    for bad in ["<answer>京都</answer>", "<answer>東京 or 京都</answer>", "", "東京", None, "x" * 3_000_000]:
        assert env.verify(task, bad).reward == 0.0


def test_missing_data_and_bad_rows_fail_at_make(tmp_path):
    with pytest.raises(DataRequiredError, match="data="):
        rlvr_envs.make("@NAME@")
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"prompt": "p", "answer": "a"}\\n\\n{"prompt": "q"}\\n')
    with pytest.raises(DataError, match="row 3"):
        rlvr_envs.make("@NAME@", data=str(rows))
'''
