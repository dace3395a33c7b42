"""``rlvr-envs sft-export``: verified-correct completions (stored, or sampled now) as an SFT dataset."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rlvr_envs.cli.difficulty import _add_db_arg, _add_env_args, _add_sampler_args, _make_env, build_sampler


def cmd_sft_export(args: argparse.Namespace) -> int:
    from rlvr_envs.difficulty.sft import sft_rows, write_sft
    from rlvr_envs.difficulty.store import PassRateStore
    from rlvr_envs.plots import plot_length_histogram

    out = Path(args.out)
    if out.suffix.lower() not in (".jsonl", ".ndjson"):  # refused before any sampling
        raise ValueError(f"sft-export writes JSONL: name the output *.jsonl, not {out.name!r}")
    env = _make_env(args)
    sampler_key = args.sampler_key
    if args.sample:
        from rlvr_envs.difficulty.profile import profile_env

        if not args.sampler or not args.model:
            raise ValueError("--sample needs --sampler and --model (the policy or teacher to sample from)")
        with PassRateStore(args.db) as db:
            summary = profile_env(
                env, build_sampler(args), db, n=args.n, limit=args.limit, progress=not args.no_progress
            )
        print(summary.render())
        sampler_key = summary.sampler
    elif not Path(args.db).exists():
        raise FileNotFoundError(f"{args.db} does not exist: run `rlvr-envs profile` first, or pass --sample")
    rows, report = sft_rows(
        args.db,
        env,
        sampler=sampler_key,
        per_task=args.per_task,
        shortest_first=args.shortest_first,
        max_chars=args.max_chars,
        dedup=not args.no_dedup,
    )
    path = write_sft(rows, out)
    print(report.render())
    meta = out.with_name(out.stem + ".summary.json")
    meta.write_text(json.dumps(report.as_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
    plot = plot_length_histogram(
        report.lengths, out.with_name(out.stem + ".lengths.png"), title=f"{env.env_id}: {len(rows)} SFT samples"
    )
    print(f"wrote {len(rows)} conversations to {path} (TRL SFTTrainer: a 'messages' column); summary {meta}, {plot}")
    return 0 if rows or args.allow_empty else 3


def add_parsers(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "sft-export",
        help="verified-correct completions as an SFT dataset (messages JSONL for TRL's SFTTrainer)",
        description="Rejection sampling for distillation: keep the stored (or, with --sample, freshly "
        "sampled) completions ENV's verifier accepted, at most --per-task per task, deduplicated, and "
        "write them as conversations (the prompt format's system and user turns, the completion as the "
        "assistant turn), with a summary JSON and a length histogram PNG beside the output.",
    )
    _add_env_args(p)
    _add_db_arg(p)
    p.add_argument("--out", required=True, help="output JSONL")
    p.add_argument("--sampler-key", help="stored sampler key (or unique prefix); needed if several are stored")
    p.add_argument("--per-task", type=int, default=4, help="samples kept per task at most (default 4)")
    p.add_argument("--shortest-first", action="store_true", help="keep each task's shortest correct samples")
    p.add_argument("--max-chars", type=int, help="drop completions longer than this")
    p.add_argument("--no-dedup", action="store_true", help="keep duplicates (same normalised text) of a task")
    p.add_argument("--allow-empty", action="store_true", help="exit 0 even when nothing is written")
    p.add_argument("--sample", action="store_true", help="sample now (profile into --db), then export")
    p.add_argument("-n", type=int, default=8, help="with --sample: samples per task (default 8)")
    p.add_argument("--limit", type=int, help="with --sample: only the first LIMIT tasks")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_sampler_args(p)
    for action in p._actions:  # the sampler is only needed with --sample (checked in the command)
        if action.dest in ("sampler", "model"):
            action.required = False
    p.set_defaults(func=cmd_sft_export)
