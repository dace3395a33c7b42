"""Samplers: an OpenAI-compatible server started here, a tiny causal LM built here, vLLM's call shape."""

from __future__ import annotations

import string
import sys
import time
import types

import pytest

from rlvr_envs.samplers import OpenAICompatibleSampler, Sampler, SamplerError, SamplingParams
from rlvr_envs.samplers.base import FunctionSampler, check_generate_args
from tests.difficulty.helpers_difficulty import FakeOpenAIServer, scripted_answer

CHAT = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 12 + 30?"}]


def fast(server: FakeOpenAIServer, **kwargs) -> OpenAICompatibleSampler:
    kwargs.setdefault("backoff_s", 0.01)
    kwargs.setdefault("timeout_s", 5)
    return OpenAICompatibleSampler(server.base_url, "toy-model", **kwargs)


def test_chat_and_completions_endpoints_return_n_completions_per_prompt():
    with FakeOpenAIServer() as server:
        chat = fast(server)
        out = chat.generate([CHAT, "What is 1 + 2?"], 3)
        assert [len(o) for o in out] == [3, 3]
        assert all(c.startswith("Adding them gives") for o in out for c in o)
        assert server.bodies[0]["messages"][0]["role"] in ("system", "user")
        raw = fast(server, chat=False)
        out = raw.generate(["What is 1 + 2?"], 2)
        assert out[0] == [scripted_answer("What is 1 + 2?", server.bodies[-1]["seed"], i) for i in range(2)]
        assert "prompt" in server.bodies[-1] and server.bodies[-1]["n"] == 2
        assert isinstance(chat, Sampler)
        assert chat.fingerprint != raw.fingerprint  # the endpoint changes what is sampled
        assert chat.generate([], 4) == []


def test_the_same_prompt_gets_the_same_seed_wherever_it_sits_in_a_batch():
    with FakeOpenAIServer() as server:
        sampler = fast(server)
        sampler.generate(["What is 1 + 2?", "What is 3 + 4?"], 1)
        sampler.generate(["What is 3 + 4?"], 1)
        seeds = {b["messages"][0]["content"]: b["seed"] for b in server.bodies[:2]}
        assert server.bodies[2]["seed"] == seeds["What is 3 + 4?"]


def test_concurrency_limit_is_respected():
    with FakeOpenAIServer(delay_s=0.05) as server:
        sampler = fast(server, max_concurrency=3)
        sampler.generate([f"What is {i} + 1?" for i in range(12)], 1)
        assert server.max_in_flight <= 3 and server.requests == 12
        assert server.max_in_flight >= 2  # and it does run requests in parallel


def test_server_errors_and_throttling_are_retried_with_backoff():
    with FakeOpenAIServer(fail_first=2, throttle_first=1) as server:
        sampler = fast(server, max_concurrency=1, max_retries=3)
        out = sampler.generate(["What is 5 + 5?"], 2)
        assert len(out[0]) == 2 and server.requests == 4
        assert sampler.stats == {"requests": 4, "retries": 3}


def test_retries_are_bounded_and_the_error_says_why():
    with FakeOpenAIServer(fail_first=100) as server:
        sampler = fast(server, max_retries=2)
        with pytest.raises(SamplerError, match=r"failed after 3 attempt\(s\).*HTTP 500"):
            sampler.generate(["What is 5 + 5?"], 1)
        assert server.requests == 3


def test_client_errors_are_not_retried():
    with FakeOpenAIServer(max_requests=0) as server:  # every request gets a 400
        sampler = fast(server, max_retries=5)
        with pytest.raises(SamplerError, match="refused the request.*HTTP 400"):
            sampler.generate(["What is 5 + 5?"], 1)
        assert server.requests == 1


def test_a_hung_server_times_out_instead_of_blocking():
    # Two tries of 0.2 s against a server that answers after 10 s: about 0.4 s when the timeout
    # holds, 10 s or more when it does not; the 5 s bound is 12x the first and half the second
    # (it was 1.5 s against a 2 s delay: under 4x for a loaded machine, 1.3x from a blocking client).
    with FakeOpenAIServer(delay_s=10.0) as server:  # daemon handler threads: leaving does not wait
        sampler = fast(server, timeout_s=0.2, max_retries=1)
        start = time.monotonic()
        with pytest.raises(SamplerError, match="timed out|TimeoutError"):
            sampler.generate(["What is 5 + 5?"], 1)
        assert time.monotonic() - start < 5.0


