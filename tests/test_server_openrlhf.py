"""OpenRLHF's exact request shapes against the server: padded, templated queries with real EOS text.

OpenRLHF decodes each whole sequence (left padding, prompt, response, EOS, right padding) with
``skip_special_tokens=False`` and posts ``{"query", "prompts", "labels"}``. The queries here are
made the same way, with tokenizers carrying the special tokens of real chat templates.
"""

from __future__ import annotations

import json
import urllib.request

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("tokenizers")

import rlvr_envs
from rlvr_envs.adapters.rows import verifier_spec
from rlvr_envs.serve.app import RewardServer
from rlvr_envs.serve.protocol import SpecialTokens, openrlhf_label, split_query

END = "Is there anything else I can help with?"

# (name, bos, pad, eos, template): the special-token text of each family's tokenizer config.
TEMPLATES = [
    (
        "chatml-qwen",
        None,
        "<|endoftext|>",
        "<|im_end|>",
        "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}<|im_start|>assistant\n",
    ),
    (
        "llama3",
        "<|begin_of_text|>",
        "<|finetune_right_pad_id|>",
        "<|eot_id|>",
        "<|begin_of_text|>{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n{{ m['content'] }}"
        "<|eot_id|>{% endfor %}<|start_header_id|>assistant<|end_header_id|>\n\n",
    ),
    ("llama2-mistral", "<s>", "</s>", "</s>", "<s>[INST] {{ messages[-1]['content'] }} [/INST]"),
    (
        "gemma",
        "<bos>",
        "<pad>",
        "<end_of_turn>",
        "<bos>{% for m in messages %}<start_of_turn>user\n{{ m['content'] }}<end_of_turn>\n{% endfor %}<start_of_turn>model\n",
    ),
    (
        "deepseek",
        "<｜begin▁of▁sentence｜>",
        "<｜end▁of▁sentence｜>",
        "<｜end▁of▁sentence｜>",
        "<｜begin▁of▁sentence｜>{% for m in messages %}<｜User｜>{{ m['content'] }}{% endfor %}<｜Assistant｜>",
    ),
    (
        "phi3",
        None,
        "<|endoftext|>",
        "<|end|>",
        "{% for m in messages %}<|user|>\n{{ m['content'] }}<|end|>\n{% endfor %}<|assistant|>\n",
    ),
]


def _tokenizer(bos, pad, eos, template, corpus):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = [t for t in dict.fromkeys([pad, eos, bos]) if t]
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(
        corpus,
        trainers.BpeTrainer(
            vocab_size=400,
            special_tokens=specials,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        ),
    )
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=bos, eos_token=eos, pad_token=pad)
    fast.chat_template = template
    return fast


def _openrlhf_queries(tok, prompts, responses):
    """What OpenRLHF's experience maker sends: left-padded batch of prompt+response+EOS, right padding."""
    seqs = []
    for prompt, response in zip(prompts, responses):
        ids = tok(prompt, add_special_tokens=False)["input_ids"] + tok(response, add_special_tokens=False)["input_ids"]
        seqs.append([*ids, tok.eos_token_id])
    width = max(len(s) for s in seqs) + 2
    padded = [[tok.pad_token_id] * 2 + s + [tok.pad_token_id] * (width - len(s)) for s in seqs]
    return tok.batch_decode(padded, skip_special_tokens=False)


@pytest.fixture(scope="module")
def ifeval_env():
    rows = [
        {
            "key": 7,
            "prompt": f'Describe the sea in two sentences. End your response with "{END}"',
            "instruction_id_list": ["startend:end_checker"],
            "kwargs": [{"end_phrase": END}],
        }
    ]
    return rlvr_envs.make("ifeval", data=rows)


@pytest.fixture(scope="module")
def arith():
    return rlvr_envs.make("math-arith", level=2)


@pytest.fixture(scope="module")
def server(ifeval_env, arith):
    with RewardServer([ifeval_env, arith], port=0) as srv:
        yield srv


