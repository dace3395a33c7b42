"""Shared by both sides of the sandbox: message framing, fd passing, plain-value encoding.

Everything under ``_sandbox_*`` runs under the system ``/usr/bin/python3 -I -S`` inside the
sandbox, never under the caller's virtual environment, so it uses the standard library only.
The host sends each sandbox this module's source followed by its role's modules
(``_sandbox_stdio``, ``_sandbox_warm``, ``_sandbox_batch``, ``_sandbox_link``, ``_sandbox_judge``
and ``_sandbox_judge_zygote``, or ``_sandbox_solution`` and ``_sandbox_solution_zygote``), with
the import block between the markers removed.

Design in one paragraph: a worker is two bubblewrap sandboxes joined by a Unix socket. The
**judge** sandbox receives the job (program and tests) and hands it to a warm judge (one
process for many samples, replaced whenever a sample leaves a trace in it) that runs the
task's own test code; the **solution** sandbox never sees a test: it receives only the
program and forks one process per sample (or per stdin/stdout case) that drops to an
unprivileged uid and runs it. The judge calls the solution's functions over a socket and gets
back plain data (exact builtin types), so every comparison happens in the judge with builtin
semantics. The warm judge writes the verdict to the host itself (the judge zygote only
watches it, and answers for it when it overruns), over a pipe that no solution process ever
holds, in another PID namespace.
"""

from __future__ import annotations

# fcntl and resource serve the solution's modules, which share this module's globals in the
# sandbox: imported once here, not by an ``import`` in each sample's path (a lookup and the module's
# spec consulted each time, and in a fork child each object it touches a page copied).
import builtins
import fcntl  # noqa: F401
import json
import os
import resource  # noqa: F401
import select
import signal
import socket
import struct
import sys
import time

# The sandbox never imports typing (start-up cost): the names below exist for the type checker
# only, and every annotation stays an unevaluated string (``from __future__ import annotations``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_HEADER = struct.Struct(">I")
MAX_MESSAGE = 64 * 1024 * 1024
MAX_REPLY = 16 * 1024 * 1024
"""Largest value a solution may hand back to the judge (the judge has no memory rlimit)."""
ERROR_CHARS = 400
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PREIMPORT = (
    "math",
    "re",
    "collections",
    "itertools",
    "functools",
    "heapq",
    "bisect",
    "string",
    "typing",
    "operator",
    "copy",
    "random",
    "statistics",
    "fractions",
    "decimal",
    "datetime",
    "hashlib",
    "array",
    "cmath",
    "json",
    "traceback",
    "ast",
    "io",
)
HARNESS_IMPORTS = ("resource", "fcntl", "ctypes", "signal", "select", "importlib", "stat", "ast")
"""What the harness itself uses after a fork: imported in the zygote, so no sample reads them from disk."""
COLD_FOR_SAMPLES = ("hashlib", "traceback", "ast", "importlib")
"""Left out of the solution zygote (issue 30, round 14): every fork copies a page-table entry for
each page of the zygote's anonymous memory, and these hold 1 MB of it (hashlib with OpenSSL's 11
mappings besides), while no MBPP and 1 of 164 HumanEval solutions import one: a sample that does
pays its own import (2-5 ms). ``typing`` stays (21 of 164 HumanEval solutions import it: 0.35 ms a
sample on average against about 0.03 saved); the judge keeps every module (a task's tests may
import any of ``PREIMPORT``, and ``ast`` is its own)."""
SAMPLE_PREIMPORT = (*(n for n in PREIMPORT if n not in COLD_FOR_SAMPLES), "_ast")
"""What a sample finds imported. ``_ast``: ``compile()`` asks whether its source is an AST object,
which builds the 120 AST node types the first time in a process; without them built in the
zygote, each sample process built them again (140 page faults and about 1 ms of CPU a HumanEval
sample, measured round 14 on a fork that lacked ``ast``). The bootstrap's compile builds them
here; the floor's zygote, run by ``-c`` without ``compile()``, needs the import."""
WARM_IMPORTS = {
    "judge": (*PREIMPORT, *HARNESS_IMPORTS),
    "solution": (*SAMPLE_PREIMPORT, *(n for n in HARNESS_IMPORTS if n not in COLD_FOR_SAMPLES)),
}
"""What each role's zygote imports before its first fork (``start_zygote``, and the bootstrap)."""


