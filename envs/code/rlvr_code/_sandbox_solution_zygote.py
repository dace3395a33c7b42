"""The solution zygote: its requests loop (``SolutionZygote``: a fork per run, the run's wall clock
and CPU budget, the clean-up after it) and its start, warmed up so that each sample process
forks from it cheaply.

Part of the solution harness (the last module, after ``_sandbox_solution``, which holds what
runs in a sample process). A sample process
pays a copy-on-write fault for every page it writes that it shares with the zygote; what every
sample would do first (set its environment, look up ``capset``, specialise the serving code)
is done here once, before the first fork.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import fcntl
import json
import os
import select
import socket
import sys
import time

from rlvr_code._sandbox_memory import open_cgroup, prefer_as_victim
from rlvr_code._sandbox_solution import (
    _libc,
    become_solution,
    mount_tmpfs,
    privilege_calls,
    rlimit_plan,
    run_stdio_program,
    serve_solution,
    settle_privileges,
    unmount,
    unshare_mounts,
    wipe_tree,
)
from rlvr_code._sandbox_wire import ProtocolError, kill_all_but_me, libc, recv_fds, send, start_zygote, trim

# -- end wire imports --

PR_GET_NO_NEW_PRIVS = 39
# The solution zygote's own kill deadline trails the judge's by this much: the judge, which
# knows the sample's budget, always decides and reports a timeout itself, even when the
# machine is so loaded that it wakes up late.
DEADLINE_GRACE_S = 1.0
# A run with a CPU budget is looked at no more often than this (a run without one is not polled).
CPU_POLL_FLOOR_S = 0.002
STOP_POLL_S = 0.25
"""How often a run still going after this long is looked at for being stopped (SIGSTOP, SIGTSTP):
a stopped program spends no CPU, so without a look it would hold its lane to the wall deadline."""
_CPUS = max(1, os.cpu_count() or 1)


def cpu_budget(limits: dict) -> float | None:
    """The run's CPU budget (``run_cpu_s``: seconds of its main process, all threads), if it has one."""
    value = limits.get("run_cpu_s")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


def process_cpu_clock(pid: int) -> int:
    """The clock id of a process's CPU time (Linux's ``MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)``):
    read with ``clock_gettime`` at no cost beyond the call, to the nanosecond, unlike the whole
    seconds of ``RLIMIT_CPU``."""
    return ((~pid) << 3) | 2


def cpu_seconds(clock: int) -> float:
    """CPU seconds on ``clock`` so far; 0.0 once the process is gone (its exit is seen on its pidfd)."""
    try:
        return time.clock_gettime(clock)
    except OSError:
        return 0.0


