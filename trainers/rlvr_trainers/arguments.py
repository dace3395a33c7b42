"""The arguments of ``rlvr-train`` / ``rlvr-envs train``, shared by both entry points (no import circle)."""

from __future__ import annotations

import argparse
from typing import Any


class _HelpConfig(argparse.Action):
    """``--help-config``: every config field with its default and meaning, then exit (no --config needed)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None) -> None:
        from rlvr_trainers.config import config_help

        print(config_help())
        parser.exit()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="YAML config file (fields: --help-config)")
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
    parser.add_argument(
        "--help-config", action=_HelpConfig, help="print every config field with its default and meaning, and exit"
    )
