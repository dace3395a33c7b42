"""The solution sandbox: runs untrusted programs, and never receives a test.

Its zygote takes requests from the judge over a Unix socket: a program, limits and the file
descriptors the program may use (a socket for function calls, or stdin/stdout/stderr pipes for
a stdin/stdout case). For each request it forks a process that drops privileges and runs the
program, enforces the wall clock, then kills every process left in the namespace and drops the
sample's working filesystem before answering.

Each sample gets a tmpfs of its own, mounted fresh on the working directory with a size and an
inode bound and unmounted (not walked) afterwards: what a program leaves behind, a million
empty directories or a chain of directories nested thousands deep, costs one ``umount`` and
can neither slow the next sample nor make the cleanup fail. Where mounting is not allowed
(reduced isolation, or a kernel that refuses it) the directory is wiped by ``wipe_tree``,
which needs no recursion and a constant number of file descriptors.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import builtins
import os
import socket
import sys
import time
from typing import Any

from rlvr_code._sandbox_memory import open_cgroup, prefer_as_victim
from rlvr_code._sandbox_wire import (
    PR_SET_NO_NEW_PRIVS,
    ProtocolError,
    encode,
    has_ref,
    kill_all_but_me,
    libc,
    prctl,
    recv,
    recv_fds,
    send,
    trim,
    version_tag_reader,
)

# -- end wire imports --

MS_NOSUID, MS_NODEV, MNT_DETACH, CLONE_NEWNS = 2, 4, 2, 0x00020000
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, _LINUX_CAPABILITY_VERSION_3 = 47, 4, 0x20080522


def _libc():
    return libc()


def mount_tmpfs(path: str, size_bytes: int, inodes: int, uid: int | None) -> None:
    """A fresh tmpfs on ``path``, owned by ``uid``, bounded in bytes and in inodes."""
    import ctypes

    options = f"size={size_bytes},nr_inodes={inodes},mode=0700"
    if uid is not None:
        options += f",uid={uid},gid={uid}"
    if _libc().mount(b"rlvr-work", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options.encode()) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount tmpfs on {path}: {os.strerror(errno)}")


def unshare_mounts() -> None:
    """A mount namespace of our own. In user-namespace mode (not root) bubblewrap's mount
    namespace belongs to an outer user namespace, so mounting needs one owned by ours."""
    import ctypes

    if _libc().unshare(CLONE_NEWNS) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"unshare(CLONE_NEWNS): {os.strerror(errno)}")


_CAP_STRUCTS: list = []


def _cap_structs() -> tuple:
    """capset's header and data types, made once (in the zygote, before any fork)."""
    if not _CAP_STRUCTS:
        import ctypes

        class Header(ctypes.Structure):
            _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

        class Data(ctypes.Structure):
            _fields_ = [
                ("effective", ctypes.c_uint32),
                ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32),
            ]

        _CAP_STRUCTS.extend((Header, Data * 2))
    return _CAP_STRUCTS[0], _CAP_STRUCTS[1]


def drop_capabilities() -> None:
    """Empty every capability set of this process (ambient, effective, permitted, inheritable).

    As root the switch to the sample's uid already clears them; in user-namespace mode the
    sample keeps the zygote's uid, and would otherwise keep its CAP_SYS_ADMIN.
    """
    import ctypes

    header_type, data_type = _cap_structs()
    libc = _libc()
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header, data = header_type(_LINUX_CAPABILITY_VERSION_3, 0), data_type()
    if libc.capset(ctypes.byref(header), data) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"capset: {os.strerror(errno)}")


def unmount(path: str) -> None:
    import ctypes

    if _libc().umount2(path.encode(), MNT_DETACH) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"umount {path}: {os.strerror(errno)}")


