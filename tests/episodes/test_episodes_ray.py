"""Episodes on Ray: the python tool's interpreter pinned to one actor (session affinity), and the
actor lost mid-episode: the episode ends with ``verifier_error`` (no reward, no exception, no
hang, never a silent fresh state), and the next episode works.

A local single-node Ray (``ray.init``, loopback, 2 CPUs) with a two-actor pool; in the serial
pass (it starts Ray and kills processes)."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Reason
from tests.episodes.python_calls import TASK, call, content

pytestmark = pytest.mark.slow  # starts Ray (about 20 s on the shared 2-core machine)

STEP_BOUND_S = 60.0  # a lost actor is noticed by Ray in about a second; this only rules out a hang


@pytest.fixture(scope="module")
def pool():
    ray = pytest.importorskip("ray", reason="the Ray episode tests need Ray: pip install 'rlvr-envs[ray]'")
    from rlvr_envs.runtime.ray.pool import RayVerificationPool
    from tests.ray.cluster import FAST_ENV, NODE_IP

    if ray.is_initialized():
        ray.shutdown()
    with pytest.MonkeyPatch.context() as patch:
        for key, value in FAST_ENV.items():
            patch.setenv(key, value)
        patch.delenv("RAY_ADDRESS", raising=False)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address=NODE_IP, address="local")
        try:
            # A generous grace: the first verification on an actor loads the math verifier in its
            # worker (cold imports), which a loaded machine can stretch well past the call's budget.
            with RayVerificationPool(2, num_cpus=0.5, grace_s=60.0) as p:
                p.preload(rlvr_envs.make("math-arith").verifier)
                yield p
        finally:
            ray.shutdown()


def session_actor_pid(env, pool) -> int:
    """The pid of the actor holding this episode's python session (the handle names the actor)."""
    handle = env._episode.sessions["python"].handle
    assert handle is not None and handle.actor
    by_id = {loc["actor_id"]: loc["pid"] for loc in pool.actor_locations()}
    return by_id[handle.actor]


def make_env(pool, **kw):
    # No placement given: "auto" pins the interpreter to an actor because the env's pool is Ray.
    return rlvr_envs.make("math-arith", tools=["python"], pool=pool, tool_timeout_s=30.0, **kw)


def test_an_episode_keeps_its_python_state_on_one_actor_and_episodes_never_share_it(pool):
    env = make_env(pool)
    env.reset(options={"task": TASK})
    assert content(env.step(call("x = 123 * 45\nx"))) == "5535"
    first = env._episode.sessions["python"].handle
    assert first.actor in {loc["actor_id"] for loc in pool.actor_locations()}
    assert first.pid not in (os.getpid(),) and first.pid != session_actor_pid(env, pool)  # a worker of the actor
    assert content(env.step(call("x + 1"))) == "5536"
    assert env._episode.sessions["python"].handle == first  # every call reached the same session
    other = make_env(pool)
    other.reset(options={"task": TASK})
    assert "NameError" in content(other.step(call("x")))  # another episode never sees x
    _, reward, terminated, _, info = env.step("The final answer is \\boxed{5535}.")
    assert (reward, terminated, info["verdict"].reason) == (1.0, True, Reason.OK)
    other.close()
    env.close()
    assert pool.call(first, {"code": "x", "budget_s": 1, "max_output_chars": 100}, 5.0).status == "closed"


def test_the_actor_lost_mid_call_ends_the_episode_with_verifier_error_and_the_next_episode_works(pool):
    env = make_env(pool)
    env.reset(options={"task": TASK})
    assert content(env.step(call("x = 41\nx + 1"))) == "42"
    victim = session_actor_pid(env, pool)
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["step"] = env.step(call("import time\ntime.sleep(25)\nx"))
        except BaseException as exc:  # the assertion below reports it: it must never happen
            result["raised"] = exc

    worker = threading.Thread(target=run, daemon=True)
    started = time.monotonic()
    worker.start()
    time.sleep(1.0)  # in flight or not yet sent: either way the call meets a dead actor
    os.kill(victim, signal.SIGKILL)
    worker.join(STEP_BOUND_S)
    assert not worker.is_alive(), "the step hung after its actor was lost"
    assert "raised" not in result, result.get("raised")
    _, reward, terminated, truncated, info = result["step"]
    assert time.monotonic() - started < 25.0  # ended by the loss, not by the sleep finishing
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["verdict"].reason is Reason.VERIFIER_ERROR
    assert info["verdict"].details["tool"] == "python"
    assert "actor" in info["verdict"].details["error"]
    with pytest.raises(RuntimeError):
        env.step("\\boxed{5535}")  # over: never a silent fresh session
    # The next episode on the same env runs on a live actor with fresh state and is scored.
    env.reset(options={"task": TASK})
    assert "NameError" in content(env.step(call("x")))
    assert content(env.step(call("y = 6 * 7\ny"))) == "42"
    assert session_actor_pid(env, pool) != victim
    _, reward, terminated, _, info = env.step("The final answer is \\boxed{5535}.")
    assert (reward, terminated, info["verdict"].reason) == (1.0, True, Reason.OK)
    env.close()


def test_through_call_tool_a_lost_actor_is_an_error_message_and_finish_gives_verifier_error(pool):
    """The adapters' path (TRL, verl, OpenRLHF drive ``call_tool``/``finish``): nothing raises."""
    env = make_env(pool)
    env.reset(options={"task": TASK})
    assert env.call_tool("python", {"code": "z = 5\nz"}).strip() == "5"
    os.kill(session_actor_pid(env, pool), signal.SIGKILL)
    started = time.monotonic()
    text = env.call_tool("python", {"code": "z"})
    assert time.monotonic() - started < STEP_BOUND_S
    assert text.startswith("Error: the tool session was lost")
    assert env.call_tool("python", {"code": "1"}).startswith("Error: the tool session was lost")
    verdict = env.finish("The final answer is \\boxed{5535}.")  # a right answer still gets no reward
    assert verdict.reason is Reason.VERIFIER_ERROR and not verdict.passed
    env.reset(options={"task": TASK})
    assert env.call_tool("python", {"code": "2 ** 10"}).strip() == "1024"
    assert env.finish("\\boxed{5535}").passed
    env.close()


def test_with_one_actor_the_next_episode_waits_for_its_replacement_instead_of_failing(pool):
    from rlvr_envs.runtime.ray.pool import RayVerificationPool

    with RayVerificationPool(1, num_cpus=0.5, grace_s=60.0) as single:
        env = make_env(single)
        env.reset(options={"task": TASK})
        assert content(env.step(call("a = 3\na"))) == "3"
        victim = session_actor_pid(env, single)
        os.kill(victim, signal.SIGKILL)
        _, reward, terminated, _, info = env.step(call("a"))
        assert (reward, terminated, info["verdict"].reason) == (0.0, True, Reason.VERIFIER_ERROR)
        env.reset(options={"task": TASK})
        assert content(env.step(call("b = 4\nb"))) == "4"  # on the replacement actor
        assert session_actor_pid(env, single) != victim
        assert single.stats["actors_lost"] >= 1
        env.close()
