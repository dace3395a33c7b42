"""IFEval checkers on hostile inputs: ``--sweep`` (every checker on each pathological 1 MB input of
``tests/ifeval/test_ifeval_hostile.py``) and ``--hostile`` (issue 21's runs of newlines against the
reference's own patterns). Run through ``bench/ifeval_checks.py --sweep`` / ``--hostile``.

Run by itself (``.venv/bin/python bench/ifeval_hostile.py --pastes [--ids ifeval-data-v6,ifeval-data] [--explain]``)
it is the paste sweep of issue 26: each labelled-good response (../shared/data) under 30 other
labelled prompts (14,780 pairs), per training id, against the background an env over the labelled
rows builds: pairs paid, the most prompts one response is paid on, labelled-good answers refused
under their own prompt (with their keys), and IFBench answers under IFEval prompts with an
IFEval-only background (2,310 pairs), and the CPU rate of ``verify`` over the pastes (the rules'
cost, ids side by side in one run). ``--explain``: the paid pairs by class (why the rules pass
them) and the responses paid most. Each id's flags are read from its registered kwargs."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from _ifeval_common import ROOT, clear_caches, cpu_runs, load_rows  # bench/ is the script's folder

SLOW_S = 0.05  # issue 21's goal: every check under 50 ms on 1 MB


def sweep(cold: bool, only: str) -> None:
    """Every (checker, 1 MB input) pair of the hostile test, CPU seconds of one check each (the
    slow ones twice, the faster time kept). Cold: memos cleared before each check, so each pays
    for its own sentence split and tokens; warm: as the test runs them, one after another."""
    sys.path.insert(0, str(ROOT))
    from rlvr_ifeval.base import REGISTRY
    from rlvr_ifeval.language import warm_up
    from tests.ifeval.test_ifeval_hostile import BIG, _checker, _fill, _units_for

    warm_up()

    def cpu(checker: Any, response: str) -> float:
        if cold:
            clear_caches()
        start = time.process_time()
        try:
            checker.check(response)
        except Exception:  # the scoring layer turns these into a failed check; the time counts
            pass
        return time.process_time() - start

    times: list[tuple[float, str, str]] = []
    for instruction_id in REGISTRY:
        if only not in instruction_id:
            continue
        checker = _checker(instruction_id)
        for name, unit in _units_for(checker).items():
            response = _fill(unit, BIG)
            spent = cpu(checker, response)
            if spent > SLOW_S:
                spent = min(spent, cpu(checker, response))
            times.append((spent, instruction_id, name))
    times.sort(reverse=True)
    slow = [t for t in times if t[0] > SLOW_S]
    mode = "cold" if cold else "warm"
    print(
        f"{len(times)} (checker, 1 MB input) pairs, {mode}: {len(slow)} over 50 ms, "
        f"{sum(t[0] > 0.1 for t in times)} over 100 ms, slowest {times[0][0] * 1000:.0f} ms"
    )
    for spent, instruction_id, name in slow:
        print(f"{spent * 1000:8.1f} ms  {instruction_id:<44} {name}")


def hostile(repeats: int) -> None:
    """Issue 21: runs of newlines made the postscript and bullet checks quadratic (the reference's
    patterns, which this package used to search as written). CPU seconds, min/median/max."""
    import re
    import statistics

    from rlvr_envs import Task
    from rlvr_ifeval.scoring import build_checker
    from rlvr_ifeval.verifier import IFEvalVerifier

    reference: dict[str, Callable[[str], object]] = {
        "detectable_content:postscript": lambda r: re.search(r"\s*p\.\s?s\..*$", r.lower(), flags=re.MULTILINE),
        "detectable_format:number_bullet_lists": lambda r: (
            re.findall(r"^\s*\*[^\*].*$", r, flags=re.MULTILINE) + re.findall(r"^\s*-.*$", r, flags=re.MULTILINE)
        ),
        "detectable_content:number_placeholders": lambda r: re.findall(r"\[.*?\]", r),
        "length_constraints:number_sentences": lambda r: re.findall(r"[.?!]+(?=([)\";}\]*:@'({\[])|\s+(\S+))", r),
    }
    kwargs: dict[str, dict[str, Any]] = {
        "detectable_content:postscript": {"postscript_marker": "P.S."},
        "detectable_format:number_bullet_lists": {"num_bullets": 3},
        "detectable_content:number_placeholders": {"num_placeholders": 2},
        "length_constraints:number_sentences": {"num_sentences": 3, "relation": "at least"},
    }
    # The largest size the reference is run at (it grows as n**2; the sentence pattern faster).
    reference_up_to = {
        "detectable_content:postscript": 100_000,
        "detectable_format:number_bullet_lists": 100_000,
        "detectable_content:number_placeholders": 30_000,
        "length_constraints:number_sentences": 10_000,
    }
    inputs = {
        "detectable_content:postscript": "\n",
        "detectable_format:number_bullet_lists": "\n",
        "detectable_content:number_placeholders": "[",
        "length_constraints:number_sentences": ".",
    }

    def cell(times: list[float]) -> str:
        return f"{min(times):.4f} / {statistics.median(times):.4f} / {max(times):.4f}"

    print(f"{'instruction':<40} {'input':<14} {'reference pattern (s)':>30} {'rlvr_ifeval (s)':>30}")
    for instruction, unit in inputs.items():
        checker = build_checker(instruction, kwargs[instruction])
        for size in (3_000, 10_000, 30_000, 100_000, 1_000_000):
            response = unit * size
            ours = cpu_runs(partial(checker.check, response), repeats)
            if size <= reference_up_to[instruction]:
                theirs = cell(cpu_runs(partial(reference[instruction], response), 1 if size >= 30_000 else repeats))
            else:
                theirs = "not run (quadratic)"
            print(f"{instruction:<40} {f'{size:,} x {unit!r}':<14} {theirs:>30} {cell(ours):>30}")

    # The batch: 100 labelled responses, 5 of them replaced by 100k newlines.
    rows = load_rows()[:100]
    tasks = [
        Task(id=str(i), prompt=r["prompt"], answer={k: r[k] for k in ("instruction_id_list", "kwargs")})
        for i, r in enumerate(rows)
    ]
    hostile_task = Task(
        id="h",
        prompt="Write.",
        answer={
            "instruction_id_list": ["detectable_content:postscript", "detectable_format:number_bullet_lists"],
            "kwargs": [{"postscript_marker": "P.S."}, {"num_bullets": 3}],
        },
    )
    responses = [r["response"] for r in rows]
    batch_tasks = list(tasks)
    for i in range(0, 100, 20):
        batch_tasks[i], responses[i] = hostile_task, "\n" * 100_000
    verifier = IFEvalVerifier(guard=False)
    from rlvr_ifeval.language import warm_up

    warm_up()  # loaded when a pool worker unpickles the verifier, outside any budget
    [verifier.verify(t, r["response"]) for t, r in zip(tasks, rows)]  # build each task's checkers once
    clean = cpu_runs(lambda: [verifier.verify(t, r["response"]) for t, r in zip(tasks, rows)], repeats)
    mixed = cpu_runs(lambda: [verifier.verify(t, c) for t, c in zip(batch_tasks, responses)], repeats)
    print(f"\nbatch of 100 labelled responses: {cell(clean)} s; with 5 of them 100k newlines: {cell(mixed)} s")


def pastes(env_ids: list[str], explain: bool = False) -> None:
    """The paste sweep (the same pairs as ``tests/ifeval/test_ifeval_contrast.py``)."""
    import random

    import rlvr_envs
    from rlvr_envs import Task
    from rlvr_ifeval import contrast
    from rlvr_ifeval.scoring import build_checkers
    from rlvr_ifeval.verifier import IFEvalVerifier

    def flags(env_id: str) -> dict[str, Any]:
        kwargs = dict(rlvr_envs.registry.resolve(env_id).kwargs)
        kwargs.pop("env_name", None)
        return kwargs

    def task(i: int, row: dict) -> Task:
        return Task(id=str(i), prompt=row["prompt"], answer={k: row[k] for k in ("instruction_id_list", "kwargs")})

    def background(rows: list[dict]) -> Any:
        return contrast.Background.build(
            (r["prompt"], build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows
        )

    rows = load_rows()
    ifeval = [r for r in rows if isinstance(r["key"], int)]
    ifbench = [r for r in rows if not isinstance(r["key"], int) and r["reference_strict_all"]]
    tasks = [task(i, r) for i, r in enumerate(rows)]
    ifeval_tasks = [task(i, r) for i, r in enumerate(ifeval)]
    labelled, ifeval_only = background(rows), background(ifeval)
    guard_only = IFEvalVerifier(guard_rules="v1")
    good = [i for i, r in enumerate(rows) if r["reference_strict_all"]]
    base = {rows[i]["key"] for i in good if guard_only.verify(tasks[i], rows[i]["response"]).reward != 1}
    for env_id in env_ids:
        resolved = rlvr_envs.registry.resolve(env_id).id
        verifier = IFEvalVerifier(relevance_background=labelled, **flags(env_id))
        lost = sorted(
            (str(rows[i]["key"]) for i in good if verifier.verify(tasks[i], rows[i]["response"]).reward != 1),
        )
        rng = random.Random(0)
        pairs = paid = worst = 0
        paid_pairs: list[tuple[int, int]] = []
        spent = 0.0
        for i in good:
            mine = 0
            for j in rng.sample(range(len(rows)), 30):
                if rows[j]["prompt"] != rows[i]["prompt"]:
                    pairs += 1
                    start = time.process_time()
                    verdict = verifier.verify(tasks[j], rows[i]["response"])
                    spent += time.process_time() - start
                    if verdict.reward > 0:
                        mine += 1
                        paid_pairs.append((i, j))
            paid, worst = paid + mine, max(worst, mine)
        outside = IFEvalVerifier(relevance_background=ifeval_only, **flags(env_id))
        rng = random.Random(1)
        other = sum(
            outside.verify(ifeval_tasks[j], r["response"]).reward > 0
            for r in ifbench
            for j in rng.sample(range(len(ifeval)), 30)
        )
        extra = [k for k in lost if k not in {str(b) for b in base}]
        print(
            f"{resolved}: pastes paid {paid}/{pairs} ({paid / pairs:.2%}), one response on at most {worst} of 30; "
            f"labelled-good refused beyond the guard's {len(extra)}/{len(good)} {extra}; "
            f"IFBench under IFEval paid {other}/{len(ifbench) * 30}; "
            f"verify over the pairs {pairs / spent:,.0f} checks/s (CPU)"
        )
        if explain:
            _explain(labelled, rows, paid_pairs)
    if explain:
        _rule_cost(labelled, rows, [(i, j) for i in good for j in random.Random(2).sample(range(len(rows)), 8)])


def _rule_cost(background: Any, rows: list[dict], pairs: list[tuple[int, int]]) -> None:
    """CPU per call of the pasted-answer rules (``pasted.shares_little_but_has_a_home``) at each
    level, on the same pairs, after what ``contrast`` computes anyway (the response's units, the
    postings walk): the rules' own cost, levels side by side, best of three passes."""
    from rlvr_ifeval import contrast, pasted
    from rlvr_ifeval.relevance import MAX_RELEVANCE_CHARS, task_units, units
    from rlvr_ifeval.scoring import build_checkers

    prepared = []
    for i, j in pairs:
        row = rows[j]
        task = task_units(row["prompt"], tuple(build_checkers(row["instruction_id_list"], row["kwargs"]))).units
        found = frozenset(units(rows[i]["response"][:MAX_RELEVANCE_CHARS]))
        prepared.append((row["prompt"], task, found, contrast.matched_weights(background, found)))
    cells = []
    for level in (1, 2, 3):
        variant = background.variant(outrank=True, paste=level)
        best = math.inf
        for _ in range(3):
            start = time.process_time()
            for prompt, task, found, matched in prepared:
                pasted.shares_little_but_has_a_home(variant, prompt, task, found, matched)
            best = min(best, time.process_time() - start)
        cells.append(f"level {level} {best / len(prepared) * 1e6:.1f} us")
    print(f"pasted-answer rules a call ({len(prepared)} pairs, CPU, best of 3): " + ", ".join(cells))


