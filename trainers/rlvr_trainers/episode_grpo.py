"""GRPO/DAPO on episodes: group advantages and a clipped token-level loss over the model's tokens only.

The rollouts come from ``episode_rollout.rollout_episode``: each is one id sequence whose
``loss_mask`` is 1 on the ids the policy generated. The loss is DAPO's token-level aggregation
(every generated token of the batch weighs the same) with the asymmetric clip, summed over the
masked-in tokens only, so a tool's output and the template's ids carry no gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlvr_trainers.episode_rollout import EpisodeRollout


def group_advantages(rewards: Sequence[float], group_size: int, *, scale: bool = True) -> list[float]:
    """Reward minus its group's mean (groups are consecutive runs of ``group_size``), / std if ``scale``."""
    if group_size < 1 or len(rewards) % group_size:
        raise ValueError(f"{len(rewards)} rewards do not split into groups of {group_size}")
    out: list[float] = []
    for start in range(0, len(rewards), group_size):
        group = [float(r) for r in rewards[start : start + group_size]]
        mean = sum(group) / len(group)
        std = (sum((r - mean) ** 2 for r in group) / max(1, len(group) - 1)) ** 0.5
        out += [(r - mean) / (std + 1e-4) if scale else r - mean for r in group]
    return out


def _batch(rollouts: Sequence[EpisodeRollout], pad_id: int) -> tuple[Any, Any, Any]:
    """Right-padded ids, attention mask, and the loss mask aligned to each predicted id."""
    import torch

    width = max(len(r.ids) for r in rollouts)
    ids = torch.full((len(rollouts), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(rollouts), width), dtype=torch.long)
    loss_mask = torch.zeros((len(rollouts), width), dtype=torch.float32)
    for row, r in enumerate(rollouts):
        n, p = len(r.ids), len(r.prompt_ids)
        ids[row, :n] = torch.tensor(r.ids, dtype=torch.long)
        attention[row, :n] = 1
        loss_mask[row, p:n] = torch.tensor(r.loss_mask, dtype=torch.float32)
    return ids, attention, loss_mask


def token_logprobs(model: Any, rollouts: Sequence[EpisodeRollout], pad_id: int) -> tuple[Any, Any]:
    """Log-probabilities of each id given the ids before it, and the loss mask on the same grid."""
    import torch

    ids, attention, loss_mask = _batch(rollouts, pad_id)
    ids, attention = ids.to(model.device), attention.to(model.device)
    logits = model(input_ids=ids, attention_mask=attention).logits[:, :-1].float()
    logprobs = torch.log_softmax(logits, dim=-1).gather(-1, ids[:, 1:, None]).squeeze(-1)
    return logprobs, loss_mask[:, 1:].to(logprobs.device)


def episode_loss(
    model: Any,
    rollouts: Sequence[EpisodeRollout],
    advantages: Sequence[float],
    *,
    pad_id: int,
    old_logprobs: Any = None,
    epsilon: float = 0.2,
    epsilon_high: float = 0.28,
) -> Any:
    """DAPO's clipped objective, token-level mean over the model's tokens (``loss_mask``) only."""
    import torch

    if len(rollouts) != len(advantages) or not rollouts:
        raise ValueError("one advantage per rollout, and at least one rollout")
    logprobs, mask = token_logprobs(model, rollouts, pad_id)
    old = logprobs.detach() if old_logprobs is None else old_logprobs
    ratio = torch.exp(logprobs - old)
    adv = torch.tensor(list(advantages), dtype=logprobs.dtype, device=logprobs.device)[:, None]
    per_token = -torch.min(ratio * adv, torch.clamp(ratio, 1 - epsilon, 1 + epsilon_high) * adv)
    return (per_token * mask).sum() / mask.sum().clamp(min=1.0)


def batch_sampler(
    model: Any,
    tokenizer: Any,
    *,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_p: float = 1.0,
    top_k: int = 0,
    min_p: float | None = None,
    repetition_penalty: float = 1.0,
) -> Any:
    """A ``GenerateMany`` policy from a causal LM: one turn for each sequence, generated as one
    left-padded batch, each cut after its first EOS (greedy at temperature 0)."""
    import torch

    sampling = temperature > 0
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    eos_id = tokenizer.eos_token_id

    def generate_many(sequences: list[list[int]]) -> list[list[int]]:
        if not sequences:
            return []
        width = max(len(s) for s in sequences)
        ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)
        attention = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, seq in enumerate(sequences):
            ids[row, width - len(seq) :] = torch.tensor(seq, dtype=torch.long)
            attention[row, width - len(seq) :] = 1
        with torch.no_grad():
            out = model.generate(
                ids.to(model.device),
                attention_mask=attention.to(model.device),
                max_new_tokens=max_new_tokens,
                do_sample=sampling,
                temperature=temperature if sampling else None,
                top_k=top_k if sampling else None,
                top_p=top_p if sampling else None,
                min_p=min_p if sampling else None,
                repetition_penalty=repetition_penalty,
                pad_token_id=pad_id,
                eos_token_id=eos_id,
            )
        turns = []
        for row in out[:, width:].tolist():
            if eos_id in row:
                row = row[: row.index(eos_id) + 1]
            turns.append([int(i) for i in row])
        return turns

    return generate_many


def sampler(model: Any, tokenizer: Any, **settings: Any) -> Any:
    """A ``Generate`` policy (one sequence at a time): ``batch_sampler`` on a batch of one."""
    generate_many = batch_sampler(model, tokenizer, **settings)

    def generate(ids: list[int]) -> list[int]:
        return generate_many([ids])[0]

    return generate
