"""``rlvr-envs code calibrate``: measure each task's reference solution and write the tasks with
their own time limits (``rlvr_code.limits``).

Added to the core CLI through the ``rlvr_envs.cli`` entry-point group (``add_parsers``).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any


def cmd_calibrate(args: Any) -> int:
    from rlvr_code.limits import LimitPolicy, calibrate, write_tasks

    options: dict[str, Any] = {"timeout_s": args.ceiling}
    if args.data:
        options["data"] = args.data
    if args.limit:
        options["limit"] = args.limit
    if args.language:
        options["language"] = args.language.split(",")
    import rlvr_envs

    env = rlvr_envs.make(args.env, **options)  # code-kattis too: a registered id (its packages by --data)
    policy = LimitPolicy(
        factor=args.factor,
        floor_s=args.floor,
        ceiling_s=args.ceiling,
        cpu_factor=args.cpu_factor,
        cpu_floor_s=args.cpu_floor,
    )
    result = calibrate(env, repeats=args.repeats, policy=policy, use_stated=not args.ignore_stated)
    write_tasks(result.tasks, args.out)
    counts = Counter(row["source"] for row in result.rows)
    limits = sorted(row["limit_s"] for row in result.rows if row["limit_s"] is not None)
    summary = {
        "out": str(args.out),
        "tasks": len(result.rows),
        **{source: counts.get(source, 0) for source in ("calibrated", "stated", "failed")},
        "limit_s_min": limits[0] if limits else None,
        "limit_s_median": limits[len(limits) // 2] if limits else None,
        "limit_s_max": limits[-1] if limits else None,
        "failed_ids": [f"{row['id']} ({row['reason']})" for row in result.failed][:20],
        "clamped_at_ceiling": sum(1 for row in result.rows if row.get("clamped")),
        "with_cpu_limit": sum(1 for row in result.rows if row.get("cpu_limit_s") is not None),
    }
    print(json.dumps(summary, indent=2))
    return 1 if result.failed and args.strict else 0


def add_parsers(subparsers: Any) -> None:
    code = subparsers.add_parser("code", help="code family tools (calibrate)")
    sub = code.add_subparsers(dest="code_command", metavar="CODE_COMMAND")
    code.set_defaults(func=lambda args: (code.print_help(), 2)[1])
    p = sub.add_parser(
        "calibrate",
        help="run each task's reference solution in the sandbox; write the tasks with per-task time limits (JSONL)",
    )
    p.add_argument(
        "env", help="a code env id, e.g. code-humaneval, code-mbpp, code-python, code-kattis (problem packages: --data)"
    )
    p.add_argument("--language", help="the tasks' language(s), comma-separated (contest sets), e.g. cpp,python")
    p.add_argument("--data", help="the tasks (path), as make(env, data=...) takes them")
    p.add_argument("--out", required=True, help="where to write the calibrated tasks (JSONL, native rows)")
    p.add_argument("--limit", type=int, help="only the first N tasks")
    p.add_argument("--repeats", type=int, default=3, help="runs of each reference; the median is used (default 3)")
    p.add_argument("--factor", type=float, default=10.0, help="limit = factor x reference median (default 10)")
    p.add_argument("--floor", type=float, default=0.25, help="lowest limit in seconds (default 0.25)")
    p.add_argument("--ceiling", type=float, default=10.0, help="highest limit in seconds (default 10)")
    p.add_argument(
        "--cpu-factor", type=float, default=3.0, help="CPU budget = cpu-factor x reference CPU per run (default 3)"
    )
    p.add_argument(
        "--cpu-floor", type=float, default=0.05, help="lowest CPU budget of one solution run in seconds (default 0.05)"
    )
    p.add_argument("--ignore-stated", action="store_true", help="measure even tasks that state their own limit")
    p.add_argument("--strict", action="store_true", help="exit 1 if any reference fails or is missing")
    p.set_defaults(func=cmd_calibrate)
