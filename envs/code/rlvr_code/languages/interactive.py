"""Interactive problems: the contestant's program and an interactor talking through two pipes.

Each program is a sample of its own (``runner.prepared``: its own uid, directory, memory cgroup
and bubblewrap sandbox per run), so neither can read, signal or trace the other; the only channel
between them is the pair of pipes (the contestant's stdout is the interactor's stdin and the
other way round). The interactor is called as testlib's are: ``argv[1]`` the case's input file,
``argv[2]`` a file it may write (its log, ignored), ``argv[3]`` the case's expected output; those
are files of its own run, bound read-only (the log writable, bounded by the file-size limit).

Both have the case's wall clock (a deadlock, each waiting for the other, ends there, charged to
the contestant: it is almost always an unflushed write or a missing read); the contestant has its
CPU budget, the interactor its own. How a case ends (``judge_interaction``):

* the contestant ran out of time or memory, or wrote past the output cap: its verdict;
* otherwise the interactor's exit status decides: 0 accepts (unless the contestant then exited
  non-zero), 1, 2, 4 or 8 reject (testlib's rejections: ``spec.TESTLIB_REJECT``), and anything
  else (a crash, a signal, its budget) is the
  interactor's failure: ``InteractorFailed``, which the caller reports as ``verifier_error``.
  One exception: an interactor killed by SIGPIPE wrote to a contestant that had stopped reading
  (its stdout goes nowhere else), which rejects.
"""

from __future__ import annotations

import os
import selectors
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rlvr_code._sandbox_stdio import stderr_tail
from rlvr_code.languages.runner import CompileBudget, Sample, cpu_budget, own_file, prepared
from rlvr_code.languages.spec import TESTLIB_REJECT, Language
from rlvr_code.languages.step import STDERR_KEEP, Files, Running, oom_kills
from rlvr_code.sandbox import SandboxError

INPUT, LOG, ANSWER = "case-input.txt", "case-log.txt", "case-answer.txt"
_SIGPIPE_EXITS = (-signal.SIGPIPE, 128 + signal.SIGPIPE)
_STDERR_PIPE_CAP = 4 * STDERR_KEEP


class InteractorFailed(SandboxError):
    """The interactor could not judge (it did not compile, crashed, hung, or ran out of memory)."""


@dataclass(frozen=True)
class InteractorBudget:
    """The interactor's own budgets: CPU seconds per case, memory, and its compile's."""

    cpu_s: float = 5.0
    memory_mb: int = 512
    compile_s: float = 60.0


@dataclass
class Side:
    """How one of the two programs ended in one case."""

    status: int | None
    timed_out: bool
    cpu_limited: bool
    memory: bool
    err: bytes
    overflow: bool = False
    cpu_s: float | None = None


def run_interactive(
    contestant: Language,
    source: str,
    interactor: Language,
    interactor_source: str,
    cases: list[dict[str, str]],
    limits: dict[str, Any],
    budget: InteractorBudget = InteractorBudget(),
) -> dict[str, Any]:
    """The contestant's report on ``cases``, each judged by the interactor: ``tests``, or
    ``compile_error`` (the contestant's). Raises ``InteractorFailed``."""
    judge_limits = {"wall_s": limits["wall_s"], "memory_mb": budget.memory_mb, "total_memory_mb": budget.memory_mb}
    with (
        prepared(interactor, interactor_source, judge_limits, CompileBudget(wall_s=budget.compile_s)) as judge,
        prepared(contestant, source, limits) as player,
    ):
        if judge.compile_error is not None:
            raise InteractorFailed(f"the interactor does not compile: {judge.compile_error}")
        if player.compile_error is not None:
            return {"status": "done", "tests": [], "compile_error": player.compile_error}
        started = time.monotonic()
        deadline = started + float(limits["wall_s"])
        per_case = float(limits.get("case_s") or limits["cpu_s"])
        tests: list[dict[str, Any]] = []
        spent = 0.0
        for index, case in enumerate(cases):
            name = f"case {index}"
            left = deadline - time.monotonic()
            if left <= 0:
                tests.append({"name": name, "status": "timeout", "error": "not run: the time budget ran out"})
                continue
            wall = min(per_case, left)
            files = _judge_files(judge, case)
            ours, theirs = _one_case(player, judge, files, wall, limits, budget)
            spent = max(spent, ours.cpu_s or 0.0)
            tests.append({"name": name, **judge_interaction(ours, theirs, wall)})
        # ``run_cpu_s``: the contestant's costliest run (``limits.calibrate``), as the runner reports it
        return {"status": "done", "tests": tests, "elapsed_s": time.monotonic() - started, "run_cpu_s": spent}


