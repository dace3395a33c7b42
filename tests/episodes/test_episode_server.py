"""The episode server: OpenEnv's app for an rlvr-envs episode env, driven by OpenEnv's own client.

Each test starts uvicorn on a free loopback port in a thread (serial: it binds ports and, in
the crosstalk test, opens hundreds of sessions).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager

import pytest

pytest.importorskip("openenv.core.env_server")
uvicorn = pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets")

from openenv.core.generic_client import GenericEnvClient  # noqa: E402

from rlvr_envs.serve.app import ServerConfigError  # noqa: E402
from rlvr_envs.serve.episodes.server import check_bind, create_episode_app  # noqa: E402
from tests.episodes import adapter_tools  # noqa: E402

TASK = {"id": "t", "prompt": "What is 123 * 45?", "answer": "5535"}


@contextmanager
def running(**kwargs):
    adapter_tools.register()
    kwargs.setdefault("tools", ["calculator", "counter", "dying"])
    app = create_episode_app("math-arith", **kwargs)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error", ws="websockets-sansio", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def call(name, **args):
    return {"content": f"<tool_call>{json.dumps({'name': name, 'arguments': args})}</tool_call>"}


async def episode(base, final, headers=None):
    async with GenericEnvClient(base_url=base, headers=headers) as client:
        first = await client.reset(task=TASK)
        tool = await client.step(call("calculator", expression="123*45"))
        last = await client.step({"content": final})
        return first, tool, last


def test_openenv_client_drives_an_episode_end_to_end():
    with running() as (base, _):
        first, tool, last = asyncio.run(episode(base, "So \\boxed{5535}."))
        assert first.observation["text"].startswith("What is 123 * 45?")
        assert {t["function"]["name"] for t in first.observation["tools"]} == {"calculator", "counter", "dying"}
        assert "5535" not in json.dumps(first.observation)  # the answer is never sent
        assert (tool.done, tool.reward) == (False, 0.0)
        assert tool.observation["tool_messages"][0]["content"] == "5535"
        assert (last.done, last.reward, last.observation["verdict"]["reason"]) == (True, 1.0, "ok")
        _, _, wrong = asyncio.run(episode(base, "答案是 \\boxed{5536}"))
        assert (wrong.done, wrong.reward, wrong.observation["verdict"]["reason"]) == (True, 0.0, "wrong")


def test_step_before_reset_after_the_end_and_lost_sessions_answer_not_raise():
    async def go(base):
        async with GenericEnvClient(base_url=base) as client:
            before = await client.step({"content": "hi"})
            await client.reset(task=TASK)
            await client.step(call("dying", text="a"))
            lost = await client.step(call("dying", text="b"))
            after = await client.step({"content": "\\boxed{5535}"})
            return before, lost, after

    with running() as (base, _):
        before, lost, after = asyncio.run(go(base))
    assert before.done and "reset" in before.metadata["error"]
    assert (lost.done, lost.reward, lost.observation["verdict"]["reason"]) == (True, None, "verifier_error")
    assert after.done and "reset" in after.metadata["error"]


def test_hundreds_of_concurrent_sessions_without_crosstalk():
    """300 sessions at once, each adding its own numbers to its counter tool's running total."""
    n = 300

    async def one(base, k):
        async with GenericEnvClient(base_url=base, message_timeout_s=60) as client:
            await client.reset(task=TASK)
            totals = []
            for _ in range(3):
                result = await client.step(call("counter", add=k))
                totals.append(result.observation["tool_messages"][0]["content"])
            last = await client.step({"content": "\\boxed{5535}" if k % 2 else "\\boxed{0}"})
            return totals, last.reward

    async def all_of(base):
        return await asyncio.gather(*(one(base, k) for k in range(1, n + 1)))

    with running(max_sessions=n) as (base, app):
        started = time.monotonic()
        results = asyncio.run(all_of(base))
        elapsed = time.monotonic() - started
        assert app.refused_full == 0
    assert elapsed < 240
    for k, (totals, reward) in enumerate(results, start=1):
        assert totals == [str(k), str(2 * k), str(3 * k)]
        assert reward == (1.0 if k % 2 else 0.0)


