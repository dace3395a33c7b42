"""The HTTP reward server: OpenRLHF's remote reward protocol over the process pool.

``rlvr-envs serve math-gsm8k --port 5000`` starts it; OpenRLHF points ``--remote_rm_url`` at
``http://HOST:5000/get_reward``. A request is::

    POST /get_reward  {"query": [...], "prompts": [...], "labels": [...]}

``query`` is prompt plus response (OpenRLHF's convention; the response is what follows the
prompt), ``labels`` are the dataset's label column: either ``{"env_id": ..., "task": {...}}``
as JSON (what ``rlvr-envs export --format openrlhf`` writes) or, when the server serves one
env, the bare answer. The reply is ``{"rewards": [...], "scores": [...], "extra_logs": {...}}``
with one entry per query. Every request's samples go straight into the shared verification
pool, so concurrent requests are verified together and a hung sample costs only its budget.
Standard library only; ``GET /health`` lists the envs served.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rlvr_envs.adapters.routing import EnvRouter, RoutingError, task_from_json
from rlvr_envs.shaping import RewardShaping
from rlvr_envs.types import Reason, Task

MAX_BODY_BYTES = 256 * 1024 * 1024


class BadRequest(ValueError):
    """The request is malformed; the message goes back to the client with status 400."""


def response_text(query: str, prompt: str | None) -> str:
    """The response part of an OpenRLHF query (prompt + response)."""
    if prompt and query.startswith(prompt):
        return query[len(prompt) :]
    return query


def _label_row(label: Any, prompt: str | None, index: int) -> tuple[str | None, Task]:
    """(env id, task) from one label: our JSON envelope, or a bare answer for a single-env server."""
    parsed = label
    if isinstance(label, str):
        try:
            parsed = json.loads(label)
        except json.JSONDecodeError:
            parsed = label
    if isinstance(parsed, Mapping) and "task" in parsed:
        try:
            return parsed.get("env_id"), task_from_json(parsed["task"])
        except ValueError as exc:
            raise BadRequest(f"labels[{index}]: the task does not parse: {exc}") from None
    return None, Task(id=f"label-{index}", prompt=prompt or "", answer=parsed)


def score_request(router: EnvRouter, body: Mapping[str, Any], shaping: RewardShaping | None = None) -> dict[str, Any]:
    """Verify one OpenRLHF request body; raises ``BadRequest`` if it is malformed."""
    queries = body.get("query")
    if not isinstance(queries, list):
        raise BadRequest("'query' must be a list of strings (prompt + response)")
    prompts = body.get("prompts")
    labels = body.get("labels")
    n = len(queries)
    if prompts is not None and (not isinstance(prompts, list) or len(prompts) != n):
        raise BadRequest(f"'prompts' must be a list as long as 'query' ({n})")
    if not isinstance(labels, list) or len(labels) != n:
        raise BadRequest(f"'labels' must be a list as long as 'query' ({n}): each names the task to verify")
    rows = []
    for i, query in enumerate(queries):
        prompt = prompts[i] if prompts is not None and isinstance(prompts[i], str) else None
        env_id, task = _label_row(labels[i], prompt, i)
        text = response_text(query, prompt) if isinstance(query, str) else query
        rows.append((env_id, task, text))
    try:
        verdicts = router.verify(rows)
    except RoutingError as exc:
        raise BadRequest(str(exc)) from None
    rewards = []
    for verdict, (_, _, text) in zip(verdicts, rows):
        reward = float(verdict.reward)
        if shaping is not None and isinstance(text, str):
            reward = float(shaping(verdict, text))
        rewards.append(reward)
    return {
        "rewards": rewards,
        "scores": [float(v.reward) for v in verdicts],
        "extra_logs": {
            "passed": [float(v.passed) for v in verdicts],
            # OpenRLHF cannot skip a sample: infrastructure failures are flagged so a run can count them.
            "verifier_error": [float(v.reason is Reason.VERIFIER_ERROR) for v in verdicts],
            "timeout": [float(v.reason is Reason.TIMEOUT) for v in verdicts],
        },
    }


class _Handler(BaseHTTPRequestHandler):
    server: RewardHTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet by default; access logs swamp a trainer
        if self.server.verbose:
            super().log_message(format, *args)

    def _send(self, status: int, payload: Mapping[str, Any]) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/health", ""):
            envs = sorted(self.server.router.envs)
            self._send(200, {"status": "ok", "envs": envs, "serves_any_id": self.server.router.serve_any})
        else:
            self._send(404, {"error": f"no route {self.path}; use POST /get_reward"})

    def do_POST(self) -> None:
        if self.path.rstrip("/") != "/get_reward":
            self._send(404, {"error": f"no route {self.path}; use POST /get_reward"})
            return
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            self._send(400, {"error": "bad Content-Length"})
            return
        if length <= 0 or length > MAX_BODY_BYTES:
            self._send(413 if length > 0 else 400, {"error": f"body must be 1..{MAX_BODY_BYTES} bytes"})
            return
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
            if not isinstance(body, dict):
                raise BadRequest("the body must be a JSON object")
            result = score_request(self.server.router, body, self.server.shaping)
        except (json.JSONDecodeError, UnicodeDecodeError):
            self._send(400, {"error": "the body is not valid JSON"})
            return
        except BadRequest as exc:
            self._send(400, {"error": str(exc)})
            return
        except Exception as exc:  # a server bug must answer, not hang the trainer's request
            self._send(500, {"error": f"{type(exc).__name__}: {exc}"[:500]})
            return
        self._send(200, result)


class RewardHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def __init__(
        self, address: tuple[str, int], router: EnvRouter, shaping: RewardShaping | None, verbose: bool
    ) -> None:
        super().__init__(address, _Handler)
        self.router, self.shaping, self.verbose = router, shaping, verbose


class RewardServer:
    """The reward server for ``envs`` (ids, env objects, or None for any registered id).

    ``start()`` serves from a background thread (tests, notebooks); ``serve_forever()``
    blocks (the CLI). ``port=0`` picks a free port; ``url`` tells which.
    """

    def __init__(
        self,
        envs: str | Any | Sequence[Any] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 5000,
        shaping: RewardShaping | None = None,
        verbose: bool = False,
        **make_kwargs: Any,
    ) -> None:
        self.router = EnvRouter(envs, make_kwargs=make_kwargs)
        self.httpd = RewardHTTPServer((host, port), self.router, shaping, verbose)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        return f"http://{host}:{port}"

    def start(self) -> RewardServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="rlvr-reward-server", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> RewardServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def openrlhf_label(env_id: str, task: Task) -> str:
    """The label string for one task, as ``rlvr-envs export --format openrlhf`` writes it."""
    return json.dumps({"env_id": env_id, "task": json.loads(task.model_dump_json())}, ensure_ascii=False)
