"""What the pay gate's re-check costs a REPL pass (issue 26, round 11; ``rlvr_lean.gate``).

Run: ``.venv/bin/python bench/lean_gate.py [--passes 8]`` (needs the Lean 4.35 test kernel of
``scripts/setup.sh`` and bubblewrap).

A REPL backend has no kernel replay of its own; with ``lean_bin=`` every pass it gives is checked
again by a file backend (a sandboxed ``lean`` on the same file, then the kernel replay in a process
of its own) before it is paid. The REPL here is the protocol stand-in of ``tests/lean`` (it answers
in milliseconds, so what is measured is the re-check); the task is the test kernel's 120-line
prelude and a one-line proof. Both verifiers are warmed up (REPL started, header loaded), then
their passes alternate, so both see the same load; wall time per ``verify``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "envs" / "lean"))

from rlvr_envs import Task  # noqa: E402
from rlvr_lean import test_kernel  # noqa: E402
from rlvr_lean.verifier import LeanVerifier  # noqa: E402

SIGNATURE = "theorem target (n : N) : Eq (N.add N.zero n) n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passes", type=int, default=8)
    args = parser.parse_args()
    lean = test_kernel.find()
    if lean is None:
        print(f"no test kernel: {test_kernel.missing_reason()}")
        return 1
    prelude = (ROOT / "tests" / "lean" / "fixtures" / "Prelude.lean").read_text()
    task = Task(id="gate", prompt="p", answer={"header": prelude, "statement": SIGNATURE + " :="})
    standin = [sys.executable, str(ROOT / "tests" / "lean" / "repl_standin.py")]
    verifiers = {
        "REPL pass, no re-check": LeanVerifier(backend="local", repl_command=standin, max_repls=1),
        "REPL pass + file re-check with replay": LeanVerifier(
            backend="local", repl_command=standin, max_repls=1, lean_bin=lean
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in verifiers}
    try:
        for verifier in verifiers.values():
            verifier.verify(task, "N.zero_add n")
        for _ in range(args.passes):
            for name, verifier in verifiers.items():
                start = time.monotonic()
                verdict = verifier.verify(task, "N.zero_add n")
                times[name].append(time.monotonic() - start)
                if not verdict.passed:
                    print(f"{name}: not passed: {verdict}")
                    return 1
    finally:
        for verifier in verifiers.values():
            verifier.close()
    print(f"{args.passes} passes each, alternating, wall time per verify\n")
    for name, xs in times.items():
        print(f"{name:<40} median {statistics.median(xs):.3f} s   max {max(xs):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
