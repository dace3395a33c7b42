"""Ray stays optional: importing the hub (and its backend chooser) never imports Ray; a missing Ray says how to install it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(code: str, **env: str) -> subprocess.CompletedProcess:
    import os

    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=60
    )


def test_import_rlvr_envs_and_the_backend_chooser_never_import_ray():
    done = run(
        "import sys, rlvr_envs, rlvr_envs.runtime.factory, rlvr_envs.runtime.local.pool\n"
        "from rlvr_envs.runtime.factory import get_pool\n"
        "p = get_pool(); print(type(p).__name__, 'ray' in sys.modules)",
        RLVR_POOL="local",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["VerificationPool", "False"]


def test_an_unknown_backend_is_refused_with_the_choices():
    from rlvr_envs.runtime.factory import pool_backend

    assert pool_backend() in ("local", "ray")
    assert pool_backend("RAY") == "ray"
    with pytest.raises(ValueError, match="local, ray"):
        pool_backend("dask")


def test_without_ray_installed_the_error_names_the_extra():
    done = run(
        "import sys; sys.modules['ray'] = None\n"
        "from rlvr_envs.runtime.ray.pool import RayVerificationPool, RayUnavailableError\n"
        "try:\n    RayVerificationPool(1)\nexcept RayUnavailableError as e:\n    print('REFUSED', e)"
    )
    assert done.returncode == 0, done.stderr
    assert "REFUSED" in done.stdout and "pip install 'rlvr-envs[ray]'" in done.stdout


def test_ray_options_come_from_the_environment(monkeypatch):
    from rlvr_envs.runtime.factory import ray_options_from_env

    monkeypatch.setenv("RLVR_RAY_ADDRESS", "ray://head:10001")
    monkeypatch.setenv("RLVR_RAY_WORKERS", "64")
    monkeypatch.setenv("RLVR_RAY_NUM_CPUS", "0.5")
    monkeypatch.setenv("RLVR_RAY_RESOURCES", '{"sandbox": 1}')
    assert ray_options_from_env() == {
        "address": "ray://head:10001",
        "workers": 64,
        "num_cpus": 0.5,
        "resources": {"sandbox": 1.0},
    }
    monkeypatch.setenv("RLVR_RAY_RESOURCES", "[1]")
    with pytest.raises(ValueError, match="JSON object"):
        ray_options_from_env()
