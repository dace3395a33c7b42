"""The core's tour of the hub: the first half of ``make demo``.

The tour lists the environments, resets one, and verifies a correct and a wrong
completion. ``make demo`` then runs the training demo (``python -m rlvr_trainers.demo``:
tiny model, SFT warm start, profiling, DAPO, held-out evaluation) as a second command, so the
core never imports the trainers.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

PREFERRED_ENVS = ("math-arith", "ifeval-synth", "rg-chain_sum")


def tour() -> int:
    import rlvr_envs
    from rlvr_envs.cli.core import format_table

    specs = rlvr_envs.registry.latest()
    print(f"== {len(specs)} environments registered ==")
    by_family: dict[str, list[list[str]]] = {}
    for s in specs:
        by_family.setdefault(s.family, []).append([s.id, s.family, s.size_label, s.data_source or "-"])
    shown: list[list[str]] = []
    for rows in by_family.values():  # a family with many ids (reasoning-gym) is summarised
        shown += rows if len(rows) <= 6 else [*rows[:3], [f"... and {len(rows) - 3} more", rows[0][1], "", ""]]
    print(format_table(shown, ["id", "family", "tasks", "data source"]))
    for _plugin, error in sorted(rlvr_envs.registry.plugin_errors.items()):
        print(f"warning: {error}")

    env_id = next((i for i in PREFERRED_ENVS if any(s.name == i for s in specs)), None)
    if env_id is None:
        print("no procedural environment installed; install a family (see README) to continue the tour")
        return 1
    env = rlvr_envs.make(env_id)
    prompt, info = env.reset(seed=7)
    task = env.current_task
    print(f"\n== {env.env_id}: reset(seed=7) ==")
    print(f"task {info['task_id']}, difficulty {info['difficulty']}")
    print(f"prompt:\n{prompt}\n")
    if task is None:
        return 1
    gold = env.gold_completion(task)
    completions = {"wrong answer": env.prompt_format.render_answer("-123456789"), "no answer": "I don't know"}
    if gold is not None:
        completions = {"correct answer": gold, **completions}
    verdicts = env.verify_batch([task] * len(completions), list(completions.values()))
    print(f"== verify_batch through the process pool ({env.pool.workers} workers) ==")
    table = [
        [
            name,
            repr(text if len(text) < 60 else text[:57] + "..."),
            v.reason.value,
            f"{v.reward:g}",
            f"{v.elapsed_s * 1e3:.1f} ms",
        ]
        for (name, text), v in zip(completions.items(), verdicts)
    ]
    print(format_table(table, ["completion", "text", "reason", "reward", "time"]))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_envs.demo", description=__doc__)
    parser.add_argument("--tour-only", action="store_true", help="(the default now; kept for old scripts)")
    parser.parse_args(argv)
    return tour()


if __name__ == "__main__":
    sys.exit(main())
