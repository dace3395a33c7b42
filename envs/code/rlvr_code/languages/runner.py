"""Compile once, then run against each stdin/stdout case: one sample of a non-Python language.

Every step is its own bubblewrap sandbox (``_bwrap_argv``): no network, no IPC, its own pid
namespace (killing it kills everything the program started), only the language's toolchain
bound read-only from the host (no ``/etc``, ``/root``, ``/home``, no checkout), a size-bounded
tmpfs ``/tmp``, and the sample's directory ``/box``: read-write while compiling, read-only while
running. As root, each sample runs under a uid of its own (``_Uids``), so RLIMIT_NPROC bounds its
processes alone; all its processes share one fresh memory cgroup (``memory_bound.create``), its
limit the compile budget while compiling and ``total_memory_mb`` while running. After the sample,
leftover processes of its uid are killed, the cgroup and the directory removed.
"""

from __future__ import annotations

import os
import queue
import resource
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rlvr_code._sandbox_stdio import normalise_output, stderr_tail
from rlvr_code.languages.spec import Language
from rlvr_code.memory_bound import MemoryCgroup
from rlvr_code.memory_bound import create as create_cgroup
from rlvr_code.sandbox import SandboxError, SandboxUnavailable, bwrap_path

BOX = "/box"
_UID_BASE = 1_950_000_000
_STDERR_KEEP = 8192


class ToolchainMissing(SandboxError):
    """A language's toolchain is not installed: reported as ``verifier_error`` naming the package."""


@dataclass(frozen=True)
class CompileBudget:
    wall_s: float = 30.0
    memory_mb: int = 2048
    processes: int = 32


@dataclass
class Step:
    """How one sandboxed command ended."""

    exit: int | None
    timed_out: bool
    overflow: bool
    memory: bool
    out: bytes
    err: bytes


Judge = Callable[[Step, str, float, int], dict[str, Any]]
"""How one case's run becomes its report entry: ``(step, expected output, wall_s, output cap)``."""


class _Uids:
    """Uids no other process uses, one per sample running at once (64 per process)."""

    def __init__(self) -> None:
        self._free: queue.SimpleQueue[int] = queue.SimpleQueue()
        base = _UID_BASE + (os.getpid() % 1_000_000) * 64
        for offset in range(64):
            self._free.put(base + offset)

    def take(self, timeout_s: float) -> int:
        try:
            return self._free.get(timeout=timeout_s)
        except queue.Empty:
            raise SandboxError("no free sample uid: over 64 samples at once in one process") from None

    def give(self, uid: int) -> None:
        self._free.put(uid)


_uids: _Uids | None = None
_uids_pid = -1


_uids_lock = threading.Lock()


def _uid_pool() -> _Uids:
    global _uids, _uids_pid
    with _uids_lock:
        if _uids is None or _uids_pid != os.getpid():  # a forked child takes uids of its own
            _uids, _uids_pid = _Uids(), os.getpid()
        return _uids


def toolchain_error(language: Language) -> str | None:
    missing = [tool for tool in language.tools if not os.access(tool, os.X_OK)]
    if not missing:
        return None
    return (
        f"the {language.name} toolchain is missing ({', '.join(missing)}): install the Debian package "
        f"{language.package!r} (`apt-get install {language.package}`, or run scripts/setup.sh as root)"
    )


