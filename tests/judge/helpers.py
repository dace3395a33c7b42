"""Shared helpers of the judge tests: envs graded by the scripted STAND-IN judge server."""

from __future__ import annotations

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
