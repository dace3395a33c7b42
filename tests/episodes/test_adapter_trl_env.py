"""TRL ``environment_factory``: the contract GRPOTrainer calls, then a real GRPOTrainer run with tools."""

from __future__ import annotations

import inspect
import json

import pytest

from rlvr_envs.adapters.trl import build_rows
from rlvr_envs.adapters.trl_env import (
    add_environment_column,
    environment_factories,
    environment_factory,
    episode_reward,
    final_text,
)


def _tools_of(instance):
    """What TRL exposes as tools: public functions on the class, minus reset/get_reward."""
    return [
        n
        for n, _ in inspect.getmembers(type(instance), predicate=inspect.isfunction)
        if n not in ("reset", "get_reward") and not n.startswith("_")
    ]


def _row(prompt: str, answer: str) -> dict:
    return {
        "prompt": [{"role": "user", "content": prompt}],
        "env_id": "math-arith-v4",
        "task": json.dumps({"id": "t1", "prompt": prompt, "answer": answer}),
    }


def test_tools_are_the_env_tools_with_schemas_transformers_reads():
    transformers = pytest.importorskip("transformers.utils")
    factory = environment_factory("math-arith", tools=["calculator"])
    env = factory()
    assert _tools_of(env) == ["calculator"]
    schema = transformers.get_json_schema(env.calculator)["function"]
    assert schema["name"] == "calculator"
    assert "arithmetic" in schema["description"]
    assert schema["parameters"]["required"] == ["expression"]
    assert schema["parameters"]["properties"]["expression"]["type"] == "string"


def test_function_tool_with_optional_and_enum_arguments_round_trips_through_get_json_schema():
    transformers = pytest.importorskip("transformers.utils")

    def convert(value: float, unit: str = "m", precise: bool | None = None) -> str:
        """Convert a length.

        Args:
            value: The number to convert.
            unit: The unit to convert to.
            precise: Keep every digit.
        """
        return f"{value}{unit}{'!' if precise else ''}"

    env = environment_factory("math-arith", tools=[convert])()
    schema = transformers.get_json_schema(env.convert)["function"]["parameters"]
    assert schema["required"] == ["value"]
    assert schema["properties"]["value"]["type"] == "number"
    assert schema["properties"]["precise"]["type"] == "boolean"
    env.reset(**_row("1 m?", "1"))
    assert env.convert(value=2.5) == "2.5m"  # the tool's own default applies
    assert env.convert(value=1, unit="km", precise=True) == "1km!"
    assert env.convert(value="not a number").startswith("Error:")  # validated, never raises


def test_reset_poses_the_row_task_and_the_final_answer_is_scored_by_the_verifier():
    factory = environment_factory("math-arith", tools=["calculator"])
    rows = build_rows("math-arith", n=3, seed=1)
    for row in rows:
        env = factory()
        assert env.reset(**row) is None  # the prompt is already in the row
        answer = json.loads(row["task"])["answer"]
        assert env.calculator(expression="1+1") == "2"
        completion = [
            {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "calculator"}}]},
            {"role": "tool", "content": "2"},
            {"role": "assistant", "content": f"The answer is \\boxed{{{answer}}}."},
        ]
        assert episode_reward([completion], [env]) == [1.0]
        assert env._stats() == {}  # the episode ended, sessions closed
    env = factory()
    env.reset(**rows[0])
    assert episode_reward(["\\boxed{not a number}"], [env]) == [0.0]


def test_calls_after_the_answer_and_wrong_env_rows_are_refused():
    env = environment_factory("math-arith", tools=["calculator"])()
    env.reset(**_row("What is 2+2?", "4"))
    assert episode_reward(["\\boxed{4}"], [env]) == [1.0]
    assert env.calculator(expression="1+1").startswith("Error:")
    assert episode_reward(["\\boxed{5}"], [env]) == [1.0]  # idempotent: the first verdict stands
    with pytest.raises(ValueError, match="math-gsm8k"):
        env.reset(**{**_row("x", "1"), "env_id": "math-gsm8k"})


def test_tool_budget_and_hostile_arguments_are_answered_not_raised():
    env = environment_factory("math-arith", tools=["calculator"], max_tool_calls=2)()
    env.reset(**_row("What is 2+2?", "4"))
    assert env.calculator(expression="9**9**9**9").startswith("Error:")
    assert env.calculator(expression="__import__('os')").startswith("Error:")
    assert "budget" in env.calculator(expression="1+1")
    assert env._stats()["tool_calls"] == 2


