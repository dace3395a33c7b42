"""verl adapter: a ``compute_score`` for verl's reward manager and a parquet exporter.

Export an env, then point verl at both (``custom_reward_function.path`` names this module's
file, ``custom_reward_function.name=compute_score``)::

    rlvr-envs export math-gsm8k --format verl --out data/gsm8k_train.parquet

Rows follow verl's schema: ``data_source`` (the env id, used to route scoring back),
``prompt`` (chat messages), ``ability`` (the family), ``reward_model`` (``style: rule`` and
``ground_truth``: the answer as JSON) and ``extra_info`` (split, index, task id and the whole
task as JSON, which verifiers that need metadata read). Procedural envs are made from the
row's id; presets that read local data are set up once with ``configure(...)``. Nothing
here imports torch or verl.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rlvr_envs.adapters.routing import EnvRouter, task_from_json, task_to_json
from rlvr_envs.types import Reason, Task, Verdict

if TYPE_CHECKING:
    from rlvr_envs.env import Env

_ROUTER: EnvRouter | None = None


def _router() -> EnvRouter:
    """One router per process serving any id: verl calls ``compute_score`` as a plain function."""
    global _ROUTER
    if _ROUTER is None:
        _ROUTER = EnvRouter(None)
    return _ROUTER


def configure(envs: Sequence[Env | str] = (), **make_kwargs: Any) -> EnvRouter:
    """Choose the envs ``compute_score`` uses (call it where verl imports your reward file).

    By default an env is made from its id on first use with no arguments, which is right for
    procedural envs; a preset that reads local data (``path=...``) must be configured here,
    as an env object or with ``make_kwargs``.
    """
    global _ROUTER
    _ROUTER = EnvRouter(None, make_kwargs=make_kwargs)
    for env in envs:
        _ROUTER.add(env)
    return _ROUTER


def task_for(data_source: str, ground_truth: Any, extra_info: dict[str, Any] | None) -> Task:
    """Rebuild the task from a verl row: the exported task JSON if present, else the bare answer."""
    if extra_info and extra_info.get("task"):
        return task_from_json(extra_info["task"])
    answer = ground_truth
    if isinstance(ground_truth, str):
        try:
            answer = json.loads(ground_truth)
        except json.JSONDecodeError:
            answer = ground_truth  # a plain-text answer written by another exporter
    task_id = str((extra_info or {}).get("task_id") or (extra_info or {}).get("index") or "verl")
    return Task(id=task_id, prompt="", answer=answer)


def _verdicts(
    data_sources: Sequence[str],
    solution_strs: Sequence[Any],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[dict[str, Any] | None],
) -> list[Verdict]:
    rows = [
        (ds, task_for(ds, gt, ei), sol)
        for ds, sol, gt, ei in zip(data_sources, solution_strs, ground_truths, extra_infos)
    ]
    return _router().verify(rows)


def _score(verdict: Verdict) -> dict[str, Any]:
    return {
        "score": float(verdict.reward),
        "acc": float(verdict.passed),
        # verl cannot leave a sample out of the update; this flag lets a run filter or count them.
        "verifier_error": float(verdict.reason is Reason.VERIFIER_ERROR),
    }


def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None, **_: Any
) -> float:
    """verl's custom reward function: the reward of one response (0.0 on a verifier error)."""
    return float(_verdicts([data_source], [solution_str], [ground_truth], [extra_info])[0].reward)


def compute_score_detailed(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None, **_: Any
) -> dict[str, Any]:
    """Like ``compute_score`` but a dict (``score``, ``acc``, ``verifier_error``) verl logs per key."""
    return _score(_verdicts([data_source], [solution_str], [ground_truth], [extra_info])[0])


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[dict[str, Any] | None] | None = None,
    **_: Any,
) -> list[dict[str, Any]]:
    """For verl's batch reward manager: every response verified in parallel through the pool."""
    extra = list(extra_infos) if extra_infos is not None else [None] * len(data_sources)
    return [_score(v) for v in _verdicts(data_sources, solution_strs, ground_truths, extra)]


def verl_rows(env: Env, tasks: Sequence[Task] | None = None, *, split: str = "train") -> list[dict[str, Any]]:
    """The env's tasks (or ``tasks``) as verl rows."""
    rows = []
    for index, task in enumerate(env.tasks if tasks is None else tasks):
        rows.append(
            {
                "data_source": env.env_id,
                "prompt": env.prompt_format.messages(task.prompt),
                "ability": env.family or "rlvr",
                "reward_model": {
                    "style": "rule",
                    "ground_truth": json.dumps(task.answer, ensure_ascii=False, default=str),
                },
                "extra_info": {"split": split, "index": index, "task_id": task.id, "task": task_to_json(task)},
            }
        )
    return rows


def export_parquet(env: Env, path: str | Path, *, n: int | None = None, seed: int = 0, split: str = "train") -> Path:
    """Write the env's tasks in verl's parquet schema; ``n`` samples that many (procedural envs need it)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("export_parquet needs pyarrow: pip install pyarrow") from exc
    if n is None and env.procedural:
        raise ValueError(f"{env.env_id} is procedural: pass n (how many tasks to export)")
    tasks = list(env.tasks) if n is None else env.sample(n, seed=seed)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(verl_rows(env, tasks, split=split)), path)
    return path
