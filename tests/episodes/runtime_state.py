"""A tool state for the runtime-session tool tests: importable by the pool's worker processes."""

from __future__ import annotations

import os
import signal
import time
from typing import Any


class Scratch:
    """Variables kept across one episode's calls, in the session's own process."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def handle(self, arguments: dict[str, Any]) -> Any:
        op, key, value = arguments.get("op"), arguments.get("key", ""), arguments.get("value", "")
        if op == "set":
            self.values[key] = value
            return f"{key}={value}"
        if op == "get":
            if key not in self.values:
                raise KeyError(f"{key} is not set")
            return self.values[key]
        if op == "pid":
            return os.getpid()
        if op == "hang":
            while True:
                time.sleep(0.01)
        if op == "die":
            os.kill(os.getpid(), signal.SIGKILL)
        raise ValueError(f"unknown op {op!r}")
