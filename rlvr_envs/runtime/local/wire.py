"""The pool's wire form: how a Task goes to a worker and its Verdict comes back, pickled compactly.

Every call sends one Task and gets one Verdict back, so their (un)pickling was most of the pool's
own cost per call. ``dumps`` is ``pickle.dumps`` with a dispatch table of fast forms: a Task or a
Verdict as a flat tuple of its field values (no field names, no class reference, the default
Difficulty as None), and a worker's chunk of verdicts (``TimedVerdicts``) as one flat list that
unpickles as the list of verdicts with each one's time set. Anything else (a subclass, extra or
private attributes, a field added later) takes pydantic's general state without its per-object
``__setstate__`` round trip. Both ends unpickle with plain ``pickle.loads``: the forms name the
functions here that rebuild them, so the parent and every worker import this module.

Messages (tuples, pickled by ``dumps``), parent -> worker: ``("load", key, verifier_bytes)``,
``("verify_many", seq0, [(key, task, completion, max_chars), ...])`` (``verify_message``: each
plain Task as the flat tuple of its field values, ``task_of`` rebuilds it); worker -> parent:
``("loaded", key, error_or_None)``, ``("verdicts", seq, flat, mean_s)`` (``flat_verdicts`` of a
``TimedVerdicts``, read back by ``verdicts_of``). A message of these flat forms holds only
builtins: no class or function to look up at either end (a lookup per global cost more than the
rest of a one-call message), while ``dumps`` of a Task or a Verdict itself names the functions
that rebuild them.
"""

from __future__ import annotations

import copyreg
import io
import pickle
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from rlvr_envs.types import Difficulty, PassRate, Reason, Task, Verdict

__all__ = ["TimedVerdicts", "dumps", "flat_verdicts", "task_of", "verdicts_of", "verdicts_reply", "verify_message"]


def _rebuild_model(cls: type, fields: dict, fields_set: set, extra: Any, private: Any) -> Any:
    new: Any = object.__new__(cls)
    object.__setattr__(new, "__dict__", fields)
    object.__setattr__(new, "__pydantic_fields_set__", fields_set)
    object.__setattr__(new, "__pydantic_extra__", extra)
    object.__setattr__(new, "__pydantic_private__", private)
    return new


def _reduce_model(model: Any) -> tuple[Any, ...]:
    # The state pydantic's own pickling saves, without its per-object __setstate__ round trip:
    # a Task unpickles 3-4x faster. The object was validated when it was built; so is the copy.
    return _rebuild_model, (
        type(model),
        model.__dict__,
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        model.__pydantic_private__,
    )


# The compact forms below carry a Task or a Verdict as a flat tuple of its field values: no field
# names, no class reference, no dicts or sets to build but its own, and the default Difficulty (most
# tasks') as None. Every call sends one Task and gets one Verdict back, so their (un)pickling was
# most of the pool's own cost per call. They apply to exactly these classes with exactly these
# fields; anything else (a subclass, extra or private attributes, a field added later) takes the
# general form above.
_TASK_FIELDS = ("id", "prompt", "answer", "metadata", "difficulty")
_VERDICT_FIELDS = ("reward", "passed", "reason", "extracted", "details", "elapsed_s")
_REASONS: dict[str, Any] = {}
_new = object.__new__
# The slots every pydantic model has, set through their descriptors: a fifth cheaper than
# ``object.__setattr__``, which looks each name up first (five sets per object, two objects per task).
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def _task(id_: str, prompt: str, answer: Any, metadata: dict, difficulty: Any, fields_set: tuple[str, ...]) -> Any:
    if difficulty is None:  # the default, built fresh: no two tasks share its ``config`` dict
        difficulty = _new(Difficulty)
        _set_dict(difficulty, {"level": None, "config": {}, "label": None, "pass_rate": None})
        _set_fields(difficulty, set())
        _set_extra(difficulty, None)
        _set_private(difficulty, None)
    elif type(difficulty) is tuple:  # a plain Difficulty's field values (``_difficulty_state``)
        level, config, label, pass_rate, difficulty_set = difficulty
        difficulty = _new(Difficulty)
        _set_dict(difficulty, {"level": level, "config": config, "label": label, "pass_rate": pass_rate})
        _set_fields(difficulty, set(difficulty_set))
        _set_extra(difficulty, None)
        _set_private(difficulty, None)
    task = _new(Task)
    _set_dict(task, {"id": id_, "prompt": prompt, "answer": answer, "metadata": metadata, "difficulty": difficulty})
    _set_fields(task, set(fields_set))
    _set_extra(task, None)
    _set_private(task, None)
    return task


