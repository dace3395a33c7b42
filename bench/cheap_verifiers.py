"""Which verifiers may run inline: each family's worst call on hostile input, and what inline saves.

    .venv/bin/python bench/cheap_verifiers.py [--repeats 3] [--only REGEX] [--sections 12] [--quick]

A verifier that declares itself ``bounded_cheap`` runs in the caller's process under
``isolation="auto"`` for completions up to its ``inline_cap(task)``, with no worker to kill it.
That is safe only if no completion can make a call take more than a small fraction of its
budget. This bench is the evidence the declarations rest on (each family's verifier docstring
points here):

1. worst call per env (every reasoning-gym dataset, IFEval, IFBench, math-arith) on hostile
   completions, at the verifier's inline cap and at the full size cap: filler kinds that stress
   extraction and the checkers (``filler_kinds``, which ``bench/pool_overhead.py`` section 5 also
   uses) and hostile final answers (gold repeated, deep nesting, long numbers, expansions sympy
   chokes on) padded to the size (at the full cap, the fillers only). Calls run through a
   one-worker pool under the env's budget, so an unbounded one shows as a timeout instead of
   hanging the bench; the declared envs' calls are then also timed in this process in CPU time,
   as ``isolation="auto"`` runs them. A declared env whose worst call at its cap takes more than
   ``DECLARED_FRACTION`` of its budget in CPU time (or timed out) is flagged ``VIOLATED``.
2. throughput of ``verify_batch`` with ``isolation="auto"`` (inline for a declared verifier) against
   ``"pool"`` (two workers, preloaded) at batch 1, 16 and 256 on ordinary completions:
   min/median/max over repeats, and the ratio in the same repeat.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    # Keep this folder off the import path (bench/math_verify.py is named like a package); not when
    # imported (bench/pool_overhead.py takes the hostile kinds from here and needs its folder).
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import rlvr_envs
from rlvr_envs.runtime.dispatch import warm_copy
from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.types import Task
from rlvr_envs.verifier import DEFAULT_MAX_COMPLETION_CHARS, run_verifier

DATA = Path(os.environ.get("RLVR_SHARED_DATA", "/work/shared/data"))
FULL_CAP = DEFAULT_MAX_COMPLETION_CHARS
DECLARED_FRACTION = 0.1
"""A declared verifier's worst call at its inline cap must stay under this share of its budget."""
ANSWER_CHARS = 9_000
"""Hostile final answers stay under the extractors' 10,000-character answer limit, so they are read."""


def mmm(values: Sequence[float], fmt: str = "{:.1f}") -> str:
    v = sorted(values)
    return "/".join(fmt.format(x) for x in (v[0], statistics.median(v), v[-1]))


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    print(f"\n## {title}\n")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)), flush=True)


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def filler_kinds(size: int) -> dict[str, str]:
    """Completions with no final answer that stress extraction and the text checkers."""
    return {
        "words": _repeat("word ", size),
        "one line, no spaces": "a" * size,
        "cjk": _repeat("数学题答案", size),
        "nested braces": _repeat("\\boxed{", size),
        "markdown": _repeat("# title\n* item **bold** `code`\n", size),
        "json-ish": _repeat('{"a": [', size),
        "newlines": "\n" * size,
        "sentences": _repeat("Word. ", size),
        "answer markers": _repeat("The answer is: <answer>", size),
    }


