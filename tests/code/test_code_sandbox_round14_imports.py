"""Issue 30, round 14: the solution zygote keeps fewer modules warm, and a sample still has them.

``hashlib``, ``traceback``, ``ast`` and ``importlib`` are no longer imported in the solution
zygote (``_sandbox_wire.COLD_FOR_SAMPLES``): each fork copied a page-table entry for their memory
in every sample. A sample that imports one pays its own import and works as before; a stdio
program's traceback, which the harness printed with ``traceback``, is printed by a small
formatter of its own (``_sandbox_solution.format_exception``) with the same text, and by
``traceback`` itself where only it can say it (chained exceptions, a file's source lines).
"""

from __future__ import annotations

import os
import subprocess
import sys
import traceback

import pytest

from rlvr_code._sandbox_solution import format_exception
from rlvr_code._sandbox_wire import COLD_FOR_SAMPLES, PREIMPORT, SAMPLE_PREIMPORT, WARM_IMPORTS
from rlvr_code.sandbox import SYSTEM_PYTHON
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced
from tests.helpers.sandbox import needs_bwrap

# Programs compiled from a string, each raising; run in this process, their traceback compared
# with the standard library's. (name, source): ids in a fixed order.
PLAIN = [
    ("key_error", "d = {}\nd['k']\n"),
    ("empty_message", "raise ValueError\n"),
    ("empty_str_message", "raise ValueError('')\n"),
    ("nested_calls", "def a():\n    return b()\ndef b():\n    return 1 / 0\na()\n"),
    ("recursion", "def f(n):\n    return f(n + 1)\nf(0)\n"),
    ("mutual_recursion", "def f(n):\n    return g(n)\ndef g(n):\n    return f(n)\nf(0)\n"),
    ("four_repeats", "def f(n):\n    if n == 0:\n        raise KeyError(n)\n    return f(n - 1)\nf(4)\n"),
    ("two_repeats", "def f(n):\n    if n == 0:\n        raise KeyError(n)\n    return f(n - 1)\nf(1)\n"),
    ("own_class_in_main", "class Bad(Exception):\n    pass\nraise Bad('own', 2)\n"),
    ("own_class_elsewhere", "class Bad(Exception):\n    __module__ = 'pkg.mod'\nraise Bad('x')\n"),
    ("own_class_odd_module", "class Bad(Exception):\n    __module__ = 7\nraise Bad('x')\n"),
    ("nested_class_name", "class A:\n    class Err(Exception):\n        pass\nraise A.Err('in a class')\n"),
    ("str_fails", "class Bad(Exception):\n    def __str__(self):\n        raise RuntimeError\nraise Bad()\n"),
    ("multiline_expression", "x = [\n    1,\n    2,\n][\n    5\n]\n"),
    ("lambda_and_generator", "f = lambda: next(g for g in ())\nf()\n"),
    ("in_comprehension", "[1 // x for x in (1, 0)]\n"),
    ("class_body", "class C:\n    y = undefined_name\n"),
    ("assertion", "assert 1 == 2, 'message'\n"),
    ("unicode_message", "raise ValueError('é ✓ \\u2028 line')\n"),
    ("system_exit_subclass", "class Stop(KeyboardInterrupt):\n    pass\nraise Stop('now')\n"),
]

# Only ``traceback`` says these right: the formatter must decline (None), never print its own.
DECLINED = [
    ("chained_context", "try:\n    1 / 0\nexcept ZeroDivisionError:\n    raise ValueError('during')\n"),
    ("chained_cause", "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    raise ValueError('from') from e\n"),
    ("notes", "e = ValueError('x')\ne.add_note('a note')\nraise e\n"),
    ("group", "raise ExceptionGroup('g', [ValueError(1)])\n"),
    ("a_files_frame", "import json\njson.loads('{')\n"),
    ("syntax_error_in_exec", "exec('def (')\n"),
    ("tracebacklimit", "import sys\nsys.tracebacklimit = 1\nraise ValueError('x')\n"),
]


# The runner is compiled from a string too, as the sandbox's harness is (``<rlvr-harness>``): a
# frame of a real file (this one) is one the formatter leaves to ``traceback``.
_RUNNER = compile(
    "def run(source):\n"
    "    try:\n"
    "        exec(compile(source, '<solution>', 'exec'), {'__name__': '__main__'})\n"
    "    except BaseException as exc:\n"
    "        return exc\n",
    "<rlvr-harness>",
    "exec",
)


def _raised(source: str) -> BaseException:
    namespace: dict = {}
    exec(_RUNNER, namespace)
    exc = namespace["run"](source)
    if not isinstance(exc, BaseException):
        raise AssertionError("the program did not raise")
    return exc


@pytest.mark.parametrize("source", [s for _, s in PLAIN], ids=[n for n, _ in PLAIN])
def test_the_own_formatter_prints_what_traceback_prints(source: str) -> None:
    exc = _raised(source)
    assert format_exception(exc) == "".join(traceback.format_exception(exc))


@pytest.mark.parametrize("source", [s for _, s in DECLINED], ids=[n for n, _ in DECLINED])
def test_the_own_formatter_leaves_to_traceback_what_only_it_says(source: str) -> None:
    limit = getattr(sys, "tracebacklimit", None)
    try:
        exc = _raised(source)
        assert format_exception(exc) is None
    finally:
        if limit is None:
            sys.__dict__.pop("tracebacklimit", None)
        else:
            sys.tracebacklimit = limit


