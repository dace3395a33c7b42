"""The ``python`` tool: a persistent Python session per episode, in a bubblewrap sandbox.

Each episode that calls ``python`` gets its own interpreter (``PythonProcess``): Debian's
``/usr/bin/python3`` (the sandbox's uid cannot read the venv's), started under bubblewrap like the
code family's sandbox (``sandbox._system_python_mounts``: no network, no host files but the
interpreter, its libraries and Debian's ``dist-packages`` for numpy and sympy, a private /tmp),
as a uid of its own with no capability, with rlimits and the per-sample memory cgroup of
``memory_bound`` (the whole process tree is born inside it). Variables live across the calls of
one episode; a new episode (a new session) never sees them.

**Where the interpreter's parent lives** (``placement``). ``"process"``: in the process running
the episode. A runtime session (``VerificationPool.open_session``) would put it under a pool
worker, which is not a sandbox itself: every call crosses two processes instead of one (a second
pipe hop on the 5 ms budget) and every idle session holds a worker (tens of MB, against the 10 MB
budget), so locally this is the default. ``"session"``: under a runtime session of the env's pool
(``python_pinned``): on Ray the interpreter sits on one actor's node for the whole episode
(session affinity), and a lost actor ends the episode with ``verifier_error``. ``"auto"`` (the
default) is ``"session"`` when the env's pool is remote (Ray), else ``"process"``.

**Budgets.** A call past ``context.call_timeout_s`` (capped by what is left of the episode's
wall time and of the tool's own ``episode_budget_s``) kills the session's whole process tree
(bubblewrap's pid namespace: its init dies, the kernel kills the rest) and returns a timeout
message saying the state is lost; the episode goes on, and the next call starts a fresh
interpreter (so does a crash: ``os._exit``, a memory kill). A model that loops forever learns
from the message; ending the episode would make it a ``verifier_error`` nobody trains on. Only a
sandbox that cannot start raises ``ToolSessionLost``. Once ``episode_budget_s`` of tool time is
spent, every call is refused with a message.

**Leftovers.** ``close()`` kills the tree and removes the cgroup; if the host process dies (kill
-9 included), bubblewrap's ``--die-with-parent`` (PR_SET_PDEATHSIG, started from the code
family's long-lived spawner thread) takes the sandbox down with it.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import select
import signal
import struct
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlvr_code.memory_bound import MemoryCgroup
from rlvr_code.memory_bound import create as create_cgroup
from rlvr_code.mounts import DIST_PACKAGES, package_mounts
from rlvr_code.sandbox import SYSTEM_PYTHON, _system_python_mounts, bwrap_path
from rlvr_code.spawner import spawner
from rlvr_code.tools.python_pinned import PinnedPythonSession, call_budget
from rlvr_envs.episodes import ToolContext, ToolError, ToolSessionLost
from rlvr_envs.errors import RlvrEnvsError

__all__ = [
    "PLACEMENTS",
    "PythonCells",
    "PythonLimits",
    "PythonProcess",
    "PythonSession",
    "PythonTool",
    "SandboxDied",
    "python_tool",
]

_HEADER = struct.Struct(">I")
_MAX_REPLY = 4 << 20
_uids = itertools.count()
PLACEMENTS = ("auto", "process", "session")
"""Where a session's interpreter runs: ``process`` beside the episode; ``session`` in a runtime
session of the env's pool (a pool worker; on Ray, one actor's); ``auto``: ``session`` when the
env's pool is remote (Ray), else ``process``."""


@dataclass(frozen=True)
class PythonLimits:
    """Bounds of one session's sandbox. ``total_memory_mb``: the whole tree (a memory cgroup where
    one can be had); ``memory_mb``: address space per process (the bound without a cgroup)."""

    memory_mb: int = 1024
    total_memory_mb: int = 1024
    processes: int = 16
    file_mb: int = 16
    open_files: int = 64
    tmpfs_mb: int = 64
    output_bytes: int = 64 << 10
    start_timeout_s: float = 20.0


