"""What the sandboxes receive of the harness modules (``_sandbox_source``): comments cut, the code
unchanged, and small enough to travel as one command-line argument."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import rlvr_code
from rlvr_code._sandbox_source import without_comments, without_docstrings
from rlvr_code.sandbox import HARNESS_PARTS, harness_source

MAX_ARG_STRLEN = 128 * 1024  # Linux: the longest single argument of an exec


def test_cutting_comments_keeps_every_code_object_and_the_hashes_inside_strings():
    source = (
        "x = '# not a comment'  # cut-1\n"
        "y = [1,  # cut-2\n"
        "     2]\n"
        "    # cut-3\n"
        'z = """\n# a line of a string\n"""\n'
        "def f():\n    return '#'  # cut-4\n"
    )
    stripped = without_comments(source)
    assert "cut-" not in stripped
    assert "'# not a comment'" in stripped and "# a line of a string" in stripped
    assert stripped.count("\n") == source.count("\n")
    assert compile(stripped, "s", "exec") == compile(source, "s", "exec")


def test_every_harness_module_compiles_to_the_same_code_without_its_comments():
    folder = Path(rlvr_code.__file__).parent
    for part in sorted({*HARNESS_PARTS["judge"], *HARNESS_PARTS["solution"], "wire"}):
        original = (folder / f"_sandbox_{part}.py").read_text(encoding="utf-8")
        stripped = without_comments(original)
        assert len(stripped) < len(original)  # every module has comments to cut
        assert compile(stripped, part, "exec") == compile(original, part, "exec")


def _code_lines(code) -> list:
    """Every code object's name and line table, nested ones included (constants aside)."""
    found = [(code.co_qualname, code.co_firstlineno, list(code.co_lines()))]
    for const in code.co_consts:
        if hasattr(const, "co_lines"):
            found += _code_lines(const)
    return found


def test_emptying_docstrings_keeps_every_line_and_what_the_code_does():
    folder = Path(rlvr_code.__file__).parent
    for part in sorted({*HARNESS_PARTS["judge"], *HARNESS_PARTS["solution"], "wire"}):
        original = (folder / f"_sandbox_{part}.py").read_text(encoding="utf-8")
        stripped = without_docstrings(original)
        assert len(stripped) < len(original)
        assert stripped.count("\n") == original.count("\n")
        assert _code_lines(compile(stripped, part, "exec")) == _code_lines(compile(original, part, "exec"))
    # Non-ASCII before a docstring on its line, a note after a constant, f-strings and bytes untouched.
    source = 'x = "µ"; """doc µ\nmore"""\nY = 1\n"""note"""\nz = f"{x}", b"q"\n'
    assert without_docstrings(source) == 'x = "µ"; """\n"""\nY = 1\n""""""\nz = f"{x}", b"q"\n'
    assert without_docstrings("def f(:\n") == "def f(:\n"


def test_an_unreadable_source_comes_back_unchanged():
    broken = "def f(:\n    return '''\n"
    assert without_comments(broken) == broken


def test_what_each_sandbox_runs_fits_in_one_argument():
    from rlvr_code.docker_backend import oneshot_source

    for role in ("judge", "solution"):
        assert len(harness_source(role).encode()) < MAX_ARG_STRLEN
    assert len(oneshot_source().encode()) < MAX_ARG_STRLEN  # both roles in one (the Docker backend)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")
def test_the_sandboxes_read_the_harness_from_a_descriptor_not_their_arguments():
    """An argument stays in the interpreter's heap for its whole life (three copies), and every
    fork of the solution zygote copies the page table over it: the zygotes' command lines hold the
    harness's descriptor number, not its text, and the zygotes still serve samples."""
    from rlvr_code.sandbox import LocalSandbox
    from rlvr_code.verifier import CodeVerifier
    from tests.code.helpers_code import asserts_task, fenced

    box = LocalSandbox()
    try:
        verifier = CodeVerifier(timeout_s=10)
        verifier.sandbox = lambda: box
        task = asserts_task(["assert f() == 1"], names=("f",))
        assert verifier.verify(task, fenced("def f():\n    return 1\n")).passed
        (worker,) = box._all
        zygotes = [pid for proc in worker.procs for pid in _python_processes_under(proc.pid)]
        assert len(zygotes) >= 2  # the judge zygote (and its warm judge), the solution zygote
        for pid in zygotes:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            assert sum(map(len, argv)) < 16 * 1024
            assert argv[-2].isdigit() or argv[-1].isdigit()  # the descriptor, last ('' after a trailing NUL)
            assert b"def serve_solution" not in b"".join(argv)
            assert len(os.listdir(f"/proc/{pid}/fd")) < 16  # the descriptor was closed after reading
    finally:
        box.close()


def _python_processes_under(root: int) -> list[int]:
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        try:
            todo.extend(int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
            if pid != root and Path(f"/proc/{pid}/exe").resolve().name.startswith("python3"):
                found.append(pid)
        except OSError:
            pass  # gone meanwhile
    return found
