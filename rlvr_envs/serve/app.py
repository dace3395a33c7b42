"""The reward server: an ASGI app (``rlvr_envs.serve.asgi``) under uvicorn over the verification pool.

Routes: ``POST /get_reward`` (OpenRLHF), ``POST /verify`` (our batch schema), ``GET /health``.
Bodies are read as a stream and refused past ``max_body_bytes`` (413, before the rest is read; a
``Content-Length`` over the cap is refused unread), so a huge or endless body costs at most the cap
in memory. A body with a ``Content-Encoding`` other than ``identity`` is refused unread (415,
connection closed): it is never inflated, so a small gzip bomb cannot pass the cap. Idle keep-alive
connections close after ``idle_timeout_s``, a request's headers must arrive within twice that, and
its body within ``body_timeout_s`` of the headers (408, then the connection is closed, whichever
route it was for); past ``max_connections`` open connections a new one gets 503 and is closed at
once, so stalled clients cannot use up the open-files limit. A token, when set, is required on every
route but ``/health`` (``Authorization: Bearer``, ``X-RLVR-Token`` or ``?token=`` for clients such
as OpenRLHF that cannot set headers); binding beyond loopback without one is refused at start.

Per request, the server does as little as it can beside the pool's own work: the rows of all
requests that arrive in one turn of the event loop go to the pool in one call per verifier and
come back to the loop itself, which drives the pool's workers with no thread between
(``rlvr_envs.serve.batch``, ``rlvr_envs.runtime.local.lanes``), a
label seen before is not parsed again, and a reply's head and body leave in one write.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import socket
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rlvr_envs.adapters.failures import FailurePolicy
from rlvr_envs.errors import RlvrEnvsError
from rlvr_envs.serve.asgi import DEFAULT_BODY_TIMEOUT_S, DEFAULT_MAX_BODY_BYTES, create_app
from rlvr_envs.serve.batch import Batcher
from rlvr_envs.serve.protocol import BadRequest, Scoring, SpecialTokens, TaskPolicy

if TYPE_CHECKING:
    from rlvr_envs.adapters.routing import EnvRouter
    from rlvr_envs.shaping import RewardShaping

TOKEN_ENV = "RLVR_SERVE_TOKEN"
DEFAULT_IDLE_TIMEOUT_S = 5.0
DEFAULT_MAX_CALL_S = 150.0
"""Most seconds one verification may take behind the server: under OpenRLHF's client timeout
(180 s per request, ``openrlhf.utils.remote_rm_utils``) with room for the request's own transfer."""


def cap_budgets(router: EnvRouter, max_call_s: float) -> None:
    """Hold every verification the router runs to ``max_call_s``: the served envs' pool budgets, the
    budgets of scorers made later for other ids, and verifiers that bound themselves (a judge's
    client timeouts and retries, ``fit_budget``) since those run in process with no pool to kill them."""

    def cap(budget_owner: Any) -> None:
        if budget_owner.time_budget_s > max_call_s:
            budget_owner.time_budget_s = max_call_s

    def fit(verifier: Any) -> None:
        fit_budget = getattr(verifier, "fit_budget", None)
        if callable(fit_budget):
            fit_budget(max_call_s)

    for env in router.envs.values():
        cap(env)
        fit(env.verifier)
    original = router.scorer_for

    def scorer_for(env_id: str | None, spec: Any = None) -> Any:
        # Scorers for ids the server was not started with are made lazily (serve-any): cap each one
        # as it is handed out (the router caches them, so this runs once per scorer in effect).
        scorer = original(env_id, spec)
        if scorer.time_budget_s > max_call_s:
            fit(scorer.verifier)
            cap(scorer)
        return scorer

    router.scorer_for = scorer_for  # type: ignore[method-assign]


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


class ServerConfigError(RlvrEnvsError, ValueError):
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


