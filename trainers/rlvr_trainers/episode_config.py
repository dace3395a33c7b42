"""The episode fields of a training config: what they mean, and what a run on episodes cannot take.

A config with ``tools`` set (a list, ``[]`` included) trains on multi-turn episodes
(``make(id, tools=..., max_turns=...)``) with the bundled episode trainer
(``rlvr_trainers.episode_run``) instead of TRL's ``GRPOTrainer``. The other fields keep their
meaning where the episode trainer has the feature; a field it does not implement, set away from
its default, is refused here with the reason, so a run never silently ignores what it was asked.

This module never imports ``rlvr_trainers.config`` (which imports it): it returns the problem as
text and the config raises its own ``ConfigError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

EPISODE_FIELD_DOCS: dict[str, str] = {
    "tools": (
        "Train on multi-turn episodes with these tools (e.g. [calculator], [python]; [] for episodes with no "
        "tool) through the bundled episode trainer instead of TRL; None: single-turn through TRL."
    ),
    "max_turns": "Episodes: assistant turns per episode, the final answer's included (default: the env's, 8).",
    "tool_parser": "Episodes: tool-call parser name (hermes, json, qwen_xml, or a registered one; default hermes).",
    "max_tool_calls": "Episodes: tool calls per episode (default: the env's, 16).",
    "max_generated_tokens": (
        "Episodes: tokens the policy may generate over an episode, counted with the run's tokenizer "
        "(None: no budget beyond max_turns x max_new_tokens)."
    ),
    "max_generated_chars": "Episodes: characters the policy may generate over an episode (None: no budget).",
    "max_wall_s": "Episodes: wall time of one episode in seconds, tool time included (None: no budget).",
    "tool_timeout_s": "Episodes: budget of one tool call in seconds (default: the env's, 10).",
    "episode_batch": (
        "Episodes: how many run together in lockstep, one generate per turn for all (default 64; 1: one at "
        "a time). Each holds its tool sessions while it runs: lower it for heavy tools such as python."
    ),
}

EPISODE_FIELDS = tuple(EPISODE_FIELD_DOCS)
TRAINER_ONLY = ("episode_batch",)
"""Episode fields of the trainer itself; every other one is the ``make()`` option of the same name."""

_POSITIVE_INTS = ("max_turns", "max_tool_calls", "max_generated_tokens", "max_generated_chars", "episode_batch")
_POSITIVE_NUMBERS = ("max_wall_s", "tool_timeout_s")

# TRL features the episode trainer does not have: each must keep one of the values listed.
_UNSUPPORTED: dict[str, tuple[tuple[Any, ...], str]] = {
    "use_vllm": ((None, False), "generation is transformers' generate, one episode at a time"),
    "lora": ((None,), "full fine-tuning only"),
    "beta": ((0, 0.0), "no reference model (KL) in the episode loss"),
    "num_iterations": ((1,), "one update per rollout batch"),
    "steps_per_generation": ((1,), "one optimiser step per rollout batch"),
    "format_weight": ((0, 0.0), "the reward is the verifier's on the final answer"),
    "curriculum": ((None,), "a fixed task pool"),
    "pass_rate_band": ((None,), "a fixed task pool"),
    "profile": ((None,), "a fixed task pool"),
    "save_steps": ((0,), "no intermediate checkpoints (save_model saves the final model)"),
    "resume_from_checkpoint": ((None,), "no intermediate checkpoints"),
    "per_device_batch_size": ((None,), "one forward/backward per step"),
    "gradient_checkpointing": ((False,), "not wired into the episode loss"),
    "bf16": ((None, False), "float32 only"),
    "overlong_shaping": ((None, False), "an episode cut by a budget pays 0 instead"),
    "mask_truncated_completions": ((None, False), "an episode cut by a budget pays 0 and stays in its group"),
    "report_to": (("none",), "metrics go to metrics.jsonl"),
}


def _bad_positive(name: str, value: Any, *, integer: bool) -> str | None:
    if value is None:
        return None
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or not value > 0:
        kind = "integer" if integer else "number"
        return f"{name}: must be a positive {kind} or None, got {value!r}"
    return None


def episode_config_problem(config: Any, preset: Mapping[str, Any]) -> str | None:
    """What is wrong with ``config``'s episode fields (a message naming the field), or None."""
    tools = config.tools
    if tools is None:
        stray = [name for name in EPISODE_FIELDS[1:] if getattr(config, name) is not None]
        if stray:
            return (
                f"{stray[0]}: an episode option, but tools is not set; set tools: [calculator] (or [] for "
                "episodes without tools) to train on episodes"
            )
        return None
    if isinstance(tools, (str, bytes)) or not isinstance(tools, (list, tuple)):
        return f"tools: a list of tool names, e.g. [calculator] or [python], got {tools!r}"
    if not all(isinstance(t, str) and t for t in tools):
        return f"tools: every entry must be a tool name (a string), got {list(tools)!r}"
    if len(set(tools)) != len(tools):
        return f"tools: {list(tools)} names a tool twice"
    from rlvr_envs.episodes.parsers import parser_names
    from rlvr_envs.episodes.tools import tool_names

    known = tool_names()
    unknown = [t for t in tools if t not in known]
    if unknown:
        return f"tools: unknown tool {unknown[0]!r}; installed tools: {known}"
    if config.tool_parser is not None and config.tool_parser not in parser_names():
        return f"tool_parser: {config.tool_parser!r} is not one of {parser_names()}"
    for name in _POSITIVE_INTS:
        problem = _bad_positive(name, getattr(config, name), integer=True)
        if problem:
            return problem
    for name in _POSITIVE_NUMBERS:
        problem = _bad_positive(name, getattr(config, name), integer=False)
        if problem:
            return problem
    for name, (allowed, why) in _UNSUPPORTED.items():
        value = getattr(config, name)
        if not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
            return f"{name}: not available when training on episodes (tools is set: {why}); got {value!r}"
    loss_type = config.loss_type if config.loss_type is not None else preset.get("loss_type")
    if loss_type != "dapo":
        return (
            f"loss_type: episodes train with DAPO's token-level loss (loss_type dapo, preset dapo); "
            f"{config.preset} gives {loss_type!r}"
        )
    scale = config.scale_rewards if config.scale_rewards is not None else preset.get("scale_rewards")
    if scale not in ("group", "none"):
        return f"scale_rewards: episodes scale advantages per group or not at all (group, none), got {scale!r}"
    for kwargs_field in ("env_kwargs", "eval_env_kwargs"):
        kwargs = getattr(config, kwargs_field)
        nested = [v for v in kwargs.values() if isinstance(v, Mapping)] if isinstance(kwargs, Mapping) else []
        for entry in [kwargs, *nested]:
            clash = sorted(set(entry) & set(_env_option_names()))
            if clash:
                return (
                    f"{kwargs_field}: {clash[0]!r} is an episode option; set it as a top-level field ({clash[0]}: ...)"
                )
    return None


def _env_option_names() -> tuple[str, ...]:
    from rlvr_envs.episodes.env import EPISODE_OPTIONS

    return EPISODE_OPTIONS


def episode_make_kwargs(config: Any, count_tokens: Any = None) -> dict[str, Any]:
    """The ``make()`` keywords of ``config``'s episode fields (None left out: the env's default)."""
    kwargs: dict[str, Any] = {"tools": list(config.tools)}
    for name in EPISODE_FIELDS[1:]:
        value = getattr(config, name)
        if value is not None and name not in TRAINER_ONLY:
            kwargs[name] = value
    if config.max_generated_tokens is not None:
        kwargs["count_tokens"] = count_tokens  # a tokenizer or a str -> int function
    return kwargs
