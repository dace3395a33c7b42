"""Run a ``TrainerConfig`` on TRL's ``GRPOTrainer``, adding what TRL lacks.

Added on top of TRL: env-backed reward functions (verification in the core pool, ``None`` on
verifier errors), DAPO dynamic sampling (groups whose rewards are all equal are replaced by
groups of fresh prompts, and those still equal leave the loss), a held-out
split never seen in training with pass@1 every N steps, JSONL metrics, PNG curves, a level
curriculum for procedural envs, and CPU/GPU defaults that need no accelerate config.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rlvr_trainers.config import TrainerConfig, load_config

RewardFn = Callable[..., list[float | None]]


def _device(config: TrainerConfig) -> str:
    if config.device != "auto":
        return config.device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def build_grpo_args(config: TrainerConfig, device: str) -> Any:
    """The ``trl.GRPOConfig`` for ``config`` (one generation per optimisation step)."""
    import importlib.util

    from trl import GRPOConfig

    on_gpu = device == "cuda"
    use_vllm = config.use_vllm
    if use_vllm is None:
        use_vllm = on_gpu and importlib.util.find_spec("vllm") is not None
    if use_vllm and not on_gpu:
        raise ValueError("use_vllm needs a GPU (device is cpu)")
    batch = config.generation_batch_size
    micro = config.per_device_batch_size or batch
    kwargs: dict[str, Any] = {
        "output_dir": config.output_dir,
        "per_device_train_batch_size": micro,
        "gradient_accumulation_steps": batch // micro,
        "num_generations": config.num_generations,
        "max_completion_length": config.max_new_tokens,
        "temperature": config.temperature,
        "top_p": config.top_p,
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
        "mask_truncated_completions": config.mask_truncated_completions,
        "logging_steps": 1,
        "save_strategy": "no",
        "report_to": config.report_to,
        "seed": config.seed,
        "use_cpu": not on_gpu,
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
        kwargs.update(vllm_mode="colocate", vllm_gpu_memory_utilization=config.vllm_gpu_memory_utilization)
    return GRPOConfig(**kwargs)


def _load_model(config: TrainerConfig, device: str) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(config.model)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    dtype = torch.bfloat16 if (device == "cuda" and config.bf16 is not False) else torch.float32
    model = AutoModelForCausalLM.from_pretrained(config.model, dtype=dtype)
    return model, tokenizer


def make_trainer_class() -> type:
    """``GRPOTrainer`` plus dynamic sampling; built lazily so that importing needs no TRL."""
    import torch
    from trl import GRPOTrainer

    class RLVRGRPOTrainer(GRPOTrainer):
        """GRPOTrainer whose zero-variance groups can be dropped from the loss (DAPO)."""

        def __init__(self, *args: Any, dynamic_sampling: bool = False, refill_rounds: int = 0,
                     **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.dynamic_sampling = dynamic_sampling
            self.refill_rounds = refill_rounds
            self._refill_rng = random.Random(self.args.seed + 7919)
            self._last_rewards: torch.Tensor | None = None
            self.rlvr_history: list[dict[str, float]] = []

        def _generate(self, prompts):  # type: ignore[no-untyped-def, override]
            # Rollout throughput, the number a GPU recipe is judged by (TRL times it only for wandb).
            start = time.perf_counter()
            result = super()._generate(prompts)
            seconds = time.perf_counter() - start
            tokens = sum(len(ids) for ids in result[1])
            mode = "train" if self.model.training else "eval"
            self._metrics[mode]["generation_seconds"].append(seconds)
            self._metrics[mode]["generation_tokens_per_s"].append(tokens / max(seconds, 1e-9))
            return result

        def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):  # type: ignore[override]
            rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
            self._last_rewards = rewards_per_func
            return rewards_per_func

        def _flat_groups(self) -> torch.Tensor:
            """Per group of the last scored batch: whether all its rewards are equal."""
            from rlvr_envs.difficulty.dynamic import zero_variance_groups

            if self._last_rewards is None:
                raise RuntimeError("no rewards scored yet")
            weights = self.reward_weights.to(self._last_rewards.device).unsqueeze(0)
            rewards = (self._last_rewards * weights).nansum(dim=1)
            # Rows every reward function left out (None) stay NaN, so their group is kept, not dropped.
            rewards[torch.isnan(self._last_rewards).all(dim=1)] = float("nan")
            flat = torch.tensor(zero_variance_groups(rewards.tolist(), self.num_generations, atol=1e-6))
            return flat & ~torch.isnan(rewards).view(-1, self.num_generations).any(dim=1).cpu()

        def _fresh_rows(self, n_groups: int) -> list[Any]:
            data = self.train_dataset
            picks = [self._refill_rng.randrange(len(data)) for _ in range(n_groups)]
            return [data[i] for i in picks for _ in range(self.num_generations)]

        def _refill(self, output: dict[str, Any], flat: torch.Tensor) -> tuple[dict[str, Any], torch.Tensor, int]:
            """DAPO's over-sampling: up to ``refill_rounds`` rounds of fresh prompts replace flat groups."""
            from rlvr_trainers.refill import can_refill, replace_groups

            replaced = 0
            # Several processes would each have to agree on which groups to redraw; one does not.
            if self.accelerator.num_processes != 1 or not can_refill(output):
                return output, flat, replaced
            for _ in range(self.refill_rounds):
                targets = flat.nonzero().flatten().tolist()
                if not targets:
                    break
                fresh = super()._generate_and_score_completions(self._fresh_rows(len(targets)))
                sources = (~self._flat_groups()).nonzero().flatten().tolist()
                pairs = list(zip(targets, sources))
                if pairs:
                    output = replace_groups(output, fresh, [t for t, _ in pairs], [s for _, s in pairs],
                                            self.num_generations, self.processing_class.pad_token_id)
                    flat[[t for t, _ in pairs]] = False
                    replaced += len(pairs)
            return output, flat, replaced

        def _generate_and_score_completions(self, inputs):  # type: ignore[override]
            output = super()._generate_and_score_completions(inputs)
            if not self.model.training or self._last_rewards is None:
                return output
            flat = self._flat_groups()
            replaced = 0
            if self.dynamic_sampling and flat.any() and self.refill_rounds > 0:
                output, flat, replaced = self._refill(output, flat)
            n_groups = flat.numel()
            self._metrics["train"]["frac_groups_refilled"].append(replaced / n_groups)
            self._metrics["train"]["frac_groups_dropped"].append(
                flat.float().mean().item() if self.dynamic_sampling else 0.0)
            if self.dynamic_sampling and (flat.any() or replaced):
                # A group whose rewards are all equal has zero advantage everywhere: it carries no
                # gradient, but under token-level losses it still dilutes the normaliser.
                keep_all = (~flat).repeat_interleave(self.num_generations)
                n_local = output["completion_ids"].size(0)
                start = self.accelerator.process_index * n_local
                keep = keep_all[start:start + n_local].to(output["completion_mask"].device)
                output["completion_mask"] = output["completion_mask"] * keep.unsqueeze(1).to(
                    output["completion_mask"].dtype
                )
                mask = output["completion_mask"] * output["tool_mask"] if "tool_mask" in output else output[
                    "completion_mask"]
                output["num_items_in_batch"] = self.accelerator.gather(mask.sum()).sum()
            return output

    return RLVRGRPOTrainer


