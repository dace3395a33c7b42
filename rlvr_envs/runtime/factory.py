"""Which backend verifies: the local process pool (default) or Ray, made and shared here.

``get_pool()`` is what the env, the adapters, the CLI and the reward server use: the local
``VerificationPool`` unless ``RLVR_POOL=ray`` (or ``backend="ray"``) asks for the Ray backend,
which gives the same calls (``VerificationBackend``: ``submit``/``submit_many``/``map``/``amap``/
``preload``/``close``) and the same guarantees on a cluster. Importing this module imports
neither backend, and never Ray.

Environment variables (read when the shared pool is first made):

- ``RLVR_POOL``: ``local`` (default) or ``ray``.
- ``RLVR_RAY_ADDRESS``: the cluster to join (``auto``, ``ray://host:10001``, ``host:6379``);
  unset, an already connected process (a verl or OpenRLHF worker) keeps its cluster and any
  other process starts a local one.
- ``RLVR_RAY_WORKERS``: number of verification actors (default: the cluster's CPUs / CPUs per actor).
- ``RLVR_RAY_NUM_CPUS``: CPUs per actor (default 1); ``RLVR_RAY_MEMORY_MB``: memory reserved per
  actor; ``RLVR_RAY_RESOURCES``: JSON of custom resources per actor, e.g. ``{"sandbox": 1}``
  to place code verification only on nodes started with ``--resources '{"sandbox": 8}'``.
- ``RLVR_RAY_NODE_IP``: the address this process joins the cluster from (Ray's
  ``_node_ip_address``), for clusters started with ``ray start --node-ip-address``; note that Ray
  replaces 127.0.0.1 with the machine's external address, so a loopback-only cluster uses another
  loopback address such as 127.0.0.2.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from typing import TYPE_CHECKING, Any

from rlvr_envs.errors import ConfigurationError

if TYPE_CHECKING:
    from rlvr_envs.runtime.backend import VerificationBackend

BACKENDS = ("local", "ray")

_shared: dict[str, VerificationBackend] = {}
_lock = threading.Lock()


def pool_backend(backend: str | None = None) -> str:
    """The backend asked for: ``backend`` itself, else ``RLVR_POOL``, else ``local``."""
    chosen = (backend or os.environ.get("RLVR_POOL") or "local").strip().lower()
    if chosen not in BACKENDS:
        raise ConfigurationError(
            f"unknown verification backend {chosen!r} (RLVR_POOL); choose one of {', '.join(BACKENDS)}"
        )
    return chosen


def ray_options_from_env() -> dict[str, Any]:
    """``RayVerificationPool`` keyword arguments from the ``RLVR_RAY_*`` variables."""
    out: dict[str, Any] = {}
    if os.environ.get("RLVR_RAY_ADDRESS"):
        out["address"] = os.environ["RLVR_RAY_ADDRESS"]
    if os.environ.get("RLVR_RAY_WORKERS"):
        out["workers"] = int(os.environ["RLVR_RAY_WORKERS"])
    if os.environ.get("RLVR_RAY_NUM_CPUS"):
        out["num_cpus"] = float(os.environ["RLVR_RAY_NUM_CPUS"])
    if os.environ.get("RLVR_RAY_MEMORY_MB"):
        out["memory_mb_reserved"] = int(os.environ["RLVR_RAY_MEMORY_MB"])
    if os.environ.get("RLVR_RAY_RESOURCES"):
        resources = json.loads(os.environ["RLVR_RAY_RESOURCES"])
        if not isinstance(resources, dict):
            raise ConfigurationError(
                f"RLVR_RAY_RESOURCES must be a JSON object, got {os.environ['RLVR_RAY_RESOURCES']!r}"
            )
        out["resources"] = {str(k): float(v) for k, v in resources.items()}
    if os.environ.get("RLVR_RAY_NODE_IP"):
        out["init_kwargs"] = {"_node_ip_address": os.environ["RLVR_RAY_NODE_IP"]}
    return out


def make_pool(backend: str | None = None, **kwargs: Any) -> VerificationBackend:
    """A new pool of the chosen backend (the caller closes it)."""
    if pool_backend(backend) == "ray":
        from rlvr_envs.runtime.ray.pool import RayVerificationPool

        return RayVerificationPool(**{**ray_options_from_env(), **kwargs})
    from rlvr_envs.runtime.local.pool import VerificationPool

    return VerificationPool(**kwargs)


def get_pool(backend: str | None = None) -> VerificationBackend:
    """The process-wide shared pool of the chosen backend, made on first use and closed at exit.

    One per backend: every env, adapter and server of this process that takes the shared pool
    shares its workers (and the verifiers they have loaded).
    """
    chosen = pool_backend(backend)
    with _lock:
        pool = _shared.get(chosen)
        if pool is None or pool.closed:
            pool = _shared[chosen] = make_pool(chosen)
            atexit.register(pool.close)
        return pool