def _explain(background: Any, rows: list[dict], paid_pairs: list[tuple[int, int]]) -> None:
    """Why the paid pairs passed, by class (the prompt's content units under the pasted-answer
    rules of ``rlvr_ifeval.pasted``; a response's size in distinct units), and the responses paid
    most."""
    from collections import Counter

    from rlvr_ifeval import pasted
    from rlvr_ifeval.relevance import MAX_RELEVANCE_CHARS, units

    classes: Counter[str] = Counter()
    for i, j in paid_pairs:
        prompt = rows[j]["prompt"]
        mine = background.prompt_content(prompt, background.index.get(prompt))
        found = units(rows[i]["response"][:MAX_RELEVANCE_CHARS])
        if mine is None:
            classes["prompt in or naming another language, or none found: not judged"] += 1
        elif len(mine.units) < pasted.MIN_CHANCE_PROMPT_UNITS:
            classes[f"prompt of under {pasted.MIN_CHANCE_PROMPT_UNITS} content units: not judged"] += 1
        elif mine.every.isdisjoint(found):
            size = "under 20" if len(found) < 20 else "20 or more"
            classes[f"shares no content unit; response of {size} distinct units"] += 1
        else:
            classes["shares some of its prompt's content units"] += 1
    for name, count in classes.most_common():
        print(f"  {count:5d}  {name}")
    most = Counter(str(rows[i]["key"]) for i, _ in paid_pairs).most_common(8)
    print("  responses paid most (key: prompts of 30): " + ", ".join(f"{k}: {n}" for k, n in most))


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pastes", action="store_true", help="the paste sweep of issue 26 (labelled data)")
    parser.add_argument("--ids", default="ifeval-data-v6,ifeval-data", help="comma-separated training ids")
    parser.add_argument("--explain", action="store_true", help="with --pastes: the paid pairs by class")
    args = parser.parse_args()
    if not args.pastes:
        parser.error("run --sweep / --hostile through bench/ifeval_checks.py; here: --pastes")
    sys.path.insert(0, str(ROOT))
    pastes([i for i in args.ids.split(",") if i], explain=args.explain)


if __name__ == "__main__":
    main()
