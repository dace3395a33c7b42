"""Adapters that make any rlvr-envs environment usable from existing trainers.

- ``rlvr_envs.adapters.trl``: TRL reward functions and a dataset builder.
- ``rlvr_envs.adapters.verl``: verl's ``compute_score`` and a parquet exporter.
- ``rlvr_envs.serve``: the HTTP reward server (``rlvr-envs serve``; OpenRLHF's remote reward).
- ``rlvr_envs.adapters.rows``: what a row carries so that it verifies on its own.

Every adapter goes through ``EnvRouter``: rows carry the versioned id of the env they came
from, the task as JSON and the env's verifier spec, so one reward function serves a dataset
that mixes envs without loading any of their data, and verification always runs through a
process pool under its time budget.
"""

from rlvr_envs.adapters.routing import EnvRouter, RoutingError, task_from_json, task_to_json

__all__ = ["EnvRouter", "RoutingError", "task_from_json", "task_to_json"]
