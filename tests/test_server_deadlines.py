"""Stalled request bodies and connection floods (issue 21): each test fails on the server before the fix.

Raw sockets on 127.0.0.1 with short deadlines: the old server kept a connection that stalled
mid-body open for 60 s (the body wait of the routes that read it) or for ever (routes that never
read it, such as a 401 or 404, once the client dripped another byte), and accepted connections
without limit, so stalled clients could use up the open-files limit.
"""

from __future__ import annotations

import socket
import time

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("httptools")

from rlvr_envs.serve.app import RewardServer, ServerConfigError, default_max_connections


def _addr(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def _read_until_closed(sock: socket.socket, limit_s: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and how long that took (raises on timeout)."""
    sock.settimeout(limit_s)
    start = time.monotonic()
    data = b""
    while True:
        try:
            chunk = sock.recv(4096)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return data, time.monotonic() - start


@pytest.fixture(scope="module")
def server():
    # Idle 5 s (headers within 10 s): a stalled body is what closes these connections, not idleness.
    with RewardServer(
        None, port=0, idle_timeout_s=5.0, body_timeout_s=1.0, max_connections=64, token="s3cret", preload=False
    ) as srv:
        yield srv


@pytest.mark.parametrize(
    ("path", "auth"),
    [
        ("/verify", b"Authorization: Bearer s3cret\r\n"),  # a route that reads the body: the app's 408
        ("/get_reward", b"Authorization: Bearer s3cret\r\n"),
        ("/verify", b""),  # 401 without reading the body: the connection-level deadline
        ("/no-such-route", b"Authorization: Bearer s3cret\r\n"),  # 404, body never read
    ],
)
def test_a_body_that_stalls_is_answered_and_closed(server, path, auth):
    with socket.create_connection(_addr(server.url), timeout=10) as sock:
        sock.sendall(b"POST " + path.encode() + b" HTTP/1.1\r\nHost: x\r\n" + auth + b"Content-Length: 1000\r\n\r\n{")
        time.sleep(0.3)
        sock.sendall(b'"')  # a drip: on the old server every byte re-armed nothing, the connection stayed
        data, took = _read_until_closed(sock, 10)
    status = data.split(b"\r\n", 1)[0]
    assert took < 5, f"closed after {took:.1f} s"
    assert status.split(b" ")[1] in (b"408", b"401", b"404"), data[:200]
    if path in ("/verify", "/get_reward") and auth:
        assert b" 408 " in status and b"did not arrive within 1 s" in data


def test_a_body_dripped_slowly_is_cut_at_the_deadline(server):
    """The deadline is on the whole body, not between bytes: a byte every 0.2 s does not keep it open."""
    with socket.create_connection(_addr(server.url), timeout=10) as sock:
        sock.sendall(
            b"POST /verify HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\nContent-Length: 1000\r\n\r\n"
        )
        start = time.monotonic()
        closed = False
        sock.settimeout(0.2)
        while time.monotonic() - start < 8:
            try:
                sock.sendall(b" ")
                if sock.recv(4096) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        assert closed or _read_until_closed(sock, 5)[1] < 5
        assert time.monotonic() - start < 5


def test_a_prompt_body_and_a_body_less_request_are_not_cut(server):
    body = b'{"rows": []}'
    with socket.create_connection(_addr(server.url), timeout=10) as sock:
        for _ in range(3):  # keep-alive: the deadline of one request does not fire on the next
            sock.sendall(
                b"POST /verify HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
            )
            reply = sock.recv(4096)
            assert b" 200 " in reply.split(b"\r\n", 1)[0], reply
            time.sleep(1.5)  # past the body deadline (1 s + grace): nothing may fire now
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert b" 200 " in sock.recv(4096).split(b"\r\n", 1)[0]


def test_connections_past_the_cap_are_refused_at_once_and_room_comes_back():
    with RewardServer(None, port=0, idle_timeout_s=5.0, max_connections=8, preload=False) as srv:
        addr = _addr(srv.url)
        held = [socket.create_connection(addr, timeout=10) for _ in range(8)]
        try:
            for sock in held:  # each half-sent request holds its connection (headers have 10 s)
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            time.sleep(0.3)
            extra = [socket.create_connection(addr, timeout=10) for _ in range(5)]
            for sock in extra:
                data, took = _read_until_closed(sock, 5)
                assert took < 2 and (data == b"" or b" 503 " in data.split(b"\r\n", 1)[0]), data[:200]
                sock.close()
            for sock in held[:4]:
                sock.close()
            time.sleep(0.3)
            with socket.create_connection(addr, timeout=10) as sock:
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                assert b" 200 " in sock.recv(4096).split(b"\r\n", 1)[0]
            for sock in held[4:]:  # the held ones finish their requests normally
                sock.sendall(b"\r\n")
                assert b" 200 " in sock.recv(4096).split(b"\r\n", 1)[0]
        finally:
            for sock in held:
                sock.close()


def test_the_limits_are_validated_and_default_below_the_open_files_limit():
    import resource

    with pytest.raises(ServerConfigError, match="body_timeout_s"):
        RewardServer(None, port=0, body_timeout_s=0, preload=False)
    with pytest.raises(ServerConfigError, match="max_connections"):
        RewardServer(None, port=0, max_connections=0, preload=False)
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    cap = default_max_connections()
    assert 16 <= cap <= 1024 and (soft == resource.RLIM_INFINITY or cap <= max(16, soft // 2))


def test_a_client_that_hangs_up_mid_body_is_not_a_server_error(server):
    import logging

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(handler)
    try:
        for _ in range(3):
            with socket.create_connection(_addr(server.url), timeout=10) as sock:
                sock.sendall(
                    b"POST /verify HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\nContent-Length: 100\r\n\r\n{"
                )
                time.sleep(0.1)
        time.sleep(0.3)
        with socket.create_connection(_addr(server.url), timeout=10) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert b" 200 " in sock.recv(4096).split(b"\r\n", 1)[0]
    finally:
        logger.removeHandler(handler)
    assert not [r for r in records if r.levelno >= logging.ERROR], [r.getMessage() for r in records]


def test_a_connection_busy_past_several_idle_periods_stays_open_then_idles_out():
    """One timer per connection carries its idle, header and body deadlines; a request moves them and
    the timer re-arms only when it fires: firing for a deadline moved on, it must not close."""
    with RewardServer(None, port=0, idle_timeout_s=1.0, preload=False) as srv:
        addr = _addr(srv.url)
        with socket.create_connection(addr, timeout=10) as sock:
            start = time.monotonic()
            answered = 0
            while time.monotonic() - start < 3.0:  # three idle periods, a request every 0.25 s
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                reply = sock.recv(4096)
                assert b" 200 " in reply.split(b"\r\n", 1)[0], reply
                answered += 1
                time.sleep(0.25)
            assert answered >= 6
            data, took = _read_until_closed(sock, 10)  # now silent: closed at the idle deadline
            assert data == b"" and took < 6, (data, took)


def test_a_deadline_sooner_than_the_armed_one_fires_on_time(server):
    """A new connection's timer is armed for its idle deadline (5 s); the body's (1 s) comes sooner."""
    with socket.create_connection(_addr(server.url), timeout=10) as sock:
        sock.sendall(b"POST /verify HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\nContent-Length: 50\r\n\r\n{")
        data, took = _read_until_closed(sock, 10)
    assert b" 408 " in data.split(b"\r\n", 1)[0], data
    assert took < 3.5, took  # the body's deadline, not the idle one (5 s) the timer was armed for