async def slot_freed(app, open_now: int) -> None:
    """Until the server has let go of a closed socket's slot: it does so on its own thread after the
    close handshake returns here, so a fixed sleep is a guess that a loaded machine can lose."""
    deadline = time.monotonic() + 20
    while app.open_sessions > open_now:
        assert time.monotonic() < deadline, f"{app.open_sessions} sessions still open"
        await asyncio.sleep(0.01)


def test_capacity_is_answered_503_and_a_freed_slot_is_reused():
    async def go(base, app):
        ws_url = base.replace("http", "ws") + "/ws"
        held = [await websockets.connect(ws_url) for _ in range(2)]
        with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
            await websockets.connect(ws_url)
        await held[0].close()
        await slot_freed(app, 1)
        again = await websockets.connect(ws_url)
        await again.send(json.dumps({"type": "reset", "data": {"task": TASK}}))
        reply = json.loads(await again.recv())
        for ws in (held[1], again):
            await ws.close()
        return refused.value.response.status_code, reply

    with running(max_sessions=2) as (base, app):
        status, reply = asyncio.run(go(base, app))
        assert status == 503 and app.refused_full == 1
        assert reply["type"] == "observation"


def test_idle_sessions_are_reaped_and_their_tool_sessions_closed():
    async def go(base, app):
        ws_url = base.replace("http", "ws") + "/ws"
        ws = await websockets.connect(ws_url)
        await ws.send(json.dumps({"type": "reset", "data": {"task": TASK}}))
        await ws.recv()
        await ws.send(json.dumps({"type": "step", "data": call("counter", add=1)}))
        await ws.recv()
        # Until the server has reaped it (0.5 s idle), not a fixed 2 s: its loop may be late.
        deadline = time.monotonic() + 20
        while not app.reaped_idle:
            assert time.monotonic() < deadline, "the idle session was never reaped"
            await asyncio.sleep(0.02)
        with pytest.raises(websockets.exceptions.ConnectionClosed):
            await ws.send(json.dumps({"type": "step", "data": call("counter", add=1)}))
            await ws.recv()
        return ws.close_code

    before = len(adapter_tools.COUNTER.sessions)
    with running(idle_timeout_s=0.5) as (base, app):
        asyncio.run(go(base, app))
        asyncio.run(slot_freed(app, 0))  # its slot is let go on the server's thread, after the close
        assert app.reaped_idle == 1 and app.open_sessions == 0
    opened = adapter_tools.COUNTER.sessions[before:]
    assert len(opened) == 1 and opened[0].closed


def test_token_required_on_every_route_but_health_and_public_binds_need_one(monkeypatch):
    monkeypatch.delenv("RLVR_SERVE_TOKEN", raising=False)

    async def go(base):
        ws_url = base.replace("http", "ws") + "/ws"
        with pytest.raises(websockets.exceptions.InvalidStatus) as denied:
            await websockets.connect(ws_url)
        with pytest.raises(websockets.exceptions.InvalidStatus):
            await websockets.connect(ws_url, additional_headers={"Authorization": "Bearer wrong"})
        _, _, last = await episode(base, "\\boxed{5535}", headers={"Authorization": "Bearer s3cret"})
        return denied.value.response.status_code, last.reward

    with running(token="s3cret") as (base, _):
        status, reward = asyncio.run(go(base))
        assert (status, reward) == (401, 1.0)
        with urllib.request.urlopen(base + "/health", timeout=10) as reply:
            assert reply.status == 200
        with pytest.raises(urllib.error.HTTPError) as http_denied:
            urllib.request.urlopen(base + "/schema", timeout=10)
        assert http_denied.value.code == 401
    with pytest.raises(ServerConfigError):
        check_bind("0.0.0.0", None)
    assert check_bind("0.0.0.0", "t") == "t"
    assert check_bind("127.0.0.1", None) is None
    monkeypatch.setenv("RLVR_SERVE_TOKEN", "from-env")
    assert check_bind("0.0.0.0", None) == "from-env"


