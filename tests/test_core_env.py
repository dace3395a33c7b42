import warnings
from typing import ClassVar

import gymnasium
import pytest

from rlvr_envs import Reason, Task, Verdict
from rlvr_envs.env import TextSpace
from rlvr_envs.errors import ConfigurationError, SampleExhaustedWarning
from rlvr_envs.testing import ConformanceError, check_env
from rlvr_envs.wrappers import TaskListWrapper, Wrapper
from tests.helpers.toy import AddVerifier, ToyAddEnv, ToyListEnv


@pytest.fixture
def env():
    return ToyAddEnv(isolation="inline")


def test_reset_gives_prompt_and_info_without_the_answer(env):
    obs, info = env.reset(seed=3)
    task = env.current_task
    assert obs.startswith(task.prompt) and "\\boxed{}" in obs
    assert info["task_id"] == task.id and info["task_fingerprint"] == task.fingerprint
    assert info["messages"][-1] == {"role": "user", "content": obs}
    assert "answer" not in info and str(task.answer) not in str(info["difficulty"])


def test_reset_is_deterministic_per_seed(env):
    assert env.reset(seed=11)[0] == env.reset(seed=11)[0]
    assert {env.reset(seed=s)[1]["task_id"] for s in range(20)} != {env.reset(seed=0)[1]["task_id"]}


def test_reset_options_pick_a_task(env):
    task = env.tasks[2]
    assert env.reset(options={"task": task})[1]["task_id"] == task.id
    assert env.reset(options={"task_id": task.id})[1]["task_id"] == task.id
    assert env.reset(options={"index": 2})[1]["task_id"] == task.id
    assert env.reset(options={"task": task.model_dump()})[1]["task_id"] == task.id


def test_single_turn_step_terminates_with_a_verdict(env):
    env.reset(seed=1)
    task = env.current_task
    obs, reward, terminated, truncated, info = env.step(env.gold_completion(task))
    assert (obs, reward, terminated, truncated) == ("", 1.0, True, False)
    assert info["verdict"].reason is Reason.OK
    env.reset(seed=1)
    _, reward, terminated, _, info = env.step("\\boxed{-1}")
    assert reward == 0.0 and terminated and info["verdict"].reason is Reason.WRONG
    with pytest.raises(RuntimeError, match="reset"):
        env.step("again")


def test_multi_turn_gives_feedback_until_solved_or_out_of_turns():
    env = ToyAddEnv(isolation="inline", max_turns=3, retry_discount=1.0)  # later turns paid (round 10)
    env.reset(seed=5)
    task = env.current_task
    obs, reward, terminated, truncated, _ = env.step("\\boxed{-1}")
    assert not terminated and not truncated and "not accepted" in obs and reward == 0.0
    obs, reward, terminated, truncated, info = env.step(env.gold_completion(task))
    assert terminated and reward == 1.0 and info["turn"] == 2
    env.reset(seed=5)
    for _ in range(2):
        env.step("nothing")
    _, _, terminated, truncated, _ = env.step("nothing")
    assert truncated and not terminated


def test_verify_never_raises_on_model_output(env):
    task = env.tasks[0]
    for bad in [
        None,
        12,
        b"\\boxed{1}",
        "\x00" * 10,
        "\\boxed{" * 10_000,
        "x" * (env.max_completion_chars + 1),
    ]:
        verdict = env.verify(task, bad)
        assert isinstance(verdict, Verdict) and not verdict.passed


def test_procedural_tasks_are_reproducible_from_their_ids(env):
    tasks = env.sample(5, seed=9)
    assert [t.id for t in tasks] == [t.id for t in env.sample(5, seed=9)]
    assert [env.get_task(t.id) for t in tasks] == tasks
    assert env.tasks[3] == env.tasks[3] and len(env.tasks) == env.size
    with pytest.raises(IndexError):
        env.tasks[env.size]
    with pytest.raises(KeyError):
        env.get_task("not-a-seed")


def test_dataset_env_sampling_and_lookup():
    env = ToyListEnv(n=5, isolation="inline")
    assert len(env.tasks) == 5 and env.get_task("t3").answer == 6
    assert sorted(t.id for t in env.sample(5, seed=1)) == [f"t{i}" for i in range(5)]
    with pytest.warns(SampleExhaustedWarning, match="sample\\(12\\).*5 distinct"):
        assert len(env.sample(12, seed=1)) == 12
    with pytest.raises(KeyError):
        env.get_task("t9")


def test_levels_only_for_envs_that_have_them(env):
    with pytest.raises(TypeError):
        env.set_level(2)


def test_text_space_accepts_any_string_up_to_its_length():
    space = TextSpace(10)
    assert space.contains("héllo wörld"[:10]) and not space.contains("x" * 11) and not space.contains(3)
    assert isinstance(space, gymnasium.spaces.Space)


