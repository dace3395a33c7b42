"""The REPL that runs inside the ``python`` tool's sandbox (``/usr/bin/python3 -I -S -c <this>``).

Not imported by the host: ``python_tool`` reads this file and passes it as the ``-c`` program.
Requests and replies travel on the pipes that were fd 0/1 at start (moved to fresh fds, framed
as 4-byte length + JSON); the cell's own fd 0 is /dev/null and fds 1 and 2 are one memfd, made
fresh for each call, so ``print``, tracebacks, ``os.write(1, ...)`` and child processes all land in
the cell's output in the order they were written, and a child that outlives its cell writes into
its own cell's memfd, never a later one's. The memfd is bounded by RLIMIT_FSIZE (writes past it fail).
"""

import ast
import io
import json
import os
import resource
import signal
import struct
import sys
import traceback
import types

_HEADER = struct.Struct(">I")


def _limit(config):
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past RLIMIT_FSIZE fails instead of killing
    for name, value in (
        ("RLIMIT_AS", config["memory_mb"] << 20),
        ("RLIMIT_NPROC", config["processes"]),
        ("RLIMIT_FSIZE", config["file_mb"] << 20),
        ("RLIMIT_NOFILE", config["open_files"]),
        ("RLIMIT_CORE", 0),
    ):
        resource.setrlimit(getattr(resource, name), (value, value))
    uid = config.get("uid")
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)  # drops every capability bubblewrap left (CAP_SETUID/CAP_SETGID)


def _read_exact(fd, n):
    chunks = []
    while n:
        chunk = os.read(fd, n)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _streams():
    sys.stdout = io.TextIOWrapper(
        io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True
    )
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True
    )


def _user_traceback(exc):
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != "<cell>":
        tb = tb.tb_next  # our own frames are not the model's business
    return "".join(traceback.format_exception(type(exc), exc, tb))


def _run_cell(code, namespace):
    """Run ``code`` like a REPL cell: the last expression's value is printed (and kept as ``_``)."""
    try:
        tree = ast.parse(code, "<cell>", "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        sys.stderr.write("".join(traceback.format_exception_only(type(exc), exc)))
        return True
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    try:
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(last, "<cell>", "eval"), namespace)
            if value is not None:
                namespace["_"] = value
                sys.stdout.write(repr(value) + "\n")
    except BaseException as exc:  # SystemExit and KeyboardInterrupt included: the session goes on
        try:
            sys.stderr.write(_user_traceback(exc))
        except BaseException:
            try:  # a full output file, a broken __repr__: the kind at least, where it still fits
                os.write(2, f"{type(exc).__name__} (its message could not be shown)\n".encode())
            except BaseException:
                pass
        return True
    return False


def _fresh_output(previous):
    """A new memfd on fds 1 and 2 for this call; returns it (the descriptor to read the answer from)."""
    try:
        output = os.memfd_create("cell-output", 0)
    except OSError:
        # The cells hold every descriptor RLIMIT_NOFILE allows. Fds 1 and 2 are only copies of the
        # last output: closing them frees the slot a fresh memfd needs. Truncating and reusing the
        # last memfd instead would hand this call a file whose offset a child of that cell still
        # shares: its late writes would land inside this call's answer.
        for fd in (1, 2):
            if fd == previous:  # the last memfd took this slot itself: kept for the reuse below
                continue
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            output = os.memfd_create("cell-output", 0)
        except OSError:  # not for want of a descriptor (ENOMEM): reuse rather than lose the session
            if previous is None:
                raise
            os.ftruncate(previous, 0)
            os.lseek(previous, 0, os.SEEK_SET)
            output = previous
    for fd in (1, 2):
        if fd != output:
            os.dup2(output, fd)
    # A memfd that had to take slot 1 or 2 is that std stream's own: the next call's dup2 replaces it.
    if previous is not None and previous > 2 and previous != output:
        os.close(previous)
    return output


def main():
    config = json.loads(sys.argv[1])
    requests, replies = os.dup(0), os.dup(1)
    _limit(config)
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.path.extend(p for p in config["path"] if os.path.isdir(p) and p not in sys.path)
    module = types.ModuleType("__main__")
    sys.modules["__main__"] = module
    namespace = module.__dict__
    cap = config["output_bytes"]
    os.write(replies, _HEADER.pack(2) + b"{}")
    server = os.getpid()
    output = None
    while True:
        try:
            size = _HEADER.unpack(_read_exact(requests, _HEADER.size))[0]
            request = json.loads(_read_exact(requests, size))
        except (EOFError, OSError, ValueError):
            os._exit(0)
        # Each call writes into a memfd of its own: a child an earlier cell forked (a bomb's last
        # processes, a daemon) still holds that cell's memfd, so whatever it writes later lands
        # there, unread, never inside a later call's answer.
        output = _fresh_output(output)
        try:
            _streams()
            failed = _run_cell(request["code"], namespace)
        except BaseException:  # whatever the cell broke on its way out: the session answers
            failed = True
        if os.getpid() != server:
            # A bare os.fork() in the cell returns here in the child too: it would answer this call
            # and read the next one, racing the session. Its cell is over; it leaves.
            os._exit(0)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        total = os.fstat(output).st_size
        text = os.pread(output, min(total, cap), 0).decode("utf-8", "replace")
        body = json.dumps({"output": text, "bytes": total, "error": failed}).encode()
        os.write(replies, _HEADER.pack(len(body)) + body)


main()
