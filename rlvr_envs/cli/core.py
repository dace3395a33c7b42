"""``rlvr-envs list | show | verify | new``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rlvr_envs.errors import RlvrEnvsError

if TYPE_CHECKING:
    from rlvr_envs.env import Env
    from rlvr_envs.types import Task


class InputFileError(RlvrEnvsError, ValueError):
    """A malformed row in a user's input file; the message names the line."""


def parse_env_args(pairs: list[str] | None) -> dict[str, Any]:
    """``["path=data.jsonl", "size=10"]`` -> ``{"path": "data.jsonl", "size": 10}`` (JSON values where they parse)."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--arg expects KEY=VALUE, got {pair!r}")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def _add_env_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--arg",
        action="append",
        metavar="KEY=VALUE",
        dest="env_args",
        help="keyword argument for make(), e.g. --arg path=data.jsonl (repeatable; values parse as JSON when they can)",
    )


def _make(args: argparse.Namespace) -> Env:
    import rlvr_envs

    return rlvr_envs.make(args.env_id, **parse_env_args(args.env_args))


def format_table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def cmd_list(args: argparse.Namespace) -> int:
    from rlvr_envs.registration import registry

    specs = registry.latest() if not args.all_versions else [registry[i] for i in registry]
    if args.family:
        specs = [s for s in specs if registry.family_matches(s, args.family)]
    if args.json:
        rows = [
            {
                "id": s.id,
                "family": s.family,
                "version": s.version,
                "size": s.size,
                "user_data": s.user_data,
                "data_source": s.data_source,
                "difficulty_fields": list(s.difficulty_fields),
                "deprecated": s.deprecated,
                "distinct_tasks": s.distinct_tasks,
            }
            for s in specs
        ]
        print(json.dumps(rows, indent=2))
    else:
        rows_txt = [
            [
                s.id,
                s.family,
                f"v{s.version}",
                s.size_label,
                s.data_source or "-",
                ", ".join(s.difficulty_fields) or "-",
            ]
            for s in specs
        ]
        print(format_table(rows_txt, ["id", "family", "version", "tasks", "data source", "difficulty"]))
        notes = [f"  {s.id}: {s.distinct_label()}" for s in specs if s.distinct_label()]
        if notes:
            print("\nsmall task spaces:\n" + "\n".join(notes))
        print(f"\n{len(specs)} environment(s)")
    for _plugin, error in sorted(registry.plugin_errors.items()):
        print(f"warning: {error}", file=sys.stderr)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    env = _make(args)
    tasks = env.sample(args.n, seed=args.seed)
    for task in tasks:
        _, info = env.reset(options={"task": task})
        record: dict[str, Any] = {
            "task_id": task.id,
            "messages": info["messages"],
            "difficulty": info["difficulty"],
            "metadata": task.metadata if args.with_answers else info["metadata"],
        }
        if args.with_answers:
            record["answer"] = task.answer
        print(json.dumps(record, indent=2, ensure_ascii=False, default=str))
    return 0


def read_verify_rows(path: Path, env: Env) -> list[tuple[Task, Any]]:
    """Rows of ``{"task": {...} | "task_id": str, "completion": str}``; errors name the line."""
    from pydantic import ValidationError

    from rlvr_envs.types import Task

    rows: list[tuple[Task, Any]] = []
    # Read as bytes and decoded line by line: one line that is not UTF-8 is named like any other bad
    # line (exit 2), not a traceback from the file object's decoder.
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            where = f"{path}:{lineno}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputFileError(f"{where}: not UTF-8 (byte {exc.start + 1} of the line)") from None
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputFileError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(row, dict):
                raise InputFileError(f"{where}: expected a JSON object, got {type(row).__name__}")
            if "completion" not in row:
                raise InputFileError(f"{where}: missing the 'completion' field")
            if "task" in row:
                try:
                    task = Task.model_validate(row["task"])
                except ValidationError as exc:
                    raise InputFileError(f"{where}: invalid 'task': {exc.errors()[0]['msg']}") from None
            elif "task_id" in row:
                try:
                    task = env.get_task(str(row["task_id"]))
                except KeyError:
                    raise InputFileError(f"{where}: {env.env_id} has no task {row['task_id']!r}") from None
            else:
                raise InputFileError(f"{where}: needs a 'task' object or a 'task_id'")
            rows.append((task, row["completion"]))
    return rows


def cmd_verify(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    env = _make(args)
    try:
        rows = read_verify_rows(Path(args.input), env)
    except (InputFileError, OSError) as exc:
        print(f"rlvr-envs verify: {exc}", file=sys.stderr)
        return 2
    out_path = Path(args.output)
    passed = 0
    chunk = max(1, args.batch_size)
    with (
        out_path.open("w", encoding="utf-8") as out,
        tqdm(total=len(rows), desc="verify", unit="row", disable=args.quiet, file=sys.stderr) as bar,
    ):
        for start in range(0, len(rows), chunk):
            part = rows[start : start + chunk]
            verdicts = env.verify_batch([t for t, _ in part], [c for _, c in part])
            for (task, _), verdict in zip(part, verdicts):
                passed += verdict.passed
                out.write(json.dumps({"task_id": task.id, **verdict.model_dump(mode="json")}, default=str) + "\n")
            bar.update(len(part))
    print(f"{passed}/{len(rows)} passed; verdicts written to {out_path}", file=sys.stderr)
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    from rlvr_envs.scaffold import package_name, suite_folder, write_package

    if args.tool:
        from rlvr_envs.episodes.scaffold import write_tool_package

        root = write_tool_package(args.name, args.out, force=args.force)
        print(f"wrote the tool package for {args.name!r} to {root}; next: cd {root} && pip install -e . && pytest")
        return 0
    root = write_package(args.name, args.out, tests_out=args.tests_out, force=args.force)
    print(f"wrote the family package {package_name(args.name)} to {root}")
    if args.tests_out:
        tests = f"{args.tests_out}/{suite_folder(args.name)}"
        print(f"and its tests to {tests}; next: pip install -e {root} --no-deps && pytest {tests}")
    else:
        print(f"next: cd {root} && pip install -e . && pytest   (see CONTRIBUTING.md)")
    return 0


def add_parsers(subparsers: Any) -> None:
    p = subparsers.add_parser("list", help="list the registered environments")
    p.add_argument("--family", help="only this family: its name (rg) or its distribution's (reasoning-gym)")
    p.add_argument("--all-versions", action="store_true", help="every version, not only the latest")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_list)

    p = subparsers.add_parser("show", help="print sample prompts and metadata of an environment")
    p.add_argument("env_id")
    p.add_argument("-n", type=int, default=3, help="number of tasks (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--with-answers", action="store_true", help="also print ground-truth answers")
    _add_env_args(p)
    p.set_defaults(func=cmd_show)

    p = subparsers.add_parser("verify", help="verify a JSONL file of completions")
    p.add_argument("env_id")
    p.add_argument("--input", required=True, help="JSONL rows with 'task' (object) or 'task_id', and 'completion'")
    p.add_argument("--output", required=True, help="JSONL file for the verdicts, one per input row, same order")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_env_args(p)
    p.set_defaults(func=cmd_verify)

    p = subparsers.add_parser(
        "new",
        help="write a new environment family package (entry point, env, verifier, README, conformance test)",
    )
    p.add_argument("name", metavar="NAME", help="family name and id prefix, e.g. demo-family")
    p.add_argument("--out", default=".", help="parent directory (default: the current one); writes OUT/NAME")
    p.add_argument(
        "--tests-out",
        metavar="DIR",
        help="a repository's test suite: write the tests to DIR/<name>/ instead of NAME/tests/<name>/ "
        "(in rlvr-envs: --out envs --tests-out tests)",
    )
    p.add_argument("--force", action="store_true", help="write into an existing non-empty directory")
    p.add_argument(
        "--tool",
        action="store_true",
        help="write a tool plugin package instead (entry point in rlvr_envs.tools; NAME a lowercase identifier)",
    )
    p.set_defaults(func=cmd_new)
