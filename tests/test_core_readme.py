"""The README's plugin example must work as written."""

import re
import sys
from pathlib import Path

import rlvr_envs
from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.testing import check_env

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_plugin_example_passes_the_conformance_kit(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    example = next(b for b in blocks if "class ParityEnv" in b)
    envs_src, _, registration_src = example.partition("# my_family/registration.py")
    package = tmp_path / "my_family"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "envs.py").write_text(envs_src)
    (package / "registration.py").write_text(registration_src)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        from my_family.registration import register_envs

        register_envs()
        with VerificationPool(1) as pool:
            env = rlvr_envs.make("parity", pool=pool)
            report = check_env(env)
        assert report.gold_checked > 0 and report.adversarial_checked > 0
    finally:
        for name in [m for m in sys.modules if m.startswith("my_family")]:
            del sys.modules[name]