def test_servers_that_cap_choices_are_topped_up():
    with FakeOpenAIServer(max_choices=2) as server:
        out = fast(server).generate(["What is 7 + 8?"], 5)
        assert len(out[0]) == 5 and server.requests == 3
        seeds = [b["seed"] for b in server.bodies]
        assert len(set(seeds)) == 3  # each top-up asks for different samples


def test_unreachable_server_fails_cleanly():
    sampler = OpenAICompatibleSampler("http://127.0.0.1:9/v1", "m", max_retries=1, backoff_s=0.01, timeout_s=1)
    with pytest.raises(SamplerError, match="failed after 2"):
        sampler.generate(["hi"], 1)
    with pytest.raises(ValueError):
        OpenAICompatibleSampler("127.0.0.1:8000", "m")


def test_generate_arguments_are_checked():
    with pytest.raises(TypeError, match="list of prompts"):
        check_generate_args("a single string", 1)
    with pytest.raises(ValueError):
        check_generate_args(["x"], 0)
    with pytest.raises(TypeError, match="chat prompt"):
        check_generate_args([[{"content": "no role"}]], 1)
    with pytest.raises(ValueError):
        SamplingParams(temperature=-1)
    sampler = FunctionSampler(lambda t, n, s: ["a"], "short")
    with pytest.raises(SamplerError, match="expected 2"):
        sampler.generate(["q"], 2)


# -- transformers ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_lm():
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    vocab = {"<pad>": 0, "<s>": 1, "</s>": 2, "<unk>": 3}
    for ch in string.printable:
        vocab.setdefault(ch, len(vocab))
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")  # one token per character
    core.decoder = decoders.Fuse()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="<pad>", bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )
    config = transformers.LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(config), tokenizer


def test_transformers_sampler_generates_reproducibly_on_cpu(tiny_lm):
    from rlvr_envs.samplers import TransformersSampler

    model, tokenizer = tiny_lm
    sampler = TransformersSampler(
        model, tokenizer, params=SamplingParams(max_tokens=6, seed=3), device="cpu", batch_size=2
    )
    prompts = ["What is 1 + 2?", CHAT, "Hi"]
    out = sampler.generate(prompts, 3)
    assert [len(o) for o in out] == [3, 3, 3]
    assert all(isinstance(c, str) and len(c) <= 6 for o in out for c in o)
    assert sampler.generate(prompts, 3) == out  # seeded from the batch content
    assert sampler.generate(prompts[:1], 3)[0] != out[1]
    assert sampler.count_tokens("abc") == 3
    greedy = TransformersSampler(model, tokenizer, params=SamplingParams(max_tokens=6, temperature=0), device="cpu")
    once = greedy.generate(["What is 1 + 2?"], 2)[0]
    assert once[0] == once[1]  # greedy: every sequence is the same
    assert greedy.fingerprint != sampler.fingerprint


def test_transformers_sampler_applies_the_chat_template_and_fingerprints_it(tiny_lm):
    from rlvr_envs.samplers import TransformersSampler

    model, tokenizer = tiny_lm
    plain = TransformersSampler(model, tokenizer, params=SamplingParams(max_tokens=4), device="cpu")
    assert plain.render(CHAT) == "Be brief.\n\nWhat is 12 + 30?"
    before = plain.fingerprint
    tokenizer.chat_template = (
        "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}<assistant>{% endif %}"
    )
    try:
        templated = TransformersSampler(model, tokenizer, params=SamplingParams(max_tokens=4), device="cpu")
        assert templated.render(CHAT) == "<system>Be brief.\n<user>What is 12 + 30?\n<assistant>"
        assert templated.fingerprint != before
    finally:
        tokenizer.chat_template = None


