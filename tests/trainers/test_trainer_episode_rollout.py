"""Multi-turn rollouts on episode envs: the loss mask, ids kept as generated, metrics, budgets.

A scripted policy plays fixed turns, so every expectation is exact: the mask is 1 on exactly the
ids the policy returned, the trained ids are those ids (never re-encoded, even when re-encoding
their text would give other ids), tool results are masked out, and a budget-truncated episode
pays 0 even when its final answer is right.
"""

from __future__ import annotations

import pytest

import rlvr_envs
from rlvr_envs.tiny import build_tokenizer
from rlvr_trainers.episode_rollout import (
    SIMPLE_CHAT_TEMPLATE,
    ChatDeltaError,
    ChatDeltas,
    episode_metrics,
    rollout_episode,
)

CALL = '<tool_call>{"name": "calculator", "arguments": {"expression": "123*45"}}</tool_call>'
FINAL = "The final answer is \\boxed{5535}."
TASK = {"task": rlvr_envs.Task(id="t", prompt="What is 123 * 45?", answer="5535")}


@pytest.fixture(scope="module")
def tokenizer():
    corpus = [CALL, FINAL, "What is 123 * 45? 5535 <tool_response> </tool_response> calculator expression"] * 20
    tok = build_tokenizer(corpus, vocab_size=320)
    tok.chat_template = SIMPLE_CHAT_TEMPLATE
    return tok


def scripted(tokenizer, turns, *, split_chars=False):
    """A policy that plays ``turns`` in order; with split_chars, one id per character (not BPE's)."""
    queue = list(turns)
    played = []

    def generate(ids):
        text = queue.pop(0)
        if split_chars:
            out = [i for ch in text for i in tokenizer(ch, add_special_tokens=False)["input_ids"]]
        else:
            out = tokenizer(text, add_special_tokens=False)["input_ids"]
        out = [*out, tokenizer.eos_token_id]
        played.append(out)
        return out

    return generate, played


def episode_env(**options):
    return rlvr_envs.make("math-arith-v1", tools=["calculator"], max_turns=4, **options)


def test_the_mask_covers_exactly_the_models_tokens(tokenizer):
    generate, played = scripted(tokenizer, [CALL, FINAL])
    with episode_env() as env:
        rollout = rollout_episode(env, generate, ChatDeltas(tokenizer), options=TASK)
    assert rollout.reward == 1.0 and rollout.turns == 2 and rollout.tool_calls == 1
    assert len(rollout.loss_mask) == len(rollout.completion_ids)
    kept = [i for i, m in zip(rollout.completion_ids, rollout.loss_mask, strict=True) if m]
    assert kept == played[0] + played[1]
    # The first turn is masked in, then the tool's result (masked out), then the second turn.
    n0 = len(played[0])
    assert rollout.loss_mask[:n0] == [1] * n0 and rollout.loss_mask[-len(played[1]) :] == [1] * len(played[1])
    between = rollout.completion_ids[n0 : len(rollout.completion_ids) - len(played[1])]
    assert between and all(m == 0 for m in rollout.loss_mask[n0 : n0 + len(between)])
    assert "5535" in tokenizer.decode(between) and "<|tool|>" in tokenizer.decode(between)
    assert tokenizer.decode(between).endswith("<|assistant|>")


def test_generated_ids_are_the_trained_ids_even_when_reencoding_differs(tokenizer):
    generate, played = scripted(tokenizer, [CALL, FINAL], split_chars=True)
    with episode_env() as env:
        rollout = rollout_episode(env, generate, ChatDeltas(tokenizer), options=TASK)
    reencoded = tokenizer(tokenizer.decode(played[0], skip_special_tokens=True), add_special_tokens=False)["input_ids"]
    assert reencoded != played[0][:-1]  # the test means something: BPE would merge these characters
    assert rollout.completion_ids[: len(played[0])] == played[0]
    assert rollout.completion_ids[-len(played[1]) :] == played[1]
    assert rollout.ids[: len(rollout.prompt_ids)] == rollout.prompt_ids
    assert rollout.reward == 1.0


def test_each_turn_continues_the_ids_the_policy_saw(tokenizer):
    seen = []
    generate, _ = scripted(tokenizer, [CALL, CALL, FINAL])

    def watching(ids):
        seen.append(list(ids))
        return generate(ids)

    with episode_env() as env:
        rollout = rollout_episode(env, watching, ChatDeltas(tokenizer), options=TASK)
    assert all(seen[k + 1][: len(seen[k])] == seen[k] for k in range(len(seen) - 1))
    assert rollout.ids[: len(seen[-1])] == seen[-1]


