"""A tiny local judge model for tests and demos (no download): built here, served by ``transformers serve``.

``build_tiny_judge(path, train_steps=...)`` trains a byte-level BPE tokenizer on the judge
templates, builds a tiny Llama-style model with ``transformers`` (a family never imports the trainers,
so the few lines it needs are here), optionally teaches it
for a few seconds to answer every judge prompt with one fixed, parseable verdict (so the cache and
the parsing of a real server's answers can be exercised), and saves it with a chat template.
Untrained, it says whatever random weights say: what a broken judge looks like (verifier_error).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

PAD, BOS, EOS = "<pad>", "<s>", "</s>"
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def build_tiny_judge(
    path: str | Path, *, train_steps: int = 0, reply: str = '{"verdict": "no"}', seed: int = 0
) -> Path:
    from rlvr_judge.templates import CRITERION_V0, REF_V0

    path = Path(path)
    samples = []
    for i in range(24):
        for template, fields in (
            (REF_V0, {"question": f"What is {i} + {i}?", "reference": str(2 * i)}),
            (CRITERION_V0, {"question": f"Describe item {i}.", "reference_block": "", "criterion": f"Mentions {i}."}),
        ):
            messages, _ = template.render(f"<answer>{i}</answer>", **fields)
            samples.append(messages)
    corpus = [m["content"] for msgs in samples for m in msgs] + [reply]
    tokenizer = _tokenizer(corpus * 2, vocab_size=1200)
    tokenizer.chat_template = CHAT_TEMPLATE
    model = _model(tokenizer, hidden_size=48, layers=1, heads=2, max_positions=4096, seed=seed)
    if train_steps:
        import torch

        pairs = [(tokenizer.apply_chat_template(m, tokenize=False, add_generation_prompt=True), reply) for m in samples]
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # a model this small trains faster on one thread than on a contended pool
        try:
            _teach(model, tokenizer, pairs, steps=train_steps, batch_size=4, learning_rate=5e-3, seed=seed)
        finally:
            torch.set_num_threads(threads)
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def _tokenizer(corpus: list[str], vocab_size: int) -> Any:
    """A byte-level BPE ``PreTrainedTokenizerFast`` trained on ``corpus``, one token per digit."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, BOS, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus, trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOS, eos_token=EOS, pad_token=PAD)
    fast.padding_side = "left"  # a decoder-only model pads on the left to generate
    return fast


def _model(tokenizer: Any, *, hidden_size: int, layers: int, heads: int, max_positions: int, seed: int) -> Any:
    """A randomly initialised Llama-style causal LM (a Qwen2 config would swap tokenizers on reload)."""
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
    for name in ("pad_token_id", "eos_token_id", "bos_token_id"):
        setattr(model.generation_config, name, getattr(tokenizer, name))
    return model


def _teach(
    model: Any,
    tokenizer: Any,
    pairs: list[tuple[str, str]],
    *,
    steps: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
) -> None:
    """A few steps of supervised training on (prompt, reply) pairs, the loss on the reply only."""
    import random

    import torch

    rng = random.Random(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)
    pad = tokenizer.pad_token_id
    model.train()
    for _ in range(steps):
        rows = []
        for prompt, reply in (pairs[rng.randrange(len(pairs))] for _ in range(batch_size)):
            p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
            r = tokenizer(reply, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
            rows.append((p + r, [-100] * len(p) + r))
        width = max(len(ids) for ids, _ in rows)
        ids = torch.tensor([[pad] * (width - len(x)) + x for x, _ in rows])
        labels = torch.tensor([[-100] * (width - len(y)) + y for _, y in rows])
        mask = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x, _ in rows])
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    model.eval()