def run_sample(
    language: Language,
    source: str,
    cases: list[dict[str, str]],
    limits: dict[str, Any],
    compile_budget: CompileBudget = CompileBudget(),
    *,
    tmpfs_mb: int = 16,
    judge: Judge | None = None,
) -> dict[str, Any]:
    """The sample's report in the judge's shape: ``status``, ``tests``, ``compile_error``.

    ``judge(step, expected, wall_s, output_cap)`` turns each case's run into its entry (default:
    the output compared with the expected one); the contest checkers pass their own."""
    problem = toolchain_error(language)
    if problem:
        raise ToolchainMissing(problem)
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable("the code sandbox needs bubblewrap: `apt-get install bubblewrap`")
    privileged = os.getuid() == 0
    uids = _uid_pool()
    uid = uids.take(limits["wall_s"] + 30) if privileged else os.getuid()
    group = create_cgroup(compile_budget.memory_mb)
    workdir = tempfile.mkdtemp(prefix="rlvr-lang-")
    started = time.monotonic()
    try:
        if privileged:
            os.chown(workdir, uid, uid)
        os.chmod(workdir, 0o700)
        path = os.path.join(workdir, language.source)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(source)
        if privileged:
            os.chown(path, uid, uid)
        context = _Context(bwrap, language, workdir, uid if privileged else None, group, tmpfs_mb)
        build = language.compile or language.check
        if build is not None:
            step = context.step(
                build,
                writable=True,
                tmpfs_mb=language.compile_tmpfs_mb,
                stdin=b"",
                wall_s=compile_budget.wall_s,
                memory_mb=compile_budget.memory_mb if language.address_space else None,
                processes=compile_budget.processes + language.extra_processes,
                output_cap=1 << 20,
            )
            if step.exit != 0:
                if step.timed_out:
                    why = f"the compiler ran past its {compile_budget.wall_s:g} s budget"
                elif step.memory:
                    why = f"the compiler exceeded its {compile_budget.memory_mb} MB budget"
                else:
                    why = stderr_tail(step.err + step.out, lines=6, chars=800) or f"exit status {step.exit}"
                return {"status": "done", "tests": [], "compile_error": why, "elapsed_s": time.monotonic() - started}
        if group is not None:
            _set_limit(group, int(limits.get("total_memory_mb") or limits["memory_mb"]))
        # The compile had its own budget: the sample's wall-clock limit starts now.
        report = _run_cases(context, cases, limits, time.monotonic(), judge or _judge)
        report["elapsed_s"] = time.monotonic() - started
        return report
    finally:
        if privileged:
            _kill_uid(uid)
        shutil.rmtree(workdir, ignore_errors=True)
        if group is not None:
            group.remove()
        if privileged:
            uids.give(uid)


def _run_cases(
    context: _Context, cases: list[dict[str, str]], limits: dict[str, Any], started: float, judge: Judge
) -> dict[str, Any]:
    language = context.language
    deadline = started + float(limits["wall_s"])
    per_case = float(limits.get("case_s") or limits["cpu_s"])
    tests: list[dict[str, Any]] = []
    memory_mb = int(limits["memory_mb"]) if language.address_space else None
    for index, case in enumerate(cases):
        name = f"case {index}"
        left = deadline - time.monotonic()
        if left <= 0:
            tests.append({"name": name, "status": "timeout", "error": "not run: the time budget ran out"})
            continue
        wall = min(per_case, left)
        step = context.step(
            language.run,
            writable=False,
            stdin=case["input"].encode("utf-8"),
            wall_s=wall,
            memory_mb=memory_mb,
            processes=int(limits["processes"]) + language.extra_processes,
            output_cap=int(limits["output_bytes"]),
            cpu_s=float(limits["cpu_s"]),
            file_mb=int(limits["file_mb"]),
        )
        tests.append({"name": name, **judge(step, case["output"], wall, int(limits["output_bytes"]))})
    return {"status": "done", "tests": tests, "elapsed_s": time.monotonic() - started}


def _judge(step: Step, expected: str, wall_s: float, cap: int) -> dict[str, Any]:
    if step.memory:
        return {"status": "error", "error": "MemoryError: the sample exceeded its memory bound"}
    if step.timed_out:
        return {"status": "timeout", "error": f"no result within {wall_s:g} s"}
    if step.overflow:
        return {"status": "error", "error": f"the output exceeded {cap} bytes"}
    if step.exit is None or step.exit != 0:
        return {"status": "error", "error": f"exit status {step.exit}: {stderr_tail(step.err)}"}
    got = normalise_output(step.out.decode("utf-8", "replace"))
    want = normalise_output(expected)
    if got == want:
        return {"status": "passed", "error": None}
    return {"status": "failed", "error": f"expected {repr(want)[:150]}, got {repr(got)[:150]}"}


