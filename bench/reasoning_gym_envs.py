"""Benchmark: tasks generated and verifications per second for every rg- env, slowest first,
next to reasoning-gym's own generation and scoring of the same dataset in the same run.

    .venv/bin/python bench/reasoning_gym_envs.py [--n 200] [--repeats 3] [--window-s 1] [--datasets chain_sum,sudoku ...]
    .venv/bin/python bench/reasoning_gym_envs.py --shapes [--repeats 5]
    .venv/bin/python bench/reasoning_gym_envs.py --guard [--datasets ...] [--n 200] [--repeats 5]

``--guard`` times our generation as it is against the previous path, which saved, seeded and
restored the global ``random`` and numpy generators around every task of every dataset (now
only ``generation.GLOBAL_RNG_DATASETS``), windows alternating, on a few cheap datasets.

``--shapes`` times every shape guard (``catalog.RULES[...].shape``) on the long near-misses of
``tests/reasoning_gym/test_rg_catalog.py`` (min/median/max over repeats, slowest first), next to
a linear scan of the same text (``str.count``) as the floor: a guard that backtracks shows up
as orders of magnitude above it. The test only checks that no guard hangs.

Our generation includes what reasoning-gym's does not: JSON-normalising the entry, the word
filter and checking the task's own gold answer (redrawing rejected tasks). Our verification
extracts the final answer from a completion and applies the dataset's rule (a comparison, or
a shape check then reasoning-gym's scorer); reasoning-gym's column scores the bare answer.
Both verify the gold answer of each task, in this process (no pool).

Timing is process CPU time (``time.process_time``, so another process taking the core does not
count) over windows of ``--n`` tasks (verifications: ``--n`` as well, cycling through the
tasks), ``--repeats`` times, the same tasks each time; rates are printed as min/median/max over
the repeats, with our median over reasoning-gym's median as the ratio. A dataset that generates
slowly gets fewer tasks per window: as many as the first window generates in ``--window-s`` of
CPU (at least one) in an untimed first pass, then that count in every timed window, on both
sides.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
from typing import Any


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def bench_shapes(repeats: int) -> None:
    import re
    from pathlib import Path

    from rlvr_reasoning_gym.catalog import RULES

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.reasoning_gym.test_rg_catalog import NEAR_MISSES

    rows = []
    for name, rule in sorted(RULES.items()):
        if not rule.shape:
            continue
        pattern = re.compile(rule.shape)
        times, floor = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            for text in NEAR_MISSES:
                pattern.fullmatch(text)
            times.append(time.perf_counter() - start)
            start = time.perf_counter()
            for text in NEAR_MISSES:
                text.count("x")
            floor.append(time.perf_counter() - start)
        rows.append((name, min(times), statistics.median(times), max(times), statistics.median(floor)))
    rows.sort(key=lambda r: -r[2])
    print(f"{len(NEAR_MISSES)} near-misses (up to {max(map(len, NEAR_MISSES))} chars) per guard, {repeats} repeats")
    header = f"{'dataset':<26}{'min ms':>10}{'median ms':>11}{'max ms':>10}{'scan ms':>10}"
    print(header)
    print("-" * len(header))
    for name, lo, med, hi, scan in rows:
        print(f"{name:<26}{lo * 1e3:>10.2f}{med * 1e3:>11.2f}{hi * 1e3:>10.2f}{scan * 1e3:>10.3f}")


MIN_VERIFY_WINDOW_S = 0.05
"""Verification windows are ``--n`` calls doubled until one takes this much CPU (bare scorers run
in microseconds: 200 calls would be a window of a millisecond or less)."""


def _windows(make_window, repeats: int) -> list[float]:
    """CPU seconds of each of ``repeats`` calls of ``make_window``."""
    spent = []
    for _ in range(repeats):
        start = time.process_time()
        make_window()
        spent.append(time.process_time() - start)
    return spent


def _count_for(run, base: int, min_s: float) -> int:
    """The smallest ``base * 2**j`` calls of ``run(count)`` that take ``min_s`` of CPU (untimed pass)."""
    count = base
    while count < base * 4096:
        start = time.process_time()
        run(count)
        if time.process_time() - start >= min_s:
            break
        count *= 2
    return count


def _rates(count: int, spent: list[float]) -> tuple[float, float, float]:
    rates = sorted(_rate(count, s) for s in spent)
    return rates[0], statistics.median(rates), rates[-1]


def bench_dataset(name: str, n: int, repeats: int, window_s: float) -> dict:
    import reasoning_gym

    import rlvr_envs
    from rlvr_reasoning_gym.generation import FRESH_INSTANCE_DATASETS, SHARED_SIZE

    env: Any = rlvr_envs.make(f"rg-{name}", isolation="inline")  # a ProceduralEnv: task_from_seed
    seeds = range(123, 123 + n)
    # A calibration window (untimed in the figures; it also meets first-use costs): as many of the
    # n tasks as fit in window_s of CPU. That count is used in every timed window, on both sides.
    tasks = []
    start = time.process_time()
    for seed in seeds:
        tasks.append(env.task_from_seed(seed))
        if time.process_time() - start >= window_s:
            break
    k = len(tasks)
    gen = _windows(lambda: [env.task_from_seed(s) for s in seeds[:k]], repeats)
    completions = [env.gold_completion(t) or "" for t in tasks]  # every rg task has a gold
    verdicts = [env.verify(t, c) for t, c in zip(tasks, completions)]

    def verify_run(count: int) -> None:
        for i in range(count):
            env.verify(tasks[i % k], completions[i % k])

    n_verify = _count_for(verify_run, n, MIN_VERIFY_WINDOW_S)
    verify = _windows(lambda: verify_run(n_verify), repeats)

    # reasoning-gym's side makes the same entries: index rg_seed of a seed-0 instance, built
    # outside the timing as make() builds ours (datasets that draw their tasks when constructed
    # are constructed per task, inside it, as ours are); redraws are ours alone.
    rg_seeds = [t.metadata["rg_seed"] for t in tasks]
    scorer = reasoning_gym.create_dataset(name, seed=0, size=1)
    scorer.size = SHARED_SIZE
    fresh = FRESH_INSTANCE_DATASETS.get(name)
    if fresh is None:
        rg_gen = _windows(lambda: [scorer[s] for s in rg_seeds], repeats)
        entries = [scorer[s] for s in rg_seeds]
    else:
        rg_gen = _windows(
            lambda: [reasoning_gym.create_dataset(name, seed=s, size=fresh)[s % fresh] for s in rg_seeds], repeats
        )
        entries = [reasoning_gym.create_dataset(name, seed=s, size=fresh)[s % fresh] for s in rg_seeds]
    answers = [env.answer_text(t) for t in tasks]  # the same kind of answers, for the same cost
    golds = [e["answer"] if e["answer"] is not None else answers[j] for j, e in enumerate(entries)]

    def score_run(count: int) -> None:
        for i in range(count):
            scorer.score_answer(golds[i % k], entries[i % k])

    n_score = _count_for(score_run, n, MIN_VERIFY_WINDOW_S)
    rg_score = _windows(lambda: score_run(n_score), repeats)
    return {
        "dataset": name,
        "k": k,
        "gen": _rates(k, gen),
        "rg gen": _rates(k, rg_gen),
        "verify": _rates(n_verify, verify),
        "rg score": _rates(n_score, rg_score),
        "gold ok": f"{sum(v.passed for v in verdicts)}/{k}",
    }


GUARD_DATASETS = ("chain_sum", "basic_arithmetic", "gcd", "word_sorting", "spell_backward", "number_sorting")


def bench_guard(names: list[str], n: int, repeats: int) -> None:
    import rlvr_envs
    from rlvr_reasoning_gym import generation

    declared = generation.GLOBAL_RNG_DATASETS
    print(f"generation with the global-RNG guard only where needed vs on every task; n={n}, {repeats} repeats")
    header = f"{'dataset':<22}{'now gen/s min/med/max':>26}{'guard always':>22}{'ratio':>7}{'us/task saved':>15}"
    print(header)
    print("-" * len(header))
    for name in names:
        env: Any = rlvr_envs.make(f"rg-{name}", isolation="inline")  # a ProceduralEnv: task_from_seed
        seeds = range(123, 123 + n)
        env.task_from_seed(seeds[0])  # first use outside the timings
        now: list[float] = []
        always: list[float] = []
        for index in range(repeats):
            for guard_all in (False, True) if index % 2 == 0 else (True, False):
                generation.GLOBAL_RNG_DATASETS = frozenset({name}) | declared if guard_all else declared
                try:
                    start = time.process_time()
                    for seed in seeds:
                        env.task_from_seed(seed)
                    spent = time.process_time() - start
                finally:
                    generation.GLOBAL_RNG_DATASETS = declared
                (always if guard_all else now).append(spent)
        fast, slow = _rates(n, now), _rates(n, always)
        saved = (statistics.median(always) - statistics.median(now)) / n * 1e6
        print(f"{name:<22}{_triple(fast):>26}{_triple(slow):>22}{fast[1] / slow[1]:>7.2f}{saved:>15.0f}")


def _triple(rates: tuple[float, float, float]) -> str:
    return "/".join(f"{r:.0f}" if r >= 100 else f"{r:.1f}" for r in rates)


def main(argv: list[str] | None = None) -> None:
    from rlvr_reasoning_gym import envs as rg_envs
    from rlvr_reasoning_gym.catalog import DATASETS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200, help="tasks (and verifications) per timed window")
    parser.add_argument("--repeats", type=int, default=3, help="timed windows per figure (min/median/max)")
    parser.add_argument("--window-s", type=float, default=1.0, help="CPU seconds that cap a slow dataset's window")
    parser.add_argument("--datasets", default="", help="comma-separated names (default: all)")
    parser.add_argument("--shapes", action="store_true", help="time the shape guards on long near-misses instead")
    parser.add_argument("--guard", action="store_true", help="time generation with the global-RNG guard on every task")
    args = parser.parse_args(argv)
    if args.n < 1 or args.repeats < 1:
        parser.error("--n and --repeats must be at least 1")
    if args.shapes:
        bench_shapes(args.repeats)
        return
    names = [d for d in args.datasets.split(",") if d] or list(DATASETS)
    if args.guard:
        bench_guard([d for d in args.datasets.split(",") if d] or list(GUARD_DATASETS), args.n, args.repeats)
        return

    start = time.perf_counter()
    import reasoning_gym  # noqa: F401  (import time reported separately, not in any rate)

    print(
        f"reasoning_gym import: {time.perf_counter() - start:.2f} s; {len(names)} datasets, "
        f"windows of n={args.n} (fewer tasks where generating n takes over {args.window_s:g} s CPU), "
        f"{args.repeats} repeats; rates per CPU second, min/median/max; ratio = our median / rg's median"
    )
    rows = []
    for name in names:
        try:
            # Some generated programs (codeio's) print; keep the table readable.
            with contextlib.redirect_stdout(io.StringIO()):
                rows.append(bench_dataset(name, args.n, args.repeats, args.window_s))
        except Exception as exc:  # a benchmark row, not a crash, for a dataset that fails
            rows.append({"dataset": name, "error": f"{type(exc).__name__}: {exc}"[:80]})
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    good = [r for r in rows if "error" not in r]
    good.sort(key=lambda r: min(r["gen"][1], r["verify"][1]))
    header = (
        f"{'dataset':<26}{'tasks':>6}{'gen/s min/med/max':>22}{'rg gen/s':>22}{'ratio':>7}"
        f"{'verify/s min/med/max':>24}{'rg score/s':>27}{'ratio':>7}{'gold ok':>9}"
    )
    print(header)
    print("-" * len(header))
    for r in good:
        print(
            f"{r['dataset']:<26}{r['k']:>6}{_triple(r['gen']):>22}{_triple(r['rg gen']):>22}"
            f"{r['gen'][1] / r['rg gen'][1]:>7.2f}{_triple(r['verify']):>24}{_triple(r['rg score']):>27}"
            f"{r['verify'][1] / r['rg score'][1]:>7.2f}{r['gold ok']:>9}"
        )
    for r in rows:
        if "error" in r:
            print(f"{r['dataset']:<26}ERROR {r['error']}")
    if good:
        med = {
            k: tuple(statistics.median(r[k][i] for r in good) for i in range(3))
            for k in ("gen", "rg gen", "verify", "rg score")
        }
        gen_ratio = statistics.median(r["gen"][1] / r["rg gen"][1] for r in good)
        verify_ratio = statistics.median(r["verify"][1] / r["rg score"][1] for r in good)
        print("-" * len(header))
        print(
            f"{'median of datasets':<26}{'':>6}{_triple(med['gen']):>22}{_triple(med['rg gen']):>22}{gen_ratio:>7.2f}"
            f"{_triple(med['verify']):>24}{_triple(med['rg score']):>27}{verify_ratio:>7.2f}"
        )
        print("(ratios in the median row: the median of the per-dataset ratios)")
    rejected: dict[str, list[str]] = {}
    for (name, reason), count in rg_envs.REJECTED.items():
        rejected.setdefault(name, []).append(f"{reason}: {count}")
    if rejected:
        print("redrawn tasks: " + "; ".join(f"{k} ({', '.join(v)})" for k, v in sorted(rejected.items())))


if __name__ == "__main__":
    main()
