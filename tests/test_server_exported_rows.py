"""`rlvr-envs serve` with no ids accepts the rows any of our ids exports, and a bad row fails alone.

Issue 27: our own ifeval/ifbench exports got HTTP 400 from a server started without ids (it
compared the row's verifier options with the class defaults instead of the preset's), and one
row nothing could verify rejected the whole batch.
"""

from __future__ import annotations

import json
import urllib.request

import pytest

import rlvr_envs
from rlvr_envs.adapters.routing import EnvRouter, RoutingError
from rlvr_envs.adapters.rows import task_row
from tests.test_conformance_all import IDS, make_for_conformance

JUDGED = "judge"
"""A judge's model is the server's configuration: its rows carry no verifier and need the id served."""


def exported_env(env_id: str):
    """The env as `rlvr-envs export ID --arg data=...` makes it: only the data, the preset's options."""
    env = make_for_conformance(env_id)
    if env.family == "ifeval" and getattr(env, "data", None) is not None:
        env = rlvr_envs.make(env_id, data=env.data)  # the hook also turns the guard on
    return env


def _first(env):
    return env.sample(1, seed=0)[0] if env.procedural else env.tasks[0]


@pytest.mark.parametrize("env_id", IDS)
def test_a_server_with_no_ids_accepts_the_rows_every_id_exports(env_id):
    env = exported_env(env_id)
    row = task_row(env, _first(env))
    router = EnvRouter(None, trust_row_verifiers=False, make_unserved=False)  # what `serve` with no ids builds
    if env.family == JUDGED:
        with pytest.raises(RoutingError, match=f"rlvr-envs serve {env.env_id}"):
            router.scorer_for(row["env_id"], row["verifier"])
        return
    scorer = router.scorer_for(row["env_id"], row["verifier"])
    assert scorer.env_id == env.env_id


@pytest.mark.parametrize("env_id", IDS)
def test_an_exported_row_carries_options_not_data(env_id):
    """A row's verifier spec is a few options: ifeval-data-v3's carried its contrast background
    (derived from the data set: ~350 KB on every row) until the verifier said what a row needs."""
    env = exported_env(env_id)
    spec = task_row(env, _first(env))["verifier"]
    assert spec is None or len(spec) < 8_000, (env_id, len(spec))


@pytest.mark.parametrize("env_id", ["ifeval-v1", "ifbench-v1", "ifeval-v0", "ifbench-v0"])
def test_the_preset_options_of_ifeval_ids_are_the_ones_the_server_checks_against(env_id):
    from rlvr_envs.adapters.rows import default_verifier, spec_from_value, state_json

    env = exported_env(env_id)
    spec = spec_from_value(task_row(env, _first(env))["verifier"])
    built = default_verifier(env.env_id, spec)
    assert state_json(built) == json.dumps(spec["state"], sort_keys=True)


def _post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        url + "/verify", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_one_bad_row_gets_its_own_error_and_the_others_their_verdicts():
    pytest.importorskip("uvicorn")
    from rlvr_envs.serve.app import RewardServer

    arith = rlvr_envs.make("math-arith-v0")
    task = arith.sample(1, seed=3)[0]
    good = {**task_row(arith, task), "completion": arith.gold_completion(task)}
    good["task"] = json.loads(good["task"])
    bench = exported_env("ifbench-v1")
    bench_row = {**task_row(bench, bench.tasks[0]), "completion": "Sure. " * 40}
    bench_row["task"] = json.loads(bench_row["task"])
    rows = [
        good,
        {**good, "env_id": "no-such-env-v0"},
        bench_row,
        {**good, "completion": 42},
        {**good, "completion": "\\boxed{-98765}"},
    ]
    with RewardServer(port=0, idle_timeout_s=5.0) as server:
        status, reply = _post(server.url, {"rows": rows})
        assert status == 200, reply
        verdicts = reply["verdicts"]
        assert len(verdicts) == 5
        assert verdicts[0]["passed"] is True and verdicts[4]["passed"] is False
        assert "rows[1]" in verdicts[1]["error"] and "no-such-env" in verdicts[1]["error"]
        assert "reward" in verdicts[2] and "error" not in verdicts[2]  # our own ifbench export is verified
        assert "rows[3]" in verdicts[3]["error"] and "completion must be a string" in verdicts[3]["error"]
        # A request none of whose rows can be verified is still a 400 naming the first row's fault.
        status, reply = _post(server.url, {"rows": [rows[1], rows[3]]})
        assert status == 400 and "rows[0]" in reply["error"]
