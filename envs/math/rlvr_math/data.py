"""What the math family needs from data beyond the core loader (``rlvr_envs.data``).

Files, lists of dicts, ``datasets`` objects and Hub downloads are the core's (``read_file``,
``records_from``, ``load_hub``: offline, a Hub load fails in under a second naming the option).
This module adds only the presets' part: several sources tagged by name (AIME is two Hub
datasets) and ``data_files=``; each row keeps its number within its source (a file's line) for error
messages.

``DataUnavailableError`` is the core class, importable from here as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rlvr_envs.data import (
    FILE_SUFFIXES,
    Record,
    load_hub,
    numbered_records,
    read_file,
    read_file_numbered,
    records_from,
    require_fields,
)
from rlvr_envs.errors import DataError, DataUnavailableError

__all__ = [
    "DataError",
    "DataUnavailableError",
    "Record",
    "SourcedRow",
    "load_preset",
    "read_file",
    "records_from",
    "require_fields",
]

SourcedRow = tuple[str, int, Record]
"""A row, the source it came from (a file or a Hub dataset id) and its 1-based row number there."""


def _numbered(source: str, rows: list[Record]) -> list[SourcedRow]:
    return [(source, number, row) for number, row in enumerate(rows, start=1)]


def _source_name(data: Any) -> str:
    if isinstance(data, (str, Path)):
        return str(data)
    return "data" if isinstance(data, (list, tuple)) else type(data).__name__


def load_preset(
    env_name: str,
    *,
    data: Any,
    data_files: Any,
    hub: list[tuple[str, str | None, str]],
    split: str | None = None,
) -> list[SourcedRow]:
    """Rows of a preset, each with its source and row number.

    ``data`` (a local file, a list of dicts or a ``datasets`` object) wins, then ``data_files``
    (local files read directly, anything else through ``datasets``), then each Hub source
    ``(dataset id, config, split)``. Offline without ``data`` this raises
    ``DataUnavailableError`` naming the option, within a second.
    """
    hint = (
        f"make({env_name!r}, data='/path/to/file.jsonl') (JSONL, JSON, Parquet or CSV; path= and data_files= work too)"
    )
    if data is not None:
        # The number of each row is the one a person finds it under (a JSONL or CSV file's line).
        return [(_source_name(data), number, row) for number, row in numbered_records(data, split)]
    if data_files is not None:
        files = data_files if isinstance(data_files, (list, tuple)) else [data_files]
        if all(Path(str(f)).suffix.lower() in FILE_SUFFIXES for f in files):
            return [(str(f), number, row) for f in files for number, row in read_file_numbered(f)]
        rows = load_hub("json", None, split="train", env_name=env_name, data_files=data_files, option_hint=hint)
        return _numbered("data_files", rows)
    out: list[SourcedRow] = []
    for dataset_id, config, hub_split in hub:
        rows = load_hub(dataset_id, config, split=hub_split, env_name=env_name, option_hint=hint)
        out.extend(_numbered(dataset_id, rows))
    return out
