"""Issue 26, round 15: the episode server bounds request bodies as the reward server does.

Fixed (each row fails on the commit before, be83cdf): ``SessionGuard`` counted an HTTP env route
(``/reset``, ``/step``, ...) as a session from its headers on, and OpenEnv's app read whatever body
came, for as long as it took. A client that sent its headers and then nothing (or one byte a
minute) held a session while it did: with ``max_sessions`` of them every other client was answered
503, indefinitely. A body of any size was read whole (50 MB: 0.7 s of the server's loop). Now the
guard reads the body first, before a session is taken, within ``body_timeout_s`` (408) and
``max_body_bytes`` (413, a declared ``Content-Length`` over it unread), the reward server's bounds.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("openenv.core.env_server")
pytest.importorskip("uvicorn")

from tests.episodes.test_episode_server import TASK, running


def _post(base: str, path: str, body: bytes, timeout: float = 60.0) -> tuple[int, dict]:
    request = urllib.request.Request(base + path, data=body, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def _stalled(base: str, path: str, declared: int, sent: bytes) -> socket.socket:
    """A client that sends its headers and ``sent`` of a ``declared``-byte body, then nothing."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    head = f"POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {declared}\r\n\r\n"
    sock.sendall(head.encode() + sent)
    return sock


def _status_of(sock: socket.socket) -> int:
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else -1


@pytest.mark.parametrize("path", ["/reset", "/step"])
@pytest.mark.parametrize("sent", [b"", b'{"task": '], ids=["headers-only", "half-a-body"])
def test_a_stalled_body_holds_no_session(path, sent):
    with running(max_sessions=1, body_timeout_s=3.0) as (base, app):
        stalled = _stalled(base, path, 4096, sent)
        try:
            time.sleep(0.3)  # the stalled request is in the guard (or the app, before) when the next comes
            status, reply = _post(base, "/reset", json.dumps({"task": TASK}).encode())
            assert status == 200, reply  # before: 503, the one session held by the stalled client
            assert reply["observation"]["text"].startswith("What is 123 * 45?")
            # The stalled client is answered 408 once its time is up (3 s; 30 s of socket timeout: 10x).
            assert _status_of(stalled) == 408
        finally:
            stalled.close()
        assert app.open_sessions == 0 and app.refused_full == 0 and app.refused_body == 1


@pytest.mark.parametrize(
    "body",
    [
        json.dumps({"action": {"content": "x" * 300_000}}).encode(),  # an answer over the cap
        json.dumps({"task": {**TASK, "prompt": "é" * 200_000}}).encode(),  # multi-byte: bytes count
        b"[" * 300_000,  # deep JSON over the cap
    ],
    ids=["long-answer", "multibyte-prompt", "deep-json"],
)
@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_a_body_over_the_cap_is_refused(body, declared):
    with running(max_body_bytes=200_000) as (base, app):
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            head = b"POST /reset HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            if declared:  # refused on the header alone: nothing more is sent
                sock.sendall(head + b"content-length: %d\r\n\r\n" % len(body))
            else:  # the chunks up to the first that passes the cap, then the client waits
                step = 65_536
                chunks = [body[i : i + step] for i in range(0, 200_000 + step, step)]
                sock.sendall(head + b"transfer-encoding: chunked\r\n\r\n")
                sock.sendall(b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks))
            # Nothing unread stays on the server's side, so it closes without a reset: the status arrives.
            assert _status_of(sock) == 413  # before: 200 (read whole and answered) or 400 (deep JSON)
        assert app.refused_body == 1 and app.open_sessions == 0
        # The server goes on: an ordinary episode is served.
        status, reply = _post(base, "/reset", json.dumps({"task": TASK}).encode())
        assert status == 200, reply


def test_bodies_under_the_cap_are_served_as_before():
    with running(max_body_bytes=200_000) as (base, app):
        status, reply = _post(
            base, "/reset", json.dumps({"task": {**TASK, "prompt": "What is 123 * 45? " + "é" * 1000}}).encode()
        )
        assert status == 200 and reply["observation"]["text"].startswith("What is 123 * 45?")
        status, reply = _post(base, "/step", json.dumps({"action": {"content": "\\boxed{5535}"}}).encode())
        assert status == 200  # one-shot /step builds a fresh env (OpenEnv): no episode, answered all the same
        assert app.refused_body == 0