def _difficulty_state(difficulty: Any) -> Any:
    """None for the default Difficulty, a plain one's field values as a tuple, anything else itself."""
    if type(difficulty) is not Difficulty or difficulty.__pydantic_extra__ is not None:
        return difficulty
    state = difficulty.__dict__
    if difficulty.__pydantic_private__ is not None or len(state) != 4:
        return difficulty
    fields_set = difficulty.__pydantic_fields_set__
    if not fields_set and state == _DEFAULT_DIFFICULTY:
        return None
    return (state["level"], state["config"], state["label"], state["pass_rate"], tuple(fields_set))


def _task_state(task: Any) -> Any:
    """A plain Task's field values as a flat tuple (what ``_task`` takes); any other task itself."""
    if not _FLAT_TASKS or type(task) is not Task or task.__pydantic_extra__ is not None:
        return task
    state = task.__dict__
    if task.__pydantic_private__ is not None or len(state) != 5:
        return task
    return (
        state["id"],
        state["prompt"],
        state["answer"],
        state["metadata"],
        _difficulty_state(state["difficulty"]),
        tuple(task.__pydantic_fields_set__),
    )


def _reduce_task(task: Any) -> tuple[Any, ...]:
    state = _task_state(task)
    return _reduce_model(task) if state is task else (_task, state)


def task_of(state: Any) -> Any:
    """The Task a ``verify_message`` item carries (a Task sent whole passes through)."""
    return _task(*state) if type(state) is tuple else state


def verify_message(seq: int, jobs: Iterable[Any]) -> bytes:
    """The ``verify_many`` message for ``jobs`` (each with ``key``, ``task``, ``completion``,
    ``max_chars``), numbered from ``seq``: each plain Task as its flat field values, made once
    per task object, so a task several items share travels (and is rebuilt) once."""
    states: dict[int, Any] = {}
    items = []
    flat = True
    for job in jobs:
        task = job.task
        state = states.get(id(task))
        if state is None:
            state = states[id(task)] = _task_state(task)
            flat = flat and type(state) is tuple
        items.append((job.key, state, job.completion, job.max_chars))
    message = ("verify_many", seq, items)
    # Every task flat: plain ``pickle.dumps`` (its C fast path, no Pickler object to set up per
    # message: less than half the time of ``dumps`` for a one- or two-call message); a model
    # nested in an answer or metadata then takes pydantic's own pickling, which loads the same.
    return pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL) if flat else dumps(message)


def _verdict(
    reward: float,
    passed: bool,
    reason: str,
    extracted: str | None,
    details: Any,
    elapsed_s: float,
    fields_set: Iterable[str],
) -> Any:
    member = _REASONS.get(reason)
    if member is None:
        member = _REASONS[reason] = Reason(reason)
    verdict = _new(Verdict)
    _set_dict(
        verdict,
        {
            "reward": reward,
            "passed": passed,
            "reason": member,
            "extracted": extracted,
            "details": details,
            "elapsed_s": elapsed_s,
        },
    )
    _set_fields(verdict, set(fields_set))
    _set_extra(verdict, None)
    _set_private(verdict, None)
    return verdict


def _is_plain_verdict(verdict: Any) -> bool:
    """A Verdict the compact forms can carry: exactly the class, its six fields, a validated reason."""
    return (
        type(verdict) is Verdict
        and verdict.__pydantic_extra__ is None
        and verdict.__pydantic_private__ is None
        and len(verdict.__dict__) == 6
        and type(verdict.__dict__.get("reason")) is Reason  # not built unvalidated (``model_construct``)
    )


def _reduce_verdict(verdict: Any) -> tuple[Any, ...]:
    if not _is_plain_verdict(verdict):
        return _reduce_model(verdict)
    state = verdict.__dict__
    return _verdict, (
        state["reward"],
        state["passed"],
        state["reason"].value,
        state["extracted"],
        state["details"],
        state["elapsed_s"],
        tuple(verdict.__pydantic_fields_set__),
    )