def _post(url, body):
    request = urllib.request.Request(
        url + "/get_reward", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


@pytest.mark.parametrize("name,bos,pad,eos,template", TEMPLATES, ids=[t[0] for t in TEMPLATES])
def test_end_phrase_is_read_through_real_eos_strings(server, ifeval_env, arith, name, bos, pad, eos, template):
    task = ifeval_env.tasks[0]
    math_task = arith.sample(1, seed=5)[0]
    good = f"The sea is wide and deep. It moves with the moon. {END}"
    bad = "The sea is wide and deep. It moves with the moon. Goodbye."
    tok = _tokenizer(bos, pad, eos, template, [task.prompt, good, bad, math_task.prompt] * 3)
    prompts = [
        tok.apply_chat_template([{"role": "user", "content": t.prompt}], tokenize=False, add_generation_prompt=True)
        for t in (task, task, math_task)
    ]
    responses = [good, bad, f"So it is \\boxed{{{math_task.answer}}}"]
    queries = _openrlhf_queries(tok, prompts, responses)
    assert eos in queries[0] and queries[0].rstrip().endswith(pad)  # the shape really is OpenRLHF's
    labels = [openrlhf_label(ifeval_env.env_id, task, verifier_spec(ifeval_env))] * 2 + [
        openrlhf_label(arith.env_id, math_task, verifier_spec(arith))
    ]
    reply = _post(server.url, {"query": queries, "prompts": prompts, "labels": labels})
    assert reply["rewards"] == [1.0, 0.0, 1.0], name
    assert reply["extra_logs"]["prompt_not_found"] == [0.0, 0.0, 0.0]


def test_an_answer_shown_in_a_padded_prompt_is_not_read_as_the_response(server, arith):
    # With BOS and left padding in front, "query starts with prompt" fails; the old server then scored the
    # whole query, and the worked answer inside the prompt earned the reward.
    task = arith.sample(1, seed=8)[0]
    prompt = f"<|im_start|>user\nExample: \\boxed{{{task.answer}}}\n{task.prompt}<|im_end|>\n<|im_start|>assistant\n"
    query = "<|endoftext|><|endoftext|>" + prompt + "I am not sure.<|im_end|><|endoftext|>"
    reply = _post(
        server.url,
        {"query": [query], "prompts": [prompt], "labels": [openrlhf_label(arith.env_id, task, verifier_spec(arith))]},
    )
    assert reply["rewards"] == [0.0]


def test_split_query_strips_only_special_tokens():
    tokens = SpecialTokens()
    assert split_query("<s>[INST] q [/INST] answer </s></s>", "[INST] q [/INST]", tokens) == (" answer ", True)
    assert split_query("P: x\nA: yes<|im_end|>\n<|endoftext|>", "P: x\nA:", tokens) == (" yes", True)
    # The response's own text is kept, even when it looks like a tag.
    assert split_query("Q<b>bold</b>", "Q", tokens) == ("<b>bold</b>", True)
    # Prompt not found: the text after the last assistant marker, flagged.
    assert split_query("<|im_start|>assistant\nhello<|im_end|>", "different prompt", tokens) == ("hello", False)
    assert split_query("abc", "abc", SpecialTokens(())) == ("", True)


# -- budgets under the client's timeout ------------------------------------------------------------------
def test_served_budgets_stay_under_openrlhfs_client_timeout():
    from rlvr_envs.serve.app import DEFAULT_MAX_CALL_S
    from tests.helpers.toy import ToyAddEnv

    assert DEFAULT_MAX_CALL_S < 180  # openrlhf.utils.remote_rm_utils posts with timeout=180
    slow = ToyAddEnv(time_budget_s=500)
    with RewardServer(slow, port=0, preload=False) as server:
        assert slow.time_budget_s == DEFAULT_MAX_CALL_S
        assert server.router.scorer_for(slow.env_id).time_budget_s == DEFAULT_MAX_CALL_S
    quick = ToyAddEnv(time_budget_s=1.5)
    RewardServer(quick, port=0, preload=False, max_call_s=10).stop()
    assert quick.time_budget_s == 1.5  # a budget already under the cap is left alone


def test_serving_any_id_caps_the_scorers_it_makes_later():
    arith = rlvr_envs.make("math-arith", level=1)
    spec = verifier_spec(arith)
    server = RewardServer(None, port=0, preload=False, max_call_s=0.5)
    try:
        scorer = server.router.scorer_for("math-arith-v0", json.dumps(spec, default=str))
        assert scorer.time_budget_s <= 0.5
    finally:
        server.stop()
    with pytest.raises(Exception, match="max_call_s"):
        RewardServer(None, port=0, preload=False, max_call_s=0)


def test_get_reward_counts_a_dead_envs_errors_in_a_row_between_healthy_rows_of_another():
    """A mixture: one env's backend is dead, another's rows are healthy and interleaved. Counted
    across envs each healthy row would end the run and the dead env's rows be paid 0.0 forever;
    counted per env the policy's limit is reached and the request fails."""
    from rlvr_envs.adapters.failures import FailurePolicy, InfrastructureFailure
    from rlvr_envs.adapters.routing import EnvRouter
    from rlvr_envs.serve.protocol import Scoring, openrlhf_reply
    from rlvr_envs.types import Reason, Verdict

    ok = Verdict(passed=True, reward=1.0, reason=Reason.OK)
    dead = Verdict(passed=False, reward=0.0, reason=Reason.VERIFIER_ERROR)
    arith = rlvr_envs.make("math-arith", level=1)
    rows = [(env_id, None, "", None) for env_id in ("a", "b", "a", "b", "a", "b")]
    scoring = Scoring(router=EnvRouter([arith]), failures=FailurePolicy(max_consecutive=3, name="t"))
    with pytest.raises(InfrastructureFailure):
        openrlhf_reply(scoring, rows, [dead, ok] * 3, [True] * 6)
    # the same rows with the errors spread over both envs stay under the limit per env
    scoring = Scoring(router=EnvRouter([arith]), failures=FailurePolicy(max_consecutive=3, name="t"))
    assert openrlhf_reply(scoring, rows[:4], [dead, dead, ok, ok], [True] * 4)["scores"] == [0.0, 0.0, 1.0, 1.0]
