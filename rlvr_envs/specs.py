"""What the registry knows about one versioned id, and the checks a registration must pass.

``EnvSpec`` holds data only (the entry point is a string until an env is made), so listing
every installed id imports no family. ``check_registration`` rejects a malformed registration
at once: a misspelt metadata keyword (``data_sorce=``) must not slip through as an env
default and surface, if ever, as a ``TypeError`` deep inside ``make``.
"""

from __future__ import annotations

import difflib
import keyword
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.errors import RegistrationError

_ID_PATTERN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9_.\-]*?)(?:-v(?P<version>\d+))?$")
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")

GYMNASIUM_NAMESPACE = "rlvr_envs"
"""Our ids in Gymnasium's registry: ``gymnasium.make("rlvr_envs/math-aime-v0")``."""


def parse_id(env_id: str) -> tuple[str, int | None]:
    """Split ``"math-aime-v0"`` into ``("math-aime", 0)``; a bare name gives version None."""
    if not isinstance(env_id, str):
        raise RegistrationError(f"environment ids are strings, got {type(env_id).__name__}")
    match = _ID_PATTERN.match(env_id)
    if match is None:
        raise RegistrationError(
            f"malformed environment id {env_id!r}: expected 'family-name-vN' (letters, digits, '_', '-', '.')"
        )
    version = match.group("version")
    return match.group("name"), None if version is None else int(version)


def check_entry_point(entry_point: object, env_id: str) -> None:
    """An entry point is a callable or ``"package.module:attribute"`` (checked without importing)."""
    if callable(entry_point):
        return
    if not isinstance(entry_point, str):
        raise RegistrationError(f"entry point for {env_id!r} must be 'module:attr' or a callable")
    module, sep, attr = entry_point.partition(":")
    if not sep or not _DOTTED.match(module) or not _DOTTED.match(attr):
        raise RegistrationError(
            f"entry point for {env_id!r} must look like 'package.module:attribute', got {entry_point!r}"
        )


@dataclass(frozen=True)
class EnvSpec:
    """Everything the registry knows about one versioned id, without importing its code."""

    id: str
    name: str
    version: int
    entry_point: str | Callable[..., Any]
    family: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    """Defaults handed to the entry point; ``make(id, **kw)`` overrides them."""
    description: str = ""
    data_source: str = ""
    size: int | None = None
    """Number of tasks, or None for a procedural (unbounded) env or one over the user's data."""
    user_data: bool = False
    """True for a generic id whose tasks come from the user (``make(id, data=...)``)."""
    difficulty_fields: tuple[str, ...] = ()
    deprecated: str | None = None
    plugin: str | None = None
    distinct_tasks: int | Mapping[int, int] | None = None
    """For a procedural env whose task space is small: how many distinct tasks it can make
    (an int, or per level); ``sample(n)`` repeats tasks beyond that and ``rlvr-envs list`` says so."""

    @property
    def size_label(self) -> str:
        if self.size is not None:
            return str(self.size)
        return "user data" if self.user_data else "procedural"

    @property
    def gymnasium_id(self) -> str:
        return f"{GYMNASIUM_NAMESPACE}/{self.id}"

    def distinct_label(self) -> str | None:
        """``"510 distinct tasks at level 2"``-style note, or None when the space is not small."""
        if self.distinct_tasks is None:
            return None
        if isinstance(self.distinct_tasks, Mapping):
            parts = ", ".join(f"level {lv}: {n}" for lv, n in sorted(self.distinct_tasks.items()))
            return f"distinct tasks by level ({parts}); sample() repeats beyond that"
        return f"{self.distinct_tasks} distinct tasks; sample() repeats beyond that"

    def to_gymnasium(self, kwargs: Mapping[str, Any] | None = None) -> Any:
        """This spec as Gymnasium's ``EnvSpec`` (what ``env.spec`` holds), id ``rlvr_envs/<id>``.

        Its entry point is ``rlvr_envs.gym:make_env``, so ``gymnasium.make(env.spec)`` rebuilds
        the env through our registry. Imports gymnasium (the caller has made an env already).
        """
        from gymnasium.envs.registration import EnvSpec as GymSpec

        return GymSpec(
            id=self.gymnasium_id,
            entry_point="rlvr_envs.gym:make_env",
            nondeterministic=False,
            disable_env_checker=True,  # text spaces; rlvr_envs.testing.check_env is the checker
            kwargs={"rlvr_id": self.id, **_plain_kwargs(self.kwargs if kwargs is None else kwargs)},
        )


