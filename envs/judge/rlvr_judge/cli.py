"""``rlvr-envs judge calibrate``: contributed to the core CLI through the ``rlvr_envs.cli`` entry points."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def add_parsers(subparsers: Any) -> None:
    judge = subparsers.add_parser("judge", help="judge-model tools: calibrate a judge env against trusted labels")
    inner = judge.add_subparsers(dest="judge_command", metavar="JUDGE_COMMAND")
    judge.set_defaults(func=lambda args: (judge.print_help(), 2)[1])

    cal = inner.add_parser(
        "calibrate",
        help="agreement, kappa, FPR/FNR with CIs, per criterion, length bias, best threshold; Markdown + PNG",
    )
    cal.add_argument("env_id", help="judge-ref, rubric or judge (any version)")
    cal.add_argument(
        "--labels", required=True,
        help="a .jsonl of {prompt, reference|rubric, response, label} rows, or a built-in set: ifeval, ifbench, math-arith",  # noqa: E501
    )  # fmt: skip
    cal.add_argument("--data-dir", help="folder of the labelled response files the ifeval/ifbench sets are built from")
    cal.add_argument("--limit", type=int, help="use the first N labelled rows")
    cal.add_argument("--base-url", help="the judge's OpenAI-compatible endpoint (else $RLVR_JUDGE_BASE_URL)")
    cal.add_argument("--model", help="the judge model name (else $RLVR_JUDGE_MODEL)")
    cal.add_argument("--api-key-env", help="environment variable holding the judge's API key")
    cal.add_argument(
        "--scripted-judge", metavar="MODE",
        help="grade with the scripted STAND-IN judge (string rules, not a model: rules, yes, no, noisy, gullible); "
        "for trying the command and testing, never for trusting a judge",
    )  # fmt: skip
    cal.add_argument("--probes", action="store_true", help="also run the injection probe set and count flipped grades")
    cal.add_argument("--cache", help="judge cache path (default ~/.cache/rlvr-envs/judge.sqlite; 'none' for no cache)")
    cal.add_argument("--out", default="runs/judge-calibration", help="folder for calibration.md and calibration.png")
    cal.add_argument("--json", action="store_true", help="print the report as JSON instead of the table")
    cal.add_argument("--arg", action="append", metavar="KEY=VALUE", dest="env_args", help="more make() arguments")
    cal.set_defaults(func=cmd_calibrate)


def _load_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    from rlvr_envs.data import read_file
    from rlvr_judge.calibration_sets import builtin_labels

    path = Path(args.labels)
    if path.suffix in (".jsonl", ".json", ".csv", ".parquet") or path.exists():
        rows = read_file(path)
        return rows[: args.limit] if args.limit else rows
    return builtin_labels(args.labels, args.data_dir, args.limit)


def cmd_calibrate(args: argparse.Namespace) -> int:
    import rlvr_envs
    from rlvr_envs.cli.core import parse_env_args
    from rlvr_envs.errors import DataError
    from rlvr_judge.calibration import calibrate, to_markdown, write_report
    from rlvr_judge.probes import probe_rows

    rows = _load_rows(args)
    for i, row in enumerate(rows):
        if "response" not in row or "label" not in row:
            raise DataError(f"labels row {i + 1}: needs 'response' and 'label' (columns: {sorted(row)[:12]})")
    options = parse_env_args(args.env_args)
    server = None
    if args.scripted_judge:
        from rlvr_judge.testing import ScriptedJudgeServer

        server = ScriptedJudgeServer(args.scripted_judge, flip=0.15, record=False).start()
        options.update(base_url=server.base_url, model=f"scripted-stand-in-{args.scripted_judge}")
        label = f"the scripted STAND-IN judge (mode {args.scripted_judge!r}; string rules, not a model)"
    else:
        if args.base_url:
            options["base_url"] = args.base_url
        if args.model:
            options["model"] = args.model
        if args.api_key_env:
            options["api_key_env"] = args.api_key_env
        label = (
            f"`{options.get('model') or '$RLVR_JUDGE_MODEL'}` at {options.get('base_url') or '$RLVR_JUDGE_BASE_URL'}"
        )
    if args.cache:
        options["cache"] = False if args.cache == "none" else args.cache
    try:
        env = rlvr_envs.make(args.env_id, data=rows, **options)
        probes = probe_rows(rows) if args.probes else None
        report = calibrate(env, rows, probes=probes)
    finally:
        if server is not None:
            server.stop()
    md, png = write_report(report, args.out, label)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print(to_markdown(report, label))
        print(f"written: {md}" + (f", {png}" if png else ""), file=sys.stderr)
    return 0
