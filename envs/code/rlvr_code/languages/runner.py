"""Compile once, then run against each stdin/stdout case: one sample of a non-Python language.

Every step is its own bubblewrap sandbox (``step.Box``): no network, no IPC, its own pid
namespace (killing it kills everything the program started), only the language's toolchain
bound read-only from the host (no ``/etc``, ``/root``, ``/home``, no checkout), a size-bounded
tmpfs ``/tmp``, and the sample's directory ``/box``: read-write while compiling, read-only while
running. As root, each sample runs under a uid of its own (``_Uids``), so RLIMIT_NPROC bounds its
processes alone; all its processes share one fresh memory cgroup (``memory_bound.create``), its
limit the compile budget while compiling and ``total_memory_mb`` while running. After the sample,
leftover processes of its uid are killed, the cgroup and the directory removed.

Each run has the sample's wall clock and, where the limits hold one (``run_cpu_s``: a task's
``cpu_limit_s``), a CPU budget: a run that spends it ends as a ``timeout`` (``step.Running``;
counted by the sample's CPU cgroup too where there is one, ``cpu_group``, which keeps what
processes nobody waited for spent).
A file-I/O task (``io``: ``{"input": "input.txt", "output": "output.txt"}``) gets its input as
that file in ``/box`` (stdin then empty) and is judged on the output file it writes (stdout then
ignored), read back at most ``output_bytes``: both are files of the run's own, bound one by one
over a read-only ``/box``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import queue
import re
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from rlvr_code._sandbox_stdio import normalise_output, stderr_tail
from rlvr_code.languages.cpu_group import create as create_cpu_group
from rlvr_code.languages.spec import Language
from rlvr_code.languages.step import Box, Files, Step
from rlvr_code.memory_bound import MemoryCgroup
from rlvr_code.memory_bound import create as create_cgroup
from rlvr_code.sandbox import SandboxError, SandboxUnavailable, bwrap_path

_UID_BASE = 1_950_000_000
# A process killed at its RLIMIT_CPU (SIGXCPU), as bubblewrap passes it on: a timeout, not a crash.
_CPU_LIMIT_EXITS = (-signal.SIGXCPU, 128 + signal.SIGXCPU)
_IO_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")


class ToolchainMissing(SandboxError):
    """A language's toolchain is not installed: reported as ``verifier_error`` naming the package."""


@dataclass(frozen=True)
class CompileBudget:
    wall_s: float = 30.0
    memory_mb: int = 2048
    processes: int = 32


@dataclass(frozen=True)
class FileIO:
    """A file-I/O task's file names in the program's directory (None: that side is stdin/stdout)."""

    input: str | None = None
    output: str | None = None


def file_io(spec: Any) -> FileIO | None:
    """A task's ``io`` field as ``FileIO`` (None when absent or both sides are standard streams).
    Raises ``ValueError`` on anything but plain file names (no paths, no dot files)."""
    if spec is None:
        return None
    if not isinstance(spec, Mapping) or set(spec) - {"input", "output"}:
        raise ValueError(f"io must be {{'input': name, 'output': name}}, got {spec!r:.100}")
    names: dict[str, str | None] = {}
    for side in ("input", "output"):
        name = spec.get(side)
        if name in (None, "", "stdin", "stdout"):
            names[side] = None
        elif isinstance(name, str) and _IO_NAME.match(name) and name not in (".", ".."):
            names[side] = name
        else:
            raise ValueError(f"io {side} must be a plain file name, got {name!r:.100}")
    if names["input"] is not None and names["input"] == names["output"]:
        raise ValueError("io input and output must be different files")
    found = FileIO(**names)
    return found if found != FileIO() else None


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


def sample_dir_prefix(pid: int | None = None) -> str:
    """The name every sample directory of process ``pid`` (this one by default) starts with, under
    ``$TMPDIR``: ``rlvr-lang-{pid}-``. Per process, because a non-root run gives every sample the
    caller's uid: a check for what one process left behind cannot tell its directories from another
    worker's live sample by owner."""
    return f"rlvr-lang-{os.getpid() if pid is None else pid}-"


def toolchain_error(language: Language) -> str | None:
    missing = [tool for tool in language.tools if not os.access(tool, os.X_OK)]
    if not missing:
        return None
    return (
        f"the {language.name} toolchain is missing ({', '.join(missing)}): install the Debian package "
        f"{language.package!r} (`apt-get install {language.package}`, or run scripts/setup.sh as root)"
    )


