"""Run the attack classes against an env: build probes from real tasks and their gold answers,
verify them through the env's ``verify_batch`` (so its budgets and isolation apply), and collect
what earned reward."""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rlvr_envs.redteam.catalog import AttackClass, select
from rlvr_envs.redteam.report import ClassResult, Outcome, RedteamReport
from rlvr_envs.redteam.target import Probe, Target, make_target

if TYPE_CHECKING:
    from rlvr_envs.env import Env
    from rlvr_envs.types import Task

_BIG = 100_000
"""Completions longer than this are verified one per call (they are the size-cap probes)."""

Job = tuple[str, Target, Probe]


def run_redteam(
    env: Env,
    *,
    n: int | None = None,
    seed: int = 0,
    classes: str | Sequence[str] | None = None,
    quick: bool = False,
    tasks: Sequence[Task] | None = None,
    multi_turn: Env | Callable[[], Env] | None = None,
    episode_tasks: int | None = None,
    batch_size: int = 64,
    progress: bool = False,
    max_examples: int = 3,
) -> RedteamReport:
    """Attack ``env`` and report, per class, which wrong answers earned reward.

    Args:
        n: tasks to draw with ``env.sample(n, seed)`` (default 3 with ``quick``, else 10);
            ignored when ``tasks`` is given.
        classes: names (a list or a comma-separated string); all classes by default.
        quick: fewer variants per class, for CI and the conformance kit.
        multi_turn: for ``feedback_mining``: the same env made with ``max_turns > 1``, or a
            function that makes it (called once). Without it the class runs only when ``env``
            itself has ``max_turns > 1``, and is reported n/a otherwise.
        episode_tasks: tasks to play episodes on (default 1 with ``quick``, else 3).
        progress: a progress bar on stderr.
    """
    started = time.perf_counter()
    chosen = select(list(classes) if classes is not None and not isinstance(classes, str) else classes)
    if tasks is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a small procedural space repeating is fine here
            tasks = env.sample(n if n is not None else (3 if quick else 10), seed=seed)
    unique = {task.fingerprint: task for task in tasks}  # a small task space repeats in a draw
    targets = [make_target(env, task) for task in unique.values()]
    for t in targets:
        t.others = tuple((o.prompt, o.gold, o.gold_completion) for o in targets if o is not t)
    exempt = _exemptions(env)
    results = {c.name: ClassResult(c.name, c.doc, c.needs, exempt=exempt.get(c.name)) for c in chosen}

    gold_jobs: list[Job] = [("gold", t, Probe("gold", t.gold_completion, False)) for t in targets if t.gold_completion]
    jobs: list[Job] = []
    for cls in chosen:
        if cls.build is None:
            continue
        for t in targets:
            if not cls.applies(t):
                continue
            try:
                probes = cls.build(t, quick)
            except Exception as exc:  # the attacker's own failure: said, never a hole
                results[cls.name].note = f"probe builder failed on task {t.task.id!r}: {type(exc).__name__}: {exc}"
                continue
            if probes:
                results[cls.name].tasks += 1
                jobs.extend((cls.name, t, p) for p in probes)

    episodic = [c for c in chosen if c.episode is not None]
    n_episodes = min(len(targets), episode_tasks if episode_tasks is not None else (1 if quick else 3))
    bar = _progress(progress, len(gold_jobs) + len(jobs) + n_episodes * len(episodic), env.env_id)
    try:
        gold = _verify(env, gold_jobs, batch_size, bar)
        for outcome in _verify(env, jobs, batch_size, bar):
            results[outcome.attack].outcomes.append(outcome)
        for cls in episodic:
            _play(cls, env, multi_turn, targets[:n_episodes], quick, results[cls.name], bar)
    finally:
        if bar is not None:
            bar.close()
    return RedteamReport(
        env_id=env.env_id,
        seed=seed,
        quick=quick,
        task_ids=[t.task.id for t in targets],
        classes=[results[c.name] for c in chosen],
        gold=gold,
        elapsed_s=time.perf_counter() - started,
        max_examples=max_examples,
    )