def test_metrics_count_turns_calls_and_errors_per_env(tokenizer):
    bad = '<tool_call>{"name": "calculator", "arguments": {"expression": "import os"}}</tool_call>'
    rollouts = []
    with episode_env() as env:
        for turns in ([CALL, FINAL], [bad, CALL, FINAL], ["The final answer is \\boxed{7}."]):
            generate, _ = scripted(tokenizer, turns)
            rollouts.append(rollout_episode(env, generate, ChatDeltas(tokenizer), options=TASK))
    m = episode_metrics(rollouts)
    p = "episodes/math-arith-v1/"
    assert m[p + "turns"] == pytest.approx((2 + 3 + 1) / 3)
    assert m[p + "tool_calls"] == pytest.approx((1 + 2 + 0) / 3)
    assert m[p + "tool_errors"] == pytest.approx(1 / 3)
    assert m[p + "tool_use"] == pytest.approx(2 / 3)
    assert m[p + "reward"] == pytest.approx(2 / 3)
    assert m[p + "truncated"] == 0.0
    assert episode_metrics([]) == {}


@pytest.mark.parametrize(
    ("options", "reason"),
    [({"max_turns": 1}, "max_turns"), ({"max_generated_chars": 20}, "max_generated_chars")],
)
def test_an_episode_truncated_by_a_budget_pays_zero(tokenizer, options, reason):
    generate, _ = scripted(tokenizer, [CALL, FINAL])
    env = rlvr_envs.make("math-arith-v1", tools=["calculator"], **{"max_turns": 4, **options})
    with env:
        rollout = rollout_episode(env, generate, ChatDeltas(tokenizer), options=TASK)
    assert rollout.truncated and rollout.truncation_reason == reason and rollout.reward == 0.0
    assert sum(rollout.loss_mask) == sum(len(g) for g in rollout.generated)


def test_a_truncation_by_tokens_pays_zero_for_a_right_answer(tokenizer):
    generate, _ = scripted(tokenizer, [FINAL])
    env = rlvr_envs.make(
        "math-arith-v1", tools=["calculator"], max_turns=4, max_generated_tokens=3, count_tokens=tokenizer
    )
    with env:
        rollout = rollout_episode(env, generate, ChatDeltas(tokenizer), options=TASK)
    assert (rollout.truncated, rollout.truncation_reason, rollout.reward) == (True, "max_generated_tokens", 0.0)


def test_a_tokenizer_without_a_template_or_with_a_rewriting_one_is_refused(tokenizer):
    plain = build_tokenizer(["abc"] * 5, vocab_size=280)
    with pytest.raises(ChatDeltaError, match="no chat template"):
        ChatDeltas(plain)
    plain.chat_template = "{{ messages | length }}{% for m in messages %}{{ m['content'] }}{% endfor %}"
    with pytest.raises(ChatDeltaError, match="rewrites"):
        ChatDeltas(plain).tool_ids([{"role": "tool", "content": "x"}])