@dataclass
class Sample:
    """A prepared sample: its sandbox, and why it did not compile (None when it did)."""

    box: Box
    compile_error: str | None
    started: float
    private: str
    """A directory of the sample's own outside ``/box`` (per-run files: ``Files``)."""


@contextlib.contextmanager
def prepared(
    language: Language,
    source: str,
    limits: Mapping[str, Any],
    compile_budget: CompileBudget = CompileBudget(),
    *,
    tmpfs_mb: int = 16,
) -> Iterator[Sample]:
    """A sample's sandbox with its source compiled (its uid, directory and cgroup are gone after)."""
    problem = toolchain_error(language)
    if problem:
        raise ToolchainMissing(problem)
    language = language.for_source(source)  # a Java program's file bears its class's name
    bwrap = bwrap_path()
    if bwrap is None:
        raise SandboxUnavailable("the code sandbox needs bubblewrap: `apt-get install bubblewrap`")
    privileged = os.getuid() == 0
    uids = _uid_pool()
    uid = uids.take(float(limits["wall_s"]) + 30) if privileged else os.getuid()
    group = create_cgroup(compile_budget.memory_mb)
    cpu_group = create_cpu_group(group)  # the CPU budget counts processes nobody waited for
    # Its process's prefix: a leftover check (tests, an operator) then counts this process's
    # samples alone, never another worker's live one under the same uid (non-root runs share it).
    top = tempfile.mkdtemp(prefix=sample_dir_prefix())
    started = time.monotonic()
    try:
        if privileged:
            os.chown(top, uid, uid)  # 0700: the sample's alone
        workdir, private = os.path.join(top, "box"), os.path.join(top, "own")
        for where in (workdir, private):
            os.mkdir(where, 0o700)
            if privileged:
                os.chown(where, uid, uid)
        path = os.path.join(workdir, language.source)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(source)
        if privileged:
            os.chown(path, uid, uid)
        box = Box(bwrap, language, workdir, uid if privileged else None, group, tmpfs_mb, cpu_group)
        why = _build(box, compile_budget)
        if why is None and group is not None:
            _set_limit(group, int(limits.get("total_memory_mb") or limits["memory_mb"]))
        yield Sample(box, why, started, private)
    finally:
        if privileged:
            _kill_uid(uid)
        shutil.rmtree(top, ignore_errors=True)
        if group is not None:
            group.remove()
        if cpu_group is not None:
            cpu_group.remove()
        if privileged:
            uids.give(uid)


def _build(box: Box, budget: CompileBudget) -> str | None:
    """Compile (or syntax-check) in the sandbox; why it failed, or None."""
    language = box.language
    build = language.compile or language.check
    if build is None:
        return None
    step = box.step(
        build,
        writable=True,
        tmpfs_mb=language.compile_tmpfs_mb,
        stdin=b"",
        wall_s=budget.wall_s,
        memory_mb=budget.memory_mb if language.address_space else None,
        processes=budget.processes + language.extra_processes,
        output_cap=1 << 20,
    )
    if step.exit == 0:
        return None
    if step.timed_out:
        return f"the compiler ran past its {budget.wall_s:g} s budget"
    if step.memory:
        return f"the compiler exceeded its {budget.memory_mb} MB budget"
    return stderr_tail(step.err + step.out, lines=6, chars=800) or f"exit status {step.exit}"


def run_sample(
    language: Language,
    source: str,
    cases: list[dict[str, str]],
    limits: dict[str, Any],
    compile_budget: CompileBudget = CompileBudget(),
    *,
    tmpfs_mb: int = 16,
    judge: Judge | None = None,
    io: FileIO | None = None,
) -> dict[str, Any]:
    """The sample's report in the judge's shape: ``status``, ``tests``, ``compile_error``, and
    ``run_cpu_s`` (the most CPU seconds one run spent).

    ``judge(step, expected, wall_s, output_cap)`` turns each case's run into its entry (default:
    the output compared with the expected one); the contest checkers pass their own. ``io``: the
    program reads and writes files instead of stdin and stdout (``FileIO``)."""
    with prepared(language, source, limits, compile_budget, tmpfs_mb=tmpfs_mb) as sample:
        if sample.compile_error is not None:
            return {
                "status": "done",
                "tests": [],
                "compile_error": sample.compile_error,
                "elapsed_s": time.monotonic() - sample.started,
            }
        # The compile had its own budget: the sample's wall-clock limit starts now.
        report = _run_cases(sample, cases, limits, time.monotonic(), judge or judge_output, io)
        report["elapsed_s"] = time.monotonic() - sample.started
        return report


