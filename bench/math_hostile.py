"""In-process cost of hostile answers in the math verifier, against the floor of an ordinary answer.

    .venv/bin/python bench/math_hostile.py [--repeats 5]

What the unit tests only guard against hanging (in CPU time, generously) is measured here: each
hostile answer's wall time in this process (min / median / max over repeats, answer caches
cleared before each), next to the same call on an ordinary answer (the floor), and the targets
the tests once asserted. The pool's latency and throughput on hostile batches, and math-verify
side by side, are in bench/math_verify.py --hostile-only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Keep this folder off the import path (bench/math_verify.py is named like the package it measures).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from rlvr_envs import Task  # noqa: E402
from rlvr_math import MathVerifier  # noqa: E402
from rlvr_math.equivalence import answers_match  # noqa: E402
from rlvr_math.normalize import clean  # noqa: E402
from rlvr_math.structures import compare_structures  # noqa: E402
from rlvr_math.verifier import clear_caches  # noqa: E402

FAST_PATHS = {  # compare_structures(gold, pred); target 0.2 s
    "power tower of numbers": ("2", "((2^{999})^{999})^{999}"),
    "power tower of a sum": ("x+1", "(((x+1)^{24})^{24})^{24}"),
    "150 x": ("x+1", "x" * 150),
    "12 nested roots": ("\\sqrt{2}", "\\sqrt{" * 12 + "2" + "}" * 12),
    "60-tuple of roots": ("(1, 2)", "(" + ", ".join(["\\sqrt{2}"] * 60) + ")"),
    "20x21 matrix": (
        "\\begin{pmatrix}1\\end{pmatrix}",
        "\\begin{pmatrix}" + "\\\\".join(["1&" * 20 + "1"] * 20) + "\\end{pmatrix}",
    ),
}
REFUSED = {  # answers_match("7", pred); target 0.5 s
    "9^{9^{9^9}}": "9^{9^{9^9}}",
    "(10^9)!": "(10^9)!",
    "10^{10^{10}}": "10^{10^{10}}",
    "2^{99999999}": "2^{99999999}",
    "1000000!": "1000000!",
    "500 nested braces": "{" * 500 + "1" + "}" * 500,
    "5000 digits": "1" * 5000,
}
VERIFIED = {  # MathVerifier().verify, gold 42; target 2 s (expansion-heavy: 0.5 s)
    "power tower": "\\boxed{9^{9^{9^9}}}",
    "huge factorial": "\\boxed{(10^9)!}",
    "50k unbalanced braces": "\\boxed{" + "{" * 50_000,
    "1 MB completion": "step " * 200_000 + "\\boxed{41}",
    "2^{2^{40}}": "\\boxed{2^{2^{40}}}",
    "3000 nested parentheses": "\\boxed{" + "(" * 3000 + "1" + ")" * 3000 + "}",
    "(x+y+z+w+u+v)^{99}": "\\boxed{(x+y+z+w+u+v)^{99}}",
    "sin((x+y+z)^30)": "\\boxed{\\sin\\left((x+y+z)^{30}\\right)}",
}


def timed(call: Callable[..., object], *args: object, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        clear_caches()
        start = time.perf_counter()
        call(*args)
        out.append(time.perf_counter() - start)
    return out


def row(group: str, name: str, times: list[float], floor: list[float], target: float) -> None:
    lo, med, hi = min(times), statistics.median(times), max(times)
    ratio = med / max(statistics.median(floor), 1e-9)
    shown = f"{target * 1e3:>9.0f}" if target else f"{'':>9}"
    print(f"{group:<20} {name:<26} {lo * 1e3:>9.2f} {med * 1e3:>9.2f} {hi * 1e3:>9.2f} {ratio:>9.0f}x {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n = args.repeats
    verifier = MathVerifier()
    task = Task(id="t", prompt="p", answer="42")
    verifier.verify(task, "\\boxed{41}")  # imports and the parser's warm-up outside the timings
    floors = {
        "compare_structures": timed(compare_structures, clean("(1, 2)"), clean("(1, 3)"), 1e-6, repeats=n),
        "answers_match": timed(answers_match, "7", "8", repeats=n),
        "verify": timed(verifier.verify, task, "So \\boxed{41}.", repeats=n),
    }
    print(f"wall ms per call in one process, {n} repeats, caches cleared; floor = an ordinary wrong answer;")
    print("old test = the wall-clock limit (ms) the unit tests asserted before they became CPU-time hang guards")
    print(f"{'step':<20} {'input':<26} {'min':>9} {'median':>9} {'max':>9} {'vs floor':>10} {'old test':>9}")
    for group, floor in floors.items():
        row(group, "(floor)", floor, floor, 0.0)
    for name, (gold, pred) in FAST_PATHS.items():
        times = timed(compare_structures, clean(gold), clean(pred), 1e-6, repeats=n)
        row("compare_structures", name, times, floors["compare_structures"], 0.2)
    for name, pred in REFUSED.items():
        row("answers_match", name, timed(answers_match, "7", pred, repeats=n), floors["answers_match"], 0.5)
    for name, completion in VERIFIED.items():
        target = 0.5 if "^{99}" in name or "sin" in name else 2.0
        row("verify", name, timed(verifier.verify, task, completion, repeats=n), floors["verify"], target)


if __name__ == "__main__":
    main()