class SandboxDied(RlvrEnvsError):
    """The interpreter is gone (a timeout killed it, or it exited or was killed): its state is lost."""


def _server_source() -> str:
    return (Path(__file__).parent / "_python_server.py").read_text(encoding="utf-8")


_UID_BLOCK = 64
_UID_OVERFLOW = 2048
_uid_lock = threading.Lock()
_live_uids: set[int] = set()


def _session_uid() -> int | None:
    """A uid no other live session uses (so RLIMIT_NPROC bounds this session alone, and the
    per-uid kernel state, such as the user keyring, is its own); None when not root.

    A block of 64 per process (as before) and, past 64 live sessions in one process (an episode
    server's, a trainer running a batch of episodes in lockstep), a block of 2,048 more in a range
    no sandbox uses (from 2.1e9: above the code sandbox's 1.9e9 + 64e6 and other languages' 1.95e9 +
    64e6). Before round 15 the 65th session took the 1st one's uid (a counter modulo 64): a fork
    bomb in one starved the other of processes. Released when the session's tree is dead
    (``PythonProcess.kill``)."""
    if os.getuid() != 0:
        return None
    block = os.getpid() % 1_000_000
    with _uid_lock:
        start = next(_uids)  # rotating in the block: a just-freed uid (its tree being reaped) is reused last
        firsts = (1_800_000_000 + block * _UID_BLOCK + (start + k) % _UID_BLOCK for k in range(_UID_BLOCK))
        overflow = (2_100_000_000 + block * _UID_OVERFLOW + k for k in range(_UID_OVERFLOW))
        for uid in itertools.chain(firsts, overflow):
            if uid not in _live_uids:
                _live_uids.add(uid)
                return uid
    raise ToolSessionLost(f"no free sandbox uid: {_UID_BLOCK + _UID_OVERFLOW} python sessions are open in this process")


def _release_uid(uid: int | None) -> None:
    if uid is not None:
        with _uid_lock:
            _live_uids.discard(uid)