def cpu_budget(limits: Mapping[str, Any]) -> float | None:
    """A run's CPU budget (``run_cpu_s``), when the limits hold a positive number."""
    value = limits.get("run_cpu_s")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


def _run_cases(
    sample: Sample,
    cases: list[dict[str, str]],
    limits: dict[str, Any],
    started: float,
    judge: Judge,
    io: FileIO | None,
) -> dict[str, Any]:
    box = sample.box
    language = box.language
    deadline = started + float(limits["wall_s"])
    per_case = float(limits.get("case_s") or limits["cpu_s"])
    tests: list[dict[str, Any]] = []
    memory_mb = int(limits["memory_mb"]) if language.address_space else None
    cap = int(limits["output_bytes"])
    spent = 0.0
    for index, case in enumerate(cases):
        name = f"case {index}"
        left = deadline - time.monotonic()
        if left <= 0:
            tests.append({"name": name, "status": "timeout", "error": "not run: the time budget ran out"})
            continue
        wall = min(per_case, left)
        files, stdin = _case_files(sample, io, case["input"])
        step = box.step(
            language.run,
            writable=False,
            stdin=stdin,
            wall_s=wall,
            memory_mb=memory_mb,
            processes=int(limits["processes"]) + language.extra_processes,
            output_cap=cap,
            cpu_s=float(limits["cpu_s"]),
            cpu_budget_s=cpu_budget(limits),
            file_mb=int(limits["file_mb"]),
            files=files,
            # The answer is the output file: stdout is not read, so its size fails nothing.
            discard_stdout=io is not None and io.output is not None,
        )
        if io is not None and io.output is not None:
            step = _with_output_file(step, sample, io.output, cap)
        spent = max(spent, step.cpu_s or 0.0)
        tests.append({"name": name, **judge(step, case["output"], wall, cap)})
    return {"status": "done", "tests": tests, "elapsed_s": time.monotonic() - started, "run_cpu_s": spent}


def _case_files(sample: Sample, io: FileIO | None, given: str) -> tuple[Files | None, bytes]:
    """A case's own input and output files (fresh each case), and what its stdin gets."""
    if io is None:
        return None, given.encode("utf-8")
    binds = [
        own_file(sample, name, content, writable)
        for name, content, writable in ((io.input, given, False), (io.output, "", True))
        if name is not None
    ]
    return Files(tuple(binds)), (b"" if io.input is not None else given.encode("utf-8"))


def own_file(sample: Sample, name: str, content: str, writable: bool) -> tuple[str, str, bool]:
    """A run's file ``/box/<name>``: written fresh in the sample's private directory (the last
    run's copy removed: the program may have left it read-only), its mount point made in
    ``/box``; the ``Files`` bind that puts it there."""
    host = os.path.join(sample.private, name)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(host)
    with open(host, "w", encoding="utf-8") as fh:
        fh.write(content)
    os.chmod(host, 0o600 if writable else 0o400)
    if sample.box.uid is not None:
        os.chown(host, sample.box.uid, sample.box.uid)
    mountpoint = os.path.join(sample.box.workdir, name)
    if not os.path.isfile(mountpoint) or os.path.islink(mountpoint):
        with contextlib.suppress(OSError):
            shutil.rmtree(mountpoint) if os.path.isdir(mountpoint) else os.unlink(mountpoint)
        open(mountpoint, "w").close()  # bubblewrap binds the file over it
    return host, name, writable


def _with_output_file(step: Step, sample: Sample, name: str, cap: int) -> Step:
    """The step judged on the output file the program wrote (at most ``cap`` bytes read)."""
    try:
        fd = os.open(os.path.join(sample.private, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return dataclasses.replace(step, out=b"")
    try:
        if not os.path.isfile(f"/proc/self/fd/{fd}"):
            return dataclasses.replace(step, out=b"")
        data = os.read(fd, cap + 1)
    finally:
        os.close(fd)
    return dataclasses.replace(step, out=data[:cap], overflow=step.overflow or len(data) > cap)


def judge_output(step: Step, expected: str, wall_s: float, cap: int) -> dict[str, Any]:
    """The default judgement: the output, normalised, equal to the expected one."""
    if step.memory:
        return {"status": "error", "error": "MemoryError: the sample exceeded its memory bound"}
    if step.cpu_limited or step.exit in _CPU_LIMIT_EXITS:
        return {"status": "timeout", "error": "the run spent its CPU budget"}
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
