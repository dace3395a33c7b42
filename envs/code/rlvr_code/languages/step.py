"""One sandboxed command of a sample: its bubblewrap argv, its limits, its pipes and its end.

``Box`` describes a sample's sandbox (toolchain mounts, its directory ``/box``, its uid and memory
cgroup); ``Box.start`` starts one command in it and ``Box.step`` runs one to its end feeding its
stdin and keeping its output. The command's limits: wall time (``wall_s``), a CPU budget
(``cpu_budget_s``: the CPU seconds of its processes, polled, and of the sample's CPU cgroup
where it has one, ``cpu_group``; ended as a timeout to the millisecond; RLIMIT_CPU in whole
seconds stays a per-process backstop), address space, processes, file size and open files.
"""

from __future__ import annotations

import os
import resource
import select
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import IO

from rlvr_code.languages.cpu_group import CpuGroup
from rlvr_code.languages.spec import Language
from rlvr_code.memory_bound import MemoryCgroup
from rlvr_code.sandbox import SandboxError

BOX = "/box"
STDERR_KEEP = 8192
# A command with a CPU budget is looked at no more often than this; one without is not polled.
CPU_POLL_FLOOR_S = 0.002
_CPUS = max(1, os.cpu_count() or 1)
_TICKS = os.sysconf("SC_CLK_TCK")
# How a process ended by the kernel at RLIMIT_CPU exits, raw or as bubblewrap passes it on.
_CPU_KILLS = frozenset({-signal.SIGKILL, -signal.SIGXCPU, 128 + signal.SIGKILL, 128 + signal.SIGXCPU})


@dataclass
class Step:
    """How one sandboxed command ended. ``timed_out`` covers the wall clock and the CPU budget
    (``cpu_limited`` says which); ``cpu_s`` is what it spent (bubblewrap and the program, from
    ``wait4``), None where it was not reaped."""

    exit: int | None
    timed_out: bool
    overflow: bool
    memory: bool
    out: bytes
    err: bytes
    cpu_limited: bool = False
    cpu_s: float | None = None


@dataclass(frozen=True)
class Files:
    """A run's own files, bound one by one over ``/box/<name>`` (the rest of ``/box`` stays
    read-only): ``(host path, name, writable)``."""

    binds: tuple[tuple[str, str, bool], ...] = ()


def process_tree(root: int) -> list[int]:
    """``root``'s descendants (not ``root``), from each thread's ``children`` list in ``/proc``."""
    found: list[int] = []
    pending = [root]
    while pending and len(found) < 4096:
        pid = pending.pop()
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as fh:
                    kids = [int(p) for p in fh.read().split()]
            except (OSError, ValueError):
                continue
            found += kids
            pending += kids
    return found


