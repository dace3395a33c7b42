"""The judge sandbox: runs the task's own tests against a solution living in the other sandbox.

The judge never runs untrusted code. Names the tests take from the solution resolve to
``Remote`` handles; calls cross a socket and come back as plain data, decoded here into exact
builtin types, so comparisons use builtin semantics whatever the solution's objects would
have said. A warm judge keeps its results and answers the host itself (``_sandbox_judge_zygote``);
a judge forked for one sample sends them to the judge zygote over a pipe with the sample's nonce.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import builtins
import os
import select
import socket
import sys
import time
from collections.abc import Callable
from types import CodeType

from rlvr_code._sandbox_batch import asserts_runs, humaneval_test_code
from rlvr_code._sandbox_link import Link, Remote, SolutionError
from rlvr_code._sandbox_speculate import SHARE, Recorder, StopSpeculating, dry_record, dry_run, speculation_wanted
from rlvr_code._sandbox_stdio import StdioCases, ended_as, memory_error
from rlvr_code._sandbox_warm import CompileCache
from rlvr_code._sandbox_wire import (
    PREIMPORT,
    ProtocolError,
    frame,
    recv,
    send_fds,
    send_frames,
    trim,
)

# -- end wire imports --


HELLO_LIMIT = 1 << 20
"""Largest first message of a solution process (``loaded`` or a load error of trimmed text)."""
HOLD_REPORTS_S = 0.5
"""How long HumanEval's test reports may wait for the sample's end, to travel with it in one write;
past this (a solution zygote slow to stop the run) they go at once, as they used to."""
# Standard-library modules a test may use without importing them resolve to the judge's own
# copy; these few are left out because importing them does something (open a browser, print).
_NOT_BY_NAME = frozenset({"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo"})


def judge_module(name: str) -> object | None:
    """The judge's own standard-library module ``name``, or None when it is not one."""
    import importlib

    known = getattr(sys, "stdlib_module_names", None) or frozenset(PREIMPORT) | frozenset(sys.builtin_module_names)
    if name.startswith("_") or name in _NOT_BY_NAME or name not in known:
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


# The tests' globals (``Judge.namespace``): a name they do not define resolves through the
# sample's ``missing``. One class for every sample: a class made per sample (a closure's) cost
# the warm judge ~40 us and a type-cache flush each time. (A comment, not a docstring: the
# harness travels without comments, and the Docker backend's one argument is near its limit.)
class JudgeGlobals(dict):
    __slots__ = ("missing",)
    missing: Callable[[str], object]

    def __missing__(self, name: str) -> object:
        return self.missing(name)


