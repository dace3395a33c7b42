"""Host side of the local sandbox: warm zygote workers inside long-lived bubblewrap namespaces.

``LocalSandbox.run(job)`` hands one sample to an idle worker and returns the judge's report. A
worker is two bubblewrap sandboxes (judge and solution; ``_sandbox_wire.py`` has the design);
workers start lazily and are reused for every later sample; a worker that misbehaves is killed
and replaced, and the sample is retried on a fresh one. Failures of the machinery raise
``SandboxError``; they never look like a wrong answer.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rlvr_code import sandbox_uids
from rlvr_code._sandbox_source import harness_fd, without_comments
from rlvr_code.compile_relay import CompileRelay
from rlvr_code.memory_bound import DEFAULT_TOTAL_MB, MOUNT_POINT, MemoryCgroup, bounded_job
from rlvr_code.memory_bound import create as create_cgroup
from rlvr_code.mounts import DIST_PACKAGES, package_mounts
from rlvr_code.mounts import system_python_mounts as _system_python_mounts
from rlvr_code.spawner import spawner as _spawner
from rlvr_envs.errors import RlvrEnvsError

SYSTEM_PYTHON = "/usr/bin/python3"
_HEADER = struct.Struct(">I")
_READY_TIMEOUT_S = 30.0
_BWRAP_HINT = (
    "the code sandbox needs bubblewrap: install it with `apt-get install bubblewrap` "
    "(or run scripts/setup.sh as root), or pass allow_reduced_isolation=True to run samples "
    "without namespaces (not safe for untrusted code)"
)


class SandboxError(RlvrEnvsError, RuntimeError):
    """The sandbox machinery failed (not the sample): reported as ``verifier_error``."""


class SandboxUnavailable(SandboxError):
    """The sandbox cannot run on this machine as configured."""


@dataclass(frozen=True)
class SandboxLimits:
    """Per-sample limits. ``wall_s`` bounds the whole sample; the others bind each solution process."""

    wall_s: float = 10.0
    cpu_s: float = 10.0
    case_s: float | None = None
    """Wall-clock limit of one stdin/stdout case (default: ``cpu_s``)."""
    memory_mb: int = 1024
    file_mb: int = 16
    open_files: int = 64
    processes: int = 16
    output_bytes: int = 1 << 20
    total_memory_mb: int = DEFAULT_TOTAL_MB
    """All the sample's processes together (``memory_bound``: a cgroup, or lowered rlimits)."""
    run_cpu_s: float | None = None
    """CPU seconds of one solution run (its main process, all its threads; each stdin/stdout case
    is a run), measured by the solution zygote to the millisecond and ending the run as a timeout
    once spent. None: only ``cpu_s``'s ``RLIMIT_CPU``, in whole seconds. A calibrated task's
    ``cpu_limit_s`` (``limits``): a loop stops after its budget of CPU, not the wall limit, which
    must keep room for a loaded machine."""

    def as_job(self) -> dict[str, Any]:
        return asdict(self)


_IMPORTS_START = "# -- wire imports (stripped in the sandbox) --"
_IMPORTS_END = "# -- end wire imports --"
_MAIN_GUARD = '\n\nif __name__ == "__main__":'


def sandbox_module_source(role: str, *, keep_main: bool = True, folder: Path | None = None) -> str:
    """A role module's source without its development imports (the wire module precedes it)."""
    body = ((folder or Path(__file__).parent) / f"_sandbox_{role}.py").read_text(encoding="utf-8")
    if _IMPORTS_START not in body or _IMPORTS_END not in body:
        raise SandboxError(f"_sandbox_{role}.py lost its import markers")
    body = body[: body.index(_IMPORTS_START)] + body[body.index(_IMPORTS_END) + len(_IMPORTS_END) :]
    if not keep_main and _MAIN_GUARD in body:
        body = body[: body.index(_MAIN_GUARD)] + "\n"
    return without_comments(body)


HARNESS_PARTS = {
    "judge": ("stdio", "warm", "batch", "link", "speculate", "judge", "judge_zygote"),
    "solution": ("memory", "solution", "solution_zygote"),
}
"""The modules after ``_sandbox_wire`` that make up each role's program, in order (the last has the main)."""