class ProtocolError(Exception):
    pass


# -- framing --
def send(fd: int, obj: object) -> None:
    data = json.dumps(obj, ensure_ascii=True).encode()
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    chunks, remaining = [], n
    while remaining:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def recv(fd: int, deadline: float | None = None, limit: int = MAX_MESSAGE) -> Any:
    """One framed JSON message: any JSON value, which every reader checks before it trusts it."""
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size, deadline))
    if size > limit:
        raise ProtocolError(f"message of {size} bytes is over the limit")
    return loads(_read_exact(fd, size, deadline))


def loads(data: bytes) -> Any:
    """A message's JSON value. Nesting too deep for the decoder is a ``ProtocolError`` like any
    other unusable message, not a ``RecursionError`` that every reader would have to expect (a
    solution's first message nested half a million deep made a judge error, so a retried sample
    and a verifier error instead of a failed one)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ProtocolError("message nested too deeply") from None


def frame(obj: object) -> bytes:
    data = json.dumps(obj, ensure_ascii=True).encode()
    return _HEADER.pack(len(data)) + data


def send_frames(fd: int, frames: list[bytes]) -> None:
    """Several framed messages in one write (one wake-up of the reader instead of one each)."""
    view = memoryview(b"".join(frames))
    while view:
        written = os.write(fd, view)
        view = view[written:]


class Reader:
    """Framed messages from a descriptor that this process alone reads.

    Reads whatever is there at once, so a burst of messages (a batch's answers, a sample's test
    reports) costs one ``read`` instead of a ``select`` and two reads each. The same errors as
    ``recv``: ``TimeoutError`` at the deadline, ``EOFError`` at the end, ``ProtocolError`` for a
    message over ``limit`` (raised on its header, before its body is waited for).
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()

    def recv_raw(self, deadline: float | None = None, limit: int = MAX_MESSAGE) -> bytes:
        """The next message's JSON text, undecoded."""
        head = _HEADER.size
        while True:
            have = len(self.buffer)
            if have >= head:
                (size,) = _HEADER.unpack_from(self.buffer)
                if size > limit:
                    raise ProtocolError(f"message of {size} bytes is over the limit")
                if have >= head + size:
                    data = bytes(self.buffer[head : head + size])
                    del self.buffer[: head + size]
                    return data
                want = head + size - have
            else:
                want = head - have
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                    raise TimeoutError
            chunk = os.read(self.fd, min(max(want, 1 << 16), 1 << 20))
            if not chunk:
                raise EOFError
            self.buffer += chunk

    def recv(self, deadline: float | None = None, limit: int = MAX_MESSAGE) -> Any:
        return loads(self.recv_raw(deadline, limit))

    def has_message(self) -> bool:
        """Whether a whole message is buffered (the next ``recv`` needs no read)."""
        have = len(self.buffer)
        return have >= _HEADER.size and have >= _HEADER.size + _HEADER.unpack_from(self.buffer)[0]

    def take_ready(self, limit: int) -> None:
        """Buffer what the descriptor holds now, up to ``limit`` bytes, without waiting."""
        taken = 0
        while taken < limit and select.select([self.fd], [], [], 0)[0]:
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                return  # the end: the next read sees it
            self.buffer += chunk
            taken += len(chunk)


