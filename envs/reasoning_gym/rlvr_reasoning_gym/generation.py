"""Everything that touches reasoning-gym's generators: configs, curricula, entries.

reasoning_gym is imported here lazily (its import loads every dataset module and takes
about two seconds), so only making an ``rg-`` env or verifying with a scorer pays for it.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from functools import lru_cache
from typing import Any

from rlvr_envs.errors import ConfigurationError

SCORER_SEED = 0
SHARED_SIZE = 2**31
"""Size of the shared seed-0 instance: large enough that every 31-bit seed is a valid index."""
_lock = threading.Lock()

FRESH_INSTANCE_DATASETS = {"acre": 10, "list_functions": 1, "gsm_symbolic": 1}
"""Datasets that draw their tasks when constructed (from seed and size), not per index: each
task gets its own instance, seeded from the task seed, of this size."""

GLOBAL_RNG_DATASETS = frozenset({"codeio", "list_functions", "pool_matrix"})
"""Datasets whose generation draws from the global ``random`` or numpy generators: codeio's
stored programs, list_functions' generators and pool_matrix (``np.random``). Only these run
inside ``_seeded_global_rngs``: saving and restoring both generators costs 60-130 us a task,
over half the time of a cheap task (``bench/reasoning_gym_envs.py --guard``). Found by comparing
the global state before and after generating tasks of every dataset;
``tests/reasoning_gym/test_rg_generation.py`` repeats that check for every dataset, so a
reasoning-gym update that changes the set fails it."""


HASH_ORDERED_DATASETS = {
    "isomorphic_strings": "reasoning_gym.algorithmic.isomorphic_strings",
    "ransom_note": "reasoning_gym.algorithmic.ransom_note",
    "word_ladder": "reasoning_gym.algorithmic.word_ladder",
    "knight_swap": "reasoning_gym.games.knight_swap",
    "polynomial_multiplication": "reasoning_gym.algebra.polynomial_multiplication",
}
"""Datasets whose tasks followed the iteration order of a set of strings or sympy objects, which
``PYTHONHASHSEED`` changes from one process to the next: the same seed gave another question
(isomorphic_strings, ransom_note, polynomial_multiplication's monomials from sympy's
``itermonomials``) or another of several gold answers (word_ladder's and knight_swap's searches).
``_ordered_module`` makes their sets iterate in sorted order, in those modules only, so a seed gives
one task in every process. ``tests/reasoning_gym/test_rg_generation.py`` generates every dataset
under two hash seeds in subprocesses, so a reasoning-gym update that changes the set fails it."""


class DatasetConfigError(ConfigurationError):
    """A config or level the dataset does not accept."""


_factory: Any = None


def _rg() -> Any:
    global _factory
    if _factory is None:
        import random

        # Importing reasoning_gym draws from the global ``random`` generator (0.1.25): keep the
        # caller's stream as it was, as generation does.
        saved = random.getstate()
        try:
            import reasoning_gym.factory as factory
        finally:
            random.setstate(saved)
        for module in HASH_ORDERED_DATASETS.values():
            _ordered_module(module)
        _factory = factory
    return _factory


def _sorted_items(items: Any) -> list[Any]:
    items = list(items)
    try:
        return sorted(items)
    except TypeError:  # mixed or unorderable (sympy expressions): their printed form
        from sympy import default_sort_key

        return sorted(items, key=default_sort_key)


class OrderedSet(set):
    """A set that iterates in sorted order (not in hash order) and keeps that through set algebra."""

    def __iter__(self) -> Iterator[Any]:
        return iter(_sorted_items(set.__iter__(self)))

    def _wrap(self, result: Any) -> Any:
        return type(self)(result) if isinstance(result, (set, frozenset)) else result

    def __sub__(self, other: Any) -> Any:
        return self._wrap(set.__sub__(self, other))

    def __or__(self, other: Any) -> Any:
        return self._wrap(set.__or__(self, other))

    def __and__(self, other: Any) -> Any:
        return self._wrap(set.__and__(self, other))

    def __xor__(self, other: Any) -> Any:
        return self._wrap(set.__xor__(self, other))

    def difference(self, *others: Any) -> Any:
        return self._wrap(set.difference(self, *others))

    def union(self, *others: Any) -> Any:
        return self._wrap(set.union(self, *others))

    def intersection(self, *others: Any) -> Any:
        return self._wrap(set.intersection(self, *others))

    def copy(self) -> Any:
        return type(self)(set.__iter__(self))


class OrderedFrozenSet(frozenset):
    """A frozenset that iterates in sorted order; equal to (and hashed as) the plain one. The order is
    sorted once (it cannot change): knight_swap's search iterates each state's pieces many times."""

    __slots__ = ("_order",)
    _order: tuple[Any, ...]

    def __iter__(self) -> Iterator[Any]:
        try:
            order = self._order
        except AttributeError:
            order = self._order = tuple(_sorted_items(frozenset.__iter__(self)))
        return iter(order)


def _ordered_module(name: str) -> None:
    """Make the sets that module ``name`` creates iterate in sorted order: its ``set`` and ``frozenset``
    names become the ordered classes, and a ``itermonomials`` it imported returns a sorted list. Set
    literals and comprehensions stay plain: ``_ordered_instance`` converts what an instance keeps."""
    import importlib

    module = importlib.import_module(name)
    module.set = OrderedSet  # type: ignore[attr-defined]
    module.frozenset = OrderedFrozenSet  # type: ignore[attr-defined]
    monomials = getattr(module, "itermonomials", None)
    if monomials is not None and not getattr(monomials, "_rlvr_sorted", False):

        def itermonomials(*args: Any, **kwargs: Any) -> list[Any]:
            return _sorted_items(monomials(*args, **kwargs))

        itermonomials._rlvr_sorted = True  # type: ignore[attr-defined]
        module.itermonomials = itermonomials  # type: ignore[attr-defined]


def _ordered_instance(name: str, instance: Any) -> Any:
    """``instance`` with the sets it keeps (``self.letters = {...}``, a dict of them) ordered, for the
    ``HASH_ORDERED_DATASETS``; other datasets are returned as they are."""
    if name not in HASH_ORDERED_DATASETS:
        return instance

    def ordered(value: Any, depth: int) -> Any:
        if isinstance(value, frozenset) and not isinstance(value, OrderedFrozenSet):
            return OrderedFrozenSet(value)
        if isinstance(value, set) and not isinstance(value, OrderedSet):
            return OrderedSet(value)
        if isinstance(value, dict) and depth < 2:
            for key, item in value.items():
                value[key] = ordered(item, depth + 1)
        return value

    for attribute, value in list(vars(instance).items()):
        setattr(instance, attribute, ordered(value, 0))
    return instance


def to_json(value: Any) -> Any:
    """A JSON-safe copy (tuples become lists, sets sorted lists, unknown objects strings)."""

    def fallback(obj: Any) -> Any:
        if isinstance(obj, (set, frozenset)):
            return sorted(obj, key=repr)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            return dataclasses.asdict(obj)
        if hasattr(obj, "item"):  # numpy scalars
            return obj.item()
        return str(obj)

    return json.loads(json.dumps(value, default=fallback, ensure_ascii=False))


def registry_names() -> list[str]:
    """Every dataset name in reasoning-gym's own registry."""
    return sorted(_rg().DATASETS)


