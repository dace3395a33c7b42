"""``rlvr-envs serve | export``: the reward server and data export (``train`` comes from rlvr-trainers' own
``rlvr_envs.cli`` entry point)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rlvr_envs.env import Env
    from rlvr_envs.types import Task


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    from rlvr_envs.cli.core import _add_env_args

    serve = subparsers.add_parser(
        "serve",
        help="HTTP reward server (OpenRLHF /get_reward, batch /verify, /health)",
        description="Serve POST /get_reward (OpenRLHF remote reward protocol), POST /verify (rows in, verdicts "
        "out) and GET /health for the given envs. Per-env arguments: --arg ENV:KEY=VALUE (e.g. --arg "
        "math-500:path=math500.jsonl); a bare --arg KEY=VALUE is allowed only when one env is served.",
    )
    serve.add_argument(
        "env_ids",
        nargs="*",
        metavar="ENV_ID",
        help="envs to serve (none: any registered id named in the labels, verified from the label alone)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="interface to bind (default %(default)s)")
    serve.add_argument("--port", type=int, default=5000, help="port (default %(default)s; 0 picks a free one)")
    serve.add_argument(
        "--token",
        default=None,
        help="require this token (Authorization: Bearer, X-RLVR-Token or ?token=); default "
        "$RLVR_SERVE_TOKEN; required when --host is not a loopback address",
    )
    serve.add_argument(
        "--allow-env",
        action="append",
        default=None,
        metavar="PATTERN",
        help="accept only env ids matching this glob (repeatable), e.g. 'math-*'",
    )
    serve.add_argument(
        "--task-source",
        choices=("label", "dataset"),
        default="label",
        help="label: verify the task a request carries; dataset: only the served envs' own tasks",
    )
    serve.add_argument("--max-body-mb", type=float, default=32.0, help="request body cap in MB (default %(default)s)")
    serve.add_argument(
        "--idle-timeout",
        type=float,
        default=5.0,
        help="seconds an idle keep-alive connection stays open (default %(default)s)",
    )
    serve.add_argument(
        "--body-timeout",
        type=float,
        default=30.0,
        help="seconds a request's whole body may take after its headers; then 408 and close (default %(default)s)",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        default=None,
        help="open connections at most; more get 503 (default: half the open-files limit, at most 1024)",
    )
    serve.add_argument(
        "--strip-token",
        action="append",
        default=[],
        metavar="TEXT",
        help="special-token text to strip from queries, besides the defaults (repeatable)",
    )
    serve.add_argument(
        "--no-default-strip",
        action="store_true",
        help="strip only --strip-token / --tokenizer tokens, not the common chat templates' ones",
    )
    serve.add_argument(
        "--tokenizer",
        default=None,
        metavar="PATH",
        help="a local Hugging Face tokenizer whose special tokens are stripped too",
    )
    serve.add_argument(
        "--max-call-s",
        type=float,
        default=150.0,
        help="most seconds one verification may take, judge retries included (default %(default)s: under "
        "OpenRLHF's 180 s client timeout)",
    )
    serve.add_argument(
        "--on-error",
        choices=("fail", "zero"),
        default="fail",
        help="what /get_reward pays for a verifier_error (judge down, no Lean, no bubblewrap): fail = an HTTP "
        "error after --max-consecutive-errors in a row (each before that 0.0, flagged and logged); zero = 0.0, "
        "flagged (default %(default)s)",
    )
    serve.add_argument(
        "--max-consecutive-errors",
        type=int,
        default=8,
        help="verifier errors in a row before --on-error fail stops paying (default %(default)s)",
    )
    serve.add_argument("--format-weight", type=float, default=0.0, help="add a format reward with this weight")
    serve.add_argument(
        "--openenv",
        action="store_true",
        help="serve episodes of the one ENV_ID through OpenEnv's server (/ws sessions; the `openenv` extra)",
    )
    serve.add_argument("--tool", action="append", default=None, metavar="NAME", help="--openenv: a tool (repeatable)")
    serve.add_argument("--max-sessions", type=int, default=256, help="--openenv: open sessions at most; more get 503")
    serve.add_argument(
        "--session-idle-timeout",
        type=float,
        default=300.0,
        help="--openenv: seconds of client silence ending a session",
    )
    serve.add_argument("--verbose", action="store_true", help="log every request")
    _add_env_args(serve)
    serve.set_defaults(func=cmd_serve)

    export = subparsers.add_parser(
        "export",
        help="write an env's tasks for another trainer (verl parquet, OpenRLHF or TRL JSONL)",
        description="Export tasks: verl parquet (data_source, prompt, ability, reward_model, extra_info), "
        "OpenRLHF JSONL (prompt, label) or TRL JSONL (prompt, env_id, task, verifier, task_id; the columns of "
        "rlvr_envs.adapters.trl.build_dataset). Every row carries what verifying it needs.",
    )
    export.add_argument("env_id", metavar="ENV_ID")
    export.add_argument("--format", choices=("verl", "openrlhf", "trl"), default="verl")
    export.add_argument("--out", required=True, help="output file (.parquet for verl, .jsonl otherwise)")
    export.add_argument(
        "--data-source",
        default=None,
        help="verl's data_source column (default: the env id; e.g. openai/gsm8k lets verl's own "
        "default scorer route the rows)",
    )
    export.add_argument("-n", type=int, default=None, help="number of tasks (required for procedural envs)")
    export.add_argument("--seed", type=int, default=0)
    export.add_argument("--split", default="train", help="split name stored in verl's extra_info")
    export.add_argument("--prompt-format", default=None, help="plain, r1 or answer_tag (default: the env's)")
    _add_env_args(export)
    export.set_defaults(func=cmd_export)


def split_env_args(pairs: list[str] | None, env_ids: list[str]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``--arg`` values as (shared kwargs, per-env kwargs); ``ENV:KEY=VALUE`` goes to ENV only.

    With several envs a bare ``KEY=VALUE`` is refused: a ``path=`` meant for one env must never
    load another env's tasks from the wrong file.
    """
    from rlvr_envs.cli.core import parse_env_args

    shared: list[str] = []
    per_env: dict[str, list[str]] = {}
    for pair in pairs or []:
        key = pair.partition("=")[0]
        env, sep, name = key.partition(":")
        if sep:
            if env not in env_ids:
                raise ValueError(f"--arg {pair!r} names {env!r}, which is not served (served: {env_ids or 'none'})")
            per_env.setdefault(env, []).append(name + pair[len(key) :])
        else:
            shared.append(pair)
    if shared and len(env_ids) != 1:
        raise ValueError(
            f"--arg {shared[0]!r} does not say which env it is for; "
            f"with {len(env_ids)} envs write --arg ENV:{shared[0]}"
        )
    if shared:
        per_env.setdefault(env_ids[0], []).extend(shared)
    return {}, {env: parse_env_args(items) for env, items in per_env.items()}