def wipe_tree(path: str) -> None:
    """Delete ``path`` and everything under it, however deep, with O(1) open files.

    ``shutil.rmtree`` recurses (a chain of 1,000 directories raises ``RecursionError``) and
    holds a descriptor per level. Here a directory that will not go is emptied by moving its
    entries up into the top directory under fresh names and deleting what is there: a chain
    of depth n costs n renames.
    """
    import stat

    if not os.path.lexists(path):
        return
    if not stat.S_ISDIR(os.lstat(path).st_mode):
        os.unlink(path)
        return
    os.chmod(path, 0o700)  # the sample may have locked its own directories (mode 000)
    top = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    prefix, counter = f".rlvr-wipe-{os.urandom(6).hex()}-", 0
    try:
        pending = os.listdir(top)
        while pending:
            name = pending.pop()
            try:
                os.unlink(name, dir_fd=top)
                continue
            except IsADirectoryError:
                pass
            except FileNotFoundError:
                continue
            try:
                os.rmdir(name, dir_fd=top)
                continue
            except OSError:
                pass
            # A directory with entries: lift them into the top directory, then drop it.
            os.chmod(name, 0o700, dir_fd=top)  # not a symlink: unlink would have removed it
            sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top)
            try:
                for child in os.listdir(sub):
                    counter += 1
                    os.rename(child, f"{prefix}{counter}", src_dir_fd=sub, dst_dir_fd=top)
                    pending.append(f"{prefix}{counter}")
            finally:
                os.close(sub)
            os.rmdir(name, dir_fd=top)
            if not pending:
                pending = os.listdir(top)  # nothing should be left; if something is, go again
    finally:
        os.close(top)
    os.rmdir(path)


def signal_everyone() -> None:
    """SIGKILL every other process of this PID namespace, once, without waiting (in a namespace
    of our own only: ``kill_all_but_me`` then repeats it until none is left and reaps them)."""
    import signal

    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass


def become_solution(request: dict, workdir: str, keep: set[int]) -> None:
    """Everything between fork and the first line of untrusted code: the point of no return."""
    import resource

    os.setsid()
    top = max(keep) + 1
    os.closerange(top, 1 << 16)
    for fd in range(3, top):
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
    os.chdir(workdir)
    limits = request["limits"]
    megabyte = 1024 * 1024
    cpu = int(limits["cpu_s"]) + 1
    for which, value in (
        (resource.RLIMIT_AS, limits["memory_mb"] * megabyte),
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_FSIZE, limits["file_mb"] * megabyte),
        (resource.RLIMIT_NOFILE, limits["open_files"]),
        (resource.RLIMIT_NPROC, limits["processes"]),
        (resource.RLIMIT_CORE, 0),
    ):
        soft, hard = value if isinstance(value, tuple) else (value, value)
        resource.setrlimit(which, (soft, hard))
    uid = request.get("sample_uid")
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        if os.getuid() == 0 or os.geteuid() == 0:
            os._exit(121)  # never run untrusted code as root
    drop_capabilities()  # raises (the sample is not run) if it cannot
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    # The environment is the sample's already: the zygote set it (``sample_environment``).


def _error_of(exc: BaseException) -> list:
    try:
        # Trimmed here so a class named with megabytes still reports; the judge trims again.
        return ["err", trim(type(exc).__name__, 200), trim(str(exc))]
    except BaseException:
        return ["err", "Exception", "unprintable exception"]


def _resolve(target: Any, refs: dict[int, Any], namespace: dict) -> Any:
    if type(target) is list and len(target) == 2 and target[0] == "name":
        if target[1] not in namespace:
            raise NameError(f"name {target[1]!r} is not defined by the solution")
        return namespace[target[1]]
    return refs[target]


def _decode_in_solution(item: list, refs: dict[int, Any], namespace: dict) -> Any:
    tag, rest = item[0], item[1:]
    if tag == "R":
        return _resolve(rest[0], refs, namespace)
    if tag == "G":
        return getattr(builtins, rest[0])
    if tag in ("L", "T", "E", "Z"):
        items = [_decode_in_solution(v, refs, namespace) for v in rest[0]]
        return {"L": list, "T": tuple, "E": set, "Z": frozenset}[tag](items)
    if tag == "D":
        return {_decode_in_solution(k, refs, namespace): _decode_in_solution(v, refs, namespace) for k, v in rest[0]}
    return {
        "N": lambda: None,
        "B": lambda: rest[0],
        "I": lambda: int(rest[0]),
        "F": lambda: float(rest[0]),
        "C": lambda: complex(float(rest[0]), float(rest[1])),
        "S": lambda: rest[0],
        "Y": lambda: bytes.fromhex(rest[0]),
    }[tag]()


_PRISTINE_BUILTINS = dict(vars(builtins))
_BUILTINS_TAG = version_tag_reader()
_BUILTINS_VERSION = [_BUILTINS_TAG(builtins.__dict__) if _BUILTINS_TAG is not None else None]
_BUILTINS_VERSION.append(_BUILTINS_VERSION[0].value if _BUILTINS_VERSION[0] is not None else None)


