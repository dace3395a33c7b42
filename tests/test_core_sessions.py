"""Session-affine execution on the local pool (``rlvr_envs.runtime.sessions``): one episode's state
in one worker process of its own across calls, every call under a hard budget, nothing shared
between sessions, nothing left once a session ends."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

import pytest

from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.runtime.local.zygote import ZYGOTE_SUPPORTED
from rlvr_envs.runtime.sessions import SessionBackend, SessionError, SessionSpec
from tests.helpers.sessions import Counter

if TYPE_CHECKING:  # checked by mypy: both backends are session backends (the Ray test runs one)
    from rlvr_envs.runtime.ray.pool import RayVerificationPool

    def _session_backends(local: VerificationPool, ray: RayVerificationPool) -> list[SessionBackend]:
        return [local, ray]


def broken_factory() -> Any:
    raise RuntimeError("cannot build the state")


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid: int, limit_s: float = 5.0) -> bool:
    end = time.monotonic() + limit_s
    while alive(pid) and time.monotonic() < end:
        time.sleep(0.02)
    return not alive(pid)


STARTS = ["zygote", "spawn"] if ZYGOTE_SUPPORTED else ["spawn"]


@pytest.fixture(scope="module", params=STARTS)
def pool(request):
    with VerificationPool(1, start=request.param, max_sessions=3) as p:
        yield p


def test_state_lives_in_one_process_across_calls_and_is_never_shared(pool: VerificationPool) -> None:
    backend: SessionBackend = pool  # the type checker holds the local pool to the Protocol
    a = backend.open_session(SessionSpec(Counter))
    b = backend.open_session(SessionSpec(Counter))
    try:
        first, second = backend.call(a, "inc", 5.0), backend.call(a, "inc", 5.0)
        other = backend.call(b, "inc", 5.0)
        assert (first.status, first.result[0], second.result[0]) == ("ok", 1, 2)
        assert first.result[1] == second.result[1] == a.pid != os.getpid()
        assert other.result == (1, b.pid) and b.pid != a.pid  # b never saw a's calls
        assert a.pid not in pool.worker_pids()  # not one of the verification workers
        echo = "ünïcödé ✓ " * 10_000 + "\x00"
        assert backend.call(b, echo, 5.0).result == echo
    finally:
        backend.close_session(a)
        backend.close_session(b)
    assert wait_gone(a.pid) and wait_gone(b.pid)


def test_a_tool_error_is_an_answer_and_the_session_goes_on(pool):
    handle = pool.open_session(SessionSpec(Counter))
    try:
        reply = pool.call(handle, "raise", 5.0)
        assert reply.status == "error" and "the tool's own error" in (reply.error or "")
        unsendable = pool.call(handle, "unpicklable", 5.0)
        assert unsendable.status == "error" and "cannot be sent" in (unsendable.error or "")
        assert pool.call(handle, "inc", 5.0).result[0] == 1
    finally:
        pool.close_session(handle)


def test_a_call_past_its_budget_ends_the_session_and_everything_it_started(pool):
    handle = pool.open_session(SessionSpec(Counter))
    child = pool.call(handle, "child", 5.0).result
    assert alive(child)
    start = time.monotonic()
    reply = pool.call(handle, "hang", 0.3)
    took = time.monotonic() - start
    assert reply.status == "timeout" and "0.3 s budget" in (reply.error or "")
    assert 0.3 <= took < 5, took
    assert wait_gone(handle.pid) and wait_gone(child)  # the whole process group
    assert pool.call(handle, "inc", 5.0).status == "closed"  # never silently re-opened
    pool.close_session(handle)  # closing an ended session does nothing


def test_a_crash_ends_the_session(pool):
    handle = pool.open_session(SessionSpec(Counter))
    reply = pool.call(handle, "segv", 5.0)
    assert reply.status == "crashed" and "SIGSEGV" in (reply.error or "")
    assert pool.call(handle, "inc", 5.0).status == "closed"


def test_a_session_past_its_wall_time_is_closed(pool):
    # 1 s, not 0.2: the first call must come before the deadline, and on a loaded 2-core machine
    # the thread can be off the CPU for a good part of 0.2 s between opening and calling.
    handle = pool.open_session(SessionSpec(Counter, max_wall_s=1.0))
    opened = time.monotonic()  # the deadline was set before this: sleeping past opened + 1 s passes it
    assert pool.call(handle, "inc", 5.0).status == "ok"
    time.sleep(max(0.0, opened + 1.0 - time.monotonic()) + 0.05)
    assert pool.call(handle, "inc", 5.0).status == "closed"
    assert wait_gone(handle.pid)


def test_opening_fails_loudly_and_is_bounded(pool):
    with pytest.raises(SessionError, match="cannot build the state"):
        pool.open_session(SessionSpec(broken_factory))
    with pytest.raises(SessionError, match="pickled"):
        pool.open_session(SessionSpec(lambda: Counter()))
    handles = [pool.open_session(SessionSpec(Counter)) for _ in range(3)]
    try:
        with pytest.raises(SessionError, match="max_sessions"):
            pool.open_session(SessionSpec(Counter))
        pool.close_session(handles.pop())
        handles.append(pool.open_session(SessionSpec(Counter)))  # room again
    finally:
        for handle in handles:
            pool.close_session(handle)


def test_closing_the_pool_ends_its_sessions():
    with VerificationPool(1, max_sessions=2) as own:
        handle = own.open_session(SessionSpec(Counter))
        assert own.call(handle, "inc", 5.0).status == "ok"
    assert wait_gone(handle.pid)
    assert own.call(handle, "inc", 5.0).status == "closed"
    with pytest.raises(RuntimeError, match="closed"):
        own.open_session(SessionSpec(Counter))
