import json
import subprocess
import sys
import textwrap
import warnings

import pytest

from rlvr_envs.registration import (
    DeprecatedEnvWarning,
    PluginLoadError,
    RegistrationError,
    Registry,
    UnknownEnvError,
    UnknownVersionError,
    make,
    parse_id,
    registry,
)

TOY = "tests.helpers.toy:ToyAddEnv"


@pytest.fixture
def reg():
    return Registry(group="rlvr_envs.tests.no_such_group")


def test_parse_id():
    assert parse_id("math-aime-v0") == ("math-aime", 0)
    assert parse_id("rg-spell_backward-v12") == ("rg-spell_backward", 12)
    assert parse_id("math-aime") == ("math-aime", None)
    for bad in ("", "-x", "a b", "x/y"):
        with pytest.raises(RegistrationError):
            parse_id(bad)


def test_register_requires_a_version_and_a_real_entry_point(reg):
    with pytest.raises(RegistrationError, match="version"):
        reg.register("toy-add", TOY)
    with pytest.raises(RegistrationError, match="entry point"):
        reg.register("toy-add-v0", "no_colon_here")


def test_latest_version_and_explicit_versions(reg):
    reg.register("toy-add-v0", TOY, digits=1)
    reg.register("toy-add-v1", TOY, digits=2)
    assert reg.resolve("toy-add").id == "toy-add-v1"
    assert reg.resolve("toy-add-v0").kwargs == {"digits": 1}
    with pytest.raises(UnknownVersionError, match="available: toy-add-v0, toy-add-v1"):
        reg.resolve("toy-add-v7")


def test_unknown_id_suggests_close_matches(reg):
    reg.register("toy-add-v0", TOY)
    with pytest.raises(UnknownEnvError, match="did you mean 'toy-add'"):
        reg.resolve("toy-ad")
    with pytest.raises(KeyError):
        reg["nothing-like-it"]
    assert "toy-add" in reg and "toy-ad" not in reg


def test_conflicting_registration_is_refused_unless_overridden(reg):
    reg.register("toy-add-v0", TOY)
    reg.register("toy-add-v0", TOY)  # identical: idempotent
    with pytest.raises(RegistrationError, match="already registered"):
        reg.register("toy-add-v0", TOY, digits=3)
    reg.register("toy-add-v0", TOY, digits=3, override=True)
    assert reg.resolve("toy-add-v0").kwargs == {"digits": 3}


def test_make_builds_the_env_with_merged_kwargs():
    registry.register("toyreg-add-v0", TOY, digits=1, override=True)
    env = make("toyreg-add", digits=3, size=5)
    assert env.env_id == "toyreg-add-v0" and env.digits == 3 and len(env.tasks) == 5


def test_deprecated_versions_warn_and_are_not_the_default():
    registry.register("toydep-add-v0", TOY, override=True)
    registry.register("toydep-add-v1", TOY, deprecated="reward changed; use v0", override=True)
    assert registry.resolve("toydep-add").id == "toydep-add-v0"
    with pytest.warns(DeprecatedEnvWarning, match="reward changed"):
        make("toydep-add-v1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make("toydep-add-v0")


def test_entry_point_that_does_not_import_is_a_plugin_error():
    registry.register("toybroken-x-v0", "no_such_module_anywhere:Env", override=True)
    with pytest.raises(PluginLoadError, match="no_such_module_anywhere"):
        make("toybroken-x")


def test_entry_point_returning_a_non_env_is_refused():
    registry.register("toynotenv-x-v0", lambda: object(), override=True)
    with pytest.raises(RegistrationError, match="not rlvr_envs.Env"):
        make("toynotenv-x")


# -- plugins, in a fresh interpreter with fake installed distributions ---------------------------

PLUGIN_GOOD = """
import rlvr_envs
def register_envs():
    rlvr_envs.register("goodfam-add-v0", "tests.helpers.toy:ToyAddEnv", size=None, data_source="procedural")
    rlvr_envs.register("goodfam-list-v0", "tests.helpers.toy:ToyListEnv", size=5)
"""
PLUGIN_BROKEN = """
raise RuntimeError("this plugin is broken on purpose")
"""


def _install_fake_plugins(tmp_path):
    for name, source, ep_name in [
        ("goodfam_plugin", PLUGIN_GOOD, "goodfam"),
        ("badfam_plugin", PLUGIN_BROKEN, "badfam"),
    ]:
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        dist = tmp_path / f"{name}-0.1.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
        target = f"{name}:register_envs"
        (dist / "entry_points.txt").write_text(f"[rlvr_envs.envs]\n{ep_name} = {target}\n")


def _run(tmp_path, code):
    import os

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.getcwd()]))
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_loads_no_family_and_no_heavy_module(tmp_path):
    _install_fake_plugins(tmp_path)
    out = _run(
        tmp_path,
        """
        import json, sys
        import rlvr_envs
        heavy = ["torch", "sympy", "datasets", "reasoning_gym", "transformers", "gymnasium", "pydantic",
                 "goodfam_plugin", "badfam_plugin", "rlvr_math", "rlvr_code", "rlvr_ifeval", "rlvr_reasoning_gym"]
        print(json.dumps([m for m in heavy if m in sys.modules]))
    """,
    )
    assert out == []


def test_plugins_load_lazily_and_a_broken_one_only_breaks_its_own_ids(tmp_path):
    _install_fake_plugins(tmp_path)
    out = _run(
        tmp_path,
        """
        import json, sys
        import rlvr_envs
        env = rlvr_envs.make("goodfam-add")
        result = {"made": env.env_id, "good_loaded": "goodfam_plugin" in sys.modules,
                  "bad_loaded_before_listing": "badfam_plugin" in sys.modules}
        try:
            rlvr_envs.make("badfam-thing")
        except rlvr_envs.PluginLoadError as exc:
            result["bad_error"] = str(exc)
        ids = list(rlvr_envs.registry)
        result["listed"] = [i for i in ids if i.startswith(("goodfam", "badfam"))]
        result["errors"] = sorted(rlvr_envs.registry.plugin_errors)
        print(json.dumps(result))
    """,
    )
    assert out["made"] == "goodfam-add-v0"
    assert out["good_loaded"] and not out["bad_loaded_before_listing"]
    assert "badfam" in out["bad_error"] and "broken on purpose" in out["bad_error"]
    assert out["listed"] == ["goodfam-add-v0", "goodfam-list-v0"]
    assert out["errors"] == ["badfam"]
