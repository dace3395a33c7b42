"""The reward server against hostile requests, round 11: compressed bodies, envs it does not serve.

Fixed (fails on the commit before, 141986a): a body sent with ``Content-Encoding: gzip``, ``deflate``
or ``br`` was read as if plain and answered "not valid JSON" (400); a gzip bomb of a few kB was
received whole. It is now refused unread with 415 naming the encoding (the connection closed, so
the unread rest of a body is never parsed as the next request), whatever the other encoding headers
say; ``identity`` is plain.

Fixed too (``protocol.split_query``): when the decoded query does not hold the prompt verbatim at its
start (a tokenizer that decodes the prompt's opening otherwise: a leading space dropped, spaces
collapsed, another Unicode normal form), the prompt was looked for anywhere, so a policy that wrote
the prompt out itself after a hedge ("41. Not sure.<prompt>\\boxed{42}") had the response read from
its copy on, the hedge dropped, and was paid. A copy after the query's first assistant-turn marker is
now the policy's own text; the markers say where the response starts (flagged ``prompt_not_found``).

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
from rlvr_envs.serve.protocol import SpecialTokens, openrlhf_label, split_query

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


# (layout, the prompt as the trainer sent it, the same prompt as the tokenizer decoded it)
LAYOUTS = [
    ("chatml-space-dropped", "<|im_start|>user\n {q}<|im_end|>\n<|im_start|>assistant\n",
     "<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n"),
    ("llama3-spaces-collapsed", "<|start_header_id|>user<|end_header_id|>\n\n{q}  Think.<|eot_id|>"
     "<|start_header_id|>assistant<|end_header_id|>\n\n",
     "<|start_header_id|>user<|end_header_id|>\n\n{q} Think.<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"),
    ("gemma-nfd", "<start_of_turn>user\nQuelle est la réponse ? {q}<end_of_turn>\n<start_of_turn>model\n",
     "<start_of_turn>user\nQuelle est la re\u0301ponse ? {q}<end_of_turn>\n<start_of_turn>model\n"),
    ("llama2-inst", "[INST]  {q} [/INST]", "[INST] {q} [/INST]"),
    ("deepseek", "<｜User｜> {q}<｜Assistant｜>", "<｜User｜>{q}<｜Assistant｜>"),
]  # fmt: skip
HEDGES = ["41. Not sure though.", "Either 41 or", "41?? I am guessing.", "答案可能是41，也可能是"]


@pytest.mark.parametrize("hedge", HEDGES)
@pytest.mark.parametrize(("name", "sent", "decoded"), LAYOUTS, ids=[layout[0] for layout in LAYOUTS])
def test_the_prompt_written_out_by_the_policy_never_marks_where_the_response_starts(name, sent, decoded, hedge):
    q = "What is six times seven?"
    prompt, head = sent.format(q=q), decoded.format(q=q)
    response, found = split_query(head + hedge + prompt + "\\boxed{42}</s>", prompt, SpecialTokens())
    assert hedge in response and not found, (name, response)
    # An honest response is read whole, from the markers, as before.
    response, _found = split_query(head + "\\boxed{42}</s>", prompt, SpecialTokens())
    assert response == "\\boxed{42}"
    # The prompt decoded verbatim: found at the start, whatever the response writes.
    response, found = split_query(prompt + hedge + prompt + "\\boxed{42}</s>", prompt, SpecialTokens())
    assert found and response.startswith(hedge)


def test_text_before_the_policys_copy_of_the_prompt_is_still_checked():
    """Where the whole response is checked (IFEval: no commas anywhere), the text the policy wrote
    before its copy of the prompt must be read: it was dropped, and the compliant rest was paid."""
    env = rlvr_envs.make("ifeval-synth")
    task = next(t for t in env.sample(40, seed=1) if "punctuation:no_comma" in str(t.answer))
    compliant = (
        "Water from lakes and seas warms in the sun and rises as vapor. The vapor cools high in the sky and "
        "forms clouds. When the clouds get heavy the water falls back down as rain or snow. Then it flows "
        "into rivers and seas and the whole water cycle starts again."
    )
    assert env.verify(task, compliant).passed
    sent = "<|im_start|>user\n " + task.prompt + "<|im_end|>\n<|im_start|>assistant\n"
    decoded = sent.replace("user\n ", "user\n", 1)  # the tokenizer dropped the space
    query = decoded + "Sure, here it is, with commas, and more commas.\n" + sent + compliant + "<|im_end|>"
    response, found = split_query(query, sent, SpecialTokens())
    assert not found and not env.verify(task, response).passed, response[:120]