# A template with no tool role (tool messages rendered as nothing) and one that drops the reasoning
# of every assistant turn but the last: both render the stand-in chat append-only, so only a probe
# episode with a tool result and reasoning in it tells them apart from a usable one.
NO_TOOL_ROLE = (
    "{% for m in messages %}{% if m['role'] != 'tool' %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>\n"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
STRIPS_EARLIER_REASONING = (
    "{% for m in messages %}<|{{ m['role'] }}|>"
    "{% if m['role'] == 'assistant' and not loop.last and '</think>' in m['content'] %}"
    "{{ m['content'].split('</think>')[-1] }}{% else %}{{ m['content'] }}{% endif %}<|end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


@pytest.mark.parametrize("template", [NO_TOOL_ROLE, STRIPS_EARLIER_REASONING], ids=["no-tool-role", "strips-reasoning"])
def test_a_template_that_loses_tool_results_or_rewrites_reasoning_is_refused_before_training(template):
    tok = build_tokenizer(["abc"] * 5, vocab_size=280)
    tok.chat_template = template
    with pytest.raises(ChatDeltaError, match="cannot train on episodes turn by turn"):
        ChatDeltas(tok)


# -- the loss on episodes ------------------------------------------------------------------------


class LogitsOnly:
    """A stand-in model whose logits are one leaf tensor, so their gradient can be read."""

    device = "cpu"

    def __init__(self, width, vocab):
        import torch

        self.logits = torch.zeros((2, width, vocab), requires_grad=True)

    def __call__(self, input_ids, attention_mask):
        from types import SimpleNamespace

        return SimpleNamespace(logits=self.logits[: input_ids.shape[0], : input_ids.shape[1]])


def test_tool_and_template_tokens_get_no_gradient(tokenizer):
    from rlvr_trainers.episode_grpo import episode_loss

    rollouts = []
    with episode_env() as env:
        for turns in ([CALL, FINAL], ["The final answer is \\boxed{7}."]):
            generate, _ = scripted(tokenizer, turns)
            rollouts.append(rollout_episode(env, generate, ChatDeltas(tokenizer), options=TASK))
    width = max(len(r.ids) for r in rollouts)
    model = LogitsOnly(width, len(tokenizer))
    loss = episode_loss(model, rollouts, [1.0, -1.0], pad_id=tokenizer.pad_token_id)
    loss.backward()
    touched = model.logits.grad.abs().sum(-1)  # (row, position): position t predicts id t+1
    for row, r in enumerate(rollouts):
        trained = [False] * (len(r.prompt_ids) - 1) + [bool(m) for m in r.loss_mask]
        for t in range(width - 1):
            expect = t < len(trained) and trained[t]
            assert bool(touched[row, t] > 0) == expect, (row, t)
        assert touched[row, width - 1] == 0


def test_group_advantages():
    from rlvr_trainers.episode_grpo import group_advantages

    adv = group_advantages([1, 0, 0, 0, 1, 1], 3, scale=False)
    assert adv == pytest.approx([2 / 3, -1 / 3, -1 / 3, -2 / 3, 1 / 3, 1 / 3])
    assert group_advantages([1, 1, 0, 0], 2) == [0.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError):
        group_advantages([1, 0, 1], 2)


def test_a_tiny_model_samples_episodes_and_takes_a_step(tokenizer):
    import torch

    from rlvr_envs.tiny import build_model
    from rlvr_trainers.episode_grpo import episode_loss, sampler

    model = build_model(tokenizer, hidden_size=32, layers=1, heads=2, max_positions=512)
    generate = sampler(model, tokenizer, max_new_tokens=16)
    with episode_env(max_generated_chars=400) as env:
        rollouts = [rollout_episode(env, generate, ChatDeltas(tokenizer), options=TASK, seed=s) for s in range(2)]
    assert all(sum(r.loss_mask) == sum(len(g) for g in r.generated) > 0 for r in rollouts)
    loss = episode_loss(model, rollouts, [0.5, -0.5], pad_id=tokenizer.pad_token_id)
    assert torch.isfinite(loss)
    loss.backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())


# -- the training loop ---------------------------------------------------------------------------


def _tiny(tokenizer):
    from rlvr_envs.tiny import build_model

    return build_model(tokenizer, hidden_size=32, layers=1, heads=2, max_positions=1024)


def _weights(model):
    return [p.detach().clone() for p in model.parameters()]


def test_training_on_episodes_steps_on_groups_with_signal_and_reports_metrics(tokenizer):
    import torch

    from rlvr_trainers.episode_train import EpisodeTrainSettings, train_on_episodes

    model = _tiny(tokenizer)
    before = _weights(model)
    settings = EpisodeTrainSettings(steps=2, prompts_per_step=1, group_size=3, max_new_tokens=8, learning_rate=1e-2)
    with episode_env(max_generated_chars=200) as env:
        history = train_on_episodes(
            model, tokenizer, env, [TASK["task"]], settings, reward=lambda r: float(len(r.generated[0]) % 2)
        )
    assert [m["step"] for m in history] == [1.0, 2.0]
    for m in history:
        assert {"reward", "groups_kept", "episodes/math-arith-v1/turns", "episodes/math-arith-v1/tool_calls"} <= set(m)
        assert {"episodes/math-arith-v1/tool_errors", "episodes/math-arith-v1/truncated"} <= set(m)
    stepped = [m for m in history if m["groups_kept"]]
    assert all("loss" in m for m in stepped)
    changed = any(not torch.equal(a, b) for a, b in zip(before, _weights(model), strict=True))
    assert changed == bool(stepped)


def test_groups_without_signal_are_not_trained_on(tokenizer):
    import torch

    from rlvr_trainers.episode_train import EpisodeTrainSettings, train_on_episodes

    model = _tiny(tokenizer)
    before = _weights(model)
    settings = EpisodeTrainSettings(steps=1, prompts_per_step=1, group_size=2, max_new_tokens=4, learning_rate=1e-2)
    with episode_env(max_generated_chars=100) as env:
        history = train_on_episodes(model, tokenizer, env, [TASK["task"]], settings, reward=lambda r: 1.0)
    assert history[0]["groups_kept"] == 0 and "loss" not in history[0]
    assert all(torch.equal(a, b) for a, b in zip(before, _weights(model), strict=True))
    with pytest.raises(ValueError):
        train_on_episodes(model, tokenizer, None, [], settings)


# -- several episodes at once (lockstep batches) --------------------------------------------------


def test_episodes_in_lockstep_are_the_episodes_played_one_at_a_time(tokenizer):
    """Each episode keeps its own chat, ids and verdict when its turns are generated in one batch."""
    from rlvr_trainers.episode_rollout import EnvCopies, rollout_jobs

    other = {"task": rlvr_envs.Task(id="u", prompt="What is 12 * 3?", answer="36")}
    scripts = [[CALL, FINAL], ["The final answer is \\boxed{36}."], [CALL, "no idea"]]
    options = [TASK, other, TASK]

    def play(turns):
        return [*tokenizer(turns, add_special_tokens=False)["input_ids"], tokenizer.eos_token_id]

    queues = [list(s) for s in scripts]
    batches = []

    def generate_many(sequences):
        # The batch holds the episodes still running, in job order: find each by its prompt length.
        batches.append(len(sequences))
        running = [i for i, q in enumerate(queues) if q]
        return [play(queues[i].pop(0)) for i in running]

    deltas = ChatDeltas(tokenizer)
    with episode_env() as env:
        together = rollout_jobs(list(zip([env] * 3, options)), generate_many, deltas, EnvCopies())
        alone = [
            rollout_episode(env, scripted(tokenizer, script)[0], deltas, options=opts)
            for script, opts in zip(scripts, options)
        ]
    assert batches == [3, 2]  # the second turn is generated only for the episodes that called the tool
    for a, b in zip(together, alone, strict=True):
        assert (a.ids, a.loss_mask, a.reward, a.turns, a.tool_calls) == (
            b.ids,
            b.loss_mask,
            b.reward,
            b.turns,
            b.tool_calls,
        )
    assert [r.reward for r in together] == [1.0, 1.0, 0.0]


def test_lockstep_needs_an_env_per_episode_and_copies_share_nothing_of_an_episode(tokenizer):
    from rlvr_trainers.episode_rollout import EnvCopies, rollout_episodes, rollout_jobs

    deltas = ChatDeltas(tokenizer)
    with episode_env() as env:
        with pytest.raises(ValueError, match="an env of its own"):
            rollout_episodes([env, env], lambda seqs: [[tokenizer.eos_token_id]] * len(seqs), deltas, [TASK, TASK])
        copies = EnvCopies()
        first, second = copies.take(env, 2)
        assert first is env and second is not env and copies.take(env, 2)[1] is second  # made once, reused
        first.reset(options=TASK)
        assert second.current_task is None
        with pytest.raises(ValueError, match="between episodes"):
            EnvCopies().take(env, 2)
        first.close()
        with pytest.raises(ValueError, match="max_batch"):
            rollout_jobs([(env, TASK)], lambda s: s, deltas, copies, max_batch=0)


def test_the_batch_sampler_generates_as_one_at_a_time_with_left_padding():
    import torch

    from rlvr_envs.tiny import build_model
    from rlvr_trainers.episode_grpo import batch_sampler

    tok = build_tokenizer(["What is 3 + 4? 7", "What is 13 + 42? 55"] * 20, vocab_size=290)
    model = build_model(tok, hidden_size=32, layers=2, heads=2, seed=0)
    with torch.no_grad():  # a random model repeats one id; noise makes its greedy turns differ
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(1)) * 0.5)
    model.eval()
    generate_many = batch_sampler(model, tok, max_new_tokens=10, temperature=0)
    sequences = [tok(t)["input_ids"] for t in ("What is 3 + 4?", "What is 13 + 42? And", "7")]
    together = generate_many(sequences)
    assert len({tuple(t) for t in together}) > 1  # the comparison below means something
    assert together == [generate_many([s])[0] for s in sequences]
    assert all(tok.eos_token_id not in t[:-1] for t in together)  # cut after the first EOS