def hostile_answers(gold: str | None) -> dict[str, str]:
    """Final answers, each under the extractors' length limit, built to make a judge work."""
    n = ANSWER_CHARS
    out = {
        "9 x 9000": "9" * n,
        "nested lists": "[" * (n // 2) + "]" * (n // 2),
        "nested objects": '{"a":' * (n // 6) + "1" + "}" * (n // 6),
        "nested parens": "(" * (n // 2 - 1) + "1" + ")" * (n // 2 - 1),
        "list of 9s": "[" + ", ".join(["9"] * (n // 3)) + "]",
        "words": _repeat("word ", n).strip(),
        "expansion": "(x+y+z)**999",
        "expansion product": "*".join(f"({v}+1)**999" for v in "xyzwuv"),
        "trig of expansion": "sin((x+y+z)**30)",
        "tower of exps": "exp(" * 60 + "x" + ")" * 60,
        "latex expansion": "(x+y+z)^{25}",
        "latex trig of expansion": "\\sin((x+y+z)^{10})",
        "arithmetic": "*".join(["99"] * 66),
        "moves": _repeat("U R F D L B ", n).strip(),
        "LRUD": _repeat("LRUD", n),
        "hanoi": "\n".join(["Move disk 1 from Peg 1 to Peg 3"] * (n // 32)),
        "grid": "\n".join([" ".join(["1"] * 45)] * 100),
        "bit grid": "\n".join([" ".join(["0", "1"] * 22)] * 100),
    }
    if gold:
        copies = max(1, n // (len(gold) + 2))
        for name, sep in (("gold repeated", " "), ("gold lines", "\n"), ("gold commas", ", "), ("gold glued", "")):
            out[name] = sep.join([gold] * copies)[:n]
    return out


def hostile_completions(env: Any, task: Task, size: int) -> dict[str, str]:
    """Every hostile completion of at most ``size`` characters for ``task``."""
    out = filler_kinds(size)
    gold = env.answer_text(task)
    for name, answer in hostile_answers(gold if isinstance(gold, str) else None).items():
        rendered = env.prompt_format.render_answer(answer)
        if len(rendered) <= size:
            out[f"answer: {name}"] = _repeat("word ", size - len(rendered)) + rendered
    return out


def first_tasks(env: Any, n: int) -> list[Task]:
    """The tasks ``reset(seed=0..n-1)`` draws."""
    out: list[Task] = []
    for i in range(n):
        env.reset(seed=i)
        out.append(env.current_task)
    return out


def family_specs() -> list[tuple[str, dict[str, Any]]]:
    specs: list[tuple[str, dict[str, Any]]] = [
        ("ifeval-v1", {"data": str(DATA / "ifeval_input_data.jsonl")}),
        ("ifbench-v1", {"data": str(DATA / "ifbench_test.jsonl")}),
        ("ifeval-synth-v1", {}),
        ("math-arith-v0", {"level": 3}),
        ("math-arith-v0", {"level": 8}),
    ]
    try:
        from rlvr_reasoning_gym.catalog import DATASETS
    except ImportError:
        return specs
    specs += [(f"rg-{name}-v0", {}) for name in DATASETS]
    specs += [(f"rg-{name}-v0", {"partial_credit": True}) for name in DATASETS]
    return specs


def label(env_id: str, kwargs: dict[str, Any]) -> str:
    shown = {k: v for k, v in kwargs.items() if k != "data"}
    return env_id + "".join(f" {k}={v}" for k, v in shown.items())


def ifeval_tasks(env: Any) -> list[Task]:
    """Tasks covering every instruction id once, and the tasks with the most instructions."""
    picked: dict[str, Task] = {}
    for task in env.tasks:
        for instruction in task.answer.get("instruction_id_list", []):
            picked.setdefault(instruction, task)
    most = sorted(env.tasks, key=lambda t: -len(t.answer.get("instruction_id_list", [])))[:3]
    return list({t.id: t for t in [*picked.values(), *most]}.values())


def worst_call(
    env: Any, tasks: Sequence[Task], size: int, repeats: int, fillers_only: bool = False
) -> tuple[float, str, int]:
    """The slowest call (s), its input kind, and how many calls timed out, over ``repeats``."""
    worst, kind, timeouts = 0.0, "-", 0
    for _ in range(repeats):
        for task in tasks:
            kinds = filler_kinds(size) if fillers_only else hostile_completions(env, task, size)
            verdicts = env.pool.map(
                env.verifier,
                [task] * len(kinds),
                list(kinds.values()),
                timeout_s=env.time_budget_s,
                max_completion_chars=env.max_completion_chars,
            )
            for name, verdict in zip(kinds, verdicts):
                timeouts += verdict.reason.value == "timeout"
                if verdict.elapsed_s > worst:
                    worst, kind = verdict.elapsed_s, name
    return worst, kind, timeouts


def worst_cpu(env: Any, tasks: Sequence[Task], size: int, repeats: int) -> tuple[float, str]:
    """The most CPU time (s) one call takes in this process, as ``isolation="auto"`` runs it.

    Wall time on a shared machine counts waiting for a core; CPU time is what the call costs.
    Only for declared envs whose calls all finished in the pool (so none of these can hang).
    """
    verifier = warm_copy(env.verifier)
    worst, kind = 0.0, "-"
    for _ in range(repeats):
        for task in tasks:
            for name, text in hostile_completions(env, task, size).items():
                start = time.thread_time()
                run_verifier(verifier, task, text, env.max_completion_chars)
                spent = time.thread_time() - start
                if spent > worst:
                    worst, kind = spent, name
    return worst, kind


def section_worst(repeats: int, only: re.Pattern[str] | None, n_tasks: int, full: bool) -> list[str]:
    rows: list[list[str]] = []
    violations: list[str] = []
    with VerificationPool(1) as pool:
        for env_id, kwargs in family_specs():
            name = label(env_id, kwargs)
            if only is not None and not only.search(name):
                continue
            try:
                env = rlvr_envs.make(env_id, pool=pool, **kwargs)
                tasks = (
                    ifeval_tasks(env) if env_id.startswith("if") and not env.procedural else first_tasks(env, n_tasks)
                )
            except Exception as exc:  # family or data missing: say so
                rows.append([name, *["-"] * 7, f"skipped: {type(exc).__name__}: {exc}"[:80]])
                continue
            verifier, budget = env.verifier, env.time_budget_s
            caps = sorted({verifier.inline_cap(t) for t in tasks})
            cap = max(caps)
            declared = bool(verifier.bounded_cheap) and cap > 0
            # Undeclared envs once: they only show why they are not declared (their timeouts are slow).
            at_cap = worst_call(env, tasks, cap if declared else 100_000, repeats if declared else 1)
            # The full cap with the filler kinds only: a hostile answer padded to 2,000,000 characters
            # costs what its padding costs, and the section's other column has measured the answers.
            at_full = worst_call(env, tasks, FULL_CAP, 1, fillers_only=True) if full else (float("nan"), "-", 0)
            cpu = worst_cpu(env, tasks, cap, repeats) if declared and not at_cap[2] else None
            note = f"{at_cap[2] + at_full[2]} timeouts" if at_cap[2] + at_full[2] else ""
            # Judged on CPU time: on a shared machine the wall time also counts waiting for a core.
            if declared and (cpu is None or cpu[0] > DECLARED_FRACTION * budget):
                note = f"VIOLATED (> {DECLARED_FRACTION:g} of the budget) {note}"
                violations.append(name)
            rows.append(
                [
                    name,
                    f"{cap:,}" if declared else "not declared (100,000)",
                    f"{budget:g}",
                    f"{at_cap[0] * 1000:.1f} ({at_cap[1]})",
                    f"{at_cap[0] / budget:.3f}",
                    "-" if cpu is None else f"{cpu[0] * 1000:.1f} ({cpu[1]})",
                    "-" if cpu is None else f"{cpu[0] / budget:.3f}",
                    f"{at_full[0] * 1000:.0f} ({at_full[1]})",
                    note,
                ]
            )
            print(".", end="", flush=True, file=sys.stderr)
    table(
        f"1. worst call on hostile input (ms, over {repeats} repeats at the cap; one at the full "
        f"{FULL_CAP:,}-char cap), through a one-worker pool under each env's budget",
        [
            "env",
            "inline cap (chars)",
            "budget (s)",
            "worst wall at cap (ms, input)",
            "wall/budget",
            "worst CPU inline at cap",
            "CPU/budget",
            "worst wall at full cap",
            "note",
        ],
        rows,
    )
    return violations


def ordinary(env_id: str, env: Any, n: int) -> tuple[list[Task], list[str]]:
    """``n`` tasks and completions as a policy writes them: half right, half wrong."""
    if env_id.startswith("ifeval"):
        responses = {}
        for line in (DATA / "ifeval_gpt4_responses_labeled.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            responses[row["prompt"]] = row["response"]
        pairs = [(t, responses[t.prompt]) for t in env.tasks if t.prompt in responses][:n]
        pairs = (pairs * (n // len(pairs) + 1))[:n]  # the labelled responses, reused to fill n
        return [p[0] for p in pairs], [p[1] for p in pairs]
    tasks = first_tasks(env, n)
    completions = [
        env.gold_completion(t) if i % 2 == 0 else env.prompt_format.render_answer("I think it is 12345")
        for i, t in enumerate(tasks)
    ]
    return tasks, [c or "" for c in completions]


def section_throughput(repeats: int, only: re.Pattern[str] | None, sizes: Sequence[int], total: int) -> None:
    specs: list[tuple[str, dict[str, Any]]] = [
        ("ifeval-v1", {"data": str(DATA / "ifeval_input_data.jsonl")}),
        ("rg-chain_sum-v0", {}),
        ("rg-word_sorting-v0", {}),
        ("math-arith-v0", {"level": 3}),
    ]
    rows = []
    with VerificationPool(2) as pool:
        for env_id, kwargs in specs:
            name = label(env_id, kwargs)
            if only is not None and not only.search(name):
                continue
            try:
                auto = rlvr_envs.make(env_id, pool=pool, isolation="auto", **kwargs)
                pooled = rlvr_envs.make(env_id, pool=pool, isolation="pool", **kwargs)
                tasks, completions = ordinary(env_id, auto, total)
            except Exception as exc:
                rows.append([name, "-", "-", "-", "-", f"skipped: {type(exc).__name__}"])
                continue
            tasks, completions = tasks[:total], completions[:total]
            pool.preload(pooled.verifier)
            plan = auto.inline_plan(tasks, completions)
            ran = "pool" if plan is None else ("inline" if all(plan) else "mixed")
            auto.verify_batch(tasks[:2], completions[:2])  # warm the inline copy outside the timing
            for size in sizes:
                rates: dict[str, list[float]] = {"auto": [], "pool": []}
                ratios = []
                for _ in range(repeats):
                    got = {}
                    for mode, env in (("auto", auto), ("pool", pooled)):
                        got[mode] = _rate(env.verify_batch, tasks, completions, size)
                        rates[mode].append(got[mode])
                    ratios.append(got["auto"] / got["pool"])
                rows.append(
                    [
                        name,
                        str(size),
                        ran,
                        mmm(rates["auto"], "{:.0f}"),
                        mmm(rates["pool"], "{:.0f}"),
                        mmm(ratios, "{:.2f}x"),
                    ]
                )
    table(
        f"2. verify_batch throughput, ordinary completions, {total} calls per point (calls/s; min/median/max "
        f"over {repeats} repeats; pool: 2 workers, preloaded)",
        ["env", "batch", "auto ran", "auto", "pool", "auto / pool (same repeat)"],
        rows,
    )


def _rate(
    verify_batch: Callable[[list[Task], list[str]], object], tasks: list[Task], completions: list[str], size: int
) -> float:
    start = time.perf_counter()
    for i in range(0, len(tasks), size):
        verify_batch(tasks[i : i + size], completions[i : i + size])
    return len(tasks) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=None, help="regex on the env label (e.g. '^rg-', 'ifeval')")
    parser.add_argument("--sections", default="12")
    parser.add_argument("--tasks", type=int, default=2, help="tasks per procedural env in section 1")
    parser.add_argument("--no-full-cap", action="store_true", help="skip the full-cap column (faster)")
    parser.add_argument("--quick", action="store_true", help="one repeat, fewer calls")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    only = re.compile(args.only) if args.only else None
    print(f"# cheap verifiers: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, {repeats} repeats")
    violations: list[str] = []
    if "1" in args.sections:
        violations = section_worst(repeats, only, args.tasks, not args.no_full_cap)
    if "2" in args.sections:
        section_throughput(max(repeats, 3), only, (1, 16, 256), 64 if args.quick else 256)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    if violations:
        print(f"declarations violated: {', '.join(violations)}")
        raise SystemExit(1)


if __name__ == "__main__":
    main()