class _Held:
    """Held-out evaluation items and the router that verifies them."""

    def __init__(self, router: Any, items: list[tuple[str, Any, str]]) -> None:
        self.router, self.items = router, items


def make_metrics_callback(config: TrainerConfig, held: _Held, tokenizer: Any, log_path: Path,
                          curriculum: Any = None) -> Any:
    from transformers import TrainerCallback

    from rlvr_trainers.evaluation import evaluate

    class MetricsCallback(TrainerCallback):
        """Writes one JSONL record per step and evaluates held-out pass@1 every N steps."""

        def __init__(self) -> None:
            self.records: list[dict[str, Any]] = []
            self._bar: Any = None
            self._t0 = time.perf_counter()
            self._pending_eval: dict[str, Any] = {}
            log_path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = log_path.open("w", encoding="utf-8")

        def on_step_end(self, args, state, control, model=None, **kwargs):  # type: ignore[no-untyped-def]
            step = state.global_step
            if config.eval_every and step % config.eval_every == 0 and step < config.max_steps and held.items:
                result = evaluate(model, tokenizer, held.router, held.items, k=1,
                                  temperature=config.eval_temperature, max_new_tokens=config.max_new_tokens)
                self._pending_eval = {"heldout_pass@1": result.pass_at_1}

        def on_train_begin(self, args, state, control, **kwargs):  # type: ignore[no-untyped-def]
            if not args.disable_tqdm:
                from tqdm.auto import tqdm

                self._bar = tqdm(total=state.max_steps, desc="RL", dynamic_ncols=True)

        def on_log(self, args, state, control, logs=None, **kwargs):  # type: ignore[no-untyped-def]
            if not logs or "reward" not in logs:
                return
            record: dict[str, Any] = {
                "step": state.global_step,
                "elapsed_s": round(time.perf_counter() - self._t0, 2),
                "reward_mean": logs.get("reward"),
                "reward_std": logs.get("reward_std"),
                "frac_groups_dropped": logs.get("frac_groups_dropped", 0.0),
                "frac_groups_refilled": logs.get("frac_groups_refilled", 0.0),
                "frac_reward_zero_std": logs.get("frac_reward_zero_std"),
                "mean_completion_length": logs.get("completions/mean_length"),
                "loss": logs.get("loss"),
                "step_time_s": logs.get("step_time"),
                "generation_tokens_per_s": logs.get("generation_tokens_per_s"),
            }
            record.update(self._pending_eval)
            self._pending_eval = {}
            if curriculum is not None:
                record["level"] = curriculum.step()
            self.records.append(record)
            self._fh.write(json.dumps(record) + "\n")
            self._fh.flush()
            if self._bar is not None:
                shown = {"reward": record["reward_mean"], "dropped": record["frac_groups_dropped"],
                         "len": record["mean_completion_length"]}
                if "heldout_pass@1" in record:
                    self._last_eval = record["heldout_pass@1"]
                if getattr(self, "_last_eval", None) is not None:
                    shown["heldout@1"] = self._last_eval
                self._bar.set_postfix({k: f"{v:.3g}" for k, v in shown.items() if v is not None}, refresh=False)
                self._bar.update(state.global_step - self._bar.n)

        def on_train_end(self, args, state, control, **kwargs):  # type: ignore[no-untyped-def]
            self._fh.close()
            if self._bar is not None:
                self._bar.close()

    return MetricsCallback()