def harness_source(role: str, folder: Path | None = None) -> str:
    """The program one sandbox runs: the shared wire module, then the role's module(s).
    ``folder``: another copy of this package's folder (a benchmark's before/after, same run)."""
    own = folder is None
    folder = folder or Path(__file__).parent
    wire = (folder / "_sandbox_wire.py").read_text(encoding="utf-8")
    # Another copy may predate a module (a benchmark's before/after): it runs without it, as it did.
    parts = tuple(p for p in HARNESS_PARTS[role] if own or (folder / f"_sandbox_{p}.py").exists())
    return "\n\n".join(
        [wire, *(sandbox_module_source(part, keep_main=part == parts[-1], folder=folder) for part in parts)]
    )


def bootstrap_source(role: str = "judge") -> str:
    """The ``-c`` program of a sandbox: the harness compiled first, then the role's warm imports
    (``_sandbox_wire.WARM_IMPORTS``), then the harness run. Compiling 40 KB of source frees
    megabytes of parse trees that neither ``malloc_trim`` nor the object allocator can hand back
    once longer-lived objects sit between them; compiled first, the imports reuse that memory
    (round 13: solution zygote 8.4 -> 7.6 MB anonymous, judge zygote 9.6 -> 7.8, warm judge 9.9
    -> 8.5). The harness comes from a descriptor (its number is the last argument): an
    interpreter keeps its arguments for life, three times over (0.8 MB for 120 KB of harness)."""
    from rlvr_code._sandbox_wire import WARM_IMPORTS

    names = sorted(WARM_IMPORTS[role])
    return (
        "import sys\n"
        "with open(int(sys.argv.pop()), 'rb') as source:\n"
        "    code = compile(source.read(), '<rlvr-harness>', 'exec')\n"
        "del source\n"
        f"for name in {names!r}:\n"
        "    try:\n"
        "        __import__(name)\n"
        "    except ImportError:\n"
        "        pass\n"
        "del name\n"
        "try:\n"
        "    import ctypes\n"
        "    ctypes.CDLL(None).malloc_trim(0)\n"
        "except Exception:\n"
        "    pass\n"
        "exec(code)\n"
    )


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def _bwrap_supports(flag: str) -> bool:
    try:
        out = subprocess.run([bwrap_path() or "bwrap", "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return flag in out.stdout + out.stderr


SOLUTION_ZYGOTE_CAPS = (
    "CAP_SETUID",
    "CAP_SETGID",
    "CAP_KILL",
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_FOWNER",
    "CAP_SYS_ADMIN",
)
# The judge answers at most its deadline + 3 s after a job (or its zygote does for it), plus up
# to 5 s for the solution zygote's clean-up confirmation; past this the worker is presumed stuck.
_REPLY_MARGIN_S = 20.0


class _Worker:
    """A judge zygote and a solution zygote, each in its own sandbox, joined by a Unix socket."""

    def __init__(
        self,
        judge_argv: list[str],
        solution_argv: list[str],
        link: tuple[int, int],
        host_root: str | None,
        memory: MemoryCgroup | None = None,
        sources: tuple[int, int] | None = None,  # descriptors of the judge's and the solution's harness
    ) -> None:
        self.host_root = host_root
        self.memory = memory
        judge_fd, solution_fd = link
        self.procs: list[subprocess.Popen[bytes]] = []
        try:
            self.solution = _spawner.spawn(
                solution_argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
                pass_fds=(solution_fd,) if sources is None else (solution_fd, sources[1]),
            )
            self.procs.append(self.solution)
            self.proc = _spawner.spawn(
                judge_argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                pass_fds=(judge_fd,) if sources is None else (judge_fd, sources[0]),
            )
            self.procs.append(self.proc)
        finally:
            os.close(judge_fd)
            os.close(solution_fd)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        try:
            hello = self._receive(time.monotonic() + _READY_TIMEOUT_S)
        except SandboxError as exc:
            self.kill()
            raise SandboxError(f"the sandbox failed to start: {exc}{self._stderr_note()}") from None
        if not isinstance(hello, dict) or not hello.get("ready"):
            self.kill()
            raise SandboxError(f"the sandbox did not start: {hello!r}{self._stderr_note()}")
        self.info = hello
        solution = hello.get("solution")
        if memory is not None and not (isinstance(solution, dict) and solution.get("memory_cgroup")):
            self.memory = None  # the zygote could not use it: this worker's samples get the fallback
            memory.remove()

    def _stderr_note(self) -> str:
        notes = []
        for proc in self.procs:
            try:
                proc.wait(1)
                err = proc.stderr.read(2000) if proc.stderr else b""
            except (subprocess.TimeoutExpired, OSError, ValueError):
                continue
            text = err.decode("utf-8", "replace").strip()
            if text:
                notes.append(text)
        return f" ({'; '.join(notes)})" if notes else ""

    def _read_exact(self, n: int, deadline: float) -> bytes:
        chunks: list[bytes] = []
        while n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                raise SandboxError("the sandbox worker did not answer in time")
            chunk = os.read(self._out, min(n, 1 << 20))
            if not chunk:
                raise SandboxError(f"the sandbox worker exited (code {self.proc.poll()})")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def _receive(self, deadline: float) -> Any:
        (size,) = _HEADER.unpack(self._read_exact(_HEADER.size, deadline))
        try:
            return json.loads(self._read_exact(size, deadline))
        except ValueError as exc:
            raise SandboxError(f"malformed reply from the sandbox worker: {exc}") from None

    def request(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        data = json.dumps(job).encode()
        try:
            # Header and body in one write: one wake-up of the judge zygote, not two.
            view = memoryview(_HEADER.pack(len(data)) + data)
            while view:
                view = view[os.write(self._in, view) :]
        except OSError as exc:
            raise SandboxError(f"cannot reach the sandbox worker: {exc}") from None
        reply = self._receive(time.monotonic() + timeout_s)
        if not isinstance(reply, dict):
            raise SandboxError("malformed reply from the sandbox worker")
        return reply

    def kill(self) -> None:
        for proc in self.procs:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
        if self.host_root:
            shutil.rmtree(self.host_root, ignore_errors=True)
        if self.memory is not None:
            self.memory.remove()

    def close(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()  # EOF: the judge zygote exits, then the solution zygote
            self.proc.wait(2)
            self.solution.wait(2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


_live_sandboxes: weakref.WeakSet[LocalSandbox] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for sandbox in list(_live_sandboxes):
        sandbox.close()


class LocalSandbox:
    """Runs samples in warm workers on this machine.

    Args:
        workers: how many samples may run at once (each worker runs one at a time).
        tmpfs_mb: size of each sample's private working filesystem (a fresh tmpfs per sample).
        work_inodes: files, directories and links a sample may create there (tmpfs
            ``nr_inodes``): bounds the kernel memory and the cleanup a sample can cost.
        allow_reduced_isolation: without bubblewrap, run the zygote as a plain subprocess
            (rlimits, a separate uid when root, but no namespaces). Off by default.
        require_isolation: ``False`` is the same as ``allow_reduced_isolation=True``.
        python: the interpreter inside the sandbox; it must be readable by an unprivileged uid.
        warm_judge: keep one judge process per worker across samples (replaced whenever a
            sample leaves a trace in it; see ``_sandbox_warm``) instead of forking one per
            sample. Verdicts are the same either way; ``False`` is for comparing them.
        batch_asserts: send the calls of consecutive straight-line asserts to the solution in
            one message (``_sandbox_batch``). Verdicts are the same either way.
        memory_cgroup: bound each sample's total memory (``total_memory_mb``) with a memory
            cgroup per worker where one can be had; ``False`` (or none available) lowers the
            rlimits instead (``memory_bound.fallback_limits``).
    """

    name = "local"

    def __init__(
        self,
        workers: int = 1,
        *,
        tmpfs_mb: int = 64,
        work_inodes: int = 10_000,
        allow_reduced_isolation: bool = False,
        python: str = SYSTEM_PYTHON,
        retries: int = 2,
        warm_judge: bool = True,
        batch_asserts: bool = True,
        memory_cgroup: bool = True,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self.tmpfs_mb = tmpfs_mb
        self.work_inodes = work_inodes
        self.python = python
        self.retries = retries
        self.warm_judge = warm_judge
        self.batch_asserts = batch_asserts
        self.memory_cgroup = memory_cgroup
        self.bwrap = bwrap_path()
        if self.bwrap is None and not allow_reduced_isolation:
            raise SandboxUnavailable(_BWRAP_HINT)
        if not os.path.exists(python):
            raise SandboxUnavailable(f"the sandbox interpreter {python} is missing (apt-get install python3)")
        self.isolated = self.bwrap is not None
        self.privileged = os.getuid() == 0
        self._sources = {role: harness_source(role) for role in ("judge", "solution")}
        self._bootstrap = {role: bootstrap_source(role) for role in ("judge", "solution")}
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._slots = threading.Semaphore(workers)
        try:  # a uid per worker, held until close(): no two live workers share one (sandbox_uids)
            self._uids = sandbox_uids.take(workers) if self.privileged else []
        except sandbox_uids.NoFreeUid as exc:
            raise SandboxUnavailable(str(exc)) from None
        self._free_slots: queue.SimpleQueue[int] = queue.SimpleQueue()
        for slot in range(workers):
            self._free_slots.put(slot)
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        self.stats = {
            "samples": 0,
            "worker_starts": 0,
            "judge_starts": 0,
            "carried_cache_entries": 0,  # compiled tests a fresh warm judge got from the one before
            "infrastructure_retries": 0,
            "retired_workers": 0,
        }
        self._relay = CompileRelay(self.stats)  # each judge's compiled tests, for the other workers
        _live_sandboxes.add(self)

    # -- workers -----------------------------------------------------------------------------------
    def sample_uid(self, slot: int) -> int | None:
        """A uid no other live worker uses (``sandbox_uids``): RLIMIT_NPROC then bounds this worker's samples alone."""
        if not self.privileged:
            return None
        if slot >= len(self._uids):  # closed under a running sample (its worker is gone too): never uid None as root
            raise SandboxError("the sandbox was closed")
        return self._uids[slot]

    def _argv(
        self, role: str, root: str, link_fd: int, memory: MemoryCgroup | None = None, source_fd: int = -1
    ) -> list[str]:
        group = None
        if memory is not None and role == "solution":
            group = memory.sandbox_config() if self.isolated else {"path": memory.path, "version": memory.version}
        config = json.dumps(
            {
                "root": root,
                "link_fd": link_fd,
                "pid_namespace": self.isolated,
                # A fresh tmpfs per sample, only inside bubblewrap's mount namespace.
                "mount_work": self.isolated,
                "work_bytes": self.tmpfs_mb << 20,
                "work_inodes": self.work_inodes,
                "warm_judge": self.warm_judge,
                "memory_cgroup": group,
                # Third-party packages the system Python has (numpy, sympy from Debian), read-only
                # and after the standard library: a right solution may import them, as it may under
                # the reference harness. The judge keeps the standard library alone.
                "path": [DIST_PACKAGES] if role == "solution" and os.path.isdir(DIST_PACKAGES) else [],
            }
        )
        # sys.argv in the sandbox: ["-c", config] once the bootstrap took the harness's descriptor off.
        command = [self.python, "-I", "-S", "-c", self._bootstrap[role], config, str(source_fd)]
        if not self.isolated:
            return command
        argv = [
            self.bwrap or "bwrap",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
            *_system_python_mounts(self.python),
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--size",
            str(1 << 20),
            "--tmpfs",
            "/dev/shm",
            "--size",
            str(self.tmpfs_mb << 20),
            "--perms",
            "0755",
            "--tmpfs",
            root,
            "--chdir",
            root,
            "--clearenv",
            "--setenv",
            "PATH",
            "/usr/bin:/bin",
            "--setenv",
            "LANG",
            "C.UTF-8",
        ]
        if role == "solution":
            argv += package_mounts()
        if group is not None and memory is not None:
            argv += ["--bind", memory.path, MOUNT_POINT]
        if self.privileged:
            # Real root outside a user namespace, so that samples can run under uids of their own
            # (RLIMIT_NPROC ignores root). The solution zygote keeps only what it needs to switch
            # uid for a sample, kill what the sample leaves behind, mount and unmount each
            # sample's tmpfs (CAP_SYS_ADMIN, used for nothing else; the sample itself holds no
            # capability) and wipe files as a fallback; the judge zygote keeps nothing.
            argv += ["--cap-drop", "ALL"]
            if role == "solution":
                for cap in SOLUTION_ZYGOTE_CAPS:
                    argv += ["--cap-add", cap]
        else:
            argv += ["--unshare-user"]
            if role == "solution":
                # Inside its own user namespace: lets the zygote mount each sample's tmpfs there.
                argv += ["--cap-add", "CAP_SYS_ADMIN"]
                if _bwrap_supports("--disable-userns"):
                    argv += ["--disable-userns"]
        return [*argv, *command]

    def _start_worker(self) -> _Worker:
        import socket

        host_root = None
        if self.isolated:
            roots = {"judge": "/tmp/rlvr", "solution": "/tmp/rlvr"}
        else:
            host_root = tempfile.mkdtemp(prefix="rlvr-code-")
            os.chmod(host_root, 0o755)
            roots = {"judge": host_root, "solution": host_root}
        sources = {role: harness_fd(self._sources[role]) for role in ("judge", "solution")}
        judge_end, solution_end = socket.socketpair()
        judge_fd, solution_fd = judge_end.detach(), solution_end.detach()
        memory = create_cgroup(DEFAULT_TOTAL_MB) if self.memory_cgroup else None
        try:
            worker = _Worker(
                self._argv("judge", roots["judge"], judge_fd, source_fd=sources["judge"]),
                self._argv("solution", roots["solution"], solution_fd, memory, sources["solution"]),
                (judge_fd, solution_fd),
                host_root,
                memory,
                (sources["judge"], sources["solution"]),
            )
        except BaseException:
            if memory is not None:
                memory.remove()
            raise
        finally:
            for fd in sources.values():
                os.close(fd)
        self.stats["worker_starts"] += 1
        with self._lock:
            self._all.add(worker)
        return worker

    def _discard(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            self._all.discard(worker)

    # -- running samples ---------------------------------------------------------------------------
    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        """Run one sample and return the judge's report (status, tests, load_error, elapsed_s)."""
        if self._closed:
            raise SandboxError("the sandbox is closed")
        wall_s = float(job["limits"]["wall_s"])
        if not self.batch_asserts:
            job = {**job, "batch": False}
        last_error: SandboxError | None = None
        with self._slots:
            slot = self._free_slots.get()
            try:
                for attempt in range(self.retries + 1):
                    try:
                        worker = self._idle.get_nowait()
                    except queue.Empty:
                        worker = None
                    try:
                        if worker is None:
                            worker = self._start_worker()
                        task = self._relay.task(job)
                        sent = {**bounded_job(job, worker.memory is not None), "sample_uid": self.sample_uid(slot)}
                        reply = worker.request(self._relay.outgoing(sent, worker, task), wall_s + _REPLY_MARGIN_S)
                        if reply.get("status") in ("infrastructure", "judge_died") or "judge_error" in reply:
                            raise SandboxError(
                                f"sandbox failure ({reply.get('status')}): "
                                f"{reply.get('error') or reply.get('judge_error') or 'the judge died'}"
                            )
                    except SandboxError as exc:
                        last_error = exc
                        if "batch diverged" in str(exc):
                            job = {**job, "batch": False}  # never expected; exact either way
                        if worker is not None:
                            self._discard(worker)
                        if attempt < self.retries:
                            self.stats["infrastructure_retries"] += 1
                        continue
                    self._relay.incoming(reply, worker, task)  # what its judge compiled, for the others
                    if reply.get("retire"):
                        # The sample's result stands; its worker could not be made clean again.
                        self._discard(worker)
                        self.stats["retired_workers"] += 1
                    else:
                        self._idle.put(worker)
                    self.stats["samples"] += 1
                    self.stats["judge_starts"] += 1 if reply.pop("judge_started", False) else 0
                    carried = reply.pop("judge_cache", 0)
                    self.stats["carried_cache_entries"] += carried if type(carried) is int and carried > 0 else 0
                    return reply
            finally:
                self._free_slots.put(slot)
        raise last_error or SandboxError("the sample could not be run")

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers, self._all = list(self._all), set()
        for worker in workers:
            worker.close()
        uids, self._uids = self._uids, []  # the workers' trees are dead: their uids may serve others
        sandbox_uids.release(uids)

    def __enter__(self) -> LocalSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
