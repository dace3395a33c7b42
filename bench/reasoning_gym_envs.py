"""Benchmark: tasks generated and verifications per second for every rg- env, slowest first,
next to reasoning-gym's own generation and scoring of the same dataset in the same run.

    .venv/bin/python bench/reasoning_gym_envs.py [--n 8] [--datasets chain_sum,sudoku ...]
    .venv/bin/python bench/reasoning_gym_envs.py --shapes [--repeats 5]

``--shapes`` times every shape guard (``catalog.RULES[...].shape``) on the long near-misses of
``tests/reasoning_gym/test_rg_catalog.py`` (min/median/max over repeats, slowest first), next to
a linear scan of the same text (``str.count``) as the floor: a guard that backtracks shows up
as orders of magnitude above it. The test only checks that no guard hangs.

Our generation includes what reasoning-gym's does not: JSON-normalising the entry, the word
filter and checking the task's own gold answer (redrawing rejected tasks). Our verification
extracts the final answer from a completion and applies the dataset's rule (a comparison, or
a shape check then reasoning-gym's scorer); reasoning-gym's column scores the bare answer.
Both verify the gold answer of each task, in this process (no pool).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


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


def bench_dataset(name: str, n: int) -> dict[str, float | str]:
    import reasoning_gym

    import rlvr_envs

    env = rlvr_envs.make(f"rg-{name}", isolation="inline")
    start = time.perf_counter()
    tasks = env.sample(n, seed=123)
    ours_gen = time.perf_counter() - start
    completions = [env.gold_completion(t) or "" for t in tasks]  # every rg task has a gold
    start = time.perf_counter()
    verdicts = [env.verify(t, c) for t, c in zip(tasks, completions)]
    ours_verify = time.perf_counter() - start

    dataset = reasoning_gym.create_dataset(name, seed=123, size=n)  # built outside the timing, as make() is
    start = time.perf_counter()
    entries = [dataset[i] for i in range(n)]
    rg_gen = time.perf_counter() - start
    answers = [env.answer_text(t) for t in tasks]  # the same kind of answers, for the same cost
    start = time.perf_counter()
    for entry in entries:
        gold = entry["answer"] if entry["answer"] is not None else answers[0]
        dataset.score_answer(gold, entry)
    rg_score = time.perf_counter() - start
    return {
        "dataset": name,
        "gen/s": _rate(n, ours_gen),
        "rg gen/s": _rate(n, rg_gen),
        "verify/s": _rate(n, ours_verify),
        "rg score/s": _rate(n, rg_score),
        "gold ok": f"{sum(v.passed for v in verdicts)}/{n}",
    }


def main(argv: list[str] | None = None) -> None:
    from rlvr_reasoning_gym import envs as rg_envs
    from rlvr_reasoning_gym.catalog import DATASETS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=8, help="tasks per dataset")
    parser.add_argument("--datasets", default="", help="comma-separated names (default: all)")
    parser.add_argument("--shapes", action="store_true", help="time the shape guards on long near-misses instead")
    parser.add_argument("--repeats", type=int, default=5, help="repeats for --shapes")
    args = parser.parse_args(argv)
    if args.shapes:
        bench_shapes(args.repeats)
        return
    names = [d for d in args.datasets.split(",") if d] or list(DATASETS)

    start = time.perf_counter()
    import reasoning_gym  # noqa: F401  (import time reported separately, not in any rate)

    print(f"reasoning_gym import: {time.perf_counter() - start:.2f} s; {len(names)} datasets, n={args.n}")
    rows = []
    for name in names:
        try:
            rows.append(bench_dataset(name, args.n))
        except Exception as exc:  # a benchmark row, not a crash, for a dataset that fails
            rows.append({"dataset": name, "error": f"{type(exc).__name__}: {exc}"[:80]})
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    good = [r for r in rows if "error" not in r]
    good.sort(key=lambda r: min(float(r["gen/s"]), float(r["verify/s"])))
    header = f"{'dataset':<26}{'gen/s':>10}{'rg gen/s':>10}{'verify/s':>11}{'rg score/s':>12}{'gold ok':>9}"
    print(header)
    print("-" * len(header))
    for r in good:
        print(
            f"{r['dataset']:<26}{r['gen/s']:>10.1f}{r['rg gen/s']:>10.1f}{r['verify/s']:>11.1f}"
            f"{r['rg score/s']:>12.1f}{r['gold ok']:>9}"
        )
    for r in rows:
        if "error" in r:
            print(f"{r['dataset']:<26}ERROR {r['error']}")
    if good:
        med = {k: statistics.median(float(r[k]) for r in good) for k in ("gen/s", "rg gen/s", "verify/s", "rg score/s")}
        print("-" * len(header))
        print(
            f"{'median':<26}{med['gen/s']:>10.1f}{med['rg gen/s']:>10.1f}{med['verify/s']:>11.1f}"
            f"{med['rg score/s']:>12.1f}"
        )
    rejected: dict[str, list[str]] = {}
    for (name, reason), count in rg_envs.REJECTED.items():
        rejected.setdefault(name, []).append(f"{reason}: {count}")
    if rejected:
        print("redrawn tasks: " + "; ".join(f"{k} ({', '.join(v)})" for k, v in sorted(rejected.items())))


if __name__ == "__main__":
    main()
