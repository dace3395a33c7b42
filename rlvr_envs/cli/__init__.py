"""The ``rlvr-envs`` command line.

Each module in ``SUBCOMMAND_MODULES`` contributes subcommands through
``add_parsers(subparsers)``; a parser's ``func(args) -> int`` runs it. Heavy imports stay
inside the ``func``s so that ``rlvr-envs --help`` is instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

SUBCOMMAND_MODULES = (
    "rlvr_envs.cli.core",  # list, show, verify
    "rlvr_envs.cli.difficulty",  # profile, filter, eval, audit
    "rlvr_envs.cli.serving",  # serve, train, export
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rlvr-envs", description="Verifiable text environments for RL of language models."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # that group of commands is not part of this installation
                continue
            raise
        module.add_parsers(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a clean message for user errors; tracebacks with RLVR_DEBUG=1
        import os

        if os.environ.get("RLVR_DEBUG"):
            raise
        print(f"rlvr-envs {args.command}: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
