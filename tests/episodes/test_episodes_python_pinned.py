"""The ``python`` tool pinned in a runtime session of the local pool (``placement="session"``):
one episode's interpreter lives under one pool worker across calls, never shared, the sandbox's
bounds unchanged, timeouts told (fresh state after), nothing left after the episode, and a lost
session worker ends the episode with ``verifier_error``. Serial pass: sandboxes, cgroups, kills."""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_code import memory_bound
from rlvr_code.tools.python_tool import PythonTool
from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.types import Reason
from tests.code.test_code_tools import HOSTILE
from tests.episodes.python_calls import TASK, call, content

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")


@pytest.fixture(scope="module")
def pool():
    with VerificationPool(1, max_sessions=4) as p:
        yield p


def uid_processes(uid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("Uid:") and int(line.split()[1]) == uid:
                    found.append(int(entry.name))
    return found


def eventually(predicate, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def cgroups_of(pid: int) -> list[str]:
    found = memory_bound.parent_cgroup()
    if found is None:
        return []
    return [n for n in os.listdir(found[0]) if n.startswith(f"rlvr-code-{pid}-")]


def make_env(pool, **kw):
    return rlvr_envs.make("math-arith", tools=[PythonTool(placement="session")], pool=pool, isolation="inline", **kw)


def test_placement_is_checked_and_auto_keeps_the_interpreter_beside_a_local_episode():
    with pytest.raises(ValueError, match="placement"):
        PythonTool(placement="elsewhere")
    env = rlvr_envs.make("math-arith", tools=["python"], isolation="inline")
    env.reset(options={"task": TASK})
    env.step(call("1"))
    assert type(env._episode.sessions["python"]).__name__ == "PythonSession"  # the in-process one
    env.close()


def test_state_lives_under_one_pool_worker_and_is_gone_after_the_episode(pool):
    env = make_env(pool, tool_timeout_s=10.0)
    env.reset(options={"task": TASK})
    assert content(env.step(call("import os\nx = 123 * 45\nx"))) == "5535"
    handle = env._episode.sessions["python"].handle
    assert handle.pid != os.getpid() and handle.pid in pool._sessions.pids()
    uid = int(content(env.step(call("os.getuid()"))))
    assert uid != 0 and uid_processes(uid)  # the sandbox runs as a uid of its own, under the worker
    assert content(env.step(call("x + 1"))) == "5536"
    assert env._episode.sessions["python"].handle == handle  # every call reached the same session
    # The sandbox holds as in-process: no host file, no network.
    assert "Error" in content(env.step(call("open('/work/main/README.md').read()")))
    assert "rror" in content(env.step(call("import socket; socket.create_connection(('1.1.1.1', 53), 1)")))
    other = make_env(pool)
    other.reset(options={"task": TASK})
    assert "NameError" in content(other.step(call("x")))  # another episode never sees x
    other.close()
    _, reward, terminated, _, _ = env.step("The final answer is \\boxed{5535}.")
    assert (reward, terminated) == (1.0, True)
    assert eventually(lambda: not uid_processes(uid))  # the interpreter ends with the episode
    assert eventually(lambda: handle.pid not in pool._sessions.pids() and not cgroups_of(handle.pid))
    env.close()


def test_a_timeout_is_told_then_fresh_state_and_a_killed_worker_ends_the_episode(pool):
    env = make_env(pool, tool_timeout_s=2.0)
    env.reset(options={"task": TASK})
    env.step(call("x = 1"))
    handle = env._episode.sessions["python"].handle
    started = time.monotonic()
    text = content(env.step(call("while True: pass")))
    assert time.monotonic() - started < 10.0
    assert text.startswith("Error: the call took longer than") and "every variable is lost" in text
    assert "NameError" in content(env.step(call("x")))  # a fresh interpreter, as the model was told
    assert env._episode.sessions["python"].handle == handle  # in the same pinned session
    os.kill(handle.pid, signal.SIGKILL)  # the session's worker is lost between calls
    _, reward, terminated, truncated, info = env.step(call("1 + 1"))
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["verdict"].reason is Reason.VERIFIER_ERROR and info["verdict"].details["tool"] == "python"
    env.reset(options={"task": TASK})
    assert content(env.step(call("2 ** 10"))) == "1024"  # the next episode works
    env.close()
    assert eventually(lambda: not cgroups_of(handle.pid))  # the dead worker's cgroup is swept


def session_uid_block(worker_pid: int) -> range:
    """The uids the python tool gives the sandboxes a process starts (``python_tool._session_uid``)."""
    low = 1_800_000_000 + (worker_pid % 1_000_000) * 64
    return range(low, low + 64)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_hostile_battery_is_contained_in_a_pinned_session_and_the_episode_goes_on(pool, name):
    """The code family's hostile battery through the tool pinned under a pool worker: each an
    error or timeout message within its bound, never the episode's end (the worker survives), the
    same session then answers with a fresh interpreter, and nothing is left after the episode."""
    code, expected = HOSTILE[name]
    # 8 s, not the in-process test's 4: the budget also covers the session's worker and sandbox
    # starting, and a 1 GB memory bomb on a loaded 2-core machine took longer than 4 s in all.
    env = make_env(pool, tool_timeout_s=8.0)
    env.reset(options={"task": TASK})
    started = time.monotonic()
    _, _, terminated, truncated, info = env.step(call(code))
    assert time.monotonic() - started < 30
    out = info["tool_messages"][0]["content"]
    assert (terminated, truncated) == (False, False), out
    assert expected in out, out
    handle = env._episode.sessions["python"].handle
    assert content(env.step(call("6 * 7"))) == "42"
    assert env._episode.sessions["python"].handle == handle  # the same pinned session throughout
    env.close()
    block = session_uid_block(handle.pid)
    assert eventually(lambda: not any(uid_processes(uid) for uid in block), within_s=10)
    assert eventually(lambda: not cgroups_of(handle.pid))
