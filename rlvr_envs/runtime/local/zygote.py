"""A warmed parent that verification workers fork from.

``python -m rlvr_envs.runtime.local.zygote CTL_FD MEMORY_MB POOL_PID``, started by the pool.

Starting a worker the plain way costs an interpreter start plus the verifier's imports and
warm-up (2-4 s for math, in every worker and after every timeout or crash). The zygote does
that once: it unpickles (and so warms up) each verifier the pool sends it, then forks a worker
per request. A fork serves in milliseconds, and the workers share the zygote's warmed pages
copy-on-write.

The zygote does nothing but load and fork, on one thread: forking a process that runs other
threads (numba, torch or OpenMP pools) can leave the child holding locks no thread will release.
If loading a verifier starts a thread, the zygote says so and the pool stops using this zygote
for that verifier (it is loaded in each worker instead, as on the plain path). If loading
kills the zygote, the pool starts a new one without that verifier. Each worker calls
``setsid``: its own process group, which the pool kills as a whole.

Protocol over a Unix socket, framed pickles, one request at a time (the parent holds a lock):
``("load", key, blob)`` -> ``("loaded", key, error_or_None, threaded)``; ``("fork",)`` ->
``("forked", pid)`` followed by the worker's socket and progress page as passed descriptors;
``("reap", pid, wait_s)`` -> ``("reaped", pid, returncode_or_None, not_a_child)``; ``("exit",)``: the
pool lets the zygote go (the channel's end without it means the pool died: the workers die too).
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from rlvr_envs.errors import RlvrEnvsError
from rlvr_envs.runtime.local.worker import Progress, die_with_parent, limit_memory, serve

ZYGOTE_SUPPORTED = sys.platform.startswith("linux") and hasattr(os, "fork") and hasattr(socket, "send_fds")


_THREAD_POOL_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
"""Importing numpy starts an OpenBLAS thread pool (torch, numba: OpenMP ones). A verification
worker runs one call at a time, and a zygote must stay single-threaded to fork safely: one
thread each. A caller who sets one of these keeps its value (and the zygote then reports the
threads, so that verifier is loaded per worker instead)."""


class ZygoteDied(RlvrEnvsError):
    pass


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _returncode(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _child(ctl: socket.socket, mine: socket.socket, progress_fd: int, memory_mb: int, verifiers: dict) -> None:
    code = 1
    try:
        os.setsid()
        ctl.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the zygote's handler is not this process's
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        import random

        random.seed()  # forked workers must not share one random stream
        limit_memory(memory_mb)
        conn = Connection(mine.detach())
        serve(conn, conn, Progress(progress_fd), verifiers)
        code = 0
    finally:
        os._exit(code)


def _kill_workers(children: set[int]) -> None:
    # Each is a child not yet reaped, so its pid (and group id: it called ``setsid``) is still its own.
    for pid in list(children):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


def _die_with_the_pool(pool_pid: int, children: set[int]) -> None:
    """Take every worker down with this zygote when the pool's process ends, however it ends.

    Two signs of that: the end of the channel without the pool's ``("exit",)`` (``main``), and
    SIGTERM, which the kernel sends when the pool thread that started the zygote ends
    (``die_with_parent``). That thread may end while the pool runs on (another of its threads
    inherits the zygote): then nothing happens. Workers carry no death signal of their own: they
    must outlive a zygote the pool replaces (it kills it with SIGKILL) or one a verifier crashed.
    """

    def on_signal(signum: int, frame: object) -> None:
        if os.getppid() != pool_pid:
            _kill_workers(children)
            os._exit(1)

    signal.signal(signal.SIGTERM, on_signal)
    if not die_with_parent(pool_pid, signal.SIGTERM):
        os._exit(1)  # the pool ended before the signal was armed


def main() -> None:
    ctl = socket.socket(fileno=int(sys.argv[1]))
    memory_mb = int(sys.argv[2])
    children: set[int] = set()
    """Forked workers not reaped yet."""
    if len(sys.argv) > 3:
        _die_with_the_pool(int(sys.argv[3]), children)
    conn = Connection(os.dup(ctl.fileno()))
    os.dup2(2, 1)  # anything a verifier prints while loading goes to stderr
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    limit_memory(memory_mb)
    verifiers: dict[str, Any] = {}
    baseline = _threads()
    exited: dict[int, int] = {}
    while True:
        try:
            message = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            # Not told to exit: the pool's process ended (the socket closes with its last thread).
            _kill_workers(children)
            return
        kind = message[0]
        if kind == "exit":  # the pool lets this zygote go; the workers it forked serve on
            return
        if kind == "load":
            _, key, blob = message
            try:
                verifiers[key] = pickle.loads(blob)
                error = None
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
            reply: tuple[Any, ...] = ("loaded", key, error, _threads() > baseline)
        elif kind == "fork":
            mine, theirs = socket.socketpair()
            progress = Progress.create()
            # Warmed objects out of the collector's reach: a worker's collections neither walk
            # them nor write to their pages, which then stay shared with the zygote.
            gc.freeze()
            # SIGTERM held off until the new worker is on the list of those to kill with the pool.
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            try:
                pid = os.fork()
                if pid == 0:
                    conn.close()
                    theirs.close()
                    _child(ctl, mine, progress.fd, memory_mb, verifiers)
                children.add(pid)
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
            mine.close()
            conn.send_bytes(pickle.dumps(("forked", pid)))
            socket.send_fds(ctl, [b"F"], [theirs.fileno(), progress.fd])
            theirs.close()
            progress.close()
            continue
        elif kind == "reap":
            _, pid, wait_s = message
            deadline = time.monotonic() + wait_s
            code = exited.pop(pid, None)
            gone = False
            while code is None:
                try:
                    done, status = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:  # not (or no longer) a child of this zygote
                    gone = True
                    children.discard(pid)
                    break
                if done:
                    code = _returncode(status)
                    children.discard(pid)  # reaped: its pid may be anyone's from now on
                elif time.monotonic() >= deadline:
                    break
                else:
                    time.sleep(0.002)
            reply = ("reaped", pid, code, gone)
        else:
            reply = ("error", f"unknown message {kind!r}")
        conn.send_bytes(pickle.dumps(reply))


class Zygote:
    """The pool's handle on its zygote process (thread-safe: one request at a time)."""

    def __init__(self, memory_mb: int, startup_timeout_s: float) -> None:
        self.memory_mb = memory_mb
        self.startup_timeout_s = startup_timeout_s
        self.loaded: set[str] = set()
        self.lock = threading.Lock()
        self.unreaped: set[int] = set()
        """Killed workers whose reaping was put off (see ``handle``)."""
        ours, theirs = socket.socketpair()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        for name in _THREAD_POOL_VARS:  # no idle BLAS/OpenMP threads in the zygote (unless asked for)
            env.setdefault(name, "1")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "rlvr_envs.runtime.local.zygote",
                str(theirs.fileno()),
                str(memory_mb),
                str(os.getpid()),
            ],
            stdin=subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),),
            start_new_session=True,
            env=env,
        )
        theirs.close()
        self._sock = ours
        self._conn = Connection(os.dup(ours.fileno()))

    def _request(self, message: tuple[Any, ...], timeout_s: float) -> Any:
        try:
            self._conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
            if not self._conn.poll(timeout_s):
                raise ZygoteDied(f"the zygote did not answer {message[0]!r} within {timeout_s:g} s")
            return pickle.loads(self._conn.recv_bytes())
        except (EOFError, OSError, pickle.UnpicklingError) as exc:
            raise ZygoteDied(f"the zygote died during {message[0]!r}: {exc!r}") from exc

    def load(self, key: str, blob: bytes) -> tuple[str | None, bool]:
        """Load a verifier; returns (unpickling error or None, whether loading started threads)."""
        _, _, error, threaded = self._request(("load", key, blob), self.startup_timeout_s)
        if error is None and not threaded:
            self.loaded.add(key)
        return error, threaded

    def fork(self) -> tuple[int, socket.socket, int]:
        """A new worker: its pid, the parent's end of its socket, and its progress page's fd."""
        for pid in list(self.unreaped):
            if self.reap(pid, 0.0) is not None:
                self.unreaped.discard(pid)
        reply = self._request(("fork",), self.startup_timeout_s)
        try:
            _, fds, _, _ = socket.recv_fds(self._sock, 1, 2)
        except OSError as exc:
            raise ZygoteDied(f"no descriptors from the zygote: {exc!r}") from exc
        if len(fds) != 2:
            raise ZygoteDied("the zygote passed no worker descriptors")
        return reply[1], socket.socket(fileno=fds[0]), fds[1]

    def reap(self, pid: int, wait_s: float) -> int | None:
        """The exit code of a worker (negative: killed by that signal), or None if still running."""
        try:
            _, _, code, gone = self._request(("reap", pid, wait_s), wait_s + 5.0)
        except ZygoteDied:
            return None
        if gone:
            self.unreaped.discard(pid)
        return code

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        try:
            self._conn.send_bytes(pickle.dumps(("exit",)))
        except OSError:
            pass  # already dead
        self._conn.close()
        self._sock.close()
        try:
            self.proc.wait(1.0)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()


if __name__ == "__main__":
    from rlvr_envs.runtime.local.zygote import main as _main  # as the importable module (see worker)

    _main()
