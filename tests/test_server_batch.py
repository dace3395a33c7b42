"""The server's fast paths: micro-batched pool calls, coalesced writes, the framework-free ASGI app.

Each test checks behaviour that a wrong fast path would break: verdicts landing on another
request's rows, one request's bad row failing its neighbours in the batch, replies to pipelined
requests out of order, routes and tokens answering differently from before.
"""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

pytest.importorskip("uvicorn")

import rlvr_envs
from rlvr_envs.adapters.routing import EnvRouter, RoutingError
from rlvr_envs.adapters.rows import verifier_spec
from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.serve.app import RewardServer
from rlvr_envs.serve.batch import Batcher
from rlvr_envs.serve.protocol import openrlhf_label
from rlvr_envs.types import Reason
from tests.helpers.toy import HangingVerifier, ToyAddEnv


@pytest.fixture(scope="module")
def arith():
    env = rlvr_envs.make("math-arith", level=2, isolation="pool")
    env._pool = VerificationPool(2)  # its own pool: the batch counts below are this module's alone
    yield env
    env._pool.close()


def _rows(env, seed: int, n: int) -> tuple[list[tuple], list[float]]:
    """n rows of ``env`` and the reward each must get: row i is gold where bit i of ``seed`` is set,
    so requests of different seeds (below 2**n) expect different rewards and no swap goes unseen."""
    rows, want = [], []
    for i, task in enumerate(env.sample(n, seed=seed)):
        gold = bool(seed >> i & 1)
        rows.append((env.env_id, task, env.gold_completion(task) if gold else "\\boxed{-987654}"))
        want.append(1.0 if gold else 0.0)
    return rows, want


def test_requests_queued_in_one_loop_turn_share_one_pool_call_and_keep_their_own_verdicts(arith):
    batcher = Batcher(EnvRouter([arith]))
    requests = [_rows(arith, seed, 4) for seed in range(1, 13)]

    async def go():
        return await asyncio.gather(*(batcher.averify(rows) for rows, _ in requests))

    results = asyncio.run(go())
    assert batcher.batches == 1  # 48 rows of 12 requests: one submit_many
    for (_, want), verdicts in zip(requests, results):
        assert [v.reward for v in verdicts] == want


def test_a_request_that_cannot_be_routed_fails_alone(arith):
    batcher = Batcher(EnvRouter([arith]))
    good, want = _rows(arith, 5, 4)  # gold, wrong, gold, wrong
    task = good[0][1]

    async def go():
        return await asyncio.gather(
            batcher.averify(good),
            batcher.averify([("no-such-env-v0", task, "\\boxed{1}")]),
            batcher.averify(good[:1]),
            return_exceptions=True,
        )

    first, bad, last = asyncio.run(go())
    assert isinstance(bad, RoutingError)
    assert [v.reward for v in first] == want and [v.reward for v in last] == want[:1]


def test_a_cancelled_request_leaves_the_rest_of_its_batch_alone(arith):
    batcher = Batcher(EnvRouter([arith]))
    rows, want = _rows(arith, 5, 3)

    async def go():
        doomed = asyncio.ensure_future(batcher.averify(rows))
        kept = asyncio.ensure_future(batcher.averify(rows))
        await asyncio.sleep(0)  # both are held now
        doomed.cancel()
        return await kept, doomed

    verdicts, doomed = asyncio.run(go())
    assert doomed.cancelled() and [v.reward for v in verdicts] == want


def test_inline_envs_are_verified_without_the_pool_and_a_closed_pool_fails_its_requests():
    inline = rlvr_envs.make("math-arith", level=2, isolation="inline")
    batcher = Batcher(EnvRouter([inline]))
    rows, want = _rows(inline, 6, 4)
    assert [v.reward for v in asyncio.run(batcher.averify(rows))] == want
    assert batcher.batches == 0

    pooled = rlvr_envs.make("math-arith", level=2, isolation="pool")
    pooled._pool = VerificationPool(1)
    pooled._pool.close()
    with pytest.raises(RuntimeError, match="closed"):
        asyncio.run(Batcher(EnvRouter([pooled])).averify(_rows(pooled, 3, 2)[0]))


@pytest.fixture(scope="module")
def server(arith):
    with RewardServer([arith], port=0, token="s3cret", idle_timeout_s=2.0) as srv:
        yield srv