class _Context:
    def __init__(
        self, bwrap: str, language: Language, workdir: str, uid: int | None, group: MemoryCgroup | None, tmpfs_mb: int
    ) -> None:
        self.bwrap = bwrap
        self.language = language
        self.workdir = workdir
        self.uid = uid
        self.group = group
        self.tmpfs_mb = tmpfs_mb

    def argv(self, command: tuple[str, ...], writable: bool, tmpfs_mb: int | None = None) -> list[str]:
        language = self.language
        mounts = language.mounts if writable or language.run_mounts is None else language.run_mounts
        argv = [
            self.bwrap,
            "--unshare-all",  # network, IPC, pid, uts, cgroup and (unprivileged) user namespaces
            # The program is the namespace's pid 1, so the outer bubblewrap reaps it. With
            # bubblewrap's own init there, the outer one returns on the init's word and never
            # reaps it: every step left a zombie for the machine's init, which in a container
            # without a reaping init (Docker's default) piles up until fork fails.
            "--as-pid-1",
            "--die-with-parent",
            "--new-session",
            "--perms",
            "0755",
            "--dir",
            "/usr",
        ]
        for path in mounts:
            if os.path.exists(path):
                argv += ["--ro-bind", path, path]
        argv += ["--symlink", "usr/lib", "/lib", "--symlink", "usr/bin", "/bin"]
        if os.path.exists("/usr/lib64"):
            argv += ["--ro-bind", "/usr/lib64", "/usr/lib64", "--symlink", "usr/lib64", "/lib64"]
        else:
            argv += ["--symlink", "usr/lib", "/lib64"]
        argv += [
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--size",
            str((tmpfs_mb or self.tmpfs_mb) << 20),
            "--tmpfs",
            "/tmp",
            "--bind" if writable else "--ro-bind",
            self.workdir,
            BOX,
            "--chdir",
            BOX,
            "--clearenv",
            "--setenv",
            "PATH",
            "/usr/bin:/bin",
            "--setenv",
            "HOME",
            "/tmp",
            "--setenv",
            "TMPDIR",
            "/tmp",
            "--setenv",
            "LANG",
            "C.UTF-8",
        ]
        for key, value in language.env:
            argv += ["--setenv", key, value]
        argv += ["--cap-drop", "ALL"]
        return argv + [part.replace("{src}", language.source) for part in command]

    def step(
        self,
        command: tuple[str, ...],
        *,
        writable: bool,
        stdin: bytes,
        wall_s: float,
        memory_mb: int | None,
        processes: int,
        output_cap: int,
        cpu_s: float | None = None,
        file_mb: int = 64,
        tmpfs_mb: int | None = None,
    ) -> Step:
        uid, group = self.uid, self.group
        cpu = max(1, int(cpu_s if cpu_s is not None else wall_s) + 1)

        def enter() -> None:  # in the child, before exec: cgroup, rlimits, then the uid
            if group is not None:
                with open(os.path.join(group.path, "cgroup.procs"), "w", encoding="ascii") as fh:
                    fh.write(str(os.getpid()))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_mb << 20, file_mb << 20))
            resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
            if memory_mb is not None:
                resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
            if uid is not None:
                # bubblewrap and the program count against the limit too (the program is the
                # namespace's pid 1, so bubblewrap adds no init of its own).
                resource.setrlimit(resource.RLIMIT_NPROC, (processes + 2, processes + 2))
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)

        oom_before = _oom_kills(group) if group is not None else 0
        try:
            proc = subprocess.Popen(
                self.argv(command, writable, tmpfs_mb),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                # The child only makes system calls before exec (no locks of ours are taken there).
                preexec_fn=enter,
                start_new_session=True,
                close_fds=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxError(f"could not start the {self.language.name} sandbox: {exc}") from exc
        out, err, timed_out, overflow = _exchange(proc, stdin, time.monotonic() + wall_s, output_cap)
        if timed_out or overflow:
            _kill(proc)
        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _kill(proc)
            code = proc.wait()
        memory = group is not None and _oom_kills(group) > oom_before
        return Step(code, timed_out, overflow, memory, bytes(out), bytes(err))


def _exchange(
    proc: subprocess.Popen[bytes], data: bytes, deadline: float, cap: int
) -> tuple[bytearray, bytearray, bool, bool]:
    """Feed stdin and read stdout/stderr until both close, the deadline, or ``cap`` bytes of output."""
    if proc.stdin is None or proc.stdout is None or proc.stderr is None:
        raise SandboxError("the sandbox's pipes are missing")
    out, err = bytearray(), bytearray()
    sel = selectors.DefaultSelector()
    os.set_blocking(proc.stdin.fileno(), False)
    if data:
        sel.register(proc.stdin, selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    pending = memoryview(data)
    timed_out = overflow = False
    try:
        while len(sel.get_map()) > 0:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(left):
                if key.fileobj is proc.stdin:
                    try:
                        sent = os.write(proc.stdin.fileno(), pending[:65536])
                        pending = pending[sent:]
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(proc.stdin)
                        proc.stdin.close()
                    continue
                chunk = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if len(out) > cap:
                    overflow = True
                    return out, err, timed_out, overflow
                if len(err) > 2 * _STDERR_KEEP:
                    del err[:-_STDERR_KEEP]
    finally:
        sel.close()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if not pipe.closed:
                pipe.close()
    return out, err, timed_out, overflow


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the sandboxed program, then bubblewrap if it is still there.

    The program first (the namespace's pid 1: every process of the namespace dies with it), so
    the outer bubblewrap sees it die and reaps it; killing both at once could orphan it as a
    zombie for the machine's init (see ``--as-pid-1``)."""
    try:
        with open(f"/proc/{proc.pid}/task/{proc.pid}/children", encoding="ascii") as fh:
            inner = [int(pid) for pid in fh.read().split()]
    except (OSError, ValueError):
        inner = []
    for pid in inner:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if inner:
        try:
            proc.wait(timeout=1.0)
            return
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_uid(uid: int, wait_s: float = 2.0) -> None:
    """Kill whatever still runs under the sample's uid and wait until none of it runs.

    Nothing should (the pid namespace is gone, and its pid 1 was reaped by bubblewrap). A zombie
    handed to the host's init holds no memory or files, and the uid comes back to a sample only
    after the 63 others (``_Uids`` is FIFO).
    """
    end = time.monotonic() + wait_s
    while True:
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                if os.stat(f"/proc/{entry}").st_uid != uid or _zombie(entry):
                    continue
                found = True
                os.kill(int(entry), signal.SIGKILL)
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                continue
        if not found or time.monotonic() >= end:
            return
        time.sleep(0.01)


def _zombie(pid: str) -> bool:
    with open(f"/proc/{pid}/stat", "rb") as fh:
        return fh.read().rsplit(b")", 1)[-1].split()[0] in (b"Z", b"X")


def _set_limit(group: MemoryCgroup, mb: int) -> None:
    name = "memory.limit_in_bytes" if group.version == 1 else "memory.max"
    try:
        with open(os.path.join(group.path, name), "w", encoding="ascii") as fh:
            fh.write(str(mb << 20))
    except OSError:
        pass
    if group.version == 1 and os.path.exists(os.path.join(group.path, "memory.memsw.limit_in_bytes")):
        try:
            with open(os.path.join(group.path, "memory.memsw.limit_in_bytes"), "w", encoding="ascii") as fh:
                fh.write(str(mb << 20))
        except OSError:
            pass


def _oom_kills(group: MemoryCgroup) -> int:
    name = "memory.oom_control" if group.version == 1 else "memory.events"
    try:
        with open(os.path.join(group.path, name), encoding="ascii") as fh:
            for line in fh:
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0
