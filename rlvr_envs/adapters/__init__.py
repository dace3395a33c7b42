"""Adapters that make any rlvr-envs environment usable from existing trainers.

- ``rlvr_envs.adapters.trl``: TRL reward functions and a dataset builder.
- ``rlvr_envs.adapters.verl``: verl's ``compute_score`` and a parquet exporter.
- ``rlvr_envs.server``: the OpenRLHF-style HTTP reward server (``rlvr-envs serve``).

Every adapter goes through ``EnvRouter``: rows carry the id of the env they came from and the
task as JSON, so one reward function can serve a dataset that mixes envs, and verification
always runs through the env's process pool under its time budget.
"""

from rlvr_envs.adapters.routing import EnvRouter, task_from_json, task_to_json

__all__ = ["EnvRouter", "task_from_json", "task_to_json"]
