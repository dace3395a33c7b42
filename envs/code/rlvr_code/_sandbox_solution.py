"""The solution sandbox: runs untrusted programs, and never receives a test.

Its zygote takes requests from the judge over a Unix socket: a program, limits and the file
descriptors the program may use (a socket for function calls, or stdin/stdout/stderr pipes for
a stdin/stdout case). For each request it forks a process that drops privileges and runs the
program, enforces the wall clock, then kills every process left in the namespace and wipes the
working directory before answering.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import builtins
import json
import os
import socket
import sys
import time

from rlvr_code._sandbox_wire import (
    PR_SET_NO_NEW_PRIVS,
    ProtocolError,
    encode,
    kill_all_but_me,
    prctl,
    recv,
    recv_fds,
    send,
    start_zygote,
    trim,
)

# -- end wire imports --

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
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    os.environ.clear()
    os.environ.update({"PATH": "/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8"})


def _error_of(exc: BaseException) -> list:
    try:
        return ["err", type(exc).__name__, trim(str(exc))]
    except BaseException:
        return ["err", "Exception", "unprintable exception"]


def _resolve(target: object, refs: dict[int, object], namespace: dict) -> object:
    if type(target) is list and len(target) == 2 and target[0] == "name":
        if target[1] not in namespace:
            raise NameError(f"name {target[1]!r} is not defined by the solution")
        return namespace[target[1]]
    return refs[target]


def _decode_in_solution(item: list, refs: dict[int, object], namespace: dict) -> object:
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
    return {"N": lambda: None, "B": lambda: rest[0], "I": lambda: int(rest[0]), "F": lambda: float(rest[0]),
            "C": lambda: complex(float(rest[0]), float(rest[1])), "S": lambda: rest[0],
            "Y": lambda: bytes.fromhex(rest[0])}[tag]()


_PRISTINE_BUILTINS = dict(vars(builtins))


def _restore_builtins(current: dict = builtins.__dict__, pristine: dict = _PRISTINE_BUILTINS) -> None:
    """Undo whatever the solution did to the builtins module (``builtins.len = ...``).

    The harness shares this interpreter with the solution, and every function in it (and in
    the standard library) looks names up in that one module. Written without any builtin
    name lookup, since those are what may have been replaced.
    """
    for key in [*current]:
        if key not in pristine:
            del current[key]
    current.update(pristine)


def serve_solution(program: str, fd: int) -> None:
    """Run the solution's module, then answer the judge's calls until the pipe closes."""
    refs: dict[int, object] = {}
    namespace: dict[str, object] = {"__name__": "solution", "__builtins__": builtins}
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
                    result = setattr(obj, args[0], args[1])
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


class SolutionZygote:
    def __init__(self, config: dict) -> None:
        self.link = socket.socket(fileno=config["link_fd"])
        self.workdir = os.path.join(config["root"], "work")
        self.pid_namespace = bool(config.get("pid_namespace"))

    def serve(self) -> None:
        send(self.link.fileno(), {"ready": True, "uid": os.getuid(), "pid": os.getpid()})
        while True:
            try:
                request, fds = recv_fds(self.link, 4)
            except (EOFError, OSError, ProtocolError, ValueError):
                return
            if not isinstance(request, dict) or request.get("op") != "run":
                for fd in fds:  # a stop for a run that already ended
                    os.close(fd)
                continue
            try:
                reply = self.run(request, fds)
            except Exception as exc:
                kill_all_but_me(self.pid_namespace)
                reply = {"seq": request.get("seq"), "infrastructure": f"{type(exc).__name__}: {trim(str(exc))}"}
            send(self.link.fileno(), reply)

    def run(self, request: dict, fds: list[int]) -> dict:
        import select
        import shutil

        os.mkdir(self.workdir, 0o700)
        uid = request.get("sample_uid")
        if uid is not None and os.getuid() == 0:
            os.chown(self.workdir, uid, uid)
        serve = request["mode"] == "serve"
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
        deadline = time.monotonic() + float(request["wall_s"])
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    outcome["timed_out"] = True
                    break
                ready = select.select([pidfd, self.link], [], [], left)[0]
                if pidfd in ready:
                    _, status = os.waitpid(pid, 0)
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
                    if isinstance(message, dict) and message.get("op") == "stop" and \
                            message.get("seq") in ("*", request["seq"]):
                        outcome["stopped"] = True
                        break
        finally:
            os.close(pidfd)
            kill_all_but_me(self.pid_namespace, pgid=pid, uid=uid)
            # The set-up byte is written before the program starts, so it is there by now if ever.
            os.set_blocking(setup_r, False)
            try:
                outcome["setup_ok"] = os.read(setup_r, 1) == b"1"
            except BlockingIOError:
                outcome["setup_ok"] = False
            os.close(setup_r)
            shutil.rmtree(self.workdir, ignore_errors=True)
        if os.path.exists(self.workdir):
            raise RuntimeError("could not wipe the working directory")
        return outcome


def run_solution_sandbox(config: dict) -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    start_zygote()
    SolutionZygote(config).serve()


if __name__ == "__main__":
    run_solution_sandbox(json.loads(sys.argv[1]))
