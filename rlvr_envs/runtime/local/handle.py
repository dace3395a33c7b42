"""The pool's handle on one worker process (``worker``): spawned, or forked by the ``zygote``.

The pool (``pool``) schedules calls; this is how it talks to one worker: send a message, wait
for a reply with a deadline, tell a death from a timeout, kill the worker's process group.
"""

from __future__ import annotations

import math
import os
import pickle
import select
import signal
import subprocess
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from rlvr_envs.errors import RlvrEnvsError
from rlvr_envs.runtime.local.wire import dumps
from rlvr_envs.runtime.local.worker import Progress
from rlvr_envs.runtime.local.zygote import Zygote

__all__ = ["WorkerDied", "WorkerHandle"]

_MAX_POLL_MS = 2**31 - 1
"""The longest wait ``poll`` takes (a C int of milliseconds, about 24 days)."""


class WorkerDied(RlvrEnvsError):
    pass


class WorkerHandle:
    """One verification subprocess in its own process group: spawned, or forked by a zygote."""

    def __init__(
        self, pid: int, to: Connection, from_: Connection, progress: Progress, wait: Callable[[float], int | None]
    ) -> None:
        self.pid = pid
        self._to = to
        self._from = from_
        self.progress = progress
        self._wait = wait
        self.loaded: set[str] = set()
        self.forked = False
        self.returncode: int | None = None
        self.next_seq = 0
        """Sequence number of the next item sent: the progress page names items by it."""
        self.mean_s: float | None = None
        """Recent mean time of one call in this worker: decides when to send it more."""
        # One poll object for the worker's life: ``Connection.poll`` builds (and tears down) a
        # selector on every call, and the pool waits on a worker once per chunk of verdicts.
        self._poller = select.poll()
        self._poller.register(from_.fileno(), select.POLLIN)

    @classmethod
    def spawn(cls, memory_mb: int) -> WorkerHandle:
        env = dict(os.environ)
        # The worker must import what the caller can (plugins installed editable, test modules).
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        progress = Progress.create()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "rlvr_envs.runtime.local.worker",
                str(memory_mb),
                str(progress.fd),
                str(os.getpid()),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            pass_fds=(progress.fd,),
            start_new_session=True,
            env=env,
        )
        assert proc.stdin is not None and proc.stdout is not None
        to = Connection(os.dup(proc.stdin.fileno()), readable=False)
        from_ = Connection(os.dup(proc.stdout.fileno()), writable=False)
        proc.stdin.close()
        proc.stdout.close()

        def wait(timeout_s: float) -> int | None:
            try:
                return proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                return None

        return cls(proc.pid, to, from_, progress, wait)

    @classmethod
    def fork(cls, zygote: Zygote) -> WorkerHandle:
        with zygote.lock:
            pid, sock, progress_fd = zygote.fork()
        conn = Connection(sock.detach())

        def wait(timeout_s: float) -> int | None:
            # The zygote may be busy loading a verifier for another slot (seconds): a killed
            # worker's reaping then waits for its next fork instead of holding up this slot.
            if not zygote.lock.acquire(timeout=timeout_s):
                zygote.unreaped.add(pid)
                return None
            try:
                code = zygote.reap(pid, timeout_s)
            finally:
                zygote.lock.release()
            if code is None:
                zygote.unreaped.add(pid)
            return code

        worker = cls(pid, conn, conn, Progress(progress_fd), wait)
        worker.loaded = set(zygote.loaded)
        worker.forked = True
        return worker

    @property
    def reply_fd(self) -> int:
        """The descriptor replies arrive on (an event loop watches it: ``lanes``)."""
        return self._from.fileno()

    def reply_waiting(self) -> bool:
        """Whether bytes of a reply (or the channel's end) are there to read now."""
        try:
            return bool(self._poller.poll(0))
        except (OSError, ValueError):
            return True  # a read will tell what happened

    def send(self, message: tuple[Any, ...]) -> None:
        self.send_bytes(dumps(message))

    def send_bytes(self, data: bytes) -> int:
        """Send a pickled message; returns its size."""
        try:
            self._to.send_bytes(data)
        except OSError as exc:
            raise WorkerDied(self._death_note()) from exc
        return len(data)

    def receive(self, timeout_s: float) -> Any:
        """The next reply; raises TimeoutError when none comes in time, WorkerDied on EOF."""
        try:
            # Rounded up: a wait that ended early would read as a budget overrun.
            ready = self._poller.poll(min(math.ceil(max(0.0, timeout_s) * 1000), _MAX_POLL_MS))
        except (EOFError, OSError, ValueError) as exc:
            raise WorkerDied(self._death_note()) from exc
        if not ready:
            raise TimeoutError(f"no reply within {timeout_s:g} s")
        try:
            data = self._from.recv_bytes()
        except (EOFError, OSError) as exc:
            raise WorkerDied(self._death_note()) from exc
        try:
            return pickle.loads(data)
        except Exception as exc:  # a reply this process cannot read: the worker is of no use
            # Stopped, but its channels and progress page left open: the caller still reads the
            # page to tell which call was running, then closes it all (``kill``).
            self._stop()
            raise WorkerDied(f"unreadable reply from the worker: {type(exc).__name__}: {exc}"[:500]) from exc

    def request(self, message: tuple[Any, ...], timeout_s: float) -> Any:
        """Send and wait for the reply; raises TimeoutError or WorkerDied."""
        self.send(message)
        return self.receive(timeout_s)

    def _reap(self, timeout_s: float) -> int | None:
        if self.returncode is None:
            self.returncode = self._wait(timeout_s)
        return self.returncode

    def _death_note(self) -> str:
        code = self._reap(0.5)
        if code is None:
            return "worker stopped answering"
        if code < 0:
            try:
                return f"worker killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"worker killed by signal {-code}"
        return f"worker exited with code {code}"

    def _stop(self) -> None:
        if self.returncode is None:  # once reaped, its group id may belong to someone else
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self._reap(5.0)  # the group id stays taken (a zombie) until it is reaped

    def kill(self) -> None:
        self._stop()
        self._to.close()
        self._from.close()
        self.progress.close()

    def close(self, grace_s: float = 1.0) -> None:
        self._to.close()  # EOF tells the worker to exit
        self._reap(grace_s)
        self.kill()
