"""``python -m rlvr_trainers.demo_tools``: RL on episodes teaches a tiny model to use a calculator.

The tasks are products (``What is 47 * 86?``). Single-digit ones a tiny model learns in its head;
two-digit ones it cannot. The in-process ``calculator`` tool can (no sandbox needed). The SFT
warm start shows, on every kind of task, both ways: answering directly and calling the tool, then
copying its result (no staged bad habit). DAPO on episodes (``episode_train``) then trains on hard
tasks with the verifier's reward; held-out pass@1 and the tool-call rate on hard tasks are
measured before and after.

Controls from the same warm start, on one plot: an any-answer reward (pays every finished
episode: what training alone does, without the verifier) and the verifier's run with the tools
disabled (the same env with ``tools=[]``: a call gets an unknown-tool error).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

from rlvr_envs import Difficulty, ProceduralEnv, Task
from rlvr_envs.errors import ConfigurationError
from rlvr_envs.formats import PromptFormat

# The demo's chat template: no system message (the tool instruction is long; the tiny model
# learns the call layout from SFT instead), one line per message.
DEMO_CHAT_TEMPLATE = (
    "{% for m in messages %}{% if m['role'] != 'system' %}"
    "<|{{ m['role'] }}|>{{ m['content'] }}{{ eos_token }}\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


# The question alone: the plain format's instruction ("Reason step by step, then give your final
# answer in \\boxed{}.") is 60 of a tiny tokenizer's ids, more than the rest of an episode, and the
# demo's time goes into every id of every episode. The math verifier reads a bare number.
BARE = PromptFormat(name="bare", system_prompt=None, instruction="", answer_template="{answer}", format_pattern=r".+")


class ProductEnv(ProceduralEnv):
    """``What is a * b?`` with ``digits``-digit operands (1: 0..9)."""

    family = "math"
    default_prompt_format = "bare"
    prompt_formats: ClassVar[Mapping[str, PromptFormat]] = {"bare": BARE}

    def __init__(self, *, digits: int = 2, **kwargs: Any) -> None:
        from rlvr_math.verifier import MathVerifier

        if not isinstance(digits, int) or not 1 <= digits <= 4:
            raise ConfigurationError(f"digits must be an integer in 1..4, got {digits!r}")
        self.digits = digits
        super().__init__(kwargs.pop("verifier", None) or MathVerifier(), **kwargs)

    def generate(self, rng: random.Random) -> Task:
        low = 10 ** (self.digits - 1) if self.digits > 1 else 0
        a, b = rng.randint(low, 10**self.digits - 1), rng.randint(low, 10**self.digits - 1)
        return Task(
            id=f"P{self.digits}",
            prompt=f"What is {a} * {b}?",
            answer=str(a * b),
            difficulty=Difficulty(level=self.digits, config={"digits": self.digits}),
        )

    def answer_text(self, task: Task) -> str:
        return str(task.answer)


def call_text(task: Task) -> str:
    expression = task.prompt.removeprefix("What is ").removesuffix("?").replace(" ", "")
    return json.dumps({"name": "calculator", "arguments": {"expression": expression}}).join(
        ("<tool_call>", "</tool_call>")
    )


@dataclass
class ToolsDemoSettings:
    seed: int = 0
    out_dir: str = "runs/demo_tools"
    sft_tasks: int = 1500
    sft_steps: int = 500
    sft_lr: float = 2e-3
    tool_rate: float = 0.5
    """Share of SFT episodes that call the tool (the rest answer directly), on easy and hard tasks alike."""
    easy_share: float = 0.5
    rl_tasks: int = 512
    rl_steps: int = 30
    rl_lr: float = 3e-4
    prompts_per_step: int = 4
    group_size: int = 8
    heldout: int = 128
    eval_every: int = 10
    hidden_size: int = 96
    layers: int = 2
    controls: tuple[str, ...] = ("any_answer", "no_tools")


def _print(msg: str) -> None:
    print(msg, flush=True)


def _scripted(tokenizer: Any, turns: Sequence[str]) -> Any:
    queue = list(turns)

    def generate(ids: list[int]) -> list[int]:
        return [*tokenizer(queue.pop(0), add_special_tokens=False)["input_ids"], tokenizer.eos_token_id]

    return generate


def sft_on_rollouts(
    model: Any,
    rollouts: Sequence[Any],
    *,
    steps: int,
    lr: float,
    seed: int,
    pad_id: int,
    batch_size: int = 32,
    length_buckets: int = 2,
) -> float:
    """Cross-entropy on the model's ids of scripted episodes (``loss_mask``): tool ids are context only.

    Each batch is run as ``length_buckets`` sub-batches of similar length, their gradients summed
    (each sub-batch's token losses over the whole batch's token count): the same gradient as one
    padded batch, without computing the padding. A direct answer is about a third of a tool
    episode's length, so one batch padded to its longest spent about a third of its work on pads.
    """
    import torch

    from rlvr_trainers.episode_grpo import token_logprobs

    rng = random.Random(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    model.train()
    loss = 0.0
    for _ in range(steps):
        batch = sorted((rollouts[rng.randrange(len(rollouts))] for _ in range(batch_size)), key=lambda r: len(r.ids))
        tokens = sum(sum(r.loss_mask) for r in batch)
        size = -(-len(batch) // max(1, length_buckets))
        optimizer.zero_grad()
        loss = 0.0
        for start in range(0, len(batch), size):
            logprobs, mask = token_logprobs(model, batch[start : start + size], pad_id)
            part = -(logprobs * mask).sum() / max(tokens, 1)
            part.backward()
            loss += float(part.detach())
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    model.eval()
    return loss


def evaluate_episodes(model: Any, tokenizer: Any, env: Any, tasks: Sequence[Task], seed: int) -> dict[str, float]:
    """Held-out pass@1 (one sample at temperature 1) and the share of episodes that called a tool."""
    import torch

    from rlvr_trainers.episode_run import evaluate_episodes as evaluate

    torch.manual_seed(seed)
    scores = evaluate(
        model, tokenizer, {env.env_id: env}, [(env.env_id, t) for t in tasks], k=1, temperature=1.0, max_new_tokens=40
    )
    return {"pass@1": scores["pass@1"], "tool_use": scores["tool_use"]}


def run_tools_demo(settings: ToolsDemoSettings) -> dict[str, Any]:
    import torch

    from rlvr_envs.episodes import EpisodeEnv
    from rlvr_trainers.episode_rollout import ChatDeltas, rollout_episode
    from rlvr_trainers.episode_train import EpisodeTrainSettings, train_on_episodes
    from rlvr_trainers.plots import plot_comparison
    from rlvr_trainers.tiny import EOS, build_model, build_tokenizer

    t0 = time.perf_counter()
    _print(
        f"[tools] seed {settings.seed} (make demo TASK=tools SEED={settings.seed}; python -m rlvr_trainers.demo_tools "
        f"--seed {settings.seed}); load average {os.getloadavg()[0]:.1f}"
    )
    torch.manual_seed(settings.seed)
    # One thread: on the shared 2-core machine two threads made an SFT step 5-10x slower (load 9).
    torch.set_num_threads(1)
    out = Path(settings.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    easy, hard = ProductEnv(digits=1), ProductEnv(digits=2)
    heldout = hard.sample(settings.heldout, seed=settings.seed + 1_000_003)
    held = {t.prompt for t in heldout}
    rng = random.Random(settings.seed)
    sft_tasks = [
        (easy if rng.random() < settings.easy_share else hard).sample(1, seed=settings.seed * 7919 + i)[0]
        for i in range(settings.sft_tasks)
    ]
    sft_tasks = [t for t in sft_tasks if t.prompt not in held]
    rl_tasks = [t for t in hard.sample(settings.rl_tasks * 2, seed=settings.seed + 2) if t.prompt not in held]
    rl_tasks = rl_tasks[: settings.rl_tasks]

    corpus = []
    for task in sft_tasks[:400]:
        corpus.append(f"<|user|>{task.prompt}{EOS}\n<|assistant|>{call_text(task)}{EOS}\n")
        corpus.append(f"<|tool|>{task.answer}{EOS}\n<|assistant|>{task.answer}{EOS}\n")
    tokenizer = build_tokenizer(corpus, vocab_size=320)
    tokenizer.chat_template = DEMO_CHAT_TEMPLATE
    deltas = ChatDeltas(tokenizer)

    def episodes(tools: bool) -> Any:
        return EpisodeEnv(hard, tools=["calculator"] if tools else [], max_turns=3, max_generated_chars=300)

    sft_env = EpisodeEnv(easy, tools=["calculator"], max_turns=3)
    demos = []
    for task in sft_tasks:
        turns = [call_text(task), str(task.answer)] if rng.random() < settings.tool_rate else [str(task.answer)]
        demos.append(rollout_episode(sft_env, _scripted(tokenizer, turns), deltas, options={"task": task}))
    # Episodes run past 256 ids only when a turn rambles; RoPE needs no table, this only quiets the warning.
    model = build_model(
        tokenizer, hidden_size=settings.hidden_size, layers=settings.layers, max_positions=512, seed=settings.seed
    )
    t = time.perf_counter()
    loss = sft_on_rollouts(
        model, demos, steps=settings.sft_steps, lr=settings.sft_lr, seed=settings.seed, pad_id=tokenizer.pad_token_id
    )
    _print(
        f"[tools] SFT warm start on {len(demos)} scripted episodes: loss {loss:.2f} ({time.perf_counter() - t:.0f} s)"
    )
    state = {k: v.clone() for k, v in model.state_dict().items()}
    with episodes(True) as env:
        before = evaluate_episodes(model, tokenizer, env, heldout, settings.seed)
    _print(
        f"[tools] before RL, held-out 2-digit products: pass@1 {before['pass@1']:.1%}, "
        f"tool use {before['tool_use']:.1%}"
    )

    runs = {"verifier": ("verifier", True), "any_answer": ("any_answer", True), "no_tools": ("verifier", False)}
    summary: dict[str, Any] = {"settings": asdict(settings), "before": before, "runs": {}}
    curves: dict[str, list[tuple[int, float]]] = {}
    for name in ["verifier", *settings.controls]:
        reward_kind, tools = runs[name]
        model.load_state_dict(state)
        curve = [(0, before["pass@1"])]
        t = time.perf_counter()
        with episodes(tools) as train_env, episodes(True) as eval_env:

            def on_step(step: int, metrics: dict[str, float], eval_env: Any = eval_env, curve: Any = curve) -> None:
                if step % settings.eval_every == 0 and step != settings.rl_steps:  # the last is "after"
                    curve.append(
                        (step, evaluate_episodes(model, tokenizer, eval_env, heldout, settings.seed)["pass@1"])
                    )

            history = train_on_episodes(
                model,
                tokenizer,
                train_env,
                rl_tasks,
                EpisodeTrainSettings(
                    steps=settings.rl_steps,
                    prompts_per_step=settings.prompts_per_step,
                    group_size=settings.group_size,
                    learning_rate=settings.rl_lr,
                    max_new_tokens=40,
                    seed=settings.seed,
                ),
                reward=(lambda r: 1.0) if reward_kind == "any_answer" else None,
                on_step=on_step,
            )
            after = evaluate_episodes(model, tokenizer, eval_env, heldout, settings.seed + 1)
        if curve[-1][0] != settings.rl_steps:
            curve.append((settings.rl_steps, after["pass@1"]))
        curves[name] = curve
        summary["runs"][name] = {"after": after, "curve": curve, "seconds": time.perf_counter() - t, "history": history}
        _print(
            f"[tools] {name}: held-out pass@1 {before['pass@1']:.1%} -> {after['pass@1']:.1%}, tool use "
            f"{before['tool_use']:.1%} -> {after['tool_use']:.1%} ({time.perf_counter() - t:.0f} s)"
        )
    plot_comparison(curves, out / "comparison.png", title=f"demo_tools seed {settings.seed}: 2-digit products")
    summary["seconds"] = time.perf_counter() - t0
    summary["load_average"] = os.getloadavg()
    verifier = summary["runs"]["verifier"]["after"]["pass@1"]
    for name in settings.controls:
        margin = verifier - summary["runs"][name]["after"]["pass@1"]
        summary["runs"][name]["verifier_minus_this"] = margin
        _print(f"[tools] verifier minus {name}: {100 * margin:+.1f} points of held-out pass@1")
    (out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    _print(
        f"[tools] done in {summary['seconds']:.0f} s (load average {summary['load_average'][0]:.1f}); "
        f"{out / 'comparison.png'}"
    )
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_trainers.demo_tools", description=__doc__)
    defaults = ToolsDemoSettings()
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--out", default=defaults.out_dir)
    parser.add_argument("--sft-steps", type=int, default=defaults.sft_steps)
    parser.add_argument("--rl-steps", type=int, default=defaults.rl_steps)
    parser.add_argument("--heldout", type=int, default=defaults.heldout)
    parser.add_argument("--no-control", action="store_true")
    args = parser.parse_args(argv)
    settings = ToolsDemoSettings(
        seed=args.seed,
        out_dir=args.out,
        sft_steps=args.sft_steps,
        rl_steps=args.rl_steps,
        heldout=args.heldout,
        controls=() if args.no_control else defaults.controls,
    )
    summary = run_tools_demo(settings)
    return 0 if summary["runs"]["verifier"]["after"]["pass@1"] > summary["before"]["pass@1"] else 1


if __name__ == "__main__":
    sys.exit(main())
