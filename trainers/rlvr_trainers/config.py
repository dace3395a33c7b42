"""The training-run configuration: one dataclass, presets, YAML loading, validation.

Every field is documented in ``FIELD_DOCS`` (also printed by ``rlvr-envs train --help-config``
and rendered in the README). A preset fills the algorithm fields (loss aggregation, clipping,
reward scaling, over-length shaping, dynamic sampling); any field set explicitly wins over
the preset. Validation raises ``ConfigError`` naming the field and the accepted values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr_envs.errors import RlvrEnvsError
from rlvr_trainers.episode_config import EPISODE_FIELD_DOCS, episode_config_problem


class ConfigError(RlvrEnvsError, ValueError):
    """A training configuration that cannot run, with the field and the fix in the message."""


PRESETS: dict[str, dict[str, Any]] = {
    # Per-sequence mean of token losses, std-normalised group advantages, symmetric clip.
    "grpo": {
        "loss_type": "grpo",
        "epsilon": 0.2,
        "epsilon_high": 0.2,
        "scale_rewards": "group",
        "overlong_shaping": False,
        "dynamic_sampling": False,
        "mask_truncated_completions": False,
    },
    # Dr. GRPO: constant normaliser and no std scaling (removes length and difficulty biases).
    "dr_grpo": {
        "loss_type": "dr_grpo",
        "epsilon": 0.2,
        "epsilon_high": 0.2,
        "scale_rewards": "none",
        "overlong_shaping": False,
        "dynamic_sampling": False,
        "mask_truncated_completions": False,
    },
    # DAPO: token-level loss, clip-higher 0.2/0.28, soft over-length punishment, dynamic sampling.
    # Truncated completions stay in the loss (their over-length penalty is the signal), as in
    # verl's DAPO recipe; the paper's "overlong filtering" is mask_truncated_completions=True.
    "dapo": {
        "loss_type": "dapo",
        "epsilon": 0.2,
        "epsilon_high": 0.28,
        "scale_rewards": "group",
        "overlong_shaping": True,
        "dynamic_sampling": True,
        "mask_truncated_completions": False,
    },
    # CISPO (MiniMax-M1): clip the importance weight itself (upper bound 5.0, ScaleRL's value).
    "cispo": {
        "loss_type": "cispo",
        "epsilon": 0.2,
        "epsilon_high": 5.0,
        "scale_rewards": "group",
        "overlong_shaping": False,
        "dynamic_sampling": False,
        "mask_truncated_completions": False,
    },
}

LOSS_TYPES = ("grpo", "dr_grpo", "dapo", "bnpo", "cispo")
SCALE_REWARDS = ("group", "batch", "none")
DEVICES = ("auto", "cpu", "cuda")
VLLM_MODES = ("colocate", "server")
FLAT_METRICS = ("correctness", "reward")
LORA_KEYS = frozenset({"r", "alpha", "dropout", "target_modules"})

FIELD_DOCS: dict[str, str] = {
    "envs": "Env ids to train on (e.g. [math-arith-v0]); rows are routed back to their env for reward.",
    "env_weights": "Mixing weights, one per env (default: equal).",
    "env_kwargs": (
        "Keyword arguments for rlvr_envs.make, per env: {math-500-v0: {data: math500.jsonl}} (keyed by "
        "the ids in envs). The flat form {level: 2} is for a single env only; an argument an env "
        "cannot take is an error."
    ),
    "model": "Model path or Hugging Face Hub id (loaded with transformers).",
    "prompt_format": (
        "Prompt format for every env (plain, r1, answer_tag, or an env's own, e.g. ifeval's verbatim); "
        "default: each env's own."
    ),
    "conversational": "Send chat messages through the tokenizer's chat template (auto: if it has one).",
    "preset": "Algorithm preset: grpo, dr_grpo, dapo, cispo.",
    "loss_type": "TRL loss aggregation (grpo, dr_grpo, dapo, bnpo, cispo); default from the preset.",
    "epsilon": "Lower clip range of the importance ratio; default from the preset.",
    "epsilon_high": "Upper clip range (clip-higher; CISPO's weight cap); default from the preset.",
    "scale_rewards": "Advantage scaling: group, batch or none; default from the preset.",
    "beta": "KL coefficient against the reference model (0 loads no reference model).",
    "num_generations": "Group size: completions sampled per prompt.",
    "prompts_per_step": "Distinct prompts per optimisation step (batch = prompts x group size).",
    "chat_template_kwargs": (
        "Extra arguments for the tokenizer's chat template, in rollouts and evaluation "
        "(e.g. {enable_thinking: false} for Qwen3)."
    ),
    "temperature": "Sampling temperature for rollouts.",
    "top_p": "Nucleus sampling threshold for rollouts.",
    "top_k": "Top-k sampling for rollouts (0: off).",
    "min_p": "Min-p sampling for rollouts (None: off).",
    "repetition_penalty": "Repetition penalty for rollouts (1.0: off).",
    "max_new_tokens": "Maximum completion length in tokens (also DAPO's l_max).",
    "learning_rate": "AdamW learning rate.",
    "max_steps": "Number of optimisation steps.",
    "num_iterations": "Updates per generated batch (PPO epochs, mu).",
    "steps_per_generation": (
        "Optimiser steps per rollout batch: one generation of steps_per_generation x "
        "prompts_per_step prompts feeds that many steps."
    ),
    "warmup_ratio": "Fraction of steps with linear learning-rate warm-up.",
    "max_grad_norm": "Gradient clipping norm.",
    "format_weight": "Weight of the format reward (layout of the prompt format); 0 turns it off.",
    "overlong_shaping": "DAPO soft over-length penalty on/off; default from the preset.",
    "l_cache": "Width in tokens of the soft over-length ramp below l_max (default: max_new_tokens // 4).",
    "l_max": "Length in tokens at which the over-length penalty reaches -1 (default: max_new_tokens).",
    "mask_truncated_completions": (
        "Leave completions cut at max_new_tokens out of the loss (the DAPO paper's "
        "overlong filtering); default from the preset (off in every preset, as in "
        "verl's DAPO recipe)."
    ),
    "pass_rate_band": "Keep only tasks whose stored pass rate lies in [lo, hi] (needs profile).",
    "profile": "Path of the pass-rate store written by `rlvr-envs profile` (used with pass_rate_band).",
    "dynamic_sampling": (
        "Replace groups whose rewards are all equal by fresh ones and drop those left (DAPO); default from the preset."
    ),
    "refill_rounds": (
        "With dynamic sampling, rounds of fresh prompts drawn per step to replace flat groups "
        "(0: only drop them; single process only)."
    ),
    "dynamic_sampling_metric": (
        "What makes a group flat: correctness (the verifier's passed, as verl's DAPO "
        "recipe filters on acc) or reward (the shaped reward)."
    ),
    "curriculum": "Level curriculum for procedural envs: {target: [lo, hi], window: N}; None for off.",
    "train_size": "Number of training prompts to build (default: prompts_per_step x max_steps, capped by data).",
    "eval_size": "Held-out tasks (never in the training set) used for pass@1 during and after training.",
    "eval_every": "Evaluate held-out pass@1 every N steps (0: only before and after).",
    "eval_k": "Samples per held-out task for pass@k at the start and the end.",
    "eval_every_k": "Samples per held-out task in the evaluations during training (default: eval_k).",
    "eval_temperature": "Sampling temperature for held-out evaluation.",
    "eval_envs": (
        "Envs evaluated but never trained on (e.g. [math-gsm8k-v0] while training on math-arith), "
        "eval_size tasks each, with pass@1 and pass@k per env."
    ),
    "eval_env_kwargs": (
        "Keyword arguments for rlvr_envs.make for the eval_envs, keyed by the ids in eval_envs as "
        "env_kwargs is (env_kwargs are not applied to them)."
    ),
    "output_dir": "Where metrics.jsonl, the plots and checkpoints go.",
    "seed": "Seed for data sampling and training.",
    "device": "auto, cpu or cuda. CPU runs in float32 without gradient checkpointing.",
    "use_vllm": "Generate with vLLM (auto: on a GPU when vllm is installed).",
    "vllm_mode": (
        "colocate (vLLM in the training processes) or server (a separate `trl vllm-serve` at "
        "vllm_server_host:vllm_server_port)."
    ),
    "vllm_server_host": "Host of the vLLM server in server mode.",
    "vllm_server_port": "Port of the vLLM server in server mode.",
    "vllm_tensor_parallel_size": "Tensor parallel size of colocated vLLM.",
    "vllm_gpu_memory_utilization": "Share of GPU memory vLLM may take in colocate mode.",
    "bf16": (
        "bfloat16 autocast (auto: on a GPU). Weights stay in float32, so AdamW keeps fp32 master weights "
        "and a small learning rate still moves every parameter."
    ),
    "lora": "LoRA instead of full fine-tuning: {r, alpha, dropout, target_modules} (needs peft); None for off.",
    "gradient_checkpointing": "Trade compute for memory (default: off).",
    "per_device_batch_size": "Completions per forward/backward micro-batch (default: the whole step).",
    "save_steps": "Save a resumable checkpoint (model, optimiser, scheduler, RNG) every N steps (0: none).",
    "save_total_limit": "Checkpoints kept (oldest deleted first; None: all).",
    "resume_from_checkpoint": "A checkpoint folder to resume from, or latest (the newest in output_dir).",
    "save_model": "Save the final model and tokenizer under output_dir/final.",
    "plot": "Write a PNG of the metric curves at the end.",
    "report_to": "Trainer loggers (none, wandb, tensorboard, ...).",
    "on_error": (
        "What a verifier_error (judge down, no toolchain, a crashed verifier: nothing said about the "
        "completion) pays: fail (leave it out; stop the run after 8 in a row), skip (always leave it "
        "out) or zero (pay 0.0, flagged). See rlvr_envs.adapters.failures."
    ),
    **EPISODE_FIELD_DOCS,
}


@dataclass
class TrainerConfig:
    """A training run. See ``FIELD_DOCS`` for every field's meaning."""

    envs: list[str] = field(default_factory=list)
    model: str = ""
    env_weights: list[float] | None = None
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    prompt_format: str | None = None
    conversational: bool | None = None
    preset: str = "dapo"
    loss_type: str | None = None
    epsilon: float | None = None
    epsilon_high: float | None = None
    scale_rewards: str | None = None
    beta: float = 0.0
    num_generations: int = 8
    prompts_per_step: int = 4
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    min_p: float | None = None
    repetition_penalty: float = 1.0
    max_new_tokens: int = 256
    learning_rate: float = 1e-6
    max_steps: int = 100
    num_iterations: int = 1
    steps_per_generation: int = 1
    warmup_ratio: float = 0.0
    max_grad_norm: float = 1.0
    format_weight: float = 0.0
    overlong_shaping: bool | None = None
    l_cache: int | None = None
    l_max: int | None = None
    mask_truncated_completions: bool | None = None
    pass_rate_band: tuple[float, float] | None = None
    profile: str | None = None
    dynamic_sampling: bool | None = None
    refill_rounds: int = 2
    dynamic_sampling_metric: str = "correctness"
    curriculum: dict[str, Any] | None = None
    train_size: int | None = None
    eval_size: int = 64
    eval_every: int = 10
    eval_k: int = 4
    eval_every_k: int | None = None
    eval_temperature: float = 1.0
    eval_envs: list[str] = field(default_factory=list)
    eval_env_kwargs: dict[str, Any] = field(default_factory=dict)
    output_dir: str = "runs/rlvr"
    seed: int = 0
    device: str = "auto"
    use_vllm: bool | None = None
    vllm_mode: str = "colocate"
    vllm_server_host: str = "127.0.0.1"
    vllm_server_port: int = 8000
    vllm_tensor_parallel_size: int = 1
    vllm_gpu_memory_utilization: float = 0.3
    bf16: bool | None = None
    lora: dict[str, Any] | None = None
    gradient_checkpointing: bool = False
    per_device_batch_size: int | None = None
    save_steps: int = 0
    save_total_limit: int | None = 2
    resume_from_checkpoint: str | None = None
    save_model: bool = False
    plot: bool = True
    report_to: str = "none"
    on_error: str = "fail"
    # Episodes (rlvr_trainers.episode_config): set, the run trains on multi-turn episodes.
    tools: list[str] | None = None
    max_turns: int | None = None
    tool_parser: str | None = None
    max_tool_calls: int | None = None
    max_generated_tokens: int | None = None
    max_generated_chars: int | None = None
    max_wall_s: float | None = None
    tool_timeout_s: float | None = None
    episode_batch: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.envs, str):
            self.envs = [self.envs]
        if isinstance(self.eval_envs, str):
            self.eval_envs = [self.eval_envs]
        if self.pass_rate_band is not None:
            self.pass_rate_band = tuple(self.pass_rate_band)  # type: ignore[assignment]
        self.validate()

    # -- resolved values (preset, then explicit fields) -------------------------------------------
    def resolved(self, name: str) -> Any:
        """A field's value after the preset: the explicit value if set, else the preset's."""
        value = getattr(self, name)
        return PRESETS[self.preset].get(name) if value is None else value

    @property
    def effective_l_max(self) -> int:
        return self.l_max if self.l_max is not None else self.max_new_tokens

    @property
    def effective_l_cache(self) -> int:
        return self.l_cache if self.l_cache is not None else max(1, self.effective_l_max // 4)

    @property
    def generation_batch_size(self) -> int:
        return self.prompts_per_step * self.num_generations

    def validate(self) -> None:
        """Raise ``ConfigError`` for the first field that cannot work."""
        if not self.envs or not all(isinstance(e, str) and e for e in self.envs):
            raise ConfigError("envs: give at least one env id, e.g. envs: [math-arith-v0]")
        if not isinstance(self.model, str) or not self.model:
            raise ConfigError("model: give a local model path or a Hugging Face Hub id")
        if self.env_weights is not None:
            if len(self.env_weights) != len(self.envs):
                raise ConfigError(f"env_weights: {len(self.env_weights)} weights for {len(self.envs)} envs")
            if any(w < 0 for w in self.env_weights) or not sum(self.env_weights) > 0:
                raise ConfigError("env_weights: weights must be non-negative with a positive sum")
        if self.preset not in PRESETS:
            raise ConfigError(f"preset: {self.preset!r} is not one of {sorted(PRESETS)}")
        if self.loss_type is not None and self.loss_type not in LOSS_TYPES:
            raise ConfigError(f"loss_type: {self.loss_type!r} is not one of {list(LOSS_TYPES)}")
        if self.scale_rewards is not None and self.scale_rewards not in SCALE_REWARDS:
            raise ConfigError(f"scale_rewards: {self.scale_rewards!r} is not one of {list(SCALE_REWARDS)}")
        if self.prompt_format is not None:
            check_prompt_format(self.prompt_format, [*self.envs, *self.eval_envs])
        from rlvr_envs.adapters.failures import ON_ERROR

        if self.on_error not in ON_ERROR:
            raise ConfigError(f"on_error: {self.on_error!r} is not one of {list(ON_ERROR)}")
        if self.device not in DEVICES:
            raise ConfigError(f"device: {self.device!r} is not one of {list(DEVICES)}")
        positive_ints = (
            "num_generations",
            "prompts_per_step",
            "max_new_tokens",
            "max_steps",
            "num_iterations",
            "eval_k",
            "steps_per_generation",
            "vllm_tensor_parallel_size",
        )
        for name in positive_ints:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{name}: must be a positive integer, got {value!r}")
        if self.num_generations < 2:
            raise ConfigError("num_generations: group advantages need at least 2 completions per prompt")
        if self.eval_every_k is not None and (
            isinstance(self.eval_every_k, bool) or not isinstance(self.eval_every_k, int) or self.eval_every_k < 1
        ):
            raise ConfigError(f"eval_every_k: must be a positive integer or None, got {self.eval_every_k!r}")
        if not all(isinstance(e, str) and e for e in self.eval_envs):
            raise ConfigError("eval_envs: a list of env ids, e.g. [math-gsm8k-v0]")
        for name in ("env_kwargs", "eval_env_kwargs", "chat_template_kwargs"):
            if not isinstance(getattr(self, name), Mapping):
                raise ConfigError(f"{name}: must be a mapping, got {getattr(self, name)!r}")
        per_env_kwargs(self.envs, self.env_kwargs, "env_kwargs", "envs")
        per_env_kwargs(self.eval_envs, self.eval_env_kwargs, "eval_env_kwargs", "eval_envs")
        if not isinstance(self.top_k, int) or isinstance(self.top_k, bool) or self.top_k < 0:
            raise ConfigError(f"top_k: must be a non-negative integer (0: off), got {self.top_k!r}")
        if self.min_p is not None and not 0 <= self.min_p <= 1:
            raise ConfigError(f"min_p: must be in [0, 1] or None, got {self.min_p!r}")
        if not self.repetition_penalty > 0:
            raise ConfigError(f"repetition_penalty: must be positive, got {self.repetition_penalty!r}")
        if self.vllm_mode not in VLLM_MODES:
            raise ConfigError(f"vllm_mode: {self.vllm_mode!r} is not one of {list(VLLM_MODES)}")
        if self.dynamic_sampling_metric not in FLAT_METRICS:
            raise ConfigError(
                f"dynamic_sampling_metric: {self.dynamic_sampling_metric!r} is not one of {list(FLAT_METRICS)}"
            )
        if self.lora is not None:
            if not isinstance(self.lora, Mapping):
                raise ConfigError(
                    "lora: a mapping such as {r: 16, alpha: 32, dropout: 0.05, target_modules: all-linear}"
                )
            unknown = set(self.lora) - LORA_KEYS
            if unknown:
                raise ConfigError(f"lora: unknown keys {sorted(unknown)}; use {sorted(LORA_KEYS)}")
            r = self.lora.get("r", 16)
            if not isinstance(r, int) or isinstance(r, bool) or r < 1:
                raise ConfigError(f"lora: r must be a positive integer, got {r!r}")
        if self.save_total_limit is not None and (
            not isinstance(self.save_total_limit, int) or self.save_total_limit < 1
        ):
            raise ConfigError(f"save_total_limit: must be a positive integer or None, got {self.save_total_limit!r}")
        for name in ("eval_size", "eval_every", "refill_rounds", "save_steps"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ConfigError(f"{name}: must be a non-negative integer, got {value!r}")
        for name in ("temperature", "eval_temperature", "learning_rate"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name}: must be positive, got {getattr(self, name)!r}")
        if not 0 < self.top_p <= 1:
            raise ConfigError(f"top_p: must be in (0, 1], got {self.top_p!r}")
        if self.beta < 0:
            raise ConfigError(f"beta: must be >= 0, got {self.beta!r}")
        for name in ("epsilon", "epsilon_high"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ConfigError(f"{name}: must be positive, got {value!r}")
        if not 0 <= self.warmup_ratio < 1:
            raise ConfigError(f"warmup_ratio: must be in [0, 1), got {self.warmup_ratio!r}")
        if self.resolved("overlong_shaping"):
            l_max, l_cache = self.effective_l_max, self.effective_l_cache
            if l_max < 1 or not 0 <= l_cache <= l_max:
                raise ConfigError(f"l_cache/l_max: need 0 <= l_cache <= l_max, got l_cache={l_cache}, l_max={l_max}")
        if self.pass_rate_band is not None:
            lo_hi = self.pass_rate_band
            if len(lo_hi) != 2 or not 0 <= lo_hi[0] <= lo_hi[1] <= 1:
                raise ConfigError(f"pass_rate_band: need [lo, hi] with 0 <= lo <= hi <= 1, got {list(lo_hi)}")
            if self.profile is None:
                raise ConfigError("pass_rate_band: also give profile (the store written by `rlvr-envs profile`)")
        if self.curriculum is not None:
            if not isinstance(self.curriculum, Mapping):
                raise ConfigError("curriculum: a mapping such as {target: [0.3, 0.7], window: 64}")
            unknown = set(self.curriculum) - {"target", "window"}
            if unknown:
                raise ConfigError(f"curriculum: unknown keys {sorted(unknown)}; use target and window")
        if self.per_device_batch_size is not None:
            if self.per_device_batch_size < 1 or self.generation_batch_size % self.per_device_batch_size:
                raise ConfigError(
                    f"per_device_batch_size: must divide prompts_per_step x num_generations "
                    f"({self.generation_batch_size}), got {self.per_device_batch_size}"
                )
        if not 0 < self.vllm_gpu_memory_utilization <= 1:
            raise ConfigError("vllm_gpu_memory_utilization: must be in (0, 1]")
        problem = episode_config_problem(self, PRESETS[self.preset])
        if problem is not None:
            raise ConfigError(problem)

    # -- (de)serialisation -------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrainerConfig:
        if not isinstance(data, Mapping):
            raise ConfigError(f"a config is a mapping of field names to values, got {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            import difflib

            hints = [
                f"{u} (did you mean {m[0]}?)" if (m := difflib.get_close_matches(u, known, 1)) else u for u in unknown
            ]
            raise ConfigError(f"unknown config fields: {', '.join(hints)}")
        try:
            return cls(**dict(data))
        except TypeError as exc:
            raise ConfigError(str(exc)) from None

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        if out["pass_rate_band"] is not None:
            out["pass_rate_band"] = list(out["pass_rate_band"])
        return out

    def replace(self, **changes: Any) -> TrainerConfig:
        return TrainerConfig.from_dict({**self.to_dict(), **changes})


def _id_name(env_id: str) -> str:
    """``math-500-v0`` -> ``math-500``: a key may name an env with or without its version."""
    name, sep, version = env_id.rpartition("-v")
    return name if sep and version.isdigit() else env_id


def _looks_like_env_id(key: str) -> bool:
    name, sep, version = key.rpartition("-v")
    return bool(sep and name and version.isdigit())


def per_env_kwargs(envs: list[str], kwargs: Mapping[str, Any], field_name: str, envs_field: str) -> dict[str, dict]:
    """``env_kwargs`` as {env id in ``envs``: its own kwargs}.

    Keyed form: ``{math-500-v0: {data: ...}, math-gsm8k-v0: {...}}`` (a key may leave out the
    version). Flat form ``{level: 2}``: only with one env, since with several it cannot say
    which env a ``data=`` is for (one env would silently train on another's rows).
    """
    by_name: dict[str, str] = {}
    for env_id in envs:
        by_name.setdefault(env_id, env_id)
        by_name.setdefault(_id_name(env_id), env_id)
    keyed = {k: v for k, v in kwargs.items() if k in by_name}
    flat = {k: v for k, v in kwargs.items() if k not in by_name}
    strays = [k for k in flat if _looks_like_env_id(str(k))]
    if strays:
        raise ConfigError(
            f"{field_name}: {strays[0]!r} is not one of {envs_field} ({envs}); key the arguments by those ids"
        )
    if keyed and flat:
        raise ConfigError(
            f"{field_name}: mixes per-env entries ({sorted(keyed)}) with bare arguments ({sorted(flat)}); "
            f"put every argument under the env it is for"
        )
    if flat:
        if len(envs) != 1:
            example = ", ".join(f"{e}: {{...}}" for e in envs)
            raise ConfigError(
                f"{field_name}: {sorted(flat)} do not say which env they are for, and {envs_field} has "
                f"{len(envs)} envs; write {field_name}: {{{example}}}"
            )
        return {envs[0]: dict(flat)}
    out: dict[str, dict] = {e: {} for e in envs}
    for key, value in keyed.items():
        if not isinstance(value, Mapping):
            raise ConfigError(f"{field_name}: the entry for {key} must be a mapping of arguments, got {value!r}")
        env_id = by_name[key]
        twice = set(out[env_id]) & set(value)
        if twice:
            raise ConfigError(f"{field_name}: {sorted(twice)} given twice for {env_id}")
        out[env_id].update(value)
    return out


def load_config(path: str | Path, **overrides: Any) -> TrainerConfig:
    """Read a YAML (or JSON) config file; ``overrides`` replace fields from the file."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    with path.open(encoding="utf-8") as fh:
        try:
            data = yaml.safe_load(fh) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping of config fields")
    return TrainerConfig.from_dict({**data, **overrides})


def config_reference() -> str:
    """Every field with its default and meaning, as Markdown table rows."""
    rows = ["| field | default | meaning |", "|---|---|---|"]
    for f in dataclasses.fields(TrainerConfig):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc,operator,unused-ignore]
        rows.append(f"| `{f.name}` | `{default!r}` | {FIELD_DOCS[f.name]} |")
    return "\n".join(rows)


def config_help(width: int = 100) -> str:
    """Every field with its default and meaning, as plain text (``rlvr-envs train --help-config``)."""
    import textwrap

    lines = [
        "Fields of a training config (YAML; override one with --set FIELD=VALUE).",
        "Unset algorithm fields take their value from the preset.",
        "",
    ]
    for f in dataclasses.fields(TrainerConfig):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc,operator,unused-ignore]
        lines.append(f"{f.name} (default {default!r})")
        lines += textwrap.wrap(FIELD_DOCS[f.name], width, initial_indent="    ", subsequent_indent="    ")
    lines += [
        "",
        "presets: "
        + ", ".join(f"{name} ({', '.join(f'{k}={v}' for k, v in values.items())})" for name, values in PRESETS.items()),
    ]
    return "\n".join(lines)


def check_prompt_format(name: str, env_ids: list[str]) -> None:
    """``name`` must resolve in every env's own table (``Env.resolve_format``), not only the core's.

    A family's format (ifeval's ``verbatim``, the judge's, code's) lives on its env class, so the
    core's global table alone would reject it. Ids that do not resolve are left to ``make``, which
    reports them with the registry's suggestions.
    """
    from rlvr_envs.errors import ConfigurationError, RlvrEnvsError
    from rlvr_envs.formats import get_format
    from rlvr_envs.registration import load_entry_point, spec

    if not isinstance(name, str) or not name:
        raise ConfigError(f"prompt_format: a format name, got {name!r}")
    checked = False
    for env_id in dict.fromkeys(env_ids):
        try:
            env_class = load_entry_point(spec(env_id).entry_point)
        except (RlvrEnvsError, ImportError, AttributeError):
            continue
        resolve = getattr(env_class, "resolve_format", None)
        if resolve is None:
            continue
        checked = True
        try:
            resolve(name)
        except (ConfigurationError, ValueError) as exc:
            raise ConfigError(f"prompt_format: {env_id}: {exc}") from None
    if not checked:
        try:
            get_format(name)
        except ValueError as exc:
            raise ConfigError(f"prompt_format: {exc}") from None