def is_stopped(pid: int) -> bool:
    """Whether the run's first process (a child of this zygote) is stopped, its state left to reap."""
    try:
        info = os.waitid(os.P_PID, pid, os.WSTOPPED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return info is not None and info.si_code == os.CLD_STOPPED


class SolutionZygote:
    def __init__(self, config: dict) -> None:
        self.link = socket.socket(fileno=config["link_fd"])
        self.workdir = os.path.join(config["root"], "work")
        self.pid_namespace = bool(config.get("pid_namespace"))
        self.work_bytes = int(config.get("work_bytes") or 64 << 20)
        self.work_inodes = int(config.get("work_inodes") or 10_000)
        self.fresh_mounts = False
        self.retire: str | None = None
        # The last run's working filesystem, still to be dropped: once its processes are all
        # dead its outcome is final, so the reply goes first and the unmount (an RCU grace
        # period) follows it, off the sample's critical path but before the next request is read.
        self.drop_pending = False
        self.retire_deferred = False  # ``retire`` came from such a drop, after the run was answered
        # The tmpfs mounted on the working directory: (the uid it is for, its ``pristine`` state
        # when mounted), and whether a run may take it as it is (the last one left it pristine).
        self.mounted: tuple[int | None, tuple] | None = None
        self.kept = False
        self.memory = open_cgroup(config.get("memory_cgroup"), unmount)  # the per-sample memory bound
        self.settled = settle_privileges()  # see there: what each sample then need not do itself
        # /dev/null for a sample's stdio, opened once here rather than in every sample process.
        self.devnull = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        if config.get("mount_work"):
            # Only inside a mount namespace of our own: outside one, a mount would be the host's.
            try:
                os.mkdir(self.workdir, 0o755)
                try:
                    mount_tmpfs(self.workdir, self.work_bytes, self.work_inodes, None)
                except OSError:
                    unshare_mounts()
                    mount_tmpfs(self.workdir, self.work_bytes, self.work_inodes, None)
                unmount(self.workdir)
                self.fresh_mounts = True
            except OSError:
                self.fresh_mounts = False

    def serve(self) -> None:
        if self.memory is not None and not self.memory.enter():
            self.memory = None  # the host then lowers the rlimits instead (the fallback)
        send(
            self.link.fileno(),
            {
                "ready": True,
                "uid": os.getuid(),
                "pid": os.getpid(),
                "fresh_mounts": self.fresh_mounts,
                "memory_cgroup": self.memory is not None,
            },
        )
        while True:
            try:
                request, fds = recv_fds(self.link, 4)
            except (EOFError, OSError, ProtocolError, ValueError):
                return
            if isinstance(request, dict) and request.get("op") == "sync":
                # The judge zygote asks once a sample is over: by now every run has been answered
                # and cleaned up, so the next sample starts on an idle, clean zygote.
                for fd in fds:
                    os.close(fd)
                send(self.link.fileno(), {"synced": request.get("token"), "retire": self.retire})
                if self.retire:
                    return
                continue
            if not isinstance(request, dict) or request.get("op") != "run":
                for fd in fds:  # a stop for a run that already ended
                    os.close(fd)
                continue
            if self.retire:
                # What a run left could not be cleaned: no more runs on this zygote.
                for fd in fds:
                    os.close(fd)
                if self.retire_deferred:
                    # Found after that run was answered, so perhaps that of another sample: this
                    # run must not be scored here at all (the host retries it on a fresh worker).
                    refusal = {"seq": request.get("seq"), "infrastructure": f"not run: {self.retire}"}
                    send(self.link.fileno(), refusal)
                else:
                    send(self.link.fileno(), {"seq": request.get("seq"), "retired": self.retire})
                continue
            try:
                reply = self.run(request, fds)
            except Exception as exc:
                kill_all_but_me(self.pid_namespace)
                reply = {"seq": request.get("seq"), "infrastructure": f"{type(exc).__name__}: {trim(str(exc))}"}
            send(self.link.fileno(), reply)
            self.drop_deferred()

    def drop_deferred(self) -> None:
        if self.drop_pending:
            self.drop_pending = False
            self.drop_workdir()
            self.retire_deferred = self.retire is not None

    def prepare_workdir(self, uid: int | None) -> None:
        if self.fresh_mounts:
            if self.kept and self.mounted is not None:
                # Left exactly as mounted by the last run (``drop_workdir``): the same as a fresh
                # one, without a mount and an unmount (an RCU grace period) per run.
                self.kept = False
                if self.mounted[0] == uid:
                    return
                if uid is not None:
                    os.chown(self.workdir, uid, uid)  # what the mount's ``uid=`` would have set
                    self.mounted = (uid, pristine_state(self.workdir))
                    return
            if self.mounted is not None:  # kept by no run (one that never got to its drop)
                self.mounted = None
                unmount(self.workdir)
            mount_tmpfs(self.workdir, self.work_bytes, self.work_inodes, uid)
            self.mounted = (uid, pristine_state(self.workdir))
            return
        if os.path.lexists(self.workdir):
            wipe_tree(self.workdir)
        os.mkdir(self.workdir, 0o700)
        if uid is not None:
            os.chown(self.workdir, uid, uid)

    def drop_workdir(self) -> None:
        """Remove what the sample left. Never raises: a failure retires this zygote instead."""
        try:
            if self.fresh_mounts:
                if self.mounted is not None and restore_pristine(self.workdir, self.mounted[1]):
                    self.kept = True  # nothing of the run is left in it: the next run takes it
                    return
                self.mounted, self.kept = None, False
                unmount(self.workdir)  # O(1) for us: the kernel frees the (bounded) inodes
            else:
                wipe_tree(self.workdir)
        except Exception as exc:
            # What the sample left behind is its own business, not an infrastructure failure of
            # its sample: the sample's outcome stands, and this worker is replaced afterwards.
            self.retire = f"the working directory could not be cleaned ({type(exc).__name__}: {trim(str(exc), 200)})"

    def run(self, request: dict, fds: list[int]) -> dict:
        uid = request.get("sample_uid")
        if uid is not None and os.getuid() != 0:
            uid = None
        try:
            self.prepare_workdir(uid)
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        serve = request["mode"] == "serve"
        rlimits = rlimit_plan(request["limits"])
        memory, kills_before = self.memory, 0
        if memory is not None:
            memory.set_limit(int(request["limits"].get("total_memory_mb") or 1536))
            kills_before = memory.kills()
        setup_r, setup_w = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for fd in (*fds, setup_r, setup_w):  # the judge sees EOF, then this run's infrastructure report
                os.close(fd)
            raise
        if pid == 0:
            try:
                self.link.close()
                devnull = self.devnull
                # Serving: the socket on 3, the pipe that announces a batch's answers on 4.
                sources = [devnull, devnull, devnull, *fds[:2]] if serve else fds[:3]
                # Park every source above the targets first: a source may sit on another target's number.
                parked = [fcntl.fcntl(fd, fcntl.F_DUPFD, 256) for fd in sources]
                for target, fd in enumerate(parked):
                    os.dup2(fd, target)
                setup_fd = fcntl.fcntl(setup_w, fcntl.F_DUPFD, len(parked))
                if memory is not None:
                    prefer_as_victim()  # at the bound, the kernel kills the sample, not the zygote
                become_solution(rlimits, uid, self.workdir, {*range(len(parked)), setup_fd}, self.settled)
                # Set-up done: say so, then close the pipe before the first line of the program.
                os.write(setup_fd, b"1")
                os.close(setup_fd)
            except BaseException:
                os._exit(120)
            # Nothing a sample raises may carry it on into the zygote's code below.
            code = 0
            try:
                if serve:
                    serve_solution(request["program"], 3, 4 if len(fds) > 1 else None)
                else:
                    run_stdio_program(request["program"])  # exits with the program's own code
            except BaseException:
                code = 1
            os._exit(code)
        for fd in (*fds, setup_w):
            os.close(fd)
        outcome: dict = {"seq": request["seq"], "exit": None, "signal": None, "timed_out": False, "stopped": False}
        pidfd = os.pidfd_open(pid)
        deadline = time.monotonic() + float(request["wall_s"]) + DEADLINE_GRACE_S
        budget = cpu_budget(request["limits"])
        clock = process_cpu_clock(pid)
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    outcome["timed_out"] = True
                    break
                wait = left
                if budget is not None:
                    spent = cpu_seconds(clock)
                    if spent >= budget:
                        outcome["timed_out"] = outcome["cpu_limited"] = True
                        break
                    # The process's threads spend at most one CPU second per CPU each second, so
                    # no earlier look could find the budget spent; the floor bounds the wake-ups.
                    wait = min(left, max((budget - spent) / _CPUS, CPU_POLL_FLOOR_S))
                wait = min(wait, STOP_POLL_S)
                watched: list[int | socket.socket] = [pidfd, self.link]
                if memory is not None:
                    watched += memory.readable()
                ready, _, alarms = select.select(watched, [], memory.exceptional() if memory else [], wait)
                if memory is not None and (alarms or memory.notify in ready):
                    memory.drain()
                    if memory.kills() > kills_before:
                        break  # a process of the sample was killed at the bound: stop the rest
                if not ready and not alarms and is_stopped(pid):
                    # Only another process of the sample could continue it; no honest program
                    # stops itself, so the run ends now as the timeout it would become anyway.
                    outcome["timed_out"] = outcome["self_stopped"] = True
                    break
                if pidfd in ready:
                    _, status, usage = os.wait4(pid, 0)
                    outcome["cpu_s"] = round(usage.ru_utime + usage.ru_stime, 6)
                    if os.WIFSIGNALED(status):
                        outcome["signal"] = os.WTERMSIG(status)
                    else:
                        outcome["exit"] = os.WEXITSTATUS(status)
                    break
                if self.link in ready:
                    try:
                        message, extra = recv_fds(self.link, 4, time.monotonic() + 5)
                    except (EOFError, OSError, ProtocolError, ValueError, TimeoutError):
                        outcome["stopped"] = True  # the judge is gone
                        break
                    for fd in extra:
                        os.close(fd)
                    if (
                        isinstance(message, dict)
                        and message.get("op") == "stop"
                        and message.get("seq") in ("*", request["seq"])
                    ):
                        outcome["stopped"] = True
                        break
        finally:
            os.close(pidfd)
            if "cpu_s" not in outcome:
                outcome["cpu_s"] = round(cpu_seconds(clock), 6)  # before the kill reaps it
            # With a tmpfs of its own per run in a PID namespace of our own, the unmount is left
            # to ``drop_deferred``, after the reply: once ``kill_all_but_me`` has reaped every
            # process of the sample nothing can change what the reply says.
            self.drop_pending = self.fresh_mounts and self.pid_namespace
            # The reap stays ahead of the reply although one ``kill(-1)`` already ends the run for
            # good: the reply promises that no process of the run exists any more (the memory
            # bound's tests read the cgroup's tasks right after a verdict). Replying first and
            # reaping after (round 10) gave 1.02-1.19x the throughput, inside this machine's noise.
            kill_all_but_me(self.pid_namespace, pgid=pid, uid=uid)
            # The set-up byte is written before the program starts, so it is there by now if ever.
            os.set_blocking(setup_r, False)
            try:
                outcome["setup_ok"] = os.read(setup_r, 1) == b"1"
            except BlockingIOError:
                outcome["setup_ok"] = False
            os.close(setup_r)
            if not self.drop_pending:
                self.drop_workdir()  # a wipe waits for every process to be gone
            if memory is not None and memory.kills() > kills_before:
                outcome["memory"] = memory.limit_mb
            if self.retire:
                outcome["retire"] = self.retire  # the judge passes it on: no extra round trip to learn it
        return outcome


def pristine_state(path: str) -> tuple:
    """What a run could change in an empty tmpfs on ``path`` and leave there: its root directory's
    inode (owner, mode, links, size), its free inodes and blocks (any file, directory or link the
    run made and kept, or unlinked but still holds), its extended attributes (ACLs included);
    then the root's access and modification times (the last item)."""
    info, space = os.lstat(path), os.statvfs(path)
    return (
        info.st_dev,
        info.st_ino,
        info.st_mode,
        info.st_uid,
        info.st_gid,
        info.st_nlink,
        info.st_size,
        space.f_ffree,
        space.f_bfree,
        tuple(os.listxattr(path, follow_symlinks=False)),
        (info.st_atime_ns, info.st_mtime_ns),
    )


def restore_pristine(path: str, mounted: tuple) -> bool:
    """Whether the tmpfs on ``path`` holds nothing a run could have left: ``pristine_state`` as
    when mounted, bar the root's times (a listing, a file made and removed, change them), which
    are then set back as they were. Any doubt: False (the caller mounts a fresh one)."""
    try:
        state = pristine_state(path)
        if state[:-1] != mounted[:-1]:
            return False
        if state[-1] != mounted[-1]:
            os.utime(path, ns=mounted[-1], follow_symlinks=False)
            state = pristine_state(path)
        return state == mounted
    except Exception:
        return False


def sample_environment(workdir: str) -> None:
    """The environment every sample process gets, set once in the zygote (a fork inherits it;
    nothing in the zygote changes it): exactly these variables. One thread for numpy's BLAS and
    OpenMP: a thread pool per core would meet the sample's process limit on a many-core host."""
    os.environ.clear()
    os.environ.update({"PATH": "/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8"})
    os.environ.update(dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1"))


def warm_capabilities() -> None:
    """Build, in the zygote, what ``become_solution`` calls (``privilege_calls``), and run the
    ctypes path it takes: ``capget`` goes through the same conversions as ``capset`` and changes
    nothing (into a block of its own: the empty one ``capset`` is given stays empty); afterwards
    a sample process finds them done instead of redoing them on pages it shares copy-on-write
    with the zygote (each first write there costs a page copy).
    """
    import ctypes

    _, c_prctl, _, header, data, get_errno = privilege_calls()
    scratch = type(data)()
    capget = _libc().capget
    for _ in range(WARM_ROUNDS):
        capget(header, scratch)
        c_prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
        get_errno()
    if bytes(data) != bytes(ctypes.sizeof(data)):
        raise RuntimeError("the empty capability block is not empty")


WARM_ROUNDS = 16
"""Runs of each warmed path in the zygote: CPython 3.11 specialises a function's bytecode in
place after its first few calls, and a sample process that did this itself would write (and so
copy) every page holding the code it runs."""
_REHEARSAL_PROGRAM = (
    "def f(*args, **kwargs):\n"
    "    if args and args[0] == 'raise':\n"
    "        raise ValueError('rehearsal')\n"
    "    return [args, kwargs, 1.5, 'x', None, True, {1: 2}, (1,), {3}, frozenset(), b'y', 2j, len, len(args)]\n"
    "class C:\n"
    "    pass\n"
    "def g():\n"
    "    return C()\n"
)
_REHEARSAL_CALLS: list = [
    ["call", ["name", "f"], ["L", [["I", "1"], ["S", "a"], ["L", [["F", "0.5"]]]]], ["D", [[["S", "k"], ["N"]]]]],
    ["call", ["name", "f"], ["L", [["S", "raise"]]], ["D", []]],
    ["lookup", "f"],
    ["call", ["name", "h"], ["L", []], ["D", []]],
    ["batch", [[["name", "f"], ["L", [["T", [["B", True]]]]], ["D", []]], [["name", "f"], ["L", []], ["D", []]]]],
    ["batch", [[["name", "g"], ["L", []], ["D", []]], [["name", "f"], ["L", []], ["D", []]]]],
]


def rehearse() -> None:
    """Serve a trusted program of our own in the zygote, as a sample process would (load it,
    answer calls, single and batched, results and errors), so that the code a sample process
    runs is already specialised and its lookups cached when the zygote forks one."""
    for _ in range(WARM_ROUNDS):
        mine, theirs = socket.socketpair()
        ready_r, ready_w = os.pipe()
        try:
            for message in _REHEARSAL_CALLS:
                send(theirs.fileno(), message)
            theirs.shutdown(socket.SHUT_WR)
            serve_solution(_REHEARSAL_PROGRAM, mine.fileno(), ready_w)
            theirs.setblocking(False)
            try:
                while theirs.recv(1 << 16):
                    pass
            except BlockingIOError:
                pass
        finally:
            mine.close()
            theirs.close()
            os.close(ready_r)
            os.close(ready_w)


def release_free_memory() -> None:
    """Hand the C heap's free pages back to the kernel before the first fork.

    What the warm-up freed stays mapped otherwise, and every fork would copy its page-table
    entries and every exit tear them down (the bootstrap did the same after compiling the
    harness). ``malloc_trim`` returns it (glibc; elsewhere nothing happens).
    """
    try:
        libc().malloc_trim(0)
    except Exception:
        pass


def run_solution_sandbox(config: dict) -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    privilege_calls()
    # After the standard library, so that a package can never shadow a module the harness uses.
    sys.path.extend(p for p in config.get("path", ()) if type(p) is str and os.path.isdir(p) and p not in sys.path)
    start_zygote("solution")
    zygote = SolutionZygote(config)
    sample_environment(zygote.workdir)
    warm_capabilities()
    rehearse()
    import gc

    gc.collect()
    gc.freeze()  # what the warm-up made, out of the collector's reach too (see ``start_zygote``)
    release_free_memory()
    zygote.serve()


if __name__ == "__main__":
    run_solution_sandbox(json.loads(sys.argv[1]))
