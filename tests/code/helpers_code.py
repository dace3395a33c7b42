"""Shared bits of the code family's tests: tasks, a verifier, and a leftover-process probe."""

from __future__ import annotations

import os
from functools import cache

from rlvr_envs.types import Task
from tests.helpers.data import read_jsonl

SAMPLE_UID_BASE = 1_900_000_000


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


@cache
def humaneval_rows() -> tuple[dict, ...]:
    return tuple(read_jsonl("humaneval.jsonl"))


@cache
def mbpp_rows() -> tuple[dict, ...]:
    return tuple(read_jsonl("mbpp.jsonl"))


def humaneval_task(index: int = 0) -> Task:
    from rlvr_code.envs import humaneval_task as build

    return build(humaneval_rows()[index])


def asserts_task(tests: list[str], setup: str = "", names: tuple[str, ...] = ()) -> Task:
    return Task(id="hostile", prompt="hostile",
                answer={"format": "asserts", "tests": tests, "setup": setup, "solution_names": list(names)})


def sample_processes() -> list[tuple[int, int, str]]:
    """Host processes running under a sample uid (there must be none between samples)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="utf-8") as fh:
                status = fh.read()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ")[:120].decode("utf-8", "replace")
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("Uid:"):
                uid = int(line.split()[1])
                if uid >= SAMPLE_UID_BASE:
                    found.append((int(entry), uid, cmdline))
    return found