def test_http_one_shot_step_without_a_session_says_so():
    with running() as (base, _):
        request = urllib.request.Request(
            base + "/step",
            data=json.dumps({"action": {"content": "\\boxed{1}"}}).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            body = json.loads(reply.read())
    assert body["done"] is True and "reset" in json.dumps(body)


def test_one_shot_http_calls_count_against_the_session_limit():
    """OpenEnv builds an env for each HTTP /reset, /step, /state, /metadata: with every slot held
    by a socket they are answered 503 too (before the fix they ran beside them, unbounded)."""

    def http(base, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(base + path, data=data, headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status
        except urllib.error.HTTPError as exc:
            return exc.code

    one_shots = [("/reset", {"task": TASK}), ("/step", {"action": {"content": "\\boxed{1}"}}), ("/state", None)]
    one_shots.append(("/metadata", None))

    async def go(base, app):
        ws_url = base.replace("http", "ws") + "/ws"
        held = [await websockets.connect(ws_url) for _ in range(2)]
        for ws in held:
            await ws.send(json.dumps({"type": "reset", "data": {"task": TASK}}))
            await ws.recv()
        full = [await asyncio.to_thread(http, base, path, body) for path, body in one_shots]
        free = [await asyncio.to_thread(http, base, path) for path in ("/health", "/schema")]
        refused = app.refused_full
        await held[0].close()
        await slot_freed(app, 1)
        after = await asyncio.to_thread(http, base, "/reset", {"task": TASK})
        await held[1].close()
        return full, free, refused, after

    with running(max_sessions=2) as (base, app):
        full, free, refused, after = asyncio.run(go(base, app))
        assert full == [503, 503, 503, 503] and refused == 4
        assert free == [200, 200]  # no env is built for these: never refused
        assert after == 200  # a freed slot serves a one-shot call
        # The server frees the last socket's slot on its own thread after the close handshake
        # returns here: wait for it (bounded) rather than read the count at once.
        deadline = time.monotonic() + 10
        while app.open_sessions and time.monotonic() < deadline:
            time.sleep(0.05)
        assert app.open_sessions == 0  # every one-shot call gave its slot back


def test_cli_serves_one_env_and_refuses_a_public_bind_without_token(monkeypatch, capsys):
    from rlvr_envs.cli import main

    monkeypatch.delenv("RLVR_SERVE_TOKEN", raising=False)
    assert main(["serve", "--openenv", "math-arith", "math-gsm8k"]) == 2
    assert "exactly one" in capsys.readouterr().err
    code = main(["serve", "--openenv", "math-arith", "--host", "0.0.0.0"])
    assert code != 0
    assert "token" in capsys.readouterr().err


def test_routes_outside_the_protocol_are_404_so_no_session_escapes_the_guard():
    with running(max_sessions=1) as (base, _):
        for path, body in (("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create", "params": {}}),):
            request = urllib.request.Request(
                base + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
            )
            with pytest.raises(urllib.error.HTTPError) as missing:
                urllib.request.urlopen(request, timeout=10)
            assert missing.value.code == 404
        for path in ("/docs", "/openapi.json", "/list_environments"):
            with pytest.raises(urllib.error.HTTPError) as missing:
                urllib.request.urlopen(base + path, timeout=10)
            assert missing.value.code == 404
        _, _, last = asyncio.run(episode(base, "\\boxed{5535}"))  # the one session slot is still free
        assert last.reward == 1.0


def test_the_sync_client_trl_recipes_use_drives_it_too():
    with running() as (base, _):
        with GenericEnvClient(base_url=base).sync() as client:
            first = client.reset(task=TASK)
            tool = client.step(call("calculator", expression="123*45"))
            last = client.step({"content": "\\boxed{5535}"})
    assert first.observation["text"].startswith("What is")
    assert tool.observation["tool_messages"][0]["content"] == "5535"
    assert (last.done, last.reward) == (True, 1.0)
