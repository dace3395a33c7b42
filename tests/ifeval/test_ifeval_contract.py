"""The family on the contract (issue 27): ``path=`` is ``data=`` for every id, the prompt format
is owned by the env classes (nothing global written at import), and the first verdict of a new
process is cheap."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

import rlvr_envs
from rlvr_envs.errors import ConfigurationError
from tests.helpers.data import REPO_ROOT, shared_path


def _ifeval_ids() -> list[str]:
    registry = rlvr_envs.registry
    registry.load_all()
    return sorted(i for i in registry if registry[i].family == "ifeval")


def _data_for(env_id: str) -> str:
    return str(shared_path("ifbench_test.jsonl" if env_id.startswith("ifbench") else "ifeval_input_data.jsonl"))


@pytest.mark.parametrize("env_id", _ifeval_ids())
def test_path_is_an_alias_of_data_for_every_id(env_id: str) -> None:
    if rlvr_envs.registry[env_id].size is None and not rlvr_envs.registry[env_id].user_data:  # procedural
        with pytest.raises(ConfigurationError, match="base_prompts"):
            rlvr_envs.make(env_id, path=_data_for(env_id))
        return
    by_path = rlvr_envs.make(env_id, path=_data_for(env_id), limit=5)
    by_data = rlvr_envs.make(env_id, data=_data_for(env_id), limit=5)
    assert [t.fingerprint for t in by_path.tasks] == [t.fingerprint for t in by_data.tasks]
    assert len(by_path.tasks) == 5
    with pytest.raises(ConfigurationError, match="not both"):
        rlvr_envs.make(env_id, path=_data_for(env_id), data=[{"prompt": "p", "instruction_id_list": ["x"]}])


def test_the_ids_cover_every_family_member() -> None:
    assert {"ifeval-v1", "ifbench-v1", "ifeval-data-v2", "ifeval-synth-v3"} <= set(_ifeval_ids())


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_verbatim_format_is_owned_by_the_env_classes_not_written_into_the_global_table() -> None:
    out = _run(
        """
        import rlvr_envs
        from rlvr_envs.formats import PROMPT_FORMATS
        import rlvr_ifeval.envs, rlvr_ifeval.synth, rlvr_ifeval.verifier
        env = rlvr_envs.make("ifeval-synth", seed=0)
        assert env.prompt_format.name == "verbatim"
        assert rlvr_envs.make("ifeval-synth", prompt_format="verbatim").prompt_format is env.prompt_format
        assert rlvr_envs.make("ifeval-synth", prompt_format="r1").prompt_format.name == "r1"
        print("verbatim" in PROMPT_FORMATS)
        """
    )
    assert out.strip() == "False"


def test_the_first_verdict_of_a_new_process_is_cheap() -> None:
    """Every verl reward worker pays the first verdict: on a language-detection task it took ~9 s
    (langdetect's profiles, the engine's tables, numba's kernels). The bound is generous for a
    loaded machine; bench/ifeval_cold_start.py measures it. The tables' disk cache is what a
    machine has after its first process (or after scripts/setup.sh): made here first."""
    from rlvr_ifeval import langdetect_exact, langdetect_tables

    langdetect_exact.engine()
    if not langdetect_tables.cache_path().is_file():
        pytest.skip(f"the tables' cache directory is not writable here: {langdetect_tables.cache_dir()}")
    out = _run(
        """
        import time
        from rlvr_envs.types import Task
        from rlvr_ifeval.verifier import IFEvalVerifier
        start = time.perf_counter()  # the import is the same as before; the verdict was the cost
        task = Task(id="t", prompt="Write in German about rivers.",
                    answer={"instruction_id_list": ["language:response_language"], "kwargs": [{"language": "de"}]})
        verdict = IFEvalVerifier().verify(task, "Der Rhein ist ein langer Fluss in Europa, und viele Schiffe fahren auf ihm.")
        print(verdict.reward, time.perf_counter() - start)
        """
    )
    reward, seconds = out.split()
    assert float(reward) == 1.0
    assert float(seconds) < 3.0, f"first verdict took {seconds} s"


def test_warm_verdicts_stay_fast_after_the_cold_start() -> None:
    from rlvr_envs.types import Task
    from rlvr_ifeval.verifier import IFEvalVerifier

    task = Task(
        id="t",
        prompt="Write in French about rivers.",
        answer={"instruction_id_list": ["language:response_language"], "kwargs": [{"language": "fr"}]},
    )
    v = IFEvalVerifier()
    v.verify(task, "La Seine traverse Paris et rejoint la mer près du Havre, après un long voyage.")
    start = time.process_time()
    for i in range(50):
        v.verify(task, f"La Loire est le plus long fleuve de France, elle mesure {1000 + i} kilomètres environ.")
    assert time.process_time() - start < 2.0


def test_the_cached_tables_equal_a_fresh_build_and_a_bad_cache_is_rebuilt(tmp_path, monkeypatch) -> None:
    import numpy as np

    from rlvr_ifeval import langdetect_exact, langdetect_tables

    monkeypatch.setenv("RLVR_IFEVAL_CACHE_DIR", str(tmp_path))
    fresh = langdetect_exact._build_tables()
    _, cached = langdetect_tables.load_or_build(langdetect_exact._build_tables)
    assert not cached and langdetect_tables.cache_path().is_file()
    loaded, cached = langdetect_tables.load_or_build(lambda: pytest.fail("the cache was not used"))
    assert cached
    for name in langdetect_tables.NAMES:
        assert loaded[name].dtype == fresh[name].dtype and np.array_equal(loaded[name], fresh[name]), name
    langdetect_tables.cache_path().write_bytes(b"not an npz file")
    again, cached = langdetect_tables.load_or_build(langdetect_exact._build_tables)
    assert not cached and np.array_equal(again["profiles"], fresh["profiles"])
    monkeypatch.setenv("RLVR_IFEVAL_CACHE_DIR", "/proc/no-such-dir")  # unwritable: built, not saved
    _, cached = langdetect_tables.load_or_build(langdetect_exact._build_tables)
    assert not cached


def test_numba_is_not_imported_by_the_first_verdict() -> None:
    """The structural cause of the cold start: importing the family or verifying a language
    task must not wait for numba (its kernels load in the background, or in ``warm_up``)."""
    out = _run(
        """
        import sys
        from rlvr_envs.types import Task
        from rlvr_ifeval import langdetect_jit
        from rlvr_ifeval.verifier import IFEvalVerifier
        assert "numba" not in sys.modules and langdetect_jit.NGRAMS is None
        task = Task(id="t", prompt="p",
                    answer={"instruction_id_list": ["language:response_language"], "kwargs": [{"language": "de"}]})
        verdict = IFEvalVerifier().verify(task, "Der Rhein ist ein langer Fluss in Europa, und viele Schiffe fahren auf ihm.")
        assert verdict.reward == 1.0
        # ... and the kernels arrive in the background, after which detection uses them.
        import time
        from rlvr_ifeval import langdetect_exact
        deadline = time.monotonic() + 90
        while not langdetect_exact.engine().compiled and time.monotonic() < deadline:
            time.sleep(0.05)
        print(langdetect_exact.engine().compiled == langdetect_jit.load())
        """
    )
    assert out.strip() == "True"


def test_only_the_reference_scored_ids_exempt_classes_from_the_redteam() -> None:
    from rlvr_envs.redteam.runner import run_redteam

    data = _data_for("ifeval")
    bench = rlvr_envs.make("ifeval", data=data, limit=20)
    assert set(getattr(bench, "redteam_exempt", {})) >= {"echo_prompt", "word_salad"}
    guarded = rlvr_envs.make("ifeval", data=data, limit=20, guard=True)
    training = rlvr_envs.make("ifeval-data", data=data, limit=20)
    assert not getattr(guarded, "redteam_exempt", None) and not getattr(training, "redteam_exempt", None)
    # The reference checker pays some echoed prompts: shown as exempt, never as a hole.
    report = run_redteam(bench, n=20, seed=0, classes=["echo_prompt"], quick=True)
    (echo,) = report.classes
    assert report.holes == 0 and echo.exempt and echo.holes
