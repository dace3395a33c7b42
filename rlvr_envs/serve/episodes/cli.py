"""``rlvr-envs serve --openenv ENV_ID``: the episode server from the command line."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def cmd_serve_openenv(args: argparse.Namespace, per_env: dict[str, dict[str, Any]]) -> int:
    if len(args.env_ids) != 1:
        print("rlvr-envs serve --openenv serves exactly one ENV_ID", file=sys.stderr)
        return 2
    try:
        import openenv.core.env_server  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        print(
            f"rlvr-envs serve --openenv needs the `openenv` extra: pip install 'rlvr-envs[openenv]' ({exc})",
            file=sys.stderr,
        )
        return 2
    from rlvr_envs.serve.episodes.server import check_bind, serve_episodes

    env_id = args.env_ids[0]
    kwargs = dict(per_env.get(env_id, {}))
    if args.tool:
        kwargs["tools"] = list(args.tool)
    token = check_bind(args.host, args.token)
    auth = "token required" if token else "no token (loopback only)"
    print(
        f"rlvr-envs episode server (OpenEnv) on ws://{args.host}:{args.port}/ws serving {env_id}; "
        f"at most {args.max_sessions} sessions; {auth}",
        flush=True,
    )
    try:
        serve_episodes(
            env_id,
            host=args.host,
            port=args.port,
            token=token,
            max_sessions=args.max_sessions,
            idle_timeout_s=args.session_idle_timeout,
            **kwargs,
        )
    except KeyboardInterrupt:
        pass
    return 0
