"""The pool's compact wire format for Task and Verdict, and ``Verdict.timed``: same objects back."""

import pickle

import pytest
from pydantic import ValidationError

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.runtime.local.wire import (
    TimedVerdicts,
    dumps,
    flat_verdicts,
    task_of,
    verdicts_of,
    verdicts_reply,
    verify_message,
)
from rlvr_envs.runtime.local.wire import _task_state as _task_state
from rlvr_envs.types import Difficulty, PassRate


def _state(model):
    return (
        type(model),
        model.__dict__,
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        model.__pydantic_private__,
    )


def _round_trip(obj):
    return pickle.loads(dumps(obj))


TASKS = [
    Task(id="plain", prompt="1+1?", answer=2),
    Task(id="meta", prompt="p", answer={"a": [1, 2]}, metadata={"m": "x"}),
    Task(id="level", prompt="p", answer="x", difficulty=Difficulty(level=3, config={"digits": 4})),
    Task(
        id="rated",
        prompt="p",
        answer=None,
        difficulty=Difficulty(label="hard", pass_rate=PassRate(passes=1, samples=4, sampler="s")),
    ),
    # An explicitly passed default difficulty: equal to the default, but in the fields set.
    Task(id="explicit", prompt="p", answer=1, metadata={}, difficulty=Difficulty()),
    Task.model_validate({"id": "validated", "prompt": "q", "answer": [1, "2"]}),
]


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_a_task_comes_back_with_the_same_fields_fields_set_and_difficulty(task):
    back = _round_trip(task)
    assert _state(back)[0] is Task and back == task and back.fingerprint == task.fingerprint
    assert back.model_fields_set == task.model_fields_set
    assert _state(back.difficulty) == _state(task.difficulty)
    assert back.model_dump() == task.model_dump()
    with pytest.raises(ValidationError, match="frozen"):
        back.id = "changed"


def test_tasks_with_the_default_difficulty_get_one_each_not_a_shared_one():
    a, b = _round_trip([Task(id="a", prompt="", answer=1), Task(id="b", prompt="", answer=2)])
    assert a.difficulty == b.difficulty == Difficulty()
    assert a.difficulty is not b.difficulty and a.difficulty.config is not b.difficulty.config


def test_one_task_sent_with_many_completions_is_unpickled_once():
    task = TASKS[1]
    items = _round_trip([("k", task, f"c{i}", 10) for i in range(8)])
    assert all(item[1] is items[0][1] for item in items) and items[0][1] == task


class TaggedTask(Task):
    tag: str = "t"


class _Job:
    def __init__(self, task, completion="c", key="k", max_chars=10):
        self.task, self.completion, self.key, self.max_chars = task, completion, key, max_chars


def _message_tasks(tasks):
    """The tasks a worker rebuilds from ``verify_message`` (as ``worker.serve`` does)."""
    kind, seq, items = pickle.loads(verify_message(4, [_Job(task) for task in tasks]))
    assert (kind, seq) == ("verify_many", 4)
    built = {}
    return [built.setdefault(id(state), task_of(state)) for _, state, _, _ in items]


def _no_globals(data):
    import pickletools

    return not any(op.name in ("GLOBAL", "STACK_GLOBAL", "REDUCE") for op, _, _ in pickletools.genops(data))


@pytest.mark.parametrize("task", [*TASKS, TaggedTask(id="s", prompt="p", answer=1, tag="mine")], ids=lambda t: t.id)
def test_a_task_in_a_verify_message_comes_back_the_same(task):
    (back,) = _message_tasks([task])
    assert _state(back) == _state(task) and back.fingerprint == task.fingerprint
    assert _state(back.difficulty) == _state(task.difficulty)
    if type(task) is Task and task.difficulty.pass_rate is None:  # the flat form: only builtins on the wire
        assert _no_globals(verify_message(0, [_Job(task)]))
    with pytest.raises(ValidationError, match="frozen"):
        back.id = "changed"


def test_a_task_shared_by_items_of_a_message_travels_and_is_rebuilt_once():
    task = TASKS[2]
    shared = _message_tasks([task] * 8)
    assert all(t is shared[0] for t in shared) and shared[0] == task
    assert len(verify_message(0, [_Job(task, f"c{i}") for i in range(8)])) < 2 * len(verify_message(0, [_Job(task)]))
    a, b = _message_tasks([Task(id="a", prompt="", answer=1), Task(id="b", prompt="", answer=1)])
    assert a.difficulty is not b.difficulty and a.difficulty.config is not b.difficulty.config


