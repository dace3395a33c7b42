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


# -- errors, registration checks, make() options -----------------------------------------------


def test_every_error_derives_from_one_base_and_its_builtin():
    from rlvr_envs import errors

    assert issubclass(errors.UnknownEnvError, errors.RlvrEnvsError) and issubclass(errors.UnknownEnvError, KeyError)
    assert issubclass(errors.UnknownVersionError, errors.UnknownEnvError)
    assert issubclass(errors.PluginLoadError, ImportError) and issubclass(errors.RegistrationError, ValueError)
    assert issubclass(errors.DataError, ValueError) and issubclass(errors.DataUnavailableError, errors.RlvrEnvsError)
    from rlvr_envs.difficulty.filter import EmptyFilterError
    from rlvr_envs.testing import ConformanceError

    assert issubclass(EmptyFilterError, errors.RlvrEnvsError) and issubclass(ConformanceError, errors.RlvrEnvsError)
    # The registry module still exports them, as the same classes.
    assert UnknownEnvError is errors.UnknownEnvError and RegistrationError is errors.RegistrationError


def test_the_package_ships_py_typed():
    from importlib import resources

    assert resources.files("rlvr_envs").joinpath("py.typed").is_file()


def test_registration_metadata_is_checked_at_once(reg):
    with pytest.raises(RegistrationError, match="did you mean 'data_source'"):
        reg.register("toy-add-v0", TOY, data_sorce="typo")
    with pytest.raises(RegistrationError, match="did you mean 'difficulty_fields'"):
        reg.register("toy-add-v0", TOY, dificulty_fields=("level",))
    with pytest.raises(RegistrationError, match="tuple of field names"):
        reg.register("toy-add-v0", TOY, difficulty_fields="level")  # would have become ('l', 'e', ...)
    with pytest.raises(RegistrationError, match="size="):
        reg.register("toy-add-v0", TOY, size="60")
    with pytest.raises(RegistrationError, match="kwargs= must be a mapping"):
        reg.register("toy-add-v0", TOY, kwargs=["digits", 1])
    with pytest.raises(RegistrationError, match="both"):
        reg.register("toy-add-v0", TOY, kwargs={"digits": 1}, digits=2)
    with pytest.raises(RegistrationError, match="package.module:attribute"):
        reg.register("toy-add-v0", "tests.helpers.toy:")
    assert reg._specs == {}  # nothing half-registered


def test_env_defaults_by_kwargs_or_keywords_are_the_same(reg):
    a = reg.register("toy-add-v0", TOY, kwargs={"digits": 1})
    b = reg.register("toy-add-v1", TOY, digits=1)
    assert a.kwargs == b.kwargs == {"digits": 1}


def test_make_filter_options_are_keyword_only_and_never_reach_the_env(tmp_path):
    import inspect

    params = inspect.signature(make).parameters
    for name in ("pass_rate_band", "profile", "pass_rate_sampler"):
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
    registry.register("toykw-add-v0", TOY)
    with pytest.raises(ValueError, match="needs profile"):
        make("toykw-add", pass_rate_sampler="abc")


def test_make_accepts_gymnasiums_module_form(tmp_path, monkeypatch):
    (tmp_path / "toy_module_form.py").write_text(
        "import rlvr_envs\nrlvr_envs.register('toymod-add-v0', 'tests.helpers.toy:ToyAddEnv', override=True)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    env = make("toy_module_form:toymod-add", size=3)
    assert env.env_id == "toymod-add-v0" and len(env.tasks) == 3
    with pytest.raises(PluginLoadError, match="no_such_module_for_ids"):
        make("no_such_module_for_ids:x-v0")
    sys.modules.pop("toy_module_form", None)


def test_env_spec_is_gymnasiums_and_rebuilds_the_env():
    import gymnasium

    registry.register("toygym-add-v0", TOY, kwargs={"digits": 1})
    env = make("toygym-add", size=4)
    assert env.env_spec.id == "toygym-add-v0"
    assert isinstance(env.spec, gymnasium.envs.registration.EnvSpec) and env.spec.id == "rlvr_envs/toygym-add-v0"
    again = gymnasium.make(env.spec)
    assert again.unwrapped.env_id == "toygym-add-v0" and again.unwrapped.digits == 1 and len(again.unwrapped.tasks) == 4


def test_gymnasium_make_finds_our_ids_after_importing_rlvr_envs_gym(tmp_path):
    _install_fake_plugins(tmp_path)
    out = _run(
        tmp_path,
        """
        import json, gymnasium
        env = gymnasium.make("rlvr_envs.gym:rlvr_envs/goodfam-add-v0", size=3)
        obs, info = env.reset(seed=0)
        later = gymnasium.make("rlvr_envs/goodfam-list")  # registered by the import above
        print(json.dumps({"id": env.unwrapped.env_id, "spec": env.spec.id, "task": info["task_id"],
                          "later": later.unwrapped.env_id, "n": len(later.unwrapped.tasks)}))
    """,
    )
    assert out["id"] == "goodfam-add-v0" and out["spec"] == "rlvr_envs/goodfam-add-v0"
    assert out["later"] == "goodfam-list-v0" and out["n"] == 5


def test_registry_isolation_between_tests_part_one():
    registry.register("toyleak-add-v0", TOY)
    assert "toyleak-add" in registry


def test_registry_isolation_between_tests_part_two():
    # Runs after part one (file order): its registration must be gone.
    assert "toyleak-add-v0" not in registry._specs


def test_pool_workers_import_neither_gymnasium_nor_numpy(tmp_path):
    out = _run(
        tmp_path,
        """
        import json, sys
        import rlvr_envs.runtime.local.pool, rlvr_envs.runtime.local.worker, rlvr_envs.verifier
        print(json.dumps(sorted(m for m in ("gymnasium", "numpy") if m in sys.modules)))
    """,
    )
    assert out == []


def test_a_pool_worker_process_verifies_without_gymnasium():
    from rlvr_envs.runtime.local.pool import VerificationPool
    from rlvr_envs.types import Task
    from tests.core_light import ModulesVerifier

    with VerificationPool(1) as pool:
        [verdict] = pool.map(ModulesVerifier(), [Task(id="x", prompt="p", answer=1)], ["c"], timeout_s=60)
    assert verdict.passed, verdict
    assert verdict.details["loaded"] == [], verdict.details


def test_rlvr_envs_spec_stays_the_lookup_function_once_the_specs_module_is_loaded():
    import rlvr_envs
    import rlvr_envs.specs  # the module of EnvSpec must not shadow the package's spec()

    registry.register("toyspec-add-v0", TOY)
    assert callable(rlvr_envs.spec) and rlvr_envs.spec("toyspec-add").id == "toyspec-add-v0"
    assert rlvr_envs.EnvSpec is rlvr_envs.specs.EnvSpec
