"""Reading data rows for every family: files, lists, ``datasets`` objects, the Hub; row checks.

- ``read_file`` / ``records_from``: rows from JSONL/JSON/Parquet/CSV, a list of dicts or a
  ``datasets.Dataset``/``DatasetDict`` (``split=``, ``limit=``).
- ``load_hub``: a Hub dataset through ``datasets``, failing in well under a second when the Hub
  cannot be reached (or ``HF_HUB_OFFLINE``/``HF_DATASETS_OFFLINE`` is set) with the option to pass,
  instead of ``datasets``' retries.
- ``require_fields``: a row whose prompt or answer is missing or null must never become a task:
  stringifying ``None`` gives the answer ``'None'``, and then ``\\boxed{None}`` earns the reward
  while a correct answer scores 0.

``datasets`` is imported only when a ``datasets`` object is handed in or the Hub is used.
"""

from __future__ import annotations

import json
import math
import os
import socket
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from rlvr_envs.errors import DataError, DataUnavailableError

Record = dict[str, Any]
FILE_SUFFIXES = (".jsonl", ".ndjson", ".json", ".parquet", ".csv")


def is_missing(value: Any) -> bool:
    """True for values that mean "no data": None, NaN (pandas/Parquet nulls), blank strings."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    if isinstance(value, str) and not value.strip():
        return True
    return False


def require_fields(
    row: Mapping[str, Any],
    columns: Mapping[str, str],
    *,
    source: str,
    row_number: int,
    mapping_hint: str | None = None,
) -> dict[str, Any]:
    """The values of ``columns`` (role -> column name) in ``row``, or a ``DataError``.

    ``row_number`` is 1-based as a person counts lines in a file. ``mapping_hint`` names the option
    that maps columns (for instance ``"answer_key="``) and is added to the message.
    """
    if not isinstance(row, Mapping):
        raise DataError(f"{source} row {row_number}: expected an object with columns, got {type(row).__name__}")
    values: dict[str, Any] = {}
    for role, column in columns.items():
        hint = f"; map your own column with {mapping_hint}" if mapping_hint else ""
        if column not in row:
            present = sorted(str(k) for k in row)[:20]
            guess = column_guess(row, role, column, mapping_hint)
            raise DataError(
                f"{source} row {row_number}: no column {column!r} for the {role} (columns: {present}){guess or hint}"
            )
        value = row[column]
        if is_missing(value):
            shown = "null" if value is None or isinstance(value, float) else "empty"
            raise DataError(f"{source} row {row_number}: the {role} column {column!r} is {shown}{hint}")
        values[role] = value
    return values


_SAME_ROLE = (
    ("problem", "question", "prompt", "query", "input", "instruction", "text", "statement"),
    ("answer", "solution", "final_answer", "target", "output", "label", "gold", "expected", "response"),
    ("id", "unique_id", "task_id", "key", "name", "idx", "uid"),
)
"""Column names datasets use for the same thing: a row holding one of a role's names under
another spelling gets a "did you mean" naming the option that maps it."""


def column_guess(row: Mapping[str, Any], role: str, column: str, mapping_hint: str | None) -> str:
    """``"; did you mean problem_key='question'?"`` when the row has a column that plausibly holds
    ``role`` (a synonym of ``column`` or ``role``, or a near spelling), else ``""``."""
    import difflib
    import re

    present = [str(k) for k in row]
    wanted = {column.lower(), role.lower()}
    candidates = [
        k
        for group in _SAME_ROLE
        if wanted & set(group)
        for name in group
        for k in present
        if k.lower() == name and k != column
    ]
    candidates += difflib.get_close_matches(column, present, n=1, cutoff=0.75)
    if not candidates:
        return ""
    options = re.findall(r"(\w+)=", mapping_hint or "")
    option = next((o for o in options if o.removesuffix("_key") in wanted), f"{column}_key")
    return f"; did you mean {option}={candidates[0]!r}?" + (f" (options: {mapping_hint})" if mapping_hint else "")


def read_file(path: str | Path) -> list[Record]:
    """Rows from a JSONL, JSON (a list of objects), Parquet or CSV file."""
    return [row for _, row in read_file_numbered(path)]


def read_file_numbered(path: str | Path) -> list[tuple[int, Record]]:
    """``read_file`` with, for each row, the number a person finds it under: the line of a JSONL
    file (blank lines counted, so an error message points at the right line), the line of a CSV
    row (the header is line 1), the 1-based position in a JSON list or a Parquet file."""
    path = Path(path).expanduser()
    if not path.exists():
        raise DataUnavailableError(f"no such data file: {path}")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        rows: list[tuple[int, Record]] = []
        with path.open(encoding="utf-8") as fh:
            for line_number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    rows.append((line_number, json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise DataUnavailableError(f"{path} line {line_number} is not valid JSON: {exc.msg}") from exc
        return rows
    if suffix == ".json":
        loaded = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(loaded, dict):
            loaded = next((v for v in loaded.values() if isinstance(v, list)), None)
        if not isinstance(loaded, list):
            raise DataUnavailableError(f"{path} must hold a list of objects")
        return list(enumerate(loaded, start=1))
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise DataUnavailableError(f"reading {path} needs pyarrow (pip install pyarrow)") from exc
        return list(enumerate(pq.read_table(path).to_pylist(), start=1))
    if suffix == ".csv":
        import csv

        with path.open(encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            out: list[tuple[int, Record]] = []
            start = 2  # the header is line 1; a row ends on reader.line_num (quoted newlines span lines)
            for row in reader:
                out.append((start, dict(row)))
                start = reader.line_num + 1
            return out
    raise DataUnavailableError(f"{path}: unsupported file type {suffix!r} (use .jsonl, .json, .parquet or .csv)")


def records_from(data: Any, split: str | None = None, limit: int | None = None) -> list[Record]:
    """Rows from a path, a list of dicts, or a ``datasets.Dataset``/``DatasetDict``; at most ``limit``."""
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise DataError(f"limit= must be a non-negative integer, got {limit!r}")
    rows = _records(data, split)
    return rows if limit is None else rows[:limit]


def numbered_records(data: Any, split: str | None = None, limit: int | None = None) -> list[tuple[int, Record]]:
    """``records_from`` with the number to quote for each row in an error (see ``read_file_numbered``);
    rows of a list or a ``datasets`` object are numbered from 1 in order. Use it with
    ``require_fields(row, ..., row_number=number)``."""
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise DataError(f"limit= must be a non-negative integer, got {limit!r}")
    if isinstance(data, (str, Path)):
        rows = read_file_numbered(data)
    else:
        rows = list(enumerate(_records(data, split), start=1))
    return rows if limit is None else rows[:limit]


def source_name(data: Any) -> str:
    """How an error message names a data source: the path, or the kind of object."""
    if isinstance(data, (str, Path)):
        return str(data)
    if hasattr(data, "column_names"):
        return "the datasets object"
    return "the data rows"


def _records(data: Any, split: str | None) -> list[Record]:
    if isinstance(data, (str, Path)):
        return read_file(data)
    if hasattr(data, "column_names") and hasattr(data, "keys") and callable(data.keys):
        splits = list(data.keys())  # a DatasetDict: pick the split
        chosen = split if split is not None else (splits[0] if len(splits) == 1 else None)
        if chosen is None or chosen not in splits:
            raise DataUnavailableError(f"the DatasetDict has splits {splits}; pass split= to choose one")
        return [dict(row) for row in data[chosen]]
    if hasattr(data, "column_names") and isinstance(data, Iterable):
        return [dict(row) for row in data]
    if isinstance(data, Iterable) and not isinstance(data, (bytes, str, Mapping)):
        rows = list(data)
        bad = next((type(r).__name__ for r in rows if not isinstance(r, Mapping)), None)
        if bad is not None:
            raise DataUnavailableError(f"data rows must be dicts, got {bad}")
        return [dict(r) for r in rows]
    raise DataUnavailableError(
        "data must be a path (.jsonl/.json/.parquet/.csv), a list of dicts or a datasets.Dataset, "
        f"got {type(data).__name__}"
    )


_HUB_HOST = ("huggingface.co", 443)
_reachable_cache: dict[tuple[str, int], bool] = {}


def hub_offline_reason(timeout_s: float = 0.8) -> str | None:
    """Why the Hugging Face Hub cannot be used now, or None when it looks reachable.

    Checks the offline variables, a local mirror (``HF_ENDPOINT``) and one TCP connection made in a
    daemon thread, so neither DNS nor a black-holed route can hold the caller past ``timeout_s``.
    The answer is cached per process.
    """
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in ("1", "true", "yes", "on"):
            return f"{var} is set"
    endpoint = os.environ.get("HF_ENDPOINT")
    host = _HUB_HOST
    if endpoint:
        from urllib.parse import urlsplit

        parts = urlsplit(endpoint)
        host = (parts.hostname or _HUB_HOST[0], parts.port or (443 if parts.scheme == "https" else 80))
    if host in _reachable_cache:
        return None if _reachable_cache[host] else f"{host[0]} cannot be reached"
    result: list[bool] = []

    def probe() -> None:
        try:
            with socket.create_connection(host, timeout=timeout_s):
                result.append(True)
        except OSError:
            result.append(False)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(timeout_s + 0.1)
    reachable = bool(result and result[0])
    _reachable_cache[host] = reachable
    return None if reachable else f"{host[0]} cannot be reached"


def load_hub(
    dataset_id: str,
    config: str | None = None,
    *,
    split: str,
    env_name: str,
    data_files: Any = None,
    option_hint: str | None = None,
) -> list[Record]:
    """Rows of a Hub dataset; offline this raises ``DataUnavailableError`` at once, naming the option.

    ``option_hint`` is how a user passes a local copy instead (default: ``data='/path/to/file.jsonl'``).
    """
    hint = option_hint or f"make({env_name!r}, data='/path/to/file.jsonl') (JSONL, JSON, Parquet or CSV)"
    offline = hub_offline_reason() if data_files is None else None
    if offline is not None:
        raise DataUnavailableError(
            f"{env_name}: cannot load {dataset_id} from the Hugging Face Hub ({offline}); pass a local copy: {hint}"
        )
    try:
        import datasets
    except ImportError as exc:
        raise DataUnavailableError(
            f"{env_name}: loading {dataset_id} from the Hugging Face Hub needs `datasets` "
            f"(pip install datasets); or pass a local copy: {hint}"
        ) from exc
    try:
        loaded = datasets.load_dataset(dataset_id, config, split=split, data_files=data_files)
    except Exception as exc:  # offline, missing, gated: datasets raises many types
        raise DataUnavailableError(
            f"{env_name}: could not load {dataset_id} from the Hugging Face Hub "
            f"({type(exc).__name__}: {str(exc)[:200]}); pass a local copy: {hint}"
        ) from exc
    return [dict(row) for row in loaded]
