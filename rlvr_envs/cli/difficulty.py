"""``rlvr-envs profile | filter | eval | audit``: pass-rate profiling, band filtering, evaluation, verifier audit."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rlvr_envs.env import Env
    from rlvr_envs.samplers.base import Sampler

DEFAULT_DB = "rlvr_profiles.sqlite"


# -- shared arguments ------------------------------------------------------------------------------
def _add_env_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", metavar="ENV", help="environment id, e.g. math-arith-v0")
    parser.add_argument(
        "--arg",
        action="append",
        metavar="KEY=VALUE",
        dest="env_args",
        help="keyword argument for make() (repeatable; values parse as JSON when they can)",
    )
    parser.add_argument("--prompt-format", help="prompt format to ask in (plain, r1, answer_tag)")


def _add_db_arg(parser: argparse.ArgumentParser, flag: str = "--db") -> None:
    parser.add_argument(
        flag, "--profile", dest="db", default=DEFAULT_DB, help=f"pass-rate store (SQLite file; default {DEFAULT_DB})"
    )


def _add_sampler_args(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("sampler")
    g.add_argument(
        "--sampler",
        required=True,
        choices=["hf", "vllm", "openai", "python"],
        help="backend: hf (transformers generate), vllm (in-process), openai (any OpenAI-compatible "
        "server), python (--model module:factory returning a Sampler)",
    )
    g.add_argument("--model", required=True, help="model name or path (served model name for openai)")
    g.add_argument("--revision", help="model revision (keys the results)")
    g.add_argument("--base-url", help="openai: API root, e.g. http://127.0.0.1:8000/v1")
    g.add_argument(
        "--endpoint",
        choices=["chat", "completions"],
        default="chat",
        help="openai: /chat/completions (server applies the chat template) or /completions",
    )
    g.add_argument("--chat-template", help="openai: an identifier of the server's chat template (keys results)")
    g.add_argument("--temperature", type=float, default=1.0)
    g.add_argument("--top-p", type=float, default=1.0)
    g.add_argument("--max-tokens", type=int, default=512)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--stop", action="append", default=[], help="stop string (repeatable)")
    g.add_argument("--concurrency", type=int, default=8, help="openai: requests in flight at most")
    g.add_argument("--retries", type=int, default=4, help="openai: retries per failed request")
    g.add_argument("--request-timeout", type=float, default=120.0, help="openai: seconds per request")
    g.add_argument("--batch-size", type=int, default=8, help="hf: prompts per generate call")
    g.add_argument("--device", default="auto", help="hf: cpu, cuda, ... or auto")
    g.add_argument("--dtype", help="hf/vllm: weights dtype, e.g. bfloat16")
    g.add_argument("--tensor-parallel-size", type=int, default=1, help="vllm: GPUs per model")


def build_sampler(args: argparse.Namespace) -> Sampler:
    from rlvr_envs.samplers.base import SamplingParams

    params = SamplingParams(
        temperature=args.temperature,
        top_p=args.top_p,
        max_tokens=args.max_tokens,
        seed=args.seed,
        stop=tuple(args.stop),
    )
    if args.sampler == "openai":
        from rlvr_envs.samplers.openai_compat import OpenAICompatibleSampler

        if not args.base_url:
            raise ValueError("--sampler openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        return OpenAICompatibleSampler(
            args.base_url,
            args.model,
            revision=args.revision,
            chat=args.endpoint == "chat",
            chat_template=args.chat_template,
            params=params,
            max_concurrency=args.concurrency,
            max_retries=args.retries,
            timeout_s=args.request_timeout,
        )
    if args.sampler == "hf":
        from rlvr_envs.samplers.hf import TransformersSampler

        return TransformersSampler(
            args.model,
            revision=args.revision,
            params=params,
            batch_size=args.batch_size,
            device=args.device,
            dtype=args.dtype,
        )
    if args.sampler == "vllm":
        from rlvr_envs.samplers.vllm_sampler import VLLMSampler

        extra: dict[str, Any] = {"tensor_parallel_size": args.tensor_parallel_size}
        if args.dtype:
            extra["dtype"] = args.dtype
        return VLLMSampler(args.model, revision=args.revision, params=params, **extra)
    module_name, _, attr = args.model.partition(":")
    if not module_name or not attr:
        raise ValueError("--sampler python needs --model module:factory (a callable taking params=)")
    factory = getattr(importlib.import_module(module_name), attr)
    return factory(params=params)


def _make_env(args: argparse.Namespace) -> Env:
    import rlvr_envs
    from rlvr_envs.cli.core import parse_env_args

    kwargs = parse_env_args(args.env_args)
    if args.prompt_format:
        kwargs["prompt_format"] = args.prompt_format
    return rlvr_envs.make(args.env_id, **kwargs)


def _card_path(db: str, env_id: str) -> Path:
    base = Path(db)
    return base.with_name(f"{base.stem}.{env_id}.card.png")


# -- commands --------------------------------------------------------------------------------------
def cmd_profile(args: argparse.Namespace) -> int:
    from rlvr_envs.difficulty.card import DifficultyCard
    from rlvr_envs.difficulty.profile import profile_env
    from rlvr_envs.difficulty.store import PassRateStore

    env = _make_env(args)
    sampler = build_sampler(args)
    with PassRateStore(args.db) as db:
        summary = profile_env(
            env, sampler, db, n=args.n, limit=args.limit, batch_tasks=args.batch_tasks, progress=not args.no_progress
        )
        print(summary.render())
        records = db.task_records(env.env_id, summary.sampler)
    wanted = {t.fingerprint for t in (env.tasks[: args.limit] if args.limit else env.tasks)}
    mine = [r for r in records if r.task_fingerprint in wanted]
    card = DifficultyCard.from_records(env.env_id, summary.sampler, mine, band=(args.band[0], args.band[1]))
    print(card.render())
    if not args.no_card:
        path = card.save_png(args.card or _card_path(args.db, env.env_id))
        print(f"difficulty card saved to {path}")
    print(f"pass rates stored in {args.db} under sampler key {summary.sampler}")
    return 0


def cmd_filter(args: argparse.Namespace) -> int:
    from rlvr_envs.difficulty.card import DifficultyCard
    from rlvr_envs.difficulty.filter import check_task_file, filter_tasks, write_tasks

    check_task_file(args.out)  # a wrong --out is refused before anything is read or printed
    env = _make_env(args)
    if not Path(args.db).exists():
        raise FileNotFoundError(f"{args.db} does not exist: run `rlvr-envs profile {args.env_id} ...` first")
    result = filter_tasks(env, (args.band[0], args.band[1]), args.db, args.sampler_key)
    card = DifficultyCard.from_records(result.env_id, result.sampler, result.measured, band=result.band)
    print(card.render())
    if result.unmeasured:
        print(f"{result.unmeasured} task(s) of {result.env_id} have no stored pass rate and were left out")
    path = write_tasks(result.kept, args.out)
    print(
        f"kept {len(result.kept)} of {len(result.measured)} measured tasks with pass rate in "
        f"[{result.band[0]:g}, {result.band[1]:g}] -> {path}"
    )
    return 0 if result.kept or args.allow_empty else 3


def cmd_eval(args: argparse.Namespace) -> int:
    from rlvr_envs.difficulty.profile import profile_env
    from rlvr_envs.difficulty.store import PassRateStore
    from rlvr_envs.metrics import TaskSamples, evaluate
    from rlvr_envs.plots import plot_length_accuracy, plot_scaling_curves

    ks = sorted({int(k) for k in args.k.split(",") if k.strip()})
    if not ks or ks[0] < 1:
        raise ValueError(f"-k takes positive integers separated by commas, got {args.k!r}")
    n = args.n or ks[-1]
    env = _make_env(args)
    sampler = build_sampler(args)
    with PassRateStore(args.db) as db:
        summary = profile_env(
            env, sampler, db, n=n, limit=args.limit, batch_tasks=args.batch_tasks, progress=not args.no_progress
        )
        print(summary.render())
        unit = (db.sampler_description(summary.sampler) or {}).get("length_unit", "chars")
        tasks = list(env.tasks[: args.limit] if args.limit else env.tasks)
        per_task = []
        for fp in dict.fromkeys(t.fingerprint for t in tasks):
            rows = list(db.samples(env.env_id, summary.sampler, task_fingerprint=fp))
            answers = []
            for r in rows:
                found = r.extracted if r.extracted is not None else env.prompt_format.extract(r.completion)
                answers.append(found if isinstance(found, str) or found is None else found.text)
            per_task.append(TaskSamples([r.passed for r in rows], answers, [r.length for r in rows]))
    report = evaluate(per_task, ks, length_buckets=args.length_buckets)
    print(f"eval {env.env_id}  sampler {summary.sampler}")
    print(report.render(unit))
    out_dir = Path(args.plots)
    curves = plot_scaling_curves(report, out_dir / f"{env.env_id}.scaling.png", title=env.env_id)
    lengths = plot_length_accuracy(
        report.length_buckets, out_dir / f"{env.env_id}.length.png", unit=unit, title=env.env_id
    )
    print(f"plots saved to {curves} and {lengths}")
    if args.json:
        payload = {
            "env_id": env.env_id,
            "sampler": summary.sampler,
            "tasks": report.tasks,
            "samples_per_task": report.samples_per_task,
            "pass_at_k": report.pass_at_k,
            "maj_at_k": report.maj_at_k,
            "pass_at_1": {
                "value": report.pass_at_1.value,
                "low": report.pass_at_1.low,
                "high": report.pass_at_1.high,
                "confidence": report.pass_at_1.confidence,
                "method": report.pass_at_1.method,
            },
            "length_unit": unit,
            "length_buckets": [b.__dict__ for b in report.length_buckets],
        }
        Path(args.json).write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from rlvr_envs.audit import audit, write_audit
    from rlvr_envs.difficulty.store import PassRateStore

    if not Path(args.db).exists():
        raise FileNotFoundError(f"{args.db} does not exist: run `rlvr-envs profile` or `eval` first")
    env = None
    try:
        env = _make_env(args)
        env_id = env.env_id
    except Exception as exc:  # the stored tasks are enough; the env only renders golds better
        print(f"note: could not make {args.env_id} ({exc}); using stored answers as the gold", file=sys.stderr)
        env_id = args.env_id
    with PassRateStore(args.db) as db:
        result = audit(db, env_id, args.sampler_key, env=env, limit=args.limit, rel_tol=args.rel_tol, seed=args.seed)
    print(result.render())
    path = write_audit(result.near_misses, args.out)
    print(f"{len(result.near_misses)} case(s) written to {path} for review")
    return 0


# -- parsers ---------------------------------------------------------------------------------------
def _band(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--band",
        nargs=2,
        type=float,
        default=[0.2, 0.8],
        metavar=("LOW", "HIGH"),
        help="pass-rate band, inclusive (default 0.2 0.8)",
    )


def add_parsers(subparsers: Any) -> None:
    p = subparsers.add_parser("profile", help="sample n completions per task, verify, store pass rates (resumable)")
    _add_env_args(p)
    _add_sampler_args(p)
    _add_db_arg(p)
    p.add_argument("-n", type=int, default=16, help="samples per task (default 16)")
    p.add_argument("--limit", type=int, help="profile only the first LIMIT tasks")
    p.add_argument("--batch-tasks", type=int, default=8, help="tasks per generate call")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--card", help="where to save the difficulty card PNG (default: beside the store)")
    p.add_argument("--no-card", action="store_true", help="do not save the card PNG")
    _band(p)
    p.set_defaults(func=cmd_profile)

    p = subparsers.add_parser("filter", help="write the tasks whose stored pass rate is in a band (JSONL/Parquet)")
    _add_env_args(p)
    _add_db_arg(p)
    _band(p)
    p.add_argument("--sampler-key", help="stored sampler key (or unique prefix); needed if several are stored")
    p.add_argument("--out", required=True, help="output file: .jsonl or .parquet")
    p.add_argument("--allow-empty", action="store_true", help="exit 0 even when no task is kept")
    p.set_defaults(func=cmd_filter)

    p = subparsers.add_parser("eval", help="pass@k, maj@k, pass@1 with CI, length vs accuracy, with plots")
    _add_env_args(p)
    _add_sampler_args(p)
    _add_db_arg(p)
    p.add_argument("-k", default="1,4,16,64", help="k values, comma-separated (default 1,4,16,64)")
    p.add_argument("-n", type=int, help="samples per task (default: the largest k)")
    p.add_argument("--limit", type=int, help="evaluate only the first LIMIT tasks")
    p.add_argument("--batch-tasks", type=int, default=8, help="tasks per generate call")
    p.add_argument("--length-buckets", type=int, default=5, help="completion-length buckets")
    p.add_argument("--plots", default="rlvr_eval_plots", help="directory for the PNGs")
    p.add_argument("--json", help="also write the metrics as JSON here")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_eval)

    p = subparsers.add_parser("audit", help="write zero-reward answers close to the gold for review")
    _add_env_args(p)
    _add_db_arg(p)
    p.add_argument("--sampler-key", help="stored sampler key (or unique prefix); needed if several are stored")
    p.add_argument("--out", default="rlvr_audit.jsonl", help="output: .jsonl or .md (default rlvr_audit.jsonl)")
    p.add_argument("--limit", type=int, default=200, help="distinct cases written at most")
    p.add_argument("--rel-tol", type=float, default=1e-2, help="relative tolerance of 'numerically near'")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample drawn when there are more cases")
    p.set_defaults(func=cmd_audit)
