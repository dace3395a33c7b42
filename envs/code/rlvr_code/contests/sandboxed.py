"""Programs a checker needs run: the contestant's, keeping its output, and a special judge.

Both go through ``languages.runner.run_sample`` (a bubblewrap sandbox per step, a uid and a memory
cgroup per sample, the toolchain read-only), each as a sample of its own: the contestant's program
and the checker never share a uid, a directory or a ``/tmp``, so neither can read or change what
the other wrote.

A special judge gets the case as testlib's checkers do: ``argv[1..3]`` are the files of the input,
the contestant's output and the expected answer (also its stdin is the input). Exit status 0
accepts, 1, 2, 4 or 8 rejects (testlib's wrong answer, presentation error, extra output, unexpected
end of the output: ``REJECT``); anything else (testlib's 3 "fail", a
crash, a signal, its time or memory budget, a compile error) is the checker's failure, reported as
``verifier_error`` and never as a reward. A Python checker's uncaught exception counts as its
failure (exit 3); in languages whose runtime exits 1 on one (Java, Node.js) a checker should
catch its own errors and exit 3. Whatever it prints goes to stderr (a message, kept short).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rlvr_code.languages.spec import TESTLIB_REJECT, Language

PYTHON = Language(
    name="python",
    tags=frozenset({"python", "py", "python3", "py3"}),
    source="main.py",
    compile=None,
    # No syntax-check step (a sandbox start of its own): a contestant's program reaches the runner
    # only after the family's sandbox ran it, and a checker's syntax error is its failure (the guard).
    check=None,
    run=("/usr/bin/python3", "-I", "{src}"),
    package="python3",
    tools=("/usr/bin/python3",),
    mounts=("/usr/bin", "/usr/lib"),
)
"""Debian's Python 3 as a runner language: a contestant's program whose output a checker reads."""

ACCEPT, REJECT = (0,), TESTLIB_REJECT
_SPLIT = (
    # The case arrives framed on stdin ("<bytes> <bytes> <bytes>\n" then the three texts); each is
    # written to a file of the checker's own /tmp. GNU head -c reads exactly what it writes.
    'read -r a b c || exit 3; head -c "$a" > /tmp/input.txt && head -c "$b" > /tmp/output.txt'
    ' && head -c "$c" > /tmp/answer.txt || exit 3; '
    'exec "$@" /tmp/input.txt /tmp/output.txt /tmp/answer.txt < /tmp/input.txt 1>&2'
)
_SHELL_TOOLS = ("/usr/bin/sh", "/usr/bin/dash", "/usr/bin/head")
_PYTHON_GUARD = (
    # Python exits 1 on an uncaught exception, which testlib's convention reads as "wrong answer":
    # a checker's own bug (or MemoryError) must be its failure instead (3), never the contestant's.
    "import runpy, sys, traceback\n"
    "sys.argv = sys.argv[1:]\n"
    "try:\n"
    "    runpy.run_path(sys.argv[0], run_name='__main__')\n"
    "except SystemExit:\n"
    "    raise\n"
    "except BaseException:\n"
    "    traceback.print_exc(limit=-2)\n"
    "    sys.exit(3)\n"
)


def language_spec(name: str) -> Language:
    from rlvr_code.languages import LANGUAGES

    return PYTHON if name == "python" else LANGUAGES[name]


def covered(path: str, mounts: tuple[str, ...]) -> bool:
    return any(path == m or path.startswith(m.rstrip("/") + "/") for m in mounts)


def checker_language(base: Language, protocol: str = "testlib", args: tuple[str, ...] = ()) -> Language:
    """``base`` run behind the shell step that lays out the case's three files (and, for a Kattis
    output validator, speaks its protocol and passes its ``args``: ``kattis_protocol``)."""
    from rlvr_code.contests.kattis_protocol import checker_step

    run = ("/usr/bin/python3", "-I", "-c", _PYTHON_GUARD, "{src}") if base is PYTHON else base.run
    run_mounts = base.run_mounts if base.run_mounts is not None else base.mounts
    extra = tuple(tool for tool in _SHELL_TOOLS if not covered(tool, run_mounts))
    step = checker_step(args) if protocol == "kattis" else _SPLIT
    return dataclasses.replace(
        base,
        run=("/usr/bin/sh", "-c", step, "checker", *run),
        run_mounts=(*run_mounts, *extra),
        extra_processes=base.extra_processes + 2,
    )


def _capture(step: Any, expected: str, wall_s: float, cap: int) -> dict[str, Any]:
    from rlvr_code.languages.runner import judge_output

    entry = judge_output(step, expected, wall_s, cap)
    if entry["status"] in ("passed", "failed"):
        entry["output"] = step.out.decode("utf-8", "replace")
    return entry


def run_outputs(
    language: str, code: str, cases: list[dict[str, str]], limits: dict[str, Any], io: Any = None
) -> dict[str, Any]:
    """The program's report on every case, each entry judged as usual and, where the program
    ended normally, with its whole ``output`` (already cut at ``output_bytes``; the output file's
    for a file-I/O task, ``io``: ``runner.FileIO``)."""
    from rlvr_code.languages.runner import run_sample

    return run_sample(language_spec(language), code, cases, limits, judge=_capture, io=io)


class _CheckerFailed(Exception):
    """Raised from the runner's loop at the checker's first failure: the cases after it are not run
    (one failure already makes the sample a ``verifier_error``)."""


def _verdict_of_checker(step: Any, expected: str, wall_s: float, cap: int) -> dict[str, Any]:
    from rlvr_code._sandbox_stdio import stderr_tail

    message = stderr_tail(step.err, lines=2, chars=200)
    if step.exit in ACCEPT and not (step.memory or step.timed_out or step.overflow):
        return {"status": "accepted", "error": None}
    if step.exit in REJECT and not (step.memory or step.timed_out or step.overflow):
        return {"status": "rejected", "error": f"checker: {message}" if message else "rejected by the checker"}
    if step.memory:
        raise _CheckerFailed("the checker exceeded its memory budget")
    if step.timed_out:
        raise _CheckerFailed(f"the checker ran past its {wall_s:g} s budget")
    if step.overflow:
        raise _CheckerFailed("the checker wrote too much")
    raise _CheckerFailed(f"the checker exited with status {step.exit}: {message}")


def _frame(given: str, got: str, want: str) -> str:
    # Lengths in bytes; the texts go as UTF-8, as the contestant's output came (decoded leniently).
    parts = [given.encode("utf-8"), got.encode("utf-8", "replace"), want.encode("utf-8")]
    head = " ".join(str(len(p)) for p in parts) + "\n"
    return head + "".join(p.decode("utf-8", "replace") for p in parts)


def run_checker(
    language: str,
    source: str,
    triples: list[tuple[str, str, str]],
    timeout_s: float,
    memory_mb: int,
    total_s: float | None = None,
    protocol: str = "testlib",
    args: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Judge ``(input, contestant output, expected)`` triples with a special judge (compiled once).

    Each case has ``timeout_s`` of its own, the whole run ``timeout_s x cases`` at most and at most
    ``total_s`` (when larger than ``timeout_s``). Returns the runner's report: ``compile_error``;
    ``failed``, why the checker failed (its first failure ends the run); or ``tests`` whose entries
    have ``status`` ``accepted`` or ``rejected`` (``timeout`` where the budget ran out before the
    case started).
    """
    from rlvr_code.languages.runner import CompileBudget, run_sample

    cases = [{"input": _frame(*triple), "output": ""} for triple in triples]
    largest = max((len(c["input"].encode("utf-8")) for c in cases), default=0)
    file_mb = max(16, (largest >> 20) + 2)
    whole = timeout_s * max(1, len(cases))
    if total_s is not None:
        whole = min(whole, max(timeout_s, total_s))
    limits = {
        "wall_s": whole,
        "cpu_s": timeout_s,
        "case_s": timeout_s,
        "memory_mb": memory_mb,
        "total_memory_mb": memory_mb,
        "processes": 8,
        "output_bytes": 64 << 10,
        "file_mb": file_mb,
    }
    try:
        return run_sample(
            checker_language(language_spec(language), protocol, args),
            source,
            cases,
            limits,
            CompileBudget(wall_s=60.0),
            tmpfs_mb=3 * file_mb + 8,
            judge=_verdict_of_checker,
        )
    except _CheckerFailed as exc:
        return {"status": "done", "tests": [], "failed": str(exc)}
