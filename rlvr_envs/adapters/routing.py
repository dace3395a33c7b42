"""Route (env id, task, completion) rows to the right env and verify them through its pool."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from rlvr_envs.types import Task, Verdict

if TYPE_CHECKING:
    from rlvr_envs.env import Env


class RoutingError(ValueError):
    """A row names an env this router does not serve (a data or configuration mistake)."""


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


class EnvRouter:
    """Holds the envs one adapter serves and verifies mixed batches in one go.

    Args:
        envs: an id, an ``Env``, a list of them, or None to serve any registered id (each made
            on first use with ``make_kwargs``).
        make_kwargs: keyword arguments for ``rlvr_envs.make`` when the router makes an env.

    A row's env id may be versioned (``math-arith-v0``) or bare (``math-arith``). A versioned
    id must match the version the router serves: rewards may differ between versions.
    """

    def __init__(
        self,
        envs: str | Env | Sequence[str | Env] | None = None,
        *,
        make_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        self.make_kwargs = dict(make_kwargs or {})
        self.serve_any = envs is None
        self._envs: dict[str, Env] = {}
        self._lock = threading.Lock()
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

    def add(self, env: str | Env) -> Env:
        """Serve one more env (an id is made now, so a typo fails at set-up, not mid-training)."""
        from rlvr_envs.env import Env
        from rlvr_envs.registration import make

        if isinstance(env, str):
            env = make(env, **self.make_kwargs)
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

    def env_for(self, env_id: str | None) -> Env:
        """The env that verifies rows tagged ``env_id``; raises ``RoutingError`` if none does."""
        from rlvr_envs.registration import parse_id

        if env_id is None or env_id == "":
            default = self.default
            if default is None:
                raise RoutingError(
                    f"a row has no env id and this router serves {len(self._envs)} envs "
                    f"({', '.join(self._envs) or 'any id'}); add an env_id column"
                )
            return default
        exact = self._envs.get(env_id)
        if exact is not None:
            return exact
        name, version = parse_id(env_id)
        for served_id, env in self._envs.items():
            served_name, served_version = parse_id(served_id)
            if served_name == name and (version is None or version == served_version):
                return env
        if self.serve_any:
            with self._lock:
                exact = self._envs.get(env_id)
            return exact if exact is not None else self.add(env_id)
        raise RoutingError(f"rows tagged {env_id!r} cannot be verified here; this router serves {sorted(self._envs)}")

    def verify(self, rows: Sequence[tuple[str | None, Task, object]]) -> list[Verdict]:
        """Verify ``(env_id, task, completion)`` rows in parallel; results in input order.

        Every row of every env is queued before any result is awaited, so one slow or hung
        sample costs its own time budget and never serialises the rest.
        """
        envs = [self.env_for(env_id) for env_id, _, _ in rows]
        pending: list[Future[Verdict] | Verdict] = []
        for env, (_, task, completion) in zip(envs, rows):
            if env.isolation == "inline":
                pending.append(env.verify(task, completion))  # type: ignore[arg-type]
            else:
                pending.append(
                    env.pool.submit(
                        env.verifier,
                        task,
                        completion,  # type: ignore[arg-type]
                        timeout_s=env.time_budget_s,
                        max_completion_chars=env.max_completion_chars,
                    )
                )
        return [p if isinstance(p, Verdict) else p.result() for p in pending]
