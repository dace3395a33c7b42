"""DAPO's over-sampling on top of TRL: groups whose rewards are all equal are replaced by
groups of fresh prompts, so that a step keeps its full batch of informative groups.

TRL hands ``_generate_and_score_completions`` a batch of rows in which each prompt's
``num_generations`` rows are contiguous and returns a dict of per-row tensors. Replacing a
group is then a row copy, once both dicts are padded to the same widths: prompts are
left-padded, completions and their per-token tensors right-padded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

_LEFT_PADDED = frozenset({"prompt_ids", "prompt_mask"})
_RIGHT_PADDED = frozenset(
    {
        "completion_ids",
        "completion_mask",
        "old_per_token_logps",
        "sampling_per_token_logps",
        "ref_per_token_logps",
        "tool_mask",
        "importance_sampling_ratio",
    }
)
_PER_ROW = frozenset({"advantages"})
_RECOMPUTED = frozenset({"num_items_in_batch"})


def can_refill(output: dict[str, Any]) -> bool:
    """Whether every entry of a TRL batch is one this module knows how to merge (text only:
    image and other multimodal entries are not)."""
    return set(output) <= _LEFT_PADDED | _RIGHT_PADDED | _PER_ROW | _RECOMPUTED


def _pad_to(tensor: Any, width: int, value: float, left: bool) -> Any:
    import torch

    missing = width - tensor.size(1)
    if missing <= 0:
        return tensor
    pad = tensor.new_full((tensor.size(0), missing, *tensor.shape[2:]), value)
    return torch.cat([pad, tensor] if left else [tensor, pad], dim=1)


def replace_groups(
    output: dict[str, Any],
    fresh: dict[str, Any],
    targets: Sequence[int],
    sources: Sequence[int],
    group_size: int,
    pad_token_id: int,
) -> dict[str, Any]:
    """A copy of ``output`` whose groups ``targets`` are groups ``sources`` of ``fresh``
    (pairwise); ``num_items_in_batch`` is left for the caller to recompute."""
    if len(targets) != len(sources):
        raise ValueError(f"{len(targets)} target groups but {len(sources)} source groups")
    rows_to = [g * group_size + i for g in targets for i in range(group_size)]
    rows_from = [g * group_size + i for g in sources for i in range(group_size)]
    merged = dict(output)
    for key, value in output.items():
        if key in _RECOMPUTED or value is None:
            continue
        other = fresh[key]
        if key in _LEFT_PADDED or key in _RIGHT_PADDED:
            width = max(value.size(1), other.size(1))
            fill = pad_token_id if key.endswith("_ids") else 0
            value = _pad_to(value, width, fill, left=key in _LEFT_PADDED)
            other = _pad_to(other, width, fill, left=key in _LEFT_PADDED)
        value = value.clone()
        value[rows_to] = other[rows_from].to(value.dtype)
        merged[key] = value
    return merged


def flat_groups(values: Any, group_size: int, atol: float = 1e-6) -> Any:
    """Per group of ``values`` (one per row, NaN where unscored): whether it carries no signal.

    A group is flat when its scored values are all equal within ``atol``; NaN (a ``None``
    reward, a verifier error) is left out, so a group whose only variance is a ``None`` is flat,
    and so is a group with at most one scored row.
    """
    import torch

    grouped = values.detach().float().view(-1, group_size)
    scored = ~torch.isnan(grouped)
    high = torch.where(scored, grouped, torch.full_like(grouped, -float("inf"))).max(dim=1).values
    low = torch.where(scored, grouped, torch.full_like(grouped, float("inf"))).min(dim=1).values
    return (scored.sum(dim=1) <= 1) | ((high - low) <= atol)


def group_advantages(rewards: Any, group_size: int, scale_rewards: str) -> Any:
    """TRL's ``sum_then_normalize`` advantages for ``rewards`` (NaN: unscored, advantage 0):
    reward minus its group mean, divided by the group's or the whole batch's std (+1e-4).

    Recomputed after a refill so that ``scale_rewards="batch"`` uses the std of the batch that
    is trained on, not a separate std for the original and for each refill batch.
    """
    import torch
    from trl.trainer.utils import nanstd

    grouped = rewards.view(-1, group_size)
    mean = torch.nanmean(grouped, dim=1).repeat_interleave(group_size)
    advantages = rewards - mean
    if scale_rewards == "group":
        advantages = advantages / (nanstd(grouped, dim=1).repeat_interleave(group_size) + 1e-4)
    elif scale_rewards == "batch":
        advantages = advantages / (nanstd(rewards) + 1e-4)
    elif scale_rewards != "none":
        raise ValueError(f"scale_rewards must be group, batch or none, got {scale_rewards!r}")
    return torch.nan_to_num(advantages, nan=0.0)


def copy_rows(values: Any, fresh: Any, targets: Sequence[int], sources: Sequence[int], group_size: int) -> Any:
    """``values`` (one per row) with groups ``targets`` replaced by groups ``sources`` of ``fresh``."""
    rows_to = [g * group_size + i for g in targets for i in range(group_size)]
    rows_from = [g * group_size + i for g in sources for i in range(group_size)]
    out = values.clone()
    out[rows_to] = fresh[rows_from].to(out.dtype)
    return out
