"""The reward server's limits and security model (issue 21): each test fails on the old http.server."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("uvicorn")

import rlvr_envs
from rlvr_envs.adapters.rows import verifier_spec
from rlvr_envs.serve.app import RewardServer, ServerConfigError
from rlvr_envs.serve.protocol import openrlhf_label
from tests.helpers.data import shared_path


def post(url: str, body: object, path: str = "/get_reward", headers: dict | None = None, timeout: float = 60.0):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(
        url + path, data=data, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture(scope="module")
def arith():
    return rlvr_envs.make("math-arith", level=2)


@pytest.fixture(scope="module")
def any_server():
    with RewardServer(None, port=0, idle_timeout_s=1.0, max_body_bytes=1024 * 1024) as srv:
        yield srv


def test_unknown_env_is_400_whatever_came_before(any_server, arith):
    task = arith.sample(1, seed=1)[0]
    bad = {
        "query": ["x"],
        "prompts": [""],
        "labels": [json.dumps({"env_id": "no-such-env-v0", "task": {"id": "a", "prompt": "p", "answer": 1}})],
    }
    good = {
        "query": [arith.gold_completion(task)],
        "prompts": [""],
        "labels": [openrlhf_label(arith.env_id, task, verifier_spec(arith))],
    }
    seen = []
    for body in (bad, good, bad, bad):
        status, reply = post(any_server.url, body)
        seen.append(status)
        if body is bad:
            assert "no environment named" in reply["error"]
    assert seen == [400, 200, 400, 400]
    malformed_id = {**bad, "labels": [json.dumps({"env_id": "!!", "task": {"id": "a", "prompt": "p", "answer": 1}})]}
    assert post(any_server.url, malformed_id)[0] == 400


def test_a_label_naming_a_dataset_env_is_refused_fast_not_downloaded(any_server, monkeypatch):
    # math-500 reads a Hub dataset; the label has no verifier spec, so the server cannot build its verifier
    # without the data. It must say so at once rather than try the Hub on every request.
    label = json.dumps({"env_id": "math-500-v0", "task": {"id": "t", "prompt": "p", "answer": "3"}})
    start = time.perf_counter()
    for _ in range(3):
        status, reply = post(any_server.url, {"query": ["\\boxed{3}"], "prompts": [""], "labels": [label]})
        assert status == 400 and "serve math-500-v0" in reply["error"]
    assert time.perf_counter() - start < 3.0


def test_a_label_with_a_spec_is_verified_with_default_options_and_other_options_are_refused(any_server):
    env = rlvr_envs.make("math-500", path=shared_path("math500.jsonl"), limit=5)
    task = env.tasks[0]
    spec = verifier_spec(env)
    label = openrlhf_label(env.env_id, task, spec)
    status, reply = post(any_server.url, {"query": [f"\\boxed{{{task.answer}}}"], "prompts": [""], "labels": [label]})
    assert status == 200 and reply["rewards"] == [1.0]
    # A label cannot loosen the server's verifier (here: a huge tolerance would accept any number).
    spec["state"]["config"]["fields"]["rel_tol"] = 0.9
    status, reply = post(
        any_server.url, {"query": ["\\boxed{1}"], "prompts": [""], "labels": [openrlhf_label(env.env_id, task, spec)]}
    )
    assert status == 400 and "options this server does not use" in reply["error"]


def test_public_bind_needs_a_token(monkeypatch):
    monkeypatch.delenv("RLVR_SERVE_TOKEN", raising=False)
    with pytest.raises(ServerConfigError, match="token"):
        RewardServer(["math-arith"], host="0.0.0.0", port=0, preload=False)


def test_token_is_required_when_set(arith):
    task = arith.sample(1, seed=2)[0]
    body = {"query": [arith.gold_completion(task)], "prompts": [""], "labels": [str(task.answer)]}
    with RewardServer([arith], port=0, token="s3cret", preload=False) as srv:
        assert post(srv.url, body)[0] == 401
        assert post(srv.url, body, headers={"Authorization": "Bearer wrong"})[0] == 401
        assert post(srv.url, body, headers={"Authorization": "Bearer s3cret"}) == (
            200,
            post(srv.url + "", body, path="/get_reward?token=s3cret")[1],
        )
        with urllib.request.urlopen(srv.url + "/health", timeout=10) as r:
            assert json.loads(r.read()) == {"status": "ok"}  # no env list without the token


def test_allow_env_and_dataset_task_source_keep_foreign_tasks_out(arith):
    humaneval = rlvr_envs.make("code-humaneval", path=shared_path("humaneval.jsonl"))
    own = humaneval.tasks[0]
    forged = own.model_copy(update={"answer": {**own.answer, "test": "import os\nos.system('touch /tmp/pwned')\n"}})
    with pytest.raises(ServerConfigError):
        RewardServer([arith], port=0, allow_envs=["code-*"], preload=False)
    with RewardServer([humaneval], port=0, task_source="dataset", allow_envs=["code-*"], preload=False) as srv:
        status, reply = post(
            srv.url,
            {"rows": [{"env_id": humaneval.env_id, "task": json.loads(forged.model_dump_json()), "completion": "x"}]},
            path="/verify",
        )
        assert status == 400 and "verifies only its own" in reply["error"]
        status, reply = post(
            srv.url, {"rows": [{"env_id": "math-arith-v0", "task_id": "1", "completion": "x"}]}, path="/verify"
        )
        assert status == 400 and "not accepted" in reply["error"]
        status, reply = post(
            srv.url,
            {"rows": [{"env_id": humaneval.env_id, "task_id": own.id, "completion": "def f(): pass"}]},
            path="/verify",
        )
        assert status == 200 and reply["verdicts"][0]["passed"] is False


def _raw(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def test_bodies_are_capped_and_not_read_past_the_cap(any_server):
    host, port = _raw(any_server.url)
    # Declared too large: refused before the body is sent.
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(
            b"POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 200000000\r\n\r\n"
        )
        assert b" 413 " in sock.recv(4096).split(b"\r\n", 1)[0]
    # Chunked with no declared length: the server stops at the cap instead of buffering 300 MB.
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(b"POST /get_reward HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"a" * 65536
        sent, status = 0, b""
        try:
            while sent < 300 * 1024 * 1024:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
                sock.setblocking(False)
                try:
                    status = sock.recv(4096)
                except BlockingIOError:
                    status = b""
                sock.setblocking(True)
                if status:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert sent <= 8 * 1024 * 1024, f"the server read {sent} bytes past a 1 MB cap"
        assert not status or b" 413 " in status.split(b"\r\n", 1)[0]


def test_chunked_bodies_are_read(any_server, arith):
    task = arith.sample(1, seed=3)[0]
    body = json.dumps(
        {
            "query": [arith.gold_completion(task)],
            "prompts": [""],
            "labels": [openrlhf_label(arith.env_id, task, verifier_spec(arith))],
        }
    ).encode()
    host, port = _raw(any_server.url)
    with socket.create_connection((host, port), timeout=30) as sock:
        head = b"POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        sock.sendall(
            head
            + b"".join(b"%x\r\n%s\r\n" % (len(body[i : i + 7]), body[i : i + 7]) for i in range(0, len(body), 7))
            + b"0\r\n\r\n"
        )
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            data = sock.recv(65536)
            if not data:
                break
            reply += data
    assert b" 200 " in reply.split(b"\r\n", 1)[0] and json.loads(reply.split(b"\r\n\r\n", 1)[1])["rewards"] == [1.0]


def test_idle_and_slow_connections_are_closed(any_server):
    """Silent connections, a finished keep-alive one and one dripping its headers all get hung up on."""
    host, port = _raw(any_server.url)
    silent = [socket.create_connection((host, port), timeout=10) for _ in range(40)]
    used = socket.create_connection((host, port), timeout=10)
    slow = socket.create_connection((host, port), timeout=10)
    try:
        used.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert b" 200 " in used.recv(4096)
        slow.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # headers never finished
        start = time.monotonic()
        for sock in [*silent, used, slow]:
            assert sock.recv(4096) == b""  # closed by the server (a timeout here raises)
        # idle timeout 1 s, header deadline 2 s: well under the 10 s socket timeout
        assert time.monotonic() - start < 6
    finally:
        for sock in [*silent, used, slow]:
            sock.close()


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"null",
        b"\xff\xfe",
        b"[" * 100_000,
        b'{"query": "abc", "labels": []}',
        b'{"query": [1], "labels": ["1"]}',
        b'{"query": ["a"], "labels": [null]}',
        b'{"query": ["a"], "labels": [{"task": 5}]}',
        b'{"query": ["a"], "labels": ["{\\"env_id\\": 7, \\"task\\": {}}"]}',
        b'{"query": ["a"], "prompts": [3], "labels": ["1"]}',
        b'{"rows": 3}',
        b'{"rows": [{"env_id": "math-arith-v0", "completion": 3, "task": {}}]}',
        b'{"rows": [null]}',
        b'{"query": ["a"], "labels": ["{\\"env_id\\": \\"math-arith\\", \\"task\\": {\\"id\\": 1}}"]}',
        b'{"query": ["a"], "labels": ["{\\"env_id\\": \\"math-arith\\", \\"task_id\\": [1]}"]}',
        b'{"query": ["a"], "labels": ["' + b'{\\"a\\":' * 50_000 + b'"]}',  # a label nested past the recursion limit
        b'{"rows": [{"env_id": "math-arith", "completion": "x", "task": "' + b"[" * 50_000 + b'"}]}',
    ],
)
def test_bad_input_gets_400_with_a_reason_never_500(any_server, raw):
    for path in ("/get_reward", "/verify"):
        status, reply = post(any_server.url, raw, path=path)
        assert status == 400 and reply["error"], (path, reply)


def test_replies_are_not_held_back_by_nagle(any_server):
    # asyncio sets TCP_NODELAY on accepted sockets only for proto=IPPROTO_TCP; without it every keep-alive reply
    # waited out Nagle + delayed ACK (~40 ms each, the old server's 44 ms stall). Accepted sockets inherit both.
    sock = any_server._socket
    assert sock.proto == socket.IPPROTO_TCP
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
