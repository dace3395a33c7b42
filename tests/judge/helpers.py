"""Shared helpers of the judge tests: envs graded by the scripted STAND-IN judge server."""

from __future__ import annotations

import pytest

import rlvr_envs


def stand_in_env(server, env_id="judge", data=None, **kwargs):
    kwargs.setdefault("cache", ":memory:")
    kwargs.setdefault("model", "scripted-stand-in")
    if data is not None:
        kwargs["data"] = data
    return rlvr_envs.make(env_id, base_url=server.base_url, **kwargs)


def rubric_row(*criteria, prompt="Write about Paris.", **extra):
    return {"prompt": prompt, "rubric": list(criteria), **extra}


def screened(server, env, completion, task=None):
    """The verdict on ``completion``, checked to be a 0 the judge was never asked about (the screen's)."""
    before = server.requests
    verdict = env.verify(task if task is not None else env.tasks[0], completion)
    assert server.requests == before, f"the judge was called on {completion[:80]!r}"
    assert verdict.reward == 0.0 and not verdict.passed, verdict
    return verdict


def paid(server, env, completion, task=None):
    """The verdict on ``completion``, checked to have reached the (yes-saying) judge and been paid."""
    before = server.requests
    verdict = env.verify(task if task is not None else env.tasks[0], completion)
    assert server.requests > before, f"the judge was not called on {completion[:80]!r}: {verdict.details}"
    assert verdict.passed and "screen" not in verdict.details, verdict.details
    return verdict


def _serve(mode):
    def fixture():
        from rlvr_judge.testing import ScriptedJudgeServer

        with ScriptedJudgeServer(mode) as s:
            yield s

    return fixture


# Module-scoped STAND-IN judge servers, one per test module that imports them (a module-level name
# registers the fixture there): ``yes`` pays whatever reaches it (a 0 with no request is the screen's);
# ``rules`` compares the answer's sentence with the reference.
yes_server_fixture = pytest.fixture(scope="module", name="yes_server")(_serve("yes"))
rules_server_fixture = pytest.fixture(scope="module", name="rules_server")(_serve("rules"))


def shown_to_judge(server) -> str:
    """What the last request showed the judge as the response (the fenced text of its last message)."""
    from rlvr_judge.testing import _fenced_text

    return _fenced_text(server.bodies[-1]["messages"][-1]["content"]).strip()
