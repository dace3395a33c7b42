"""Run a ``TrainerConfig`` on TRL's ``GRPOTrainer``, adding what TRL lacks.

Added on top of TRL: env-backed reward functions (verification in the core pool, ``None`` on
verifier errors), DAPO dynamic sampling (flat groups, judged on the verifier's correctness,
are replaced by groups of fresh prompts and those still flat leave the loss), per-env metrics
for mixtures, held-out evaluation (a split of the training envs never trained on, and envs
that are only evaluated) with pass@1 and pass@k every N steps, resumable checkpoints, a
self-describing run folder, JSONL metrics, PNG curves, a level curriculum for procedural envs,
and CPU/GPU defaults that need no accelerate config.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rlvr_trainers.config import ConfigError, TrainerConfig, load_config, per_env_kwargs
from rlvr_trainers.loading import device_for as _device
from rlvr_trainers.loading import load_model as _load_model
from rlvr_trainers.loading import make_env as _make_env
from rlvr_trainers.trainer import make_trainer_class

__all__ = ["build_grpo_args", "grpo_kwargs", "main", "make_trainer_class", "preflight", "run"]

RewardFn = Callable[..., list[float | None]]


def _world_size() -> int:
    # accelerate launch / torchrun set WORLD_SIZE; a plain `python` run is one process.
    try:
        return max(1, int(os.environ.get("WORLD_SIZE", "1")))
    except ValueError:
        return 1


def preflight(config: TrainerConfig, device: str) -> None:
    """Checks that need no model: what the config asks of this machine is installed."""
    if config.use_vllm and device != "cuda":
        raise ConfigError("use_vllm: vLLM rollouts need a GPU (device is cpu)")
    if config.use_vllm and importlib.util.find_spec("vllm") is None:
        raise ConfigError("use_vllm: vllm is not installed (pip install -e 'trainers[gpu]', see trainers/README.md)")
    if config.lora is not None and importlib.util.find_spec("peft") is None:
        raise ConfigError("lora: needs peft (pip install -e 'trainers[lora]')")
    if config.resume_from_checkpoint not in (None, "latest") and not Path(config.resume_from_checkpoint).is_dir():
        raise ConfigError(f"resume_from_checkpoint: {config.resume_from_checkpoint} is not a checkpoint folder")
    batch, world = config.generation_batch_size, _world_size()
    micro = config.per_device_batch_size or batch // world
    if batch % world or micro < 1 or batch % (micro * world):
        raise ConfigError(
            f"prompts_per_step x num_generations ({batch}) must split evenly over {world} processes "
            f"x per_device_batch_size {micro}"
        )


def build_grpo_args(config: TrainerConfig, device: str) -> Any:
    """The ``trl.GRPOConfig`` for ``config`` (one optimiser step per prompts_per_step prompts)."""
    from trl import GRPOConfig

    return GRPOConfig(**grpo_kwargs(config, device))


def grpo_kwargs(config: TrainerConfig, device: str) -> dict[str, Any]:
    """The keyword arguments of ``trl.GRPOConfig`` for ``config`` on ``device``."""
    from trl import GRPOConfig

    on_gpu = device == "cuda"
    use_vllm = config.use_vllm
    if use_vllm is None:
        use_vllm = on_gpu and importlib.util.find_spec("vllm") is not None
    if use_vllm and not on_gpu:
        raise ValueError("use_vllm needs a GPU (device is cpu)")
    batch, world = config.generation_batch_size, _world_size()
    micro = config.per_device_batch_size or batch // world
    accumulation = batch // (micro * world)
    kwargs: dict[str, Any] = {
        "output_dir": config.output_dir,
        "per_device_train_batch_size": micro,
        "gradient_accumulation_steps": accumulation,
        # TRL counts micro-batches per generation; ours counts optimiser steps.
        "steps_per_generation": accumulation * config.steps_per_generation,
        "num_generations": config.num_generations,
        "max_completion_length": config.max_new_tokens,
        "temperature": config.temperature,
        "top_p": config.top_p,
        "top_k": config.top_k,
        "min_p": config.min_p,
        "repetition_penalty": config.repetition_penalty,
        "chat_template_kwargs": dict(config.chat_template_kwargs) or None,
        "learning_rate": config.learning_rate,
        "lr_scheduler_type": "constant_with_warmup",
        "warmup_steps": int(config.warmup_ratio * config.max_steps),
        "max_grad_norm": config.max_grad_norm,
        "max_steps": config.max_steps,
        "num_iterations": config.num_iterations,
        "beta": config.beta,
        "loss_type": config.resolved("loss_type"),
        "epsilon": config.resolved("epsilon"),
        "epsilon_high": config.resolved("epsilon_high"),
        "scale_rewards": config.resolved("scale_rewards"),
        "mask_truncated_completions": bool(config.resolved("mask_truncated_completions")),
        "logging_steps": 1,
        "save_strategy": "steps" if config.save_steps else "no",
        "save_steps": config.save_steps or 500,
        "save_total_limit": config.save_total_limit,
        "report_to": config.report_to,
        "seed": config.seed,
        "use_cpu": not on_gpu,
        # Weights are loaded in float32 (see _load_model): bf16 here is autocast, with fp32 masters.
        "bf16": config.bf16 if config.bf16 is not None else on_gpu,
        "use_vllm": use_vllm,
        "dataloader_num_workers": 0,
        "remove_unused_columns": False,
        "disable_dropout": True,
    }
    # transformers 5 renamed gradient_checkpointing to activation_checkpointing.
    fields = {f.name for f in dataclasses.fields(GRPOConfig)}
    checkpointing = "activation_checkpointing" if "activation_checkpointing" in fields else "gradient_checkpointing"
    kwargs[checkpointing] = config.gradient_checkpointing
    if use_vllm:
        kwargs["vllm_mode"] = config.vllm_mode
        if config.vllm_mode == "server":
            kwargs.update(vllm_server_host=config.vllm_server_host, vllm_server_port=config.vllm_server_port)
        else:
            kwargs.update(
                vllm_gpu_memory_utilization=config.vllm_gpu_memory_utilization,
                vllm_tensor_parallel_size=config.vllm_tensor_parallel_size,
            )
    return kwargs


def _lora_config(config: TrainerConfig) -> Any:
    if config.lora is None:
        return None
    from peft import LoraConfig

    spec = dict(config.lora)
    return LoraConfig(
        r=spec.get("r", 16),
        lora_alpha=spec.get("alpha", 2 * spec.get("r", 16)),
        lora_dropout=spec.get("dropout", 0.0),
        target_modules=spec.get("target_modules", "all-linear"),
        task_type="CAUSAL_LM",
    )


class _Held:
    """Held-out evaluation items and the router that verifies them."""

    def __init__(self, router: Any, items: list[tuple[str, Any, str]]) -> None:
        self.router, self.items = router, items


def heldout_items(
    router: Any,
    config: TrainerConfig,
    conversational: bool,
    tokenizer: Any,
    tasks: Sequence[tuple[str, Any]] | None = None,
    eval_envs: Sequence[Any] = (),
) -> list[tuple[str, Any, str]]:
    """``(env_id, task, prompt text)`` for held-out evaluation.

    ``tasks`` gives them explicitly; otherwise ``eval_size`` tasks are drawn from the training
    envs with a seed apart from the training one (the training set then excludes them by
    fingerprint), plus ``eval_size`` tasks of each env in ``eval_envs`` (evaluated only).
    """
    from rlvr_envs.adapters.routing import task_from_json
    from rlvr_envs.adapters.trl import build_rows, prompt_for

    envs_by_id = {**router.envs, **{e.env_id: e for e in eval_envs}}
    if tasks is not None:
        pairs = list(tasks)
    else:
        pairs = []
        if config.eval_size:
            rows = build_rows(
                list(router.envs.values()),
                config.eval_size,
                weights=config.env_weights,
                seed=config.seed + 7919,
                conversational=conversational,
            )
            for env in eval_envs:
                rows += build_rows([env], config.eval_size, seed=config.seed + 7919, conversational=conversational)
            pairs = [(row["env_id"], task_from_json(row["task"])) for row in rows]
    items = []
    for env_id, task in pairs:
        env = envs_by_id.get(env_id) or router.env_for(env_id)
        prompt = prompt_for(env, task, conversational)
        if conversational:
            prompt = tokenizer.apply_chat_template(
                prompt, tokenize=False, add_generation_prompt=True, **config.chat_template_kwargs
            )
        items.append((env_id, task, str(prompt)))
    return items


def _make_envs(config: TrainerConfig, envs: Sequence[Any] | None) -> tuple[Any, list[Any]]:
    """The training router and the evaluation-only envs; unknown ids fail here, before any download."""
    from rlvr_envs.adapters.routing import EnvRouter

    common: dict[str, Any] = {}
    if config.prompt_format is not None:
        common["prompt_format"] = config.prompt_format
    if config.pass_rate_band is not None:
        common.update(pass_rate_band=config.pass_rate_band, profile=config.profile)
    if envs is not None:
        train_envs = list(envs)
    else:
        own = per_env_kwargs(config.envs, config.env_kwargs, "env_kwargs", "envs")
        train_envs = [_make_env(env_id, {**common, **own[env_id]}, "env_kwargs") for env_id in config.envs]
    router = EnvRouter(train_envs)
    eval_common = {"prompt_format": config.prompt_format} if config.prompt_format is not None else {}
    eval_own = per_env_kwargs(config.eval_envs, config.eval_env_kwargs, "eval_env_kwargs", "eval_envs")
    eval_envs = [_make_env(e, {**eval_common, **eval_own[e]}, "eval_env_kwargs") for e in config.eval_envs]
    both = set(router.envs) & {e.env_id for e in eval_envs}
    if both:
        raise ConfigError(
            f"eval_envs: {sorted(both)} are also training envs; their held-out split is already "
            "evaluated (eval_size), so list only envs that are not trained on"
        )
    return router, eval_envs


def env_reward(config: TrainerConfig, router: Any) -> Any:
    """The run's reward: the envs' verifiers, shaped as configured, with the config's ``on_error``."""
    from rlvr_envs.adapters.trl import reward_function

    return reward_function(
        list(router.envs.values()),
        format_weight=config.format_weight,
        l_max=config.effective_l_max if config.resolved("overlong_shaping") else None,
        l_cache=config.effective_l_cache,
        on_error=config.on_error,
    )


