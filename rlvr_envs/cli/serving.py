"""``rlvr-envs serve | train | export``: the reward server, the bundled trainer, data export."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rlvr_envs.env import Env
    from rlvr_envs.types import Task


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    from rlvr_envs.cli.core import _add_env_args

    serve = subparsers.add_parser(
        "serve",
        help="HTTP reward server (OpenRLHF /get_reward protocol)",
        description="Serve POST /get_reward (OpenRLHF remote reward protocol) for the given envs.",
    )
    serve.add_argument(
        "env_ids", nargs="*", metavar="ENV_ID", help="envs to serve (none: any registered id named in the labels)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="interface to bind (default %(default)s)")
    serve.add_argument("--port", type=int, default=5000, help="port (default %(default)s; 0 picks a free one)")
    serve.add_argument("--format-weight", type=float, default=0.0, help="add a format reward with this weight")
    serve.add_argument("--verbose", action="store_true", help="log every request")
    _add_env_args(serve)
    serve.set_defaults(func=cmd_serve)

    train = subparsers.add_parser(
        "train",
        help="train a model with the bundled GRPO/DAPO trainer (needs rlvr-trainers)",
        description="Run the bundled trainer (TRL GRPOTrainer) from a YAML config; see trainers/README.md.",
    )
    train.add_argument("--config", required=True, help="YAML config file")
    train.add_argument(
        "--set", nargs="*", default=[], metavar="FIELD=VALUE", help="override config fields (values parse as YAML)"
    )
    train.set_defaults(func=cmd_train)

    export = subparsers.add_parser(
        "export",
        help="write an env's tasks for another trainer (verl parquet, OpenRLHF or TRL JSONL)",
        description="Export tasks: verl parquet (data_source, prompt, ability, reward_model, extra_info), "
        "OpenRLHF JSONL (prompt, label) or TRL JSONL (prompt, env_id, task).",
    )
    export.add_argument("env_id", metavar="ENV_ID")
    export.add_argument("--format", choices=("verl", "openrlhf", "trl"), default="verl")
    export.add_argument("--out", required=True, help="output file (.parquet for verl, .jsonl otherwise)")
    export.add_argument("-n", type=int, default=None, help="number of tasks (required for procedural envs)")
    export.add_argument("--seed", type=int, default=0)
    export.add_argument("--split", default="train", help="split name stored in verl's extra_info")
    export.add_argument("--prompt-format", default=None, help="plain, r1 or answer_tag (default: the env's)")
    _add_env_args(export)
    export.set_defaults(func=cmd_export)


def cmd_serve(args: argparse.Namespace) -> int:
    from rlvr_envs.cli.core import parse_env_args
    from rlvr_envs.server import RewardServer
    from rlvr_envs.shaping import RewardShaping

    make_kwargs = parse_env_args(args.env_args)
    server = RewardServer(args.env_ids or None, host=args.host, port=args.port, verbose=args.verbose, **make_kwargs)
    if args.format_weight:
        default = server.router.default
        fmt = default.prompt_format.name if default is not None else "plain"
        server.httpd.shaping = RewardShaping(format_weight=args.format_weight, prompt_format=fmt)
    served = ", ".join(server.router.envs) or "any registered id"
    print(f"rlvr-envs reward server on {server.url}/get_reward serving {served}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    try:
        from rlvr_trainers.train import main as train_main
    except ImportError as exc:
        print(f"rlvr-envs train needs the rlvr-trainers distribution (pip install -e trainers): {exc}", file=sys.stderr)
        return 2
    return int(train_main(["--config", args.config, "--set", *args.set]))


def cmd_export(args: argparse.Namespace) -> int:
    import rlvr_envs
    from rlvr_envs.cli.core import parse_env_args

    make_kwargs = parse_env_args(args.env_args)
    if args.prompt_format:
        make_kwargs["prompt_format"] = args.prompt_format
    env = rlvr_envs.make(args.env_id, **make_kwargs)
    out = Path(args.out)
    if args.format == "verl":
        from rlvr_envs.adapters.verl import export_parquet

        export_parquet(env, out, n=args.n, seed=args.seed, split=args.split)
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
    from rlvr_envs.adapters.trl import prompt_for

    if fmt == "openrlhf":
        from rlvr_envs.server import openrlhf_label

        return {"prompt": prompt_for(env, task, conversational=True), "label": openrlhf_label(env.env_id, task)}
    return {
        "prompt": prompt_for(env, task, conversational=True),
        "env_id": env.env_id,
        "task": json.loads(task.model_dump_json()),
    }
