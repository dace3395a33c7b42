"""The arguments of ``rlvr-train`` / ``rlvr-envs train``, shared by both entry points (no import circle)."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="YAML config file (see trainers/README.md)")
    parser.add_argument(
        "--set", nargs="*", default=[], metavar="FIELD=VALUE", help="override config fields (values parse as YAML)"
    )
    parser.add_argument(
        "--resume",
        nargs="?",
        const="latest",
        default=None,
        metavar="CHECKPOINT",
        help="resume from a checkpoint folder (no value: the latest one in output_dir)",
    )
