"""The reward server against hostile requests, round 11: compressed bodies, envs it does not serve.

Fixed (fails on the commit before, 141986a): a body sent with ``Content-Encoding: gzip``, ``deflate``
or ``br`` was read as if plain and answered "not valid JSON" (400); a gzip bomb of a few kB was
received whole. It is now refused unread with 415 naming the encoding (the connection closed, so
the unread rest of a body is never parsed as the next request), whatever the other encoding headers
say; ``identity`` is plain.

Guarded (already held; kept so it keeps holding): a label naming an env the server was not started
with is refused for that sample (400 on ``/get_reward``, an error in its place on ``/verify``), never
scored by some env made on the fly; the same task id sent twice with different completions in one
batch is paid each completion's own verdict.
"""

from __future__ import annotations

import gzip
import json
import socket
import time
import zlib

import pytest

pytest.importorskip("uvicorn")

import rlvr_envs
from rlvr_envs.adapters.rows import verifier_spec
from rlvr_envs.serve.app import RewardServer
from rlvr_envs.serve.protocol import openrlhf_label

BOUND_S = 10.0


@pytest.fixture(scope="module")
def arith():
    return rlvr_envs.make("math-arith", level=2)


@pytest.fixture(scope="module")
def sample(arith):
    task = arith.sample(1, seed=5)[0]
    return task, arith.gold_completion(task), openrlhf_label(arith.env_id, task, verifier_spec(arith))


@pytest.fixture(scope="module")
def server(arith, sample):
    # Served by name: only math-arith's own envs are made.
    with RewardServer([arith], port=0, idle_timeout_s=1.0) as srv:
        status, body = _exchange(srv, _post(b"/get_reward", _body([sample[1]], [sample[2]])), timeout=120)
        assert status == 200 and body["rewards"] == [1.0]
        yield srv


def _exchange(server, data: bytes, timeout: float = BOUND_S) -> tuple[int, dict]:
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(data)
        reply = b""
        while True:
            head, sep, rest = reply.partition(b"\r\n\r\n")
            lengths = [line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")]
            if sep and lengths and len(rest) >= int(lengths[0].split(b":")[1]):
                break
            chunk = sock.recv(65536)
            if not chunk:
                break
            reply += chunk
    head, _sep, rest = reply.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), json.loads(rest or b"{}")


def _post(path: bytes, body: bytes, extra: bytes = b"") -> bytes:
    return (
        b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + extra
        + b"Content-Length: %d\r\n\r\n" % len(body) + body
    )  # fmt: skip


def _body(queries: list[str], labels: list[str]) -> bytes:
    return json.dumps({"query": queries, "prompts": [""] * len(queries), "labels": labels}).encode()


def _deflate(data: bytes) -> bytes:
    return zlib.compress(data)


def _bomb(_data: bytes) -> bytes:
    return gzip.compress(b" " * 50_000_000)  # ~50 kB on the wire, 50 MB inflated: past any body cap


ENCODINGS = [
    ("gzip", gzip.compress, b"Content-Encoding: gzip\r\n"),
    ("deflate", _deflate, b"Content-Encoding: deflate\r\n"),
    ("br named, gzip sent", gzip.compress, b"Content-Encoding: br\r\n"),
    ("upper case", gzip.compress, b"Content-Encoding: GZIP\r\n"),
    ("identity then gzip", gzip.compress, b"Content-Encoding: identity\r\nContent-Encoding: gzip\r\n"),
    ("list", gzip.compress, b"Content-Encoding: identity, gzip\r\n"),
    ("gzip bomb", _bomb, b"Content-Encoding: gzip\r\n"),
]


@pytest.mark.parametrize(("name", "pack", "header"), ENCODINGS, ids=[e[0] for e in ENCODINGS])
@pytest.mark.parametrize("path", [b"/get_reward", b"/verify"])
def test_a_compressed_body_is_refused_unread(server, sample, name, pack, header, path):
    plain = _body([sample[1]], [sample[2]])
    start = time.monotonic()
    status, reply = _exchange(server, _post(path, pack(plain), header))
    assert time.monotonic() - start < BOUND_S
    assert status == 415 and "Content-Encoding" in reply["error"], (name, status, reply)
    status, _ = _exchange(server, _post(b"/get_reward", plain))  # healthy afterwards
    assert status == 200


def test_identity_is_plain(server, sample):
    status, reply = _exchange(
        server, _post(b"/get_reward", _body([sample[1]], [sample[2]]), b"Content-Encoding: identity\r\n")
    )
    assert status == 200 and reply["rewards"] == [1.0]


@pytest.mark.parametrize("env_id", ["math-500", "math-arith-v0", "code-humaneval", "no-such-env"])
def test_a_label_naming_an_env_not_served_is_refused(server, sample, env_id):
    task = sample[0]
    label = json.dumps({"env_id": env_id, "task": json.loads(task.model_dump_json())})
    status, reply = _exchange(server, _post(b"/get_reward", _body([sample[1]], [label])))
    assert status == 400 and "rewards" not in reply, reply
    rows = {"rows": [{"env_id": env_id, "task": json.loads(task.model_dump_json()), "completion": sample[1]},
                     {"env_id": "math-arith", "task": json.loads(task.model_dump_json()), "completion": sample[1]}]}  # fmt: skip
    status, reply = _exchange(server, _post(b"/verify", json.dumps(rows).encode()))
    assert status == 200 and "error" in reply["verdicts"][0] and reply["verdicts"][1]["passed"] is True


def test_one_task_twice_with_different_completions_is_paid_each_its_own(server, sample, arith):
    _task, gold, label = sample
    wrong = arith.prompt_format.render_answer("123456789")
    status, reply = _exchange(server, _post(b"/get_reward", _body([wrong, gold, wrong, gold], [label] * 4)))
    assert status == 200 and reply["rewards"] == [0.0, 1.0, 0.0, 1.0]
