"""The inputs hidden tests are derived on (``rlvr_code.derived``): changes of a shown call's literal
arguments that keep each value's type and visible properties, seeded by the task so every process
derives the same ones.

``candidate_inputs``: a few near the shown ones (an int moves by 1-3 without changing sign, a
string edits a letter or digit into another of its class, a list changes some items, maybe grows
by one, is shuffled unless it was sorted, stays free of duplicates if it was; a tuple keeps its
length). ``wide_inputs``: many more, for a reference that answers one value near the shown inputs
(Woodall numbers, "is the month February"): each int argument swept over a range around its
value, strings cut, repeated and reversed, nested changes applied again; they run in ONE process
(``batch_driver``) since a process a case costs ~40 ms on a loaded machine.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any, Protocol

from rlvr_envs.python_ast import literal_eval

SEED = "rlvr-code-derived-v1"
CANDIDATES = 12
MAX_LITERAL = 2000
"""Characters of a derived input's or result's literal (a test stays readable and cheap)."""
WIDE_INPUTS = 480
"""Inputs ``wide_inputs`` makes at most (one reference process runs them all)."""
_SWEEP = 96
"""Values an int argument is swept over (``0..95`` around a small value, spread around a larger one)."""

Args = tuple[Any, ...]
Kwargs = tuple[tuple[str, Any], ...]


class Called(Protocol):
    """A shown call: its literal arguments and the name the reference answers under."""

    @property
    def args(self) -> Args: ...

    @property
    def kwargs(self) -> Kwargs: ...

    @property
    def callee(self) -> str: ...


def _int(value: int, rng: random.Random) -> int:
    if value == 0:
        return 0  # zero is often a boundary the task names; its neighbours change the question
    step = rng.choice((1, 2, 3))
    new = value + rng.choice((-step, step))
    if (value > 0) != (new > 0) or new == 0:
        new = value + step if value > 0 else value - step
    return new


def _float(value: float, rng: random.Random) -> float:
    if value == 0.0 or value != value or value in (float("inf"), float("-inf")):
        return value
    return round(value * rng.choice((0.5, 1.5, 2.0)), 6) or value


_CLASSES = ("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789")


def _str(value: str, rng: random.Random) -> str:
    spots = [i for i, ch in enumerate(value) if any(ch in c for c in _CLASSES)]
    if not spots:
        return value
    chars = list(value)
    for at in rng.sample(spots, min(len(spots), rng.choice((1, 2)))):
        pool = next(c for c in _CLASSES if chars[at] in c)
        if pool[0] == "0" and at == 0 and chars[at] != "0":
            pool = pool[1:]  # a number keeps no leading zero
        others = [c for c in pool if c != chars[at]]
        chars[at] = rng.choice(others)
    return "".join(chars)


def _ordered(items: list[Any]) -> int:
    """1: non-decreasing, -1: non-increasing, 0: neither or not comparable (a short list: 0)."""
    if len(items) < 3:
        return 0
    try:
        if all(a <= b for a, b in itertools.pairwise(items)):
            return 1
        if all(a >= b for a, b in itertools.pairwise(items)):
            return -1
    except TypeError:
        return 0
    return 0


def _distinct(items: list[Any]) -> bool:
    try:
        return len({repr(v) for v in items}) == len(items)
    except (TypeError, ValueError, RecursionError):
        return False


def _list(items: list[Any], rng: random.Random, depth: int) -> list[Any]:
    out = [_perturb(v, rng, depth + 1) if rng.random() < 0.5 else v for v in items]
    if items and rng.random() < 0.5:
        out.insert(rng.randrange(len(out) + 1), _perturb(rng.choice(items), rng, depth + 1))
    order = _ordered(items)
    if order:
        try:
            out.sort(reverse=order < 0)
        except TypeError:
            return list(items)
    elif len(out) > 1:
        rng.shuffle(out)
    if _distinct(items):
        out = list({repr(v): v for v in reversed(out)}.values())[::-1]  # the first of each, in order
    return out


def _perturb(value: Any, rng: random.Random, depth: int = 0) -> Any:
    if depth > 6 or isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return _int(value, rng)
    if isinstance(value, float):
        return _float(value, rng)
    if isinstance(value, str):
        return _str(value, rng)
    if isinstance(value, list):
        return _list(value, rng, depth)
    if isinstance(value, tuple):
        return tuple(_perturb(v, rng, depth + 1) for v in value)  # a tuple is a record: its length stays
    if isinstance(value, dict):
        return {k: _perturb(v, rng, depth + 1) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return type(value)(_perturb(v, rng, depth + 1) for v in value)
    return value


def _plain(value: Any) -> bool:
    """A literal that round-trips exactly (``repr`` then ``literal_eval``) and holds no float."""
    if isinstance(value, float):
        return False
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    if isinstance(value, complex):
        return False
    text = repr(value)
    if len(text) > MAX_LITERAL:
        return False
    try:
        back = literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return type(back) is type(value) and back == value


def candidate_inputs(shown: Sequence[Called], task_id: str, count: int = CANDIDATES) -> list[tuple[int, Args, Kwargs]]:
    """Up to ``count`` new ``(shown index, args, kwargs)``, the same in every process (the first
    ones the same whatever ``count``)."""
    rng = random.Random(f"{SEED}|{task_id}")  # str seeds hash with SHA-512: no PYTHONHASHSEED
    seen = {repr((s.callee, s.args, s.kwargs)) for s in shown}
    out = []
    for attempt in range(count * 4):
        index = attempt % len(shown)
        base = shown[index]
        args = tuple(_perturb(a, rng) for a in base.args)
        kwargs = tuple((k, _perturb(v, rng)) for k, v in base.kwargs)
        key = repr((base.callee, args, kwargs))
        if key in seen or not all(_plain(v) for v in (*args, *(v for _, v in kwargs))):
            continue
        if len(repr((args, kwargs))) > MAX_LITERAL:
            continue
        seen.add(key)
        out.append((index, args, kwargs))
        if len(out) >= count:
            break
    return out


def _sweep(value: int, rng: random.Random) -> list[int]:
    """Ints of ``value``'s sign: every one up to ``_SWEEP`` from zero, and for a larger value a
    spread sample between half and twice it."""
    sign = -1 if value < 0 else 1
    size = abs(value)
    found = list(range(_SWEEP))
    if size >= _SWEEP:
        low, high = max(_SWEEP, size // 2), size * 2 + 1
        found += sorted(rng.sample(range(low, high), min(_SWEEP, high - low)))
    return [sign * v for v in found]


def _reshaped(value: str, rng: random.Random) -> str:
    """A string cut, repeated, reversed or edited more than once (its characters' classes kept)."""
    if not value:
        return value
    cut = rng.randrange(1, len(value) + 1)
    choices = (
        value[:cut],
        value[cut:] or value,
        value + value[:cut],
        value * 2,
        value[::-1],
        value[:cut] * max(1, len(value) // cut),
        _str(_str(value, rng), rng),
    )
    return rng.choice(choices)


def _relisted(items: list[Any], rng: random.Random, depth: int) -> list[Any]:
    """A list cut, repeated, reversed, made of one of its items, or changed item by item."""
    if not items:
        return items
    cut = rng.randrange(1, len(items) + 1)
    choice = rng.randrange(6)
    if choice == 0:
        return [rng.choice(items)] * len(items)
    if choice == 1:
        return items[:cut]
    if choice == 2:
        return items + items[:cut]
    if choice == 3:
        return items[::-1]
    return [_deeper(v, rng, depth + 1) if rng.random() < 0.5 else v for v in items]


def _deeper(value: Any, rng: random.Random, depth: int = 0) -> Any:
    """``_perturb`` applied more deeply: a flag may flip, an int move again, a string or a list
    change its shape (a tuple still keeps its length)."""
    if depth > 6 or value is None:
        return value
    if isinstance(value, bool):
        return (not value) if rng.random() < 0.5 else value
    if isinstance(value, str):
        return _reshaped(value, rng) if rng.random() < 0.5 else _str(value, rng)
    if isinstance(value, list):
        return _relisted(value, rng, depth)
    if isinstance(value, tuple):
        return tuple(_deeper(v, rng, depth + 1) for v in value)
    out = value
    for _ in range(rng.choice((1, 2, 3))):
        out = _perturb(out, rng)
    return out


def wide_inputs(shown: Sequence[Called], task_id: str, count: int = WIDE_INPUTS) -> list[tuple[int, Args, Kwargs]]:
    """Up to ``count`` new ``(shown index, args, kwargs)`` further from the shown calls than
    ``candidate_inputs``': each int argument swept alone (the others as shown), then every argument
    changed more deeply; the same in every process."""
    rng = random.Random(f"{SEED}|wide|{task_id}")
    seen = {repr((s.callee, s.args, s.kwargs)) for s in shown}
    out: list[tuple[int, Args, Kwargs]] = []

    def add(index: int, args: Args, kwargs: Kwargs) -> None:
        key = repr((shown[index].callee, args, kwargs))
        if key in seen or len(out) >= count or len(repr((args, kwargs))) > MAX_LITERAL:
            return
        if all(_plain(v) for v in (*args, *(v for _, v in kwargs))):
            seen.add(key)
            out.append((index, args, kwargs))

    for index, base in enumerate(shown):
        for at, value in enumerate(base.args):
            if isinstance(value, int) and not isinstance(value, bool):
                for swept in _sweep(value, rng):
                    add(index, (*base.args[:at], swept, *base.args[at + 1 :]), base.kwargs)
    for attempt in range(count * 4):
        if len(out) >= count:
            break
        index = attempt % len(shown)
        base = shown[index]
        add(index, tuple(_deeper(a, rng) for a in base.args), tuple((k, _deeper(v, rng)) for k, v in base.kwargs))
    return out


BATCH_MARK = "\n#rlvr-derived-results#"
_BATCH_DRIVER = """
import ast as _derived_ast, sys as _derived_sys
_derived_out = []
for _derived_args, _derived_kwargs in _derived_ast.literal_eval(_derived_sys.stdin.read()):
    try:
        _derived_out.append(repr({callee}(*_derived_args, **dict(_derived_kwargs))))
    except BaseException:  # (SystemExit included) this input is dropped, the next still runs
        _derived_out.append(None)
_derived_sys.stdout.write({mark!r} + repr(_derived_out))
"""


_TIMED_DRIVER = """
import ast as _derived_ast, os as _derived_os, select as _derived_select, sys as _derived_sys
import time as _derived_time
def _derived_calls(_derived_items, _derived_fd):
    with _derived_os.fdopen(_derived_fd, "w", encoding="utf-8", errors="replace") as _derived_pipe:
        for _derived_args, _derived_kwargs in _derived_items:
            try:
                _derived_text = repr({callee}(*_derived_args, **dict(_derived_kwargs)))
            except BaseException:
                _derived_text = None
            _derived_pipe.write(repr(_derived_text) + "\\n")
            _derived_pipe.flush()
def _derived_watch(_derived_items, _derived_end):
    _derived_sys.stdout.flush()
    _derived_read, _derived_write = _derived_os.pipe()
    _derived_pid = _derived_os.fork()
    if _derived_pid == 0:
        try:
            _derived_os.close(_derived_read)
            _derived_calls(_derived_items, _derived_write)
        finally:
            _derived_os._exit(0)
    _derived_os.close(_derived_write)
    _derived_got, _derived_buffer = [], b""
    _derived_due = min(_derived_time.monotonic() + {call_s!r}, _derived_end)
    try:
        while len(_derived_got) < len(_derived_items):
            _derived_left = _derived_due - _derived_time.monotonic()
            if _derived_left <= 0 or not _derived_select.select([_derived_read], [], [], _derived_left)[0]:
                break
            _derived_chunk = _derived_os.read(_derived_read, 1 << 16)
            if not _derived_chunk:
                break
            _derived_buffer += _derived_chunk
            while b"\\n" in _derived_buffer:
                _derived_line, _derived_buffer = _derived_buffer.split(b"\\n", 1)
                _derived_got.append(_derived_ast.literal_eval(_derived_line.decode("utf-8", "replace")))
                _derived_due = min(_derived_time.monotonic() + {call_s!r}, _derived_end)
    finally:
        _derived_os.kill(_derived_pid, 9)
        _derived_os.waitpid(_derived_pid, 0)
        _derived_os.close(_derived_read)
    return _derived_got
_derived_items = _derived_ast.literal_eval(_derived_sys.stdin.read())
_derived_out = []
_derived_end = _derived_time.monotonic() + {total_s!r}
while len(_derived_out) < len(_derived_items) and _derived_time.monotonic() < _derived_end:
    _derived_out += _derived_watch(_derived_items[len(_derived_out):], _derived_end)
    if len(_derived_out) < len(_derived_items):
        _derived_out.append(None)
_derived_out += [None] * (len(_derived_items) - len(_derived_out))
_derived_sys.stdout.write({mark!r} + repr(_derived_out))
"""
CALL_S = 0.2
"""Seconds one reference call may take in a timed batch (``batch_driver(..., timed=True)``)."""
TOTAL_S = 4.0
"""Seconds a timed batch spends calling the reference; the inputs left after it get None."""


def batch_driver(callee: str, *, timed: bool = False) -> str:
    """A driver calling ``callee`` on each ``(args, kwargs)`` of stdin's list literal and printing,
    after ``BATCH_MARK`` (what the reference prints itself comes before it), the list of ``repr``
    of its results, None where it raised.

    ``timed`` (``-v7``): each call is stopped after ``CALL_S`` and no call starts after
    ``TOTAL_S``, so one input the reference is slow on (MBPP/901's brute-force least common
    multiple on n = 90) costs that input, not the whole batch (the run's limit used to end it, and
    every input was lost). The calls run in order in a forked child of the sandboxed driver, which
    sends each result down a pipe; the driver waits ``CALL_S`` for each and, past it (or where the
    child died: ``os._exit`` in the reference), ends the child and forks a fresh one at the next
    input. No signal handler or interval timer in the process running the reference (the project
    rule; one SIGALRM landing between a call's end and its cancel lost the batch), and a call
    stuck in C code (a huge power) is stopped too, which a handler never could."""
    if timed:
        return _TIMED_DRIVER.format(callee=callee, mark=BATCH_MARK, call_s=CALL_S, total_s=TOTAL_S)
    return _BATCH_DRIVER.format(callee=callee, mark=BATCH_MARK)


def batch_results(text: str | None, count: int) -> list[str | None]:
    """The ``count`` result texts ``batch_driver`` printed in ``text`` (None each where the run
    failed or its output is not the list it prints)."""
    empty: list[str | None] = [None] * count
    if text is None or BATCH_MARK not in text:
        return empty
    try:
        found = literal_eval(text.rsplit(BATCH_MARK, 1)[1])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return empty
    if not isinstance(found, list) or len(found) != count:
        return empty
    return [v if isinstance(v, str) else None for v in found]
