"""Every id's prompt, extractor and format reward agree on one layout (issue 27).

The Lean prompts asked for a ```lean4 block and then, through the ``plain`` format's
instruction, for the final answer in \\boxed{}: the format reward paid ``\\boxed{0}`` 1.0 and a
correct lean4 block 0.0. For every registered id this checks that

- the gold, written in the layout the prompt asks for (the env's ``gold_completion``; Lean has
  no gold proof, so a proof-shaped block in the env's own format stands in), gets the full
  format reward;
- every layout marker the format's instruction or system prompt mentions (\\boxed, <answer>,
  <think>, ```lean4, ```python) is in that gold, so the prompt never asks for a layout the
  reward does not pay (Lean's own ask, in the task prompt, is checked by the last test);
- an answer in no layout at all does not get the format reward, unless the format declares no
  layout (then it must not ask for one either).
"""

from __future__ import annotations

import pytest

import rlvr_envs
from rlvr_envs.registration import spec
from rlvr_envs.shaping import format_reward
from tests.test_conformance_all import IDS, make_for_conformance

MARKERS = ("\\boxed", "<answer>", "<think>", "```lean4", "```python")
NO_LAYOUT = "The result is 42, I am fairly sure of it."


def _shown(env, task) -> str:
    fmt = env.prompt_format
    return "\n".join(m["content"] for m in fmt.messages(task.prompt))


def _asked_by_format(env) -> str:
    """What the format adds to every prompt (a task's own text may quote code or tags as content)."""
    fmt = env.prompt_format
    return f"{fmt.system_prompt or ''}\n{fmt.instruction}"


def _gold(env, task) -> str:
    gold = env.gold_completion(task)
    if gold is not None:
        return gold
    # Lean: no gold proof exists; the layout is what is checked here, not the proof.
    return env.prompt_format.render_answer("theorem t : 1 + 1 = 2 := by\n  norm_num")


def _tasks(env):
    return list(env.tasks[:3]) if not env.procedural else env.sample(3, seed=0)


@pytest.mark.parametrize("env_id", IDS)
def test_the_gold_in_the_prompts_own_layout_gets_the_full_format_reward(env_id):
    env = make_for_conformance(env_id)
    for task in _tasks(env):
        gold = _gold(env, task)
        assert format_reward(gold, env.prompt_format) == 1.0, (env_id, env.prompt_format.name, gold[:200])
        asked = [m for m in MARKERS if m in _asked_by_format(env)]
        missing = [m for m in asked if m not in gold]
        assert not missing, f"{env_id}: the prompt asks for {missing}, which its own gold does not contain"


@pytest.mark.parametrize("env_id", IDS)
def test_an_answer_in_no_layout_gets_no_format_reward(env_id):
    env = make_for_conformance(env_id)
    fmt = env.prompt_format
    if fmt.follows_format("zq xv"):
        # A format with no layout (the response is the whole completion) must not ask for one.
        assert not fmt.instruction and not fmt.system_prompt, fmt.name
        return
    assert format_reward(NO_LAYOUT, fmt) == 0.0, (env_id, fmt.name)
    assert format_reward("", fmt) == 0.0, (env_id, fmt.name)


# The newest version of each Lean name, read from the registry: a hard-coded ``lean-*-v3`` went on
# testing the deprecated ids (and their old format) after the family moved to v4.
LEAN_IDS = [spec(name).id for name in ("lean", "lean-minif2f", "lean-workbook")]


@pytest.mark.parametrize("env_id", LEAN_IDS)
def test_lean_pays_the_lean4_block_and_not_a_boxed_answer(env_id):
    env = make_for_conformance(env_id)
    task = _tasks(env)[0]
    assert "\\boxed" not in _shown(env, task) and "```lean4" in _shown(env, task)
    block = "```lean4\n" + task.answer.get("statement", "theorem t : True") + " by\n  simp\n```"
    assert format_reward(block, env.prompt_format) == 1.0
    assert format_reward("<think>easy</think>\n" + block, env.prompt_format) == 1.0
    assert format_reward("The final answer is \\boxed{0}.", env.prompt_format) == 0.0
    assert format_reward("```lean4\ntheorem t : True := by\n  simp", env.prompt_format) == 0.0  # never closed


def test_a_mixture_pays_each_row_the_format_of_its_own_env():
    """Before, a mixture's format reward used ``plain`` for every row: a code row's ```python block
    got 0 and a bare \\boxed{0} got the bonus, as Lean's rows did before their format was theirs."""
    from rlvr_envs.adapters.rows import task_row
    from rlvr_envs.adapters.trl import reward_function

    code = make_for_conformance(spec("code-python").id)
    arith = rlvr_envs.make("math-arith", level=1)
    reward = reward_function([code, arith], format_weight=1.0)
    assert reward.format_per_row
    code_task, arith_task = code.tasks[0], arith.sample(1, seed=0)[0]
    rows = [
        (code, code_task, "```python\ndef nothing():\n    return None\n```"),  # wrong, in code's layout
        (code, code_task, "The final answer is \\boxed{0}."),  # wrong, in plain's layout
        (arith, arith_task, "The final answer is \\boxed{-99999}."),  # wrong, in plain's layout
        (arith, arith_task, "```python\nprint(1)\n```"),  # wrong, in code's layout
    ]
    exported = [task_row(env, task) for env, task, _ in rows]
    got = reward(
        prompts=[""] * 4,
        completions=[c for _, _, c in rows],
        task=[r["task"] for r in exported],
        env_id=[r["env_id"] for r in exported],
    )
    assert [v.passed for v in reward.last_verdicts] == [False] * 4
    assert got == [1.0, 0.0, 1.0, 0.0]
    # one format asked of every env: that one is paid everywhere
    same = reward_function(["math-arith", "rg-chain_sum"], format_weight=1.0, prompt_format="answer_tag")
    assert not same.format_per_row


def test_the_server_pays_a_mixtures_rows_their_own_format_too():
    from rlvr_envs.adapters.routing import EnvRouter
    from rlvr_envs.serve.protocol import Scoring, openrlhf_reply
    from rlvr_envs.shaping import RewardShaping

    code = make_for_conformance(spec("code-python").id)
    arith = rlvr_envs.make("math-arith", level=1)
    scoring = Scoring(router=EnvRouter([code, arith]), shaping=RewardShaping(format_weight=1.0))
    code_task, arith_task = code.tasks[0], arith.sample(1, seed=0)[0]
    rows = [
        (code.env_id, code_task, "```python\ndef nothing():\n    return None\n```", None),
        (code.env_id, code_task, "The final answer is \\boxed{0}.", None),
        (arith.env_id, arith_task, "The final answer is \\boxed{-99999}.", None),
    ]
    verdicts = scoring.router.verify(rows)
    assert [v.passed for v in verdicts] == [False] * 3
    assert openrlhf_reply(scoring, rows, verdicts, [True] * 3)["rewards"] == [1.0, 0.0, 1.0]
