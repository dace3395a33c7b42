"""A tiny local judge model for tests and demos (no download): built here, served by ``transformers serve``.

``build_tiny_judge(path, train_steps=...)`` trains a byte-level BPE tokenizer on the judge
templates, builds a tiny Llama-style model (``rlvr_envs.tiny``, shared with the trainers' demo), optionally teaches it
for a few seconds to answer every judge prompt with one fixed, parseable verdict (so the cache and
the parsing of a real server's answers can be exercised), and saves it with a chat template.
Untrained, it says whatever random weights say: what a broken judge looks like (verifier_error).
"""

from __future__ import annotations

from pathlib import Path

from rlvr_envs.tiny import build_model, build_tokenizer, supervised_warm_start

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def build_tiny_judge(
    path: str | Path, *, train_steps: int = 0, reply: str = '{"verdict": "no"}', seed: int = 0
) -> Path:
    from rlvr_judge.templates import CRITERION_V0, REF_V0, REF_V1, REF_V2

    path = Path(path)
    samples = []
    for i in range(24):
        for template, fields in (
            (REF_V0, {"question": f"What is {i} + {i}?", "reference": str(2 * i)}),
            (REF_V1, {"question": f"What is {i} + {i}?", "reference": str(2 * i)}),
            (REF_V2, {"question": f"What is {i} + {i}?", "reference": str(2 * i)}),
            (CRITERION_V0, {"question": f"Describe item {i}.", "reference_block": "", "criterion": f"Mentions {i}."}),
        ):
            messages, _ = template.render(f"<answer>{i}</answer>", **fields)
            samples.append(messages)
    corpus = [m["content"] for msgs in samples for m in msgs] + [reply]
    tokenizer = build_tokenizer(corpus * 2, vocab_size=1200)
    tokenizer.chat_template = CHAT_TEMPLATE
    model = build_model(tokenizer, hidden_size=48, layers=1, heads=2, max_positions=4096, seed=seed)
    if train_steps:
        import torch

        pairs = [(tokenizer.apply_chat_template(m, tokenize=False, add_generation_prompt=True), reply) for m in samples]
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # a model this small trains faster on one thread than on a contended pool
        try:
            supervised_warm_start(
                model, tokenizer, pairs, steps=train_steps, batch_size=4, learning_rate=5e-3, seed=seed
            )
        finally:
            torch.set_num_threads(threads)
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
