"""Self-contained task rows: everything verification needs travels with the row.

A row written by ``build_dataset``, ``export_parquet`` or ``rlvr-envs export`` carries the env
id with its version, the task (answer included, in the family's schema) and the env's verifier
as a *verifier spec*: the verifier class and its configuration as plain JSON. An adapter
rebuilds the verifier from the spec, so scoring a row never loads the env's dataset (offline, a
preset would otherwise fail; online it would download the set).

The spec is the verifier's pickle state written as JSON instead of pickle: the state dict,
with tuples, sets and dataclasses tagged. Decoding accepts only classes defined in the package
that registers the env id (``rlvr_math`` for ``math-*``), only ``Verifier`` subclasses at the
top and dataclasses inside, so a row cannot name ``os:system``. A family may override this by
giving its env class a ``verifier_for(**options)`` classmethod; see ``verifier_for_env``.

Trust: a row's spec sets the verifier's options as written (a code row could turn sandbox
options down). The adapters apply specs because a training set is the user's own file; the
reward server never does (``rlvr_envs.serve``).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rlvr_envs.errors import RlvrEnvsError
from rlvr_envs.types import Task

if TYPE_CHECKING:
    from rlvr_envs.env import Env
    from rlvr_envs.runtime.backend import VerificationBackend
    from rlvr_envs.verifier import Verifier

SPEC_VERSION = 1
_MAX_DEPTH = 32


class SpecError(RlvrEnvsError, ValueError):
    """A verifier spec that cannot be written or read back (the row then needs its env made)."""


# -- encoding the state ------------------------------------------------------------------------------
def _encode(value: Any, depth: int = 0) -> Any:
    if depth > _MAX_DEPTH:
        raise SpecError("the verifier state nests too deeply")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return {"__float__": repr(value)}
        return value
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, depth + 1) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"__set__": sorted((_encode(v, depth + 1) for v in value), key=repr)}
    if isinstance(value, list):
        return [_encode(v, depth + 1) for v in value]
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise SpecError("the verifier state has a dict with non-string keys")
        if any(k.startswith("__") and k.endswith("__") for k in value):
            raise SpecError("the verifier state has a dict key that looks like a tag")
        return {k: _encode(v, depth + 1) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        fields = {f.name: _encode(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value) if f.init}
        return {"__dataclass__": f"{cls.__module__}:{cls.__qualname__}", "fields": fields}
    raise SpecError(f"the verifier state holds a {type(value).__name__}, which has no JSON form")


def _resolve_class(path: str, package: str) -> type:
    module_name, sep, qualname = path.partition(":")
    if not sep or not module_name or not qualname:
        raise SpecError(f"malformed class path {path!r}")
    if module_name != package and not module_name.startswith(package + "."):
        raise SpecError(f"class {path!r} is not part of {package!r}, the package that registers this env")
    try:
        target: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise SpecError(f"cannot load {path!r}: {type(exc).__name__}: {exc}") from None
    if not isinstance(target, type):
        raise SpecError(f"{path!r} is not a class")
    return target


def _decode(value: Any, package: str, depth: int = 0) -> Any:
    if depth > _MAX_DEPTH:
        raise SpecError("the verifier spec nests too deeply")
    if isinstance(value, list):
        return [_decode(v, package, depth + 1) for v in value]
    if not isinstance(value, dict):
        return value
    if "__tuple__" in value:
        return tuple(_decode(v, package, depth + 1) for v in _as_list(value["__tuple__"]))
    if "__set__" in value:
        return frozenset(_decode(v, package, depth + 1) for v in _as_list(value["__set__"]))
    if "__float__" in value:
        return float(str(value["__float__"]))
    if "__dataclass__" in value:
        cls = _resolve_class(str(value["__dataclass__"]), package)
        if not dataclasses.is_dataclass(cls):
            raise SpecError(f"{value['__dataclass__']!r} is not a dataclass")
        fields = value.get("fields")
        if not isinstance(fields, dict):
            raise SpecError("a dataclass in the spec has no fields object")
        try:
            return cls(**{k: _decode(v, package, depth + 1) for k, v in fields.items()})
        except (TypeError, ValueError) as exc:
            raise SpecError(f"cannot rebuild {value['__dataclass__']}: {exc}") from None
    return {k: _decode(v, package, depth + 1) for k, v in value.items()}


def _as_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise SpecError("a tagged value in the spec is not a list")
    return value


# -- specs -------------------------------------------------------------------------------------------
def _row_state(verifier: Verifier) -> Any:
    """What a row carries of a verifier's state: ``row_state()`` where the verifier defines it
    (state derived from the env's data, which a server rebuilds from that data, not from every
    row), else its pickled state."""
    row_state = getattr(verifier, "row_state", None)
    if callable(row_state):
        return row_state()
    getstate = getattr(verifier, "__getstate__", None)
    return getstate() if getstate is not None else dict(vars(verifier))


def verifier_spec(env: Env) -> dict[str, Any] | None:
    """The env's verifier and budgets as JSON-able data, or None when its state has no JSON form."""
    verifier = env.verifier
    cls = type(verifier)
    state = _row_state(verifier)
    if state is None:
        state = {}
    if not isinstance(state, dict):
        return None
    try:
        encoded = _encode(state)
    except SpecError:
        return None
    return {
        "v": SPEC_VERSION,
        "class": f"{cls.__module__}:{cls.__qualname__}",
        "state": encoded,
        "time_budget_s": float(env.time_budget_s),
        "max_completion_chars": int(env.max_completion_chars),
        "prompt_format": env.prompt_format.name,
    }