def trim(text: str, limit: int = ERROR_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


_LIBC: list = []


def libc():
    """The C library, loaded once per process (``dlopen`` costs a sample about 0.15 ms a call)."""
    if not _LIBC:
        import ctypes

        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def prctl(option: int, value: int) -> None:
    try:
        libc().prctl(option, value, 0, 0, 0)
    except Exception:
        pass


_VERSION_TAG_OFFSET = 24
"""Where a dict's version tag lies in CPython 3.11 and 3.12 (64-bit): after the reference count,
the type and ``ma_used``."""


def version_tag_reader():
    """A function giving a live view of a dict's PEP 509 version tag, or None where there is none
    to trust.

    CPython gives every dict a tag that takes a new, never reused value on each write to it (set,
    replace, delete, update, clear), so a module namespace whose tag is the one it had at start
    holds exactly what it held: one memory read instead of comparing every entry (about 6,500 of
    them in the warm judge's clean-state check, 0.3 ms a sample; the solution's builtins after
    each call). Only on the interpreters whose layout is known (CPython
    3.11/3.12, 64-bit, not a debug build), and only if every kind of write moves the tag on a
    probe module here; anywhere else, and on any doubt, the full comparison is made every time.
    """
    if (
        sys.implementation.name != "cpython"
        or sys.version_info[:2] not in ((3, 11), (3, 12))
        or sys.maxsize != (1 << 63) - 1
        or hasattr(sys, "gettotalrefcount")
    ):
        return None
    try:
        import ctypes
        import types

        def tag(namespace: dict):
            return ctypes.c_uint64.from_address(id(namespace) + _VERSION_TAG_OFFSET)

        probe = types.ModuleType("_rlvr_probe")
        namespace = vars(probe)
        if ctypes.c_ssize_t.from_address(id(namespace) + _VERSION_TAG_OFFSET - 8).value != len(namespace):
            return None  # not the layout expected: ``ma_used`` is not where it should be
        view = tag(namespace)
        writes = (
            lambda: setattr(probe, "x", []),
            lambda: setattr(probe, "x", []),  # replaced by another object
            lambda: delattr(probe, "x"),
            lambda: namespace.__setitem__("y", 1),
            lambda: namespace.update(z=2),
            lambda: namespace.setdefault("w", 3),
            lambda: namespace.pop("w"),
            lambda: namespace.popitem(),
            lambda: exec("global v\nv = 4", namespace),
            lambda: exec("global v\ndel v", namespace),
            namespace.clear,
        )
        for write in writes:
            before = view.value
            write()
            if view.value == before:
                return None
        return tag
    except Exception:
        return None


# -- plain-value encoding --
# Tags: N None, B bool, I int, F float, C complex, S str, Y bytes, L list, T tuple, E set,
# Z frozenset, D dict, V a standard-library value (``build_stdlib``), R reference to an object
# that stays in the solution process, M module, G a builtin by name.
def encode(value: object, refs: dict[int, object], depth: int = 0) -> list:
    """Plain data for a value. Subclasses of builtin types (Counter, namedtuples, a hostile
    ``int`` subclass) are read through the base type's own methods, so what travels is the
    content, never the object's behaviour."""
    if depth > 200:
        raise ValueError("value nested too deeply")
    if value is None:
        return ["N"]
    if isinstance(value, bool):
        return ["B", value is True]
    if isinstance(value, int):
        return ["I", int.__repr__(value)]
    if isinstance(value, float):
        return ["F", float.__repr__(value)]
    if isinstance(value, complex):
        return ["C", float.__repr__(complex.real.__get__(value)), float.__repr__(complex.imag.__get__(value))]
    if isinstance(value, str):
        return ["S", str.__str__(value)]
    if isinstance(value, (bytes, bytearray)):
        return ["Y", bytes(value).hex()]
    for base, tag, iterate in (
        (list, "L", list.__iter__),
        (tuple, "T", tuple.__iter__),
        (set, "E", set.__iter__),
        (frozenset, "Z", frozenset.__iter__),
    ):
        if isinstance(value, base):
            # ``iterate`` is the unbound ``__iter__`` of ``base``, which ``value`` is an instance of.
            return [tag, [encode(v, refs, depth + 1) for v in iterate(value)]]  # type: ignore[arg-type]
    kind = type(value)
    numpy = sys.modules.get("numpy") if getattr(kind, "__module__", None) == "numpy" else None
    if numpy is not None and isinstance(value, numpy.generic):
        # A numpy scalar (np.int64 from a sum, np.bool_ from a comparison) as the plain value it
        # holds; arrays stay handles (the reference compares them elementwise, not as lists).
        return encode(numpy.generic.item(value), refs, depth + 1)
    if kind in _STDLIB_KINDS or (getattr(kind, "__module__", None) in _STDLIB_MODULES and kind in _stdlib_classes()):
        return ["V", _stdlib_kind(kind), [encode(v, refs, depth + 1) for v in _stdlib_parts(value, kind)]]
    if isinstance(value, dict):
        return ["D", [[encode(k, refs, depth + 1), encode(v, refs, depth + 1)] for k, v in dict.items(value)]]
    if type(value) is type(sys):
        return ["M", value.__name__]
    name = getattr(value, "__name__", None)
    if type(name) is str and getattr(builtins, name, None) is value:
        return ["G", name]
    refs[id(value)] = value
    return ["R", id(value)]


# -- standard-library value types --
# Right answers are often returned as a Fraction, a Decimal, a deque, a range, a Counter or a dict
# view. Only these exact types travel by value ("V": a kind name and the plain parts of the
# value); the receiving side rebuilds a genuine instance of its own copy of the type, so equality
# and methods are the standard library's, never the sender's (a subclass, or anything else, stays
# a handle). A sender can only choose the value, as it could by returning it honestly.
_STDLIB_KINDS = {type({}.keys()): "keys", type({}.values()): "values", type({}.items()): "items", range: "range"}


def _stdlib_classes() -> dict:
    """The standard-library classes that travel by value, from the modules already imported
    (a value of a class whose module was never imported cannot exist)."""
    found = {}
    for module, name, kind in _STDLIB_CLASSES:
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type):  # Fraction's metaclass is ABCMeta
            found[cls] = kind
    return found


