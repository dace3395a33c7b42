"""``rlvr-envs lean doctor``: what a Lean check needs here, what is missing, and the command that fixes it.

Added to the core CLI through the ``rlvr_envs.cli`` entry-point group (``add_parsers``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlvr_lean import test_kernel

ELAN_FIX = "curl https://elan.lean-lang.org/elan-init.sh -sSf | sh -s -- -y && source ~/.elan/env"
REPL_FIX = (
    "git clone https://github.com/leanprover-community/repl && cd repl "
    "&& git checkout <tag matching your Lean> && lake build"
)


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def _tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidate = Path.home() / ".elan" / "bin" / name
    return str(candidate) if candidate.exists() else None


def _version(binary: str) -> str | None:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (
        (out.stdout or out.stderr).strip().splitlines()[0]
        if out.returncode == 0 and (out.stdout or out.stderr)
        else None
    )


def _mathlib_checks(project: Path) -> list[Check]:
    manifest = project / "lake-manifest.json"
    try:
        packages = json.loads(manifest.read_text()).get("packages", []) if manifest.exists() else []
    except (OSError, json.JSONDecodeError):
        packages = []
    names = {str(p.get("name", "")).lower() for p in packages if isinstance(p, dict)}
    if "mathlib" not in names:
        return [
            Check(
                "mathlib",
                False,
                "the project does not depend on Mathlib (fine for core-Lean tasks; miniF2F needs it)",
                f'cd {shlex.quote(str(project))} && add `[[require]] name = "mathlib"` to lakefile.toml && lake update',
            )
        ]
    build = project / ".lake" / "packages" / "mathlib" / ".lake" / "build"
    if not build.exists():
        return [
            Check(
                "mathlib",
                False,
                "Mathlib is required but its build cache is missing",
                f"cd {shlex.quote(str(project))} && lake exe cache get",
            )
        ]
    return [Check("mathlib", True, f"Mathlib build at {build}")]


def _repl_smoke(command: list[str], cwd: str | None, timeout_s: float) -> Check:
    from rlvr_lean.backends import LeanUnavailable
    from rlvr_lean.repl import ReplCrashed, ReplProcess, ReplTimeout

    try:
        repl = ReplProcess(command, cwd)
    except LeanUnavailable as exc:
        return Check("repl run", False, str(exc)[:300], REPL_FIX)
    try:
        reply = repl.request({"cmd": "theorem _doctor : 1 + 1 = 2 := rfl\n#print axioms _doctor"}, timeout_s)
    except (ReplTimeout, ReplCrashed) as exc:
        return Check("repl run", False, f"{shlex.join(command)}: {exc}"[:400], REPL_FIX)
    finally:
        repl.close()
    errors = [m for m in reply.get("messages", []) if m.get("severity") == "error"]
    if errors or "env" not in reply:
        return Check("repl run", False, f"the REPL answered {json.dumps(reply)[:300]}", REPL_FIX)
    return Check("repl run", True, f"a one-line proof checks through {shlex.join(command)}")


def run_checks(args: argparse.Namespace) -> list[Check]:
    checks: list[Check] = []
    if args.repl_command:
        command = shlex.split(args.repl_command)
        checks.append(Check("repl command", True, shlex.join(command)))
        if not args.no_run:
            checks.append(_repl_smoke(command, args.project, args.timeout))
        return checks + _kimina_checks(args) + _test_kernel_checks(args)
    elan, lean, lake = _tool("elan"), _tool("lean"), _tool("lake")
    checks.append(
        Check("elan", elan is not None, elan or "not found on PATH or in ~/.elan/bin", "" if elan else ELAN_FIX)
    )
    lean_version = _version(lean) if lean else None
    if lean and lean_version and test_kernel.is_test_kernel(lean):
        # The test kernel has no Init and no Mathlib: it cannot check a real task's proof.
        checks.append(
            Check("lean", False, f"{lean} is the rlvr test kernel ({lean_version}), not a toolchain", ELAN_FIX)
        )
    else:
        checks.append(
            Check(
                "lean",
                lean_version is not None,
                lean_version or "no working `lean`",
                "" if lean_version else "elan default leanprover/lean4:stable",
            )
        )
    checks.append(Check("lake", lake is not None, lake or "not found", "" if lake else ELAN_FIX))
    project = Path(args.project).expanduser() if args.project else None
    if project is None:
        checks.append(
            Check(
                "project",
                False,
                "no Lean project given (--project or RLVR_LEAN_PROJECT)",
                "lake +leanprover-community/mathlib4:lean-toolchain new proofs math && cd proofs && lake exe cache get",
            )
        )
    elif not (project / "lakefile.lean").exists() and not (project / "lakefile.toml").exists():
        checks.append(
            Check(
                "project",
                False,
                f"{project} has no lakefile.lean/lakefile.toml",
                f"cd {shlex.quote(str(project))} && lake init proofs math",
            )
        )
        project = None
    else:
        toolchain = (project / "lean-toolchain").read_text().strip() if (project / "lean-toolchain").exists() else "?"
        checks.append(Check("project", True, f"{project} (toolchain {toolchain})"))
        checks.extend(_mathlib_checks(project))
    repl = args.repl or shutil.which("repl")
    if repl is None and project is not None:
        for candidate in (".lake/packages/REPL/.lake/build/bin/repl", ".lake/packages/repl/.lake/build/bin/repl"):
            if (project / candidate).exists():
                repl = str(project / candidate)
    repl_ok = repl is not None and Path(repl).exists()
    checks.append(Check("repl binary", repl_ok, repl or "not found (--repl or on PATH)", "" if repl_ok else REPL_FIX))
    if repl_ok and lake and project is not None and not args.no_run:
        checks.append(_repl_smoke([lake, "env", str(repl)], str(project), args.timeout))
    return checks + _kimina_checks(args) + _test_kernel_checks(args)


def _test_kernel_checks(args: argparse.Namespace) -> list[Check]:
    """The test kernel, reported apart: optional (never missing), and never a toolchain for tasks."""
    lean = test_kernel.find()
    if lean is None:
        return [Check("test kernel", True, f"not built (optional, for tests and CI): {test_kernel.missing_reason()}")]
    version = test_kernel.version(lean) or "?"
    detail = f"{lean} ({version}); tests and CI only: prelude-only files, no Init, no Mathlib"
    if args.no_run:
        return [Check("test kernel", True, detail)]
    problem = test_kernel.smoke(lean, timeout_s=min(args.timeout, 60))
    if problem is None:
        return [Check("test kernel", True, detail + "; checked a prelude file")]
    return [
        Check("test kernel", False, f"{lean} failed a prelude file: {problem}", "python -m rlvr_lean.test_kernel build")
    ]


def _kimina_checks(args: argparse.Namespace) -> list[Check]:
    if not args.kimina_url:
        return []
    from rlvr_lean.backends import KiminaBackend, LeanUnavailable

    backend = KiminaBackend(args.kimina_url, retries=0)
    try:
        reply = backend._post(
            {"codes": [{"custom_id": "doctor", "code": "theorem _doctor : 1 + 1 = 2 := rfl"}], "timeout": 30},
            args.timeout,
        )
    except LeanUnavailable as exc:
        return [Check("kimina", False, str(exc)[:300], "docker run -d -p 8000:8000 projectnumina/kimina-lean-server")]
    return [Check("kimina", "results" in reply, f"{backend.url} answered", "")]


def cmd_doctor(args: argparse.Namespace) -> int:
    checks = run_checks(args)
    width = max(len(c.name) for c in checks)
    for c in checks:
        status = "ok" if c.ok else "MISSING"
        print(f"{status:7}  {c.name.ljust(width)}  {c.detail}")
        if not c.ok and c.fix:
            print(f"{'':7}  {'':{width}}  fix: {c.fix}")
    missing = [c for c in checks if not c.ok]
    if missing:
        print(
            f"\n{len(missing)} missing: Lean proofs get verifier_error until this is fixed "
            "(the static policy works without Lean)."
        )
        return 1
    print("\nall checks passed")
    return 0


def add_parsers(subparsers: Any) -> None:
    lean = subparsers.add_parser("lean", help="Lean 4 family tools (doctor)")
    sub = lean.add_subparsers(dest="lean_command", metavar="LEAN_COMMAND")
    lean.set_defaults(func=lambda args: (lean.print_help(), 2)[1])
    p = sub.add_parser("doctor", help="check the Lean toolchain, project, Mathlib and REPL; print the fixes")
    p.add_argument(
        "--project", default=os.environ.get("RLVR_LEAN_PROJECT"), help="the Lean project (default $RLVR_LEAN_PROJECT)"
    )
    p.add_argument("--repl", help="the REPL binary (default: on PATH or in the project's .lake/packages)")
    p.add_argument("--repl-command", help="a full command that starts a REPL (instead of lake env + --repl)")
    p.add_argument("--kimina-url", default=os.environ.get("RLVR_KIMINA_URL"), help="also check a kimina-lean-server")
    p.add_argument(
        "--timeout", type=float, default=300.0, help="seconds for the REPL smoke test (Mathlib loads slowly)"
    )
    p.add_argument("--no-run", action="store_true", help="do not start the REPL")
    p.set_defaults(func=cmd_doctor)