def _exemptions(env: Env) -> dict[str, str]:
    """``env.redteam_exempt``: class name -> why that class's rewards are intended (a benchmark id
    that must score as its reference does). Anything but a mapping of text to text is ignored."""
    declared = getattr(env, "redteam_exempt", None)
    if not isinstance(declared, Mapping):
        return {}
    return {str(k): str(v) for k, v in declared.items() if isinstance(k, str) and v}


def _progress(enabled: bool, total: int, env_id: str) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=f"redteam {env_id}", unit="probe", file=sys.stderr, leave=False)


def _batches(jobs: list[Job], size: int) -> list[list[Job]]:
    """Consecutive chunks of ``size``; a big completion travels alone."""
    out: list[list[Job]] = []
    current: list[Job] = []
    for job in jobs:
        completion = job[2].completion
        if isinstance(completion, (str, bytes)) and len(completion) > _BIG:
            out.append([job])
            continue
        current.append(job)
        if len(current) >= size:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def _verify(env: Env, jobs: list[Job], batch_size: int, bar: Any) -> list[Outcome]:
    outcomes: list[Outcome] = []
    for batch in _batches(jobs, max(1, batch_size)):
        try:
            verdicts: list[Any] = env.verify_batch([t.task for _, t, _ in batch], [p.completion for _, _, p in batch])
        except Exception:
            verdicts = [_verify_one(env, t.task, p.completion) for _, t, p in batch]
        outcomes.extend(_outcome(name, t, p, v) for (name, t, p), v in zip(batch, verdicts))
        if bar is not None:
            bar.update(len(batch))
    return outcomes


def _verify_one(env: Env, task: Task, completion: Any) -> Any:
    """One item of a batch that raised: its verdict, or the exception it raised."""
    try:
        return env.verify_batch([task], [completion])[0]
    except Exception as exc:
        return exc


def _outcome(attack: str, t: Target, probe: Probe, verdict: Any) -> Outcome:
    out = Outcome(attack, probe.variant, t.task.id, probe.completion, probe.expect_wrong)
    out.error_is_hole = probe.error_is_hole
    if isinstance(verdict, BaseException):
        out.error = f"{type(verdict).__name__}: {verdict}"
    elif isinstance(verdict, (int, float)):  # an episode step with no verdict in its info
        out.reward = float(verdict)
    else:
        reward = getattr(verdict, "reward", None)
        out.reward = float(reward) if isinstance(reward, (int, float)) else None
        reason = getattr(verdict, "reason", None)
        out.reason = getattr(reason, "value", None) or (str(reason) if reason is not None else None)
        out.extracted = getattr(verdict, "extracted", None)
        forged = getattr(verdict, "forged", None)  # an episode's observation (``mining.Observed``)
        out.forged = forged if isinstance(forged, str) else None
    return out


def _play(
    cls: AttackClass,
    env: Env,
    multi_turn: Env | Callable[[], Env] | None,
    targets: list[Target],
    quick: bool,
    result: ClassResult,
    bar: Any,
) -> None:
    player = env if getattr(env, "max_turns", 1) > 1 else None
    if player is None and multi_turn is not None:
        try:
            player = multi_turn() if callable(multi_turn) else multi_turn
        except Exception as exc:
            result.note = f"could not make the env with max_turns > 1: {type(exc).__name__}: {exc}"
            return
    if player is None or getattr(player, "max_turns", 1) < 2:
        result.note = "the env is single-turn and no multi-turn env was given"
        return
    episode = cls.episode
    if episode is None:
        return
    for t in targets:
        steps = episode(player, t, quick)
        result.tasks += 1
        result.outcomes.extend(_outcome(cls.name, t, probe, verdict) for probe, verdict in steps)
        if bar is not None:
            bar.update(1)
