"""The ``GRPOTrainer`` subclass: dynamic sampling, per-env metrics, and the TRL versions it fits.

The subclass overrides three private methods of TRL's ``GRPOTrainer`` (``_generate``,
``_calculate_rewards`` and ``_generate_and_score_completions``) and relies on the shape of
what they return. Private methods change between minor releases without notice, so the
supported minors are listed here (and pinned in ``pyproject.toml``) and an unknown version
stops the run with a message instead of training on silently misread tensors.
"""

from __future__ import annotations

import logging
import os
import random
import time
import warnings
from typing import Any

from rlvr_envs.errors import RlvrEnvsError

# Minor versions whose overridden methods were read against this subclass: 1.6.0, 1.10.0,
# 1.14.0, 1.15.0 and 1.16.0 were compared (same signatures, `_generate`'s second item is the
# completion ids, the same output keys for text batches, None -> NaN -> advantage 0); the tests
# run on 1.16. Before 1.6 TRL turns a `None` reward into 0, which the env reward relies on not.
SUPPORTED_TRL = ((1, 6), (1, 16))
ALLOW_ENV = "RLVR_TRAINERS_ALLOW_ANY_TRL"


class TRLVersionError(RlvrEnvsError, RuntimeError):
    """The installed TRL is outside the minor versions this trainer's subclass was checked against."""


def check_trl_version(version: str | None = None) -> str:
    """Raise ``TRLVersionError`` unless ``version`` (default: the installed TRL) is supported."""
    if version is None:
        import trl

        version = trl.__version__
    parts = version.split(".")
    try:
        minor = (int(parts[0]), int(parts[1]))
    except (IndexError, ValueError):
        minor = (-1, -1)
    lo, hi = SUPPORTED_TRL
    if lo <= minor <= hi:
        return version
    message = (
        f"rlvr-trainers overrides private methods of TRL's GRPOTrainer and was checked against TRL "
        f"{lo[0]}.{lo[1]} to {hi[0]}.{hi[1]}; TRL {version} is installed. Install a supported one "
        f"(pip install 'trl>={lo[0]}.{lo[1]},<{hi[0]}.{hi[1] + 1}') or set {ALLOW_ENV}=1 to try anyway."
    )
    if os.environ.get(ALLOW_ENV) == "1":
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        return version
    raise TRLVersionError(message)


_NONE_WARNING = "All reward functions returned None"


class HideRowsFilter(logging.Filter):
    """TRL's warning for a row no reward function scored prints every column of the row,
    the task's answer included; this replaces it with a line that names no content."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # a record that cannot be formatted is left to the handler
            return True
        if _NONE_WARNING in text:  # accelerate prefixes "[RANK n] "
            record.msg = (
                "a completion got no reward from any reward function (verifier_error); it is left out "
                "of the update (row contents withheld: they include the answer)"
            )
            record.args = ()
        return True


def hide_reward_rows_in_logs() -> None:
    """Install ``HideRowsFilter`` on TRL's GRPO logger (idempotent)."""
    logger = logging.getLogger("trl.trainer.grpo_trainer")
    if not any(isinstance(f, HideRowsFilter) for f in logger.filters):
        logger.addFilter(HideRowsFilter())


def _correctness(reward_funcs: list[Any], n: int) -> list[float] | None:
    """Per row, the verifier's ``passed`` (1/0, NaN for a verifier error) from the first
    reward function that keeps its verdicts; None when no reward function does."""
    for fn in reward_funcs:
        verdicts = getattr(fn, "last_verdicts", None)
        if verdicts is not None and len(verdicts) == n:
            return [float("nan") if v.reason.value == "verifier_error" else float(v.passed) for v in verdicts]
    return None