def spec_to_json(spec: Mapping[str, Any] | None) -> str:
    """A spec as the string a row column holds ("" for none): Arrow columns stay one type."""
    return "" if spec is None else json.dumps(spec, sort_keys=True, separators=(",", ":"))


def spec_from_value(value: Any) -> dict[str, Any] | None:
    """A spec from a row column: JSON text, a dict, or empty/None for none."""
    if value is None or value == "":
        return None
    if isinstance(value, (str, bytes)):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise SpecError(f"the verifier column is not JSON: {exc}") from None
    if not isinstance(value, Mapping):
        raise SpecError(f"the verifier column must be a JSON object, got {type(value).__name__}")
    return dict(value)


def plugin_package(env_id: str) -> str:
    """The top-level package whose code registers ``env_id`` (resolving the id loads no data)."""
    from rlvr_envs.registration import registry

    spec = registry.resolve(env_id)
    entry = spec.entry_point
    module = entry.partition(":")[0] if isinstance(entry, str) else getattr(entry, "__module__", "")
    return module.split(".", 1)[0]


def verifier_from_spec(env_id: str, spec: Mapping[str, Any]) -> Verifier:
    """Rebuild the verifier a spec describes, as unpickling would (``__new__`` then the state).

    A spec with no ``state`` means the class's default options (``cls()``).
    """
    from rlvr_envs.verifier import Verifier

    if spec.get("v") != SPEC_VERSION:
        raise SpecError(f"unsupported verifier spec version {spec.get('v')!r} (this rlvr-envs reads {SPEC_VERSION})")
    cls = _resolve_class(str(spec.get("class", "")), plugin_package(env_id))
    if not issubclass(cls, Verifier):
        raise SpecError(f"{spec.get('class')!r} is not a Verifier")
    if "state" not in spec:  # a spec that names only the class: its default options
        try:
            return cls()
        except (TypeError, ValueError) as exc:
            raise SpecError(f"{cls.__qualname__} has no default options: {exc}") from None
    state = _decode(spec.get("state") or {}, plugin_package(env_id))
    if not isinstance(state, dict):
        raise SpecError("the verifier state must be an object")
    verifier = cls.__new__(cls)
    setstate = getattr(verifier, "__setstate__", None)
    try:
        if setstate is not None:
            setstate(state)
        else:
            verifier.__dict__.update(state)
    except Exception as exc:  # a family's __setstate__ refusing the state
        raise SpecError(f"{cls.__qualname__} refused the state: {type(exc).__name__}: {exc}") from None
    return verifier


def default_verifier(env_id: str, spec: Mapping[str, Any] | None) -> Verifier | None:
    """The env's verifier with default options, built without data, or None when that is unknown.

    A family hook (``verifier_for()`` on the env class) wins; else the spec's class is built with
    no arguments (its constructor validates its own defaults). Used where specs are not trusted.
    """
    from rlvr_envs.registration import load_entry_point, registry
    from rlvr_envs.verifier import Verifier

    entry = load_entry_point(registry.resolve(env_id).entry_point)
    hook = getattr(entry, "verifier_for", None)
    if callable(hook):
        built = hook(**dict(registry.resolve(env_id).kwargs))
        return built if isinstance(built, Verifier) else None
    if spec is None:
        return None
    cls = _resolve_class(str(spec.get("class", "")), plugin_package(env_id))
    if not issubclass(cls, Verifier):
        raise SpecError(f"{spec.get('class')!r} is not a Verifier")
    # The preset's verifier options, not the class defaults: ifbench-v1 registers guard=False,
    # and its own exported rows were refused as asking for options the server does not use.
    # Every preset option the verifier's constructor takes (an env may take one too and pass it on).
    from rlvr_envs.checks import option_names

    preset = registry.resolve(env_id).kwargs
    try:
        return cls(**{k: preset[k] for k in sorted(option_names(cls) & preset.keys())})
    except TypeError:
        return None