def probe_interactor(
    interactor: Language,
    interactor_source: str,
    probes: list[tuple[Language, str, list[dict[str, str]]]],
    limits: dict[str, Any],
    budget: InteractorBudget = InteractorBudget(),
) -> list[list[dict[str, Any]] | str | None]:
    """The interactor's audit (``contests.interactor_audit``): each probe ``(language, source,
    cases)`` played against one interactor compiled once. Per probe its cases' entries, as
    ``run_interactive`` reports them, or the interactor's failure (a string, ``InteractorFailed``'s
    words: the probe's run ends there), or None where the probe itself could not run or was not
    played (after a probe that ran out of time: the rest would wait out the same clock; or past
    the sample's wall clock, which bounds the whole audit). Raises
    ``InteractorFailed`` where the interactor does not compile, ``SandboxError`` where no sandbox."""
    judge_limits = {"wall_s": limits["wall_s"], "memory_mb": budget.memory_mb, "total_memory_mb": budget.memory_mb}
    found: list[list[dict[str, Any]] | str | None] = []
    with prepared(interactor, interactor_source, judge_limits, CompileBudget(wall_s=budget.compile_s)) as judge:
        if judge.compile_error is not None:
            raise InteractorFailed(f"the interactor does not compile: {judge.compile_error}")
        per_case = float(limits.get("case_s") or limits["cpu_s"])
        # The judge's sandbox (its uid's lease) lasts the sample's wall clock: so do the probes.
        deadline = time.monotonic() + float(limits["wall_s"])
        for language, source, cases in probes:
            if time.monotonic() >= deadline:
                break
            with prepared(language, source, limits) as player:
                if player.compile_error is not None:
                    found.append(None)
                    continue
                tests: list[dict[str, Any]] = []
                try:
                    for case in cases:
                        wall = min(per_case, deadline - time.monotonic())
                        if wall <= 0:
                            break
                        files = _judge_files(judge, case)
                        ours, theirs = _one_case(player, judge, files, wall, limits, budget, listen=True)
                        tests.append(judge_interaction(ours, theirs, wall))
                except InteractorFailed as exc:
                    found.append(str(exc))
                    if "budget" in str(exc):  # a hung interactor: each probe would wait it out
                        break
                    continue
                found.append(tests if len(tests) == len(cases) else None)
                if any(t.get("status") == "timeout" for t in tests):
                    break
    return found + [None] * (len(probes) - len(found))


def _judge_files(judge: Sample, case: Mapping[str, str]) -> Files:
    names = ((INPUT, case["input"], False), (ANSWER, case["output"], False), (LOG, "", True))
    return Files(tuple(own_file(judge, name, content, writable) for name, content, writable in names))


