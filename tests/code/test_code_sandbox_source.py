"""What the sandboxes receive of the harness modules (``_sandbox_source``): comments cut, the code
unchanged, and small enough to travel as one command-line argument."""

from __future__ import annotations

from pathlib import Path

import rlvr_code
from rlvr_code._sandbox_source import without_comments
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


def test_an_unreadable_source_comes_back_unchanged():
    broken = "def f(:\n    return '''\n"
    assert without_comments(broken) == broken


def test_what_each_sandbox_runs_fits_in_one_argument():
    from rlvr_code.docker_backend import oneshot_source

    for role in ("judge", "solution"):
        assert len(harness_source(role).encode()) < MAX_ARG_STRLEN
    assert len(oneshot_source().encode()) < MAX_ARG_STRLEN  # both roles in one (the Docker backend)
