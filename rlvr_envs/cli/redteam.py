"""``rlvr-envs redteam ENV``: attack an env with the generic exploit library and report what earned
reward (exit status 1 when any wrong answer did, or verification raised)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rlvr_envs.cli.core import _add_env_args, parse_env_args


def cmd_redteam(args: argparse.Namespace) -> int:
    from rlvr_envs.redteam import CLASSES, run_redteam, select

    if args.list_classes:
        for cls in CLASSES:
            print(f"{cls.name}\n    {cls.doc}\n")
        return 0
    if not args.env_id:
        print("rlvr-envs redteam: error: ENV is required (or --list-classes)", file=sys.stderr)
        return 2
    if args.n is not None and args.n < 1:
        print("rlvr-envs redteam: error: -n must be at least 1", file=sys.stderr)
        return 2
    try:
        select(args.classes)
        kwargs = parse_env_args(args.env_args)
    except ValueError as exc:
        print(f"rlvr-envs redteam: error: {exc}", file=sys.stderr)
        return 2
    if args.prompt_format:
        kwargs["prompt_format"] = args.prompt_format

    import rlvr_envs

    try:
        env = rlvr_envs.make(args.env_id, **kwargs)
    except Exception as exc:
        print(f"rlvr-envs redteam: cannot make {args.env_id}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2

    def multi_turn() -> Any:
        return rlvr_envs.make(args.env_id, **{**kwargs, "max_turns": args.max_turns})

    report = run_redteam(
        env,
        n=args.n,
        seed=args.seed,
        classes=args.classes,
        quick=args.quick,
        multi_turn=multi_turn,
        episode_tasks=args.episodes,
        batch_size=args.batch_size,
        progress=not args.quiet,
        max_examples=args.examples,
    )
    if args.json:
        Path(args.json).write_text(report.to_json() + "\n", encoding="utf-8")
    if args.markdown:
        Path(args.markdown).write_text(report.to_markdown(), encoding="utf-8")
    print(report.summary_text())
    written = [p for p in (args.json, args.markdown) if p]
    if written:
        print(f"report written to {', '.join(written)}", file=sys.stderr)
    return report.exit_code


def add_parsers(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "redteam",
        help="attack an env with generic exploits (hedges, word salad, early exits...); report rewarded wrong answers",
        description=(
            "Apply the exploit library to real tasks and their gold answers, verify every probe through the "
            "env's verify_batch, and report per class how many wrong answers earned reward. Exit status: 0 when "
            "none did, 1 when any did (or verification raised), 2 on a usage error."
        ),
    )
    p.add_argument("env_id", metavar="ENV", nargs="?", help="environment id, e.g. math-arith-v0")
    p.add_argument("-n", type=int, default=None, help="tasks to attack (default 10; 3 with --quick)")
    p.add_argument("--seed", type=int, default=0, help="seed of the task draw (default 0)")
    p.add_argument("--classes", help="comma-separated attack classes (default: all; see --list-classes)")
    p.add_argument("--quick", action="store_true", help="a small, fast set of variants (for CI)")
    _add_env_args(p)  # --arg KEY=VALUE, the same as every subcommand
    p.add_argument("--prompt-format", help="prompt format to attack through (plain, r1, answer_tag, ...)")
    p.add_argument("--json", metavar="PATH", help="write the full report as JSON")
    p.add_argument("--markdown", metavar="PATH", help="write the report as Markdown")
    p.add_argument(
        "--max-turns", type=int, default=3, help="turns of the feedback-mining episodes (default 3; needs >= 2)"
    )
    p.add_argument("--episodes", type=int, default=None, help="tasks to play mining episodes on (default 3; 1 quick)")
    p.add_argument("--examples", type=int, default=3, help="examples kept per class (default 3)")
    p.add_argument("--batch-size", type=int, default=64, help="probes per verify_batch call (default 64)")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    p.add_argument("--list-classes", action="store_true", help="print the attack classes and exit")
    p.set_defaults(func=cmd_redteam)
