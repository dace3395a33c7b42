"""The isolated floor of ``bench/code_sandbox.py`` (what any sandbox of this design must pay at
least), and the timing helpers every row of that bench shares.

The floor: a warm ``python3 -I -S`` zygote per lane in bubblewrap (the sandbox's own namespaces
and mounts), a fork per sample with rlimits and a per-lane uid running program + tests in one
process, then ``kill(-1)`` and a wipe of the working directory. No judge/solution split: a program
can forge its verdict, which is why it is a floor and not a sandbox.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import IO

Sample = tuple[dict, str, bool]  # (HumanEval row, program, whether it should pass)


def script(row: dict, program: str) -> str:
    return f"{program}\n\n{row['test']}\n\ncheck({row['entry_point']})\n"


def timed_lanes(samples: list[Sample], lanes: int, one) -> tuple[list[tuple[bool, float]], float]:
    def timed(item):
        start = time.perf_counter()
        passed = one(item)
        return passed, time.perf_counter() - start

    start = time.perf_counter()
    with ThreadPoolExecutor(lanes) as pool:
        results = list(pool.map(timed, samples))
    return results, time.perf_counter() - start


# -- the isolated floor ------------------------------------------------------------------------------
FLOOR_ZYGOTE = r"""
import gc, json, os, resource, select, signal, struct, sys
HEADER = struct.Struct(">I")
for name in %(preimport)r:
    try:
        __import__(name)
    except ImportError:
        pass
import ctypes
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
os.umask(0o077)
WORK = "/tmp/floor/work"
os.makedirs(WORK, 0o755, exist_ok=True)
gc.collect()
gc.freeze()
def read(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            raise SystemExit(0)
        data += chunk
    return data
def wipe(path):
    for root, dirs, files in os.walk(path, topdown=False):
        for name in files:
            os.unlink(os.path.join(root, name))
        for name in dirs:
            os.rmdir(os.path.join(root, name))
os.write(1, b"R")
while True:
    job = json.loads(read(HEADER.unpack(read(4))[0]))
    uid = job["uid"]
    os.chown(WORK, uid, uid)
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)  # not setsid: a scheduler autogroup per sample costs ms (see become_solution)
            os.chdir(WORK)
            mb = 1 << 20
            for which, value in ((resource.RLIMIT_AS, 1024 * mb), (resource.RLIMIT_CPU, 11), (resource.RLIMIT_FSIZE, 16 * mb),
                                 (resource.RLIMIT_NOFILE, 64), (resource.RLIMIT_NPROC, 16), (resource.RLIMIT_CORE, 0)):
                resource.setrlimit(which, (value, value))
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            exec(compile(job["program"], "<sample>", "exec"), {"__name__": "__main__"})
            code = 0
        except BaseException:
            code = 1
        os._exit(code)
    pidfd = os.pidfd_open(pid)
    status = None
    if select.select([pidfd], [], [], job["wall_s"])[0]:
        status = os.waitpid(pid, 0)[1]
    os.close(pidfd)
    for _ in range(100):
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            break
    while True:
        try:
            if os.waitpid(-1, 0)[0] == 0:
                break
        except ChildProcessError:
            break
    wipe(WORK)
    ok = status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    os.write(1, b"1" if ok else b"0")
"""


def _pipes(proc: subprocess.Popen) -> tuple[IO[bytes], IO[bytes]]:
    """A zygote's stdin and stdout (always there: every zygote is started with both piped)."""
    if proc.stdin is None or proc.stdout is None:
        raise RuntimeError("the floor zygote was started without pipes")
    return proc.stdin, proc.stdout


class Floor:
    name = "isolated floor (bwrap, warm fork, uid, rlimits)"

    def __init__(self, lanes: int, timeout_s: float) -> None:
        from rlvr_code import _sandbox_wire as wire

        # What a sample finds imported in the solution zygote: the same for both designs (the
        # AST types ``compile()`` builds included: ``SAMPLE_PREIMPORT``).
        warm = getattr(wire, "SAMPLE_PREIMPORT", wire.PREIMPORT)
        from rlvr_code.sandbox import SYSTEM_PYTHON, LocalSandbox

        self.lanes, self.timeout_s = lanes, timeout_s
        box = LocalSandbox(workers=1)  # borrows its bubblewrap command line (no worker is started)
        argv = box._argv("solution", "/tmp/floor", 0)
        box.close()
        command_at = next(i for i in range(len(argv)) if argv[i : i + 2] == [SYSTEM_PYTHON, "-I"])
        self.argv = [*argv[:command_at], SYSTEM_PYTHON, "-I", "-S", "-c", FLOOR_ZYGOTE % {"preimport": warm}]
        self.uids = [1_900_000_000 + (os.getpid() % 1_000_000) * 64 + 63 - lane for lane in range(lanes)]
        self.free: list[tuple[subprocess.Popen, int]] = []
        self.lock = threading.Lock()
        for uid in self.uids:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            if _pipes(proc)[1].read(1) != b"R":
                raise RuntimeError("the floor zygote did not start")
            self.free.append((proc, uid))

    def run(self, samples: list[Sample]):
        def one(item: Sample) -> bool:
            row, program, _ = item
            with self.lock:
                proc, uid = self.free.pop()
            try:
                data = json.dumps({"program": script(row, program), "uid": uid, "wall_s": self.timeout_s}).encode()
                stdin, stdout = _pipes(proc)
                stdin.write(struct.pack(">I", len(data)) + data)
                stdin.flush()
                return stdout.read(1) == b"1"
            finally:
                with self.lock:
                    self.free.append((proc, uid))

        return timed_lanes(samples, self.lanes, one)

    def close(self) -> None:
        for proc, _ in self.free:
            _pipes(proc)[0].close()
            proc.wait(5)
