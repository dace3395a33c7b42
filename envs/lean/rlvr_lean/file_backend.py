"""The file backend: one sandboxed ``lean --json --stdin`` process per check (the file on a pipe), no REPL needed.

For users who have a Lean toolchain but not the REPL, and for CI on the test kernel
(``rlvr_lean.test_kernel``). The file is the one kimina checks (header, the task's statement
under a reference name, the completion's code, the audit lines), so layers 2 and 3 judge it with
the same code: ``judge_whole_file``.

Each check runs under bubblewrap (no network, no other process visible, the file system read-only
but for a private /tmp, dies with its parent) with a resident-memory bound (the process tree's RSS,
read every 50 ms: past it the check is killed, ``runtime_error`` with ``rule: memory``), an
address-space backstop (``RLIMIT_AS``), a CPU bound and a wall-clock budget; past the budget the
whole process group is killed and the verdict is ``timeout``. Nothing is reused between checks,
so a killed check leaves nothing behind for the next one.

Where ``rlvr_lean.replay`` supports the Lean in use (``replay=None``, the default; ``True`` requires
it, ``False`` switches it off), Lean also writes the module's ``.olean`` and a file that passed is
replayed in a second process: every declaration type-checked by the kernel again (a refusal is
``sandbox_violation``, rule ``replay``), within what is left of the budget.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import NamedTuple

from rlvr_envs import Reason, Verdict
from rlvr_lean import replay as replay_mod
from rlvr_lean.backends import Backend, LeanUnavailable, assemble_file, audit_nonce, judge_whole_file
from rlvr_lean.protocol import CommandResponse, KiminaResult, ProtocolError, _messages
from rlvr_lean.repl import tree_rss_mb
from rlvr_lean.shape import Prepared

# Lean's runtime reserves address space well beyond what it touches (thread stacks, its heap
# arenas): under bubblewrap it could not start below 8 GiB of address space on the test kernel.
MIN_ADDRESS_SPACE_MB = 8192
_POLL_S = 0.05
_STDOUT_LIMIT = 8 << 20  # a flood of messages past this is cut (the verdict needs the first ones)
_REPLAY_LIMIT = re.compile(r"\(kernel\) (deep recursion|deterministic timeout|interrupted)")
"""The kernel's resource limits, as its replay reports them (a limit, not a refusal of a declaration)."""
_OUT = "/rlvr-out"  # where the sandboxed Lean writes the module's .olean for the replay
_OLEAN = "Check.olean"


class FileRun(NamedTuple):
    """One ``lean --json`` run: its output, how it ended and whether the output was cut."""

    out: str
    err: str
    code: int | str
    """The exit code, or ``"timeout"`` / ``"memory"`` when it was killed at a bound."""
    seconds: float
    cut: bool
    """stdout passed ``_STDOUT_LIMIT`` and was cut at the last whole message before it."""


def _limits(memory_mb: float, cpu_s: int):
    def apply() -> None:  # runs in the child between fork and exec: no Python objects shared
        as_bytes = int(memory_mb * 1024 * 1024)
        resource.setrlimit(resource.RLIMIT_AS, (as_bytes, as_bytes))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))

    return apply


def _feed(proc: subprocess.Popen, data: bytes) -> None:
    """Writes the file to Lean's stdin and closes it (Lean killed early: the pipe is broken)."""
    stdin = proc.stdin
    if stdin is None:
        return
    try:
        stdin.write(data)
    except OSError:
        pass
    finally:
        try:
            stdin.close()
        except OSError:
            pass


def _signalled(*signals: int) -> set[int]:
    """Exit codes of a process killed by one of ``signals``: Python's ``-sig`` when Lean runs
    directly, the shell's ``128 + sig`` that bubblewrap passes on."""
    return {-s for s in signals} | {128 + s for s in signals}


def parse_json_lines(text: str) -> CommandResponse:
    """``lean --json`` output (one message object per line) as a command response."""
    raw = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            raw.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ProtocolError(f"not a JSON message: {line[:120]!r}") from exc
    return CommandResponse(env=0, messages=_messages(raw))


def toolchain_paths(lean: str) -> list[str]:
    """What the sandbox must show read-only for ``lean`` to start: its toolchain root (``bin/..``)
    and where ``root/lib`` really lives (the test kernel links its libraries there)."""
    real = os.path.realpath(lean)
    root = os.path.dirname(os.path.dirname(real))
    paths = [root]
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(lean))), "lib")
    for candidate in (lib, os.path.join(root, "lib")):
        if os.path.isdir(candidate):
            target = os.path.realpath(candidate)
            if target not in paths:
                paths.append(target)
    return paths


