"""Where the shared peer test suites live: ``../shared/data`` beside the repository."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = (REPO_ROOT.parent / "shared" / "data").resolve()


def shared_path(name: str) -> Path:
    path = SHARED_DATA / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: the tests expect ../shared/data beside the repository")
    return path


def read_jsonl(name: str) -> list[dict[str, Any]]:
    with shared_path(name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
