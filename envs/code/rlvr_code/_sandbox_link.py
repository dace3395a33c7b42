"""The judge's handles on the solution: ``Remote`` objects and the ``Link`` their calls travel on.

Part of the judge harness (sent after ``_sandbox_batch`` and before ``_sandbox_judge``). Every
answer arrives as plain data and is decoded into exact builtin types; an object that stays in
the solution is a ``Remote`` whose equality is identity and whose truthiness raises.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import builtins
import os
import select
import sys
import time
from collections.abc import Callable
from typing import Any

from rlvr_code._sandbox_wire import (
    MAX_REPLY,
    PREIMPORT,
    ProtocolError,
    Reader,
    build_stdlib,
    encode,
    frame,
    send,
    send_frames,
    trim,
)

# -- end wire imports --


class SolutionError(Exception):
    """The solution raised, returned something unusable, exited or died."""


BATCH_WAIT_S = 0.02
"""How long the judge waits for a batch's announcement (``serve_batch``) before it reads the
socket as it would without one: a slow call's answer is read at most this late."""
EARLY_BATCH_BYTES = 32 * 1024
"""A batch this small may be sent before the solution has loaded: it waits in the socket's buffer
(far larger), so sending it can never block the judge on a process that is still loading."""

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

    def __init__(self, to_fd: int, from_fd: int, deadline: float, ended=None, ready_fd: int | None = None) -> None:
        self.to_fd, self.from_fd, self.deadline = to_fd, from_fd, deadline
        # The pipe on which the solution announces a batch's answers (non-blocking; its owner closes it).
        self.ready_fd = ready_fd
        self.reader = Reader(from_fd)  # this judge alone reads the solution's end
        self.broken: str | None = None
        self.timed_out = False
        # () -> str: waits (at most until the deadline) for the zygote's report on the process.
        self.ended = ended
        self.pending: list = []  # requests sent ahead in a batch, in order (``_sandbox_batch``)
        self.on_diverge: Callable[[], None] | None = None
        # () -> error text or None: waits for the solution's first message (``greet``).
        self.greeting: Callable[[], str | None] | None = None
        self.load_error: str | None = None
        self.handed = False  # whether the reply being decoded held a ``Remote`` (``request``)

    def greet(self) -> None:
        """Wait for the solution's first message, ``loaded`` or why it did not load, unless it
        was read already. The tests start before it comes, so that the first batch of calls
        travels while the solution is still loading; nothing reads an answer, and nothing is
        reported, before it has come (a program that did not load fails every request after)."""
        if self.greeting is None:
            return
        greeting, self.greeting = self.greeting, None
        self.load_error = greeting()
        if self.load_error is not None:
            if self.load_error == "timeout":
                self.timed_out = True
            self.broken = self.broken or "the solution did not load"

    def prefetch(self, calls: list) -> None:
        """Send ``calls`` (target, args, kwargs) ahead in one message; each answer is read when
        the test makes that call."""
        if self.timed_out or self.broken or self.pending:
            return
        self.send_ahead(*self.wire_batch(calls))

    def wire_batch(self, calls: list) -> tuple[tuple, bytes | None]:
        """``calls`` (target, args, kwargs) wired as ``request`` wires each, and the batch message
        that carries them (None for no calls): what ``send_ahead`` takes, to be kept and reused."""
        wired = tuple(
            ["call", target, self._wire(list(args)), self._wire(dict(kwargs))] for target, args, kwargs in calls
        )
        return wired, frame(["batch", [item[1:] for item in wired]]) if wired else None

    def send_ahead(self, wired: tuple | list, message: bytes | None = None) -> None:
        """Send calls already wired as ``request`` sends them (``["call", target, args, kwargs]``)
        ahead in one message: from a static batch (``prefetch``) or a dry run (``_sandbox_speculate``).
        ``message``: that batch's message already framed (``wire_batch``), else framed here."""
        if self.timed_out or self.broken or self.pending or not wired:
            return
        if message is None:
            message = frame(["batch", [item[1:] for item in wired]])
        if len(message) > EARLY_BATCH_BYTES:
            self.greet()  # too large to wait in the socket's buffer: only once the solution reads
            if self.timed_out or self.broken:
                return
        try:
            send_frames(self.to_fd, [message])
        except OSError:
            return  # the next request meets the same error, as it would have
        self.pending = list(wired)  # a list of its own: ``request`` takes the calls off it one by one
        self.await_announcement()
        self.greet()  # the tests go no further before the solution has loaded

    def await_announcement(self) -> None:
        """Before reading the solution's first message, wait (at most ``BATCH_WAIT_S``) for the
        batch's announcement, without taking it (``await_batch`` does): a solution that loads
        and answers at once then wakes the judge once, for its greeting and its answers together,
        instead of once for each. A solution that fails to load ends its process, which closes
        the pipe; one that is slow to load, or never announces, costs at most ``BATCH_WAIT_S``
        before the greeting is read as it was. Nothing is read or decided here."""
        ready = self.ready_fd
        if ready is None or self.greeting is None:
            return
        wait = min(self.deadline - time.monotonic(), BATCH_WAIT_S)
        if wait > 0:
            select.select([ready], [], [], wait)

    def await_batch(self) -> None:
        """Wait for the batch's announcement rather than wake for each answer, at most
        ``BATCH_WAIT_S``: the answers are read from the socket afterwards either way.

        Past the deadline, what is in the socket already is taken first: read as it came, as it
        would have been without the announcement, it answers its calls; the call still running
        at the deadline, and every one after it, is a timeout as before."""
        ready, wait = self.ready_fd, min(self.deadline - time.monotonic(), BATCH_WAIT_S)
        if ready is not None and wait > 0 and select.select([ready], [], [], wait)[0]:
            try:
                if not os.read(ready, 4096):
                    self.ready_fd = None  # closed on the solution's side: the socket alone from now on
            except BlockingIOError:
                pass
        if time.monotonic() >= self.deadline:
            self.reader.take_ready(MAX_REPLY)

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
        if tag == "V" and len(rest) == 2 and type(rest[1]) is list:
            try:
                return build_stdlib(rest[0], [self.decode(v, depth + 1) for v in rest[1]])
            except ValueError as exc:
                raise SolutionError(f"malformed value from the solution: {exc}") from None
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
            self.handed = True
            return Remote(self, rest[0])
        if tag == "G" and type(rest[0]) is str and hasattr(builtins, rest[0]):
            return getattr(builtins, rest[0])
        raise SolutionError(f"unexpected value tag {tag!r} from the solution")

    def _wire(self, value: Any) -> object:
        # Exact builtin types first (the arguments of almost every call), encoded as ``encode``
        # encodes them; subclasses and everything else take the general path below.
        kind = type(value)
        if kind is int:
            return ["I", int.__repr__(value)]
        if kind is str:
            return ["S", value]
        if kind is list:
            return ["L", [self._wire(v) for v in value]]
        if kind is float:
            return ["F", float.__repr__(value)]
        if kind is bool:
            return ["B", value]
        if kind is tuple:
            return ["T", [self._wire(v) for v in value]]
        if value is None:
            return ["N"]
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
        self.greet()
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
            elif self.ready_fd is not None and not self.reader.has_message():
                self.await_batch()
            reply = self.reader.recv(self.deadline, MAX_REPLY)
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
            self.handed = False
            value = self.decode(reply[1])
            if self.handed:
                # An object that stays in the solution ends the batch whether or not the reply says
                # so: the tests may use it next, which no call of the batch is (else a program that
                # leaves out the mark would make a "batch diverged", a worker killed and a rerun).
                self.pending = []
            return value
        if reply[0] == "err" and len(reply) == 3:
            # Both come from the solution: an exception class may be named with megabytes.
            name, detail = trim(str(reply[1]), 200), trim(str(reply[2]))
            cls = _PASSTHROUGH_ERRORS.get(name)
            if cls is not None and name != "StopIteration":
                raise cls(detail)
            raise SolutionError(f"{name}: {detail}")
        raise SolutionError("malformed reply from the solution")