def test_answer_tool_keeps_the_answer_in_the_episode_and_get_reward_scores_it():
    factory = environment_factory("math-arith", tools=["calculator"], answer_tool=True)
    env = factory()
    assert _tools_of(env) == ["calculator", "submit_answer"]
    env.reset(**_row("What is 6*7?", "42"))
    assert env.submit_answer(answer="42") == "Answer received."
    assert env.submit_answer(answer="41").startswith("Error:")
    assert env.get_reward() == 1.0
    env.reset(**_row("What is 6*7?", "42"))
    assert env.get_reward() == 0.0  # nothing submitted
    env.reset(**_row("What is 6*7?", "42"))
    env.submit_answer(answer="答案是四十一")  # multilingual, wrong
    assert env.get_reward() == 0.0


def test_dict_form_routes_rows_to_their_env():
    factories = environment_factories(["math-arith"], tools=["calculator"])
    assert list(factories) == ["math-arith"]
    rows = add_environment_column(build_rows("math-arith", n=2), names={"math-arith-v4": "math-arith"})
    assert {r["environment"] for r in rows} == {"math-arith"}
    two = environment_factories({"calc": "math-arith", "plain": "math-arith"}, tools=[])
    assert _tools_of(two["plain"]()) == []


def test_final_text_is_the_last_assistant_turn():
    assert final_text("x") == "x"
    assert final_text([]) == ""
    msgs = [
        {"role": "assistant", "content": "a"},
        {"role": "tool", "content": "t"},
        {"role": "assistant", "content": None},
    ]
    assert final_text(msgs) == ""
    assert final_text([{"role": "assistant", "content": [{"type": "text", "text": "ok"}]}]) == "ok"


@pytest.mark.slow
def test_a_real_grpo_run_calls_the_env_tools_and_scores_through_the_episode(tmp_path):
    pytest.importorskip("trl")
    import importlib.resources

    import torch
    from trl import GRPOConfig, GRPOTrainer

    from rlvr_envs.adapters.trl import build_dataset
    from rlvr_envs.tiny import build_model, build_tokenizer, supervised_warm_start

    template = (importlib.resources.files("trl") / "chat_templates" / "qwen2_5.jinja").read_text()
    dataset = build_dataset("math-arith", 4, seed=0)
    call = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "6*7"}}\n</tool_call>'
    tokenizer = build_tokenizer([r["prompt"][0]["content"] for r in dataset] + [call] * 8, vocab_size=300)
    tokenizer.add_special_tokens(
        {"additional_special_tokens": ["<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]}
    )
    tokenizer.eos_token = "<|im_end|>"
    tokenizer.chat_template = template
    model = build_model(tokenizer, hidden_size=32, layers=1, heads=2, max_positions=1024)
    factory = environment_factory("math-arith", tools=["calculator"])
    probe = factory()
    prompts = [
        tokenizer.apply_chat_template(r["prompt"], tools=[probe.calculator], tokenize=False, add_generation_prompt=True)
        for r in dataset
    ]
    # A warm start that makes the tool call the model's habit: the run then goes through TRL's tool loop.
    supervised_warm_start(model, tokenizer, [(p, call) for p in prompts], steps=50, batch_size=4, learning_rate=1e-2)
    calls: list[str] = []
    original = factory.calculator

    def counted(self, expression: str) -> str:
        out = original(self, expression=expression)
        calls.append(out)
        return out

    counted.__doc__, counted.__name__ = original.__doc__, "calculator"
    counted.__signature__ = inspect.signature(original)
    factory.calculator = counted
    seen: list[list[float | None]] = []

    def reward(completions, environments, **kw):
        out = episode_reward(completions, environments, **kw)
        seen.append(out)
        return out

    args = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=96,
        max_tool_calling_iterations=2,
        max_steps=1,
        learning_rate=1e-3,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        bf16=False,
        dataloader_num_workers=0,
        remove_unused_columns=False,
        seed=0,
    )
    torch.manual_seed(0)
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward],
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        environment_factory=factory,
    )
    trainer.train()
    assert calls and all(c == "42" for c in calls)  # the env's calculator ran, in TRL's tool loop
    assert len(seen) == 1 and len(seen[0]) == 4
    assert all(r in (0.0, 1.0) for r in seen[0])  # each scored by the verifier, none a verifier error
    assert any(m.get("tools/call_frequency", 0) > 0 for m in trainer.state.log_history)


def test_a_lost_tool_session_is_none_not_a_false_zero():
    from tests.episodes import adapter_tools

    adapter_tools.register()
    env = environment_factory("math-arith", tools=["dying"])()
    env.reset(**_row("What is 2+2?", "4"))
    assert env.dying(text="a") == "A"
    assert env.dying(text="b").startswith("Error:")
    assert episode_reward(["\\boxed{4}"], [env]) == [None]  # verifier_error: left out, not paid 0
    answer_env = environment_factory("math-arith", tools=["dying"], answer_tool=True)()
    answer_env.reset(**_row("What is 2+2?", "4"))
    answer_env.dying(text="a")
    answer_env.dying(text="b")
    answer_env.submit_answer(answer="4")
    assert answer_env.get_reward() is None
