"""The versioned environment registry.

Ids look like Gymnasium's: ``family-name-vN`` (``math-aime-v0``); ``make("math-aime")``
gives the latest version. The registry holds only data: entry points are strings resolved
when an env is made. Families are plugins found through the entry-point group
``rlvr_envs.envs``; an entry point named ``math`` claims the ids ``math`` and ``math-*`` and
is imported only when one of those ids is asked for or the full list is requested. A plugin
that fails to load is reported against its own ids and never breaks the others.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from importlib import metadata
from typing import TYPE_CHECKING, Any

# The errors live in rlvr_envs.errors; re-exported here where they were first defined.
from rlvr_envs.errors import (
    DeprecatedEnvWarning,
    PluginLoadError,
    RegistrationError,
    RegistryError,
    UnknownEnvError,
    UnknownVersionError,
)
from rlvr_envs.specs import EnvSpec, check_defaults, check_entry_point, check_metadata, parse_id

if TYPE_CHECKING:
    from rlvr_envs.env import Env

__all__ = [
    "ENTRY_POINT_GROUP",
    "DeprecatedEnvWarning",
    "EnvSpec",
    "PluginLoadError",
    "RegistrationError",
    "Registry",
    "RegistryError",
    "UnknownEnvError",
    "UnknownVersionError",
    "load_entry_point",
    "make",
    "parse_id",
    "register",
    "registry",
    "spec",
]

ENTRY_POINT_GROUP = "rlvr_envs.envs"


def load_entry_point(entry_point: str | Callable[..., Any]) -> Callable[..., Any]:
    """Resolve ``"package.module:attr"`` (or pass a callable through)."""
    if callable(entry_point):
        return entry_point
    module_name, _, attr = entry_point.partition(":")
    if not module_name or not attr:
        raise RegistrationError(f"entry point {entry_point!r} must look like 'package.module:attribute'")
    module = importlib.import_module(module_name)
    target: Any = module
    for part in attr.split("."):
        target = getattr(target, part)
    return target


class Registry(Mapping[str, EnvSpec]):
    """Ids to specs. Iterating or ``len()`` loads every plugin; lookups load only what they need."""

    def __init__(self, group: str = ENTRY_POINT_GROUP) -> None:
        self.group = group
        self._specs: dict[str, EnvSpec] = {}
        self._lock = threading.RLock()
        self._entry_points: dict[str, list[metadata.EntryPoint]] | None = None
        self._loaded_targets: set[str] = set()
        self._plugin_errors: dict[str, PluginLoadError] = {}
        self._loading_plugin: str | None = None

    # -- registration ------------------------------------------------------------------------
    def register(
        self,
        id: str,
        entry_point: str | Callable[..., Any],
        *,
        kwargs: Mapping[str, Any] | None = None,
        family: str | None = None,
        description: str = "",
        data_source: str = "",
        size: int | None = None,
        user_data: bool = False,
        difficulty_fields: tuple[str, ...] | list[str] = (),
        deprecated: str | None = None,
        distinct_tasks: int | Mapping[int, int] | None = None,
        override: bool = False,
        **defaults: Any,
    ) -> EnvSpec:
        """Register ``id`` (with a ``-vN`` suffix) for ``entry_point``; nothing is imported.

        Env defaults go in ``kwargs={...}`` (Gymnasium's form) or, as before, as extra keywords;
        an extra keyword that looks like a misspelt option (``data_sorce=``) is refused at once.
        """
        name, version = parse_id(id)
        if version is None:
            raise RegistrationError(f"register {id!r} with a version suffix, e.g. '{id}-v0'")
        check_entry_point(entry_point, id)
        if kwargs is not None and not isinstance(kwargs, Mapping):
            raise RegistrationError(f"{id}: kwargs= must be a mapping of env defaults, got {type(kwargs).__name__}")
        check_defaults(id, defaults)
        env_kwargs = dict(kwargs or {})
        both = sorted(set(env_kwargs) & set(defaults))
        if both:
            raise RegistrationError(f"{id}: {both} given both in kwargs= and as keywords")
        env_kwargs.update(defaults)
        bad_keys = [k for k in env_kwargs if not isinstance(k, str) or not k.isidentifier()]
        if bad_keys:
            raise RegistrationError(f"{id}: env defaults {bad_keys} are not valid keyword argument names")
        check_metadata(
            id,
            family=family,
            description=description,
            data_source=data_source,
            size=size,
            user_data=user_data,
            difficulty_fields=difficulty_fields,
            deprecated=deprecated,
            distinct_tasks=distinct_tasks,
        )
        spec = EnvSpec(
            id=id,
            name=name,
            version=version,
            entry_point=entry_point,
            family=family or name.split("-", 1)[0],
            kwargs=env_kwargs,
            description=description,
            data_source=data_source,
            size=size,
            user_data=user_data,
            difficulty_fields=tuple(difficulty_fields),
            deprecated=deprecated,
            plugin=self._loading_plugin,
            distinct_tasks=dict(distinct_tasks) if isinstance(distinct_tasks, Mapping) else distinct_tasks,
        )
        with self._lock:
            existing = self._specs.get(id)
            if existing is not None and existing != spec and not override:
                raise RegistrationError(
                    f"{id!r} is already registered (entry point {existing.entry_point!r}"
                    f"{', plugin ' + existing.plugin if existing.plugin else ''}); pass override=True to replace it"
                )
            self._specs[id] = spec
        return spec

    def unregister(self, env_id: str) -> None:
        """Forget one versioned id (tests, notebooks)."""
        with self._lock:
            self._specs.pop(env_id, None)

    @contextlib.contextmanager
    def isolated(self) -> Iterator[Registry]:
        """Registrations made inside the block are forgotten after it (what the tests use)."""
        with self._lock:
            saved = dict(self._specs), set(self._loaded_targets), dict(self._plugin_errors)
        try:
            yield self
        finally:
            with self._lock:
                # Plugins first loaded inside the block are forgotten too, so they load again later.
                self._specs, self._loaded_targets, self._plugin_errors = saved

    # -- plugins -----------------------------------------------------------------------------
    def _plugin_entry_points(self) -> dict[str, list[metadata.EntryPoint]]:
        if self._entry_points is None:
            found: dict[str, list[metadata.EntryPoint]] = {}
            for ep in metadata.entry_points(group=self.group):
                found.setdefault(ep.name, []).append(ep)
            self._entry_points = found
        return self._entry_points

    def _load_plugin(self, plugin: str) -> None:
        for ep in self._plugin_entry_points().get(plugin, []):
            if ep.value in self._loaded_targets:
                continue
            self._loaded_targets.add(ep.value)
            self._loading_plugin = plugin
            try:
                ep.load()()
            except Exception as exc:
                dist = getattr(ep, "dist", None)
                where = f" from distribution {dist.name!r}" if dist is not None else ""
                self._plugin_errors[plugin] = PluginLoadError(
                    f"plugin {plugin!r} ({ep.value}{where}) failed to load: {type(exc).__name__}: {exc}"
                )
                self._plugin_errors[plugin].__cause__ = exc
            finally:
                self._loading_plugin = None

    def _plugins_for(self, name: str) -> list[str]:
        return [p for p in self._plugin_entry_points() if name == p or name.startswith(p + "-")]

    def load_all(self) -> None:
        """Import every installed plugin family (what a full listing needs)."""
        with self._lock:
            for plugin in list(self._plugin_entry_points()):
                self._load_plugin(plugin)

    def family_matches(self, spec: EnvSpec, name: str) -> bool:
        """Whether ``name`` designates ``spec``'s family: the family (``rg``), its plugin's entry-point
        name, or its distribution's name with or without ``rlvr-envs-`` (``reasoning-gym``)."""
        wanted = _norm(name)
        if wanted in (_norm(spec.family), _norm(spec.plugin or "")):
            return True
        for ep in self._plugin_entry_points().get(spec.plugin or "", []):
            dist = getattr(ep, "dist", None)
            if dist is not None:
                full = _norm(dist.name)
                if wanted in (full, full.removeprefix("rlvr-envs-")):
                    return True
        return False

    @property
    def plugin_errors(self) -> dict[str, PluginLoadError]:
        """Plugins that failed to load so far, by entry-point name."""
        return dict(self._plugin_errors)

    def refresh(self) -> None:
        """Forget the cached entry-point list (after installing a plugin at run time)."""
        with self._lock:
            self._entry_points = None

    # -- lookup ------------------------------------------------------------------------------
    def _versions(self, name: str) -> list[EnvSpec]:
        return sorted((s for s in self._specs.values() if s.name == name), key=lambda s: s.version)

    def resolve(self, env_id: str) -> EnvSpec:
        """The spec for ``env_id``, loading the plugin that claims it if needed."""
        name, version = parse_id(env_id)
        with self._lock:
            if not self._versions(name):
                for plugin in self._plugins_for(name):
                    self._load_plugin(plugin)
            if not self._versions(name):
                for plugin in self._plugins_for(name):
                    if plugin in self._plugin_errors:
                        raise self._plugin_errors[plugin]
                self.load_all()
            versions = self._versions(name)
            if not versions:
                raise UnknownEnvError(self._unknown_message(env_id))
            if version is None:
                current = [s for s in versions if s.deprecated is None]
                return (current or versions)[-1]
            for spec in versions:
                if spec.version == version:
                    return spec
            available = ", ".join(s.id for s in versions)
            raise UnknownVersionError(f"{name!r} has no version v{version}; available: {available}")

    def _unknown_message(self, env_id: str) -> str:
        names = sorted({s.name for s in self._specs.values()} | set(self._specs))
        close = difflib.get_close_matches(env_id, names, n=3, cutoff=0.6)
        msg = f"no environment named {env_id!r}"
        if close:
            msg += f"; did you mean {' or '.join(repr(c) for c in close)}?"
        else:
            msg += "; `rlvr-envs list` shows what is installed"
        if self._plugin_errors:
            msg += f" (plugins that failed to load: {', '.join(sorted(self._plugin_errors))})"
        return msg

    # -- Mapping -----------------------------------------------------------------------------
    def __getitem__(self, env_id: str) -> EnvSpec:
        return self.resolve(env_id)

    def __iter__(self) -> Iterator[str]:
        self.load_all()
        return iter(sorted(self._specs))

    def __len__(self) -> int:
        self.load_all()
        return len(self._specs)

    def __contains__(self, env_id: object) -> bool:
        if not isinstance(env_id, str):
            return False
        try:
            self.resolve(env_id)
        except RegistryError:
            return False
        return True

    def latest(self) -> list[EnvSpec]:
        """The newest version of every name, sorted by id."""
        self.load_all()
        by_name: dict[str, EnvSpec] = {}
        for spec in self._specs.values():
            if spec.name not in by_name or spec.version > by_name[spec.name].version:
                by_name[spec.name] = spec
        return [by_name[n] for n in sorted(by_name)]


def _norm(name: str) -> str:
    return name.strip().lower().replace("_", "-")


registry = Registry()


def register(id: str, entry_point: str | Callable[..., Any], **options: Any) -> EnvSpec:
    """Register an environment id. See ``Registry.register`` for the options."""
    return registry.register(id, entry_point, **options)


def spec(env_id: str) -> EnvSpec:
    """The spec of ``env_id`` (latest version when none is given)."""
    return registry.resolve(_import_module_of(env_id))


def _import_module_of(env_id: str) -> str:
    """``"my_pkg.envs:parity-v0"`` imports ``my_pkg.envs`` (which registers) and gives ``parity-v0``.

    Gymnasium's form, for a package that registers its ids on import instead of through an
    entry point (a notebook, a package that is not installed).
    """
    if not isinstance(env_id, str) or ":" not in env_id:
        return env_id
    module, _, bare = env_id.partition(":")
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise PluginLoadError(f"cannot import {module!r} to register {bare!r}: {type(exc).__name__}: {exc}") from exc
    return bare


def data_alias(kwargs: Mapping[str, Any], env_id: str) -> dict[str, Any]:
    """``path=`` is another name of ``data=`` for every id (one data vocabulary for make, export,
    serve and train); giving both with different values is an error, not a silent choice."""
    out = dict(kwargs)
    if "path" not in out:
        return out
    path = out.pop("path")
    if "data" in out and out["data"] is not path and out["data"] != path:
        from rlvr_envs.errors import ConfigurationError

        raise ConfigurationError(f"{env_id}: pass data= or its alias path=, not both")
    out["data"] = path
    return out


def make(
    env_id: str,
    *,
    pass_rate_band: tuple[float, float] | None = None,
    profile: Any = None,
    pass_rate_sampler: Any = None,
    **kwargs: Any,
) -> Env:
    """Create an environment by id; ``kwargs`` override the registered defaults.

    ``env_id`` may be ``"package.module:id"``: the module is imported first (it registers the id).
    ``pass_rate_band=(lo, hi)``, ``profile=PATH`` and ``pass_rate_sampler=FINGERPRINT`` keep only
    the tasks whose pass rate measured by ``rlvr-envs profile`` lies in the band (default band
    0.2-0.8 when only ``profile`` is given); they never reach the env's constructor.
    ``tools=[...]`` (with ``max_turns``, budgets, ``parser``...) wraps the env in an
    ``EpisodeEnv``: multi-turn and tool-using (docs/episodes.md); without it nothing changes.
    """
    from rlvr_envs.env import Env

    env_spec = registry.resolve(_import_module_of(env_id))
    if env_spec.deprecated is not None:
        warnings.warn(f"{env_spec.id} is deprecated: {env_spec.deprecated}", DeprecatedEnvWarning, stacklevel=2)
    try:
        factory = load_entry_point(env_spec.entry_point)
    except (ImportError, AttributeError) as exc:
        raise PluginLoadError(
            f"cannot load the entry point {env_spec.entry_point!r} of {env_spec.id}: {type(exc).__name__}: {exc}"
        ) from exc
    merged = {**env_spec.kwargs, **data_alias(kwargs, env_spec.id)}
    episode: dict[str, Any] | None = None
    if "tools" in merged:
        # tools= makes an episode env (docs/episodes.md): its options never reach the family.
        from rlvr_envs.episodes.env import split_episode_options

        merged, episode = split_episode_options(merged)
    env = factory(**merged)
    if not isinstance(env, Env):
        raise RegistrationError(f"entry point of {env_spec.id} returned {type(env).__name__}, not rlvr_envs.Env")
    env.env_spec = env_spec
    env.spec = env_spec.to_gymnasium(merged)
    if pass_rate_band is not None or profile is not None or pass_rate_sampler is not None:
        # Keep only the tasks whose measured pass rate lies in the band (see rlvr_envs.difficulty).
        from rlvr_envs.difficulty.filter import filter_env

        band = pass_rate_band if pass_rate_band is not None else (0.2, 0.8)
        env = filter_env(env, band=band, profile=profile, sampler=pass_rate_sampler)
    if episode is not None:
        from rlvr_envs.episodes.env import EpisodeEnv

        env = EpisodeEnv(env, **episode)
        env.spec = env_spec.to_gymnasium({**merged, **episode})
    return env
