"""``rlvr-envs rescore``: verify a profile store's completions again under the current verifier."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rlvr_envs.cli.difficulty import _add_db_arg, _add_env_args, _make_env


def cmd_rescore(args: argparse.Namespace) -> int:
    from rlvr_envs.difficulty.rescore import rescore_store
    from rlvr_envs.difficulty.store import PassRateStore

    if not Path(args.db).exists():
        raise FileNotFoundError(f"{args.db} does not exist: run `rlvr-envs profile` first")
    env = _make_env(args)
    with PassRateStore(args.db) as db:
        summary = rescore_store(
            env,
            db,
            source=args.source,
            target=args.target,
            samplers=args.sampler_key or None,
            batch_tasks=args.batch_tasks,
            examples=args.examples,
            progress=not args.no_progress,
        )
    print(summary.render())
    print(f"new pass rates stored in {args.db} under {summary.target} (the old ones stay under {summary.source})")
    if args.json:
        payload = {
            "source": summary.source,
            "target": summary.target,
            "samplers": summary.samplers,
            "tasks": summary.tasks_total,
            "tasks_rescored_now": summary.tasks_rescored,
            "samples_compared": summary.samples_compared,
            "passed_before": summary.passed_before,
            "passed_after": summary.passed_after,
            "transitions": [
                {"old": old, "new": new, "samples": n} for (old, new), n in sorted(summary.transitions.items())
            ],
            "examples": [ex.__dict__ for kept in summary.examples.values() for ex in kept],
        }
        Path(args.json).write_text(json.dumps(payload, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


def add_parsers(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "rescore",
        help="verify the completions a profile stored again with the current verifier; new pass rates beside the old",
        description="Re-verify stored completions under ENV as it is now (after a verifier fix or a version "
        "bump), without sampling again. The results go under ENV's id beside the old version's; the report "
        "counts verdicts per old -> new reason with examples. Resumable: a rerun continues where a killed one "
        "stopped.",
    )
    _add_env_args(p)
    _add_db_arg(p)
    p.add_argument("--from", dest="source", help="stored env id to rescore (default: the one other stored version)")
    p.add_argument("--as", dest="target", help="key for the new results (default: ENV's id)")
    p.add_argument(
        "--sampler-key", action="append", help="stored sampler key or prefix (repeatable; default: every one)"
    )
    p.add_argument("--batch-tasks", type=int, default=16, help="tasks per verify_batch call")
    p.add_argument("--examples", type=int, default=3, help="changed samples shown per transition (default 3)")
    p.add_argument("--json", help="also write the report as JSON here")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_rescore)