def _config_fields(name: str) -> set[str]:
    _, config_cls = _rg().DATASETS[name]
    return {f.name for f in dataclasses.fields(config_cls)} - {"seed", "size"}


def check_overrides(name: str, overrides: dict[str, Any]) -> None:
    """Config fields must exist and be JSON values: tasks carry them so that any process can
    rebuild the exact config (a verifier in a pool worker, a task read back from disk)."""
    unknown = sorted(set(overrides) - _config_fields(name))
    if unknown:
        raise DatasetConfigError(f"{name} has no config field(s) {unknown}; known: {sorted(_config_fields(name))}")
    if to_json(overrides) != overrides:
        raise DatasetConfigError(f"config for {name} must be plain JSON values (lists, not tuples): {overrides!r}")


def build_config(name: str, level: int | None, overrides: dict[str, Any]) -> Any:
    """The config object: the dataset default (level None) or the curriculum's ``level``
    (1-based, shifted by ``catalog.LEVELS``), with ``overrides`` on top."""
    factory = _rg()
    _, config_cls = factory.DATASETS[name]
    if level is None:
        base = config_cls()
    else:
        curriculum = factory.create_curriculum(name)
        curriculum.set_global_level(curriculum_index(name, level))
        base = curriculum.generate_configuration({})
    kwargs: dict[str, Any] = {}
    for key, value in overrides.items():
        default = getattr(base, key, None)
        # JSON has no tuples; hand the config back the type it was built with.
        kwargs[key] = tuple(value) if isinstance(default, tuple) and isinstance(value, list) else value
    config = dataclasses.replace(base, **kwargs) if kwargs else base
    try:
        if hasattr(config, "validate"):
            config.validate()
    except (AssertionError, ValueError, TypeError) as exc:
        raise DatasetConfigError(f"invalid config for {name}: {type(exc).__name__}: {exc}") from exc
    return config


