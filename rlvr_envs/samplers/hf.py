"""A sampler over a Hugging Face ``transformers`` causal LM (batched ``generate``, CPU or GPU).

``torch`` and ``transformers`` are imported only when this sampler is built.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from rlvr_envs.samplers.base import (
    Prompt,
    SamplerError,
    SamplingParams,
    check_generate_args,
    flatten_messages,
    make_fingerprint,
    stable_hash,
)

_WEIGHT_HASH_MAX_PARAMS = 50_000_000
"""Models up to this size get their weights hashed into the fingerprint (in-memory models have no name)."""


def _truncate_at_stop(text: str, stops: Sequence[str]) -> str:
    cut = min((i for i in (text.find(s) for s in stops if s) if i >= 0), default=-1)
    return text if cut < 0 else text[:cut]


class TransformersSampler:
    """Samples with ``model.generate``.

    Args:
        model: a model name or local path (loaded with ``AutoModelForCausalLM``) or a loaded model.
        tokenizer: a tokenizer, or None to load the model's own (needs ``model`` to be a name).
        revision: the model revision (a commit hash pins it); part of the fingerprint.
        params: sampling parameters; temperature 0 means greedy decoding.
        batch_size: prompts per ``generate`` call (each gives ``n`` sequences).
        device: ``"cpu"``, ``"cuda"``, ... or ``"auto"`` (CUDA when available).
        dtype: torch dtype name for loading (``"bfloat16"``...), or None for the checkpoint's.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any = None,
        *,
        revision: str | None = None,
        params: SamplingParams | None = None,
        batch_size: int = 8,
        device: str = "auto",
        dtype: str | None = None,
    ) -> None:
        try:
            import torch
            import transformers
        except ImportError as exc:
            raise SamplerError(
                "the transformers sampler needs torch and transformers: pip install 'rlvr-envs[hf]'"
            ) from exc
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.params = params or SamplingParams()
        self.batch_size = batch_size
        self.device = device
        self.revision = revision
        if isinstance(model, str):
            load_kwargs: dict[str, Any] = {"revision": revision}
            if dtype is not None:
                load_kwargs["dtype"] = getattr(torch, dtype)
            self.model_name = model
            if tokenizer is None:
                tokenizer = transformers.AutoTokenizer.from_pretrained(model, revision=revision)
            model = transformers.AutoModelForCausalLM.from_pretrained(model, **load_kwargs)
        else:
            self.model_name = getattr(getattr(model, "config", None), "name_or_path", "") or ""
            if tokenizer is None:
                raise ValueError("pass the tokenizer along with an already-loaded model")
        self.model = model.to(device).eval()
        self.tokenizer = tokenizer
        if self.revision is None:
            self.revision = getattr(model.config, "_commit_hash", None)
        self._fingerprint: str | None = None

    # -- identity --------------------------------------------------------------------------------
    def _weights_hash(self) -> str | None:
        params = list(self.model.parameters())
        if sum(p.numel() for p in params) > _WEIGHT_HASH_MAX_PARAMS:
            return None
        digest = hashlib.sha256()
        for name, tensor in sorted(self.model.state_dict().items()):
            digest.update(name.encode())
            digest.update(tensor.detach().float().cpu().numpy().tobytes())
        return digest.hexdigest()[:16]

    def describe(self) -> dict[str, Any]:
        template = getattr(self.tokenizer, "chat_template", None)
        return {
            "kind": "transformers",
            "model": self.model_name,
            "revision": self.revision,
            "weights": self._weights_hash(),
            "config": stable_hash(self.model.config.to_dict()),
            "tokenizer_vocab": len(self.tokenizer),
            "chat_template": stable_hash(template) if template else None,
            "params": self.params.as_dict(),
        }

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = make_fingerprint(self.model_name or "hf-model", self.describe())
        return self._fingerprint

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    # -- sampling --------------------------------------------------------------------------------
    def render(self, prompt: Prompt) -> str:
        """The text fed to the model: chat prompts go through the tokenizer's chat template if it has one."""
        if isinstance(prompt, str):
            return prompt
        if getattr(self.tokenizer, "chat_template", None):
            return str(self.tokenizer.apply_chat_template(list(prompt), tokenize=False, add_generation_prompt=True))
        return flatten_messages(prompt)

    def generate(self, prompts: Sequence[Prompt], n: int) -> list[list[str]]:
        check_generate_args(prompts, n)
        texts = [self.render(p) for p in prompts]
        out: list[list[str]] = []
        for start in range(0, len(texts), self.batch_size):
            out.extend(self._generate_batch(texts[start : start + self.batch_size], n))
        return out

    def _generate_batch(self, texts: list[str], n: int) -> list[list[str]]:
        import torch

        tok = self.tokenizer
        pad_id = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        if pad_id is None:
            raise SamplerError("the tokenizer has neither a pad token nor an eos token")
        saved_side = tok.padding_side
        tok.padding_side = "left"  # decoder-only models continue from the right edge
        try:
            enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=True)
        finally:
            tok.padding_side = saved_side
        enc = {k: v.to(self.device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}
        p = self.params
        greedy = p.temperature == 0
        # Greedy decoding gives one sequence per prompt; transformers refuses to return n copies.
        per_prompt = 1 if greedy else n
        kwargs: dict[str, Any] = {
            "max_new_tokens": p.max_tokens,
            "num_return_sequences": per_prompt,
            "pad_token_id": pad_id,
        }
        if greedy:
            kwargs.update(do_sample=False)
        else:
            kwargs.update(do_sample=True, temperature=p.temperature, top_p=p.top_p, top_k=0)
        # Seed from the batch content, so a batch gives the same samples whatever ran before it
        # (a resumed profile reproduces what an uninterrupted one would have drawn).
        seed = int(stable_hash([p.seed, texts, n], 8), 16) if p.seed is not None else None
        devices = [torch.cuda.current_device()] if self.device.startswith("cuda") else []
        with torch.random.fork_rng(devices=devices), torch.no_grad():
            if seed is not None:
                torch.manual_seed(seed)
            generated = self.model.generate(**enc, **kwargs)
        new_tokens = generated[:, enc["input_ids"].shape[1] :]
        decoded = tok.batch_decode(new_tokens, skip_special_tokens=True)
        if p.stop:
            decoded = [_truncate_at_stop(t, p.stop) for t in decoded]
        if greedy:
            return [[text] * n for text in decoded]
        return [decoded[i * n : (i + 1) * n] for i in range(len(texts))]
