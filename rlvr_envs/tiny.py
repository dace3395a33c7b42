"""A tiny tokenizer and causal LM built locally, for CPU demos and tests (no downloads).

Shared by the trainers' demo and the judge family's tiny judge (a family never imports the
trainers). ``tokenizers``, ``transformers`` and ``torch`` are imported inside the functions, so
importing this module costs nothing.

The tokenizer is a byte-level BPE trained on the env's own prompts and gold completions,
with every digit its own token so arithmetic stays learnable. The model is a Llama-style
decoder (a Qwen2 config would make ``AutoTokenizer`` swap in Qwen's tokenizer on reload).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

PAD, BOS, EOS = "<pad>", "<s>", "</s>"


def build_tokenizer(corpus: Iterable[str], vocab_size: int = 384) -> Any:
    """A ``PreTrainedTokenizerFast`` trained on ``corpus`` (seconds on a CPU)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, BOS, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(list(corpus), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOS, eos_token=EOS, pad_token=PAD)
    fast.padding_side = "left"  # decoder-only generation pads on the left
    return fast


def build_model(
    tokenizer: Any, *, hidden_size: int = 128, layers: int = 2, heads: int = 4, max_positions: int = 256, seed: int = 0
) -> Any:
    """A randomly initialised Llama-style causal LM sized for a CPU."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=heads,
        max_position_embeddings=max_positions,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.bos_token_id = tokenizer.bos_token_id
    return model


def supervised_warm_start(
    model: Any,
    tokenizer: Any,
    pairs: list[tuple[str, str]],
    *,
    steps: int,
    batch_size: int = 32,
    learning_rate: float = 1e-3,
    seed: int = 0,
) -> list[float]:
    """A short SFT on (prompt, completion) pairs, loss on completion tokens only; returns losses."""
    import random

    import torch

    rng = random.Random(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)
    model.train()
    losses: list[float] = []
    for _ in range(steps):
        batch = [pairs[rng.randrange(len(pairs))] for _ in range(batch_size)]
        input_ids, labels = [], []
        for prompt, completion in batch:
            p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
            c = tokenizer(completion, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
            input_ids.append(p + c)
            labels.append([-100] * len(p) + c)
        width = max(len(x) for x in input_ids)
        pad = tokenizer.pad_token_id
        ids = torch.tensor([[pad] * (width - len(x)) + x for x in input_ids])
        lab = torch.tensor([[-100] * (width - len(x)) + x for x in labels])
        mask = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in input_ids])
        loss = model(input_ids=ids, attention_mask=mask, labels=lab).loss
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(float(loss.detach()))
    model.eval()
    return losses
