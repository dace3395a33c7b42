"""Route (env id, task, completion[, verifier spec]) rows to a verifier and verify them through the pool."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rlvr_envs.adapters.rows import (
    OnceCache,
    Scorer,
    SpecError,
    default_verifier,
    spec_from_value,
    state_json,
)
from rlvr_envs.errors import RlvrEnvsError
from rlvr_envs.runtime import dispatch
from rlvr_envs.types import Task, Verdict

if TYPE_CHECKING:
    from rlvr_envs.env import Env
    from rlvr_envs.formats import PromptFormat

Row = tuple[Any, ...]
"""``(env_id, task, completion)`` or ``(env_id, task, completion, verifier_spec)``."""


class RoutingError(RlvrEnvsError, ValueError):
    """A row names an env this router cannot verify (a data or configuration mistake)."""


def task_to_json(task: Task) -> str:
    """The task as a JSON string: the column format every adapter uses.

    A string column keeps Arrow/parquet schemas uniform even when answers differ in type
    from one task to the next (an int here, a list of unit tests there).
    """
    return task.model_dump_json()


def task_from_json(value: Task | str | bytes | Mapping[str, Any]) -> Task:
    """Inverse of ``task_to_json``; also accepts a dict or a Task."""
    if isinstance(value, Task):
        return value
    if isinstance(value, (str, bytes)):
        return Task.model_validate_json(value)
    if isinstance(value, Mapping):
        return Task.model_validate(dict(value))
    raise TypeError(f"a task column must hold JSON text or a dict, got {type(value).__name__}")


def _registry_errors() -> tuple[type[BaseException], ...]:
    from rlvr_envs import registration

    return tuple(
        getattr(registration, name)
        for name in ("UnknownEnvError", "RegistrationError", "PluginLoadError", "RegistryError")
        if hasattr(registration, name)
    )


class EnvRouter:
    """Holds the envs one adapter serves and verifies mixed batches in one go.

    Args:
        envs: an id, an ``Env``, a list of them, or None to serve any registered id.
        make_kwargs: keyword arguments for ``rlvr_envs.make`` when the router makes an env.
        trust_row_verifiers: rebuild a row's verifier from the spec it carries (the adapters:
            the rows are the user's own training data). False (the reward server) ignores a
            row's options: a row naming an unserved env is verified with that env's default
            verifier, and refused if it asks for other options.
        make_unserved: when serving any id, make an env from its id for rows that carry no
            usable spec (this may load its data; procedural envs are always made).

    A row's env id may be versioned (``math-arith-v0``) or bare (``math-arith``). A versioned
    id must match the version the router serves: rewards may differ between versions.
    """

    def __init__(
        self,
        envs: str | Env | Sequence[str | Env] | None = None,
        *,
        make_kwargs: Mapping[str, Any] | None = None,
        trust_row_verifiers: bool = True,
        make_unserved: bool = True,
    ) -> None:
        self.make_kwargs = dict(make_kwargs or {})
        self.serve_any = envs is None
        self.trust_row_verifiers = trust_row_verifiers
        self.make_unserved = make_unserved
        self._envs: dict[str, Env] = {}
        self._lock = threading.Lock()
        self._made = OnceCache()  # env id -> Env made on first use (serve_any), built once
        self._scorers = OnceCache()  # (kind, env id, options) -> Scorer
        self._canonical_ids: dict[str, str] = {}  # a row's id -> the registered id it resolves to
        items: Sequence[str | Env]
        if envs is None:
            items = ()
        elif isinstance(envs, str) or not isinstance(envs, Sequence):
            items = [envs]
        else:
            items = envs
        for item in items:
            self.add(item)
        if not self.serve_any and not self._envs:
            raise ValueError("EnvRouter needs at least one env id or env (or envs=None to serve any id)")

    def add(self, env: str | Env, **make_kwargs: Any) -> Env:
        """Serve one more env (an id is made now, so a typo fails at set-up, not mid-training)."""
        from rlvr_envs.env import Env
        from rlvr_envs.registration import make

        if isinstance(env, str):
            env = make(env, **{**self.make_kwargs, **make_kwargs})
        if not isinstance(env, Env):
            raise TypeError(f"expected an env id or an rlvr_envs.Env, got {type(env).__name__}")
        with self._lock:
            self._envs[env.env_id] = env
        return env

    @property
    def envs(self) -> dict[str, Env]:
        return dict(self._envs)

    @property
    def default(self) -> Env | None:
        """The env used for rows without an env id: the only one served, else None."""
        return next(iter(self._envs.values())) if len(self._envs) == 1 else None

    # -- lookup ------------------------------------------------------------------------------------
    def _served(self, env_id: str) -> Env | None:
        from rlvr_envs.registration import parse_id

        exact = self._envs.get(env_id)
        if exact is not None:
            return exact
        try:
            name, version = parse_id(env_id)
        except ValueError as exc:
            raise RoutingError(str(exc)) from None
        for served_id, env in self._envs.items():
            served_name, served_version = parse_id(served_id)
            if served_name == name and (version is None or version == served_version):
                return env
        return None

    def _canonical(self, env_id: str) -> Any:
        """The registry spec of an id this router may make (``RoutingError`` when unknown)."""
        from rlvr_envs.registration import registry

        if not isinstance(env_id, str):
            raise RoutingError(f"an env id must be a string, got {type(env_id).__name__}")
        try:
            return registry.resolve(env_id)
        except _registry_errors() as exc:
            raise RoutingError(f"rows tagged {env_id!r} cannot be verified: {exc}") from None

    def _refuse_unserved(self, env_id: str) -> RoutingError:
        return RoutingError(f"rows tagged {env_id!r} cannot be verified here; this router serves {sorted(self._envs)}")

    def env_for(self, env_id: str | None) -> Env:
        """The env that verifies rows tagged ``env_id``; raises ``RoutingError`` if none does."""
        if env_id is None or env_id == "":
            default = self.default
            if default is None:
                raise RoutingError(
                    f"a row has no env id and this router serves {len(self._envs)} envs "
                    f"({', '.join(self._envs) or 'any id'}); add an env_id column"
                )
            return default
        served = self._served(env_id)
        if served is not None:
            return served
        if not self.serve_any:
            raise self._refuse_unserved(env_id)
        spec = self._canonical(env_id)
        return self._made_env(spec.id)

    def _made_env(self, env_id: str) -> Env:
        from rlvr_envs.registration import make

        def build() -> Env:
            try:
                return make(env_id, **self.make_kwargs)
            except Exception as exc:  # data that cannot be had, a bad option: the row is unusable
                raise RoutingError(f"rows tagged {env_id!r} cannot be verified: {type(exc).__name__}: {exc}") from exc

        return self._made.get(env_id, build)

    def prompt_format_for(self, env_id: str | None, spec: Any = None) -> PromptFormat | None:
        """The prompt format of the env that verifies a row (a mixture's format reward pays each
        row for its own env's layout); None when only a spec names it and it is a family's own."""
        from rlvr_envs.formats import get_format

        scorer = self.scorer_for(env_id, spec)
        if scorer.env is not None:
            return scorer.env.prompt_format
        try:
            return get_format(scorer.prompt_format)
        except ValueError:
            return None

    def scorer_for(self, env_id: str | None, spec: Any = None) -> Scorer:
        """What verifies a row tagged ``env_id`` carrying verifier ``spec`` (``RoutingError`` if nothing)."""
        if env_id is None or env_id == "":
            return self._scorers.get(("env", None), lambda: Scorer.of_env(self.env_for(None)))
        if not isinstance(env_id, str):
            raise RoutingError(f"an env id must be a string, got {type(env_id).__name__}")
        served = self._served(env_id)
        if served is not None:
            return self._scorers.get(("env", served.env_id), lambda: Scorer.of_env(served))
        if not self.serve_any:
            raise self._refuse_unserved(env_id)
        canonical = self._canonical_ids.get(env_id)
        if canonical is None:
            canonical = self._canonical_ids[env_id] = self._canonical(env_id).id
        if spec is None or spec == "":
            return self._scorers.get(("default", canonical), lambda: self._default_scorer(canonical, None))
        # The spec's text is the cache key: a column of identical specs is parsed once, not per row.
        try:
            raw = spec if isinstance(spec, str) else json.dumps(spec, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise RoutingError(f"rows tagged {env_id!r}: the verifier spec is not JSON: {exc}") from None
        if self.trust_row_verifiers:
            return self._scorers.get(("spec", canonical, raw), lambda: self._spec_scorer(canonical, raw))
        return self._scorers.get(("checked", canonical, raw), lambda: self._checked_scorer(canonical, raw))

    def _parse(self, env_id: str, raw: str) -> dict[str, Any]:
        try:
            parsed = spec_from_value(raw)
        except SpecError as exc:
            raise RoutingError(f"rows tagged {env_id!r}: {exc}") from None
        if parsed is None:
            raise RoutingError(f"rows tagged {env_id!r}: the verifier spec is empty")
        return parsed

    def _checked_scorer(self, env_id: str, raw: str) -> Scorer:
        """An untrusted spec: the env's default verifier, if the spec asks for nothing else."""
        parsed = self._parse(env_id, raw)
        key = ("default", env_id, str(parsed.get("class")))  # not the spec-less key: that one may have failed
        scorer = self._scorers.get(key, lambda: self._default_scorer(env_id, parsed))
        if "state" in parsed and state_json(scorer.verifier) != json.dumps(parsed["state"], sort_keys=True):
            raise RoutingError(
                f"rows tagged {env_id!r} ask for verifier options this server does not use; "
                f"start it with the env named and its options (rlvr-envs serve {env_id} --arg ...)"
            )
        return scorer

    def _spec_scorer(self, env_id: str, raw: str) -> Scorer:
        spec = self._parse(env_id, raw)
        try:
            return Scorer.of_spec(env_id, spec)
        except SpecError as exc:
            raise RoutingError(f"rows tagged {env_id!r}: the verifier spec is unusable: {exc}") from None

    def _default_scorer(self, env_id: str, spec: Mapping[str, Any] | None) -> Scorer:
        from rlvr_envs.registration import registry

        try:
            verifier = default_verifier(env_id, spec)
        except SpecError as exc:
            raise RoutingError(f"rows tagged {env_id!r}: {exc}") from None
        if verifier is not None:
            return Scorer(env_id, verifier, float(verifier.time_budget_s), 2_000_000)
        entry = registry.resolve(env_id)
        procedural = entry.size is None and not entry.user_data
        if procedural or self.make_unserved:
            return Scorer.of_env(self._made_env(env_id))
        raise RoutingError(
            f"rows tagged {env_id!r} carry no verifier spec and {env_id} reads a dataset this server was not "
            f"started with; start it with the env named (rlvr-envs serve {env_id} --arg {env_id}:path=...)"
        )

    # -- verification ------------------------------------------------------------------------------
    def _rows(self, rows: Sequence[Row]) -> list[tuple[Scorer, Task, str]]:
        """Each row with what verifies it (``RoutingError`` for the first row that has nothing)."""
        return [(self.scorer_for(row[0], row[3] if len(row) > 3 else None), row[1], row[2]) for row in rows]

    def verify(self, rows: Sequence[Row]) -> list[Verdict]:
        """Verify rows in parallel; results in input order.

        Every pool row of every env is queued before any result is awaited, so one slow or hung
        sample costs its own time budget and never serialises the rest. A row that cannot be
        routed raises ``RoutingError`` before anything is queued. Each row runs where its env's
        ``isolation`` says (``runtime.dispatch``): rows an ``"auto"`` env keeps in process (a
        ``bounded_cheap`` verifier within its cap) are verified here while the pool works on the rest.
        """
        return dispatch.verify_rows(self._rows(rows))

    async def averify(self, rows: Sequence[Row]) -> list[Verdict]:
        """``verify`` for asyncio callers: awaits the pool without blocking the event loop (rows
        verified in process run in a thread)."""
        return await dispatch.averify_rows(self._rows(rows))

    def preload(self) -> None:
        """Get every served env ready now (``Env.preload``: pool workers, inline copies), so no first call waits."""
        for env in self._envs.values():
            env.preload()
