"""A self-describing run folder: what ran, with which code, on which envs (``run.json``)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

DISTRIBUTIONS = (
    "rlvr-envs",
    "rlvr-trainers",
    "torch",
    "trl",
    "transformers",
    "accelerate",
    "datasets",
    "tokenizers",
    "vllm",
    "peft",
    "deepspeed",
)


def versions() -> dict[str, str | None]:
    """Installed versions of the distributions a run depends on (None: not installed)."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in DISTRIBUTIONS:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    try:
        import torch

        out["cuda"] = torch.version.cuda
    except ImportError:  # pragma: no cover - torch is a dependency
        out["cuda"] = None
    return out


def git_state(start: Path | None = None) -> dict[str, Any]:
    """The commit of the checkout this package runs from, and whether it had local changes."""
    where = start or Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        dirty = (
            subprocess.run(
                ["git", "status", "--porcelain", "--untracked-files=no"],
                cwd=where,
                capture_output=True,
                text=True,
                timeout=10,
                check=True,
            ).stdout.strip()
            != ""
        )
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": dirty}


def env_record(env: Any, role: str) -> dict[str, Any]:
    spec = getattr(env, "env_spec", None)
    return {
        "id": env.env_id,
        "role": role,
        "family": getattr(env, "family", None),
        "version": getattr(spec, "version", None),
        "data_source": getattr(spec, "data_source", None) or None,
        "prompt_format": getattr(getattr(env, "prompt_format", None), "name", None),
    }


def write_run_info(
    out_dir: Path,
    config_dict: dict[str, Any],
    train_envs: Sequence[Any],
    eval_envs: Sequence[Any],
    device: str,
    resumed_from: str | None = None,
) -> Path:
    """Write ``run.json`` (config, versions, env ids and versions, git commit, command line)."""
    info = {
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": sys.argv,
        "device": device,
        "resumed_from": resumed_from,
        "config": config_dict,
        "envs": [env_record(e, "train") for e in train_envs] + [env_record(e, "eval") for e in eval_envs],
        "versions": versions(),
        "git": git_state(),
        "host": platform.node(),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "run.json"
    if os.environ.get("RANK", "0") != "0":  # under accelerate, the main process writes it
        return path
    if resumed_from is not None and path.exists():
        # Keep the first start's record and add this resume to its history.
        try:
            first = json.loads(path.read_text(encoding="utf-8"))
            info["resumes"] = [
                *first.get("resumes", []),
                {k: info[k] for k in ("started_at", "resumed_from", "versions", "git")},
            ]
            info.update({k: first[k] for k in ("started_at", "resumed_from") if k in first})
        except (OSError, json.JSONDecodeError):
            pass
    path.write_text(json.dumps(info, indent=2, default=str), encoding="utf-8")
    (out_dir / "config.json").write_text(json.dumps(config_dict, indent=2, default=str), encoding="utf-8")
    return path