_STDLIB_CLASSES = (
    ("fractions", "Fraction", "fraction"),
    ("decimal", "Decimal", "decimal"),
    ("collections", "deque", "deque"),
    ("collections", "Counter", "counter"),
    ("collections", "OrderedDict", "ordereddict"),
)


_STDLIB_MODULES = frozenset(module for module, _, _ in _STDLIB_CLASSES)


def _stdlib_kind(kind: type) -> str:
    return _STDLIB_KINDS.get(kind) or _stdlib_classes()[kind]


def _stdlib_parts(value: Any, kind: type) -> list:
    name = _stdlib_kind(kind)
    if name == "keys" or name == "values":
        return [list(value)]
    if name == "items":
        return [[tuple(pair) for pair in value]]
    if name == "range":
        return [value.start, value.stop, value.step]
    if name == "fraction":
        return [value.numerator, value.denominator]
    if name == "decimal":
        return [str(value)]
    if name == "deque":
        return [list(value), value.maxlen]
    return [dict(dict.items(value))]  # counter, ordereddict: their entries in order


def build_stdlib(kind: object, parts: list) -> object:
    """A genuine standard-library value from its kind and decoded parts (``encode``'s "V").

    Raises ``ValueError`` on parts of the wrong shape or type (the caller refuses the message)."""
    try:
        if kind in ("keys", "values", "items") and len(parts) == 1 and type(parts[0]) is list:
            if kind == "keys":
                return dict.fromkeys(parts[0]).keys()
            if kind == "values":
                return dict(enumerate(parts[0])).values()
            if all(type(pair) is tuple and len(pair) == 2 for pair in parts[0]):
                return dict(parts[0]).items()
        elif kind == "range" and len(parts) == 3 and all(type(p) is int for p in parts):
            return range(*parts)
        elif kind == "fraction" and len(parts) == 2 and all(type(p) is int for p in parts) and parts[1] > 0:
            import fractions

            return fractions.Fraction(parts[0], parts[1])
        elif kind == "decimal" and len(parts) == 1 and type(parts[0]) is str and len(parts[0]) < 100_000:
            import decimal

            return decimal.Decimal(parts[0])
        elif kind == "deque" and len(parts) == 2 and type(parts[0]) is list:
            import collections

            if parts[1] is None or (type(parts[1]) is int and parts[1] >= 0):
                return collections.deque(parts[0], parts[1])
        elif kind in ("counter", "ordereddict") and len(parts) == 1 and type(parts[0]) is dict:
            import collections

            # The receiver's own classes: an empty Counter takes a mapping's counts as they are.
            return collections.Counter(parts[0]) if kind == "counter" else collections.OrderedDict(parts[0])
    except Exception as exc:  # unhashable keys, a malformed decimal: the sender's mistake
        raise ValueError(f"malformed {kind} value: {type(exc).__name__}") from None
    raise ValueError(f"malformed standard-library value {str(kind)[:40]!r}")