def _resume_point(config: TrainerConfig) -> str | None:
    if config.resume_from_checkpoint is None:
        return None
    if config.resume_from_checkpoint != "latest":
        return config.resume_from_checkpoint
    from transformers.trainer_utils import get_last_checkpoint

    out = Path(config.output_dir)
    last = get_last_checkpoint(str(out)) if out.is_dir() else None
    if last is None:
        raise ConfigError(f"resume_from_checkpoint: no checkpoint-N folder in {out} to resume from")
    return last


def run(
    config: TrainerConfig,
    *,
    model: Any = None,
    tokenizer: Any = None,
    reward_funcs: Sequence[RewardFn] | None = None,
    envs: Sequence[Any] | None = None,
    heldout_tasks: Sequence[tuple[str, Any]] | None = None,
    quiet: bool = False,
    title: str | None = None,
) -> dict[str, Any]:
    """Train with ``config``; returns a summary with the held-out scores before and after.

    Args:
        model, tokenizer: an already built model (the demo's tiny one) instead of ``config.model``.
        reward_funcs: replace the env reward (the demo's controls use this).
        envs: already made env objects instead of making ``config.envs``.
        heldout_tasks: ``(env_id, task)`` pairs to evaluate on instead of drawing ``eval_size``.
        quiet: no progress bar.
    """
    from rlvr_envs.adapters.routing import EnvRouter
    from rlvr_envs.adapters.trl import build_dataset
    from rlvr_trainers.callbacks import make_metrics_callback, read_records
    from rlvr_trainers.evaluation import evaluate
    from rlvr_trainers.rundir import write_run_info

    if config.tools is not None:  # multi-turn episodes: the bundled episode trainer, not TRL
        if reward_funcs is not None:
            raise ConfigError("tools: episodes are paid by their env's verifier; reward_funcs= is for single-turn runs")
        from rlvr_trainers.episode_run import run_episodes

        return run_episodes(
            config, model=model, tokenizer=tokenizer, envs=envs, heldout_tasks=heldout_tasks, quiet=quiet, title=title
        )
    # Everything that can be checked without the model is, so a typo never waits for a download.
    device = _device(config)
    preflight(config, device)
    router, eval_envs = _make_envs(config, envs)
    resume = _resume_point(config)
    make_trainer_class()  # the TRL version check
    if model is None or tokenizer is None:
        model, tokenizer = _load_model(config, device)
    if device == "cuda" and getattr(model, "device", None) is not None and model.device.type != "cuda":
        # The held-out evaluation before training runs before the trainer places the model.
        model.to(f"cuda:{int(os.environ.get('LOCAL_RANK', '0'))}")
    conversational = config.conversational
    if conversational is None:
        conversational = getattr(tokenizer, "chat_template", None) is not None

    eval_router = EnvRouter(list(router.envs.values()) + eval_envs) if eval_envs else router
    held = _Held(eval_router, heldout_items(router, config, conversational, tokenizer, heldout_tasks, eval_envs))
    exclude = {task.fingerprint for _, task, _ in held.items}
    train_size = config.train_size or config.prompts_per_step * config.max_steps * config.steps_per_generation
    curriculum_env = _curriculum_env(config, router) if config.curriculum else None
    if curriculum_env is not None:
        train_dataset = make_level_dataset(curriculum_env, train_size, config.seed, conversational, exclude)
    else:
        train_dataset = build_dataset(
            list(router.envs.values()),
            train_size,
            weights=config.env_weights,
            seed=config.seed,
            conversational=conversational,
            exclude=exclude,
        )
    if reward_funcs is None:
        reward_funcs = [env_reward(config, router)]
    curriculum = None
    if curriculum_env is not None:
        spec = dict(config.curriculum or {})
        curriculum = LevelSchedule(
            curriculum_env,
            reward_funcs[0],
            target=tuple(spec.get("target", (0.2, 0.8))),
            window=int(spec.get("window", config.generation_batch_size * 4)),
        )
    out_dir = Path(config.output_dir)
    write_run_info(out_dir, config.to_dict(), list(router.envs.values()), eval_envs, device, resumed_from=resume)

    def held_eval(k: int) -> dict[str, Any] | None:
        if not held.items:
            return None
        return evaluate(
            model,
            tokenizer,
            held.router,
            held.items,
            k=k,
            temperature=config.eval_temperature,
            max_new_tokens=config.max_new_tokens,
        ).as_dict()

    before_path = out_dir / "before.json"
    if resume is not None and before_path.is_file():
        before = json.loads(before_path.read_text(encoding="utf-8"))
    else:
        before = held_eval(config.eval_k) or {}
        before_path.write_text(json.dumps(before, indent=2), encoding="utf-8")
    args = build_grpo_args(config, device)
    if quiet:
        args.disable_tqdm = True
    previous = read_records(out_dir / "metrics.jsonl", _checkpoint_step(resume)) if resume else []
    callback = make_metrics_callback(config, held_eval, out_dir / "metrics.jsonl", curriculum, previous)
    trainer_cls = make_trainer_class()
    trainer = trainer_cls(
        model=model,
        reward_funcs=list(reward_funcs),
        args=args,
        train_dataset=train_dataset,
        processing_class=tokenizer,
        callbacks=[callback],
        peft_config=_lora_config(config),
        dynamic_sampling=bool(config.resolved("dynamic_sampling")),
        refill_rounds=config.refill_rounds,
        flat_metric=config.dynamic_sampling_metric,
    )
    # Our callback draws one compact progress bar; TRL's own printers would dump every log dict.
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    trainer.remove_callback(ProgressCallback)
    trainer.remove_callback(PrinterCallback)
    start = time.perf_counter()
    trainer.train(resume_from_checkpoint=resume)
    train_seconds = time.perf_counter() - start
    model = trainer.model
    after = held_eval(config.eval_k) or {}
    summary = {
        "before": before,
        "after": after,
        "train_seconds": round(train_seconds, 1),
        "steps": len(callback.records),
        "metrics_path": str(out_dir / "metrics.jsonl"),
        "heldout_tasks": len(held.items),
        "device": device,
        "resumed_from": resume,
        "final_step": trainer.state.global_step,
    }
    if config.plot and callback.records:
        from rlvr_trainers.plots import plot_metrics

        summary["plot_path"] = str(
            plot_metrics(callback.records, out_dir / "curves.png", before, after, title=title or run_title(config))
        )
    if config.save_model:
        trainer.save_model(str(out_dir / "final"))
        tokenizer.save_pretrained(str(out_dir / "final"))
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    summary["model"] = model
    return summary