def test_flat_verdicts_come_back_as_the_timed_verdicts():
    chunk = TimedVerdicts()
    odd = Verdict.model_construct(reward=0.0, passed=False, reason="wrong", extracted=None, details=None)
    noted = NotedVerdict(reward=1.0, passed=True, reason=Reason.OK, note="x")
    for i, verdict in enumerate([*VERDICTS, odd, noted]):
        chunk.verdicts.append(verdict)
        chunk.times.append(i / 8)
    back = verdicts_of(pickle.loads(dumps(flat_verdicts(chunk))))
    assert [_state(v) for v in back] == [_state(v.timed(t)) for v, t in zip(chunk.verdicts, chunk.times)]
    assert _no_globals(dumps(flat_verdicts(chunk)[: 7 * len(VERDICTS)]))  # the plain ones: builtins only
    for bad in ([1, 2, 3], "verdicts", None, [None] * 6, [None] * 7):
        with pytest.raises((ValueError, TypeError)):
            verdicts_of(bad)


@pytest.mark.parametrize("whole", [False, True], ids=["flat", "one-sent-whole"])
def test_a_workers_reply_carries_each_timed_verdict_and_is_the_general_forms_bytes(whole):
    """``verdicts_reply`` (what a worker sends) takes plain ``pickle.dumps`` when every verdict is
    flat: the same bytes as ``dumps``, so the parent reads it as before; one sent whole still comes
    back whole."""
    chunk = TimedVerdicts()
    extra = [NotedVerdict(reward=1.0, passed=True, reason=Reason.OK, note="x")] if whole else []
    for i, verdict in enumerate([*VERDICTS, *extra]):
        chunk.verdicts.append(verdict)
        chunk.times.append(i / 8)
    data = verdicts_reply(7, chunk, 0.25)
    assert data == dumps(("verdicts", 7, flat_verdicts(chunk), 0.25))
    kind, seq, flat, mean_s = pickle.loads(data)
    assert (kind, seq, mean_s) == ("verdicts", 7, 0.25)
    back = verdicts_of(flat)
    assert [_state(v) for v in back] == [_state(v.timed(t)) for v, t in zip(chunk.verdicts, chunk.times)]


@pytest.mark.parametrize("task", [*TASKS, TaggedTask(id="tagged", prompt="p", answer=1)], ids=lambda t: t.id)
def test_a_verify_message_brings_each_task_back_whichever_pickler_makes_it(task):
    """Flat tasks go through plain ``pickle.dumps`` (a model nested in one, such as a PassRate,
    then takes pydantic's own pickling), others through ``dumps``: the worker gets the same tasks."""
    jobs = [_Job(task, f"c{i}") for i in range(3)]
    kind, seq, items = pickle.loads(verify_message(5, jobs))
    assert (kind, seq) == ("verify_many", 5) and [item[2] for item in items] == ["c0", "c1", "c2"]
    back = task_of(items[0][1])
    assert type(back) is type(task) and back == task and back.model_fields_set == task.model_fields_set
    assert _state(back.difficulty)[1:] == _state(task.difficulty)[1:]
    assert back.difficulty.model_dump() == task.difficulty.model_dump()
    if not task.metadata and type(task) is Task and task.difficulty.pass_rate is None:  # builtins only
        state = _task_state(task)
        assert verify_message(5, jobs) == dumps(("verify_many", 5, [(j.key, state, j.completion, 10) for j in jobs]))


def test_a_task_subclass_keeps_its_class_and_fields():
    task = TaggedTask(id="s", prompt="p", answer=1, tag="mine")
    back = _round_trip(task)
    assert type(back) is TaggedTask and back.tag == "mine" and _state(back) == _state(task)


VERDICTS = [
    Verdict.correct("3"),
    Verdict.correct(details={"n": [1, 2, {"deep": None}]}, reward=0.5),
    Verdict.failure(Reason.WRONG, extracted="4", details={"k": "v"}, elapsed_s=0.25),
    *(Verdict.failure(reason) for reason in Reason if reason is not Reason.OK),
    Verdict(reward=1.0, passed=True, reason=Reason.OK),
]


@pytest.mark.parametrize("verdict", [*VERDICTS, *(v.timed(0.125) for v in VERDICTS)])
def test_a_verdict_comes_back_identical(verdict):
    back = _round_trip(verdict)
    assert _state(back) == _state(verdict)
    assert back.reason is verdict.reason and back == verdict
    with pytest.raises(ValidationError, match="frozen"):
        back.reward = 2.0


class NotedVerdict(Verdict):
    note: str = ""


def test_a_verdict_subclass_keeps_its_class_and_fields():
    verdict = NotedVerdict(reward=0.0, passed=False, reason=Reason.WRONG, note="n")
    assert _state(_round_trip(verdict)) == _state(verdict)


@pytest.mark.parametrize("verdict", [*VERDICTS, NotedVerdict(reward=1.0, passed=True, reason=Reason.OK, note="x")])
def test_timed_makes_what_model_copy_makes(verdict):
    before = _state(verdict)
    timed = verdict.timed(0.5)
    expected = verdict.model_copy(update={"elapsed_s": 0.5})
    assert _state(timed) == _state(expected) and timed.elapsed_s == 0.5
    assert timed.__dict__ is not verdict.__dict__
    assert timed.__pydantic_fields_set__ is not verdict.__pydantic_fields_set__
    assert _state(verdict) == before  # the original is untouched