def has_ref(item: object) -> bool:
    """Whether an encoded value holds a handle on an object that stays in the solution."""
    if type(item) is not list or not item:
        return False
    tag = item[0]
    if tag == "R":
        return True
    if tag in ("L", "T", "E", "Z"):
        return any(has_ref(v) for v in item[1])
    if tag == "D":
        return any(has_ref(k) or has_ref(v) for k, v in item[1])
    if tag == "V":
        return any(has_ref(v) for v in item[2])
    return False


def send_fds(sock: socket.socket, fds: list[int], obj: object) -> None:
    """One marker byte carrying ``fds``, then a framed message (stream order keeps them together).

    Both go in one ``sendmsg`` when the socket takes them whole (it nearly always does), so the
    reader wakes once, not once for the marker and again for the message."""
    data = frame(obj)
    sent = socket.send_fds(sock, [b"F", data], fds)
    view = memoryview(data)[max(sent - 1, 0) :]
    while view:
        view = view[os.write(sock.fileno(), view) :]


def recv_fds(sock: socket.socket, max_fds: int, deadline: float | None = None) -> tuple[Any, list[int]]:
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            raise TimeoutError
    marker, fds, _flags, _addr = socket.recv_fds(sock, 1, max_fds)
    if not marker:
        raise EOFError
    if marker != b"F":
        for fd in fds:
            os.close(fd)
        raise ProtocolError("expected a file-descriptor marker")
    return recv(sock.fileno(), deadline), list(fds)


def kill_tree(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass


def kill_all_but_me(pid_namespace: bool, pgid: int | None = None, uid: int | None = None) -> None:
    """SIGKILL every process the sample started, then reap them.

    In a PID namespace of its own the zygote is alone apart from bubblewrap's init (which
    ``kill(-1)`` never reaches) and the sample's processes, so ``kill(-1)`` is exact. Without
    one (reduced isolation) that would hit the whole machine: then kill the sample's process
    group and, when the sample ran under a uid of its own, every process of that uid.
    """
    if pid_namespace:
        for _ in range(100):
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                return  # ESRCH: nothing left to signal
            # Blocking: every process left is a descendant (we are their subreaper) and is dying.
            reap(block=True)
        return
    if pgid is not None:
        kill_tree(pgid)
    if uid is not None and os.getuid() == 0:
        helper = os.fork()
        if helper == 0:
            try:
                os.setgid(uid)
                os.setuid(uid)
                for _ in range(100):
                    os.kill(-1, signal.SIGKILL)  # as this uid: exactly the processes of this uid
            except BaseException:
                pass
            os._exit(0)
        os.waitpid(helper, 0)
    # Whatever was killed is ours to reap (subreaper); bounded, since without a PID namespace a
    # process that escaped both the group and the uid could otherwise block us forever.
    give_up = time.monotonic() + 2.0
    while time.monotonic() < give_up:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.002)


def reap(block: bool) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def start_zygote(role: str = "judge") -> None:
    """What both zygotes do first: quiet stdio, subreaper, not dumpable, the role's warm imports."""
    sys.set_int_max_str_digits(0)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_DUMPABLE, 0)
    os.umask(0o077)
    for name in WARM_IMPORTS[role]:
        try:
            __import__(name)
        except ImportError:
            pass
    libc()
    import gc

    # Children inherit this heap copy-on-write; a collection in a child would walk (and copy)
    # every page of it. Freezing moves the zygote's objects out of the collector's reach.
    gc.collect()
    gc.freeze()
