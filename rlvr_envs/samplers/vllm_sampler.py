"""An in-process vLLM sampler (needs a GPU and ``pip install vllm``).

Written against vLLM's offline API (``vllm.LLM``, ``LLM.generate``, ``LLM.chat``,
``vllm.SamplingParams``). vLLM is imported only when the sampler is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlvr_envs.samplers.base import (
    Prompt,
    SamplerError,
    SamplingParams,
    check_generate_args,
    make_fingerprint,
    stable_hash,
)


class VLLMSampler:
    """Samples with ``vllm.LLM``: plain prompts through ``generate``, chat prompts through ``chat``.

    Args:
        model: model name or local path.
        revision: model revision (a commit hash pins it); part of the fingerprint.
        params: sampling parameters.
        llm_kwargs: more ``vllm.LLM`` arguments (``tensor_parallel_size``, ``dtype``,
            ``gpu_memory_utilization``, ``max_model_len``...); they do not change the
            distribution, so they are not fingerprinted.
    """

    def __init__(
        self,
        model: str,
        *,
        revision: str | None = None,
        params: SamplingParams | None = None,
        **llm_kwargs: Any,
    ) -> None:
        try:
            import vllm
        except ImportError as exc:
            raise SamplerError("the vLLM sampler needs vLLM and a GPU: pip install vllm") from exc
        self._vllm = vllm
        self.model_name = model
        self.revision = revision
        self.params = params or SamplingParams()
        if self.params.seed is not None:
            llm_kwargs.setdefault("seed", self.params.seed)
        self.llm = vllm.LLM(model=model, revision=revision, **llm_kwargs)
        self._fingerprint: str | None = None

    def describe(self) -> dict[str, Any]:
        tokenizer = self.llm.get_tokenizer()
        template = getattr(tokenizer, "chat_template", None)
        return {
            "kind": "vllm",
            "model": self.model_name,
            "revision": self.revision,
            "chat_template": stable_hash(template) if template else None,
            "params": self.params.as_dict(),
        }

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = make_fingerprint(self.model_name, self.describe())
        return self._fingerprint

    def count_tokens(self, text: str) -> int:
        return len(self.llm.get_tokenizer().encode(text, add_special_tokens=False))

    def _sampling_params(self, n: int) -> Any:
        p = self.params
        return self._vllm.SamplingParams(
            n=n,
            temperature=p.temperature,
            top_p=p.top_p,
            max_tokens=p.max_tokens,
            seed=p.seed,
            stop=list(p.stop) or None,
        )

    def generate(self, prompts: Sequence[Prompt], n: int) -> list[list[str]]:
        check_generate_args(prompts, n)
        sampling = self._sampling_params(n)
        out: list[list[str] | None] = [None] * len(prompts)
        plain = [i for i, p in enumerate(prompts) if isinstance(p, str)]
        chats = [i for i, p in enumerate(prompts) if not isinstance(p, str)]
        if plain:
            results = self.llm.generate([prompts[i] for i in plain], sampling, use_tqdm=False)
            for i, result in zip(plain, results):
                out[i] = [c.text for c in result.outputs]
        if chats:
            conversations = [list(prompts[i]) for i in chats]
            results = self.llm.chat(conversations, sampling, use_tqdm=False)
            for i, result in zip(chats, results):
                out[i] = [c.text for c in result.outputs]
        if any(o is None or len(o) != n for o in out):
            raise SamplerError(f"vLLM returned a different number of outputs than the {n} asked for")
        return [o for o in out if o is not None]