class FileBackend(Backend):
    """Checks each proof with its own ``lean --json`` process.

    Args:
        lean: the ``lean`` executable (an elan toolchain's, or the test kernel's launcher).
        lean_path: ``LEAN_PATH`` for imports (``lake env printenv LEAN_PATH`` in a project with
            Mathlib); its directories are shown read-only in the sandbox.
        max_rss_mb: the resident-memory bound of one check (its whole process tree).
        address_space_mb: the ``RLIMIT_AS`` backstop (Lean reserves far more than it uses).
        isolation: ``"bwrap"`` (the default; ``LeanUnavailable`` when bubblewrap is missing) or
            ``"none"`` (rlimits and the budget only: for machines without user namespaces).
        ro_paths: more directories the sandbox shows read-only.
    """

    name = "file"

    def __init__(
        self,
        lean: str,
        *,
        lean_path: str | None = None,
        max_rss_mb: float = 4096,
        address_space_mb: float = 16384,
        isolation: str = "bwrap",
        ro_paths: Sequence[str] = (),
        replay: bool | None = None,
    ) -> None:
        if isolation not in ("bwrap", "none"):
            raise ValueError(f"isolation must be 'bwrap' or 'none', got {isolation!r}")
        if address_space_mb < MIN_ADDRESS_SPACE_MB:
            raise ValueError(
                f"address_space_mb must be at least {MIN_ADDRESS_SPACE_MB} (Lean's runtime reserves it), "
                f"got {address_space_mb}"
            )
        if max_rss_mb <= 0:
            raise ValueError(f"max_rss_mb must be positive, got {max_rss_mb}")
        found = shutil.which(lean) if os.sep not in lean else (lean if os.access(lean, os.X_OK) else None)
        if found is None:
            raise LeanUnavailable(
                f"no Lean executable at {lean!r}: install a toolchain (elan) or build the test kernel "
                "(`python -m rlvr_lean.test_kernel build`)"
            )
        self.lean = os.path.abspath(found)
        self.lean_path = lean_path
        self.max_rss_mb = max_rss_mb
        self.address_space_mb = address_space_mb
        self.bwrap = shutil.which("bwrap") if isolation == "bwrap" else None
        if isolation == "bwrap" and self.bwrap is None:
            raise LeanUnavailable(
                "the file backend runs Lean under bubblewrap, which is missing: `apt-get install bubblewrap`, "
                "or pass isolation='none' on a machine where that is acceptable"
            )
        self.ro_paths = [*toolchain_paths(self.lean), *(os.path.realpath(p) for p in ro_paths)]
        if lean_path:
            self.ro_paths += [os.path.realpath(p) for p in lean_path.split(os.pathsep) if p]
        self.stats = {"checks": 0, "timeouts": 0, "memory_kills": 0, "replays": 0}
        # Kernel replay (``rlvr_lean.replay``): on where this Lean's library supports it (None),
        # required (True: LeanUnavailable saying why not), or off (False).
        self.replay_library: str | None = None
        if replay is not False:
            why_not = replay_mod.unsupported_reason(self.lean)
            if why_not is None:
                self.replay_library = replay_mod.library_for(self.lean)
            elif replay:
                raise LeanUnavailable(f"kernel replay cannot run: {why_not}")

    def _argv(self, workdir: str, olean_dir: str | None = None) -> list[str]:
        # The file comes on a pipe (`--stdin`), never from a file the checked code could read back:
        # the audit's check theorem carries a nonce (``audit_nonce``), and a program that printed a
        # forged answer (`IO` is refused statically) would need it. A pipe, once read, is gone.
        lean = [self.lean, "--json", "--stdin"]
        if olean_dir is not None:  # the environment, for the kernel replay in a process of its own
            lean += ["-o", os.path.join(olean_dir if self.bwrap is None else _OUT, _OLEAN)]
        if self.bwrap is None:
            return lean
        argv = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]
        for system in ("/usr", "/lib", "/lib64", "/bin", "/etc/ld.so.cache"):
            if os.path.exists(system):
                argv += ["--ro-bind", system, system]
        # The private /tmp first: bubblewrap applies mounts in order, and a toolchain that lives
        # under /tmp (a checkout or venv there) must be bound over it, not hidden by it.
        argv += ["--tmpfs", "/tmp", "--setenv", "HOME", "/tmp", "--setenv", "PATH", "/usr/bin:/bin"]
        for path in dict.fromkeys(self.ro_paths):
            argv += ["--ro-bind", path, path]
        argv += ["--ro-bind", workdir, "/rlvr-check", "--chdir", "/rlvr-check", "--proc", "/proc", "--dev", "/dev"]
        if olean_dir is not None:
            argv += ["--bind", olean_dir, _OUT]
        if self.lean_path:
            argv += ["--setenv", "LEAN_PATH", self.lean_path]
        return [*argv, "--", *lean]

    def run_file(self, text: str, *, timeout_s: float, olean_dir: str | None = None) -> FileRun:
        """Runs ``lean --json`` on ``text`` within the budget and the bounds (writing the module's
        ``.olean`` into ``olean_dir`` when given)."""
        with tempfile.TemporaryDirectory(prefix="rlvr-lean-") as workdir:
            os.chmod(workdir, 0o755)
            env = {"PATH": "/usr/bin:/bin", "HOME": workdir}
            if self.lean_path:
                env["LEAN_PATH"] = self.lean_path
            start = time.monotonic()
            # Files, not pipes: the loop below watches time and memory, nobody drains a pipe.
            with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
                proc = subprocess.Popen(
                    self._argv(workdir, olean_dir),
                    stdin=subprocess.PIPE,
                    stdout=out_file,
                    stderr=err_file,
                    cwd=workdir,
                    env=env,
                    start_new_session=True,
                    preexec_fn=_limits(self.address_space_mb, int(timeout_s) + 2),
                )
                feeder = threading.Thread(target=_feed, args=(proc, text.encode("utf-8", "replace")), daemon=True)
                feeder.start()  # a file past the pipe's buffer is read while the watch below runs
                code = self._watch(proc, start, timeout_s)
                feeder.join(timeout=5)
                if code in _signalled(signal.SIGXCPU):
                    # The CPU rlimit set from this budget: Lean's threads can spend it before the
                    # wall clock does (two cores: in half the wall time). The same overrun.
                    code = "timeout"
                out_file.seek(0)
                err_file.seek(0)
                raw = out_file.read(_STDOUT_LIMIT + 1)
                cut = len(raw) > _STDOUT_LIMIT
                if cut:  # a flood: keep the whole messages before the cut
                    raw = raw[: raw.rfind(b"\n", 0, _STDOUT_LIMIT) + 1]
                out = raw.decode("utf-8", "replace")
                err = err_file.read(4000).decode("utf-8", "replace")
            return FileRun(out, err, code, time.monotonic() - start, cut)

    def _watch(self, proc: subprocess.Popen, start: float, timeout_s: float) -> int | str:
        while True:
            try:
                return proc.wait(timeout=_POLL_S)
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() - start >= timeout_s:
                bound = "timeout"
            elif tree_rss_mb(proc.pid) > self.max_rss_mb:
                bound = "memory"
            else:
                continue
            self._kill(proc)
            proc.wait()
            return bound

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()

    def check(self, prepared: Prepared, *, allow_native: bool, timeout_s: float) -> Verdict:
        if self.replay_library is None:
            return self._check(prepared, allow_native=allow_native, timeout_s=timeout_s, olean_dir=None)
        start = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="rlvr-olean-") as olean_dir:
            os.chmod(olean_dir, 0o777)  # written by Lean inside the sandbox
            verdict = self._check(prepared, allow_native=allow_native, timeout_s=timeout_s, olean_dir=olean_dir)
            if not verdict.passed:
                return verdict
            return self._replay(verdict, os.path.join(olean_dir, _OLEAN), timeout_s - (time.monotonic() - start))

    def _replay(self, verdict: Verdict, olean: str, budget_s: float) -> Verdict:
        """The passed ``verdict`` if the kernel accepts every declaration of ``olean`` again."""
        self.stats["replays"] += 1
        sysroot = os.path.dirname(os.path.dirname(os.path.realpath(self.lean)))  # its `lib/lean` holds Init
        argv = [sys.executable, "-m", "rlvr_lean.replay", str(self.replay_library), olean, sysroot]
        outcome = replay_mod.run_checker(
            argv, max(1.0, budget_s), self.address_space_mb, self.max_rss_mb, lean_path=self.lean_path
        )
        details = {"layer": "replay", "backend": self.name}
        if outcome.get("timeout"):
            self.stats["timeouts"] += 1
            return Verdict.failure(
                Reason.TIMEOUT, details={**details, "error": "the kernel replay ran past the budget"}
            )
        if outcome.get("ok") is True:
            return Verdict.correct(details={**(verdict.details or {}), "replay": f"{outcome['constants']} constants"})
        if outcome.get("ok") is False and _REPLAY_LIMIT.search(str(outcome.get("error", ""))):
            # the kernel ran out of its default recursion depth or heartbeats re-checking a term the
            # first Lean built under a raised `maxRecDepth`: unpaid (not replayed), but no forgery
            return Verdict.failure(
                Reason.RUNTIME_ERROR, details={**details, "rule": "replay_limit", "error": outcome.get("error")}
            )
        if outcome.get("ok") is False:
            return Verdict.failure(
                Reason.SANDBOX_VIOLATION, details={**details, "rule": "replay", "error": outcome.get("error")}
            )
        if str(outcome.get("error", "")).startswith(("the module has", "the imports could not be loaded")):
            # the header's imports (the task's) did not load in the replay's process: layer 1 stays the line
            return Verdict.correct(details={**(verdict.details or {}), "replay": f"skipped ({outcome['error']})"[:300]})
        return Verdict.failure(Reason.VERIFIER_ERROR, details={**details, "error": outcome.get("error")})

    def _check(self, prepared: Prepared, *, allow_native: bool, timeout_s: float, olean_dir: str | None) -> Verdict:
        text, (first, last), audit_offset, plan = assemble_file(prepared, audit_nonce(prepared))
        self.stats["checks"] += 1
        try:
            out, err, code, seconds, cut = self.run_file(text, timeout_s=timeout_s, olean_dir=olean_dir)
        except OSError as exc:
            return Verdict.failure(
                Reason.VERIFIER_ERROR, details={"layer": "lean", "backend": "file", "error": str(exc)}
            )
        if code == "timeout" or (code in _signalled(signal.SIGKILL) and seconds >= timeout_s * 0.9):
            self.stats["timeouts"] += 1
            return Verdict.failure(
                Reason.TIMEOUT,
                details={"layer": "lean", "backend": "file", "error": f"Lean ran past its {timeout_s:g}s budget"},
            )
        if code == "memory":
            self.stats["memory_kills"] += 1
            return Verdict.failure(
                Reason.RUNTIME_ERROR,
                details={
                    "layer": "lean",
                    "backend": "file",
                    "rule": "memory",
                    "error": f"Lean went past its {self.max_rss_mb:g} MiB memory bound",
                },
            )
        try:
            resp = parse_json_lines(out)
        except ProtocolError as exc:
            return Verdict.failure(
                Reason.VERIFIER_ERROR, details={"layer": "lean", "backend": "file", "error": str(exc)}
            )
        if cut and code in (0, 1) and not resp.messages:
            return output_flood()  # one message past the limit: nothing whole was left to read
        if code not in (0, 1) or (not resp.messages and code != 0):
            # Killed by a signal or aborted (out of memory under the address-space bound, a crash):
            # the proof was not judged, and a proof that exhausts memory earns nothing.
            memory = (
                "out of memory" in err.lower()
                or "bad_alloc" in err
                or code in _signalled(signal.SIGSEGV, signal.SIGABRT)
            )
            if memory:
                self.stats["memory_kills"] += 1
            return Verdict.failure(
                Reason.RUNTIME_ERROR if memory else Reason.VERIFIER_ERROR,
                details={
                    "layer": "lean",
                    "backend": "file",
                    "rule": "memory" if memory else "crash",
                    "error": f"lean exited with {code}: {err.strip()[:300]}",
                    "max_rss_mb": self.max_rss_mb,
                },
            )
        verdict = judge_whole_file(
            KiminaResult("0", None, resp), first, last, audit_offset, plan, allow_native, backend=self.name
        )
        if cut and verdict.reason is Reason.VERIFIER_ERROR:
            # The code flooded Lean's output (`#print`/`#reduce` of huge terms, traces) until the
            # cut took its own later errors and the audit's answers: the completion's doing, not
            # the infrastructure's (a verifier_error would stop a trainer's batch, issue 26).
            return output_flood()
        return verdict


def output_flood() -> Verdict:
    """The verdict of a check whose output was cut before it could be judged."""
    return Verdict.failure(
        Reason.RUNTIME_ERROR,
        details={
            "layer": "lean",
            "backend": "file",
            "rule": "output",
            "error": f"Lean's messages passed {_STDOUT_LIMIT:,} bytes and were cut before the proof was judged",
        },
    )