class PythonProcess:
    """One sandboxed interpreter: ``run(code, timeout_s)`` -> (output, bytes written, failed)."""

    def __init__(self, limits: PythonLimits | None = None, *, python: str = SYSTEM_PYTHON) -> None:
        self.limits = limits or PythonLimits()
        bwrap = bwrap_path()
        if bwrap is None:
            raise ToolSessionLost("the python tool needs bubblewrap (apt-get install bubblewrap)")
        self.memory: MemoryCgroup | None = create_cgroup(self.limits.total_memory_mb)
        self.uid = _session_uid()
        argv = self._argv(bwrap, python)
        if self.memory is not None:
            # The tree is born inside the cgroup: the shell joins it, then becomes bubblewrap.
            procs = os.path.join(self.memory.path, "cgroup.procs")
            argv = ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, *argv]
        try:
            self.proc = spawner.spawn(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            self._remove_cgroup()
            _release_uid(self.uid)
            raise ToolSessionLost(f"the python sandbox could not start: {exc}") from None
        self._lock = threading.Lock()
        self.dead = False
        # A process dropped without close() (a caller's bug) still takes its tree down when collected.
        self._finalizer = weakref.finalize(self, _kill_group, self.proc.pid, self.uid)
        try:
            self._receive(time.monotonic() + self.limits.start_timeout_s)
        except SandboxDied as exc:
            self.kill()
            raise ToolSessionLost(f"the python sandbox did not start: {exc}") from None

    def _argv(self, bwrap: str, python: str) -> list[str]:
        limits = self.limits
        config = {
            "uid": self.uid,
            "memory_mb": limits.memory_mb,
            "processes": limits.processes,
            "file_mb": limits.file_mb,
            "open_files": limits.open_files,
            "output_bytes": limits.output_bytes,
            "path": [DIST_PACKAGES],
        }
        argv = [
            bwrap,
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
            *_system_python_mounts(python),
        ]
        argv += package_mounts()
        argv += [
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--size",
            str(limits.tmpfs_mb << 20),
            "--perms",
            "1777",
            "--tmpfs",
            "/tmp",
            "--chdir",
            "/tmp",
            "--clearenv",
            "--setenv",
            "PATH",
            "/usr/bin:/bin",
            "--setenv",
            "LANG",
            "C.UTF-8",
            "--setenv",
            "HOME",
            "/tmp",
            "--setenv",
            "OPENBLAS_NUM_THREADS",
            "1",
            "--setenv",
            "OMP_NUM_THREADS",
            "1",
        ]
        if os.getuid() == 0:
            # Real root: the server sets its limits, then switches to the session's uid (which
            # clears these two capabilities, the only ones it is given).
            argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            argv += ["--unshare-user"]
        return [*argv, python, "-I", "-S", "-c", _server_source(), json.dumps(config)]

    # -- the wire ------------------------------------------------------------------------------------
    def _read_exact(self, n: int, deadline: float) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        chunks: list[bytes] = []
        while n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, min(n, 1 << 20))
            if not chunk:
                raise SandboxDied(self._death())
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def _receive(self, deadline: float) -> dict[str, Any]:
        try:
            size = _HEADER.unpack(self._read_exact(_HEADER.size, deadline))[0]
            if size > _MAX_REPLY:
                raise SandboxDied("it sent a malformed reply")
            reply = json.loads(self._read_exact(size, deadline))
        except TimeoutError:
            raise SandboxDied("timeout") from None
        except (ValueError, UnicodeDecodeError):
            raise SandboxDied("it sent a malformed reply") from None
        if not isinstance(reply, dict):
            raise SandboxDied("it sent a malformed reply")
        return reply

    def _death(self) -> str:
        try:
            code = self.proc.wait(2)
        except subprocess.TimeoutExpired:
            return "it stopped answering"
        if self._oom_killed():
            return "it was killed for exceeding the memory limit"
        return f"it exited (status {code})"

    def _oom_killed(self) -> bool:
        if self.memory is None:
            return False
        name = "memory.oom_control" if self.memory.version == 1 else "memory.events"
        try:
            text = Path(self.memory.path, name).read_text(encoding="ascii")
        except OSError:
            return False
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip() not in ("", "0"):
                return True
        return False

    def run(self, code: str, timeout_s: float) -> tuple[str, int, bool]:
        """Run one cell. Raises ``SandboxDied`` (the process is killed first) on timeout or death."""
        with self._lock:
            if self.dead:
                raise SandboxDied("the session is closed")
            body = json.dumps({"code": code}).encode("utf-8", "surrogatepass")
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write(_HEADER.pack(len(body)) + body)
                self.proc.stdin.flush()
                reply = self._receive(time.monotonic() + max(0.0, timeout_s))
            except OSError as exc:  # a broken pipe: it died between calls (read why before the kill)
                why = self._death() if isinstance(exc, BrokenPipeError) else str(exc)
                self.kill()
                raise SandboxDied(why) from None
            except SandboxDied:
                self.kill()
                raise
            return str(reply.get("output", "")), int(reply.get("bytes", 0)), bool(reply.get("error"))

    def kill(self) -> None:
        """Kill the whole tree (the pid namespace goes with bubblewrap's init) and remove the cgroup."""
        self.dead = True
        self._finalizer.detach()
        for target in (lambda: os.killpg(self.proc.pid, signal.SIGKILL), self.proc.kill):
            try:
                target()
            except (ProcessLookupError, PermissionError, OSError):
                pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self._remove_cgroup()
        if self.proc.poll() is not None:  # its tree is gone: the uid is free (else kept, never shared)
            _release_uid(self.uid)

    def _remove_cgroup(self) -> None:
        if self.memory is not None:
            self.memory.remove()
            self.memory = None


def _kill_group(pid: int, uid: int | None) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    _release_uid(uid)


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"…[truncated {len(text) - limit} chars]"