class TimedVerdicts:
    """A worker's verdicts for consecutive items and the time each call took, as one wire record.

    It unpickles as the list of verdicts with each ``elapsed_s`` set (what ``Verdict.timed``
    makes), so the worker never copies a verdict only to set its time. Sent flat, one run of
    seven values per verdict, and rebuilt in one loop: no pickle call per verdict either way.
    """

    __slots__ = ("times", "verdicts")

    def __init__(self) -> None:
        self.verdicts: list[Any] = []
        self.times: list[float] = []

    def __len__(self) -> int:
        return len(self.verdicts)


_SIX = frozenset(_VERDICT_FIELDS)
_FIVE = _SIX - {"elapsed_s"}


def flat_verdicts(chunk: TimedVerdicts) -> list[Any]:
    """A chunk's verdicts, each timed, as one flat list of builtins, seven values a verdict (what
    ``verdicts_of`` reads): a verdict the flat form cannot carry goes whole (reason None marks it)."""
    flat: list[Any] = []
    add = flat.extend
    plain = _FLAT_VERDICTS
    for verdict, elapsed in zip(chunk.verdicts, chunk.times):
        if plain and _is_plain_verdict(verdict):
            state = verdict.__dict__
            fields = verdict.__pydantic_fields_set__
            # None: every field set (what ``Verdict.timed`` leaves for verdicts built the usual ways).
            fields_set = None if _FIVE <= fields <= _SIX else tuple(fields | {"elapsed_s"})
            reason = state["reason"]._value_
            add((state["reward"], state["passed"], reason, state["extracted"], state["details"], elapsed, fields_set))
        else:  # anything else travels whole, in the general form
            add((None, None, None, None, verdict.timed(elapsed), None, None))
    return flat


def verdicts_of(flat: list[Any]) -> list[Any]:
    """The verdicts a ``flat_verdicts`` list carries; ``ValueError`` for a list that is not one."""
    if type(flat) is not list or len(flat) % 7:
        raise ValueError("not a flat list of verdicts")
    out: list[Any] = []
    append, build, six = out.append, _verdict, _SIX
    values = iter(flat)
    for reward, passed, reason, extracted, details, elapsed, fields_set in zip(*(values,) * 7):
        if reason is None:  # a verdict sent whole, in the general form
            if not isinstance(details, Verdict):
                raise ValueError(f"not a verdict: {type(details).__name__}")
            append(details)
        else:
            append(
                build(reward, passed, reason, extracted, details, elapsed, six if fields_set is None else fields_set)
            )
    return out


def verdicts_reply(seq: int, chunk: TimedVerdicts, mean_s: float) -> bytes:
    """The ``("verdicts", seq, flat, mean_s)`` reply a worker sends for ``chunk``."""
    flat = flat_verdicts(chunk)
    reply = ("verdicts", seq, flat, mean_s)
    if None in flat[2::7]:  # a verdict sent whole: ``dumps``' fast form of the model
        return dumps(reply)
    # Builtins only: plain ``pickle.dumps`` (no Pickler set up per reply, as ``verify_message``).
    return pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)


def _reduce_timed(chunk: TimedVerdicts) -> tuple[Any, ...]:
    return verdicts_of, (flat_verdicts(chunk),)


_DIFFICULTY_FIELDS = ("level", "config", "label", "pass_rate")
_REASONS.update((member.value, member) for member in Reason)
_DEFAULT_DIFFICULTY: dict[str, Any] = {"level": None, "config": {}, "label": None, "pass_rate": None}
"""What ``_task`` builds for a difficulty sent as None (checked against ``Difficulty()`` below)."""
_FLAT_TASKS = (
    tuple(Task.model_fields) == _TASK_FIELDS
    and tuple(Difficulty.model_fields) == _DIFFICULTY_FIELDS
    and Difficulty().__dict__ == _DEFAULT_DIFFICULTY
)
_FLAT_VERDICTS = tuple(Verdict.model_fields) == _VERDICT_FIELDS
"""Whether the flat forms know the models' fields; if not (a field added later), the general form."""
_DISPATCH: dict[type, Any] = dict(copyreg.dispatch_table)
_DISPATCH.update({model: _reduce_model for model in (Task, Difficulty, PassRate, Verdict)})
_DISPATCH[TimedVerdicts] = _reduce_timed
if _FLAT_TASKS:
    _DISPATCH[Task] = _reduce_task
if _FLAT_VERDICTS:
    _DISPATCH[Verdict] = _reduce_verdict


def dumps(obj: Any) -> bytes:
    """``pickle.dumps`` with fast paths for the core models (Task, Difficulty, Verdict) on the wire."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _DISPATCH
    pickler.dump(obj)
    return buffer.getvalue()
