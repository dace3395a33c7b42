"""The math family's verifier against math-verify, side by side on the same mixed set.

    .venv/bin/python bench/math_verify.py [--realistic 300] [--workers 2] [--pool-items 300] [--repeats 3]
    .venv/bin/python bench/math_verify.py --hostile-only [--batch 100] [--repeats 3]
    .venv/bin/python bench/math_verify.py --inline-only [--repeats 3]   # the in-process rows alone

The set: every labelled peer case in ../shared/data (math_verify_cases.jsonl and
math_equiv_other_cases.jsonl, each verifier configured as the row's harness says), plus
realistic completions: worked MATH-500 / GSM8K / AIME solutions that reason at length before
a boxed final answer, half of them with the final answer altered (so wrong by construction).

Both verifiers run with their signal-based timeouts off (math-verify's alarm-signal timeouts do not
work off the main thread); in the pool the hard budget is enforced by killing the worker.
Printed: verifications per second (one process, and the pool), the ratio, accuracy against
the labels, and the worst latency on hostile inputs through the pool. In process, the set runs
twice: first in a fresh process (the LaTeX parser builds its decision cache as it meets new
shapes, which dominates the first few hundred parses), then again with that cache warm, as
in a long training run. Both passes verify every item from empty answer caches.

In process, the two verifiers share what a process keeps: ANTLR's prediction cache (our saved
one, ``rlvr_math.parser_snapshot``, is installed in the generated parser both use) and sympy's
caches, so whichever verifier meets a shape first builds them for the other too. The pool
rows give each verifier its own processes: the comparison a user running a pool gets.

Every row is timed ``--repeats`` times and printed as min/median/max verifications per second
for each verifier, the ratio of the medians (ours over math-verify's) and the range of the
per-repeat ratios (each repeat times both verifiers back to back, so a slow moment on the
shared machine shows up in both). In-process rows are process CPU time; each repeat of them
runs in a fresh subprocess (the first pass is only "fresh" once per process), which then runs
the second pass. Pool rows are wall time, fresh workers per repeat, the verifier that goes first
alternating between repeats. Hostile inputs: min/median/max latency over the repeats.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# This file is named like the package it measures: keep its folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from rlvr_envs import Task, VerificationPool, Verifier  # noqa: E402
from rlvr_math import MathVerifier, parser_snapshot  # noqa: E402
from rlvr_math.peer import MathVerifyPeer  # noqa: E402
from rlvr_math.verifier import clear_caches  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"

HOSTILE = {
    "9^{9^{9^9}}": "\\boxed{9^{9^{9^9}}}",
    "(10^9)!": "\\boxed{(10^9)!}",
    "50k unbalanced {": "\\boxed{" + "{" * 50_000,
    "1 MB completion": "step " * 200_000 + "\\boxed{41}",
    "(x+1)^{99999}": "\\boxed{(x+1)^{99999}}",
    # Expansion-heavy but short (issue 21): refused by the cost bound of rlvr_math.cost.
    "(x+y+z+w+u+v)^{99}": "\\boxed{(x+y+z+w+u+v)^{99}}",
    "((x+y+z)^9)^9": "\\boxed{((x+y+z)^{9})^{9}}",
    "sin((x+y+z)^30)": "\\boxed{\\sin((x+y+z)^{30})}",
    "nested fractions": "\\boxed{\\frac{1}{1+\\frac{1}{(x+y)^{30}+\\frac{1}{(x+z)^{30}}}}}",
    "42 perhaps": "\\boxed{42 perhaps}",
}
EXPANSION_HEAVY = "\\boxed{(x+y+z+w+u+v)^{99}}"


def _read(name: str) -> list[dict[str, Any]]:
    with (SHARED / name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def peer_items() -> list[tuple[Verifier, Verifier, Task, str, bool]]:
    items: list[tuple[Verifier, Verifier, Task, str, bool]] = []
    for row in _read("math_verify_cases.jsonl") + _read("math_equiv_other_cases.jsonl"):
        config = row.get("config") or {}
        match_types = config.get("match_types") or ["latex", "expr"]
        precision = config.get("precision") or 6
        strict = True if config.get("strict") is None else config["strict"]
        set_relation = bool(config.get("allow_set_relation_comp"))
        fallback = "bare" if "grader" in row else ("latex+expr" if "expr" in match_types else "latex")
        ours = MathVerifier(
            rel_tol=10.0**-precision,
            fallback=fallback,
            strict=strict,
            allow_set_relation_comp=set_relation,
            ordered_lists="hendrycks" in row.get("grader", ""),
            # math-verify reads "x = 5+5+1 = 7 = 11" by its last side (its convention)
            chains="consistent" if "grader" in row else "last",
        )
        peer = MathVerifyPeer(precision, strict, set_relation, latex_only="expr" not in match_types)
        items.append((ours, peer, Task(id="peer", prompt="", answer=row["gold"]), row["pred"], row["expected"]))
    return items


def _alter(answer: str, rng: random.Random) -> str:
    if re.fullmatch(r"-?\d+", answer):
        return str(int(answer) + rng.choice([-2, -1, 1, 3, 10]))
    return f"{answer} + 1"


def realistic_items(n: int, seed: int = 0) -> list[tuple[Verifier, Verifier, Task, str, bool]]:
    rng = random.Random(seed)
    ours, peer = MathVerifier(), MathVerifyPeer()
    pool: list[tuple[str, str]] = []  # (gold, worked solution ending in a boxed answer)
    for row in _read("math500.jsonl"):
        if "\\boxed" in row["solution"]:
            pool.append((row["answer"], row["solution"]))
    for row in _read("gsm8k_test.jsonl")[:300]:
        work = re.sub(r"<<[^>]*>>", "", row["solution"]).rsplit("####", 1)[0].strip()
        pool.append((row["answer"], f"{work}\nSo the answer is $\\boxed{{{row['answer']}}}$."))
    for row in _read("aime.jsonl"):
        if row.get("solution"):
            pool.append((row["answer"], f"{row['solution']}\n\nThe final answer is $\\boxed{{{row['answer']}}}$."))
    rng.shuffle(pool)
    items: list[tuple[Verifier, Verifier, Task, str, bool]] = []
    for i, (gold, solution) in enumerate(pool[:n]):
        correct = i % 2 == 0
        completion = solution
        if not correct:
            start = solution.rfind("\\boxed{")
            completion = f"{solution[:start]}\\boxed{{{_alter(gold, rng)}}}$."
        items.append((ours, peer, Task(id=f"r{i}", prompt="", answer=gold), completion, correct))
    return items


def forget_answers() -> None:
    """Empty both sides' caches of parsed answers, so no item profits from an earlier one.

    Ours: the gold-answer, parse and value LRUs. math-verify's: its small (20-entry) caches of
    parsed LaTeX and expressions. The parser's decision cache (ANTLR's DFA, shared by both) is
    not an answer cache and stays, as it does in any long-running process; so does ours of
    full-context choices per sequence of token types (``rlvr_math.parse_replay``, which holds
    token types and alternative numbers, no answer text), which only our side has.
    """
    import math_verify.parser as mv_parser

    clear_caches()
    for cache in (mv_parser.parse_latex_cached, mv_parser.parse_expr_cached, mv_parser.extract_latex):
        cache.cache_clear()


class _CollectorClock:
    """CPU seconds spent inside the garbage collector while each side's call runs (``gc.callbacks``).

    Round 15 found that the first pass's ratio is decided by where the process's full collections
    land: both libraries' objects share one heap (~1M tracked objects once sympy and ANTLR are
    loaded), a full collection of it costs 60-150 ms, about five fall inside a pass, and whichever
    side's allocation crosses the threshold pays it. That phase shifts with anything allocated
    before the pass (the same tree: 4.4x with one more full collection on our side, 5.2x with none,
    moved by a few thousand objects allocated before it). Printed beside the rows, not subtracted.
    """

    def __init__(self) -> None:
        self.side = -1
        self.spent = [0.0, 0.0]
        self.full = [0, 0]
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if self.side < 0:
            return
        if phase == "start":
            self._start = time.process_time()
            return
        self.spent[self.side] += time.process_time() - self._start
        self.full[self.side] += info.get("generation") == 2


COLLECTOR = _CollectorClock()


def run_inline(items) -> tuple[float, float, list[bool], list[bool]]:
    """Both verifiers over the items in this process (CPU seconds), alternating which goes first.

    Alternating keeps shared warm-up effects (the ANTLR parser's decision cache inside
    latex2sympy, used by both) from favouring whichever verifier runs second. Every item
    starts from empty answer caches on both sides (``forget_answers``), outside the timings:
    the peer set repeats some gold answers, and a cache hit there would be a benchmark artefact.
    """
    spent = [0.0, 0.0]
    passed: list[list[bool]] = [[], []]
    for index, item in enumerate(items):
        forget_answers()
        for side in (0, 1) if index % 2 == 0 else (1, 0):
            start = time.process_time()
            COLLECTOR.side = side
            passed[side].append(item[side].verify(item[2], item[3]).passed)
            COLLECTOR.side = -1
            spent[side] += time.process_time() - start
    return spent[0], spent[1], passed[0], passed[1]


def run_pool(items, side: int, workers: int, warm_items=()) -> tuple[float, list[bool]]:
    """Fresh workers verify ``items``; the time from the first submission to the last result.

    ``warm_items`` are verified first, untimed, by the same workers: a long training run's
    workers have long since met most answer shapes (the LaTeX parser's prediction cache is
    per process), and both verifiers get the same warm-up items.
    """
    with VerificationPool(workers) as pool:
        by_verifier: dict[int, list[int]] = {}
        for index, item in enumerate(items):
            by_verifier.setdefault(id(item[side]), []).append(index)
        # Start the workers and load every verifier in each before timing (imports and a
        # verifier's own load-time warm-up are not budgeted), on an empty completion: running the
        # measured items here would warm caches for the timing.
        for indexes in by_verifier.values():
            pool.preload(items[indexes[0]][side])
        for future in [pool.submit(item[side], item[2], item[3]) for item in warm_items]:
            future.result()
        start = time.perf_counter()
        futures = [pool.submit(item[side], item[2], item[3]) for item in items]
        passed = [f.result().passed for f in futures]
        return time.perf_counter() - start, passed


def hostile_latency(workers: int, budget: float, repeats: int = 1) -> dict[str, list[tuple[list[float], set[str]]]]:
    """Per hostile input, for ours then math-verify: the latencies over ``repeats`` and the verdicts."""
    task = Task(id="h", prompt="", answer="42")
    results: dict[str, list[tuple[list[float], set[str]]]] = {name: [] for name in HOSTILE}
    # One pool per verifier, as a user runs one: a worker the peer's timeout kills restarts
    # and reloads, and that wait must not be charged to the other verifier's next call.
    for verifier in (MathVerifier(time_budget_s=budget), MathVerifyPeer()):
        with VerificationPool(workers) as pool:
            pool.preload(verifier)
            spent: dict[str, list[float]] = {name: [] for name in HOSTILE}
            reasons: dict[str, set[str]] = {name: set() for name in HOSTILE}
            for _ in range(repeats):
                for name, completion in HOSTILE.items():
                    start = time.perf_counter()
                    verdict = pool.submit(verifier, task, completion, timeout_s=budget).result()
                    spent[name].append(time.perf_counter() - start)
                    reasons[name].add(verdict.reason.value)
            for name in HOSTILE:
                results[name].append((spent[name], reasons[name]))
    return results


def hostile_batch(workers: int, budget: float, size: int, repeats: int) -> dict[str, list[float]]:
    """Wall time of a batch of ``size`` completions, 10% of them ``EXPANSION_HEAVY``, through a
    fresh pool per verifier (loaded before timing), ``repeats`` times: issue 21's scenario."""
    task = Task(id="b", prompt="", answer="42")
    rng = random.Random(0)
    completions = [EXPANSION_HEAVY if i % 10 == 0 else f"so \\boxed{{{rng.randint(1, 99)}}}" for i in range(size)]
    times: dict[str, list[float]] = {"ours": [], "math-verify": []}
    for name, verifier in (("ours", MathVerifier(time_budget_s=budget)), ("math-verify", MathVerifyPeer())):
        for _ in range(repeats):
            with VerificationPool(workers) as pool:
                pool.preload(verifier)
                start = time.perf_counter()
                futures = [pool.submit(verifier, task, c, timeout_s=budget) for c in completions]
                for future in futures:
                    future.result()
                times[name].append(time.perf_counter() - start)
    return times


