"""The solution sandbox: runs untrusted programs, and never receives a test.

Its zygote (``_sandbox_solution_zygote``) takes requests from the judge over a Unix socket: a
program, limits and the file descriptors the program may use (a socket for function calls, or
stdin/stdout/stderr pipes for a stdin/stdout case). For each request it forks a process that
drops privileges and runs the program (this module: what runs in that process, and the helpers
for its working filesystem), enforces the wall clock and the CPU budget, then kills every
process left in the namespace and drops the sample's working filesystem before answering.

Each sample gets a tmpfs of its own on the working directory, with a size and an inode bound,
unmounted (not walked) afterwards: what a program leaves behind, a million empty directories or
a chain of directories nested thousands deep, costs one ``umount`` and can neither slow the
next sample nor make the cleanup fail. A run that left it exactly as mounted hands it to the
next run instead (``_sandbox_solution_zygote.restore_pristine``). Where mounting is not allowed
(reduced isolation, or a kernel that refuses it) the directory is wiped by ``wipe_tree``,
which needs no recursion and a constant number of file descriptors.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import builtins
import os
import resource
import sys
from typing import Any

from rlvr_code._sandbox_wire import (
    PR_SET_NO_NEW_PRIVS,
    build_stdlib,
    encode,
    frame,
    has_ref,
    libc,
    recv,
    send,
    send_frames,
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


_CALLS: list = []


def privilege_calls() -> tuple:
    """What ``become_solution`` calls, looked up and built once, in the zygote before any fork:
    ``setrlimit``, libc's ``prctl`` and ``capset`` with capset's arguments (an empty data block
    for every set), ``ctypes.get_errno``. A sample process that built them itself would write,
    and so copy, every page they touch (about 30 page faults a sample)."""
    if not _CALLS:
        import ctypes
        import resource

        header_type, data_type = _cap_structs()
        header = header_type(_LINUX_CAPABILITY_VERSION_3, 0)
        c = _libc()
        _CALLS.extend((resource.setrlimit, c.prctl, c.capset, ctypes.byref(header), data_type(), ctypes.get_errno))
    return tuple(_CALLS)


def drop_capabilities() -> None:
    """Empty every capability set of this process (ambient, effective, permitted, inheritable).

    As root the switch to the sample's uid already clears them; in user-namespace mode the
    sample keeps the zygote's uid, and would otherwise keep its CAP_SYS_ADMIN.
    """
    _, c_prctl, c_capset, header, data, get_errno = privilege_calls()
    c_prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if c_capset(header, data) != 0:
        errno = get_errno()
        raise OSError(errno, f"capset: {os.strerror(errno)}")


PR_GET_SECUREBITS = 27


def settle_privileges() -> bool:
    """Once, in the zygote: empty its ambient and inheritable capability sets (it keeps the
    effective and permitted ones it mounts and switches uids with) and make sure of
    no-new-privileges and of securebits all clear; True when ``/proc/self/status`` then confirms
    it. A sample process forked after that holds no capability in any set from its ``setuid``
    away from root alone (the kernel clears the permitted, effective and ambient sets on that
    switch unless a securebit says otherwise; the inheritable set it inherits empty), and
    no-new-privileges is inherited: ``become_solution`` then skips ``drop_capabilities`` and the
    ``prctl``, three ctypes calls a sample (ctypes' and libffi's pages faulted in, and its objects
    copied, in every sample process). Never raises: False keeps every sample doing both itself."""
    try:
        _, c_prctl, c_capset, header, _, _ = privilege_calls()
        block = type(privilege_calls()[4])()  # a block of its own: the empty one stays empty
        if c_prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0:
            return False
        if _libc().capget(header, block) != 0:
            return False
        for part in block:
            part.inheritable = 0
        if c_capset(header, block) != 0 or c_prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        if c_prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) != 0:
            return False  # keep-caps or no-setuid-fixup: the setuid would not clear the sets
        with open("/proc/self/status", encoding="ascii") as fh:
            status = dict(line.split(":", 1) for line in fh.read().splitlines() if ":" in line)
        return int(status["CapInh"], 16) == 0 and int(status["CapAmb"], 16) == 0 and status["NoNewPrivs"].strip() == "1"
    except Exception:
        return False


def rlimit_plan(limits: dict) -> list:
    """(resource, (soft, hard)) for each rlimit of a sample process: worked out in the zygote,
    before the fork, so the sample process only applies them."""
    megabyte = 1024 * 1024
    cpu = int(limits["cpu_s"]) + 1
    plan = []
    for which, value in (
        (resource.RLIMIT_AS, limits["memory_mb"] * megabyte),
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_FSIZE, limits["file_mb"] * megabyte),
        (resource.RLIMIT_NOFILE, limits["open_files"]),
        (resource.RLIMIT_NPROC, limits["processes"]),
        (resource.RLIMIT_CORE, 0),
    ):
        plan.append((which, value if isinstance(value, tuple) else (value, value)))
    return plan


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


def become_solution(rlimits: list, uid: int | None, workdir: str, keep: set[int], settled: bool = False) -> None:
    """Everything between fork and the first line of untrusted code: the point of no return.
    ``rlimits``: ``rlimit_plan``'s; ``uid``: the sample's own (as root), or None; ``settled``:
    the zygote's ``settle_privileges`` held (no inheritable or ambient capability, no new
    privileges, securebits clear)."""
    setrlimit, c_prctl = privilege_calls()[:2]
    # A process group of its own (what ``kill_tree`` kills, and all ``kill(0)`` reaches), not a
    # session: with the scheduler's autogroups on, ``setsid`` makes a task group per sample, which
    # cost 1.5-2.8 ms a sample here against 16 us. There is no terminal to detach from: bubblewrap
    # started the sandbox in a new session of its own (``--new-session``).
    os.setpgid(0, 0)
    # Every descriptor not kept, closed a run of numbers at a time (``close_range``: one call for
    # the zygote's eight or so between the kept ones, not one each).
    start = 3
    for fd in sorted(keep):
        if fd > start:
            os.closerange(start, fd)
        start = max(start, fd + 1)
    os.closerange(start, 1 << 16)
    os.chdir(workdir)
    for which, pair in rlimits:
        setrlimit(which, pair)
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        if os.getuid() == 0 or os.geteuid() == 0:
            os._exit(121)  # never run untrusted code as root
        if settled:
            return  # the switch from root emptied every set; no-new-privileges came with the fork
    drop_capabilities()  # raises (the sample is not run) if it cannot
    if c_prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError("prctl(PR_SET_NO_NEW_PRIVS) failed")
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
    if tag == "V":  # a Fraction, deque, range... the tests pass as an argument
        return build_stdlib(rest[0], [_decode_in_solution(v, refs, namespace) for v in rest[1]])
    # Scalars by a chain of tests, not a table of lambdas built on every call (seven function
    # objects and a dict per argument: allocations, and pages written copy-on-write, per call).
    if tag == "I":
        return int(rest[0])
    if tag == "S" or tag == "B":
        return rest[0]
    if tag == "N":
        return None
    if tag == "F":
        return float(rest[0])
    if tag == "C":
        return complex(float(rest[0]), float(rest[1]))
    if tag == "Y":
        return bytes.fromhex(rest[0])
    raise KeyError(tag)


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


def serve_solution(program: str, fd: int, ready_fd: int | None = None) -> None:
    """Run the solution's module, then answer the judge's calls until the pipe closes.

    ``ready_fd`` (a pipe's write end, when the judge gave one) is where a batch's answers are
    announced (``serve_batch``); nothing else is written there."""
    if ready_fd is not None:
        try:
            os.set_blocking(ready_fd, False)  # a full pipe already wakes the judge: never wait on it
        except OSError:
            ready_fd = None
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
            serve_batch(message[1], refs, namespace, fd, ready_fd)
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


READY_BYTES = 64 * 1024
"""Answers of a batch written since the last announcement, at most (far below a socket's buffer,
so the solution never blocks on a judge that waits for the announcement)."""


def serve_batch(calls: list, refs: dict[int, Any], namespace: dict, fd: int, ready_fd: int | None = None) -> None:
    """Calls the judge sent ahead (``_sandbox_batch``): run in order, each answered as it returns,
    exactly as if each had come alone. An answer holding an object that stays here ends the
    batch: the judge may go on to use that object, so it asks for everything after one by one.

    Each answer goes into the socket as soon as it is made (what a process that then dies or
    hangs had answered is the judge's to read), but the judge is not woken for each: it waits on
    ``ready_fd``, written once the batch is answered (and before an answer that would bring the
    unannounced bytes over ``READY_BYTES``), so a fast batch costs the judge one wake-up, not one
    per call. A judge that hears nothing reads the socket after a short wait anyway."""
    unannounced = 0
    try:
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
            data = frame(reply)
            if ready_fd is not None and unannounced + len(data) > READY_BYTES:
                _announce(ready_fd)
                unannounced = 0
            send_frames(fd, [data])
            unannounced += len(data)
            if len(reply) == 3 and reply[0] == "ok":
                return
    finally:
        if ready_fd is not None:
            _announce(ready_fd)


def _announce(ready_fd: int) -> None:
    try:
        os.write(ready_fd, b".")
    except OSError:
        pass  # full (the judge is woken already) or closed by the program (the judge reads the socket)


def run_stdio_program(program: str) -> None:
    import io

    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8", errors="replace")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace")
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace")
    code = 0
    try:
        exec(compile(program, "<solution>", "exec"), {"__name__": "__main__", "__builtins__": builtins})
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:
        code = 1
        try:
            print_exception(exc)
        except BaseException:
            pass  # stderr is the program's to break; its exit code still says it failed
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(code & 0xFF)


_REPEATS_SHOWN = 3
"""``traceback``'s collapse of a frame repeated in a row (recursion): this many shown, then a count."""
_GROUPS = getattr(builtins, "BaseExceptionGroup", ())  # exception groups (3.11 on): traceback's to show


def format_exception(exc: BaseException) -> str | None:
    """``traceback.format_exception(exc)``'s text where it is plain (frames of code compiled from
    a string, one exception, no notes, not a ``SyntaxError``), without ``traceback``, which the
    solution zygote no longer imports (issue 30, round 14: 0.3 MB of its memory, 2-3 ms to import
    in a sample); None for anything else (chained exceptions, groups, source lines to show), which
    only ``traceback`` itself says right."""
    if (
        exc.__cause__ is not None
        or (exc.__context__ is not None and not exc.__suppress_context__)
        or isinstance(exc, (SyntaxError, _GROUPS))
        or getattr(exc, "__notes__", None) is not None
        or hasattr(sys, "tracebacklimit")
    ):
        return None
    cache = getattr(sys.modules.get("linecache"), "cache", None)
    lines, last, repeated = ["Traceback (most recent call last):\n"], None, 0
    tb = exc.__traceback__
    while tb is not None:
        code, number = tb.tb_frame.f_code, tb.tb_lineno
        name = code.co_filename
        if type(name) is not str or not (name.startswith("<") and name.endswith(">")) or number is None:
            return None  # a file's frame: traceback shows its source line
        if isinstance(cache, dict) and name in cache:
            return None  # the program put its own source there for traceback to show
        line = f'  File "{name}", line {number}, in {code.co_name}\n'
        if line == last:
            repeated += 1
        else:
            _flush_repeats(lines, repeated)
            last, repeated = line, 1
        if repeated <= _REPEATS_SHOWN:
            lines.append(line)
        tb = tb.tb_next
    _flush_repeats(lines, repeated)
    kind = type(exc)
    qualname, module = kind.__qualname__, kind.__module__
    if module not in ("__main__", "builtins"):
        qualname = f"{module if isinstance(module, str) else '<unknown>'}.{qualname}"
    try:
        text = str(exc)
    except Exception:  # as traceback's ``_safe_string``
        text = "<exception str() failed>"
    lines.append(f"{qualname}: {text}\n" if text else f"{qualname}\n")
    return "".join(lines)


def _flush_repeats(lines: list[str], repeated: int) -> None:
    if repeated > _REPEATS_SHOWN:
        more = repeated - _REPEATS_SHOWN
        lines.append(f"  [Previous line repeated {more} more time{'s' if more > 1 else ''}]\n")


def print_exception(exc: BaseException) -> None:
    """What ``traceback.print_exc()`` prints for ``exc``, to ``sys.stderr``."""
    text = format_exception(exc)
    if text is None:
        import traceback

        traceback.print_exception(exc)
        return
    sys.stderr.write(text)
