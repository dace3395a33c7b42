"""The judge sandbox: runs the task's own tests against a solution living in the other sandbox.

The judge never runs untrusted code. Names the tests take from the solution resolve to
``Remote`` handles; calls cross a socket and come back as plain data, decoded here into exact
builtin types, so comparisons use builtin semantics whatever the solution's objects would
have said. Results go to the judge zygote over a pipe with the sample's nonce; the zygote
alone talks to the host.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import builtins
import os
import socket
import sys
import time
from collections.abc import Callable
from types import CodeType
from typing import Any

from rlvr_code._sandbox_batch import asserts_runs, humaneval_test_code
from rlvr_code._sandbox_stdio import StdioCases, ended_as
from rlvr_code._sandbox_warm import CompileCache
from rlvr_code._sandbox_wire import (
    MAX_REPLY,
    PREIMPORT,
    ProtocolError,
    encode,
    recv,
    send,
    send_fds,
    trim,
)

# -- end wire imports --


class SolutionError(Exception):
    """The solution raised, returned something unusable, exited or died."""


HELLO_LIMIT = 1 << 20
"""Largest first message of a solution process (``loaded`` or a load error of trimmed text)."""
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


_PASSTHROUGH_ERRORS = {
    name: getattr(builtins, name)
    for name in (
        "ValueError",
        "TypeError",
        "KeyError",
        "IndexError",
        "ZeroDivisionError",
        "AttributeError",
        "RuntimeError",
        "NotImplementedError",
        "ArithmeticError",
        "LookupError",
        "OverflowError",
        "RecursionError",
        "StopIteration",
        "NameError",
        "Exception",
    )
}


class Remote:
    """A handle on an object that lives in the solution process (a function, a class instance).

    Equality is identity and truthiness is refused: a result only counts when it is plain data.
    """

    __slots__ = ("_link", "_ref")

    def __init__(self, link: Link, ref: object) -> None:
        object.__setattr__(self, "_link", link)
        object.__setattr__(self, "_ref", ref)

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self._link.request("call", self._ref, list(args), kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._link.request("getattr", self._ref, name)

    def __setattr__(self, name: str, value: object) -> None:
        self._link.request("setattr", self._ref, name, value)

    def __getitem__(self, key: object) -> object:
        return self._link.request("getitem", self._ref, key)

    def __iter__(self):
        return iter(self._link.request("iter", self._ref))

    def __len__(self) -> int:
        n = self._link.request("len", self._ref)
        if type(n) is not int:
            raise SolutionError("len() of a solution object did not give an int")
        return n

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Remote) and other._ref == self._ref

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(("remote", str(self._ref)))

    def __bool__(self) -> bool:
        raise SolutionError("the solution returned an object, not a plain value")

    def __repr__(self) -> str:
        return f"<solution object {self._ref}>"


class Link:
    """The judge's end of the pipe pair to one solution process."""

    def __init__(self, to_fd: int, from_fd: int, deadline: float, ended=None) -> None:
        self.to_fd, self.from_fd, self.deadline = to_fd, from_fd, deadline
        self.broken: str | None = None
        self.timed_out = False
        # () -> str: waits (at most until the deadline) for the zygote's report on the process.
        self.ended = ended
        self.pending: list = []  # requests sent ahead in a batch, in order (``_sandbox_batch``)
        self.on_diverge: Callable[[], None] | None = None

    def prefetch(self, calls: list) -> None:
        """Send ``calls`` (target, args, kwargs) ahead in one message; each answer is read when
        the test makes that call."""
        if self.timed_out or self.broken or self.pending:
            return
        wired = [["call", target, self._wire(list(args)), self._wire(dict(kwargs))] for target, args, kwargs in calls]
        try:
            send(self.to_fd, ["batch", [item[1:] for item in wired]])
        except OSError:
            return  # the next request meets the same error, as it would have
        self.pending = wired

    def _fail(self, exc: BaseException) -> BaseException:
        """The error to raise once the process stopped answering.

        Under load the judge may wake up only after the solution zygote has already killed a
        process that ran out of time, and then sees end-of-file rather than its own deadline:
        the zygote's report (or the clock) says which it was, so a timeout stays a timeout.
        """
        why = None
        if isinstance(exc, (EOFError, OSError)) and self.ended is not None:
            why = self.ended() if time.monotonic() < self.deadline else "timeout"
        if why == "timeout" or (why is None and time.monotonic() >= self.deadline):
            self.broken, self.timed_out = "timed out", True
            return TimeoutError()
        if isinstance(exc, ProtocolError):
            self.broken = f"the solution sent an unusable reply ({trim(str(exc), 120)})"
        else:
            self.broken = f"the solution process stopped answering ({why or type(exc).__name__})"
        return SolutionError(self.broken)

    def decode(self, item: object, depth: int = 0) -> object:
        if depth > 200 or type(item) is not list or not item or type(item[0]) is not str:
            raise SolutionError("malformed value from the solution")
        tag, rest = item[0], item[1:]
        if tag == "N":
            return None
        if tag == "B" and type(rest[0]) is bool:
            return rest[0]
        if tag == "I" and type(rest[0]) is str:
            return int(rest[0])
        if tag == "F" and type(rest[0]) is str:
            return float(rest[0])
        if tag == "C":
            return complex(float(rest[0]), float(rest[1]))
        if tag == "S" and type(rest[0]) is str:
            return rest[0]
        if tag == "Y" and type(rest[0]) is str:
            return bytes.fromhex(rest[0])
        if tag in ("L", "T", "E", "Z") and type(rest[0]) is list:
            items = [self.decode(v, depth + 1) for v in rest[0]]
            return {"L": list, "T": tuple, "E": set, "Z": frozenset}[tag](items)
        if tag == "D" and type(rest[0]) is list:
            return {self.decode(k, depth + 1): self.decode(v, depth + 1) for k, v in rest[0]}
        if tag == "M" and type(rest[0]) is str:
            # The judge uses its own copy: a module the solution patched never reaches the tests.
            # Only modules the judge already has or the zygote's warm set; nothing else is imported
            # on the solution's say-so.
            if rest[0] in sys.modules:
                return sys.modules[rest[0]]
            if rest[0] in PREIMPORT:
                import importlib

                return importlib.import_module(rest[0])
            raise SolutionError(f"the tests cannot use the solution's module {rest[0]!r}")
        if tag == "R" and type(rest[0]) is int:
            return Remote(self, rest[0])
        if tag == "G" and type(rest[0]) is str and hasattr(builtins, rest[0]):
            return getattr(builtins, rest[0])
        raise SolutionError(f"unexpected value tag {tag!r} from the solution")

    def _wire(self, value: object) -> object:
        if isinstance(value, Remote):
            return ["R", object.__getattribute__(value, "_ref")]
        for base, tag in ((list, "L"), (tuple, "T"), (frozenset, "Z"), (set, "E")):
            if isinstance(value, base):
                return [tag, [self._wire(v) for v in value]]
        if isinstance(value, dict):
            return ["D", [[self._wire(k), self._wire(v)] for k, v in value.items()]]
        return encode(value, {})

    def request(self, op: str, target: object, *args: Any) -> Any:
        """One operation on a solution object; its reply decoded (plain data of any shape, or a Remote)."""
        if self.timed_out:
            raise TimeoutError()
        if self.broken:
            raise SolutionError(self.broken)
        if op == "call":
            wired = [self._wire(list(args[0])), self._wire(dict(args[1]))]
        else:
            wired = [self._wire(a) for a in args]
        message = [op, target, *wired]
        ahead = bool(self.pending)
        if ahead and self.pending.pop(0) != message:
            # Never expected (a batch holds only calls the tests must make next); the host then
            # runs the sample again without batching, so the verdict is exact regardless.
            self.pending, self.broken = [], "batch diverged"
            if self.on_diverge is not None:
                self.on_diverge()
            raise SolutionError(self.broken)
        try:
            if not ahead:
                send(self.to_fd, message)
            reply = recv(self.from_fd, self.deadline, MAX_REPLY)
        except TimeoutError:
            self.broken, self.timed_out = "timed out", True
            raise
        except (EOFError, OSError, ValueError, ProtocolError) as exc:
            raise self._fail(exc) from None
        if type(reply) is not list or not reply:
            raise SolutionError("malformed reply from the solution")
        if reply[0] == "ok":
            if len(reply) == 3 and reply[2] == "end":
                self.pending = []  # the solution ended the batch here: the rest come one by one
            return self.decode(reply[1])
        if reply[0] == "err" and len(reply) == 3:
            # Both come from the solution: an exception class may be named with megabytes.
            name, detail = trim(str(reply[1]), 200), trim(str(reply[2]))
            cls = _PASSTHROUGH_ERRORS.get(name)
            if cls is not None and name != "StopIteration":
                raise cls(detail)
            raise SolutionError(f"{name}: {detail}")
        raise SolutionError("malformed reply from the solution")


