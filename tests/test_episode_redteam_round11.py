"""Issue 26, round 11: a rollout paid for another rollout's task or answer (TRL ``environment_factory``).

Fixed (each hostile row fails on the commit before, 141986a): ``episode_reward`` scored each
completion in the environment handed beside it and trusted that pairing.

- One instance given for two rollouts (a factory that returns a shared object: TRL's pool then holds
  it twice) holds the last ``reset``'s task, and ``_finish`` is idempotent: the second rollout was
  paid the first one's verdict (a wrong answer paid 1.0), and the first was scored on the second's
  task. Every rollout of a shared instance is now a ``verifier_error`` naming the cause.
- An environment posing another task than the row TRL scores it with (the batch reordered or mixed
  between ``reset`` and the reward, ids duplicated across envs) paid an answer to the environment's
  task for a prompt that asked another: ``episode_reward`` now checks each environment's posed task
  against the row's ``task`` column (when TRL passes it, as it does for a ``build_dataset`` row) and
  refuses a mismatch as a ``verifier_error``. The default failure policy gives ``None`` (left out of
  the loss), never a reward.
- verl: ``EpisodeTool.create`` and ``VerifierInteraction.start_interaction`` given an instance id
  already open replaced its episode (or interaction) with the new trajectory's: the first
  trajectory's tool calls ran on the second's task, its sessions leaked, and both interactions were
  scored on the later task. Both now raise ``ValueError`` (verl logs it and ends that rollout's tool
  use or interaction); the open one is left as it was.
"""

from __future__ import annotations

import json

import pytest

from rlvr_envs.adapters.trl_env import environment_factory, episode_reward, episode_reward_function


def _row(task_id: str, prompt: str, answer: str) -> dict:
    return {
        "prompt": [{"role": "user", "content": prompt}],
        "env_id": "math-arith-v4",
        "task": json.dumps({"id": task_id, "prompt": prompt, "answer": answer}),
    }


ROW_A = _row("a", "What is 2+2?", "4")
ROW_B = _row("b", "What is 3+4?", "7")
# A task that shares A's id but not its content (two data sources, or a row edited after export).
ROW_A_TWIN = _row("a", "What is 2+3?", "5")


@pytest.fixture(scope="module")
def factory():
    return environment_factory("math-arith", tools=["calculator"])


def test_a_shared_instance_never_pays_one_rollouts_verdict_to_another(factory):
    shared = factory()
    shared.reset(**ROW_A)
    shared.reset(**ROW_B)  # TRL resets every rollout's instance before generating: B is what it holds
    # Rollout 1 (prompt A) answers B's gold; rollout 2 (prompt B) answers nonsense.
    out = episode_reward(["\\boxed{7}", "\\boxed{nonsense}"], [shared, shared], task=[ROW_A["task"], ROW_B["task"]])
    assert out == [None, None]
    rewards = episode_reward_function(on_error="zero")(["\\boxed{7}", "\\boxed{1}"], [shared, shared])
    assert rewards == [0.0, 0.0]  # without the task column too: the sharing alone is the fault


@pytest.mark.parametrize(
    ("posed", "rows", "completions"),
    [
        # reordered: the environments hold A then B, TRL's rows (and prompts) are B then A; each
        # completion answers its environment's task, not the prompt its row showed
        ((ROW_A, ROW_B), (ROW_B, ROW_A), ("\\boxed{4}", "\\boxed{7}")),
        # a duplicated id with other content: the environment holds A, the row is A's twin
        ((ROW_A,), (ROW_A_TWIN,), ("\\boxed{4}",)),
        # mixed: one rollout's environment holds the task of another row of the batch
        ((ROW_A, ROW_A), (ROW_A, ROW_B), ("\\boxed{4}", "\\boxed{4}")),
    ],
    ids=["reordered", "duplicated-id", "mixed"],
)
def test_an_environment_posing_another_task_than_its_row_is_never_paid(factory, posed, rows, completions):
    envs = []
    for row in posed:
        env = factory()
        env.reset(**row)
        envs.append(env)
    out = episode_reward_function(on_error="zero")(list(completions), envs, task=[r["task"] for r in rows])
    bound = [p["task"] == r["task"] for p, r in zip(posed, rows)]
    assert out == [1.0 if same else 0.0 for same in bound], out
    assert not all(bound)


def test_each_rollout_in_its_own_environment_is_paid_as_before(factory):
    envs = []
    for row in (ROW_A, ROW_B, ROW_A):  # the same task twice (a GRPO group) in distinct instances
        env = factory()
        env.reset(**row)
        envs.append(env)
    tasks = [ROW_A["task"], ROW_B["task"], ROW_A["task"]]
    assert episode_reward(["\\boxed{4}", "\\boxed{7}", "\\boxed{5}"], envs, task=tasks) == [1.0, 1.0, 0.0]
    drawn = factory()
    drawn.reset()  # no task column: the env drew a task, nothing to check it against
    assert episode_reward(["\\boxed{nonsense}"], [drawn]) == [0.0]


def test_verl_never_reopens_an_instance_id_on_another_task():
    import asyncio

    from rlvr_envs.adapters.verl_tools import EpisodeTool, VerifierInteraction

    async def run() -> None:
        tool = EpisodeTool({"type": "native", "env_id": "math-arith", "tool": "calculator"})
        ident, _ = await tool.create("same", create_kwargs={"task": ROW_A["task"]})
        with pytest.raises(ValueError, match="already open"):
            await tool.create("same", create_kwargs={"task": ROW_B["task"]})
        assert tool._episodes[ident].current_task.answer == "4"  # the open episode is left as it was
        await tool.release(ident)
        again, _ = await tool.create("same", create_kwargs={"task": ROW_B["task"]})  # released: free again
        assert tool._episodes[again].current_task.answer == "7"
        await tool.release(again)

        chat = VerifierInteraction({"env_id": "math-arith"})
        await chat.start_interaction("one", task=ROW_A["task"])
        with pytest.raises(ValueError, match="already open"):
            await chat.start_interaction("one", task=ROW_B["task"])
        await chat.generate_response("one", [{"role": "assistant", "content": "\\boxed{4}"}])
        assert await chat.calculate_score("one") == 1.0  # scored on its own task, A

    asyncio.run(run())
