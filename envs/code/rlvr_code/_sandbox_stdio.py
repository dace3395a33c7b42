"""The judge's stdin/stdout cases: each case runs the program afresh in the solution sandbox.

Part of the judge harness (sent after ``_sandbox_wire`` and before ``_sandbox_judge``), kept in
a module of its own for size. ``StdioCases`` is a mixin of the judge: it uses the judge's
``job``, ``deadline``, ``test``, ``request_solution``, ``stop_solution`` and ``solution_outcome``.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import os
import select
import time

from rlvr_code._sandbox_wire import trim

# -- end wire imports --

SIGKILL, SIGXCPU = 9, 24


def memory_error(limit_mb: object) -> str:
    return f"MemoryError: the sample's processes together exceeded the memory bound ({limit_mb} MB)"


def ended_as(outcome: dict) -> str:
    """How a solution process ended, from its zygote's report: ``timeout`` or a description."""
    if outcome.get("retired"):
        return f"not run: {outcome['retired']}"
    if outcome.get("memory"):
        return memory_error(outcome["memory"])
    if outcome.get("timed_out"):
        return "timeout"
    if outcome.get("signal") in (SIGKILL, SIGXCPU):
        return "timeout"  # the CPU-time limit (SIGXCPU, then SIGKILL at the hard limit)
    if outcome.get("signal") is not None:
        return f"killed by signal {outcome['signal']}"
    return f"exit {outcome.get('exit')}"


class StdioCases:
    job: dict
    deadline: float

    # Provided by the judge.
    def test(self, name: str, status: str, error: str | None = None) -> None:
        raise NotImplementedError

    def request_solution(self, mode: str, fds: list[int], wall_s: float) -> str:
        raise NotImplementedError

    def stop_solution(self, seq: str) -> None:
        raise NotImplementedError

    def solution_outcome(self, seq: str, deadline: float) -> dict:
        raise NotImplementedError

    def run_stdio(self) -> None:
        cases = self.job["cases"]
        for index, case in enumerate(cases):
            status, error = self.run_case(case)
            self.test(f"case {index}", status, error)
            if status == "timeout" and time.monotonic() >= self.deadline:
                for rest in range(index + 1, len(cases)):
                    self.test(f"case {rest}", "timeout", "not run: the time budget ran out")
                return

    def run_case(self, case: dict) -> tuple[str, str | None]:
        import fcntl

        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        per_case = self.job["limits"].get("case_s") or self.job["limits"]["cpu_s"]
        deadline = min(self.deadline, time.monotonic() + per_case)
        seq = self.request_solution("stdio", [in_r, out_w, err_w], deadline - time.monotonic())
        cap = self.job["limits"]["output_bytes"]
        pending = case["input"].encode("utf-8")
        fcntl.fcntl(in_w, fcntl.F_SETFL, fcntl.fcntl(in_w, fcntl.F_GETFL) | os.O_NONBLOCK)
        if not pending:
            os.close(in_w)
            in_w = -1
        out, err = bytearray(), bytearray()
        readers = {out_r: out, err_r: err}
        overflow = timed_out = False
        while readers:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready_r, ready_w, _ = select.select(list(readers), [in_w] if in_w >= 0 else [], [], left)
            for fd in ready_w:
                try:
                    sent = os.write(fd, pending[:65536])
                    pending = pending[sent:]
                except OSError:
                    pending = b""
                if not pending:
                    os.close(in_w)
                    in_w = -1
            for fd in ready_r:
                chunk = os.read(fd, 65536)
                if not chunk:
                    del readers[fd]
                    continue
                readers[fd].extend(chunk)
                if len(out) > cap:
                    overflow = True
                    readers.clear()
                    break
                if len(err) > 2 * STDERR_TAIL:
                    del err[:-STDERR_TAIL]  # the traceback is at the end: keep the last part
        for fd in (out_r, err_r, in_w):
            if fd >= 0:
                os.close(fd)
        if timed_out or overflow:
            self.stop_solution(seq)
        outcome = self.solution_outcome(seq, deadline + 5)
        if outcome.get("retired") or outcome.get("memory"):
            return "error", ended_as(outcome)
        if timed_out or outcome["timed_out"]:
            return "timeout", f"no result within {per_case:g} s"
        if overflow:
            return "error", f"the output exceeded {cap} bytes"
        if outcome["signal"] is not None:
            if outcome["signal"] in (SIGKILL, SIGXCPU):  # the CPU-time limit
                return "timeout", f"killed by signal {outcome['signal']} (CPU time limit)"
            return "error", f"killed by signal {outcome['signal']}"
        if outcome["exit"] != 0:
            return "error", f"exit status {outcome['exit']}: {stderr_tail(bytes(err))}"
        got = normalise_output(out.decode("utf-8", "replace"))
        want = normalise_output(case["output"])
        if got == want:
            return "passed", None
        return "failed", f"expected {trim(repr(want), 150)}, got {trim(repr(got), 150)}"


STDERR_TAIL = 4096
"""Bytes of a stdio program's stderr kept while it runs: the last ones."""


def stderr_tail(err: bytes, lines: int = 3, chars: int = 300) -> str:
    """The last lines of stderr (a traceback ends with the exception), cut from the front."""
    text = " | ".join(err[-STDERR_TAIL:].decode("utf-8", "replace").strip().splitlines()[-lines:])
    return text if len(text) <= chars else "..." + text[-(chars - 3) :]


def normalise_output(text: str) -> str:
    # A BOM and blank lines around the answer are not the answer. Lines end at \n and spaces are
    # ASCII's, as a judge reads them: U+2028 is no line end, U+3000 no trailing blank.
    lines = [line.rstrip(" \t\r\v\f") for line in text.removeprefix("\ufeff").split("\n")]
    start = next((i for i, line in enumerate(lines) if line), len(lines))
    while len(lines) > start and not lines[-1]:
        lines.pop()
    return "\n".join(lines[start:])
