"""The OpenRLHF-protocol reward server: correctness, bad requests, and a concurrent load test."""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

import rlvr_envs
from rlvr_envs.server import RewardServer, openrlhf_label, response_text


def _post(url: str, body: object, timeout: float = 60.0) -> tuple[int, dict]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url + "/get_reward", data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture(scope="module")
def arith():
    return rlvr_envs.make("math-arith", level=4)


@pytest.fixture(scope="module")
def server(arith):
    with RewardServer([arith], port=0) as srv:
        yield srv


def _sample(env, task, correct: bool) -> tuple[str, str, str]:
    prompt = env.prompt_format.user_message(task.prompt)
    answer = env.gold_completion(task) if correct else env.prompt_format.render_answer("-77777")
    return prompt + answer, prompt, openrlhf_label(env.env_id, task)


def test_get_reward_scores_gold_and_wrong(server, arith):
    tasks = arith.sample(4, seed=11)
    samples = [_sample(arith, t, ok) for t in tasks for ok in (True, False)]
    status, body = _post(
        server.url,
        {
            "query": [q for q, _, _ in samples],
            "prompts": [p for _, p, _ in samples],
            "labels": [lbl for _, _, lbl in samples],
        },
    )
    assert status == 200
    assert body["rewards"] == [1.0, 0.0] * 4
    assert body["scores"] == [1.0, 0.0] * 4
    assert body["extra_logs"]["passed"] == [1.0, 0.0] * 4
    assert body["extra_logs"]["verifier_error"] == [0.0] * 8


def test_bare_answer_labels_on_a_single_env_server(server, arith):
    task = arith.sample(1, seed=12)[0]
    prompt = arith.prompt_format.user_message(task.prompt)
    status, body = _post(
        server.url, {"query": [prompt + arith.gold_completion(task)], "prompts": [prompt], "labels": [str(task.answer)]}
    )
    assert status == 200 and body["rewards"] == [1.0]


def test_answer_in_the_prompt_is_not_read_as_the_response(server, arith):
    # The query repeats the prompt; a prompt that shows an answer must not earn the reward.
    task = arith.sample(1, seed=13)[0]
    prompt = arith.prompt_format.user_message(task.prompt) + arith.gold_completion(task)
    status, body = _post(
        server.url,
        {"query": [prompt + "I am not sure."], "prompts": [prompt], "labels": [openrlhf_label(arith.env_id, task)]},
    )
    assert status == 200 and body["rewards"] == [0.0]
    assert response_text("abcdef", "abc") == "def" and response_text("xyz", "abc") == "xyz"


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"{not json", "not valid JSON"),
        ([1, 2], "JSON object"),
        ({"prompts": []}, "'query'"),
        ({"query": ["a", "b"], "labels": ["1"]}, "'labels'"),
        ({"query": ["a"], "prompts": ["a", "b"], "labels": ["1"]}, "'prompts'"),
        (
            {"query": ["a"], "labels": [json.dumps({"env_id": "math-500-v1", "task": {"id": "x", "prompt": "p"}})]},
            "cannot be verified here",
        ),
    ],
)
def test_malformed_requests_get_400_with_a_reason(server, body, fragment):
    status, reply = _post(server.url, body)
    assert status == 400 and fragment in reply["error"]


def test_health_lists_the_envs(server):
    with urllib.request.urlopen(server.url + "/health", timeout=10) as response:
        assert json.loads(response.read())["envs"] == ["math-arith-v4"]


def test_load_many_concurrent_requests_none_lost_all_right(server, arith):
    """32 clients x 6 requests x 16 samples on loopback: every reply present, every reward right."""
    rng = random.Random(0)
    tasks = arith.sample(64, seed=21)
    requests = []
    for r in range(32 * 6):
        picks = [(rng.choice(tasks), rng.random() < 0.5) for _ in range(16)]
        samples = [_sample(arith, t, ok) for t, ok in picks]
        # A unique tag in each request: replies must come back to the request that asked.
        requests.append(
            (
                {
                    "query": [q for q, _, _ in samples],
                    "prompts": [p for _, p, _ in samples],
                    "labels": [lbl for _, _, lbl in samples],
                    "tag": r,
                },
                [1.0 if ok else 0.0 for _, ok in picks],
            )
        )
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=32) as pool:
        replies = list(pool.map(lambda item: _post(server.url, item[0]), requests))
    elapsed = time.perf_counter() - start
    assert len(replies) == len(requests)
    for (status, body), (_, expected) in zip(replies, requests):
        assert status == 200
        assert body["rewards"] == expected
    assert elapsed < 120, f"{len(requests)} requests took {elapsed:.1f} s"
