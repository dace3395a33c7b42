"""Issue 17: the math entry point imports nothing heavy (sympy, ANTLR, latex2sympy, math-verify)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("sympy", "mpmath", "antlr4", "latex2sympy2_extended", "math_verify", "datasets", "pyarrow")


def _modules_after(code: str) -> dict:
    probe = (
        f"{code}\n"
        "import json, sys\n"
        f"heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({list(HEAVY)!r}))\n"
        "ours = sorted(m for m in sys.modules if m.startswith('rlvr_math'))\n"
        "print(json.dumps({'heavy': heavy, 'ours': ours}))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_and_running_the_entry_point_loads_no_heavy_module():
    found = _modules_after(
        "from importlib.metadata import entry_points\n"
        "(ep,) = [e for e in entry_points(group='rlvr_envs.envs') if e.name == 'math']\n"
        "assert ep.value == 'rlvr_math.registration:register_envs', ep.value\n"
        "ep.load()()\n"
    )
    assert found["heavy"] == []
    # Not even the verifier: only the package and its registration module.
    assert found["ours"] == ["rlvr_math", "rlvr_math.registration"], found["ours"]


def test_the_package_exports_load_on_first_use():
    found = _modules_after("import rlvr_math\nassert 'MathVerifier' in dir(rlvr_math)\n")
    assert found["heavy"] == [] and found["ours"] == ["rlvr_math"]
    found = _modules_after("from rlvr_math import MathVerifier, MatchConfig, answers_match\n")
    assert "rlvr_math.verifier" in found["ours"] and found["heavy"] == []  # sympy waits for an answer


def test_making_the_procedural_env_and_listing_ids_stays_light():
    found = _modules_after("import rlvr_envs\nrlvr_envs.make('math-arith', isolation='inline').reset(seed=0)\n")
    assert "sympy" not in found["heavy"] and "math_verify" not in found["heavy"]
