"""Checks every family needs, written once: unique task ids, and which of ``make()``'s keywords
configure the verifier.

Each family used to carry its own copy of both: a loop over task ids (three families, with three
messages; two families had none) and a hand-kept tuple of its verifier's option names (four
families; the tuples had drifted from the signatures). ``DatasetEnv`` now checks every env's ids,
and the option names are read from the verifier's signature.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any, TypeVar

from rlvr_envs.errors import ConfigurationError, DataError
from rlvr_envs.types import Task

__all__ = ["TaskIds", "check_unique_ids", "option_names", "options_for", "verifier_from_options"]

V = TypeVar("V")


class TaskIds:
    """Where each task id was first seen; a repeat is a ``DataError`` naming both places.

    ``env.get_task(id)``, the pass-rate store and every filter key on the id, so two tasks with one
    id would silently share their records.
    """

    def __init__(self) -> None:
        self._first: dict[str, str] = {}

    def add(self, task_id: str, place: str) -> None:
        first = self._first.get(task_id)
        if first is None:
            self._first[task_id] = place
        else:
            raise DataError(
                f"{place}: task id {task_id!r} is already the id of {first} (a duplicate task id); "
                "map a column of unique ids with id_key="
            )


def check_unique_ids(tasks: Iterable[Task], *, owner: str) -> None:
    """Raise ``DataError`` when two of ``tasks`` share an id (places are 1-based task numbers)."""
    ids = TaskIds()
    for number, task in enumerate(tasks, 1):
        ids.add(task.id, f"{owner} task {number}")


def option_names(*targets: Callable[..., Any] | type) -> frozenset[str]:
    """The keyword names a class's constructor, a dataclass's fields or a function take."""
    names: set[str] = set()
    for target in targets:
        if isinstance(target, type) and dataclasses.is_dataclass(target):
            names.update(f.name for f in dataclasses.fields(target) if f.init)
            continue
        for parameter in inspect.signature(target).parameters.values():  # a class's: without self
            if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
                names.add(parameter.name)
    return frozenset(names)


def options_for(
    cls: type, options: MutableMapping[str, Any], *, env_cls: type, also: Iterable[type] = ()
) -> dict[str, Any]:
    """Pop from ``options`` the keywords ``cls`` (a verifier, a judge client) and the classes in
    ``also`` (for options it passes on, such as a policy's fields) take, leaving the env's own.

    A name both take (``time_budget_s``) stays with the env: every class in ``env_cls``'s MRO
    that has its own constructor claims the names that constructor takes.
    """
    env_names = option_names(*(c for c in env_cls.__mro__ if "__init__" in vars(c) and c is not object))
    wanted = option_names(cls, *also) - env_names
    return {name: options.pop(name) for name in sorted(wanted & options.keys())}


def verifier_from_options(
    verifier_cls: Callable[..., V],
    options: MutableMapping[str, Any],
    *,
    env_cls: type,
    verifier: V | None = None,
    also: Iterable[type] = (),
) -> V:
    """The verifier an env is made with: ``verifier=`` as given, or one built from the options.

    Giving both is refused (an option would be silently ignored).
    """
    chosen = options_for(verifier_cls, options, env_cls=env_cls, also=also)  # type: ignore[arg-type]
    if verifier is None:
        return verifier_cls(**chosen)
    if chosen:
        raise ConfigurationError(f"pass either verifier= or the verifier options {sorted(chosen)}, not both")
    return verifier