def accuracy(items, passed: list[bool]) -> float:
    return sum(p == item[4] for p, item in zip(passed, items)) / len(items)


def _spread(values: list[float]) -> tuple[float, float, float]:
    return min(values), statistics.median(values), max(values)


def _mmm(values: list[float], digits: int = 1) -> str:
    lo, med, hi = _spread(values)
    return f"{lo:.{digits}f}/{med:.{digits}f}/{hi:.{digits}f}"


ROW_HEADER = (
    f"{'subset':<12} {'mode':<15} {'ours/s min/med/max':>22} {'math-verify/s':>20} {'ratio':>6} "
    f"{'(range)':>11} {'ours acc':>9} {'mv acc':>7}"
)


def _row(name: str, mode: str, subset, runs: list[tuple[float, float, list[bool], list[bool]]]) -> None:
    """One row from ``runs`` (one per repeat: our seconds, math-verify's, both verdict lists)."""
    ours = [len(subset) / run[0] for run in runs]
    peer = [len(subset) / run[1] for run in runs]
    ratios = [o / m for o, m in zip(ours, peer)]
    p_ours, p_mv = runs[0][2], runs[0][3]  # verdicts do not change between repeats
    print(
        f"{name:<12} {mode:<15} {_mmm(ours):>22} {_mmm(peer):>20} "
        f"{statistics.median(ours) / statistics.median(peer):>5.1f}x {f'{min(ratios):.1f}-{max(ratios):.1f}x':>11} "
        f"{accuracy(subset, p_ours):>9.1%} {accuracy(subset, p_mv):>7.1%}"
    )
    sys.stdout.flush()


