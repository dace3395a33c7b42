"""Reading problem records from the places users keep them: files, lists, datasets, the Hub.

``datasets`` is imported only when a ``datasets.Dataset`` is handed in or the Hub is used.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

Record = dict[str, Any]


class DataUnavailableError(RuntimeError):
    """The data of an environment could not be loaded (offline, missing file, bad format)."""


def read_file(path: str | Path) -> list[Record]:
    """Records from a JSONL, JSON (a list of objects), Parquet or CSV file."""
    path = Path(path).expanduser()
    if not path.exists():
        raise DataUnavailableError(f"no such data file: {path}")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        with path.open(encoding="utf-8") as fh:
            try:
                return [json.loads(line) for line in fh if line.strip()]
            except json.JSONDecodeError as exc:
                raise DataUnavailableError(f"{path} is not valid JSONL: {exc}") from exc
    if suffix == ".json":
        loaded = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(loaded, dict):
            loaded = next((v for v in loaded.values() if isinstance(v, list)), None)
        if not isinstance(loaded, list):
            raise DataUnavailableError(f"{path} must hold a list of objects")
        return loaded
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise DataUnavailableError(f"reading {path} needs pyarrow (pip install pyarrow)") from exc
        return pq.read_table(path).to_pylist()  # type: ignore[no-any-return]
    if suffix == ".csv":
        import csv

        with path.open(encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh))
    raise DataUnavailableError(f"{path}: unsupported file type {suffix!r} (use .jsonl, .json, .parquet or .csv)")


def records_from(data: Any, split: str | None = None) -> list[Record]:
    """Records from a path, a list of dicts, or a ``datasets.Dataset``/``DatasetDict``."""
    if isinstance(data, (str, Path)):
        return read_file(data)
    if hasattr(data, "column_names") and hasattr(data, "keys") and callable(data.keys):
        # A DatasetDict: pick the split.
        splits = list(data.keys())
        chosen = split if split is not None else (splits[0] if len(splits) == 1 else None)
        if chosen is None or chosen not in splits:
            raise DataUnavailableError(f"the DatasetDict has splits {splits}; pass split= to choose one")
        return [dict(row) for row in data[chosen]]
    if hasattr(data, "column_names") and isinstance(data, Iterable):
        return [dict(row) for row in data]
    if isinstance(data, Iterable) and not isinstance(data, (bytes, Mapping)):
        rows = list(data)
        bad = next((type(r).__name__ for r in rows if not isinstance(r, Mapping)), None)
        if bad is not None:
            raise DataUnavailableError(f"data rows must be dicts, got {bad}")
        return [dict(r) for r in rows]
    raise DataUnavailableError(
        f"data must be a path (.jsonl/.json/.parquet/.csv), a list of dicts or a datasets.Dataset, "
        f"got {type(data).__name__}"
    )


def load_preset(
    env_name: str,
    *,
    path: str | Path | None,
    data_files: Any,
    hub: list[tuple[str, str | None, str]],
) -> list[tuple[str, Record]]:
    """Records of a preset, each tagged with the source it came from.

    ``path`` (a local file) wins, then ``data_files`` (read through ``datasets``), then each
    Hub source ``(dataset id, config, split)``. Offline without a path this raises
    ``DataUnavailableError`` naming the ``path=`` option.
    """
    if path is not None:
        return [(str(path), r) for r in read_file(path)]
    if data_files is not None:
        files = data_files if isinstance(data_files, (list, tuple)) else [data_files]
        if all(Path(str(f)).suffix.lower() in (".jsonl", ".json", ".parquet", ".csv") for f in files):
            return [(str(f), r) for f in files for r in read_file(f)]
        return [("data_files", r) for r in _hub_records("json", None, "train", data_files, env_name)]
    out: list[tuple[str, Record]] = []
    for dataset_id, config, split in hub:
        out.extend((dataset_id, r) for r in _hub_records(dataset_id, config, split, None, env_name))
    return out


def _hub_records(dataset_id: str, config: str | None, split: str, data_files: Any, env_name: str) -> list[Record]:
    hint = (
        f"; on an offline machine pass a local copy: make({env_name!r}, path='/path/to/file.jsonl') "
        f"(JSONL, JSON, Parquet or CSV), or data_files=..."
    )
    try:
        import datasets
    except ImportError as exc:
        raise DataUnavailableError(f"loading {dataset_id} from the Hugging Face Hub needs `datasets`{hint}") from exc
    try:
        loaded = datasets.load_dataset(dataset_id, config, split=split, data_files=data_files)
    except Exception as exc:  # offline, missing, gated: datasets raises many types
        raise DataUnavailableError(
            f"could not load {dataset_id} from the Hugging Face Hub ({type(exc).__name__}: {str(exc)[:200]}){hint}"
        ) from exc
    return [dict(row) for row in loaded]
