"""``rlvr-envs train``: the bundled trainer as a subcommand of the core CLI.

Added through the ``rlvr_envs.cli`` entry-point group (``add_parsers``), so the core never
imports the trainers; ``rlvr-train`` is the same command as a script of its own.
"""

from __future__ import annotations

import argparse
from typing import Any

from rlvr_trainers.arguments import add_arguments


def add_parsers(subparsers: Any) -> None:
    train = subparsers.add_parser(
        "train",
        help="train a model with the bundled GRPO/DAPO trainer (TRL GRPOTrainer)",
        description="Run the bundled trainer from a YAML config; see trainers/README.md for every field.",
    )
    add_arguments(train)
    train.set_defaults(func=_cmd_train)


def _cmd_train(args: argparse.Namespace) -> int:
    from rlvr_trainers.train import main

    argv = ["--config", args.config, "--set", *args.set]
    if args.resume is not None:
        argv += ["--resume", args.resume]
    return main(argv)
