"""A ``TrainerConfig`` with ``tools`` set: DAPO on multi-turn episodes, with the run folder a TRL run has.

``train.run`` hands a config here when ``tools`` is set. Each env is made with the episode
options (``make(id, tools=..., max_turns=..., budgets)``); a held-out split (``eval_size`` tasks,
disjoint by fingerprint from the training pool) and ``eval_envs`` are scored as episodes before,
every ``eval_every`` steps, and after (pass@1, pass@k, tool use, per env); training is
``episode_train.train_on_episodes``. The run folder holds ``run.json``, ``config.json``,
``before.json``, ``metrics.jsonl`` (one line per step: reward, groups kept, per-env turns, tool
calls, tool errors, tool use, truncation, and held-out pass@1 on evaluation steps),
``summary.json`` and ``curves.png``.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rlvr_trainers.config import ConfigError, TrainerConfig, per_env_kwargs
from rlvr_trainers.episode_config import episode_make_kwargs
from rlvr_trainers.loading import device_for, load_model, make_env

__all__ = ["evaluate_episodes", "run_episodes"]


class _TokenCounter:
    """``count_tokens`` for the token budget, with the run's tokenizer: set once it is loaded (the
    envs are made first, so a wrong env id fails before any download)."""

    def __init__(self, tokenizer: Any = None) -> None:
        self.tokenizer = tokenizer

    def __call__(self, text: str) -> int:
        if self.tokenizer is None:
            raise RuntimeError("the token budget's tokenizer is not loaded yet")
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])


def _make_episode_envs(
    config: TrainerConfig, count_tokens: Any, envs: Sequence[Any] | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(training envs, evaluation-only envs) by id, each made with the config's episode options."""
    episode = episode_make_kwargs(config, count_tokens)
    common = {"prompt_format": config.prompt_format} if config.prompt_format is not None else {}
    if envs is not None:
        train = {e.env_id: e for e in envs}
        if any(getattr(e, "tools", None) is None for e in envs):
            raise ConfigError("tools: envs= given to an episode run must be episode envs (make(id, tools=[...]))")
    else:
        own = per_env_kwargs(config.envs, config.env_kwargs, "env_kwargs", "envs")
        train = {}
        for env_id in config.envs:
            env = make_env(env_id, {**common, **own[env_id], **episode}, "env_kwargs")
            train[env.env_id] = env
    eval_own = per_env_kwargs(config.eval_envs, config.eval_env_kwargs, "eval_env_kwargs", "eval_envs")
    evaluated = {}
    for env_id in config.eval_envs:
        env = make_env(env_id, {**common, **eval_own[env_id], **episode}, "eval_env_kwargs")
        evaluated[env.env_id] = env
    both = sorted(set(train) & set(evaluated))
    if both:
        raise ConfigError(f"eval_envs: {both} are also training envs; their held-out split is already evaluated")
    return train, evaluated


