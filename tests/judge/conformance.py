"""Conformance hook: the judge ids graded by the scripted stand-in judge (offline, no model).

The stand-in (``rlvr_judge.testing.ScriptedJudgeServer``) decides by string rules; the kit checks
the env's promises around it (gold scores 1, adversarial completions 0, determinism, pool).
"""

from __future__ import annotations

import json
import re
from importlib import resources

import rlvr_envs

_SERVER = None

# Load the plugin while tests are collected: registrations made inside a test are forgotten
# after it (tests/conftest.py), but a plugin is only ever imported once per process.
rlvr_envs.registry.resolve("judge-ref")


def scripted_server():
    """One stand-in server for the whole test session (a daemon thread on 127.0.0.1)."""
    global _SERVER
    if _SERVER is None:
        from rlvr_judge.testing import ScriptedJudgeServer

        _SERVER = ScriptedJudgeServer(record=False).start()
    return _SERVER


def _builtin_rows(name: str) -> list[dict]:
    text = (resources.files("rlvr_judge") / "data" / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def make_env(env_id: str) -> rlvr_envs.Env | None:
    name = re.sub(r"-v\d+$", "", env_id)
    if name not in ("judge-ref", "rubric", "judge"):
        return None
    options = {"base_url": scripted_server().base_url, "model": "scripted-stand-in", "cache": ":memory:"}
    if name == "judge":
        rows = _builtin_rows("judge_ref_demo.jsonl")[:3] + _builtin_rows("rubric_demo.jsonl")
        return rlvr_envs.make(env_id, data=rows, id_key="id", **options)
    return rlvr_envs.make(env_id, **options)
