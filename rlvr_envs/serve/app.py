"""The reward server: an ASGI app (Starlette) under uvicorn over the verification pool.

Routes: ``POST /get_reward`` (OpenRLHF), ``POST /verify`` (our batch schema), ``GET /health``.
Bodies are read as a stream and refused past ``max_body_bytes`` (413, before the rest is read;
a ``Content-Length`` over the cap is refused unread), so a huge or endless body costs at most
the cap in memory. Idle keep-alive connections close after ``idle_timeout_s``, a request's headers
must arrive within twice that, and its body within ``body_timeout_s`` of the headers (408, then
the connection is closed, whichever route it was for); past ``max_connections`` open connections a
new one gets 503 and is closed at once, so stalled clients cannot use up the open-files limit. A token, when
set, is required on every route but ``/health`` (``Authorization: Bearer``, ``X-RLVR-Token`` or
``?token=`` for clients such as OpenRLHF that cannot set headers); binding beyond loopback
without one is refused at start.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import os
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from rlvr_envs.serve.protocol import (
    BadRequest,
    Scoring,
    SpecialTokens,
    TaskPolicy,
    score_batch,
    score_openrlhf,
)

if TYPE_CHECKING:
    from rlvr_envs.adapters.routing import EnvRouter
    from rlvr_envs.shaping import RewardShaping

TOKEN_ENV = "RLVR_SERVE_TOKEN"
DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
DEFAULT_IDLE_TIMEOUT_S = 5.0
DEFAULT_BODY_TIMEOUT_S = 30.0
"""A whole body must arrive within this (a 32 MB body at the cap needs about 9 Mbit/s)."""
_BODY_GRACE_S = 1.0
"""The connection-level body deadline fires this much after the app's, which answers 408 first
when it reads the body; the connection-level one covers routes that never read it (401, 404)."""


def default_max_connections() -> int:
    """Half the open-files limit (the pool's pipes and data files need the rest), at most 1024."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):  # pragma: no cover - no `resource` (Windows)
        return 1024
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return 1024
    return min(1024, max(16, soft // 2))


def _raw_reply(status: str, message: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    ).encode() + body


class ServerConfigError(ValueError):
    """The server cannot start as configured (for instance a public bind without a token)."""


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        try:
            return all(ipaddress.ip_address(info[4][0]).is_loopback for info in socket.getaddrinfo(host, None))
        except OSError:
            return False


class _TooLarge(Exception):
    pass


def _protocol_class(header_timeout_s: float, body_timeout_s: float = 1e9, max_connections: int | None = None) -> Any:
    """uvicorn's httptools protocol with deadlines it lacks, or "auto" when httptools is missing.

    uvicorn times out a connection only between requests (keep-alive): one that connects and
    sends nothing, sends headers one byte a minute, or sends its headers and then stalls in the
    body, stays open for ever. Here a connection must send its first byte within the idle
    timeout, every request's headers must be complete within ``header_timeout_s`` of its first
    byte, and its body within ``body_timeout_s`` of its headers. uvicorn's ``limit_concurrency``
    answers 503 only once a request's headers are in, so a connection that never finishes them
    still holds a file descriptor; past ``max_connections`` a new connection is refused at once.
    """
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - httptools comes with the `serving` extra
        return "auto"

    busy = _raw_reply("503 Service Unavailable", "the server has too many open connections; retry later")
    too_slow = _raw_reply("408 Request Timeout", f"the body did not arrive within {body_timeout_s:g} s")

    class DeadlineProtocol(HttpToolsProtocol):
        _header_deadline: Any = None
        _body_deadline: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if max_connections is not None and len(self.connections) > max_connections:
                transport.write(busy)
                transport.close()
                return
            # No bytes yet: the keep-alive timer (cancelled by the first data) closes a silent connection.
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self.timeout_keep_alive_handler
            )

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if self._header_deadline is None:
                self._header_deadline = self.loop.call_later(header_timeout_s, self._headers_too_slow)

        def on_headers_complete(self) -> None:
            if self._header_deadline is not None:
                self._header_deadline.cancel()
                self._header_deadline = None
            super().on_headers_complete()
            # Cancelled by on_message_complete, which for a body-less request follows at once.
            if self._body_deadline is None:
                self._body_deadline = self.loop.call_later(body_timeout_s + _BODY_GRACE_S, self._body_too_slow)

        def on_message_complete(self) -> None:
            if self._body_deadline is not None:
                self._body_deadline.cancel()
                self._body_deadline = None
            super().on_message_complete()

        def _body_too_slow(self) -> None:
            self._body_deadline = None
            if self.transport.is_closing():
                return
            cycle = self.cycle
            if cycle is not None:
                cycle.keep_alive = False
                if not cycle.response_started:
                    self.transport.write(too_slow)
            self.transport.close()

        def _headers_too_slow(self) -> None:
            self._header_deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            for name in ("_header_deadline", "_body_deadline"):
                timer = getattr(self, name)
                if timer is not None:
                    timer.cancel()
                    setattr(self, name, None)
            super().connection_lost(exc)

    return DeadlineProtocol


def create_app(
    scoring: Scoring,
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    body_timeout_s: float = DEFAULT_BODY_TIMEOUT_S,
    info: dict[str, Any] | None = None,
) -> Any:
    """The Starlette app serving ``scoring``."""
    from starlette.applications import Starlette
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import Response
    from starlette.routing import Route

    def reply(status: int, payload: Any) -> Response:
        return Response(
            json.dumps(payload, ensure_ascii=False, allow_nan=False).encode("utf-8"),
            status_code=status,
            media_type="application/json",
        )

    def authorised(request: Request) -> bool:
        if not token:
            return True
        offered = request.headers.get("authorization", "")
        if offered.lower().startswith("bearer "):
            offered = offered[7:].strip()
        else:
            offered = request.headers.get("x-rlvr-token") or request.query_params.get("token") or ""
        return hmac.compare_digest(offered.encode("utf-8", "replace"), token.encode("utf-8"))

    async def read_body(request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                raise BadRequest("bad Content-Length") from None
            if size > max_body_bytes:
                raise _TooLarge()
        chunks: list[bytes] = []
        total = 0
        async for chunk in request.stream():
            total += len(chunk)
            if total > max_body_bytes:
                raise _TooLarge()
            chunks.append(chunk)
        return b"".join(chunks)

    def handler(score: Callable[[Scoring, dict[str, Any]], Awaitable[dict[str, Any]]]) -> Callable[..., Any]:
        async def endpoint(request: Request) -> Response:
            if not authorised(request):
                return reply(401, {"error": "a valid token is required (Authorization: Bearer TOKEN or ?token=)"})
            try:
                try:
                    raw = await asyncio.wait_for(read_body(request), body_timeout_s)
                except asyncio.TimeoutError:
                    response = reply(408, {"error": f"the body did not arrive within {body_timeout_s:g} s"})
                    response.headers["connection"] = "close"
                    return response
                if not raw:
                    raise BadRequest("the body is empty; send a JSON object")
                try:
                    body = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                    raise BadRequest("the body is not valid JSON") from None
                if not isinstance(body, dict):
                    raise BadRequest("the body must be a JSON object")
                return reply(200, await score(scoring, body))
            except ClientDisconnect:
                # The client hung up mid-body: nobody to answer, and nothing for the error log.
                return Response(status_code=400)
            except _TooLarge:
                response = reply(413, {"error": f"the body is larger than the server's cap ({max_body_bytes} bytes)"})
                response.headers["connection"] = "close"  # the unread rest of the body must not be parsed
                return response
            except BadRequest as exc:
                return reply(400, {"error": str(exc)})
            except ValueError as exc:  # NaN rewards, bad values from a row: still the request's fault
                return reply(400, {"error": f"{type(exc).__name__}: {str(exc)[:500]}"})

        return endpoint

    async def health(request: Request) -> Response:
        if not authorised(request):
            return reply(200, {"status": "ok"})
        router = scoring.router
        return reply(
            200,
            {
                "status": "ok",
                "envs": sorted(router.envs),
                "serves_any_id": router.serve_any,
                "task_source": scoring.policy.task_source,
                "allow_envs": list(scoring.policy.allow_envs) if scoring.policy.allow_envs is not None else None,
                **(info or {}),
            },
        )

    async def not_found(request: Request, exc: Exception) -> Response:
        return reply(404, {"error": f"no route {request.url.path}; use POST /get_reward, POST /verify or GET /health"})

    async def wrong_method(request: Request, exc: Exception) -> Response:
        return reply(405, {"error": f"{request.method} is not allowed on {request.url.path}"})

    async def server_bug(request: Request, exc: Exception) -> Response:
        # Only a bug in the server gets here; the trainer must get an answer, not a hung request.
        return reply(500, {"error": f"server error: {type(exc).__name__}: {str(exc)[:300]}"})

    routes = [
        Route("/get_reward", handler(score_openrlhf), methods=["POST"]),
        Route("/verify", handler(score_batch), methods=["POST"]),
        Route("/health", health, methods=["GET"]),
        Route("/", health, methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers={404: not_found, 405: wrong_method, Exception: server_bug})


class RewardServer:
    """The reward server for ``envs`` (ids, env objects, or None for any registered id).

    ``start()`` serves from a background thread (tests, notebooks); ``serve_forever()``
    blocks (the CLI). ``port=0`` picks a free port; ``url`` tells which.

    Args:
        envs: what to serve; ids are made with ``make_kwargs`` (per env: ``env_kwargs``).
        env_kwargs: ``{env id: make kwargs}``, so one env's ``path=`` never reaches another.
        token: required on every request but ``/health`` (default: ``$RLVR_SERVE_TOKEN``);
            binding beyond loopback without a token raises ``ServerConfigError``.
        allow_envs: glob patterns of env ids accepted; task_source: ``label`` or ``dataset``.
        special_tokens: text stripped from queries (default: common chat templates' tokens).
        max_body_bytes: request body cap; idle_timeout_s: keep-alive idle limit (headers must
            arrive within twice it); body_timeout_s: a body must arrive within this of its headers.
        max_connections: open connections at most (default: half the open-files limit, at most
            1024); a connection past it gets 503 and is closed.
        preload: load the served verifiers in every pool worker before serving.
    """

    def __init__(
        self,
        envs: str | Any | Sequence[Any] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 5000,
        shaping: RewardShaping | None = None,
        verbose: bool = False,
        env_kwargs: dict[str, dict[str, Any]] | None = None,
        token: str | None = None,
        allow_envs: Sequence[str] | None = None,
        task_source: str = "label",
        special_tokens: Sequence[str] | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
        body_timeout_s: float = DEFAULT_BODY_TIMEOUT_S,
        max_connections: int | None = None,
        preload: bool = True,
        **make_kwargs: Any,
    ) -> None:
        from rlvr_envs.adapters.routing import EnvRouter

        self.token = token if token is not None else (os.environ.get(TOKEN_ENV) or None)
        if not is_loopback(host) and not self.token:
            raise ServerConfigError(
                f"binding {host} exposes the server beyond this machine, and code labels carry test code that runs "
                f"in the sandbox: set a token (--token or ${TOKEN_ENV}) or bind 127.0.0.1"
            )
        if max_body_bytes < 1:
            raise ServerConfigError("max_body_bytes must be positive")
        if not body_timeout_s > 0:
            raise ServerConfigError("body_timeout_s must be positive")
        if max_connections is None:
            max_connections = default_max_connections()
        if max_connections < 1:
            raise ServerConfigError("max_connections must be at least 1")
        policy = TaskPolicy(tuple(allow_envs) if allow_envs is not None else None, task_source)
        if envs is None and task_source == "dataset":
            raise ServerConfigError("task_source='dataset' needs the envs named (their data is what is accepted)")
        if envs is None:
            if env_kwargs:
                raise ServerConfigError("per-env arguments need the envs named: serve ID [ID ...]")
            router = EnvRouter(None, make_kwargs=make_kwargs, trust_row_verifiers=False, make_unserved=False)
        else:
            items = [envs] if isinstance(envs, str) or not isinstance(envs, Sequence) else list(envs)
            router = _served_router(items, make_kwargs, env_kwargs)
        for env_id in router.envs:
            try:
                policy.check_env(env_id, "--allow-env")
            except BadRequest as exc:
                raise ServerConfigError(f"{exc}: a served env must match --allow-env") from None
        if envs is not None and task_source == "dataset":
            for env in router.envs.values():
                if env.procedural:
                    raise ServerConfigError(f"task_source='dataset' cannot serve {env.env_id}: it has no fixed data")
        self.router: EnvRouter = router
        self.scoring = Scoring(
            router,
            shaping,
            SpecialTokens(tuple(special_tokens) if special_tokens is not None else SpecialTokens().tokens),
            policy,
        )
        if preload:
            router.preload()
        self.app = create_app(
            self.scoring, token=self.token, max_body_bytes=max_body_bytes, body_timeout_s=body_timeout_s
        )
        self.verbose = verbose
        # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted sockets only when the proto says TCP;
        # with proto 0 every keep-alive reply waits out Nagle + delayed ACK (~40 ms), the old server's stall.
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited by accepted sockets (Linux)
        self._socket.bind((host, port))
        self._socket.listen(2048)
        self._socket.setblocking(False)
        self.idle_timeout_s = idle_timeout_s
        self.body_timeout_s = body_timeout_s
        self.max_connections = max_connections
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def shaping(self) -> RewardShaping | None:
        return self.scoring.shaping

    @shaping.setter
    def shaping(self, value: RewardShaping | None) -> None:
        self.scoring.shaping = value

    @property
    def url(self) -> str:
        host, port = self._socket.getsockname()[:2]
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def _uvicorn(self) -> Any:
        import uvicorn

        config = uvicorn.Config(
            self.app,
            http=_protocol_class(max(1.0, self.idle_timeout_s * 2), self.body_timeout_s, self.max_connections),
            log_level="info" if self.verbose else "warning",
            access_log=self.verbose,
            timeout_keep_alive=max(1, round(self.idle_timeout_s)),
            # Connections past max_connections are refused in DeadlineProtocol; this is the same cap
            # for the "auto" protocol (503 once headers are in; +1: uvicorn counts the new one too).
            limit_concurrency=self.max_connections + 1,
            backlog=2048,
            lifespan="off",
            server_header=False,
            date_header=False,
        )
        return uvicorn.Server(config)

    def start(self) -> RewardServer:
        self._server = self._uvicorn()
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, name="rlvr-reward-server", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not self._server.started:
            raise RuntimeError("the reward server did not start")
        return self

    def serve_forever(self) -> None:
        """Serve until Ctrl-C / SIGTERM (uvicorn handles both in the main thread)."""
        import sys

        # The event loop and the pool's slot threads share the GIL: a slot thread whose worker has
        # answered waits up to the switch interval (5 ms by default) for the loop to let go, which
        # is most of a request's latency. This process only serves, so a shorter interval is safe.
        sys.setswitchinterval(0.0005)
        self._server = self._uvicorn()
        self._server.run(sockets=[self._socket])

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> RewardServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _served_router(
    items: Sequence[Any], make_kwargs: dict[str, Any], env_kwargs: dict[str, dict[str, Any]] | None
) -> EnvRouter:
    """A router over the named envs, each made with the shared kwargs plus its own."""
    from rlvr_envs.adapters.routing import EnvRouter

    per_env = dict(env_kwargs or {})
    if not items:
        raise ServerConfigError("name at least one env to serve (or None to serve any registered id)")
    router = EnvRouter(None, make_kwargs=make_kwargs, trust_row_verifiers=False, make_unserved=False)
    router.serve_any = False
    for item in items:
        router.add(item, **per_env.pop(item, {})) if isinstance(item, str) else router.add(item)
    if per_env:
        raise ServerConfigError(f"arguments given for envs that are not served: {sorted(per_env)}")
    return router
