"""Starting sandbox workers from one long-lived thread (``--die-with-parent`` is per thread)."""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from concurrent.futures import Future
from typing import Any


class Spawner:
    """Starts workers from one long-lived thread.

    ``--die-with-parent`` ties a worker to the *thread* that started it (PR_SET_PDEATHSIG), so
    starting them from a short-lived caller thread would kill them when that thread ends.
    """

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue[tuple[list[str], dict[str, Any], Future[subprocess.Popen[bytes]]]] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def spawn(self, argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        with self._lock:
            if self._thread is None or not self._thread.is_alive() or self._pid != os.getpid():
                self._requests = queue.SimpleQueue()
                self._thread = threading.Thread(target=self._serve, name="rlvr-code-spawner", daemon=True)
                self._thread.start()
                self._pid = os.getpid()
        future: Future[subprocess.Popen[bytes]] = Future()
        self._requests.put((argv, kwargs, future))
        return future.result()

    def _serve(self) -> None:
        requests = self._requests
        while True:
            argv, kwargs, future = requests.get()
            try:
                future.set_result(subprocess.Popen(argv, **kwargs))
            except BaseException as exc:
                future.set_exception(exc)


spawner = Spawner()