def test_transformers_sampler_profiles_an_env_end_to_end(tiny_lm, tmp_path):
    from rlvr_envs.difficulty.profile import profile_env
    from rlvr_envs.difficulty.store import PassRateStore
    from rlvr_envs.samplers import TransformersSampler
    from tests.helpers.toy import ToyAddEnv

    model, tokenizer = tiny_lm
    sampler = TransformersSampler(model, tokenizer, params=SamplingParams(max_tokens=5), device="cpu")
    env = ToyAddEnv(size=3, isolation="inline")
    summary = profile_env(env, sampler, tmp_path / "hf.sqlite", n=2, progress=False)
    assert summary.samples_generated == 6
    with PassRateStore(tmp_path / "hf.sqlite") as store:
        assert store.sampler_description(summary.sampler)["length_unit"] == "tokens"
        lengths = [s.length for s in store.samples(env.env_id, summary.sampler)]
        assert len(lengths) == 6 and all(0 <= n <= 5 for n in lengths)


# -- vLLM (not installable here: no GPU). The sampler's calls are checked against a stand-in module
# that mirrors the parts of vLLM's offline API it uses; a real GPU run is still needed.
def test_vllm_sampler_reports_a_missing_install_clearly(monkeypatch):
    from rlvr_envs.samplers.vllm_sampler import VLLMSampler

    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(SamplerError, match="pip install vllm"):
        VLLMSampler("some/model")


def test_vllm_sampler_routes_plain_and_chat_prompts(monkeypatch):
    from rlvr_envs.samplers.vllm_sampler import VLLMSampler

    made = {}

    class FakeLLM:
        def __init__(self, **kwargs):
            made.update(kwargs)
            self.calls = []

        def get_tokenizer(self):
            return types.SimpleNamespace(chat_template="{{ messages }}", encode=lambda t, add_special_tokens: list(t))

        def _outputs(self, items, params):
            return [
                types.SimpleNamespace(outputs=[types.SimpleNamespace(text=f"{i}:{j}") for j in range(params.n)])
                for i in items
            ]

        def generate(self, prompts, sampling_params, use_tqdm=True):
            self.calls.append(("generate", prompts))
            return self._outputs(prompts, sampling_params)

        def chat(self, messages, sampling_params, use_tqdm=True):
            self.calls.append(("chat", messages))
            return self._outputs([m[-1]["content"] for m in messages], sampling_params)

    class FakeParams:
        def __init__(self, **kwargs):
            self.__dict__.update(kwargs)

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(LLM=FakeLLM, SamplingParams=FakeParams))
    sampler = VLLMSampler("org/model", revision="abc", params=SamplingParams(seed=5), tensor_parallel_size=2)
    assert made == {"model": "org/model", "revision": "abc", "tensor_parallel_size": 2, "seed": 5}
    out = sampler.generate(["p0", CHAT, "p2"], 2)
    assert out == [["p0:0", "p0:1"], ["What is 12 + 30?:0", "What is 12 + 30?:1"], ["p2:0", "p2:1"]]
    assert [c[0] for c in sampler.llm.calls] == ["generate", "chat"]
    assert sampler.fingerprint.startswith("model-")
    assert sampler.count_tokens("abcd") == 4


def test_profile_command_loads_a_saved_model_by_path(tiny_lm, tmp_path, capsys):
    from rlvr_envs.cli import main
    from tests.difficulty.helpers_difficulty import register_toy_ids

    register_toy_ids()
    model, tokenizer = tiny_lm
    model.save_pretrained(tmp_path / "tiny")
    tokenizer.save_pretrained(tmp_path / "tiny")
    db = tmp_path / "hf.sqlite"
    args = [
        "profile",
        "difftoy-list-v0",
        "--arg",
        "n=3",
        "--sampler",
        "hf",
        "--model",
        str(tmp_path / "tiny"),
        "--device",
        "cpu",
        "--max-tokens",
        "4",
        "-n",
        "2",
        "--db",
        str(db),
        "--no-progress",
        "--no-card",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "3 profiled now" in out and "tiny-" in out
    assert main(args) == 0  # the same model from the same path has the same fingerprint: nothing to redo
    assert "3 already done, 0 profiled now" in capsys.readouterr().out