def _restore_builtins(
    current: dict = builtins.__dict__, pristine: dict = _PRISTINE_BUILTINS, seen: list = _BUILTINS_VERSION
) -> None:
    """Undo whatever the solution did to the builtins module (``builtins.len = ...``).

    The harness shares this interpreter with the solution, and every function in it (and in
    the standard library) looks names up in that one module. Written without any builtin
    name lookup, since those are what may have been replaced.

    When the module's version tag (``version_tag_reader``) is the one it had after the last
    restore, nothing was written to it and there is nothing to undo: the usual case, in which
    walking its 160 entries cost about 30 µs a call, and copy-on-write faults on the pages of
    every builtin whose reference count the update touched. (A program that rewrites the dict's
    memory with ``ctypes`` leaves the tag as it was, but could as well rewrite this function:
    this process is the solution's in any case, and the judge trusts nothing it says.)
    """
    tag = seen[0]
    if tag is not None and tag.value == seen[1]:
        return
    for key in [*current]:
        if key not in pristine:
            del current[key]
    current.update(pristine)
    if tag is not None:
        seen[1] = tag.value


def serve_solution(program: str, fd: int) -> None:
    """Run the solution's module, then answer the judge's calls until the pipe closes."""
    refs: dict[int, Any] = {}
    namespace: dict[str, Any] = {"__name__": "solution", "__builtins__": builtins}
    try:
        exec(compile(program, "<solution>", "exec"), namespace)
    except BaseException as exc:
        _restore_builtins()
        send(fd, ["load_error", *_error_of(exc)[1:]])
        return
    _restore_builtins()
    send(fd, ["loaded"])
    while True:
        try:
            message = recv(fd)
        except (EOFError, OSError):
            return
        if type(message) is list and len(message) == 2 and message[0] == "batch" and type(message[1]) is list:
            serve_batch(message[1], refs, namespace, fd)
            continue
        try:
            op, target, *args = message
            args = [_decode_in_solution(a, refs, namespace) for a in args]
            if op == "lookup":
                if target not in namespace:
                    raise NameError(f"name {target!r} is not defined by the solution")
                result = namespace[target]
            else:
                obj = _resolve(target, refs, namespace)
                if op == "call":
                    result = obj(*args[0], **args[1])
                elif op == "getattr":
                    result = getattr(obj, args[0])
                elif op == "setattr":
                    setattr(obj, args[0], args[1])
                    result = None
                elif op == "getitem":
                    result = obj[args[0]]
                elif op == "iter":
                    result = list(obj)
                elif op == "len":
                    result = len(obj)
                else:
                    raise ValueError(f"unknown operation {op!r}")
            _restore_builtins()
            reply = ["ok", encode(result, refs)]
        except BaseException as exc:
            _restore_builtins()
            reply = _error_of(exc)
        send(fd, reply)


def serve_batch(calls: list, refs: dict[int, Any], namespace: dict, fd: int) -> None:
    """Calls the judge sent ahead (``_sandbox_batch``): run in order, each answered as it returns,
    exactly as if each had come alone. An answer holding an object that stays here ends the
    batch: the judge may go on to use that object, so it asks for everything after one by one."""
    for item in calls:
        try:
            target, wired_args, wired_kwargs = item
            args = _decode_in_solution(wired_args, refs, namespace)
            kwargs = _decode_in_solution(wired_kwargs, refs, namespace)
            obj = _resolve(target, refs, namespace)
            result = obj(*args, **kwargs)
            _restore_builtins()
            encoded = encode(result, refs)
            reply = ["ok", encoded, "end"] if has_ref(encoded) else ["ok", encoded]
        except BaseException as exc:
            _restore_builtins()
            reply = _error_of(exc)
        send(fd, reply)
        if len(reply) == 3 and reply[0] == "ok":
            return


def run_stdio_program(program: str) -> None:
    import io
    import traceback

    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8", errors="replace")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace")
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace")
    code = 0
    try:
        exec(compile(program, "<solution>", "exec"), {"__name__": "__main__", "__builtins__": builtins})
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(code & 0xFF)


# The solution zygote's own kill deadline trails the judge's by this much: the judge, which
# knows the sample's budget, always decides and reports a timeout itself, even when the
# machine is so loaded that it wakes up late.
DEADLINE_GRACE_S = 1.0
# A run with a CPU budget is looked at no more often than this (a run without one is not polled).
CPU_POLL_FLOOR_S = 0.002
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


