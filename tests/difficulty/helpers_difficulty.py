"""Shared pieces of the difficulty tests: a levelled toy env, a scripted policy, a fake OpenAI server."""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import rlvr_envs
from rlvr_envs import Difficulty, ProceduralEnv, Task
from rlvr_envs.samplers.base import FunctionSampler, SamplingParams
from tests.helpers.toy import AddVerifier

_QUESTION = re.compile(r"What is (\d+) \+ (\d+)\?")
_ANY_SUM = re.compile(r"What is (\d+) ([+-]) (\d+)\?")


class LeveledAddEnv(ProceduralEnv):
    """Addition with ``level`` digits per operand (levels 1-4)."""

    family = "difftoy"
    max_level = 4

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(kwargs.pop("verifier", AddVerifier()), **kwargs)

    def generate(self, rng: random.Random) -> Task:
        digits = self.level or 1
        a, b = (rng.randint(0, 10**digits - 1) for _ in range(2))
        return Task(id="add", prompt=f"What is {a} + {b}?", answer=a + b, difficulty=Difficulty(level=digits))

    def answer_text(self, task: Task) -> str:
        return str(task.answer)


def skill(a: int, b: int) -> float:
    """The scripted policy's chance of solving a + b: spread over [0, 1] so bands are populated."""
    return int(hashlib.sha256(f"{a}+{b}".encode()).hexdigest(), 16) % 11 / 10


def scripted_answer(prompt: str, seed: int | None, index: int) -> str:
    """A deterministic 'policy': right with probability ``skill``; wrong answers are off by a small amount."""
    match = _ANY_SUM.search(prompt)
    if match is None:
        return "I cannot read the question."
    a, op, b = int(match.group(1)), match.group(2), int(match.group(3))
    total = a + b if op == "+" else a - b
    rng = random.Random(f"{a}{op}{b}|{seed}|{index}")
    if rng.random() < skill(a, b):
        return f"Adding them gives \\boxed{{{total}}}."
    return f"Adding them gives \\boxed{{{total + rng.choice([-10, -1, 1, 2])}}}."


def scripted_sampler(params: SamplingParams | None = None, name: str = "scripted-v1") -> FunctionSampler:
    return FunctionSampler(lambda text, n, seed: [scripted_answer(text, seed, i) for i in range(n)], name, params)


TOY_IDS = {
    "difftoy-add-v0": "tests.helpers.toy:ToyAddEnv",
    "difftoy-list-v0": "tests.helpers.toy:ToyListEnv",
    "difftoy-levels-v0": "tests.difficulty.helpers_difficulty:LeveledAddEnv",
}


def register_toy_ids() -> None:
    for env_id, entry in TOY_IDS.items():
        if env_id not in rlvr_envs.registry._specs:
            rlvr_envs.register(env_id, entry, size=None, description="difficulty-test toy")


class FakeOpenAIServer:
    """A local OpenAI-compatible server on 127.0.0.1 answering with ``scripted_answer``.

    Knobs: ``fail_first`` answers 500 that many times, ``throttle_first`` answers 429 (with
    Retry-After: 0), ``max_choices`` caps choices per answer (clients must top up), ``delay_s``
    slows each answer, ``max_requests`` bounds the total (further requests get 400 and are
    counted in ``over_limit``, so a runaway client fails the test instead of spinning).
    """

    def __init__(
        self,
        *,
        delay_s: float = 0.0,
        fail_first: int = 0,
        throttle_first: int = 0,
        max_choices: int | None = None,
        max_requests: int = 2000,
    ) -> None:
        self.delay_s = delay_s
        self.fail_first = fail_first
        self.throttle_first = throttle_first
        self.max_choices = max_choices
        self.max_requests = max_requests
        self.requests = 0
        self.over_limit = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                server._handle(self)

        class QuietServer(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that timed out and hung up is what some tests do on purpose

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _reply(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        payload: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            handler.send_header(k, v)
        handler.end_headers()
        handler.wfile.write(data)

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length", 0))
        body = json.loads(handler.rfile.read(length) or b"{}")
        with self._lock:
            self.requests += 1
            number = self.requests
            self.bodies.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        # In flight until the answer is ready, not until it is written: a client that has read its
        # answer may send the next request before this thread gets back from writing the last one.
        try:
            reply = self._answer(handler, body, number)
        finally:
            with self._lock:
                self.in_flight -= 1
        self._reply(handler, *reply)

    def _answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any], number: int) -> tuple[Any, ...]:
        if number > self.max_requests:
            self.over_limit += 1
            return (400, {"error": {"message": "request budget of the test exhausted"}})
        if self.delay_s:
            time.sleep(self.delay_s)
        if number <= self.fail_first:
            return (500, {"error": {"message": "injected failure"}})
        if number <= self.fail_first + self.throttle_first:
            return (429, {"error": {"message": "slow down"}}, {"Retry-After": "0"})
        chat = handler.path.endswith("/chat/completions")
        if chat:
            prompt = "\n\n".join(m["content"] for m in body["messages"])
        elif handler.path.endswith("/completions"):
            prompt = body["prompt"]
        else:
            return (404, {"error": {"message": f"no route {handler.path}"}})
        n = int(body.get("n", 1))
        if self.max_choices is not None:
            n = min(n, self.max_choices)
        seed = body.get("seed")
        choices = []
        for i in range(n):
            text = scripted_answer(prompt, seed, i)
            choices.append(
                {"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                if chat
                else {"index": i, "text": text, "finish_reason": "stop"}
            )
        return (200, {"id": f"r{number}", "object": "completion", "choices": choices})


def formatting_sampler(params: SamplingParams | None = None) -> FunctionSampler:
    """A policy that is always right but often writes the sum in a form the strict toy verifier rejects."""

    def fn(text: str, n: int, seed: int | None) -> list[str]:
        match = _QUESTION.search(text)
        if match is None:
            return ["no idea"] * n
        total = int(match.group(1)) + int(match.group(2))
        forms = [f"\\boxed{{{total}}}", f"\\boxed{{{total}.0}}", f"\\boxed{{x = {total}}}", "\\boxed{-7}"]
        return [f"So the sum is {forms[i % len(forms)]}." for i in range(n)]

    return FunctionSampler(fn, "formatting-v1", params)


CHILD_CLI = (
    "import sys; from tests.difficulty.helpers_difficulty import register_toy_ids; register_toy_ids(); "
    "from rlvr_envs.cli import main; sys.exit(main(sys.argv[1:]))"
)
"""``python -c CHILD_CLI profile ...`` runs the real CLI in a child process that knows the toy ids."""
