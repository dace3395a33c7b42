"""The training loop's own record: one JSONL line per step, held-out evaluations, a progress bar."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rlvr_trainers.config import TrainerConfig

# TRL's log keys -> the names metrics.jsonl uses.
_FROM_TRL = {
    "reward_mean": "reward",
    "reward_std": "reward_std",
    "frac_reward_zero_std": "frac_reward_zero_std",
    "mean_completion_length": "completions/mean_length",
    "frac_truncated": "completions/clipped_ratio",
    "loss": "loss",
    "learning_rate": "learning_rate",
    "step_time_s": "step_time",
    "generation_tokens_per_s": "generation_tokens_per_s",
}


def eval_record(result: dict[str, Any], prefix: str = "heldout") -> dict[str, Any]:
    """Flat metric names for one evaluation: ``heldout_pass@1``, ``heldout_pass@k`` and, for a
    mixture or held-out envs, ``heldout/ENV/pass@1`` and ``heldout/ENV/pass@k``."""
    k = result.get("k", 1)
    out = {f"{prefix}_pass@1": result.get("pass@1")}
    if k > 1:
        out[f"{prefix}_pass@{k}"] = result.get(f"pass@{k}")
    for env_id, entry in result.get("by_env", {}).items():
        out[f"{prefix}/{env_id}/pass@1"] = entry["pass@1"]
        if k > 1:
            out[f"{prefix}/{env_id}/pass@{k}"] = entry[f"pass@{k}"]
    return out


def make_metrics_callback(
    config: TrainerConfig,
    evaluate_heldout: Any,
    log_path: Path,
    curriculum: Any = None,
    previous: list[dict[str, Any]] | None = None,
) -> Any:
    """A ``TrainerCallback`` writing ``log_path``; ``evaluate_heldout(k)`` returns an eval dict
    (or None when there is nothing to evaluate); ``previous`` are the records of a resumed run."""
    from transformers import TrainerCallback

    class MetricsCallback(TrainerCallback):
        """Writes one JSONL record per step and evaluates the held-out sets every N steps."""

        def __init__(self) -> None:
            self.records: list[dict[str, Any]] = list(previous or [])
            self._bar: Any = None
            self._t0 = time.perf_counter()
            self._pending_eval: dict[str, Any] = {}
            self._last_eval: float | None = None
            log_path.parent.mkdir(parents=True, exist_ok=True)
            # A resumed run rewrites the steps up to its checkpoint, then appends.
            self._fh = log_path.open("w", encoding="utf-8")
            for record in self.records:
                self._fh.write(json.dumps(record) + "\n")
            self._fh.flush()

        def on_step_end(self, args, state, control, model=None, **kwargs):
            step = state.global_step
            if config.eval_every and step % config.eval_every == 0 and step < config.max_steps:
                result = evaluate_heldout(config.eval_every_k or config.eval_k)
                if result:
                    self._pending_eval = eval_record(result)

        def on_train_begin(self, args, state, control, **kwargs):
            if not args.disable_tqdm and state.is_world_process_zero:
                from tqdm.auto import tqdm

                self._bar = tqdm(total=state.max_steps, initial=state.global_step, desc="RL", dynamic_ncols=True)

        def on_log(self, args, state, control, logs=None, **kwargs):
            if not logs or "reward" not in logs:
                return
            record: dict[str, Any] = {"step": state.global_step, "elapsed_s": round(time.perf_counter() - self._t0, 2)}
            for name, key in _FROM_TRL.items():
                record[name] = logs.get(key)
            record["frac_groups_dropped"] = logs.get("frac_groups_dropped", 0.0)
            record["frac_groups_refilled"] = logs.get("frac_groups_refilled", 0.0)
            record.update({k: v for k, v in logs.items() if k.startswith("env/")})
            record.update(self._pending_eval)
            self._pending_eval = {}
            if curriculum is not None:
                record["level"] = curriculum.step()
            self.records.append(record)
            if state.is_world_process_zero:
                self._fh.write(json.dumps(record) + "\n")
                self._fh.flush()
            if self._bar is not None:
                shown = {
                    "reward": record["reward_mean"],
                    "dropped": record["frac_groups_dropped"],
                    "len": record["mean_completion_length"],
                }
                if record.get("heldout_pass@1") is not None:
                    self._last_eval = record["heldout_pass@1"]
                if self._last_eval is not None:
                    shown["heldout@1"] = self._last_eval
                self._bar.set_postfix({k: f"{v:.3g}" for k, v in shown.items() if v is not None}, refresh=False)
                self._bar.update(state.global_step - self._bar.n)

        def on_train_end(self, args, state, control, **kwargs):
            self._fh.close()
            if self._bar is not None:
                self._bar.close()

    return MetricsCallback()


def read_records(path: Path, up_to_step: int | None = None) -> list[dict[str, Any]]:
    """The records of ``metrics.jsonl`` (those up to ``up_to_step``); [] when there is none."""
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:  # a line cut by a killed run
            continue
        if up_to_step is None or record.get("step", 0) <= up_to_step:
            out.append(record)
    return out