def make_trainer_class() -> type:
    """``GRPOTrainer`` plus dynamic sampling; built lazily so that importing needs no TRL."""
    import torch
    from trl import GRPOTrainer as _GRPOTrainer

    # Typed as Any: the subclass reaches into TRL's private attributes, checked by version instead.
    GRPOTrainer: Any = _GRPOTrainer

    check_trl_version()
    hide_reward_rows_in_logs()
    # transformers 5 warns on every step that TRL calls the old name; it says nothing about the run.
    warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)

    class RLVRGRPOTrainer(GRPOTrainer):
        """GRPOTrainer whose flat groups are refilled or dropped (DAPO), with per-env metrics."""

        def __init__(
            self,
            *args: Any,
            dynamic_sampling: bool = False,
            refill_rounds: int = 0,
            flat_metric: str = "correctness",
            **kwargs: Any,
        ) -> None:
            super().__init__(*args, **kwargs)
            self.dynamic_sampling = dynamic_sampling
            self.refill_rounds = refill_rounds
            self.flat_metric = flat_metric
            self._refill_rng = random.Random(self.args.seed + 7919)
            self._last_rewards: torch.Tensor | None = None
            self._last_correct: torch.Tensor | None = None

        def _generate(self, prompts):
            # Rollout throughput, the number a GPU recipe is judged by (TRL times it only for wandb).
            start = time.perf_counter()
            result = super()._generate(prompts)
            seconds = time.perf_counter() - start
            tokens = sum(len(ids) for ids in result[1])
            mode = "train" if self.model.training else "eval"
            self._metrics[mode]["generation_seconds"].append(seconds)
            self._metrics[mode]["generation_tokens_per_s"].append(tokens / max(seconds, 1e-9))
            return result

        def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
            rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
            self._last_rewards = rewards_per_func
            device = rewards_per_func.device
            correct = _correctness(self.reward_funcs, len(prompts))
            self._last_correct = None
            if correct is not None:
                self._last_correct = self.accelerator.gather(torch.tensor(correct, dtype=torch.float32, device=device))
            if self.model.training:
                self._log_env_metrics(inputs, rewards_per_func, correct, completion_ids_list)
            return rewards_per_func

        def _log_env_metrics(self, inputs, rewards_per_func, correct, completion_ids_list) -> None:
            """Reward, pass@1 and completion length per env of a mixture (all processes' rows)."""
            from accelerate.utils import gather_object

            n = len(inputs)
            start = self.accelerator.process_index * n
            weights = self.reward_weights.to(rewards_per_func.device).unsqueeze(0)
            local = rewards_per_func[start : start + n]
            rewards = (local * weights).nansum(dim=1)
            rewards[torch.isnan(local).all(dim=1)] = float("nan")
            rows = [
                (
                    str(x.get("env_id", "?")),
                    float(rewards[i]),
                    None if correct is None else correct[i],
                    len(completion_ids_list[i]),
                )
                for i, x in enumerate(inputs)
            ]
            by_env: dict[str, list[tuple[str, float, float | None, int]]] = {}
            for row in gather_object(rows):
                by_env.setdefault(row[0], []).append(row)
            for env_id, env_rows in by_env.items():
                scored = [r for _, r, _, _ in env_rows if r == r]
                passed = [c for _, _, c, _ in env_rows if c is not None and c == c]
                metrics = self._metrics["train"]
                if scored:
                    metrics[f"env/{env_id}/reward"].append(sum(scored) / len(scored))
                if passed:
                    metrics[f"env/{env_id}/pass@1"].append(sum(passed) / len(passed))
                metrics[f"env/{env_id}/length"].append(sum(x for *_, x in env_rows) / len(env_rows))
                metrics[f"env/{env_id}/rows"].append(float(len(env_rows)))

        def _weighted_rewards(self) -> torch.Tensor:
            if self._last_rewards is None:
                raise RuntimeError("no rewards scored yet")
            weights = self.reward_weights.to(self._last_rewards.device).unsqueeze(0)
            rewards = (self._last_rewards * weights).nansum(dim=1)
            rewards[torch.isnan(self._last_rewards).all(dim=1)] = float("nan")
            return rewards

        def _flat_values(self) -> torch.Tensor:
            """What flatness is judged on: the verifier's correctness (verl's DAPO filters on acc),
            or the shaped reward when asked for or when no reward function keeps verdicts."""
            if self.flat_metric == "correctness" and self._last_correct is not None:
                return self._last_correct
            return self._weighted_rewards()

        def _flat_groups(self) -> torch.Tensor:
            from rlvr_trainers.refill import flat_groups

            return flat_groups(self._flat_values(), self.num_generations).cpu()

        def _fresh_rows(self, n_groups: int) -> list[Any]:
            data = self.train_dataset
            picks = [self._refill_rng.randrange(len(data)) for _ in range(n_groups)]
            return [data[i] for i in picks for _ in range(self.num_generations)]

        def _refill(self, output: dict[str, Any], flat: torch.Tensor) -> tuple[dict[str, Any], torch.Tensor, int]:
            """DAPO's over-sampling: up to ``refill_rounds`` rounds of fresh prompts replace flat groups;
            the advantages are then recomputed over the merged batch."""
            from rlvr_trainers.refill import can_refill, copy_rows, group_advantages, replace_groups

            replaced = 0
            # Several processes would each have to agree on which groups to redraw; one does not.
            if (
                self.accelerator.num_processes != 1
                or not can_refill(output)
                or getattr(self.args, "multi_objective_aggregation", "sum_then_normalize") != "sum_then_normalize"
            ):
                return output, flat, replaced
            group = self.num_generations
            rewards = self._weighted_rewards()
            for _ in range(self.refill_rounds):
                targets = flat.nonzero().flatten().tolist()
                if not targets:
                    break
                fresh = super()._generate_and_score_completions(self._fresh_rows(len(targets)))
                fresh_rewards = self._weighted_rewards()
                sources = (~self._flat_groups()).nonzero().flatten().tolist()
                pairs = list(zip(targets, sources))
                if pairs:
                    to, src = [t for t, _ in pairs], [s for _, s in pairs]
                    output = replace_groups(output, fresh, to, src, group, self.processing_class.pad_token_id)
                    rewards = copy_rows(rewards, fresh_rewards, to, src, group)
                    flat[to] = False
                    replaced += len(pairs)
            if replaced:
                # TRL normalised each batch on its own: with scale_rewards="batch" a refilled group
                # (drawn where most groups were flat, so a small std) got advantages several times
                # larger than the rest. One normalisation over the batch that is trained on.
                output["advantages"] = group_advantages(rewards, group, self.scale_rewards).to(
                    output["advantages"].device, output["advantages"].dtype
                )
            return output, flat, replaced

        def _generate_and_score_completions(self, inputs):
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
                flat.float().mean().item() if self.dynamic_sampling else 0.0
            )
            if self.dynamic_sampling and (flat.any() or replaced):
                # A flat group carries no signal on what the verifier rewards; under token-level
                # losses it would still dilute the normaliser, so it leaves the loss entirely.
                keep_all = (~flat).repeat_interleave(self.num_generations)
                n_local = output["completion_ids"].size(0)
                start = self.accelerator.process_index * n_local
                keep = keep_all[start : start + n_local].to(output["completion_mask"].device)
                output["completion_mask"] = output["completion_mask"] * keep.unsqueeze(1).to(
                    output["completion_mask"].dtype
                )
                mask = (
                    output["completion_mask"] * output["tool_mask"]
                    if "tool_mask" in output
                    else output["completion_mask"]
                )
                output["num_items_in_batch"] = self.accelerator.gather(mask.sum()).sum()
            return output

    return RLVRGRPOTrainer
