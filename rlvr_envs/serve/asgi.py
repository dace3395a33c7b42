"""The reward server's ASGI app, written against the ASGI interface itself.

Three routes and fixed JSON replies need no framework: a request to ``/get_reward`` goes from
uvicorn's parser to the scoring code with one scan of the headers and one await per body
chunk. (The Starlette app this replaces spent about as much CPU per request in its middleware,
routing and request/response objects as the scoring itself.)

Behaviour: ``POST /get_reward`` and ``POST /verify`` read their body as a stream, refusing it
past ``max_body_bytes`` (413, and a declared ``Content-Length`` over the cap unread) and past
``body_timeout_s`` (408), both with ``connection: close`` so the unread rest is never parsed;
``GET /health`` (and ``/``) answers ``ok``, with the served envs only for a valid token; an
unknown path is 404, a known one with another method 405, malformed input 400 with the reason
and only a bug in the server 500. A token, when set, is required on every route but ``/health``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from rlvr_envs.serve.protocol import BadRequest, score_batch, score_openrlhf

if TYPE_CHECKING:
    from rlvr_envs.serve.protocol import Scoring

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
DEFAULT_BODY_TIMEOUT_S = 30.0
"""A whole body must arrive within this (a 32 MB body at the cap needs about 9 Mbit/s)."""

_JSON_HEADERS = [(b"content-type", b"application/json")]
_CLOSE = [(b"connection", b"close")]
_timeout = getattr(asyncio, "timeout", None)  # Python 3.11+; 3.10 uses wait_for


class _TooLarge(Exception):
    pass


class _Disconnected(Exception):
    pass


_to_json = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode  # made once, not per reply


def encode(payload: Any) -> bytes:
    """``payload`` as JSON bytes; ``ValueError`` for NaN or infinity (never valid JSON)."""
    try:
        return _to_json(payload).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate echoed back from a request: escape it instead
        return json.dumps(payload, allow_nan=False).encode("ascii")


async def respond(send: Send, status: int, payload: Any, close: bool = False) -> None:
    body = payload if isinstance(payload, bytes) else encode(payload)
    headers = [*_JSON_HEADERS, (b"content-length", b"%d" % len(body))]
    if close:
        headers += _CLOSE  # uvicorn then closes the connection after the reply
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def create_app(
    scoring: Scoring,
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    body_timeout_s: float | None = DEFAULT_BODY_TIMEOUT_S,
    info: dict[str, Any] | None = None,
    averify: Callable[[Any], Awaitable[Any]] | None = None,
) -> Callable[[dict[str, Any], Receive, Send], Awaitable[None]]:
    """The ASGI app serving ``scoring``.

    ``averify`` verifies router rows (default: the router's own). ``body_timeout_s=None`` leaves
    the body deadline to the HTTP protocol (the server's own protocol class times every body).
    """
    secret = token.encode("utf-8") if token else None
    too_large = {"error": f"the body is larger than the server's cap ({max_body_bytes} bytes)"}
    too_slow = {"error": f"the body did not arrive within {body_timeout_s or 0:g} s"}
    no_token = {"error": "a valid token is required (Authorization: Bearer TOKEN or ?token=)"}

    def authorised(scope: dict[str, Any], bearer: bytes | None, header: bytes | None) -> bool:
        if secret is None:
            return True
        if bearer is not None and bearer[:7].lower() == b"bearer ":
            offered = bearer[7:].strip()
        elif header:
            offered = header
        else:
            query = scope.get("query_string") or b""
            values = parse_qs(query.decode("latin-1")).get("token") if b"token" in query else None
            offered = values[0].encode("utf-8", "replace") if values else b""
        return hmac.compare_digest(offered, secret)

    async def read_body(receive: Receive) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Disconnected()
            chunk = message.get("body", b"")
            if chunk:
                total += len(chunk)
                if total > max_body_bytes:
                    raise _TooLarge()
                chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    async def timed_body(receive: Receive) -> bytes:
        if body_timeout_s is None:
            return await read_body(receive)
        if _timeout is None:  # pragma: no cover - Python 3.10
            return await asyncio.wait_for(read_body(receive), body_timeout_s)
        async with _timeout(body_timeout_s):
            return await read_body(receive)

    def poster(score: Callable[..., Awaitable[dict[str, Any]]]) -> Callable[..., Awaitable[None]]:
        async def endpoint(scope: dict[str, Any], receive: Receive, send: Send) -> None:
            declared = bearer = header = None
            coded: list[bytes] = []
            for name, value in scope["headers"]:
                if name == b"content-length":
                    declared = value
                elif name == b"authorization":
                    bearer = value
                elif name == b"x-rlvr-token":
                    header = value
                elif name == b"content-encoding":
                    coded.append(value)
            if not authorised(scope, bearer, header):
                return await respond(send, 401, no_token)
            # A compressed body is refused unread, never inflated: a few kB of gzip or deflate can
            # inflate past the body cap (which counts the bytes received), and no trainer client
            # sends one. Every Content-Encoding header counts, so "identity" beside "gzip" is no way in.
            if any(v.strip().lower() not in (b"", b"identity") for v in coded):
                shown = b", ".join(coded).decode("latin-1")[:60]
                return await respond(
                    send, 415, {"error": f"Content-Encoding {shown!r} is not accepted: send plain JSON"}, close=True
                )
            try:
                if declared is not None:
                    try:
                        size = int(declared)
                    except ValueError:
                        raise BadRequest("bad Content-Length") from None
                    if size > max_body_bytes:
                        raise _TooLarge()
                try:
                    raw = await timed_body(receive)
                except (TimeoutError, asyncio.TimeoutError):
                    return await respond(send, 408, too_slow, close=True)
                if not raw:
                    raise BadRequest("the body is empty; send a JSON object")
                try:
                    body = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                    raise BadRequest("the body is not valid JSON") from None
                if not isinstance(body, dict):
                    raise BadRequest("the body must be a JSON object")
                reply = encode(await score(scoring, body, averify))
            except _Disconnected:
                return None  # the client hung up mid-body: nobody to answer, nothing to log
            except _TooLarge:
                return await respond(send, 413, too_large, close=True)  # the unread rest must not be parsed
            except BadRequest as exc:
                return await respond(send, 400, {"error": str(exc)})
            except ValueError as exc:  # NaN rewards, bad values from a row: still the request's fault
                return await respond(send, 400, {"error": f"{type(exc).__name__}: {str(exc)[:500]}"})
            return await respond(send, 200, reply)

        return endpoint

    async def health(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"])
        if not authorised(scope, headers.get(b"authorization"), headers.get(b"x-rlvr-token")):
            return await respond(send, 200, {"status": "ok"})
        router = scoring.router
        policy = scoring.policy
        await respond(
            send,
            200,
            {
                "status": "ok",
                "envs": sorted(router.envs),
                "serves_any_id": router.serve_any,
                "task_source": policy.task_source,
                "allow_envs": list(policy.allow_envs) if policy.allow_envs is not None else None,
                **(info or {}),
            },
        )

    posting = {"/get_reward": poster(score_openrlhf), "/verify": poster(score_batch)}
    getting = {"/health": health, "/": health}

    async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan is off and websockets are not served
            return
        path = scope["path"]
        method = scope["method"]
        route = posting.get(path) if method == "POST" else getting.get(path) if method in ("GET", "HEAD") else None
        try:
            if route is not None:
                return await route(scope, receive, send)
            if path in posting or path in getting:
                return await respond(send, 405, {"error": f"{method} is not allowed on {path}"})
            return await respond(
                send, 404, {"error": f"no route {path}; use POST /get_reward, POST /verify or GET /health"}
            )
        except Exception as exc:  # only a bug in the server gets here; the trainer needs an answer
            return await respond(send, 500, {"error": f"server error: {type(exc).__name__}: {str(exc)[:300]}"})

    return app