def _one_case(
    player: Sample,
    judge: Sample,
    files: Files,
    wall: float,
    limits: Mapping[str, Any],
    budget: InteractorBudget,
    listen: bool = False,
) -> tuple[Side, Side]:
    """How both programs ended in one case. ``listen`` (the audit's probes): we also hold the
    contestant's stdin and read (and drop) whatever the interactor writes until it ends, so a
    probe that printed its text and exited leaves the interactor's writes landing instead of
    killing it by SIGPIPE (a rejection that hid an interactor accepting whatever it is told): the
    probe is then the strongest contestant saying that text, one reading exactly what it needs, with
    no clock (round 14's probe read until 0.3 s of silence and missed a slower interactor)."""
    language = player.box.language
    # The contestant's output reaches the interactor through us (``_Relay``): its output cap.
    to_judge_r, to_judge_w = os.pipe()
    from_player_r, from_player_w = os.pipe()
    to_player_r, to_player_w = os.pipe()
    heard = os.dup(to_player_r) if listen else None
    oom = (_oom(judge), _oom(player))
    running: list[Running] = []
    try:
        running.append(
            judge.box.start(
                (*judge.box.language.run, INPUT, LOG, ANSWER),
                writable=False,
                wall_s=wall,
                memory_mb=budget.memory_mb if judge.box.language.address_space else None,
                processes=8 + judge.box.language.extra_processes,
                stdin=to_judge_r,
                stdout=to_player_w,
                cpu_budget_s=budget.cpu_s,
                files=files,
            )
        )
        running.append(
            player.box.start(
                language.run,
                writable=False,
                wall_s=wall,
                memory_mb=int(limits["memory_mb"]) if language.address_space else None,
                processes=int(limits["processes"]) + language.extra_processes,
                stdin=to_player_r,
                stdout=from_player_w,
                cpu_s=float(limits["cpu_s"]),
                cpu_budget_s=cpu_budget(limits),
                file_mb=int(limits["file_mb"]),
            )
        )
    finally:
        for fd in (to_judge_r, from_player_w, to_player_r, to_player_w):
            os.close(fd)  # the programs hold their ends: each sees EOF once the other has exited
        if len(running) < 2:
            os.close(from_player_r)
            os.close(to_judge_w)
            if heard is not None:
                os.close(heard)
            for started in running:
                started.kill()
                started.reap()
    relay = _Relay(from_player_r, to_judge_w, int(limits["output_bytes"]), heard)
    errs = _supervise(running, relay)
    theirs, ours = (
        Side(r.status, r.timed_out, r.cpu_limited, _oom(side) > before, bytes(err), cpu_s=r.cpu_s)
        for r, side, before, err in zip(running, (judge, player), oom, errs)
    )
    ours.overflow = relay.overflow
    return ours, theirs


class _Relay:
    """The contestant's output on its way to the interactor, counted: past ``cap`` bytes the
    contestant is ended (``overflow``), as its stdout is in every other run. Without it one
    endless line made a sound interactor's ``readline`` run out of memory: its failure, a
    ``verifier_error`` that a wrong program could choose over its 0."""

    def __init__(self, source: int, sink: int, cap: int, heard: int | None = None) -> None:
        self.source: int | None = source
        self.sink: int | None = sink
        self.heard = heard  # the interactor's output, read and dropped (``_one_case``'s ``listen``)
        self.cap = cap
        self.sent = 0
        self.pending = b""
        self.overflow = False
        os.set_blocking(source, False)
        os.set_blocking(sink, False)
        if heard is not None:
            os.set_blocking(heard, False)

    def wanted(self) -> list[tuple[int, int]]:
        """The descriptors to wait on: the source while little is pending, the sink while any is."""
        found = []
        if self.source is not None and len(self.pending) < 65536:
            found.append((self.source, selectors.EVENT_READ))
        if self.sink is not None and self.pending:
            found.append((self.sink, selectors.EVENT_WRITE))
        if self.heard is not None:
            found.append((self.heard, selectors.EVENT_READ))
        return found

    def move(self, fd: int) -> bool:
        """Read from the source or write to the sink (whichever ``fd`` is); False once the
        contestant wrote past its cap (it is to be ended)."""
        if fd == self.heard:
            try:
                if not os.read(fd, 65536):  # the interactor ended
                    self._close_heard()
            except BlockingIOError:
                pass
            return True
        if fd == self.source:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return True
            if not chunk:
                self._close_source()
            else:
                self.sent += len(chunk)
                if self.sent > self.cap:
                    self.overflow = True
                    self.pending = b""
                    self.close()
                    return False
                self.pending += chunk
        elif fd == self.sink:
            try:
                self.pending = self.pending[os.write(fd, self.pending) :]
            except BlockingIOError:
                return True
            except OSError:  # the interactor is gone: the contestant's next write meets a closed pipe
                self.close()
                return True
        if self.source is None and not self.pending:
            self._close_sink()
        return True

    def _close_source(self) -> None:
        if self.source is not None:
            os.close(self.source)
            self.source = None

    def _close_sink(self) -> None:
        if self.sink is not None:
            os.close(self.sink)
            self.sink = None

    def _close_heard(self) -> None:
        if self.heard is not None:
            os.close(self.heard)
            self.heard = None

    def close(self) -> None:
        self._close_source()
        self._close_sink()
        self._close_heard()


def _oom(sample: Sample) -> int:
    return oom_kills(sample.box.group) if sample.box.group is not None else 0


