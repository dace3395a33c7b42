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


def math_answers(math500_every: int) -> list[str]:
    """Distinct one-line answers (no boxes) of the labelled math peer cases, plus every
    ``math500_every``-th MATH-500 answer: what the math parser tests convert."""
    seen: dict[str, None] = {}
    for row in read_jsonl("math_verify_cases.jsonl") + read_jsonl("math_equiv_other_cases.jsonl"):
        for value in (row["gold"], row["pred"]):
            text = value.strip().strip("$").strip()
            if 0 < len(text) <= 120 and "\\boxed" not in text and "\n" not in text:
                seen[text] = None
    for row in read_jsonl("math500.jsonl")[::math500_every]:
        seen[row["answer"]] = None
    return list(seen)