class Judge(StdioCases):
    def __init__(
        self,
        job: dict,
        verdict_fd: int | None,
        nonce: str,
        link: socket.socket,
        deadline: float,
        cache: CompileCache | None = None,
    ) -> None:
        self.job, self.verdict_fd, self.nonce = job, verdict_fd, nonce
        self.link, self.deadline = link, deadline
        self.cache = cache or CompileCache()
        self.active: list[str] = []
        self.stopping: set[str] = set()  # runs asked to stop, their reports not read yet
        self.sockets: list[socket.socket] = []
        self.pipes: list[int] = []  # the judge's ends of the pipes that announce batches (``Link.await_batch``)
        self.counter = 0
        self.failed = False
        self.retire: str | None = None  # the solution zygote's word that it could not clean up
        self.memory: object = None  # the memory bound (MB) a run of this sample exceeded
        self.batching = job.get("batch", True) is not False  # the host turns it off for a retry
        self.held: list[bytes] | None = None  # reports kept for one write (``hold_reports``)
        # The most CPU one solution run spent, as its zygote measured it (``limits.calibrate``).
        self.run_cpu_s = 0.0
        # Without a verdict pipe (a warm judge answering the host itself) the events stay here.
        self.events: list[dict] | None = [] if verdict_fd is None else None

    def report(self, **event: object) -> None:
        if "judge_error" in event:
            self.failed = True
        if self.events is not None:
            self.events.append(event)
            return
        message = frame({"nonce": self.nonce, **event})
        if self.held is not None:
            self.held.append(message)
        elif self.verdict_fd is not None:
            send_frames(self.verdict_fd, [message])

    def hold_reports(self) -> None:
        """Keep the next reports for one write (``release_reports``): for a burst made with
        nothing in between that could wait long, such as HumanEval's tests, reported at the end."""
        self.held = []

    def release_reports(self) -> None:
        held, self.held = self.held, None
        if held and self.verdict_fd is not None:
            send_frames(self.verdict_fd, held)

    def test(self, name: str, status: str, error: str | None = None) -> None:
        self.report(test={"name": trim(name, 200), "status": status, "error": error and trim(error)})

    # -- talking to the solution sandbox -----------------------------------------------------------
    def request_solution(self, mode: str, fds: list[int], wall_s: float) -> str:
        self.counter += 1
        seq = f"{self.nonce}-{self.counter}"
        send_fds(
            self.link,
            fds,
            {
                "op": "run",
                "seq": seq,
                "mode": mode,
                "program": self.job["program"],
                "limits": self.job["limits"],
                "sample_uid": self.job.get("sample_uid"),
                "wall_s": max(wall_s, 0.01),
            },
        )
        for fd in fds:
            os.close(fd)
        self.active.append(seq)
        return seq

    def stop_solution(self, seq: str) -> None:
        send_fds(self.link, [], {"op": "stop", "seq": seq})

    def solution_outcome(self, seq: str, deadline: float) -> dict:
        """The solution zygote's report on run ``seq`` (sent once its processes are gone)."""
        while True:
            reply = recv(self.link.fileno(), deadline)
            if isinstance(reply, dict) and reply.get("seq") == seq:
                if seq in self.active:
                    self.active.remove(seq)
                if reply.get("retire"):
                    self.retire = str(reply["retire"])
                if reply.get("memory"):
                    self.memory = reply["memory"]
                if isinstance(reply.get("cpu_s"), (int, float)):
                    self.run_cpu_s = max(self.run_cpu_s, float(reply["cpu_s"]))
                if "infrastructure" in reply:
                    raise RuntimeError(f"solution sandbox: {reply['infrastructure']}")
                if reply.get("retired"):
                    return reply
                if not reply.get("setup_ok") and not reply.get("stopped") and not reply.get("timed_out"):
                    raise RuntimeError("solution sandbox: the sample process failed before the program started")
                return reply

    def run(self) -> None:
        """Judge the job; a failure of the judge itself is reported, never raised."""
        try:
            {"asserts": self.run_asserts, "humaneval": self.run_humaneval, "stdio": self.run_stdio}[self.job["kind"]]()
        except BaseException as exc:
            self.report(judge_error=f"{type(exc).__name__}: {trim(str(exc))}")

    def send_stops(self) -> None:
        """Ask the solution zygote to end every run of this sample and close the judge's ends of
        their sockets, without waiting for the reports (``stop_runs`` does): the warm judge checks
        its own state meanwhile, while the other sandbox kills and reaps."""
        for seq in self.active:
            if seq not in self.stopping:
                self.stopping.add(seq)
                try:
                    self.stop_solution(seq)
                except OSError:
                    pass  # the report is awaited anyway, and fails the same way
        self.close_channels()

    def close_channels(self) -> None:
        for sock in self.sockets:
            sock.close()
        for fd in self.pipes:
            os.close(fd)
        self.sockets, self.pipes = [], []

    def stop_runs(self) -> None:
        """End every solution run of this sample and wait for the zygote's report on each (it is
        sent once the run's processes are gone; a working filesystem of its own is dropped after
        the report, before the zygote reads its next request)."""
        for seq in list(self.active):
            try:
                if seq not in self.stopping:
                    self.stopping.add(seq)
                    self.stop_solution(seq)
                if self.held and not select.select([self.link], [], [], HOLD_REPORTS_S)[0]:
                    self.release_reports()
                self.solution_outcome(seq, time.monotonic() + 10)
            except (OSError, EOFError, TimeoutError, ProtocolError, ValueError):
                pass
        self.close_channels()

    def finish(self, **extra: object) -> None:
        self.stop_runs()
        if self.memory is not None:
            extra["memory"] = memory_error(self.memory)
        self.report(done=True, idle=not self.active, retire=self.retire, run_cpu_s=self.run_cpu_s, **extra)
        self.release_reports()  # with the reports held since the tests ended, if any

    # -- function formats ------------------------------------------------------------------------
    def start_link(self) -> Link:
        """Ask for a solution process serving calls; its first message is awaited by ``Link.greet``."""
        mine, theirs = socket.socketpair()
        self.sockets.append(mine)
        ready_r, ready_w = os.pipe()
        os.set_blocking(ready_r, False)
        self.pipes.append(ready_r)
        seq = self.request_solution("serve", [os.dup(theirs.fileno()), ready_w], self.deadline - time.monotonic())
        theirs.close()
        link = Link(mine.fileno(), mine.fileno(), self.deadline, ended=lambda: self.ended(seq), ready_fd=ready_r)
        link.on_diverge = lambda: self.report(judge_error="batch diverged")
        link.greeting = lambda: self.hello(link, seq)
        return link

    def hello(self, link: Link, seq: str) -> str | None:
        """The solution's first message: None once it has loaded, else why it did not."""
        try:
            hello = link.reader.recv(self.deadline, HELLO_LIMIT)
        except TimeoutError:
            return "timeout"
        except (EOFError, OSError):
            # Either the program ended the process while loading, or the sandbox could not even
            # start it; the zygote's report tells which (an infrastructure failure raises here).
            how = self.ended(seq)
            return "timeout" if how == "timeout" else f"the solution process died while loading ({how})"
        except (ValueError, ProtocolError) as exc:
            return f"malformed message from the solution ({trim(str(exc), 120)})"
        if hello == ["loaded"]:
            return None
        if type(hello) is list and len(hello) == 3 and hello[0] == "load_error":
            return f"{trim(str(hello[1]), 200)}: {trim(str(hello[2]))}"
        return "malformed message from the solution"

    def loaded(self, link: Link) -> bool:
        """Whether the program loaded (waiting for its first message if needed); when it did
        not, that is reported, as the sample's only outcome."""
        link.greet()
        if link.load_error is not None:
            self.report(load_error=link.load_error)
            return False
        return True

    def ended(self, seq: str) -> str:
        """How run ``seq`` ended, once its socket went quiet: waits for the zygote's report, but
        never past the sample's deadline (a process that closed its socket and spins is a timeout)."""
        if seq not in self.active:
            return "the solution process had already ended"
        try:
            outcome = self.solution_outcome(seq, self.deadline)
        except TimeoutError:
            return "timeout"  # still running at the deadline; finish() stops it
        except RuntimeError as exc:
            # The machinery failed, not the program: make the whole sample an infrastructure
            # failure (retried on a fresh worker), whatever the test code does with this run.
            self.report(judge_error=trim(str(exc)))
            return "the sandbox failed"
        return ended_as(outcome)

    def namespace(self, link: Link, dry: bool = False) -> dict:
        """The tests' globals. A name the task's own code (setup, prompt, tests) does not define
        resolves, in this order, to: the solution's object when the task names it as the
        solution's (the entry point, the reference solution's functions and classes); the
        judge's import of what the reference solution imports (``import math``, ``from
        collections import Counter``); the judge's builtin; the judge's standard-library module
        of that name (MBPP/596 uses ``sys`` unimported); and only then the solution's namespace.
        A solution that binds ``sys``, ``math`` or ``len`` to a fake therefore never reaches a
        test, and whatever does come from the solution is a proxy whose results are plain data.
        ``dry``: a dry run's globals (``_sandbox_speculate``), where a name from the solution ends
        the dry run instead: it never sends the solution anything.
        """
        solution_names = set(self.job.get("solution_names") or ())
        judge_imports = dict(self.job.get("judge_imports") or {})

        def missing(name: str) -> object:
            # A builtin the solution shadows resolves to the solution's only when the task names it
            # (MBPP's ``sum``); otherwise tests keep the judge's own ``abs``, ``len``, ``sorted``...
            if name in solution_names:
                if dry:
                    raise StopSpeculating
                return Remote(link, ["name", name])  # resolved by the solution on first use: one round trip less
            # The judge's own objects are kept in the globals once found: a test's (or a prompt
            # helper's) every later use of ``len`` or ``ord`` is then a dict hit, not a call of
            # this function (HumanEval/50's checks made a hundred of them a sample).
            if name in judge_imports:
                found = namespace[name] = imported(name, *judge_imports[name])
                return found
            if hasattr(builtins, name):
                found = namespace[name] = getattr(builtins, name)
                return found
            module = judge_module(name)
            if module is not None:
                namespace[name] = module
                return module
            if dry:
                raise StopSpeculating
            return link.request("lookup", name)

        def imported(name: str, module_name: str, attribute: str | None) -> object:
            import importlib

            try:
                module = importlib.import_module(module_name)
                return module if attribute is None else getattr(module, attribute)
            except (ImportError, AttributeError):
                raise NameError(
                    f"name {name!r} is the reference solution's import from {module_name!r}, "
                    "which the judge cannot import"
                ) from None

        namespace = JudgeGlobals()
        namespace.missing = missing
        return namespace

    def batch_allowed(self, names: set, namespace: dict) -> bool:
        """Whether the builtins a batch's asserts use are the judge's builtins in this sample."""
        solution_names = set(self.job.get("solution_names") or ())
        judge_imports = self.job.get("judge_imports") or {}
        # A builtin ``missing`` kept in the globals is still the judge's own; anything else bound
        # under its name is not.
        return self.batching and not any(
            (n in namespace and namespace.get(n) is not getattr(builtins, n, None))
            or n in solution_names
            or n in judge_imports
            for n in names
        )

    def run_unit(self, name: str, code: CodeType, namespace: dict, link: Link) -> bool | None:
        """Run one unit of test code and report it: False when the run must stop (timeout), None
        when the program did not load (reported instead of the unit)."""
        try:
            exec(code, namespace)
            status, error = "passed", None
        except TimeoutError:
            status, error = "timeout", "the time budget ran out"
        except AssertionError as exc:
            status, error = "failed", f"AssertionError: {exc}" if str(exc) else "AssertionError"
        except SolutionError as exc:
            status, error = "error", str(exc)
        except BaseException as exc:
            status, error = "error", f"{type(exc).__name__}: {exc}"
        if not self.loaded(link):
            return None
        self.test(name, status, error)
        return status != "timeout"

    def run_asserts(self) -> None:
        link = self.start_link()
        tests = self.job["tests"]
        namespace = self.namespace(link)
        setup = self.job.get("setup") or ""
        try:
            exec(self.cache.get(("setup", setup), lambda: compile(setup, "<test setup>", "exec")), namespace)
        except BaseException as exc:
            if not self.loaded(link):
                return
            status = "timeout" if isinstance(exc, TimeoutError) else "error"
            for test in tests:
                self.test(test, status, f"test setup failed: {type(exc).__name__}: {exc}")
            return
        runs: dict = {}
        if self.batching:
            names = frozenset(self.job.get("solution_names") or ())
            runs = self.cache.get(("runs", tuple(tests), names), lambda: asserts_runs(tests, names))
        for index, test in enumerate(tests):
            run = runs.get(index)
            if run is not None:
                calls, builtin_names = run
                if not any(name in namespace for name, _, _ in calls) and self.batch_allowed(builtin_names, namespace):
                    link.prefetch([(["name", name], args, kwargs) for name, args, kwargs in calls])
            try:
                code = self.cache.get(("test", index, test), lambda t=test, i=index: compile(t, f"<test {i}>", "exec"))
            except SyntaxError as exc:
                if not self.loaded(link):
                    return
                self.test(test, "error", f"the test does not compile: {exc}")
                continue
            went_on = self.run_unit(test, code, namespace, link)
            if went_on is None:
                return
            if not went_on:
                for rest in tests[index + 1 :]:
                    self.test(rest, "timeout", "not run: the time budget ran out")
                return
        self.loaded(link)  # no test at all: whether the program loaded is still the outcome

    def run_humaneval(self) -> None:
        test = self.job["test"]
        # (test code, static batches, whether a dry run is worth it, each static batch as sent
        # (``batch``: filled on first use)): one entry a task.
        compiled = self.cache.get(
            ("humaneval", test), lambda: (*humaneval_test_code(test), speculation_wanted(test), {})
        )
        # A dry run depends on the tests alone (never on the solution): one that found fewer than
        # two calls to send ahead (HumanEval+'s checks compare each result in a helper: the dry run
        # ends at the first) is not run again for the task.
        speculate = self.batching and compiled[2] and ("no dry run", test) not in self.cache.store
        while self.humaneval_attempt(compiled, speculate):
            # The attempt's solution saw calls the tests did not make (a dry run that guessed
            # wrong): it is stopped (its processes and working directory gone) and the sample is
            # judged again from the start by a fresh one, without a dry run, within the same budget.
            self.stop_runs()
            self.memory, self.run_cpu_s = None, 0.0
            speculate = False

    def humaneval_attempt(self, compiled: tuple, speculate: bool) -> bool:
        """Judge the sample once; True (nothing reported) when a dry run's calls make it inexact."""
        link = self.start_link()
        namespace = self.namespace(link)
        entry_point = self.job["entry_point"]
        outcomes: dict[int, list] = {}
        diverged: list[bool] = []
        if speculate:
            # A wrong guess is this attempt's to undo, not the host's (``run_humaneval``).
            link.on_diverge = lambda: diverged.append(True)

        def record(condition, line: int, source: str) -> None:
            try:
                ok = condition()
                if type(ok) is not bool:
                    ok = bool(ok)
                failure = None if ok else "AssertionError"
            except TimeoutError:
                raise
            except SolutionError as exc:
                if link.broken:
                    raise
                failure = str(exc)
            except BaseException as exc:
                failure = f"{type(exc).__name__}: {exc}"
            entry = outcomes.setdefault(line, [source, 0, 0, None])
            entry[1 if failure is None else 2] += 1
            if failure is not None and entry[3] is None:
                entry[3] = failure

        test_code, runs, _, sent = compiled

        def batch(target: object, index: int) -> None:
            try:
                calls, builtin_names = runs[index]
                if type(target) is Remote and self.batch_allowed(builtin_names, namespace):
                    ref = object.__getattribute__(target, "_ref")
                    # A static batch's calls are the task's literals: wired and framed the same for
                    # every sample, so done once a task (what the tests then call is still checked
                    # against them, call by call, in ``Link.request``).
                    key = (index, repr(ref))
                    if key not in sent:
                        sent[key] = link.wire_batch([(ref, args, kwargs) for _, args, kwargs in calls])
                    link.send_ahead(*sent[key])
            except Exception:
                pass  # without a batch, each call goes on its own, as it always could

        try:
            context = self.job.get("context") or ""
            context_code = self.cache.get(("prompt", context), lambda: compile(context, "<prompt>", "exec"))
            exec(context_code, namespace)
            namespace.pop(entry_point, None)
            namespace["__rlvr_record__"] = record
            namespace["__rlvr_batch__"] = batch
            exec(test_code, namespace)
            check = namespace["check"]
            candidate = namespace[entry_point]
        except BaseException as exc:
            if self.loaded(link):
                kind = "timeout" if isinstance(exc, TimeoutError) else "error"
                self.test("check", kind, f"{type(exc).__name__}: {exc}")
            return False
        if speculate and type(candidate) is Remote:
            self.speculate(link, context_code, test_code, entry_point, object.__getattribute__(candidate, "_ref"))
        status, error = "passed", None
        try:
            check(candidate)
        except TimeoutError:
            status, error = "timeout", "the time budget ran out"
        except BaseException as exc:
            status, error = "error", f"{type(exc).__name__}: {exc}"
        if diverged and time.monotonic() < self.deadline:
            return True
        link.greet()
        if speculate and link.pending and link.load_error is None and time.monotonic() < self.deadline:
            # Calls sent ahead that the tests never made (a check that ended early) ran after every
            # answer the tests read, so they can change only how the run ended: its memory bound.
            self.stop_runs()
            if self.memory is not None:
                return True
        if not self.loaded(link):
            return False
        # Reported together, and with the sample's end (``finish``): one write, one wake-up of
        # the zygote, unless stopping the run is slow (``stop_runs``).
        self.hold_reports()
        for line in sorted(outcomes):
            source, _passed, failed, first = outcomes[line]
            self.test(f"line {line}: {source}", "failed" if failed else "passed", first)
        if status != "passed" or not outcomes:
            self.test(f"check({entry_point})", status, error)
        return False

    def speculate(self, link: Link, context_code: CodeType, test_code: CodeType, entry_point: str, ref: object) -> None:
        """Send ahead every call a dry run of the tests finds (``_sandbox_speculate``): in globals
        of its own, so nothing the dry run does reaches the real run's."""
        recorder = Recorder(ref, link._wire, time.monotonic() + SHARE * max(self.deadline - time.monotonic(), 0.0))
        dry = self.namespace(link, dry=True)
        names = frozenset(self.job.get("solution_names") or ()) | {entry_point}

        def tests() -> None:
            exec(context_code, dry)
            dry.pop(entry_point, None)
            dry["__rlvr_record__"] = dry_record(recorder, names)
            dry["__rlvr_batch__"] = lambda _target, _index: None
            exec(test_code, dry)
            dry["check"](recorder)

        calls = dry_run(tests, recorder)
        if len(calls) >= 2:
            link.send_ahead(calls)
        elif not recorder.timed_out:
            self.cache.get(("no dry run", self.job["test"]), lambda: True)
