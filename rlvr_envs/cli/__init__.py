"""The ``rlvr-envs`` command line.

The core's own subcommands come from the modules in ``SUBCOMMAND_MODULES``; any distribution
adds its own through the entry-point group ``rlvr_envs.cli``, whose values are callables
``add_parsers(subparsers)`` (exactly like ``rlvr_envs.cli.core.add_parsers``)::

    [project.entry-points."rlvr_envs.cli"]
    lean = "rlvr_lean.cli:add_parsers"

A parser's ``func(args) -> int`` runs it. Heavy imports stay inside the ``func``s so that
``rlvr-envs --help`` is instant, and plugins are not even imported when the command asked for
is one of the core's. A plugin that fails to load, or that claims a name already taken, is
reported as a warning and leaves every other command working.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any

ENTRY_POINT_GROUP = "rlvr_envs.cli"

SUBCOMMAND_MODULES = (
    "rlvr_envs.cli.core",  # list, show, verify, new
    "rlvr_envs.cli.difficulty",  # profile, filter, eval, audit
    "rlvr_envs.cli.serving",  # serve, export
    "rlvr_envs.cli.redteam",  # redteam
    "rlvr_envs.cli.rescore",  # rescore
    "rlvr_envs.cli.sft",  # sft-export
)


class CliPluginWarning(UserWarning):
    """A ``rlvr_envs.cli`` plugin could not add its commands."""


class _Subparsers:
    """The subparsers action as one source of commands sees it: refuses names already taken and
    records its names."""

    def __init__(self, action: Any, source: str, owners: dict[str, str]) -> None:
        self._action = action
        self._source = source
        self._owners = owners

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        owner = self._owners.get(name)
        if owner is not None:
            raise _NameTaken(f"{self._source} wants the command {name!r}, which {owner} already provides")
        for alias in kwargs.get("aliases", ()):
            if alias in self._owners:
                raise _NameTaken(f"{self._source} wants the alias {alias!r}, which {self._owners[alias]} provides")
        parser: argparse.ArgumentParser = self._action.add_parser(name, **kwargs)
        self._owners[name] = self._source
        for alias in kwargs.get("aliases", ()):
            self._owners[alias] = self._source
        return parser

    def __getattr__(self, name: str) -> Any:
        return getattr(self._action, name)


class _NameTaken(Exception):
    pass


def _drop_parser(action: Any, name: str) -> tuple[Any, list[Any]]:
    # argparse has no public way to remove a subcommand; these two private fields are all it keeps.
    parser = action._name_parser_map.pop(name, None)
    dropped = [a for a in action._choices_actions if a.dest == name]
    action._choices_actions = [a for a in action._choices_actions if a.dest != name]
    return parser, dropped


def plugin_entry_points() -> list[metadata.EntryPoint]:
    return sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


def _add_from(add_parsers: Callable[[Any], None], action: Any, source: str, owners: dict[str, str]) -> None:
    before = dict(owners)
    view = _Subparsers(action, source, owners)
    try:
        add_parsers(view)
    except Exception as exc:
        for name in [n for n, o in owners.items() if o == source]:  # a half-added plugin leaves nothing behind
            _drop_parser(action, name)
        owners.clear()
        owners.update(before)
        what = str(exc) if isinstance(exc, _NameTaken) else f"{type(exc).__name__}: {exc}"
        warnings.warn(f"rlvr-envs: commands from {source} not added: {what}", CliPluginWarning, stacklevel=3)


def _core_parser() -> tuple[argparse.ArgumentParser, Any, dict[str, str]]:
    parser = argparse.ArgumentParser(
        prog="rlvr-envs", description="Verifiable text environments for RL of language models."
    )
    action = parser.add_subparsers(dest="command", metavar="COMMAND")
    owners: dict[str, str] = {}
    for name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # that group of commands is not part of this installation
                continue
            raise
        _add_from(module.add_parsers, action, name, owners)
    return parser, action, owners


def _add_plugins(action: Any, owners: dict[str, str]) -> None:
    for ep in plugin_entry_points():
        dist = getattr(ep, "dist", None)
        source = f"plugin {ep.name!r} ({ep.value}{', ' + dist.name if dist is not None else ''})"
        try:
            add_parsers = ep.load()
        except Exception as exc:
            warnings.warn(f"rlvr-envs: {source} failed to load: {type(exc).__name__}: {exc}", CliPluginWarning, 2)
            continue
        _add_from(add_parsers, action, source, owners)


def build_parser(load_plugins: bool = True) -> argparse.ArgumentParser:
    """The full parser: the core's commands, then every ``rlvr_envs.cli`` plugin's."""
    parser, action, owners = _core_parser()
    if load_plugins:
        _add_plugins(action, owners)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    with warnings.catch_warnings():
        warnings.simplefilter("always", CliPluginWarning)
        warnings.showwarning = _show_warning
        parser, action, owners = _core_parser()
        first = next((a for a in argv if not a.startswith("-")), None)
        # A core command needs no plugin imported; help or any other name (`train`) needs them all.
        if first is None or owners.get(first, "plugin").startswith("plugin"):
            _add_plugins(action, owners)
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


def _show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
    print(f"warning: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