def test_conformance_kit_passes_a_sound_env_and_catches_an_unsound_one():
    check_env(ToyAddEnv())
    check_env(ToyListEnv())

    class ContainsVerifier(AddVerifier):  # rewards any completion that merely mentions the answer
        def verify(self, task, completion):
            if str(task.answer) in completion:
                return Verdict.correct(str(task.answer))
            return Verdict.failure(Reason.WRONG)

    class LeakyEnv(ToyAddEnv):
        def task_info(self, task):
            return {**super().task_info(task), "answer": task.answer}

    sloppy = ToyAddEnv(verifier=ContainsVerifier(), isolation="inline")
    with pytest.raises(ConformanceError, match="hedged among 50 candidates"):
        check_env(sloppy, use_pool=False)
    with pytest.raises(ConformanceError, match="key named 'answer'"):
        check_env(LeakyEnv(isolation="inline"), use_pool=False)


def test_tasks_from_other_envs_of_the_family_verify_too(env):
    foreign = Task(id="x", prompt="What is 1 + 1?", answer=2)
    assert env.verify(foreign, "\\boxed{2}").passed


def test_sample_past_the_data_draws_every_task_before_any_twice():
    env = ToyListEnv(n=60, isolation="inline")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len({t.id for t in env.sample(60, seed=3)}) == 60  # no warning while the data lasts
    with pytest.warns(SampleExhaustedWarning, match="40 repeats"):
        drawn = env.sample(100, seed=3)
    assert len(drawn) == 100 and len({t.id for t in drawn}) == 60  # was 48 distinct with replacement
    counts = {t.id: sum(d.id == t.id for d in drawn) for t in env.tasks}
    assert set(counts.values()) == {1, 2}
    with pytest.warns(SampleExhaustedWarning):
        assert [t.id for t in env.sample(100, seed=3)] == [t.id for t in drawn]  # still deterministic
    with pytest.raises(ValueError):
        env.sample(-1)


def test_limit_is_the_same_option_for_datasets_and_generators():
    assert [t.id for t in ToyListEnv(n=9, limit=4).tasks] == ["t0", "t1", "t2", "t3"]
    assert len(ToyAddEnv(size=50, limit=7).tasks) == 7
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ConfigurationError, match="limit="):
            ToyListEnv(limit=bad)


def test_procedural_env_warns_past_its_distinct_tasks():
    import rlvr_envs

    rlvr_envs.register("toysmall-add-v0", "tests.helpers.toy:ToyAddEnv", kwargs={"digits": 1}, distinct_tasks=100)
    env = rlvr_envs.make("toysmall-add", isolation="inline")
    assert env.distinct_tasks() == 100
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.sample(100, seed=0)
    with pytest.warns(SampleExhaustedWarning, match="100 distinct tasks"):
        env.sample(101, seed=0)


def test_task_list_wrapper_delegates_everything_but_the_tasks():
    inner = ToyAddEnv(isolation="inline", max_turns=2, retry_discount=1.0)
    chosen = inner.sample(4, seed=5)
    env = TaskListWrapper(inner, chosen)
    assert isinstance(env, Wrapper) and env.unwrapped is inner and env.env is inner
    assert env.prompt_format is inner.prompt_format and env.verifier is inner.verifier and env.digits == 2
    assert list(env.tasks) == chosen and not env.procedural and env.env_id == inner.env_id
    assert {env.reset(seed=s)[1]["task_id"] for s in range(30)} <= {t.id for t in chosen}
    assert env.reset(seed=4)[0] == env.reset(seed=4)[0]
    _, info = env.reset(options={"task_id": chosen[1].id})
    assert info["task_id"] == chosen[1].id and env.current_task == chosen[1]
    obs, reward, terminated, truncated, _ = env.step("\\boxed{-1}")  # the inner env's multi-turn episode
    assert (reward, terminated, truncated) == (0.0, False, False) and "not accepted" in obs
    _, reward, terminated, _, info = env.step(env.gold_completion(chosen[1]))
    assert reward == 1.0 and terminated and info["verdict"].reason is Reason.OK
    with pytest.raises(KeyError):
        env.get_task("nope")
    with pytest.raises(ConfigurationError):
        TaskListWrapper(inner, [])
    with pytest.raises(TypeError):
        Wrapper(object())
    check_env(env, n_tasks=2, seeds=(0,), use_pool=False)


def test_an_env_class_owns_its_prompt_formats_without_a_global_table():
    from rlvr_envs.formats import PROMPT_FORMATS, PromptFormat, get_format

    shout = PromptFormat("shout", None, "ANSWER IN <answer> TAGS.", "<answer>{answer}</answer>", r".*<answer>.*")

    class ShoutEnv(ToyAddEnv):
        prompt_formats: ClassVar[dict[str, PromptFormat]] = {"shout": shout}

    env = ShoutEnv(prompt_format="shout", isolation="inline")
    assert env.prompt_format is shout and env.reset(seed=0)[0].endswith("ANSWER IN <answer> TAGS.")
    assert ShoutEnv(prompt_format="r1").prompt_format.name == "r1"  # the built-in ones still work
    assert "shout" not in PROMPT_FORMATS
    with pytest.raises(ValueError):
        get_format("shout")
    with pytest.raises(ConfigurationError, match="choose from.*shout"):
        ShoutEnv(prompt_format="whisper")
    with pytest.raises(ConfigurationError):
        ToyAddEnv(prompt_format="shout")  # another class does not see it