def run_title(config: TrainerConfig) -> str:
    """What a plot of this run needs to be told apart from another: envs, algorithm, seed, schedule."""
    envs = ", ".join(config.envs)
    return (
        f"{envs} | {config.preset} | seed {config.seed} | lr {config.learning_rate:g} | "
        f"{config.max_steps} steps x {config.prompts_per_step} prompts x {config.num_generations} rollouts"
    )


def _checkpoint_step(path: str | None) -> int | None:
    if path is None:
        return None
    try:
        return int(Path(path).name.rsplit("-", 1)[-1])
    except ValueError:
        state = Path(path) / "trainer_state.json"
        return json.loads(state.read_text())["global_step"] if state.is_file() else None


class LevelSchedule:
    """A level curriculum in the training loop: the env reward's verdicts of each step go to
    ``rlvr_envs.difficulty.curriculum.LevelCurriculum``, which moves the env's level; the
    training rows are drawn at the current level (see ``LevelDataset``)."""

    def __init__(self, env: Any, reward_fn: Any, target: tuple[float, float], window: int) -> None:
        from rlvr_envs.difficulty.curriculum import LevelCurriculum

        self.curriculum = LevelCurriculum(env, target=target, window=window)
        self.reward_fn = reward_fn

    def step(self) -> int:
        verdicts = getattr(self.reward_fn, "last_verdicts", None)
        if verdicts:
            self.curriculum.observe(verdicts)
            self.reward_fn.last_verdicts = []
        return self.curriculum.level