def _supervise(running: list[Running], relay: _Relay) -> list[bytearray]:
    """Drain both stderr pipes (their tails kept) and relay the contestant's output (``running[1]``)
    until both programs have exited or been killed at their budgets; each one's stderr (its tail)."""
    errs = [bytearray() for _ in running]
    sel = selectors.DefaultSelector()
    for index, r in enumerate(running):
        if r.proc.stderr is not None:
            os.set_blocking(r.proc.stderr.fileno(), False)
            sel.register(r.proc.stderr, selectors.EVENT_READ, index)
    try:
        while True:
            if any(r.status is None and time.monotonic() >= r.deadline for r in running):
                _end_together(running)
            for r in running:
                if r.status is None and not r.try_reap() and r.over_budget():
                    if r.cpu_limited:  # its own CPU budget: it alone is charged
                        r.kill()
                    else:  # the wall clock, reached since the look above: the case's, as above
                        _end_together(running)
            if all(r.status is not None for r in running):
                break
            wake = min([r.wake_in() for r in running if r.status is None] + [0.01])
            relayed = relay.wanted()
            for fd, events in relayed:
                sel.register(fd, events, -1)
            ready = sel.select(wake)
            for fd, _ in relayed:
                sel.unregister(fd)
            for key, _ in ready:
                if key.data == -1:
                    if not relay.move(key.fd) and running[1].status is None:
                        running[1].kill()
                    continue
                try:
                    chunk = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                err = errs[key.data]
                err.extend(chunk)
                if len(err) > _STDERR_PIPE_CAP:
                    del err[:-STDERR_KEEP]
        for key in list(sel.get_map().values()):  # what each wrote just before it exited
            for _ in range(8):
                try:
                    chunk = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
                except OSError:
                    break
                if not chunk:
                    break
                errs[key.data].extend(chunk)
            del errs[key.data][: -2 * STDERR_KEEP]
    finally:
        sel.close()
        relay.close()
        for r in running:
            if r.proc.stderr is not None and not r.proc.stderr.closed:
                r.proc.stderr.close()
    return errs


def _end_together(running: list[Running]) -> None:
    """End the case at its wall clock: every program still running is charged with it, and only
    then killed. The interactor started first, so its deadline comes first, and a contestant in a
    deadlock could otherwise exit on the EOF of that kill before its own deadline, turning its
    deadlock into the interactor's failure. Both the look at the deadlines and a run's own budget
    check can reach the wall clock first (the latter when it passes between the two): both come
    here, never to a lone kill (round 12's clean-clone CI met that race once)."""
    ended = [r for r in running if r.status is None and not r.try_reap()]
    for r in ended:
        r.timed_out = True
    for r in ended:
        r.kill()


def judge_interaction(ours: Side, theirs: Side, wall_s: float) -> dict[str, Any]:
    """One case's entry from how both ended (the module's rules); raises ``InteractorFailed``."""
    if ours.memory:
        return {"status": "error", "error": "MemoryError: the sample exceeded its memory bound"}
    if ours.overflow:
        return {"status": "error", "error": "the output exceeded its cap"}
    if ours.cpu_limited:
        return {"status": "timeout", "error": "the run spent its CPU budget"}
    if ours.timed_out:
        return {"status": "timeout", "error": f"no result within {wall_s:g} s (or waiting for the interactor)"}
    said = stderr_tail(theirs.err, lines=2, chars=200)
    if theirs.status == 0 and not (theirs.timed_out or theirs.memory):
        if ours.status != 0:
            return {"status": "error", "error": f"exit status {ours.status}: {stderr_tail(ours.err)}"}
        return {"status": "passed", "error": None}
    if theirs.status in TESTLIB_REJECT and not (theirs.timed_out or theirs.memory):
        return {"status": "failed", "error": f"interactor: {said}" if said else "rejected by the interactor"}
    if theirs.status in _SIGPIPE_EXITS:  # its only pipe out is the contestant's stdin: closed
        return {"status": "failed", "error": "the program exited before the interaction was over"}
    if theirs.memory:
        raise InteractorFailed("the interactor exceeded its memory budget")
    if theirs.timed_out:
        raise InteractorFailed("the interactor ran past its budget")
    raise InteractorFailed(f"the interactor exited with status {theirs.status}: {said}")