class SolutionZygote:
    def __init__(self, config: dict) -> None:
        self.link = socket.socket(fileno=config["link_fd"])
        self.workdir = os.path.join(config["root"], "work")
        self.pid_namespace = bool(config.get("pid_namespace"))
        self.work_bytes = int(config.get("work_bytes") or 64 << 20)
        self.work_inodes = int(config.get("work_inodes") or 10_000)
        self.fresh_mounts = False
        self.retire: str | None = None
        self.memory = open_cgroup(config.get("memory_cgroup"), unmount)  # the per-sample memory bound
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
                # A case of this sample left what could not be cleaned: no more runs on this zygote.
                for fd in fds:
                    os.close(fd)
                send(self.link.fileno(), {"seq": request.get("seq"), "retired": self.retire})
                continue
            try:
                reply = self.run(request, fds)
            except Exception as exc:
                kill_all_but_me(self.pid_namespace)
                reply = {"seq": request.get("seq"), "infrastructure": f"{type(exc).__name__}: {trim(str(exc))}"}
            send(self.link.fileno(), reply)

    def prepare_workdir(self, uid: int | None) -> None:
        if self.fresh_mounts:
            mount_tmpfs(self.workdir, self.work_bytes, self.work_inodes, uid)
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
                unmount(self.workdir)  # O(1) for us: the kernel frees the (bounded) inodes
            else:
                wipe_tree(self.workdir)
        except Exception as exc:
            # What the sample left behind is its own business, not an infrastructure failure of
            # its sample: the sample's outcome stands, and this worker is replaced afterwards.
            self.retire = f"the working directory could not be cleaned ({type(exc).__name__}: {trim(str(exc), 200)})"

    def run(self, request: dict, fds: list[int]) -> dict:
        import select

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
                devnull = os.open(os.devnull, os.O_RDWR)
                sources = [devnull, devnull, devnull, fds[0]] if serve else fds[:3]
                # Park every source above the targets first: a source may sit on another target's number.
                import fcntl

                parked = [fcntl.fcntl(fd, fcntl.F_DUPFD, 256) for fd in sources]
                for target, fd in enumerate(parked):
                    os.dup2(fd, target)
                setup_fd = fcntl.fcntl(setup_w, fcntl.F_DUPFD, len(parked))
                if memory is not None:
                    prefer_as_victim()  # at the bound, the kernel kills the sample, not the zygote
                become_solution(request, self.workdir, {*range(len(parked)), setup_fd})
                # Set-up done: say so, then close the pipe before the first line of the program.
                os.write(setup_fd, b"1")
                os.close(setup_fd)
            except BaseException:
                os._exit(120)
            if serve:
                serve_solution(request["program"], 3)
                os._exit(0)
            run_stdio_program(request["program"])
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
                watched: list[int | socket.socket] = [pidfd, self.link]
                if memory is not None:
                    watched += memory.readable()
                ready, _, alarms = select.select(watched, [], memory.exceptional() if memory else [], wait)
                if memory is not None and (alarms or memory.notify in ready):
                    memory.drain()
                    if memory.kills() > kills_before:
                        break  # a process of the sample was killed at the bound: stop the rest
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
            overlap = self.fresh_mounts and self.pid_namespace
            if overlap:
                # Detach the sample's filesystem while its processes die: the unmount waits for
                # an RCU grace period (most of a millisecond), the exits take about as long, and
                # side by side they cost the sample's end one wait instead of two. A process
                # still dying only holds the detached tree, freed once the last one is reaped.
                signal_everyone()
                self.drop_workdir()
            kill_all_but_me(self.pid_namespace, pgid=pid, uid=uid)
            # The set-up byte is written before the program starts, so it is there by now if ever.
            os.set_blocking(setup_r, False)
            try:
                outcome["setup_ok"] = os.read(setup_r, 1) == b"1"
            except BlockingIOError:
                outcome["setup_ok"] = False
            os.close(setup_r)
            if not overlap:
                self.drop_workdir()  # a wipe waits for every process to be gone
            if memory is not None and memory.kills() > kills_before:
                outcome["memory"] = memory.limit_mb
            if self.retire:
                outcome["retire"] = self.retire  # the judge passes it on: no extra round trip to learn it
        return outcome