class EchoVerifier(Verifier):
    """Reports what the worker saw of the task: it must be the task the caller sent."""

    def verify(self, task: Task, completion: str) -> Verdict:
        return Verdict.correct(
            extracted=completion,
            details={
                "dump": task.model_dump(mode="json"),
                "fields_set": sorted(task.model_fields_set),
                "difficulty_fields_set": sorted(task.difficulty.model_fields_set),
                "class": type(task).__name__,
            },
        )


@pytest.mark.parametrize("start", ["zygote", "spawn"])
def test_workers_see_the_tasks_the_caller_sent_and_return_their_verdicts(start):
    tasks = [*TASKS, TaggedTask(id="sub", prompt="p", answer=1, tag="mine")] * 3
    completions = [f"completion {i}" for i in range(len(tasks))]
    with VerificationPool(2, start=start) as pool:
        verdicts = pool.map(EchoVerifier(), tasks, completions)
    for task, completion, verdict in zip(tasks, completions, verdicts):
        assert verdict.passed and verdict.extracted == completion and verdict.elapsed_s > 0
        assert verdict.details["dump"] == task.model_dump(mode="json")
        assert verdict.details["fields_set"] == sorted(task.model_fields_set)
        assert verdict.details["difficulty_fields_set"] == sorted(task.difficulty.model_fields_set)
        assert verdict.details["class"] == type(task).__name__
        assert verdict.model_fields_set == Verdict.correct().timed(1.0).model_fields_set


def test_a_progress_page_mid_write_is_never_read_as_a_start_at_time_zero():
    import struct
    import threading
    import time

    from rlvr_envs.runtime.local.worker import Progress

    progress = Progress.create()
    try:
        # What ``struct.pack_into`` leaves for a moment while it writes (the record zeroed, the new
        # sequence number in): read as it stands, that item started at time 0, past any budget.
        progress.page[:8] = struct.pack("<q", 7)
        progress.page[8:24] = bytes(16)
        later = threading.Timer(0.05, progress.mark, args=(7,))
        later.start()
        seq, started = progress.read()
        later.join()
        assert seq == 7 and abs(started - time.monotonic()) < 5
    finally:
        progress.close()


def test_progress_read_while_another_process_writes_is_always_one_whole_write():
    import os
    import time

    from rlvr_envs.runtime.local.worker import Progress

    progress = Progress.create()
    pid = os.fork()
    if pid == 0:  # the writer: as fast as it can, records whose two fields agree
        try:
            end, seq = time.monotonic() + 1.0, 0
            while time.monotonic() < end:
                for _ in range(200):
                    seq += 1
                    progress.mark(seq, seq * 1000 + 7)
        finally:
            os._exit(0)
    try:
        torn, reads, end = 0, 0, time.monotonic() + 1.0
        while time.monotonic() < end:
            seq, started = progress.read()
            reads += 1
            torn += seq > 0 and round(started * 1e9) != seq * 1000 + 7
    finally:
        os.waitpid(pid, 0)
        progress.close()
    assert reads > 1000 and torn == 0


def test_a_verdict_built_without_validation_still_travels():
    odd = Verdict.model_construct(reward=0.0, passed=False, reason="wrong", extracted=None, details=None)
    assert _state(_round_trip(odd)) == _state(odd)


class NapVerifier(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        import time

        time.sleep(0.001)
        return Verdict.correct(completion)


def test_a_worker_sends_long_chunks_mid_message_and_short_ones_near_its_end():
    from rlvr_envs.runtime.local.worker import Progress, serve

    items = [("k", TASKS[0], str(i), 100) for i in range(60)]
    inbox = [dumps(("verify_many", 10, items))]
    replies = []

    class Channel:
        def recv_bytes(self):
            if not inbox:
                raise EOFError
            return inbox.pop()

        def send_bytes(self, data):
            replies.append(pickle.loads(data))

    progress = Progress.create()
    try:
        serve(Channel(), Channel(), progress, {"k": NapVerifier()})
        assert progress.read()[0] == 69  # the last item it started
    finally:
        progress.close()
    replies = [(kind, first, verdicts_of(flat), mean) for kind, first, flat, mean in replies]
    sizes = [len(reply[2]) for reply in replies]
    # Every verdict once, in order, each chunk naming its first item; means are per item.
    assert [reply[0] for reply in replies] == ["verdicts"] * len(replies)
    assert [reply[1] for reply in replies] == [10 + sum(sizes[:i]) for i in range(len(sizes))]
    assert [v.extracted for reply in replies for v in reply[2]] == [str(i) for i in range(60)]
    assert all(0.0009 < reply[3] < 1.0 for reply in replies)
    # Calls of >= 1 ms: one chunk per 2 ms would be >= 30 chunks; far from the end they wait for
    # up to 20 ms, near it (the last 8 ms of calls) they go every 2 ms.
    assert len(sizes) <= 20, sizes
    assert sizes[-1] <= 4, sizes