def _exchange(srv: RewardServer, data: bytes, replies: int) -> list[tuple[bytes, bytes]]:
    """Send ``data`` on one connection and read ``replies`` whole replies (head, body)."""
    host, port = srv.url.removeprefix("http://").rsplit(":", 1)
    out: list[tuple[bytes, bytes]] = []
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(data)
        buf = b""
        while len(out) < replies:
            while b"\r\n\r\n" not in buf:
                buf += sock.recv(65536)
            head, _, buf = buf.partition(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            while len(buf) < length:
                buf += sock.recv(65536)
            out.append((head, buf[:length]))
            buf = buf[length:]
    return out


def _post(path: str, body: dict, headers: bytes = b"Authorization: Bearer s3cret\r\n") -> bytes:
    data = json.dumps(body).encode()
    return b"POST %s HTTP/1.1\r\nHost: x\r\n%sContent-Length: %d\r\n\r\n%s" % (path.encode(), headers, len(data), data)


def test_pipelined_requests_get_their_replies_in_order(server, arith):
    spec = verifier_spec(arith)
    requests, wants = [], []
    for seed in range(1, 8):
        rows, want = _rows(arith, seed, 3)
        labels = [openrlhf_label(arith.env_id, task, spec) for _, task, _ in rows]
        requests.append(_post("/get_reward", {"query": [c for _, _, c in rows], "prompts": [""] * 3, "labels": labels}))
        wants.append(want)
    replies = _exchange(server, b"".join(requests), len(requests))
    for (head, body), want in zip(replies, wants):
        assert b" 200 " in head.split(b"\r\n", 1)[0] and json.loads(body)["rewards"] == want


def test_routes_methods_and_tokens_answer_as_before(server, arith):
    task = arith.sample(1, seed=4)[0]
    row = {
        "env_id": arith.env_id,
        "task": json.loads(task.model_dump_json()),
        "completion": arith.gold_completion(task),
    }
    cases = [
        (_post("/verify", {"rows": [row]}), b"200", lambda r: r["verdicts"][0]["passed"] is True),
        (_post("/verify", {"rows": [row]}, b"X-RLVR-Token: s3cret\r\n"), b"200", lambda r: len(r["verdicts"]) == 1),
        (_post("/verify?token=s3cret", {"rows": [row]}, b""), b"200", lambda r: len(r["verdicts"]) == 1),
        (_post("/verify", {"rows": [row]}, b"Authorization: Bearer nope\r\n"), b"401", lambda r: "token" in r["error"]),
        (_post("/nowhere", {}), b"404", lambda r: "POST /get_reward" in r["error"]),
        (b"GET /verify HTTP/1.1\r\nHost: x\r\n\r\n", b"405", lambda r: "GET is not allowed" in r["error"]),
        (_post("/health", {}), b"405", lambda r: "POST is not allowed" in r["error"]),
        (b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n", b"200", lambda r: r == {"status": "ok"}),
        (
            b"GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n\r\n",
            b"200",
            lambda r: r["envs"] == [arith.env_id],
        ),
        (_post("/verify", {"rows": [{**row, "env_id": "\ud800"}]}), b"400", lambda r: r["error"]),
    ]
    replies = _exchange(server, b"".join(data for data, _, _ in cases), len(cases))
    for (data, status, check), (head, body) in zip(cases, replies):
        assert head.split(b" ")[1] == status, (data[:60], head, body)
        assert head.lower().count(b"content-type: application/json") == 1
        assert check(json.loads(body)), (data[:60], body)


def test_labels_are_parsed_once_but_bare_answers_and_bad_labels_every_time(arith):
    from rlvr_envs.serve.protocol import BadRequest, LabelCache, Scoring, openrlhf_rows

    scoring = Scoring(EnvRouter([arith]), labels=LabelCache(max_chars=700))  # two of these labels
    tasks = arith.sample(3, seed=8)
    labels = [openrlhf_label(arith.env_id, task) for task in tasks]
    body = {"query": ["x", "x", "x", "x"], "prompts": ["a", "b", "c", "d"], "labels": [labels[0], labels[0], "7", "7"]}
    rows, _ = openrlhf_rows(scoring, body)
    assert rows[0][1] == rows[1][1] == tasks[0] and scoring.labels.hits == 1
    # A bare answer's task is built from its own sample's prompt and index, never shared.
    assert (rows[2][1].prompt, rows[2][1].id, rows[3][1].prompt, rows[3][1].id) == ("c", "label-2", "d", "label-3")
    broken = labels[1][:-2]
    for _ in range(2):
        with pytest.raises(BadRequest):
            openrlhf_rows(scoring, {"query": ["x"], "labels": [json.dumps({"env_id": 3, "task": {}})]})
        assert openrlhf_rows(scoring, {"query": ["x"], "labels": [broken]})[0][0][1].id == "label-0"
    # Past its size the oldest labels go: the cache holds at most max_chars of label text.
    for label in labels * 3:
        assert openrlhf_rows(scoring, {"query": ["x"], "labels": [label]})[0][0][1] in tasks
    assert len(scoring.labels._items) == 2 and sum(map(len, scoring.labels._items)) <= 700


@pytest.fixture(scope="module")
def cheap():
    """An env whose verifier is bounded_cheap, under the default isolation ("auto"), on its own pool."""
    env = rlvr_envs.make("rg-chain_sum", size=16)
    assert env.isolation == "auto" and env.verifier.bounded_cheap
    env._pool = VerificationPool(1)
    yield env
    env._pool.close()


def test_rows_an_auto_env_keeps_in_process_never_reach_the_pool_and_keep_their_verdicts(cheap, arith):
    router = EnvRouter([cheap, arith])
    batcher = Batcher(router)
    requests = [_rows(cheap, seed, 4) for seed in range(1, 9)]
    mixed_rows, mixed_want = _rows(arith, 6, 3)
    mixed_rows = mixed_rows + requests[0][0]  # one request with rows of both envs
    mixed_want = mixed_want + requests[0][1]
    before = dict(cheap.pool.stats)

    async def go():
        return await asyncio.gather(
            *(batcher.averify(rows) for rows, _ in requests), batcher.averify(mixed_rows), router.averify(mixed_rows)
        )

    *results, mixed, via_router = asyncio.run(go())
    for (_, want), verdicts in zip(requests, results):
        assert [v.reward for v in verdicts] == want
    assert [v.reward for v in mixed] == mixed_want and [v.reward for v in via_router] == mixed_want
    assert [v.reward for v in router.verify(mixed_rows)] == mixed_want
    assert cheap.pool.stats == before and not cheap.pool.worker_pids()  # the cheap env's pool never started
    # Over its cap the same env's rows do go to its pool.
    task = requests[0][0][0][1]
    long = "x" * (cheap.verifier.inline_cap(task) + 1)
    assert asyncio.run(batcher.averify([(cheap.env_id, task, long)]))[0].reward == 0.0
    assert cheap.pool.worker_pids()


def test_many_concurrent_keep_alive_connections_each_get_their_own_rewards(server, arith):
    """96 connections at once, three requests each in turn: every reply carries its own request's
    rewards, through workers the server's event loop drives (``lanes``)."""
    spec = verifier_spec(arith)
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    jobs = []
    for k in range(96):
        rows, want = _rows(arith, 1 + k % 15, 4)
        labels = [openrlhf_label(arith.env_id, task, spec) for _, task, _ in rows]
        jobs.append(
            (_post("/get_reward", {"query": [c for _, _, c in rows], "prompts": [""] * 4, "labels": labels}), want)
        )

    async def client(request: bytes) -> list[list[float]]:
        reader, writer = await asyncio.open_connection(host, int(port))
        got = []
        try:
            for _ in range(3):
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                got.append(json.loads(await reader.readexactly(length))["rewards"])
        finally:
            writer.close()
        return got

    async def go():
        return await asyncio.wait_for(asyncio.gather(*(client(request) for request, _ in jobs)), 120)

    for (_, want), got in zip(jobs, asyncio.run(go())):
        assert got == [want] * 3
    assert server.batcher._lanes  # the rows went to the loop's own lanes


@pytest.mark.parametrize("lanes", [True, False], ids=["loop lanes", "slot threads"])
def test_verdicts_reach_their_rows_whatever_happens_to_their_neighbours_in_the_pool(lanes):
    """Rows of several requests queued in one loop turn, one pool submission: a row past its budget
    gets ``timeout``, a crashed or raising verifier ``verifier_error``, an over-long completion
    ``format_error`` unread; none of them pays a reward, each request gets every one of its own
    verdicts in order, and its neighbours' verdicts are untouched."""
    env = ToyAddEnv(verifier=HangingVerifier(), isolation="pool", max_completion_chars=64)
    env._pool = VerificationPool(2)
    try:
        task = env.sample(1, seed=3)[0]
        gold = f"\\boxed{{{task.answer}}}"
        cases = {
            "gold": (gold, Reason.OK),
            "wrong": ("\\boxed{-1}", Reason.WRONG),
            "hang": ("hang", Reason.TIMEOUT),
            "crash": ("crash", Reason.VERIFIER_ERROR),
            "raise": ("raise", Reason.VERIFIER_ERROR),
            "long": ("x" * 65, Reason.FORMAT_ERROR),
        }
        requests = [
            ["gold", "hang", "wrong"],
            ["crash", "gold"],
            ["long"],
            ["raise", "wrong", "gold", "long"],
            ["gold"],
        ]
        batcher = Batcher(EnvRouter([env]), lanes=lanes)

        async def go():
            return await asyncio.gather(
                *(batcher.averify([(env.env_id, task, cases[name][0]) for name in names]) for names in requests)
            )

        results = asyncio.run(go())
        assert batcher.batches == 1
        for names, verdicts in zip(requests, results):
            assert [v.reason for v in verdicts] == [cases[name][1] for name in names], names
            assert [v.reward for v in verdicts] == [1.0 if name == "gold" else 0.0 for name in names]
        # The pool still serves after the timeout and the crash (their workers were replaced).
        again = asyncio.run(batcher.averify([(env.env_id, task, gold)] * 3))
        assert [v.reason for v in again] == [Reason.OK] * 3
        assert bool(batcher._lanes) is lanes
        batcher.close()
    finally:
        env._pool.close()