def make_level_dataset(env: Any, size: int, seed: int, conversational: bool, exclude: set[str]) -> Any:
    """Training rows drawn from ``env`` at its current level, generated when read.

    A ``datasets.Dataset`` of indices with an on-the-fly transform (TRL accepts only
    ``datasets`` objects). Rows are cached by (index, level): TRL reads an index once per
    rollout of a group and all of them must be the same task; after a level change the same
    index yields a fresh task of the new level.
    """
    import random

    import datasets

    from rlvr_envs.adapters.routing import task_to_json
    from rlvr_envs.adapters.trl import ENV_COLUMN, TASK_COLUMN, prompt_for

    cache: dict[tuple[int, int | None], dict[str, Any]] = {}

    def row_for(index: int) -> dict[str, Any]:
        key = (int(index), env.level)
        row = cache.get(key)
        if row is None:
            rng = random.Random(f"{seed}:{key}")
            task = env.task_from_seed(rng.getrandbits(48))
            for _ in range(20):  # never a held-out task
                if task.fingerprint not in exclude:
                    break
                task = env.task_from_seed(rng.getrandbits(48))
            row = {
                "prompt": prompt_for(env, task, conversational),
                ENV_COLUMN: env.env_id,
                TASK_COLUMN: task_to_json(task),
                "task_id": task.id,
            }
            cache[key] = row
        return row

    def transform(batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
        rows = [row_for(i) for i in batch["row_index"]]
        return {k: [r[k] for r in rows] for k in ("prompt", ENV_COLUMN, TASK_COLUMN, "task_id")}

    dataset = datasets.Dataset.from_dict({"row_index": list(range(size))})
    dataset.set_transform(transform)
    return dataset


def _curriculum_env(config: TrainerConfig, router: Any) -> Any:
    envs = list(router.envs.values())
    if len(envs) != 1 or getattr(envs[0], "max_level", None) is None or not envs[0].procedural:
        raise ValueError(
            f"curriculum: needs exactly one procedural env with difficulty levels (got {[e.env_id for e in envs]})"
        )
    return envs[0]


def main(argv: Sequence[str] | None = None) -> int:
    from rlvr_trainers.arguments import add_arguments

    parser = argparse.ArgumentParser(prog="rlvr-train", description="Train on rlvr-envs environments with TRL.")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        overrides = parse_overrides(args.set)
        if args.resume is not None:
            overrides["resume_from_checkpoint"] = args.resume
        summary = run(load_config(args.config, **overrides))
    except ConfigError as exc:
        print(f"rlvr-train: config error: {exc}", file=sys.stderr)
        return 1
    summary.pop("model", None)
    print(json.dumps(summary, indent=2))
    return 0


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    import yaml

    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--set expects FIELD=VALUE, got {item!r}")
        out[name.strip()] = yaml.safe_load(value)
    return out


if __name__ == "__main__":
    sys.exit(main())