def _append(path: Path, record: Mapping[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")


def _pairs(rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, Any]]:
    from rlvr_envs.adapters.routing import task_from_json

    return [(str(row["env_id"]), task_from_json(row["task"])) for row in rows]


def evaluate_episodes(
    model: Any,
    tokenizer: Any,
    envs: Mapping[str, Any],
    items: Sequence[tuple[str, Any]],
    *,
    k: int,
    temperature: float,
    max_new_tokens: int,
    template_kwargs: Mapping[str, Any] | None = None,
    max_batch: int = 64,
) -> dict[str, Any]:
    """pass@1 and pass@k over ``k`` episodes per held-out ``(env_id, task)``, the share of episodes
    that called a tool, and the same per env (``by_env``); episodes run in lockstep batches."""
    from rlvr_trainers.episode_grpo import batch_sampler
    from rlvr_trainers.episode_rollout import ChatDeltas, EnvCopies, rollout_jobs
    from rlvr_trainers.evaluation import pass_at_k

    if not items:
        return {}
    generate_many = batch_sampler(model, tokenizer, max_new_tokens=max_new_tokens, temperature=temperature)
    deltas = ChatDeltas(tokenizer, template_kwargs)
    jobs = [(envs[env_id], {"task": task}) for env_id, task in items for _ in range(k)]
    rollouts = rollout_jobs(jobs, generate_many, deltas, EnvCopies(), max_batch=max_batch)
    per_env: dict[str, list[tuple[int, int, int, float]]] = defaultdict(list)
    for index, (env_id, _) in enumerate(items):
        group = rollouts[index * k : (index + 1) * k]
        correct = sum(bool(r.verdict is not None and r.verdict.passed and not r.truncated) for r in group)
        tool_use = sum(r.tool_calls > 0 for r in group)
        per_env[env_id].append((correct, tool_use, k, sum(r.turns for r in group) / k))

    def scores(rows: list[tuple[int, int, int, float]]) -> dict[str, Any]:
        return {
            "pass@1": sum(c / n for c, _, n, _ in rows) / len(rows),
            f"pass@{k}": sum(pass_at_k(n, c, k) for c, _, n, _ in rows) / len(rows),
            "tool_use": sum(t / n for _, t, n, _ in rows) / len(rows),
            "turns": sum(t for *_, t in rows) / len(rows),
            "n_tasks": len(rows),
        }

    out = {**scores([row for rows in per_env.values() for row in rows]), "k": k}
    if len(per_env) > 1:
        out["by_env"] = {env_id: scores(rows) for env_id, rows in sorted(per_env.items())}
    return out


def run_episodes(
    config: TrainerConfig,
    *,
    model: Any = None,
    tokenizer: Any = None,
    envs: Sequence[Any] | None = None,
    heldout_tasks: Sequence[tuple[str, Any]] | None = None,
    quiet: bool = False,
    title: str | None = None,
) -> dict[str, Any]:
    """Train ``config`` (``tools`` set) on episodes; the summary has held-out scores before and after."""
    import torch

    from rlvr_envs.adapters.trl import build_rows
    from rlvr_trainers.episode_train import EpisodeTrainSettings, train_on_episodes
    from rlvr_trainers.rundir import write_run_info

    if config.tools is None:
        raise ConfigError("tools: run_episodes trains on episodes; set tools (e.g. [calculator])")
    device = device_for(config)
    counter = _TokenCounter(tokenizer)
    train_envs, eval_only = _make_episode_envs(config, counter, envs)
    if model is None or tokenizer is None:
        model, tokenizer = load_model(config, device)
    counter.tokenizer = tokenizer
    if getattr(tokenizer, "chat_template", None) is None:
        raise ConfigError(
            "model: its tokenizer has no chat template, and an episode is a chat (tool results go back as "
            "messages); give a chat model, or set tokenizer.chat_template before saving a local one"
        )
    model.to(device)
    all_envs = {**train_envs, **eval_only}
    torch.manual_seed(config.seed)

    if heldout_tasks is not None:
        held = [(env_id, task) for env_id, task in heldout_tasks]
    elif config.eval_size:
        rows = build_rows(
            list(train_envs.values()), config.eval_size, weights=config.env_weights, seed=config.seed + 7919
        )
        for env in eval_only.values():
            rows += build_rows([env], config.eval_size, seed=config.seed + 7919)
        held = _pairs(rows)
    else:
        held = []
    exclude = {task.fingerprint for _, task in held}
    train_size = config.train_size or config.prompts_per_step * config.max_steps
    pool = _pairs(
        build_rows(list(train_envs.values()), train_size, weights=config.env_weights, seed=config.seed, exclude=exclude)
    )
    if not pool:
        raise ConfigError("envs: no training task is left once the held-out split is taken out (lower eval_size)")

    batch = config.episode_batch or 64
    out_dir = Path(config.output_dir)
    write_run_info(out_dir, config.to_dict(), list(train_envs.values()), list(eval_only.values()), device)

    def held_eval(k: int) -> dict[str, Any]:
        return evaluate_episodes(
            model,
            tokenizer,
            all_envs,
            held,
            k=k,
            temperature=config.eval_temperature,
            max_new_tokens=config.max_new_tokens,
            template_kwargs=config.chat_template_kwargs,
            max_batch=batch,
        )

    before = held_eval(config.eval_k)
    (out_dir / "before.json").write_text(json.dumps(before, indent=2), encoding="utf-8")
    metrics_path = out_dir / "metrics.jsonl"
    metrics_path.write_text("", encoding="utf-8")
    records: list[dict[str, Any]] = []
    start = time.perf_counter()
    last = [start]

    def on_step(step: int, metrics: dict[str, float]) -> None:
        now = time.perf_counter()
        record: dict[str, Any] = {
            **metrics,
            "step": step,
            "reward_mean": metrics["reward"],
            "elapsed_s": round(now - start, 3),
            "step_time_s": round(now - last[0], 3),
        }
        if config.eval_every and step % config.eval_every == 0 and step != config.max_steps and held:
            scores = held_eval(config.eval_every_k or config.eval_k)
            record["heldout_pass@1"] = scores["pass@1"]
            record["heldout_tool_use"] = scores["tool_use"]
        last[0] = time.perf_counter()
        records.append(record)
        if step != config.max_steps:  # the last line waits for the final evaluation
            _append(metrics_path, record)
        if not quiet:
            print(
                f"[episodes] step {step}/{config.max_steps}: reward {metrics['reward']:.3f}, "
                f"groups kept {metrics['groups_kept']:.2f}"
                + (f", loss {metrics['loss']:.4f}" if "loss" in metrics else ""),
                flush=True,
            )

    preset = config.resolved
    settings = EpisodeTrainSettings(
        steps=config.max_steps,
        prompts_per_step=config.prompts_per_step,
        group_size=config.num_generations,
        learning_rate=config.learning_rate,
        max_new_tokens=config.max_new_tokens,
        temperature=config.temperature,
        top_p=config.top_p,
        top_k=config.top_k,
        min_p=config.min_p,
        repetition_penalty=config.repetition_penalty,
        epsilon=float(preset("epsilon")),
        epsilon_high=float(preset("epsilon_high")),
        max_grad_norm=config.max_grad_norm,
        warmup_steps=int(config.warmup_ratio * config.max_steps),
        scale_rewards=preset("scale_rewards") == "group",
        drop_flat=bool(preset("dynamic_sampling")),
        on_error=config.on_error,
        template_kwargs=dict(config.chat_template_kwargs),
        max_batch=batch,
        seed=config.seed,
    )
    try:
        train_on_episodes(model, tokenizer, train_envs, pool, settings, on_step=on_step)
        train_seconds = time.perf_counter() - start
        after = held_eval(config.eval_k)
    finally:
        for env in all_envs.values():
            env.close()
    if records:
        if after:
            records[-1].update({"heldout_pass@1": after["pass@1"], "heldout_tool_use": after["tool_use"]})
        _append(metrics_path, records[-1])
    summary: dict[str, Any] = {
        "mode": "episodes",
        "before": before,
        "after": after,
        "train_seconds": round(train_seconds, 1),
        "steps": len(records),
        "metrics_path": str(metrics_path),
        "heldout_tasks": len(held),
        "train_tasks": len(pool),
        "device": device,
        "final_step": len(records),
    }
    if config.plot and records:
        from rlvr_trainers.plots import plot_metrics

        run_name = title or f"episodes ({', '.join(config.tools) or 'no tools'}): {', '.join(train_envs)}"
        summary["plot_path"] = str(plot_metrics(records, out_dir / "curves.png", before, after, title=run_name))
    if config.save_model:
        model.save_pretrained(str(out_dir / "final"))
        tokenizer.save_pretrained(str(out_dir / "final"))
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    summary["model"] = model
    return summary