class _CoalescingTransport(asyncio.Transport):
    """A connection's transport whose writes within one turn of the event loop go out as one.

    uvicorn writes a reply's head and its body separately: two sends, and with ``TCP_NODELAY``
    two packets and two wake-ups of the client per reply. Held until the end of the turn they
    are one send (pipelined replies of that turn too). ``close`` sends what is held first.
    """

    def __init__(self, inner: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._inner = inner
        self._loop = loop
        self._held: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._held:
            self._loop.call_soon(self._flush)
        self._held.append(bytes(data))

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def _flush(self) -> None:
        held, self._held = self._held, []
        if held and not self._inner.is_closing():
            self._inner.write(held[0] if len(held) == 1 else b"".join(held))

    def close(self) -> None:
        self._flush()
        self._inner.close()

    def abort(self) -> None:
        self._held = []
        self._inner.abort()

    def is_closing(self) -> bool:
        return self._inner.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._inner.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self._inner.pause_reading()

    def resume_reading(self) -> None:
        self._inner.resume_reading()

    def is_reading(self) -> bool:
        return self._inner.is_reading()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._inner.set_write_buffer_limits(high, low)

    def get_write_buffer_size(self) -> int:
        return self._inner.get_write_buffer_size() + sum(len(data) for data in self._held)

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._inner.get_write_buffer_limits()

    def can_write_eof(self) -> bool:
        return self._inner.can_write_eof()

    def write_eof(self) -> None:
        self._flush()
        self._inner.write_eof()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._inner.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._inner.get_protocol()


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
        # One timer per connection for its three deadlines (idle, headers, body), re-armed only when
        # it fires: a request moves the deadlines by setting numbers. (A timer made and cancelled for
        # each deadline of each request, uvicorn's keep-alive one included, was six timer operations
        # a request, a fair share of the HTTP layer's CPU.) None: that deadline is not running.
        _idle_due: float | None = None
        _header_due: float | None = None
        _body_due: float | None = None
        _timer: Any = None
        _timer_at = 0.0

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if max_connections is not None and len(self.connections) > max_connections:
                transport.write(busy)
                transport.close()
                return
            # Read by each request's cycle, made after this; flow control keeps the real transport.
            self.transport = _CoalescingTransport(transport, self.loop)
            # No bytes yet: the idle deadline (lifted by the first data) closes a silent connection.
            self._idle_due = self.loop.time() + self.timeout_keep_alive
            self._arm(self._idle_due)

        def _arm(self, due: float) -> None:
            """Have the timer fire by ``due`` (a timer due sooner is kept: it re-arms when it fires)."""
            timer = self._timer
            if timer is not None:
                if self._timer_at <= due:
                    return
                timer.cancel()
            self._timer_at = due
            self._timer = self.loop.call_later(max(0.0, due - self.loop.time()), self._on_timer)

        def _on_timer(self) -> None:
            self._timer = None
            if self.transport.is_closing():
                return
            now = self.loop.time()
            if self._header_due is not None and self._header_due <= now:
                return self._headers_too_slow()
            if self._body_due is not None and self._body_due <= now:
                return self._body_too_slow()
            if self._idle_due is not None and self._idle_due <= now:
                self._idle_due = None
                return self.timeout_keep_alive_handler()
            dues = [due for due in (self._idle_due, self._header_due, self._body_due) if due is not None]
            if dues:
                self._arm(min(dues))

        def _unset_keepalive_if_required(self) -> None:
            # uvicorn's: data came in (or the connection ended), so the idle deadline is off.
            self._idle_due = None
            super()._unset_keepalive_if_required()  # a timer of uvicorn's own, should it make one

        def on_response_complete(self) -> None:
            # uvicorn's, with the idle deadline set instead of a timer made for each reply.
            self.server_state.total_requests += 1
            if self.transport.is_closing():
                return
            self._idle_due = None
            self.flow.resume_reading()
            if self.pipeline:  # a pipelined request waits: start it
                cycle, app = self.pipeline.pop()
                self._start_asgi_task(cycle, app)
            else:
                self._idle_due = self.loop.time() + self.timeout_keep_alive
                self._arm(self._idle_due)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if self._header_due is None:
                self._header_due = self.loop.time() + header_timeout_s
                self._arm(self._header_due)

        def on_headers_complete(self) -> None:
            self._header_due = None
            super().on_headers_complete()
            # Lifted by on_message_complete, which for a body-less request follows at once.
            if self._body_due is None:
                self._body_due = self.loop.time() + body_timeout_s
                self._arm(self._body_due)

        def on_message_complete(self) -> None:
            self._body_due = None
            super().on_message_complete()

        def _body_too_slow(self) -> None:
            self._body_due = None
            if self.transport.is_closing():
                return
            cycle = self.cycle
            if cycle is not None:
                cycle.keep_alive = False
                if not cycle.response_started:
                    self.transport.write(too_slow)
            self.transport.close()

        def _headers_too_slow(self) -> None:
            self._header_due = None
            if not self.transport.is_closing():
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._idle_due = self._header_due = self._body_due = None
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            super().connection_lost(exc)

    return DeadlineProtocol


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
        max_call_s: most seconds one verification may take (default 150, under OpenRLHF's 180 s
            client timeout): pool budgets above it are lowered, and a judge's client timeouts and
            retries are fitted inside it (``cap_budgets``). Rows queued behind others still wait.
        on_error: what ``/get_reward`` pays for a ``verifier_error``: ``"fail"`` (default; after
            ``max_consecutive_errors`` in a row the request gets an HTTP error naming the cause),
            ``"zero"`` (0.0, flagged), or a ``FailurePolicy``. ``/verify`` returns verdicts as they are.
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
        max_call_s: float = DEFAULT_MAX_CALL_S,
        on_error: FailurePolicy | str | None = None,
        max_consecutive_errors: int | None = None,
        **make_kwargs: Any,
    ) -> None:
        from rlvr_envs.adapters.routing import EnvRouter

        if not 0 < max_call_s <= 3600:
            raise ServerConfigError(f"max_call_s must be in (0, 3600], got {max_call_s}")
        if max_consecutive_errors is not None and not isinstance(on_error, FailurePolicy):
            on_error = FailurePolicy(on_error or "fail", max_consecutive_errors, name="OpenRLHF /get_reward")
        try:
            failures = FailurePolicy.of(on_error, "OpenRLHF /get_reward", can_skip=False)
        except ValueError as exc:
            raise ServerConfigError(str(exc)) from None

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
        cap_budgets(router, max_call_s)
        self.max_call_s = max_call_s
        self.router: EnvRouter = router
        self.scoring = Scoring(
            router,
            shaping,
            SpecialTokens(tuple(special_tokens) if special_tokens is not None else SpecialTokens().tokens),
            policy,
            failures=failures,
        )
        if preload:
            router.preload()  # pool workers and inline copies: the first request waits for neither
        self.idle_timeout_s = idle_timeout_s
        self.body_timeout_s = body_timeout_s
        self.max_connections = max_connections
        self._protocol = _protocol_class(max(1.0, idle_timeout_s * 2), body_timeout_s, max_connections)
        self.batcher = Batcher(router)
        self.app = create_app(
            self.scoring,
            token=self.token,
            max_body_bytes=max_body_bytes,
            # The deadline protocol times every body (408, then close) whatever the route: a second
            # timer per request in the app would only cost time. uvicorn's own protocols need it.
            body_timeout_s=body_timeout_s if self._protocol == "auto" else None,
            averify=self.batcher.averify,
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
            http=self._protocol,
            log_level="info" if self.verbose else "warning",
            access_log=self.verbose,
            timeout_keep_alive=max(1, round(self.idle_timeout_s)),
            # Connections past max_connections are refused in DeadlineProtocol; this is the same cap
            # for the "auto" protocol (503 once headers are in; +1: uvicorn counts the new one too).
            limit_concurrency=self.max_connections + 1,
            backlog=2048,
            lifespan="off",
            ws="none",  # no websocket routes: an upgrade request is answered as plain HTTP
            proxy_headers=False,  # no proxy in front to trust; skips a middleware layer per request
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
        try:
            self._server.run(sockets=[self._socket])
        finally:
            self.batcher.close()

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.batcher.close()  # the workers its loop drove: that loop has ended
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