def inline_worker(realistic: int) -> None:
    """One repeat of the in-process rows, in this (fresh) process: prints them as one JSON line."""
    peer_set, real_set = peer_items(), realistic_items(realistic)
    mixed = peer_set + real_set
    snapshot = parser_snapshot.load()
    run_inline(mixed[:3])  # imports of sympy, latex2sympy and math-verify, outside the timings
    gc.callbacks.append(COLLECTOR)
    out: dict[str, Any] = {"snapshot": bool(snapshot), "peer": run_inline(peer_set), "realistic": run_inline(real_set)}
    out["gc"] = [*COLLECTOR.spent, *COLLECTOR.full]  # the first pass's: ours s, math-verify's s, full collections
    out["2nd pass"] = run_inline(mixed)
    print(json.dumps(out))


def _inline_repeats(realistic: int, repeats: int) -> list[dict[str, Any]]:
    runs = []
    for _ in range(repeats):
        command = [sys.executable, str(Path(__file__).resolve()), "--inline-worker", "--realistic", str(realistic)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"in-process repeat failed ({done.returncode}): {done.stderr[-2000:]}")
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs


def _pool_repeats(
    items, workers: int, repeats: int, warm_items=()
) -> list[tuple[float, float, list[bool], list[bool]]]:
    runs = []
    for index in range(repeats):
        order = (0, 1) if index % 2 == 0 else (1, 0)
        timed = {side: run_pool(items, side, workers, warm_items) for side in order}
        runs.append((timed[0][0], timed[1][0], timed[0][1], timed[1][1]))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--realistic", type=int, default=300, help="number of realistic long completions")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pool-items", type=int, default=300, help="items of the mixed set run through the pool")
    parser.add_argument("--budget", type=float, default=2.0, help="per-call budget for the hostile inputs (s)")
    parser.add_argument("--hostile-only", action="store_true", help="only the hostile rows and the hostile batch")
    parser.add_argument("--batch", type=int, default=100, help="size of the hostile batch (10%% expansion-heavy)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of every timed row (min/median/max)")
    parser.add_argument("--inline-only", action="store_true", help="only the in-process rows (first and 2nd pass)")
    parser.add_argument("--inline-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.inline_worker:
        inline_worker(args.realistic)
        return
    if args.hostile_only:
        print_hostile(args)
        return

    peer_set, real_set = peer_items(), realistic_items(args.realistic)
    mixed = peer_set + real_set
    runs = _inline_repeats(args.realistic, args.repeats)
    print(
        f"mixed set: {len(peer_set)} peer cases + {len(real_set)} realistic long completions "
        f"(mean {sum(len(i[3]) for i in real_set) // max(1, len(real_set))} chars); "
        f"parser snapshot {'loaded' if runs[0]['snapshot'] else 'NOT loaded (built for another parser version)'}; "
        f"{args.repeats} repeats per row\n"
    )
    print(ROW_HEADER)
    print("-" * len(ROW_HEADER))
    subsets = {"peer": peer_set, "realistic": real_set}
    for name, subset in subsets.items():
        _row(name, "inline", subset, [run[name] for run in runs])
    combined = [
        tuple(p + r for p, r in zip(run["peer"], run["realistic"]))  # seconds add, verdict lists concatenate
        for run in runs
    ]
    _row("mixed", "inline", mixed, combined)
    for run, first in zip(runs, combined):
        ours, theirs, ours_full, theirs_full = run["gc"]
        print(
            f"{'':<12} {'  of which gc':<15} ours {ours:.3f} s ({ours_full:.0f} full), math-verify {theirs:.3f} s "
            f"({theirs_full:.0f} full); without collections {(first[1] - theirs) / (first[0] - ours):.2f}x"
        )
    # The same items again in the same processes: the LaTeX parser's decision cache (shared by
    # both sides) is now warm, as in any long-running process; answer caches are still emptied.
    _row("mixed", "2nd pass", mixed, [run["2nd pass"] for run in runs])
    if args.inline_only:
        return
    # Fresh workers for each side; an evenly spread subset of the mixed set keeps the run short.
    step = max(1, len(mixed) // max(1, args.pool_items))
    sample = mixed[::step]
    _row(f"mixed/{step}", f"pool x{args.workers}", sample, _pool_repeats(sample, args.workers, args.repeats))
    # Steady state: fresh workers first verify the other half of the mixed set (untimed), then
    # the timed half; both verifiers get the same treatment.
    timed_half, warm_half = mixed[1::2], mixed[0::2]
    warm_runs = _pool_repeats(timed_half, args.workers, args.repeats, warm_half)
    _row("mixed, odd", f"pool x{args.workers}, warm", timed_half, warm_runs)
    print_hostile(args)


def print_hostile(args: argparse.Namespace) -> None:
    print(
        f"\nhostile inputs through the pool (budget {args.budget:g} s; math-verify with its timeouts off), "
        f"latency min/median/max over {args.repeats} repeats (s):"
    )
    print(f"{'input':<20} {'ours s':>20} {'ours verdict':<14} {'math-verify s':>20} {'mv verdict':<12}")
    for name, ((ours, r_ours), (peer, r_mv)) in hostile_latency(args.workers, args.budget, args.repeats).items():
        print(
            f"{name:<20} {_mmm(ours, 3):>20} {'/'.join(sorted(r_ours)):<14} {_mmm(peer, 3):>20} {'/'.join(sorted(r_mv)):<12}"
        )
    if args.batch > 0:
        times = hostile_batch(args.workers, args.budget, args.batch, args.repeats)
        print(f"\nbatch of {args.batch}, 10% {EXPANSION_HEAVY}, pool x{args.workers}, {args.repeats} runs (s):")
        print(f"{'verifier':<12} {'min':>8} {'median':>8} {'max':>8} {'mv median / this':>17}")
        reference = statistics.median(times["math-verify"])
        for name, spent in times.items():
            lo, med, hi = _spread(spent)
            print(f"{name:<12} {lo:>8.2f} {med:>8.2f} {hi:>8.2f} {reference / med:>16.1f}x")


if __name__ == "__main__":
    main()