def test_the_solution_zygote_leaves_out_only_what_no_sample_needs_warm() -> None:
    solution, judge = set(WARM_IMPORTS["solution"]), set(WARM_IMPORTS["judge"])
    assert solution.isdisjoint(COLD_FOR_SAMPLES)
    assert set(PREIMPORT) <= judge  # a task's tests may import any of them in the judge
    # What samples import most stays warm: typing (HumanEval's prompts), math, re, collections.
    assert {"typing", "math", "re", "collections", "heapq", "itertools"} <= solution


# A zygote started by ``-c`` (the floor's) imports the warm set, then a fork compiles a program, as
# each sample does, and counts its page faults. Without the AST types built before the fork the
# child builds all of them: about 285 faults against 95 (CPython 3.11), 1 ms of a HumanEval sample.
_COMPILE_IN_A_FORK = """
import gc, os, resource, sys
for name in sys.argv[1:]:
    __import__(name)
gc.collect()
gc.freeze()
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    compile("x = 1\\n", "<sample>", "exec")
    os.write(write, str(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before).encode())
    os._exit(0)
os.waitpid(pid, 0)
print(os.read(read, 64).decode())
"""


def _compile_faults(names: tuple[str, ...]) -> int:
    done = subprocess.run(
        [SYSTEM_PYTHON, "-I", "-S", "-c", _COMPILE_IN_A_FORK, *names], capture_output=True, text=True, timeout=60
    )
    return int(done.stdout.split()[-1])


@pytest.mark.skipif(not os.path.exists(SYSTEM_PYTHON), reason="the sandbox's interpreter is missing")
def test_a_sample_finds_the_ast_types_built() -> None:
    warm = min(_compile_faults(SAMPLE_PREIMPORT) for _ in range(2))
    without = min(_compile_faults(tuple(n for n in SAMPLE_PREIMPORT if n != "_ast")) for _ in range(2))
    assert warm * 3 // 2 < without, (warm, without)  # ~95 against ~285: a margin both ways
    assert warm < 190


STDIO = Task(id="double", prompt="p", answer={"format": "stdio", "cases": [{"input": "3\n", "output": "6\n"}]})
IMPORTS_EACH = (
    "import ast, hashlib, traceback, typing, importlib\n"
    "from typing import List\n"
    "n = int(input())\n"
    "assert ast.literal_eval('[1]') == [1]\n"
    "assert hashlib.sha256(b'x').hexdigest()[:4] == '2d71'\n"
    "assert traceback.format_exception_only(ValueError('v')) == ['ValueError: v\\n']\n"
    "assert importlib.import_module('math').sqrt(4) == 2\n"
    "print(2 * n)\n"
)


@pytest.fixture(scope="module")
def verifier():
    chosen = CodeVerifier(timeout_s=20)
    yield chosen


@needs_bwrap
def test_what_the_zygote_no_longer_imports_a_sample_still_can(verifier: CodeVerifier) -> None:
    assert verifier.verify(STDIO, fenced(IMPORTS_EACH)).reward == 1.0
    # The same modules in a function task: the solution's own imports, its values handed back.
    task = Task(
        id="digest",
        prompt="p",
        answer={"format": "asserts", "tests": ["assert digest(b'x') == '2d71'", "assert size() == 1"]},
    )
    program = (
        "import hashlib\nfrom ast import literal_eval\nfrom typing import List\nimport traceback\n"
        "def digest(b: bytes) -> str:\n    return hashlib.sha256(b).hexdigest()[:4]\n"
        "def size() -> int:\n    return len(literal_eval('[0]'))\n"
    )
    assert verifier.verify(task, fenced(program)).reward == 1.0


@needs_bwrap
def test_a_sample_starts_without_the_cold_modules(verifier: CodeVerifier) -> None:
    # A sample process is a fork of the zygote: what it finds in sys.modules before its own
    # first import is what the zygote held (and each fork copied). Fails before round 14.
    program = (
        "import sys\n"
        f"held = sorted(n for n in {sorted(COLD_FOR_SAMPLES)!r} if n in sys.modules)\n"
        "print(6 if held == [] and 'typing' in sys.modules else held)\n"
    )
    assert verifier.verify(STDIO, fenced(program)).reward == 1.0


@needs_bwrap
@pytest.mark.parametrize(
    ("program", "tail"),
    [
        ("x = {}\nprint(x['k'])\n", "File \"<solution>\", line 2, in <module> | KeyError: 'k'"),
        ("def f(n):\n    return f(n)\nf(1)\n", "more times] | RecursionError: maximum recursion depth exceeded"),
        ("try:\n    1 / 0\nexcept ZeroDivisionError:\n    raise ValueError('v')\n", "in <module> | ValueError: v"),
        ("import json\njson.loads('{')\n", "JSONDecodeError: Expecting property name enclosed in double quotes"),
        ("import sys\nsys.stderr = None\nraise ValueError('quiet')\n", "exit status 1"),
    ],
    ids=["plain", "recursion", "chained", "file_frame", "stderr_gone"],
)
def test_a_stdio_programs_traceback_reaches_its_verdict(verifier: CodeVerifier, program: str, tail: str) -> None:
    verdict = verifier.verify(STDIO, fenced(program))
    assert verdict.reward == 0.0
    error = str(verdict.details["tests"][0]["error"])
    assert error.startswith("exit status 1")
    assert tail in error