class Judge(StdioCases):
    def __init__(
        self,
        job: dict,
        verdict_fd: int,
        nonce: str,
        link: socket.socket,
        deadline: float,
        cache: CompileCache | None = None,
    ) -> None:
        self.job, self.verdict_fd, self.nonce = job, verdict_fd, nonce
        self.link, self.deadline = link, deadline
        self.cache = cache or CompileCache()
        self.active: list[str] = []
        self.sockets: list[socket.socket] = []
        self.counter = 0
        self.failed = False
        self.retire: str | None = None  # the solution zygote's word that it could not clean up
        self.batching = job.get("batch", True) is not False  # the host turns it off for a retry

    def report(self, **event: object) -> None:
        if "judge_error" in event:
            self.failed = True
        send(self.verdict_fd, {"nonce": self.nonce, **event})

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

    def stop_runs(self) -> None:
        """End every solution run of this sample and wait for the zygote's report on each (it is
        sent once the run's processes are gone and its working filesystem is dropped)."""
        for seq in list(self.active):
            try:
                self.stop_solution(seq)
                self.solution_outcome(seq, time.monotonic() + 10)
            except (OSError, EOFError, TimeoutError, ProtocolError, ValueError):
                pass
        for sock in self.sockets:
            sock.close()
        self.sockets = []

    def finish(self, **extra: object) -> None:
        self.stop_runs()
        self.report(done=True, idle=not self.active, retire=self.retire, **extra)

    # -- function formats ------------------------------------------------------------------------
    def start_link(self) -> tuple[Link | None, str | None]:
        mine, theirs = socket.socketpair()
        self.sockets.append(mine)
        seq = self.request_solution("serve", [os.dup(theirs.fileno())], self.deadline - time.monotonic())
        theirs.close()
        link = Link(mine.fileno(), mine.fileno(), self.deadline, ended=lambda: self.ended(seq))
        link.on_diverge = lambda: self.report(judge_error="batch diverged")
        try:
            hello = recv(mine.fileno(), self.deadline, HELLO_LIMIT)
        except TimeoutError:
            return None, "timeout"
        except (EOFError, OSError):
            # Either the program ended the process while loading, or the sandbox could not even
            # start it; the zygote's report tells which (an infrastructure failure raises here).
            how = self.ended(seq)
            return None, "timeout" if how == "timeout" else f"the solution process died while loading ({how})"
        except (ValueError, ProtocolError) as exc:
            return None, f"malformed message from the solution ({trim(str(exc), 120)})"
        if hello == ["loaded"]:
            return link, None
        if type(hello) is list and len(hello) == 3 and hello[0] == "load_error":
            return None, f"{trim(str(hello[1]), 200)}: {trim(str(hello[2]))}"
        return None, "malformed message from the solution"

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

    def namespace(self, link: Link) -> dict:
        """The tests' globals. A name the task's own code (setup, prompt, tests) does not define
        resolves, in this order, to: the solution's object when the task names it as the
        solution's (the entry point, the reference solution's functions and classes); the
        judge's import of what the reference solution imports (``import math``, ``from
        collections import Counter``); the judge's builtin; the judge's standard-library module
        of that name (MBPP/596 uses ``sys`` unimported); and only then the solution's namespace.
        A solution that binds ``sys``, ``math`` or ``len`` to a fake therefore never reaches a
        test, and whatever does come from the solution is a proxy whose results are plain data.
        """
        solution_names = set(self.job.get("solution_names") or ())
        judge_imports = dict(self.job.get("judge_imports") or {})

        def missing(name: str) -> object:
            # A builtin the solution shadows resolves to the solution's only when the task names it
            # (MBPP's ``sum``); otherwise tests keep the judge's own ``abs``, ``len``, ``sorted``...
            if name in solution_names:
                return Remote(link, ["name", name])  # resolved by the solution on first use: one round trip less
            if name in judge_imports:
                return imported(name, *judge_imports[name])
            if hasattr(builtins, name):
                return getattr(builtins, name)
            module = judge_module(name)
            if module is not None:
                return module
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

        class Globals(dict):
            def __missing__(self, name: str) -> object:
                return missing(name)

        return Globals()

    def batch_allowed(self, names: set, namespace: dict) -> bool:
        """Whether the builtins a batch's asserts use are the judge's builtins in this sample."""
        solution_names = set(self.job.get("solution_names") or ())
        judge_imports = self.job.get("judge_imports") or {}
        return self.batching and not any(n in namespace or n in solution_names or n in judge_imports for n in names)

    def run_unit(self, name: str, code: CodeType, namespace: dict) -> bool:
        """Run one unit of test code; report it; False when the run must stop (timeout)."""
        try:
            exec(code, namespace)
        except TimeoutError:
            self.test(name, "timeout", "the time budget ran out")
            return False
        except AssertionError as exc:
            self.test(name, "failed", f"AssertionError: {exc}" if str(exc) else "AssertionError")
        except SolutionError as exc:
            self.test(name, "error", str(exc))
        except BaseException as exc:
            self.test(name, "error", f"{type(exc).__name__}: {exc}")
        else:
            self.test(name, "passed")
        return True

    def run_asserts(self) -> None:
        link, error = self.start_link()
        tests = self.job["tests"]
        if link is None:
            self.report(load_error=error)
            return
        namespace = self.namespace(link)
        setup = self.job.get("setup") or ""
        try:
            exec(self.cache.get(("setup", setup), lambda: compile(setup, "<test setup>", "exec")), namespace)
        except BaseException as exc:
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
                self.test(test, "error", f"the test does not compile: {exc}")
                continue
            if not self.run_unit(test, code, namespace):
                for rest in tests[index + 1 :]:
                    self.test(rest, "timeout", "not run: the time budget ran out")
                return

    def run_humaneval(self) -> None:
        link, error = self.start_link()
        if link is None:
            self.report(load_error=error)
            return
        namespace = self.namespace(link)
        entry_point = self.job["entry_point"]
        outcomes: dict[int, list] = {}

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

        test_code, runs = self.cache.get(("humaneval", self.job["test"]), lambda: humaneval_test_code(self.job["test"]))

        def batch(target: object, index: int) -> None:
            try:
                calls, builtin_names = runs[index]
                if type(target) is Remote and self.batch_allowed(builtin_names, namespace):
                    ref = object.__getattribute__(target, "_ref")
                    link.prefetch([(ref, args, kwargs) for _, args, kwargs in calls])
            except Exception:
                pass  # without a batch, each call goes on its own, as it always could

        try:
            context = self.job.get("context") or ""
            exec(self.cache.get(("prompt", context), lambda: compile(context, "<prompt>", "exec")), namespace)
            namespace.pop(entry_point, None)
            namespace["__rlvr_record__"] = record
            namespace["__rlvr_batch__"] = batch
            exec(test_code, namespace)
            check = namespace["check"]
            candidate = namespace[entry_point]
        except BaseException as exc:
            self.test("check", "timeout" if isinstance(exc, TimeoutError) else "error", f"{type(exc).__name__}: {exc}")
            return
        status, error = "passed", None
        try:
            check(candidate)
        except TimeoutError:
            status, error = "timeout", "the time budget ran out"
        except BaseException as exc:
            status, error = "error", f"{type(exc).__name__}: {exc}"
        for line in sorted(outcomes):
            source, _passed, failed, first = outcomes[line]
            self.test(f"line {line}: {source}", "failed" if failed else "passed", first)
        if status != "passed" or not outcomes:
            self.test(f"check({entry_point})", status, error)