def tree_cpu_s(root: int) -> float:
    """CPU seconds of every process under ``root``: each one's CPU clock (all its threads, to the
    nanosecond) and what the children it has reaped spent (``cutime + cstime``, in clock ticks),
    so neither threads nor a series of short-lived children escape the budget."""
    spent = 0.0
    for pid in process_tree(root):
        try:  # the process CPU clock (``MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)``)
            spent += time.clock_gettime(((~pid) << 3) | 2)
            with open(f"/proc/{pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[-1].split()
            spent += (int(fields[13]) + int(fields[14])) / _TICKS  # cutime, cstime (fields 16, 17)
        except (OSError, ValueError, IndexError):
            continue  # gone between the listing and the read
    return spent


class Running:
    """A started command: its ``Popen`` and how its end is watched (``Box.start``)."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        deadline: float,
        cpu_budget_s: float | None,
        counted: tuple[CpuGroup, float] | None = None,
        cpu_rlimit_s: float | None = None,
    ) -> None:
        self.proc = proc
        self.deadline = deadline
        self.cpu_budget_s = cpu_budget_s
        self.counted = counted
        self.cpu_rlimit_s = cpu_rlimit_s
        """RLIMIT_CPU's soft limit: a run killed by a signal after spending it ended at that limit."""
        """The sample's CPU cgroup and its counter at the start: what the run's processes spent,
        the ones nobody waited for included (``cpu_group``)."""
        self.timed_out = False
        self.cpu_limited = False
        self._next_look = time.monotonic()
        self.cpu_s: float | None = None
        self.status: int | None = None

    def over_budget(self) -> bool:
        """Whether the wall clock or the CPU budget ran out (looked at no more often than needed)."""
        now = time.monotonic()
        if now >= self.deadline:
            self.timed_out = True
            return True
        if self.cpu_budget_s is None or now < self._next_look:
            return False
        spent = tree_cpu_s(self.proc.pid)
        if self.counted is not None:
            group, base = self.counted
            usage = group.usage_s()
            if usage is not None:
                spent = max(spent, usage - base)
        if spent >= self.cpu_budget_s:
            self.timed_out = self.cpu_limited = True
            return True
        # Its processes spend at most one CPU second per CPU each second: no earlier look could
        # find the budget spent (the floor bounds the wake-ups).
        self._next_look = now + max((self.cpu_budget_s - spent) / _CPUS, CPU_POLL_FLOOR_S)
        return False

    def wake_in(self) -> float:
        """Seconds until the next look at the budgets."""
        now = time.monotonic()
        wake = self.deadline - now
        if self.cpu_budget_s is not None:
            wake = min(wake, self._next_look - now)
        return max(0.0, wake)

    def kill(self) -> None:
        kill(self.proc)

    def try_reap(self) -> bool:
        """Reap bubblewrap if it has exited (its status in ``status``, its CPU time with its reaped
        children's in ``cpu_s``); whether it has."""
        if self.status is not None:
            return True
        try:
            done, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere: nothing more to learn
            done, status, usage = self.proc.pid, 9, None
        if done != self.proc.pid:
            return False
        if usage is not None:
            self.cpu_s = usage.ru_utime + usage.ru_stime
        self.status = os.waitstatus_to_exitcode(status)
        self.proc.returncode = self.status
        if (
            self.status in _CPU_KILLS
            and self.cpu_s is not None
            and self.cpu_rlimit_s is not None
            and self.cpu_s >= self.cpu_rlimit_s
        ):
            # Killed at RLIMIT_CPU: the program is its pid namespace's init, which the kernel's
            # SIGXCPU (a default action) does not reach, so SIGKILL at the hard limit ends it; a
            # program that catches SIGXCPU ends the same way. Either is a timeout, not a crash.
            self.timed_out = self.cpu_limited = True
        return True

    def reap(self) -> int:
        """Wait for bubblewrap until the budgets run out (then kill it); its exit status."""
        try:
            pidfd: int | None = os.pidfd_open(self.proc.pid)
        except OSError:
            pidfd = None
        try:
            while not self.try_reap():
                if self.over_budget():
                    self.kill()
                    while not self.try_reap():
                        time.sleep(0.002)
                    break
                wait = min(self.wake_in(), 0.05)
                if pidfd is not None:
                    select.select([pidfd], [], [], wait)
                else:
                    time.sleep(min(wait, 0.005))
        finally:
            if pidfd is not None:
                os.close(pidfd)
        return self.status if self.status is not None else -9


class Box:
    """A sample's sandbox: its language's toolchain, its directory, its uid and memory cgroup."""

    def __init__(
        self,
        bwrap: str,
        language: Language,
        workdir: str,
        uid: int | None,
        group: MemoryCgroup | None,
        tmpfs_mb: int,
        cpu_group: CpuGroup | None = None,
    ) -> None:
        self.bwrap = bwrap
        self.language = language
        self.workdir = workdir
        self.uid = uid
        self.group = group
        self.tmpfs_mb = tmpfs_mb
        self.cpu_group = cpu_group

    def argv(
        self, command: tuple[str, ...], writable: bool, tmpfs_mb: int | None = None, files: Files | None = None
    ) -> list[str]:
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
        ]
        argv += ["--bind" if writable else "--ro-bind", self.workdir, BOX]
        for host, name, rw in files.binds if files is not None else ():
            argv += ["--bind" if rw else "--ro-bind", host, f"{BOX}/{name}"]
        argv += ["--chdir", BOX, "--clearenv"]
        argv += ["--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
        argv += ["--setenv", "LANG", "C.UTF-8"]
        for key, value in language.env:
            argv += ["--setenv", key, value]
        argv += ["--cap-drop", "ALL"]
        return argv + [part.replace("{src}", language.source) for part in command]

    def start(
        self,
        command: tuple[str, ...],
        *,
        writable: bool,
        wall_s: float,
        memory_mb: int | None,
        processes: int,
        stdin: int | None = subprocess.PIPE,
        stdout: int | None = subprocess.PIPE,
        cpu_s: float | None = None,
        cpu_budget_s: float | None = None,
        file_mb: int = 64,
        tmpfs_mb: int | None = None,
        files: Files | None = None,
    ) -> Running:
        """Start ``command`` (stdin/stdout: pipes, or the given descriptors; stderr a pipe)."""
        uid, group = self.uid, self.group
        cpu_procs = self.cpu_group.procs if self.cpu_group is not None and self.cpu_group.owned else None
        counted = None
        if cpu_budget_s is not None and self.cpu_group is not None:
            base = self.cpu_group.usage_s()
            counted = (self.cpu_group, base) if base is not None else None
        # Per process, whole seconds: a backstop under the polled budget (or, without one, the
        # run's CPU limit, which may exceed its wall clock: a program's threads run in parallel).
        ceiling = cpu_budget_s if cpu_budget_s is not None else cpu_s if cpu_s is not None else wall_s
        cpu = max(1, int(ceiling) + 1)

        def enter() -> None:  # in the child, before exec: cgroup, rlimits, then the uid
            if group is not None:
                with open(os.path.join(group.path, "cgroup.procs"), "w", encoding="ascii") as fh:
                    fh.write(str(os.getpid()))
            if cpu_procs is not None:
                with open(cpu_procs, "w", encoding="ascii") as fh:
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

        try:
            proc = subprocess.Popen(
                self.argv(command, writable, tmpfs_mb, files),
                stdin=stdin,
                stdout=stdout,
                stderr=subprocess.PIPE,
                # The child only makes system calls before exec (no locks of ours are taken there).
                preexec_fn=enter,
                start_new_session=True,
                close_fds=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxError(f"could not start the {self.language.name} sandbox: {exc}") from exc
        return Running(proc, time.monotonic() + wall_s, cpu_budget_s, counted, cpu_rlimit_s=float(cpu))

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
        cpu_budget_s: float | None = None,
        file_mb: int = 64,
        tmpfs_mb: int | None = None,
        files: Files | None = None,
        discard_stdout: bool = False,
    ) -> Step:
        """Run ``command`` to its end: ``stdin`` fed, its output kept up to ``output_cap`` bytes
        (``discard_stdout``: its stdout is ``/dev/null``, where the answer is a file it writes; what
        it prints there costs it CPU and time only, bounded by its budgets, never the cap)."""
        oom_before = oom_kills(self.group) if self.group is not None else 0
        running = self.start(
            command,
            writable=writable,
            wall_s=wall_s,
            memory_mb=memory_mb,
            processes=processes,
            stdout=subprocess.DEVNULL if discard_stdout else subprocess.PIPE,
            cpu_s=cpu_s,
            cpu_budget_s=cpu_budget_s,
            file_mb=file_mb,
            tmpfs_mb=tmpfs_mb,
            files=files,
        )
        out, err, overflow = exchange(running, stdin, output_cap)
        if running.timed_out or overflow:
            running.kill()
        code = running.reap()  # a program that closed its output still has until its budgets run out
        memory = self.group is not None and oom_kills(self.group) > oom_before
        return Step(
            code, running.timed_out, overflow, memory, bytes(out), bytes(err), running.cpu_limited, running.cpu_s
        )


def exchange(running: Running, data: bytes, cap: int) -> tuple[bytearray, bytearray, bool]:
    """Feed stdin and read stdout/stderr until both close, a budget runs out (``running.timed_out``)
    or ``cap`` bytes of output (the third value)."""
    proc = running.proc
    if proc.stdin is None or proc.stderr is None:
        raise SandboxError("the sandbox's pipes are missing")
    out, err = bytearray(), bytearray()
    sel = selectors.DefaultSelector()
    os.set_blocking(proc.stdin.fileno(), False)
    if data:
        sel.register(proc.stdin, selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    if proc.stdout is not None:  # None: sent to /dev/null (``Box.step``'s ``discard_stdout``)
        sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    pending = memoryview(data)
    try:
        while len(sel.get_map()) > 0:
            if running.over_budget():
                break
            for key, _ in sel.select(running.wake_in()):
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
                    return out, err, True
                if len(err) > 2 * STDERR_KEEP:
                    del err[:-STDERR_KEEP]
    finally:
        sel.close()
        close_pipes(proc)
    return out, err, False


def close_pipes(proc: subprocess.Popen[bytes]) -> None:
    pipes: tuple[IO[bytes] | None, ...] = (proc.stdin, proc.stdout, proc.stderr)
    for pipe in pipes:
        if pipe is not None and not pipe.closed:
            pipe.close()


def kill(proc: subprocess.Popen[bytes]) -> None:
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
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:  # bubblewrap exits once its program died (not reaped here)
            try:
                if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                    return
            except ChildProcessError:
                return
            time.sleep(0.002)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def oom_kills(group: MemoryCgroup) -> int:
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
