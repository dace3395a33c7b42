"""A tool with state for the session tests (local pool and Ray): importable by worker processes."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Any


class Counter:
    """A tool with state: what one episode's calls build up."""

    def __init__(self) -> None:
        self.count = 0
        self.children: list[subprocess.Popen] = []

    def handle(self, request: Any) -> Any:
        if request == "inc":
            self.count += 1
            return (self.count, os.getpid())
        if request == "raise":
            raise ValueError("the tool's own error")
        if request == "hang":
            while True:
                time.sleep(0.01)
        if request == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        if request == "unpicklable":
            return lambda: None
        if request == "child":
            self.children.append(subprocess.Popen(["sleep", "60"]))
            return self.children[-1].pid
        return request  # echo