def _plain_kwargs(kwargs: Mapping[str, Any], budget: int = 10_000) -> dict[str, Any]:
    """The kwargs Gymnasium can copy and rebuild from: plain data (JSON-like, paths), nothing live.

    ``gymnasium.make(spec)`` deep-copies the kwargs; a pool, a sampler or a ``datasets`` object
    does not belong there (rebuilding without it gives the default), nor does a huge row list.
    """
    from pathlib import PurePath

    left = [budget]

    def plain(value: Any) -> bool:
        left[0] -= 1
        if left[0] < 0:
            return False
        if value is None or isinstance(value, (str, int, float, bool, PurePath)):
            return True
        if isinstance(value, (list, tuple)):
            return all(plain(v) for v in value)
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        return False

    return {k: v for k, v in kwargs.items() if plain(v)}


METADATA_FIELDS = (
    "family",
    "description",
    "data_source",
    "size",
    "user_data",
    "difficulty_fields",
    "deprecated",
    "distinct_tasks",
    "kwargs",
    "override",
)


def check_defaults(env_id: str, defaults: Mapping[str, Any]) -> None:
    """Env defaults given as keywords must not be misspelt metadata (``data_sorce=``) and must be names."""
    for key in defaults:
        if not isinstance(key, str) or not key.isidentifier() or keyword.iskeyword(key):
            raise RegistrationError(f"{env_id}: env default {key!r} is not a valid keyword argument name")
        close = difflib.get_close_matches(key, METADATA_FIELDS, n=1, cutoff=0.8)
        if close:
            raise RegistrationError(
                f"{env_id}: unknown registration option {key!r}; did you mean {close[0]!r}? "
                f"(pass env defaults as kwargs={{{key!r}: ...}} if {key!r} really is one)"
            )


def check_metadata(
    env_id: str,
    *,
    family: object,
    description: object,
    data_source: object,
    size: object,
    user_data: object,
    difficulty_fields: object,
    deprecated: object,
    distinct_tasks: object,
) -> None:
    """The types of the metadata keywords (a bare string for ``difficulty_fields`` is a classic slip)."""

    def fail(what: str, value: object) -> None:
        raise RegistrationError(f"{env_id}: {what}, got {value!r}")

    if family is not None and (not isinstance(family, str) or not family):
        fail("family= must be a non-empty string", family)
    for name, value in (("description", description), ("data_source", data_source)):
        if not isinstance(value, str):
            fail(f"{name}= must be a string", value)
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
        fail("size= must be a non-negative integer or None", size)
    if not isinstance(user_data, bool):
        fail("user_data= must be True or False", user_data)
    if isinstance(difficulty_fields, str) or not isinstance(difficulty_fields, (tuple, list)):
        fail("difficulty_fields= must be a tuple of field names", difficulty_fields)
    elif not all(isinstance(f, str) and f for f in difficulty_fields):
        fail("difficulty_fields= must hold non-empty strings", difficulty_fields)
    if deprecated is not None and not isinstance(deprecated, str):
        fail("deprecated= must be a message string or None", deprecated)
    if distinct_tasks is not None:
        values = list(distinct_tasks.values()) if isinstance(distinct_tasks, Mapping) else [distinct_tasks]
        keys = list(distinct_tasks) if isinstance(distinct_tasks, Mapping) else []
        numbers = values + keys
        if not numbers or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers):
            fail("distinct_tasks= must be a non-negative integer or {level: count}", distinct_tasks)