def curriculum_index(name: str, level: int) -> int:
    """0-based curriculum level for our 1-based ``level``."""
    from rlvr_reasoning_gym.catalog import LEVELS

    top = max_level(name)
    if top is None or not 1 <= level <= top:
        raise DatasetConfigError(f"{name}: level must be in 1..{top}, got {level}")
    usable = LEVELS.get(name)
    return level - 1 if usable is None else usable[level - 1]


def raw_max_level(name: str) -> int | None:
    """Number of levels reasoning-gym's curriculum defines (the most any attribute has)."""
    factory = _rg()
    if name not in factory.CURRICULA:
        return None
    curriculum = factory.create_curriculum(name)
    return max((len(attr.levels) for attr in curriculum.attributes.values()), default=1)


def max_level(name: str) -> int | None:
    """Usable levels: the curriculum's, less those ``catalog.LEVELS`` cuts; None for none."""
    from rlvr_reasoning_gym.catalog import LEVELS

    if name in LEVELS:
        return len(LEVELS[name]) or None
    return raw_max_level(name)


def describe_config(config: Any) -> dict[str, Any]:
    """The config as JSON, for ``Difficulty.config`` (seed and size belong to rg's finite sets)."""
    return {k: v for k, v in to_json(dataclasses.asdict(config)).items() if k not in ("seed", "size")}


def recipe_key(level: int | None, overrides: dict[str, Any]) -> str:
    return json.dumps({"level": level, "overrides": overrides}, sort_keys=True)


@lru_cache(maxsize=256)
def dataset(name: str, recipe: str, seed: int = SCORER_SEED, size: int = 1) -> Any:
    """A reasoning-gym dataset instance for a config recipe (``recipe_key``), cached."""
    spec = json.loads(recipe)
    config = build_config(name, spec["level"], spec["overrides"])
    fields = {f.name for f in dataclasses.fields(config)}
    updates = {k: v for k, v in (("seed", seed), ("size", size)) if k in fields}
    config = dataclasses.replace(config, **updates)
    try:
        return _ordered_instance(name, _rg().DATASETS[name][0](config=config))
    except (AssertionError, ValueError, TypeError) as exc:
        raise DatasetConfigError(f"invalid config for {name}: {type(exc).__name__}: {exc}") from exc


def generate_entry(name: str, level: int | None, overrides: dict[str, Any], seed: int) -> dict[str, Any]:
    """The reasoning-gym entry (question, answer, metadata) that ``seed`` gives."""
    recipe = recipe_key(level, overrides)
    fresh = FRESH_INSTANCE_DATASETS.get(name)
    guard = _seeded_global_rngs(seed) if name in GLOBAL_RNG_DATASETS else nullcontext()
    with _lock, guard:  # instances are shared; a few generators keep state
        if fresh is not None:
            instance = dataset.__wrapped__(name, recipe, seed=seed, size=fresh)
            return instance[seed % fresh]
        # Index i of a seed-0 instance is drawn from Random(0 + i): one instance serves every seed.
        # Its size only bounds the index (some configs refuse a large size at validation: word_ladder).
        instance = dataset(name, recipe)
        instance.size = SHARED_SIZE
        return instance[seed]


@contextmanager
def _seeded_global_rngs(seed: int) -> Iterator[None]:
    """Seed the global ``random`` and numpy generators for one task, then restore them.

    Some generators (``GLOBAL_RNG_DATASETS``) draw from the global generators, which made the
    same seed give different tasks; the caller's streams are left untouched.
    """
    import random

    import numpy as np

    saved_py, saved_np = random.getstate(), np.random.get_state()
    random.seed(seed)
    np.random.seed(seed % 2**32)
    try:
        yield
    finally:
        random.setstate(saved_py)
        np.random.set_state(saved_np)


def score(name: str, level: int | None, overrides: dict[str, Any], answer: str, entry: dict[str, Any]) -> float:
    """reasoning-gym's own score for ``answer`` (callers guard what reaches it)."""
    value = dataset(name, recipe_key(level, overrides)).score_answer(answer, entry)
    return float(value) if value is not None else 0.0
