"""The episode server: OpenEnv's own app (``openenv.core.env_server.create_app``) for one env,
behind a guard that adds what the reward server (``rlvr-envs serve``) promises.

OpenEnv's app gives the routes its clients drive (``/ws`` sessions: reset/step/state/close;
``/reset``, ``/step`` one-shot over HTTP; ``/health``, ``/schema``, ``/metadata``). Its sessions
are one env per WebSocket, closed when the socket closes. ``SessionGuard`` (plain ASGI, in front)
adds:

- **routes**: only those a client of a plain env uses (``SERVED_PATHS``); ``/mcp`` (sessions over
  HTTP that no socket would close), the task API and the docs answer 404.
- **token**: when set (``--token`` / ``$RLVR_SERVE_TOKEN``), every route but ``/health`` needs it
  (``Authorization: Bearer``, ``X-RLVR-Token`` or ``?token=``): 401 over HTTP, a refused
  handshake (HTTP 401) over WebSocket. A bind beyond loopback without a token is refused at
  start (``ServerConfigError``), as ``serve`` does.
- **capacity**: past ``max_sessions`` open sessions a new WebSocket handshake is answered
  **503** (not accepted then closed), so clients can tell "full" from "broken" and retry. The
  one-shot HTTP routes that build an env for the request (``/reset``, ``/step``, ``/state``,
  ``/metadata``: OpenEnv makes a fresh env, answers and closes it) are sessions too while they
  run: they count against the same limit and are answered 503 when it is reached, so no mix
  of sockets and HTTP calls holds more than ``max_sessions`` envs (and their tool sessions).
- **idle reaping**: a session whose client sends nothing for ``idle_timeout_s`` is ended (the
  app sees a disconnect, closes the env and its tool sessions, and closes the socket with 1001).
  OpenEnv's own reaper skips sessions with a socket attached; this one does not.
- **bodies** (the reward server's bounds, ``serve.asgi``): the body of an env route is read
  here, before the request takes a session, and refused past ``max_body_bytes`` (413; a declared
  ``Content-Length`` over it unread) or when it has not all arrived within ``body_timeout_s``
  (408). Before (round 15), OpenEnv read any body whole (50 MB took 0.7 s of the server) and a
  client that sent its headers and then trickled its body held a session while it did, so
  ``max_sessions`` such clients answered every other one 503 for as long as they liked. A
  WebSocket message is bounded by uvicorn's ``ws_max_size``, set to the same cap.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from rlvr_envs.serve.app import TOKEN_ENV, ServerConfigError, is_loopback
from rlvr_envs.serve.asgi import DEFAULT_BODY_TIMEOUT_S, DEFAULT_MAX_BODY_BYTES

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

OPEN_PATHS = frozenset({"/health"})
# The routes an OpenEnv client of a plain (non-MCP) env uses. Everything else OpenEnv mounts is
# answered 404: /mcp would open sessions over HTTP that no socket closes, and the task API and
# the docs are not part of the protocol.
SERVED_PATHS = frozenset({"/ws", "/reset", "/step", "/state", "/health", "/schema", "/metadata"})
# The HTTP routes for which OpenEnv builds an env (made, used once, closed): each request is a
# session while it runs and counts against ``max_sessions``.
ENV_PATHS = frozenset({"/reset", "/step", "/state", "/metadata"})


def offered_token(scope: Scope) -> bytes:
    """The token a request offers: Bearer header, X-RLVR-Token header, or ``?token=``."""
    header = b""
    for name, value in scope.get("headers") or []:
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return bytes(value[7:].strip())
        if name == b"x-rlvr-token":
            header = bytes(value)
    if header:
        return header
    query = scope.get("query_string") or b""
    values = parse_qs(query.decode("latin-1")).get("token") if b"token" in query else None
    return values[0].encode("utf-8", "replace") if values else b""


class SessionGuard:
    """ASGI middleware: token, WebSocket session capacity (503) and idle reaping."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_sessions: int,
        idle_timeout_s: float | None,
        token: str | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        body_timeout_s: float = DEFAULT_BODY_TIMEOUT_S,
    ) -> None:
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        if idle_timeout_s is not None and idle_timeout_s <= 0:
            raise ValueError("idle_timeout_s must be positive (or None: never)")
        if max_body_bytes < 1 or not body_timeout_s > 0:
            raise ValueError("max_body_bytes and body_timeout_s must be positive")
        self.app = app
        self.max_sessions = max_sessions
        self.idle_timeout_s = idle_timeout_s
        self.max_body_bytes = max_body_bytes
        self.body_timeout_s = body_timeout_s
        self._secret = token.encode("utf-8") if token else None
        self.open_sessions = 0
        self.refused_full = 0
        self.reaped_idle = 0
        self.refused_body = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        if scope.get("path") not in SERVED_PATHS:
            return await self._deny(scope, send, 404, "no such route")
        if self._secret is not None and scope.get("path") not in OPEN_PATHS:
            if not hmac.compare_digest(offered_token(scope), self._secret):
                return await self._deny(scope, send, 401, "a valid token is required (Authorization: Bearer TOKEN)")
        if kind == "http" and scope.get("path") not in ENV_PATHS:
            return await self.app(scope, receive, send)
        if kind == "http":
            # The whole body first, bounded, and before a session is taken: a slow or huge body
            # costs the cap and the timeout, never an env nor a slot other clients are refused for.
            read = await self._body(scope, receive)
            if isinstance(read, tuple):
                self.refused_body += 1
                return await self._deny(scope, send, *read)
            if read is None:
                return None  # the client left mid-body: nobody to answer
            receive = _replay(read, receive)
        if self.open_sessions >= self.max_sessions:
            self.refused_full += 1
            return await self._deny(scope, send, 503, f"the server is full ({self.max_sessions} sessions); retry later")
        self.open_sessions += 1
        try:
            await self.app(scope, receive if kind == "http" else self._idle_bounded(receive), send)
        finally:
            self.open_sessions -= 1

    async def _body(self, scope: Scope, receive: Receive) -> bytes | tuple[int, str] | None:
        """The request's body; (status, error) to refuse it; None when the client disconnected."""
        too_large = (413, f"the body is larger than the server's cap ({self.max_body_bytes} bytes)")
        for name, value in scope.get("headers") or []:
            if name == b"content-length":
                try:
                    if int(value) > self.max_body_bytes:
                        return too_large  # refused unread
                except ValueError:
                    return (400, "bad Content-Length")
        chunks: list[bytes] = []
        total = 0
        deadline = asyncio.get_running_loop().time() + self.body_timeout_s
        while True:
            left = deadline - asyncio.get_running_loop().time()
            try:
                if left <= 0:
                    raise asyncio.TimeoutError
                message = await asyncio.wait_for(receive(), left)
            except asyncio.TimeoutError:
                return (408, f"the body did not arrive within {self.body_timeout_s:g} s")
            if message.get("type") == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            total += len(chunk)
            if total > self.max_body_bytes:
                return too_large
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _idle_bounded(self, receive: Receive) -> Receive:
        if self.idle_timeout_s is None:
            return receive
        timeout = self.idle_timeout_s
        connected = False

        async def bounded() -> Message:
            nonlocal connected
            if not connected:  # the handshake message is not the client's idleness
                connected = True
                return await receive()
            try:
                return await asyncio.wait_for(receive(), timeout)
            except asyncio.TimeoutError:
                self.reaped_idle += 1
                return {"type": "websocket.disconnect", "code": 1001, "reason": "idle"}

        return bounded

    @staticmethod
    async def _deny(scope: Scope, send: Send, status: int, error: str) -> None:
        body = json.dumps({"error": error}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if status in (408, 413):
            headers.append((b"connection", b"close"))  # the unread rest of the body must not be parsed
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
        elif "websocket.http.response" in (scope.get("extensions") or {}):
            await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
            await send({"type": "websocket.http.response.body", "body": body})
        else:  # a server without the denial extension: refuse the handshake (1013: try again later)
            await send({"type": "websocket.close", "code": 1013 if status == 503 else 1008})


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` for the app: the body read already, then the client's own messages (a disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def create_episode_app(
    env_id: str,
    *,
    max_sessions: int = 256,
    idle_timeout_s: float | None = 300.0,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    body_timeout_s: float = DEFAULT_BODY_TIMEOUT_S,
    **make_kwargs: Any,
) -> SessionGuard:
    """OpenEnv's app serving ``env_id``'s episodes (``make_kwargs`` to ``rlvr_envs.make``, e.g.
    ``tools=["calculator"]``, ``max_turns=4``), behind ``SessionGuard``."""
    from openenv.core.env_server import create_app

    from rlvr_envs.serve.episodes.environment import (
        EpisodeAction,
        EpisodeObservation,
        EpisodeState,
        environment_factory,
    )

    factory = environment_factory(env_id, **make_kwargs)
    app = create_app(
        factory,
        EpisodeAction,
        EpisodeObservation,
        env_name=env_id,
        max_concurrent_envs=max_sessions,
        state_cls=EpisodeState,
    )
    return SessionGuard(
        app,
        max_sessions=max_sessions,
        idle_timeout_s=idle_timeout_s,
        token=token,
        max_body_bytes=max_body_bytes,
        body_timeout_s=body_timeout_s,
    )


def check_bind(host: str, token: str | None) -> str | None:
    """The token to require (argument, else ``$RLVR_SERVE_TOKEN``); a bind beyond loopback
    without one raises ``ServerConfigError``."""
    token = token if token is not None else (os.environ.get(TOKEN_ENV) or None)
    if not is_loopback(host) and not token:
        raise ServerConfigError(
            f"binding {host!r} (beyond loopback) needs a token: anyone who reaches the port could run tools "
            f"in the sandbox: set a token (--token or ${TOKEN_ENV}) or bind 127.0.0.1"
        )
    return token


def serve_episodes(
    env_id: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    max_sessions: int = 256,
    idle_timeout_s: float | None = 300.0,
    **make_kwargs: Any,
) -> None:
    """Run the episode server under uvicorn until interrupted."""
    import uvicorn

    token = check_bind(host, token)
    app = create_episode_app(
        env_id, max_sessions=max_sessions, idle_timeout_s=idle_timeout_s, token=token, **make_kwargs
    )
    uvicorn.run(app, host=host, port=port, log_level="warning", ws="websockets-sansio", ws_max_size=app.max_body_bytes)