class PythonCells:
    """The interpreter behind one episode's session, started on the first cell and again after a
    timeout or crash; ``episode_budget_s`` of tool time in all. Where it runs is the session's
    choice: in the episode's process (``PythonSession``) or pinned in a runtime session
    (``python_pinned``)."""

    def __init__(self, limits: PythonLimits, episode_budget_s: float) -> None:
        self.limits = limits
        self.left_s = episode_budget_s
        self.process: PythonProcess | None = None

    def run(self, code: str, budget: float, max_output_chars: int) -> str:
        """One cell within ``budget`` seconds (the start of a fresh interpreter included)."""
        budget = min(budget, self.left_s)
        if budget <= 0:
            raise ToolError("the python tool's time budget for this episode is spent")
        started = time.monotonic()
        if self.process is None:
            try:
                self.process = PythonProcess(self.limits)
            finally:
                self.left_s -= time.monotonic() - started
            budget -= time.monotonic() - started  # the call's budget (and the episode's) covers the start
            started = time.monotonic()
        try:
            output, written, failed = self.process.run(code, budget)
        except SandboxDied as exc:
            self.process = None
            why = (
                f"the call took longer than {max(budget, 0.0):.3g} s"
                if str(exc) == "timeout"
                else f"the interpreter died: {exc}"
            )
            raise ToolError(
                f"{why}; its process was killed and every variable is lost (the next call starts a fresh session)"
            ) from None
        finally:
            self.left_s -= time.monotonic() - started
        cap = min(max_output_chars, self.limits.output_bytes)
        text = _clip(output, cap)
        if written > self.limits.output_bytes and len(output) <= cap:
            text += f"…[truncated {written - len(output.encode())} bytes]"
        return text if text or failed else "(no output)"

    def kill(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            process.kill()


class PythonSession:
    """One episode's interpreter in the process running the episode (``placement="process"``)."""

    enforces_budget = True  # PythonCells kills a cell past its budget (the interpreter's start counted)

    def __init__(self, context: ToolContext, limits: PythonLimits, episode_budget_s: float) -> None:
        self.context = context
        self.cells = PythonCells(limits, episode_budget_s)
        self.closed = False

    def call(self, code: str) -> str:
        return self.cells.run(code, call_budget(self.context, self.closed), self.context.max_output_chars)

    def close(self) -> None:
        self.closed = True
        self.cells.kill()


class PythonTool:
    """``python``: run code in this episode's persistent, sandboxed Python session."""

    name = "python"
    description = (
        "Run Python code in a persistent session (variables and imports are kept between calls of this "
        "episode). Returns what the code printed (stdout and stderr) and the value of the last expression, "
        "like a notebook cell. numpy and sympy are available; there is no network and no file from outside."
    )
    parameters: dict[str, Any] = {  # noqa: RUF012 (the Tool protocol's attribute)
        "type": "object",
        "properties": {"code": {"type": "string", "description": "Python source to run."}},
        "required": ["code"],
        "additionalProperties": False,
    }

    def __init__(
        self, limits: PythonLimits | None = None, episode_budget_s: float = 60.0, placement: str = "auto"
    ) -> None:
        if placement not in PLACEMENTS:
            raise ValueError(f"placement must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
        self.limits = limits or PythonLimits()
        self.episode_budget_s = float(episode_budget_s)
        self.placement = placement

    def open(self, context: ToolContext) -> PythonSession | PinnedPythonSession:
        pinned = self.placement == "session" or (self.placement == "auto" and context.remote_backend)
        if not pinned:
            return PythonSession(context, self.limits, self.episode_budget_s)
        if context.backend is None:
            raise ToolError("placement='session' needs the env's runtime backend and the env gave none")
        cells = functools.partial(PythonCells, self.limits, self.episode_budget_s)
        return PinnedPythonSession(context.backend(), context, cells, self.limits.start_timeout_s)


def python_tool(**options: Any) -> PythonTool:
    """Entry point of ``rlvr_envs.tools``: ``get_tool("python", episode_budget_s=..., limits=...)``."""
    return PythonTool(**options)
