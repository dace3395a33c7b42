"""The end-to-end demo: a tiny model learns arithmetic by RL with verifiable rewards, on a CPU.

1. build a byte-level BPE tokenizer and a Llama-style model locally (no downloads);
2. warm-start it with a short SFT on the env's gold answers, then a few SFT steps that teach
   it a bad habit on most prompts (by default it declines to answer: "I am not sure."), the
   way a cautious instruction-tuned model often arrives at RL;
3. profile pass rates on a pool of training tasks and keep the learning band;
4. train with the ``dapo`` preset on TRL's GRPOTrainer;
5. evaluate pass@1 and pass@k on held-out tasks that were never in training, before and after.

Two controls (on by default, ``--no-control`` to skip) repeat step 4 from the same warm start:
a random reward (a coin flip that ignores the completion: it must not improve, so the gain
comes from the reward signal and not from training as such), and an "any answer" reward
that pays every tagged answer, right or wrong (what RL gains from merely undoing the habit of
declining). All three held-out curves go on one plot (``comparison.png``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

DEFAULT_ENV = "math-arith"

# ``--task carry``: no injected habit. The warm start sees 3-digit sums with at most one
# carry; RL and the held-out set have two or more (chained carries, often a 4-digit sum), which
# the warm start gets right on about 2% of samples (rlvr_trainers/demo_carry.py). Fields
# left at their defaults take these values.
TASKS: dict[str, dict[str, Any]] = {
    "habit": {},
    "carry": {
        "env": "rlvr_trainers.demo_carry:CarryAdditionEnv",
        "env_kwargs": '{"min_carries": 2}',
        "sft_env_kwargs": '{"max_carries": 1}',
        "sft_tasks": 20000,  # ~800k distinct sums: SFT sees each of these about twice
        "sft_steps": 1200,
        "habit_steps": 0,
        # A big pool: at ~2% pass rate only ~5% of the tasks land in the band, and a small band
        # was memorised instead (23 band tasks: no held-out gain).
        "profile_pool": 4096,
        "rl_steps": 300,
        "rl_lr": 2e-4,  # the skill is new: 1e-4 over 200 steps gained 19 points, this 21
        "out_dir": "runs/demo_carry",
    },
}


@dataclass
class DemoSettings:
    """Knobs of the demo; the defaults fit in about four minutes on two CPU cores.

    ``habit`` is the bad habit of the warm start (``abstain`` or ``copy``), followed on a share
    ``habit_rate`` of its answers after ``habit_steps`` SFT steps (0 steps: no habit).
    """

    task: str = "habit"
    """The preset these settings started from (``TASKS``; names the run on its plots)."""
    env: str = DEFAULT_ENV
    env_kwargs: str = '{"level": 2}'
    sft_env_kwargs: str = ""
    prompt_format: str = "terse"
    out_dir: str = "runs/demo"
    seed: int = 0
    sft_steps: int = 900
    sft_tasks: int = 2000
    sft_lr: float = 1e-3
    habit: str = "abstain"
    habit_rate: float = 0.6
    habit_steps: int = 100
    profile_pool: int = 192
    profile_samples: int = 8
    band: tuple[float, float] = (0.1, 0.9)
    rl_steps: int = 120
    rl_lr: float = 1e-4
    rl_iterations: int = 1
    hidden_size: int = 128
    layers: int = 2
    prompts_per_step: int = 8
    group_size: int = 8
    max_new_tokens: int = 16
    heldout: int = 128
    eval_k: int = 8
    eval_every: int = 20
    control: bool = True
    controls: tuple[str, ...] = ("random", "any_answer")
    control_only: bool = False


def terse_format() -> Any:
    """``answer_tag`` without the instruction line: the tiny model learns the layout in SFT,
    and prompts a third as long make every RL step cheaper on a CPU."""
    from rlvr_envs.formats import ANSWER_TAG, PromptFormat

    return PromptFormat(
        name="demo_terse",
        system_prompt=None,
        instruction="",
        answer_template=ANSWER_TAG.answer_template,
        format_pattern=ANSWER_TAG.format_pattern,
        methods=ANSWER_TAG.methods,
    )


def make_demo_env(settings: DemoSettings, env_kwargs: str | None = None) -> Any:
    """The env named by ``settings.env``: a registered id, or ``module:Class`` for a custom one."""
    import rlvr_envs
    from rlvr_envs.registration import load_entry_point

    kwargs = json.loads(env_kwargs or settings.env_kwargs)
    kwargs.setdefault("prompt_format", terse_format() if settings.prompt_format == "terse" else settings.prompt_format)
    if ":" in settings.env:
        return load_entry_point(settings.env)(**kwargs)
    try:
        return rlvr_envs.make(settings.env, **kwargs)
    except rlvr_envs.UnknownEnvError as exc:
        raise SystemExit(
            f"the demo needs the env {settings.env!r} ({exc}); install envs/math "
            "(pip install -e envs/math) or pass --env module:Class"
        ) from None


def habit_pairs(env: Any, tasks: Sequence[Any], rate: float, kind: str, text: Any) -> list[tuple[str, str]]:
    """SFT pairs that show a bad habit, to mix with the gold pairs so that a share ``rate`` of
    the warm start's answers follow it, on every problem alike.

    ``abstain``: decline to answer ("I am not sure."); ``copy``: answer with the first number
    of the question instead of working it out.
    """
    if rate <= 0:
        return []
    if rate >= 1:
        raise SystemExit("habit_rate must be below 1: the warm start also needs gold answers")
    if kind not in HABITS:
        raise SystemExit(f"habit must be one of {sorted(HABITS)}, not {kind!r}")
    pairs = []
    for task in tasks:
        if kind == "abstain":
            pairs.append((text(task), ABSTENTION))
        elif found := _FIRST_NUMBER.search(task.prompt):
            pairs.append((text(task), env.prompt_format.render_answer(found.group())))
    # Whole copies plus a random remainder keep the share exact in expectation.
    share = rate / (1 - rate)
    whole, rest = int(share), share - int(share)
    rng = random.Random(len(pairs))
    return pairs * whole + [pair for pair in pairs if rng.random() < rest]


ABSTENTION = "I am not sure."
HABIT_WORDS = {"abstain": f"declining to answer ({ABSTENTION!r})", "copy": "copying the question's first number"}
HABITS = tuple(HABIT_WORDS)
_FIRST_NUMBER = re.compile(r"-?\d+")


def any_answer_reward(env: Any) -> Any:
    """A reward that pays any answer in the expected layout, right or wrong (the control for
    "RL only taught it to stop declining"): 1 when the verifier read an answer, else 0."""
    from rlvr_envs.adapters.routing import EnvRouter, task_from_json
    from rlvr_envs.adapters.trl import completion_text

    router = EnvRouter(env)

    def any_answer_reward(
        prompts: Any = None,
        completions: Sequence[Any] = (),
        task: Sequence[Any] = (),
        env_id: Sequence[str] = (),
        **_: Any,
    ) -> list[float | None]:
        rows = [(eid, task_from_json(t), completion_text(c)) for eid, t, c in zip(env_id, task, completions)]
        return [1.0 if v.reason.value in ("ok", "wrong") else 0.0 for v in router.verify(rows)]

    return any_answer_reward


CONTROL_WORDS = {
    "random": "a coin-flip reward that ignores the completion",
    "any_answer": "a reward that pays any tagged answer, right or wrong",
}


def random_reward(seed: int) -> Any:
    """A reward that ignores the completion: a fair coin per completion (the control)."""
    rng = random.Random(seed)

    def random_reward(prompts: Any = None, completions: Sequence[Any] = (), **_: Any) -> list[float | None]:
        return [float(rng.random() < 0.5) for _ in completions]

    return random_reward


def _print(msg: str) -> None:
    print(msg, flush=True)


def run_demo(settings: DemoSettings, quiet: bool = False) -> dict[str, Any]:
    import torch

    from rlvr_envs.adapters.routing import EnvRouter
    from rlvr_envs.adapters.trl import prompt_for
    from rlvr_trainers.config import TrainerConfig
    from rlvr_trainers.evaluation import evaluate, generate
    from rlvr_trainers.subset import TaskSubsetEnv
    from rlvr_trainers.tiny import build_model, build_tokenizer, supervised_warm_start
    from rlvr_trainers.train import run

    t0 = time.perf_counter()
    torch.manual_seed(settings.seed)
    # One thread: the model is so small that more threads mostly add contention.
    torch.set_num_threads(1)
    out = Path(settings.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    env = make_demo_env(settings)
    env_id = env.env_id
    _print(
        f"[demo] task {settings.task}, seed {settings.seed} (make demo TASK={settings.task} SEED={settings.seed}; "
        f"python -m rlvr_trainers.demo --task {settings.task} --seed {settings.seed})"
    )

    # Held-out tasks first, so that nothing drawn afterwards for training can overlap them.
    heldout = _distinct(env.sample(settings.heldout * 2, seed=settings.seed + 1_000_003), settings.heldout, set())
    held_fp = {t.fingerprint for t in heldout}
    # sft_env_kwargs: the warm start sees other tasks (a lower level) than RL and held-out do.
    sft_env = make_demo_env(settings, settings.sft_env_kwargs) if settings.sft_env_kwargs else env
    sft_tasks = _distinct(sft_env.sample(settings.sft_tasks * 2, seed=settings.seed + 1), settings.sft_tasks, held_fp)
    # RL may revisit SFT tasks (level 2 has only ~670 problems); held-out ones stay unseen by both.
    pool = _distinct(env.sample(settings.profile_pool * 3, seed=settings.seed + 2), settings.profile_pool, held_fp)

    def text(task: Any) -> str:
        return prompt_for(env, task, conversational=False)  # type: ignore[return-value]

    pairs = [(text(t), env.answer_text(t) and env.prompt_format.render_answer(env.answer_text(t))) for t in sft_tasks]
    pairs = [(p, c) for p, c in pairs if c]
    if not pairs:
        raise SystemExit(f"{env_id} cannot render gold answers (answer_text), which the SFT warm start needs")
    _print(
        f"[demo] env {env_id}: {len(pairs)} SFT pairs, {len(pool)} tasks to profile, "
        f"{len(heldout)} held-out tasks (disjoint by fingerprint)"
    )
    habit = habit_pairs(env, sft_tasks, settings.habit_rate, settings.habit, text) if settings.habit_steps > 0 else []
    # The habit's text is in the tokenizer's corpus too, so that it is as short in tokens as an
    # answer: otherwise the over-length penalty alone would push the policy away from it.
    tokenizer = build_tokenizer([p + c for p, c in pairs[:1000] + habit[:100]] + [text(t) for t in heldout[:50]])
    model = build_model(tokenizer, hidden_size=settings.hidden_size, layers=settings.layers, seed=settings.seed)
    n_params = sum(p.numel() for p in model.parameters())
    _print(f"[demo] tiny Llama-style model: {n_params / 1e6:.2f} M parameters, vocabulary {len(tokenizer)}")

    t = time.perf_counter()
    losses = supervised_warm_start(
        model, tokenizer, pairs, steps=settings.sft_steps, learning_rate=settings.sft_lr, seed=settings.seed
    )
    _print(
        f"[demo] SFT warm start: {settings.sft_steps} steps, loss {losses[0]:.2f} -> {losses[-1]:.2f} "
        f"({time.perf_counter() - t:.0f} s)"
    )
    heldout_items = [(env_id, task, text(task)) for task in heldout]
    router = EnvRouter(env)

    def greedy(m: Any) -> float:
        return evaluate(
            m, tokenizer, router, heldout_items, k=1, temperature=0, max_new_tokens=settings.max_new_tokens
        ).pass_at_1

    skill = evaluate(
        model, tokenizer, router, heldout_items, k=1, temperature=1.0, max_new_tokens=settings.max_new_tokens
    ).pass_at_1
    skill_greedy = greedy(model)
    _print(f"[demo] after the gold SFT: held-out pass@1 {skill:.1%}, greedy {skill_greedy:.1%}")
    if habit:
        t = time.perf_counter()
        losses = supervised_warm_start(
            model,
            tokenizer,
            pairs + habit,
            steps=settings.habit_steps,
            learning_rate=settings.sft_lr,
            seed=settings.seed + 1,
        )
        _print(
            f"[demo] bad habit: {settings.habit_steps} SFT steps with {settings.habit_rate:.0%} of the answers "
            f"{HABIT_WORDS[settings.habit]}, loss {losses[-1]:.2f} ({time.perf_counter() - t:.0f} s)"
        )

    t = time.perf_counter()
    profile = evaluate(
        model,
        tokenizer,
        router,
        [(env_id, task, text(task)) for task in pool],
        k=settings.profile_samples,
        temperature=1.0,
        max_new_tokens=settings.max_new_tokens,
    )
    lo, hi = settings.band
    rates = [c / settings.profile_samples for c in profile.passes]
    band = [task for task, r in zip(pool, rates) if lo <= r <= hi]
    _print(
        f"[demo] profiled {len(pool)} tasks x {settings.profile_samples} samples ({time.perf_counter() - t:.0f} s): "
        f"{sum(r < lo for r in rates)} too hard, {len(band)} in the band [{lo}, {hi}], "
        f"{sum(r > hi for r in rates)} too easy"
    )
    if len(band) < settings.prompts_per_step:
        if len(pool) < settings.prompts_per_step:
            raise SystemExit(
                f"[demo] only {len(pool)} training tasks left after the held-out split; "
                "use a level with more distinct problems"
            )
        _print("[demo] warning: the band is nearly empty; training on the whole pool instead")
        band = pool
    train_env = TaskSubsetEnv(env, band)

    config = TrainerConfig(
        envs=[env_id],
        model="(built in memory)",
        preset="dapo",
        conversational=False,
        num_generations=settings.group_size,
        prompts_per_step=settings.prompts_per_step,
        temperature=1.0,
        max_new_tokens=settings.max_new_tokens,
        learning_rate=settings.rl_lr,
        max_steps=settings.rl_steps,
        num_iterations=settings.rl_iterations,
        train_size=len(band),
        eval_every=settings.eval_every,
        eval_k=settings.eval_k,
        eval_temperature=1.0,
        output_dir=str(out / "dapo"),
        seed=settings.seed,
        device="cpu",
    )
    heldout_pairs = [(env_id, task) for task in heldout]
    # Without a habit the model is the one just evaluated after the gold SFT.
    greedy_before = greedy(model) if habit else skill_greedy
    summary: dict[str, Any] = {
        "settings": asdict(settings),
        "env_id": env_id,
        "band_tasks": len(band),
        "gold_sft": {"pass@1": skill, "greedy": skill_greedy},
        "greedy_before": greedy_before,
    }
    runs: dict[str, list[tuple[int, float]]] = {}
    wanted = settings.control or settings.control_only
    controls = [c for c in settings.controls if c in CONTROL_WORDS] if wanted else []
    unknown = set(settings.controls) - set(CONTROL_WORDS)
    if unknown:
        raise SystemExit(f"controls must be among {sorted(CONTROL_WORDS)}, not {sorted(unknown)}")
    summary["controls"] = {}
    for name in controls:
        # Each control starts from a copy of the same warm start, so all runs share their "before".
        # A fresh module with the same weights (a deepcopy would also copy patched methods).
        control_model = build_model(
            tokenizer, hidden_size=settings.hidden_size, layers=settings.layers, seed=settings.seed
        )
        control_model.load_state_dict(model.state_dict())
        reward = random_reward(settings.seed) if name == "random" else any_answer_reward(train_env)
        _print(f"[demo] control {name}: {settings.rl_steps} steps with {CONTROL_WORDS[name]}")
        result = run(
            config.replace(output_dir=str(out / f"control_{name}")),
            model=control_model,
            tokenizer=tokenizer,
            envs=[train_env],
            heldout_tasks=heldout_pairs,
            reward_funcs=[reward],
            quiet=quiet,
            title=f"{run_title(settings, env_id)}\ncontrol: {CONTROL_WORDS[name]}",
        )
        entry = {
            "before": result["before"],
            "after": result["after"],
            "rl_seconds": result["train_seconds"],
            "greedy_after": greedy(control_model),
            "metrics": result["metrics_path"],
        }
        summary["controls"][name] = entry
        runs[f"control: {name.replace('_', ' ')}"] = _curve(result)
        _report(
            f"control {name}: same run with {CONTROL_WORDS[name]}",
            result,
            settings.eval_k,
            (greedy_before, entry["greedy_after"]),
        )
    if "random" in summary["controls"]:
        summary["control"] = summary["controls"]["random"]
    if settings.control_only:
        first = next(iter(summary["controls"].values()))
        summary.update(before=first["before"], after=first["after"], plot=None)
    else:
        _print(
            f"[demo] DAPO: {settings.rl_steps} steps x {settings.prompts_per_step} prompts x "
            f"{settings.group_size} rollouts, lr {settings.rl_lr:g}, clip 0.2/0.28, token-level loss, "
            "soft over-length shaping, dynamic sampling"
        )
        result = run(
            config,
            model=model,
            tokenizer=tokenizer,
            envs=[train_env],
            heldout_tasks=heldout_pairs,
            quiet=quiet,
            title=f"{run_title(settings, env_id)}\nDAPO with the verifier's reward",
        )
        summary.update(
            before=result["before"],
            after=result["after"],
            rl_seconds=result["train_seconds"],
            plot=result.get("plot_path"),
            metrics=result["metrics_path"],
        )
        summary["greedy_after"] = greedy(model)
        runs = {"DAPO, verifier's reward": _curve(result), **runs}
        _report("DAPO with the verifier's reward", result, settings.eval_k, (greedy_before, summary["greedy_after"]))
    if len(runs) > 1:
        from rlvr_trainers.plots import plot_comparison

        summary["comparison_plot"] = str(
            plot_comparison(runs, out / "comparison.png", title=run_title(settings, env_id))
        )
        _print(f"[demo] held-out pass@1 of every run on one plot: {summary['comparison_plot']}")

    sample, _ = generate(
        model, tokenizer, [text(heldout[0])], n=1, temperature=0, max_new_tokens=settings.max_new_tokens
    )
    _print(f"[demo] example after training:\n  prompt: {heldout[0].prompt!r}\n  completion: {sample[0][0]!r}")
    summary["total_seconds"] = round(time.perf_counter() - t0, 1)
    (out / "demo_summary.json").write_text(json.dumps(summary, indent=2))
    _print(
        f"[demo] plots and metrics in {out.resolve()} (curves: {summary.get('plot')}); "
        f"total {summary['total_seconds']:.0f} s"
    )
    return summary


def run_title(settings: DemoSettings, env_id: str) -> str:
    """The demo run a plot belongs to: task, seed and the settings that change its numbers."""
    habit = f", habit {settings.habit} {settings.habit_rate:.0%}" if settings.habit_steps > 0 else ""
    return (
        f"demo --task {settings.task} --seed {settings.seed}: {env_id}{habit}, SFT {settings.sft_steps} steps, "
        f"RL {settings.rl_steps} steps x {settings.prompts_per_step}x{settings.group_size}, lr {settings.rl_lr:g}"
    )


def _curve(result: dict[str, Any]) -> list[tuple[int, float]]:
    """Held-out pass@1 against the step: before, every ``eval_every`` steps, after."""
    import json as _json

    points = [(0, result["before"]["pass@1"])]
    with open(result["metrics_path"], encoding="utf-8") as fh:
        for line in fh:
            record = _json.loads(line)
            if record.get("heldout_pass@1") is not None:
                points.append((record["step"], record["heldout_pass@1"]))
    points.append((result.get("final_step") or result["steps"], result["after"]["pass@1"]))
    return points


def _distinct(tasks: Sequence[Any], n: int, exclude: set[str]) -> list[Any]:
    seen = set(exclude)
    out = []
    for task in tasks:
        if task.fingerprint not in seen:
            seen.add(task.fingerprint)
            out.append(task)
            if len(out) == n:
                break
    return out


def _report(title: str, result: dict[str, Any], k: int, greedy: tuple[float, float] | None = None) -> None:
    before, after = result["before"], result["after"]
    _print(f"\n[demo] {title} ({result['train_seconds']:.0f} s of RL)")
    _print(
        f"  held-out pass@1: {before['pass@1']:6.1%} -> {after['pass@1']:6.1%} "
        f"({(after['pass@1'] - before['pass@1']) * 100:+.1f} points)"
    )
    _print(f"  held-out pass@{k}: {before[f'pass@{k}']:6.1%} -> {after[f'pass@{k}']:6.1%}")
    if greedy is not None:
        _print(f"  held-out greedy pass@1: {greedy[0]:6.1%} -> {greedy[1]:6.1%}")


def parse_args(argv: Sequence[str] | None) -> DemoSettings:
    defaults = DemoSettings()
    parser = argparse.ArgumentParser(
        prog="python -m rlvr_trainers.demo", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--task",
        choices=sorted(TASKS),
        default="carry",
        help="carry (the default, make demo): RL teaches carrying in 3-digit sums to a warm start "
        "trained on sums with at most one carry; habit (make demo TASK=habit): RL undoes a habit "
        "of declining that SFT injected",
    )
    parser.add_argument("--env", default=defaults.env, help="env id or module:Class (default %(default)s)")
    parser.add_argument("--env-kwargs", default=defaults.env_kwargs, help="JSON kwargs for the env")
    parser.add_argument("--out", default=defaults.out_dir, help="folder for plots and metrics (default %(default)s)")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--sft-steps", type=int, default=defaults.sft_steps)
    parser.add_argument("--rl-steps", type=int, default=defaults.rl_steps)
    parser.add_argument("--rl-lr", type=float, default=defaults.rl_lr)
    parser.add_argument("--heldout", type=int, default=defaults.heldout)
    parser.add_argument(
        "--control",
        action=argparse.BooleanOptionalAction,
        default=defaults.control,
        help="also run the controls: random reward and any-answer reward (default: on)",
    )
    parser.add_argument(
        "--set",
        nargs="*",
        default=[],
        metavar="FIELD=VALUE",
        help="any other DemoSettings field (values parse as JSON)",
    )
    args = parser.parse_args(argv)
    settings = DemoSettings(
        task=args.task,
        env=args.env,
        env_kwargs=args.env_kwargs,
        out_dir=args.out,
        seed=args.seed,
        sft_steps=args.sft_steps,
        rl_steps=args.rl_steps,
        rl_lr=args.rl_lr,
        heldout=args.heldout,
        control=args.control,
    )
    for name, value in TASKS[args.task].items():
        if getattr(settings, name) == getattr(defaults, name):
            setattr(settings, name, value)
    for item in args.set:
        name, _, raw = item.partition("=")
        if not hasattr(settings, name):
            parser.error(f"--set: DemoSettings has no field {name!r}")
        value = json.loads(raw)
        setattr(settings, name, tuple(value) if isinstance(value, list) else value)
    return settings


def main(argv: Sequence[str] | None = None) -> int:
    summary = run_demo(parse_args(argv))
    gain = summary["after"]["pass@1"] - summary["before"]["pass@1"]
    return 0 if gain > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