def state_json(verifier: Verifier) -> str | None:
    """A verifier's state in spec form (to compare two verifiers' options), or None."""
    state = _row_state(verifier)
    try:
        return json.dumps(_encode(state or {}), sort_keys=True)
    except SpecError:
        return None


# -- what a router verifies with ---------------------------------------------------------------------
@dataclass
class Scorer:
    """A verifier with its budgets: what one env id (or one row spec) is verified with."""

    env_id: str
    verifier: Verifier
    time_budget_s: float
    max_completion_chars: int
    prompt_format: str = "plain"
    isolation: str = "pool"
    env: Env | None = None
    _pool: VerificationBackend | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def of_env(cls, env: Env) -> Scorer:
        return cls(
            env_id=env.env_id,
            verifier=env.verifier,
            time_budget_s=float(env.time_budget_s),
            max_completion_chars=int(env.max_completion_chars),
            prompt_format=env.prompt_format.name,
            isolation=env.isolation,
            env=env,
        )

    @classmethod
    def of_spec(cls, env_id: str, spec: Mapping[str, Any], verifier: Verifier | None = None) -> Scorer:
        built = verifier if verifier is not None else verifier_from_spec(env_id, spec)
        budget = spec.get("time_budget_s", getattr(built, "time_budget_s", 2.0))
        chars = spec.get("max_completion_chars", 2_000_000)
        if not isinstance(budget, (int, float)) or not 0 < budget <= 3600:
            raise SpecError(f"time_budget_s must be a number in (0, 3600], got {budget!r}")
        if not isinstance(chars, int) or chars < 1:
            raise SpecError(f"max_completion_chars must be a positive integer, got {chars!r}")
        return cls(env_id, built, float(budget), chars, str(spec.get("prompt_format") or "plain"))

    @property
    def pool(self) -> VerificationBackend:
        """An env's scorer: the env's pool; a spec's: the process-wide shared one (``runtime.factory``)."""
        if self.env is not None:
            return self.env.pool
        if self._pool is None:
            from rlvr_envs.runtime.factory import get_pool

            self._pool = get_pool()
        return self._pool


class OnceCache:
    """A dict whose values are built once per key, even when many threads ask at the same moment.

    Failures are remembered too, so a key that failed answers the same way every time. Past
    ``max_entries`` keys (rows from a network can name endless distinct specs) new keys are built
    on every call and not stored.
    """

    def __init__(self, max_entries: int = 4096) -> None:
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._values: dict[Any, tuple[bool, Any]] = {}
        self._building: dict[Any, threading.Lock] = {}

    def get(self, key: Any, build: Callable[[], Any], remember_errors: bool = True) -> Any:
        found = self._values.get(key)
        if found is None and len(self._values) >= self.max_entries:
            return build()
        if found is None:
            with self._lock:
                found = self._values.get(key)
                key_lock = self._building.setdefault(key, threading.Lock()) if found is None else None
            if key_lock is not None:
                with key_lock:
                    found = self._values.get(key)
                    if found is None:
                        try:
                            found = (True, build())
                        except Exception as exc:
                            if not remember_errors:
                                raise
                            found = (False, exc)
                        self._values[key] = found
                with self._lock:
                    self._building.pop(key, None)
        ok, value = found  # type: ignore[misc]
        if not ok:
            raise value
        return value

    def values(self) -> list[Any]:
        return [v for ok, v in list(self._values.values()) if ok]

    def __contains__(self, key: object) -> bool:
        return key in self._values


def task_row(env: Env, task: Task) -> dict[str, Any]:
    """The self-contained part of a row: env id, task JSON and verifier spec (strings)."""
    return {"env_id": env.env_id, "task": task.model_dump_json(), "verifier": spec_to_json(verifier_spec(env))}
