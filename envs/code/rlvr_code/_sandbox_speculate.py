"""Every call a HumanEval ``check`` will make, found by running it once without the solution.

Part of the judge harness (sent after ``_sandbox_link`` and before ``_sandbox_judge``). The static
batches (``_sandbox_batch``) cover runs of straight-line asserts; a check that calls the solution
in a loop over generated inputs (HumanEval/32, 38, 50, 53: a hundred calls each) or in asserts
whose message is not a constant still paid a round trip (two wake-ups) per call. Here the judge
runs the check first as a **dry run**: in a fresh copy of the tests' globals, the global
``random`` generator's state put back afterwards, the solution replaced by a recorder that
takes down each call's arguments (wired exactly as the real call will wire them) and answers
with a ``Pending`` stand-in. The calls recorded go to the solution in one batch; the real run
then takes each answer from the stream (``Link.request``), exactly as for a static batch.

What keeps the verdict exact:

* the recording stops for good at the first thing it cannot know: a result used where the flow
  of the test could depend on it (any operation on ``Pending`` outside an assert's condition
  raises ``Speculated``, which ends the dry run), an argument holding a result or an object that
  is not plain data, a name resolved from the solution, ``MAX_CALLS`` calls or ``SHARE`` of the
  sample's time; inside an assert's condition (``__rlvr_record__``) the result is only compared,
  and the assert's outcome never changes what the test does next;
* the real run compares every call it makes with the next one sent ahead (``Link.request``):
  any difference (a test whose flow depends on a result in a way the dry run could not see) is
  a ``batch diverged``, and the host runs the sample again without batches;
* a real run that makes fewer calls than were sent ahead (a check that ends early) has had every
  answer it read before the solution ran the rest; what the rest did can only show in how the
  run ended, so a memory bound met with calls sent ahead and never asked for is a ``batch
  diverged`` too (``Judge.finish``): the verdict never depends on a call the tests did not make.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import time
from collections.abc import Callable

from rlvr_code._sandbox_batch import assert_runs, bound_names
from rlvr_code._sandbox_wire import has_ref

# -- end wire imports --

MAX_CALLS = 2000
"""Calls one dry run may record (HumanEval's largest check makes 105)."""
SHARE = 0.25
"""Share of the sample's time a dry run may take; past it, what was recorded goes ahead."""


class Speculated(BaseException):
    """A test used a result the dry run does not have (caught by the dry run's assert recorder;
    anywhere else it ends the dry run). A ``BaseException``, so that a test's ``except Exception``
    does not take it for the solution's error and go on along a path the real run may not take."""


class StopSpeculating(BaseException):
    """The dry run can record no further call: it ends, keeping what it recorded."""


def _refuse(*_args: object, **_kwargs: object):
    raise Speculated


class Pending:
    """A dry run's stand-in for a call's answer: every operation on it raises ``Speculated``
    (attribute reads too, so ``isinstance`` on it raises rather than answer False)."""

    __slots__ = ()


_REFUSED = (
    "__getattribute__ __getattr__ __setattr__ __delattr__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__ "
    "__bool__ __hash__ __len__ __iter__ __next__ __reversed__ __contains__ __getitem__ __setitem__ "
    "__delitem__ __call__ __add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__ __rmul__ __imul__ "
    "__truediv__ __rtruediv__ __floordiv__ __rfloordiv__ __mod__ __rmod__ __divmod__ __rdivmod__ "
    "__pow__ __rpow__ __matmul__ __rmatmul__ __neg__ __pos__ __abs__ __invert__ __and__ __rand__ "
    "__or__ __ror__ __xor__ __rxor__ __lshift__ __rlshift__ __rshift__ __rrshift__ __int__ __float__ "
    "__complex__ __index__ __round__ __trunc__ __floor__ __ceil__ __str__ __repr__ __format__ "
    "__bytes__ __enter__ __exit__ __reduce__ __reduce_ex__ __copy__ __deepcopy__ __dir__ __fspath__ "
    "__await__ __aiter__ __anext__ __length_hint__"
).split()
for _name in _REFUSED:
    setattr(Pending, _name, _refuse)
del _name


class Recorder:
    """The dry run's solution: records each call (as ``Link.request`` will send it) and answers
    ``Pending``; ``calls`` holds the ``["call", target, args, kwargs]`` messages in order."""

    def __init__(self, target: object, wire: Callable[[object], object], until: float) -> None:
        self.target, self.wire, self.until = target, wire, until
        self.calls: list[list] = []
        self.stopped = False
        self.timed_out = False  # stopped by its share of the time (under load), not by the tests

    def __call__(self, *args: object, **kwargs: object) -> Pending:
        if self.stopped or len(self.calls) >= MAX_CALLS or time.monotonic() > self.until:
            self.timed_out = self.timed_out or time.monotonic() > self.until
            self.stopped = True
            raise StopSpeculating
        try:
            message = ["call", self.target, self.wire(list(args)), self.wire(dict(kwargs))]
        except BaseException:  # an argument holding a result (``Pending`` refuses to be read)
            message = None
        if message is None or has_ref(message[2]) or has_ref(message[3]):
            # A result or an object that stays in the judge: the real call's arguments are not known.
            self.stopped = True
            raise StopSpeculating
        self.calls.append(message)
        return Pending()


def dry_record(recorder: Recorder, solution_names: frozenset) -> Callable[[Callable[[], object], int, str], None]:
    """The dry run's ``__rlvr_record__``: an assert's condition evaluated for its calls alone.

    A condition stopped by a result it compared (``Speculated``) would have gone on in the real
    run: when its code names anything of the solution's (HumanEval/33 compares with the solution's
    own function by its name: a second call after the comparison's first operand), the calls after
    that point are unknown and the dry run ends there; otherwise the rest of the condition can
    only compute with the result, and recording goes on with the next statement."""

    def record(condition: Callable[[], object], _line: int, _source: str) -> None:
        if recorder.stopped or time.monotonic() > recorder.until:
            recorder.timed_out = recorder.timed_out or time.monotonic() > recorder.until
            recorder.stopped = True
            raise StopSpeculating
        try:
            condition()
        except StopSpeculating:
            raise
        except Speculated:
            names = names_of(getattr(condition, "__code__", None))
            if names is None or names & solution_names:
                recorder.stopped = True
                raise StopSpeculating from None
        except BaseException:
            pass  # the test's own failure: the real run's ``record`` goes on to the next statement

    return record


def names_of(code: object, depth: int = 0) -> frozenset | None:
    """Every name a code object (and the code nested in it: comprehensions, lambdas) refers to;
    None when it cannot be read (the caller then stops: nothing unknown is guessed)."""
    import types

    if not isinstance(code, types.CodeType) or depth > 20:
        return None
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            nested = names_of(const, depth + 1)
            if nested is None:
                return None
            found |= nested
    return frozenset(found)


def dry_run(run: Callable[[], object], recorder: Recorder) -> list[list]:
    """Run the tests (``run``: their set-up, then ``check`` against ``recorder``) and return the
    calls recorded before they had to stop.

    Never raises (a dry run that fails records what it got to). The global ``random`` generator,
    which HumanEval's generated inputs come from, is put back as it was, so the real run draws the
    same inputs."""
    import random

    state = random.getstate()
    try:
        run()
    except BaseException:
        pass
    finally:
        random.setstate(state)
    recorder.stopped = True
    return recorder.calls


def speculation_wanted(test: str) -> bool:
    """Whether a HumanEval test's ``check`` names its function anywhere a static batch does not
    reach (in a loop, a comprehension, an assert with a message, a helper's arguments): only then
    is a dry run worth its cost. A test the parser refuses gets none."""
    import ast

    try:
        tree = ast.parse(test)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name == "check" and node.args.args):
            continue
        param = node.args.args[0].arg
        nodes = list(ast.walk(node))
        uses = sum(1 for n in nodes if isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Load))
        batched = sum(len(calls) for _, calls, _ in assert_runs(node.body, param, frozenset(), bound_names(nodes)))
        if uses > batched:
            return True
    return False