def heldout_items(router: Any, config: TrainerConfig, conversational: bool, tokenizer: Any,
                  tasks: Sequence[tuple[str, Any]] | None = None) -> list[tuple[str, Any, str]]:
    """``(env_id, task, prompt text)`` for held-out evaluation.

    ``tasks`` gives them explicitly; otherwise ``eval_size`` tasks are drawn with a seed apart
    from the training one (the training set then excludes them by fingerprint).
    """
    from rlvr_envs.adapters.routing import task_from_json
    from rlvr_envs.adapters.trl import build_rows, prompt_for

    if tasks is not None:
        pairs = list(tasks)
    elif config.eval_size:
        rows = build_rows(list(router.envs.values()), config.eval_size, weights=config.env_weights,
                          seed=config.seed + 7919, conversational=conversational)
        pairs = [(row["env_id"], task_from_json(row["task"])) for row in rows]
    else:
        return []
    items = []
    for env_id, task in pairs:
        prompt = prompt_for(router.env_for(env_id), task, conversational)
        if conversational:
            prompt = tokenizer.apply_chat_template(prompt, tokenize=False, add_generation_prompt=True)
        items.append((env_id, task, prompt))
    return items


def run(config: TrainerConfig, *, model: Any = None, tokenizer: Any = None,
        reward_funcs: Sequence[RewardFn] | None = None,
        envs: Sequence[Any] | None = None, heldout_tasks: Sequence[tuple[str, Any]] | None = None,
        quiet: bool = False) -> dict[str, Any]:
    """Train with ``config``; returns a summary with the held-out scores before and after.

    Args:
        model, tokenizer: an already built model (the demo's tiny one) instead of ``config.model``.
        reward_funcs: replace the env reward (the demo's random-reward control uses this).
        envs: already made env objects instead of making ``config.envs``.
        heldout_tasks: ``(env_id, task)`` pairs to evaluate on instead of drawing ``eval_size``.
        quiet: no progress bar.
    """
    from rlvr_envs.adapters.routing import EnvRouter
    from rlvr_envs.adapters.trl import build_dataset, reward_function
    from rlvr_trainers.evaluation import evaluate

    device = _device(config)
    if model is None or tokenizer is None:
        model, tokenizer = _load_model(config, device)
    make_kwargs: dict[str, Any] = dict(config.env_kwargs)
    if config.prompt_format is not None:
        make_kwargs["prompt_format"] = config.prompt_format
    if config.pass_rate_band is not None:
        make_kwargs.update(pass_rate_band=config.pass_rate_band, profile=config.profile)
    router = EnvRouter(list(envs) if envs is not None else config.envs, make_kwargs=make_kwargs)
    conversational = config.conversational
    if conversational is None:
        conversational = getattr(tokenizer, "chat_template", None) is not None

    held = _Held(router, heldout_items(router, config, conversational, tokenizer, heldout_tasks))
    exclude = {task.fingerprint for _, task, _ in held.items}
    train_size = config.train_size or config.prompts_per_step * config.max_steps
    curriculum_env = _curriculum_env(config, router) if config.curriculum else None
    if curriculum_env is not None:
        train_dataset = make_level_dataset(curriculum_env, train_size, config.seed, conversational, exclude)
    else:
        train_dataset = build_dataset(list(router.envs.values()), train_size, weights=config.env_weights,
                                      seed=config.seed, conversational=conversational, exclude=exclude)
    if reward_funcs is None:
        reward_funcs = [reward_function(
            list(router.envs.values()), format_weight=config.format_weight,
            l_max=config.effective_l_max if config.resolved("overlong_shaping") else None,
            l_cache=config.effective_l_cache,
        )]
    curriculum = None
    if curriculum_env is not None:
        spec = dict(config.curriculum or {})
        curriculum = LevelSchedule(curriculum_env, reward_funcs[0], target=tuple(spec.get("target", (0.2, 0.8))),
                                   window=int(spec.get("window", config.generation_batch_size * 4)))
    out_dir = Path(config.output_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "config.json").write_text(json.dumps(config.to_dict(), indent=2))

    def held_eval(k: int) -> dict[str, Any]:
        return evaluate(model, tokenizer, router, held.items, k=k, temperature=config.eval_temperature,
                        max_new_tokens=config.max_new_tokens).as_dict()

    before = held_eval(config.eval_k) if held.items else {}
    args = build_grpo_args(config, device)
    if quiet:
        args.disable_tqdm = True
    callback = make_metrics_callback(config, held, tokenizer, out_dir / "metrics.jsonl", curriculum)
    trainer_cls = make_trainer_class()
    trainer = trainer_cls(
        model=model, reward_funcs=list(reward_funcs), args=args, train_dataset=train_dataset,
        processing_class=tokenizer, callbacks=[callback],
        dynamic_sampling=bool(config.resolved("dynamic_sampling")), refill_rounds=config.refill_rounds,
    )
    # Our callback draws one compact progress bar; TRL's own printers would dump every log dict.
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    trainer.remove_callback(ProgressCallback)
    trainer.remove_callback(PrinterCallback)
    start = time.perf_counter()
    trainer.train()
    train_seconds = time.perf_counter() - start
    after = held_eval(config.eval_k) if held.items else {}
    summary = {"before": before, "after": after, "train_seconds": round(train_seconds, 1),
               "steps": len(callback.records), "metrics_path": str(out_dir / "metrics.jsonl"),
               "heldout_tasks": len(held.items), "device": device}
    if config.plot and callback.records:
        from rlvr_trainers.plots import plot_metrics

        summary["plot_path"] = str(plot_metrics(callback.records, out_dir / "curves.png", before, after))
    if config.save_model:
        trainer.save_model(str(out_dir / "final"))
        tokenizer.save_pretrained(str(out_dir / "final"))
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    summary["model"] = model
    return summary


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
            row = {"prompt": prompt_for(env, task, conversational), ENV_COLUMN: env.env_id,
                   TASK_COLUMN: task_to_json(task), "task_id": task.id}
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
        raise ValueError("curriculum: needs exactly one procedural env with difficulty levels "
                         f"(got {[e.env_id for e in envs]})")
    return envs[0]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rlvr-train", description="Train on rlvr-envs environments with TRL.")
    parser.add_argument("--config", required=True, help="YAML config file (see trainers/README.md)")
    parser.add_argument("--set", nargs="*", default=[], metavar="FIELD=VALUE",
                        help="override config fields (values parsed as YAML)")
    args = parser.parse_args(argv)
    summary = run(load_config(args.config, **parse_overrides(args.set)))
    summary.pop("model", None)
    print(json.dumps(summary, indent=2))
    return 0


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    import yaml

    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--set expects FIELD=VALUE, got {item!r}")
        out[name.strip()] = yaml.safe_load(value)
    return out


if __name__ == "__main__":
    sys.exit(main())
