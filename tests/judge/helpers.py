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
