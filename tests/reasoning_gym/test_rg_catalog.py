"""The static catalog, the registry and reasoning-gym's own registry agree."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_reasoning_gym import generation
from rlvr_reasoning_gym.catalog import DATASETS, EXCLUDED, LEVELS, RULES
from rlvr_reasoning_gym.compare import COMPARATORS

README = Path(__file__).resolve().parents[2] / "envs" / "reasoning_gym" / "README.md"


def test_static_list_matches_reasoning_gym_registry():
    # An upgrade of reasoning-gym that adds or drops a dataset must fail here, not silently.
    assert sorted(set(RULES) | set(EXCLUDED)) == generation.registry_names()
    assert not set(RULES) & set(EXCLUDED)


def test_every_registered_dataset_has_an_id_and_excluded_ones_do_not():
    ids = {spec.id for spec in rlvr_envs.registry.latest() if spec.family == "rg"}
    assert ids == {f"rg-{name}-v0" for name in DATASETS} | {"rg-composite-v1"}
    for name in EXCLUDED:
        if name != "composite":
            with pytest.raises(rlvr_envs.UnknownEnvError):
                rlvr_envs.make(f"rg-{name}")


def test_rules_name_known_comparisons():
    for name, rule in RULES.items():
        assert rule.kind in set(COMPARATORS) | {"scorer", "auto", "grid_any"}, name
        if rule.kind == "scorer":
            assert rule.shape, f"{name}: a scorer rule needs a shape guard"
            re.compile(rule.shape)
    for name, usable in LEVELS.items():
        assert name in RULES and list(usable) == sorted(set(usable)), name
        raw = generation.raw_max_level(name)
        assert raw is not None and all(0 <= i < raw for i in usable), name


def test_registration_does_not_import_reasoning_gym():
    code = (
        "import sys, rlvr_envs\n"
        "spec = rlvr_envs.registry.resolve('rg-chain_sum')\n"
        "assert spec.id == 'rg-chain_sum-v0', spec\n"
        "print('reasoning_gym' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "False"


def test_readme_lists_every_excluded_and_patched_dataset():
    text = README.read_text(encoding="utf-8")
    for name in EXCLUDED:
        assert f"`{name}`" in text, f"README does not list excluded dataset {name}"
    for name, rule in RULES.items():
        if rule.note or not rule.partial:
            assert f"`{name}`" in text, f"README does not list patched dataset {name}"
    for name in LEVELS:
        assert f"`{name}`" in text, f"README does not explain the level cut of {name}"


NEAR_MISSES = [
    " " * 20_000 + "x",
    "Move disk 1 from Peg 1 to Peg 3\n" * 2_000 + "Move disk",
    "0 1\n" * 5_000 + "2",
    "A → " * 5_000 + "D",
    "x**2 + " * 2_000 + "x**",
    "1" * 20_000 + "!",
    "((((" * 3_000,
    "WORD, " * 5_000 + ",",
]


def test_shape_guards_do_not_hang_on_long_near_misses():
    """Every guard finishes every near-miss, in a child process killed if it hangs (a guard that
    backtracks catastrophically would run for hours on 20k characters). How fast each guard is,
    against a linear scan, is ``bench/reasoning_gym_envs.py --shapes``: no time limit here."""
    names = sorted(n for n, r in RULES.items() if r.shape)
    code = (
        "import re, sys\n"
        "from rlvr_reasoning_gym.catalog import RULES\n"
        "from tests.reasoning_gym.test_rg_catalog import NEAR_MISSES\n"
        "for name in sys.argv[1:]:\n"
        "    pattern = re.compile(RULES[name].shape)\n"
        "    for text in NEAR_MISSES:\n"
        "        pattern.fullmatch(text)\n"
        "    print(name, flush=True)\n"
    )
    root = Path(__file__).resolve().parents[2]
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code, *names], cwd=root, capture_output=True, text=True, timeout=120
        )
    except subprocess.TimeoutExpired as exc:
        done = (exc.stdout or b"").decode().split() if isinstance(exc.stdout, bytes) else (exc.stdout or "").split()
        hung = next((n for n in names if n not in done), "?")
        raise AssertionError(f"the shape guard of {hung!r} hangs on a long near-miss") from None
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == names
