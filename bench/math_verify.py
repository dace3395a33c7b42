"""The math family's verifier against math-verify, side by side on the same mixed set.

    .venv/bin/python bench/math_verify.py [--realistic 300] [--workers 2] [--pool-items 300]
    .venv/bin/python bench/math_verify.py --hostile-only [--batch 100] [--repeats 3]

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
"""

from __future__ import annotations

import argparse
import json
import random
import re
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


def run_inline(items) -> tuple[float, float, list[bool], list[bool]]:
    """Both verifiers over the items in this process, alternating which goes first per item.

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
            start = time.perf_counter()
            passed[side].append(item[side].verify(item[2], item[3]).passed)
            spent[side] += time.perf_counter() - start
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


def hostile_latency(workers: int, budget: float) -> list[tuple[str, float, str, float, str]]:
    task = Task(id="h", prompt="", answer="42")
    results: dict[str, list[tuple[float, str]]] = {name: [] for name in HOSTILE}
    # One pool per verifier, as a user runs one: a worker the peer's timeout kills restarts
    # and reloads, and that wait must not be charged to the other verifier's next call.
    for verifier in (MathVerifier(time_budget_s=budget), MathVerifyPeer()):
        with VerificationPool(workers) as pool:
            pool.preload(verifier)
            for name, completion in HOSTILE.items():
                start = time.perf_counter()
                verdict = pool.submit(verifier, task, completion, timeout_s=budget).result()
                results[name].append((time.perf_counter() - start, verdict.reason.value))
    return [(name, ours[0], ours[1], peer[0], peer[1]) for name, (ours, peer) in results.items()]


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


def _row(name: str, mode: str, subset, t_ours: float, t_mv: float, p_ours, p_mv) -> None:
    ours_rate, mv_rate = len(subset) / t_ours, len(subset) / t_mv
    print(
        f"{name:<12} {mode:<14} {ours_rate:>9.1f} {mv_rate:>14.1f} {ours_rate / mv_rate:>6.1f}x "
        f"{accuracy(subset, p_ours):>9.1%} {accuracy(subset, p_mv):>8.1%}"
    )
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--realistic", type=int, default=300, help="number of realistic long completions")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pool-items", type=int, default=300, help="items of the mixed set run through the pool")
    parser.add_argument("--budget", type=float, default=2.0, help="per-call budget for the hostile inputs (s)")
    parser.add_argument("--hostile-only", action="store_true", help="only the hostile rows and the hostile batch")
    parser.add_argument("--batch", type=int, default=100, help="size of the hostile batch (10%% expansion-heavy)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of the hostile batch")
    args = parser.parse_args()
    if args.hostile_only:
        print_hostile(args)
        return

    peer_set, real_set = peer_items(), realistic_items(args.realistic)
    mixed = peer_set + real_set
    # Install the parser's saved prediction cache before anything parses (part of our set-up,
    # like an import; in process it serves math-verify's parses too, since both use the same
    # generated parser), then import sympy, latex2sympy and math-verify, outside the timings.
    snapshot = parser_snapshot.load()
    run_inline(mixed[:3])

    print(
        f"mixed set: {len(peer_set)} peer cases + {len(real_set)} realistic long completions "
        f"(mean {sum(len(i[3]) for i in real_set) // max(1, len(real_set))} chars); "
        f"parser snapshot {'loaded' if snapshot else 'NOT loaded (built for another parser version)'}\n"
    )
    header = (
        f"{'subset':<12} {'mode':<14} {'ours/s':>9} {'math-verify/s':>14} {'ratio':>7} {'ours acc':>9} {'mv acc':>8}"
    )
    print(header)
    print("-" * len(header))
    inline = {name: run_inline(subset) for name, subset in (("peer", peer_set), ("realistic", real_set))}
    p, r = inline["peer"], inline["realistic"]
    inline["mixed"] = (p[0] + r[0], p[1] + r[1], p[2] + r[2], p[3] + r[3])
    subsets = {"peer": peer_set, "realistic": real_set, "mixed": mixed}
    for name, (t_ours, t_mv, p_ours, p_mv) in inline.items():
        _row(name, "inline", subsets[name], t_ours, t_mv, p_ours, p_mv)
    # The same items again: the LaTeX parser's decision cache (shared by both sides) is now
    # warm, as in any long-running process; answer caches are still emptied before each item.
    t_ours, t_mv, p_ours, p_mv = run_inline(mixed)
    _row("mixed", "2nd pass", mixed, t_ours, t_mv, p_ours, p_mv)
    # Fresh workers for each side; an evenly spread subset of the mixed set keeps the run short.
    step = max(1, len(mixed) // max(1, args.pool_items))
    sample = mixed[::step]
    (t_ours, p_ours), (t_mv, p_mv) = run_pool(sample, 0, args.workers), run_pool(sample, 1, args.workers)
    _row(f"mixed/{step}", f"pool x{args.workers}", sample, t_ours, t_mv, p_ours, p_mv)
    # Steady state: fresh workers first verify the other half of the mixed set (untimed), then
    # the timed half; both verifiers get the same treatment.
    timed_half, warm_half = mixed[1::2], mixed[0::2]
    (t_ours, p_ours), (t_mv, p_mv) = (run_pool(timed_half, side, args.workers, warm_half) for side in (0, 1))
    _row("mixed, odd", f"pool x{args.workers}, warm", timed_half, t_ours, t_mv, p_ours, p_mv)
    print_hostile(args)


def print_hostile(args: argparse.Namespace) -> None:
    print(f"\nhostile inputs through the pool (budget {args.budget:g} s; math-verify with its timeouts off):")
    print(f"{'input':<20} {'ours s':>8} {'ours verdict':<14} {'math-verify s':>14} {'mv verdict':<12}")
    for name, t_ours, r_ours, t_mv, r_mv in hostile_latency(args.workers, args.budget):
        print(f"{name:<20} {t_ours:>8.3f} {r_ours:<14} {t_mv:>14.3f} {r_mv:<12}")
    if args.batch > 0 and args.repeats > 0:
        times = hostile_batch(args.workers, args.budget, args.batch, args.repeats)
        print(f"\nbatch of {args.batch}, 10% {EXPANSION_HEAVY}, pool x{args.workers}, {args.repeats} runs (s):")
        print(f"{'verifier':<12} {'min':>8} {'median':>8} {'max':>8}")
        for name, spent in times.items():
            ordered = sorted(spent)
            print(f"{name:<12} {ordered[0]:>8.2f} {ordered[len(ordered) // 2]:>8.2f} {ordered[-1]:>8.2f}")


if __name__ == "__main__":
    main()