def cmd_serve(args: argparse.Namespace) -> int:
    if args.openenv:
        from rlvr_envs.serve.episodes.cli import cmd_serve_openenv

        return cmd_serve_openenv(args, split_env_args(args.env_args, list(args.env_ids))[1])
    try:
        import httptools  # noqa: F401  (the server runs uvicorn's httptools protocol)
        import uvicorn  # noqa: F401
    except ImportError as exc:
        print(f"rlvr-envs serve needs the `serving` extra: pip install 'rlvr-envs[serving]' ({exc})", file=sys.stderr)
        return 2
    from rlvr_envs.serve.app import RewardServer
    from rlvr_envs.serve.protocol import DEFAULT_SPECIAL_TOKENS, check_token_text, tokenizer_special_tokens
    from rlvr_envs.shaping import RewardShaping

    shared, per_env = split_env_args(args.env_args, list(args.env_ids))
    tokens = [] if args.no_default_strip else list(DEFAULT_SPECIAL_TOKENS)
    tokens += [check_token_text(t) for t in args.strip_token]
    if args.tokenizer:
        tokens += list(tokenizer_special_tokens(args.tokenizer))
    server = RewardServer(
        args.env_ids or None,
        host=args.host,
        port=args.port,
        verbose=args.verbose,
        env_kwargs=per_env,
        token=args.token,
        allow_envs=args.allow_env,
        task_source=args.task_source,
        special_tokens=tokens,
        max_body_bytes=int(args.max_body_mb * 1024 * 1024),
        idle_timeout_s=args.idle_timeout,
        body_timeout_s=args.body_timeout,
        max_connections=args.max_connections,
        max_call_s=args.max_call_s,
        on_error=args.on_error,
        max_consecutive_errors=args.max_consecutive_errors,
        **shared,
    )
    if args.format_weight:
        default = server.router.default
        # The format object, not its name: a family's own format (code's) is not in the global table.
        fmt = default.prompt_format if default is not None else "plain"
        server.shaping = RewardShaping(format_weight=args.format_weight, prompt_format=fmt)
    served = ", ".join(server.router.envs) or "any registered id (verified from the labels)"
    auth = "token required" if server.token else "no token (loopback only)"
    print(f"rlvr-envs reward server on {server.url}/get_reward serving {served}; {auth}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    import rlvr_envs
    from rlvr_envs.cli.core import parse_env_args

    make_kwargs = parse_env_args(args.env_args)
    if args.prompt_format:
        make_kwargs["prompt_format"] = args.prompt_format
    out = Path(args.out)
    wanted = ".parquet" if args.format == "verl" else ".jsonl"
    if out.suffix.lower() != wanted:
        # verl reads Parquet and the others JSONL: a mismatched name would hide what the file holds.
        raise ValueError(f"--format {args.format} writes {wanted}; name the output *{wanted}, not {out.name!r}")
    env = rlvr_envs.make(args.env_id, **make_kwargs)
    if args.format == "verl":
        from rlvr_envs.adapters.verl import export_parquet

        export_parquet(env, out, n=args.n, seed=args.seed, split=args.split, data_source=args.data_source)
        count = args.n if args.n is not None else len(env.tasks)
    else:
        if args.n is None and env.procedural:
            raise ValueError(f"{env.env_id} is procedural: pass -n (how many tasks to export)")
        tasks = list(env.tasks) if args.n is None else env.sample(args.n, seed=args.seed)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as fh:
            for task in tasks:
                fh.write(json.dumps(_row(env, task, args.format), ensure_ascii=False) + "\n")
        count = len(tasks)
    print(f"wrote {count} tasks of {env.env_id} to {out} ({args.format})")
    return 0


def _row(env: Env, task: Task, fmt: str) -> dict[str, object]:
    from rlvr_envs.adapters.rows import spec_to_json, verifier_spec
    from rlvr_envs.adapters.trl import prompt_for

    spec = verifier_spec(env)
    if fmt == "openrlhf":
        from rlvr_envs.serve.protocol import openrlhf_label

        return {"prompt": prompt_for(env, task, conversational=True), "label": openrlhf_label(env.env_id, task, spec)}
    # The columns of rlvr_envs.adapters.trl.build_dataset, JSON text included: `datasets` would merge the
    # dicts of different rows into one struct type, filling other rows' keys with nulls.
    return {
        "prompt": prompt_for(env, task, conversational=True),
        "env_id": env.env_id,
        "task": task.model_dump_json(),
        "verifier": spec_to_json(spec),
        "task_id": task.id,
    }
