"""The language engine's fixed tables, built once per machine and cached on disk (issue 27).

``langdetect_exact`` needs langdetect's profiles as a matrix, a hash table over their n-grams,
direct tables for ASCII n-grams and langdetect's character normalisation for the Basic
Multilingual Plane. Building them means loading langdetect's 55 JSON profiles and calling its
``normalize`` 65,536 times: 2-3 s, which every new process (every verl reward worker) paid on
its first language check. None of it depends on anything but the installed langdetect, so it
is built once and saved as one ``.npz`` file; a new process reads it in tens of milliseconds.

The file lives in ``$RLVR_IFEVAL_CACHE_DIR``, else ``$XDG_CACHE_HOME/rlvr-envs/ifeval``, else
``~/.cache/rlvr-envs/ifeval``; its name carries what the tables depend on (this format's
version, langdetect's and numpy's versions, the profiles' names and sizes), so an upgrade
builds a new one. Written to a temporary name and renamed, so concurrent workers never read a
partial file; an unreadable or unwritable cache costs time, never a verdict (the tables are
then built in memory, as before). ``python -m rlvr_ifeval.langdetect_exact`` builds it ahead
of time (``scripts/setup.sh`` does).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

FORMAT_VERSION = 1
NAMES = (
    "langs",
    "profiles",
    "gram_keys",
    "table_keys",
    "table_rows",
    "ascii_rows_1",
    "ascii_rows_2",
    "ascii_rows_3",
    "bmp_normal",
    "bmp_upper",
)
"""The arrays a cache file holds (``langdetect_exact._Engine`` builds them)."""


def cache_dir() -> Path:
    chosen = os.environ.get("RLVR_IFEVAL_CACHE_DIR")
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rlvr-envs" / "ifeval"


def _fingerprint() -> str:
    import numpy as np

    try:
        version = metadata.version("langdetect")
    except metadata.PackageNotFoundError:
        version = "unknown"
    parts = [str(FORMAT_VERSION), version, np.__version__]
    try:
        import langdetect

        profiles = Path(langdetect.__file__).parent / "profiles"
        parts += [f"{p.name}:{p.stat().st_size}" for p in sorted(profiles.iterdir())]
    except (ImportError, OSError):
        parts.append("no-profiles")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def cache_path() -> Path:
    return cache_dir() / f"langdetect-tables-{_fingerprint()}.npz"


def _read(path: Path) -> dict[str, Any] | None:
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            tables = {name: data[name] for name in NAMES}
    except (OSError, KeyError, ValueError, EOFError):
        return None
    for array in tables.values():
        array.setflags(write=False)
    return tables


def _write(path: Path, tables: dict[str, Any]) -> None:
    import numpy as np

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tables-", suffix=".npz", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, **{name: tables[name] for name in NAMES})
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass  # a read-only home or a full disk: the next process builds the tables again


def load_or_build(build: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], bool]:
    """The tables from the cache file, else from ``build()`` (then saved); and whether they came
    from the cache."""
    path = cache_path()
    tables = _read(path) if path.is_file() else None
    if tables is not None:
        return tables, True
    tables = build()
    _write(path, tables)
    return tables, False
