"""verl adapter: a ``compute_score`` for verl's reward manager and a parquet exporter.

Export an env, then point verl at both (``custom_reward_function.path`` names this module's
file, ``custom_reward_function.name=compute_score``)::

    rlvr-envs export math-gsm8k --format verl --out data/gsm8k_train.parquet

Rows follow verl's schema, as verl's own preprocessors write it: ``data_source`` (the env id,
or ``--data-source`` such as ``openai/gsm8k`` so verl's default scorer routes it), ``prompt``
(chat messages), ``ability`` (the family), ``reward_model`` (``style: rule``, ``ground_truth``:
the answer as plain text for text and number answers, JSON for structured ones) and
``extra_info`` (split, index, ``env_id``, task id, the whole task as JSON and the verifier
spec). A row verifies from the row alone: no dataset is loaded, so verl can load this file as
its own module copy (it does: ``spec_from_file_location("custom_module", path)``) offline and
without a wrapper. Rows written by verl's preprocessors (ground truth only) are verified by the
env their ``data_source`` names, or by the math verifier for verl's math data sources.
Nothing here imports torch or verl.

Infrastructure failures (``verifier_error``: judge down, no Lean, no bubblewrap) follow one
``FailurePolicy`` (``rlvr_envs.adapters.failures``), set by ``configure(on_error=...)`` or by
verl's ``custom_reward_function.reward_kwargs`` (``on_error``, ``max_consecutive``), which verl
passes to ``compute_score``. Default ``fail``: ``InfrastructureFailure`` after 8 in a row, each
one before that paid 0.0 with a warning and flagged; ``zero``: paid 0.0, flagged. verl has no
missing reward (its managers write ``float(result["score"])`` into the reward tensor: ``None``
raises, NaN poisons the group's advantages), so ``skip`` is refused.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rlvr_envs.adapters.failures import FailurePolicy
from rlvr_envs.adapters.routing import EnvRouter, task_from_json, task_to_json
from rlvr_envs.adapters.rows import spec_to_json, verifier_spec
from rlvr_envs.types import Reason, Task, Verdict

if TYPE_CHECKING:
    from rlvr_envs.env import Env

VERL_DATA_SOURCES: dict[str, str] = {
    # verl's own data sources (verl.utils.reward_score.default_compute_score) -> the env that verifies them.
    "openai/gsm8k": "math-gsm8k",
    "lighteval/MATH": "math-500",
    "DigitalLearningGmbH/MATH-lighteval": "math-500",
    "HuggingFaceH4/MATH-500": "math-500",
}
_DEFAULT_MATH_VERIFIER = {"v": 1, "class": "rlvr_math.verifier:MathVerifier"}
"""A spec without state: the math verifier with its default options (for verl's own math rows)."""

_STATE_LOCK = threading.Lock()


def _shared() -> dict[str, Any]:
    """State shared by every copy of this file in the process.

    verl imports the reward file as its own module (``custom_module``), a second copy beside
    ``rlvr_envs.adapters.verl``: a ``configure()`` call on one must reach the other, so the
    router lives on the routing module, which both copies import under its one name.
    """
    import rlvr_envs.adapters.routing as routing

    with _STATE_LOCK:
        state = routing.__dict__.setdefault("_verl_state", {})
        if "router" not in state:
            state["router"] = EnvRouter(None)
        return state


def _router() -> EnvRouter:
    """One router per process serving any id: verl calls ``compute_score`` as a plain function."""
    router: EnvRouter = _shared()["router"]
    return router


def configure(
    envs: Sequence[Env | str] = (), *, on_error: FailurePolicy | str | None = None, **make_kwargs: Any
) -> EnvRouter:
    """Choose the envs ``compute_score`` uses for rows that do not carry their verifier, and the
    failure policy (``on_error``: ``"fail"``, ``"zero"`` or a ``FailurePolicy``).

    Rows exported by this version carry everything and need no configuration. Rows from other
    exporters (ground truth only) whose env reads local data need that env here, as an env
    object or with ``make_kwargs``.
    """
    policy = FailurePolicy.of(on_error, "verl compute_score", can_skip=False)
    router = EnvRouter(None, make_kwargs=make_kwargs)
    for env in envs:
        router.add(env)
    state = _shared()
    state["router"] = router
    state["policy"] = policy
    return router


def failure_policy(on_error: FailurePolicy | str | None = None, max_consecutive: int | None = None) -> FailurePolicy:
    """The process's policy: ``configure``'s, or one per (``on_error``, ``max_consecutive``) given
    as ``compute_score`` keywords (verl's ``reward_kwargs``), kept so its run of errors persists."""
    state = _shared()
    if on_error is None and max_consecutive is None:
        with _STATE_LOCK:
            if "policy" not in state:
                state["policy"] = FailurePolicy(name="verl compute_score")
            policy: FailurePolicy = state["policy"]
            return policy
    if isinstance(on_error, FailurePolicy):
        return FailurePolicy.of(on_error, "verl compute_score", can_skip=False)
    key = f"policy:{on_error or 'fail'}:{max_consecutive}"
    with _STATE_LOCK:
        found = state.get(key)
    if found is None:
        kwargs = {} if max_consecutive is None else {"max_consecutive": max_consecutive}
        made = FailurePolicy(on_error or "fail", name="verl compute_score", **kwargs)
        FailurePolicy.of(made, "verl compute_score", can_skip=False)
        with _STATE_LOCK:
            found = state.setdefault(key, made)
    return found


def _answer(ground_truth: Any) -> Any:
    if isinstance(ground_truth, bytes):
        ground_truth = ground_truth.decode("utf-8", "replace")
    if isinstance(ground_truth, str):
        text = ground_truth.strip()
        # Not "[": "[0, 1]" is a closed interval in math, not a JSON list.
        if text[:1] == "{" or (len(text) > 1 and text[0] == text[-1] == '"'):
            try:
                return json.loads(text)  # a structured answer, or a row written JSON-quoted (older exports)
            except json.JSONDecodeError:
                pass
    return ground_truth


def row_for(data_source: str, ground_truth: Any, extra_info: Mapping[str, Any] | None) -> tuple[str, Task, Any]:
    """``(env id, task, verifier spec)`` of a verl row: our exported task if present, else the bare answer."""
    info = extra_info if isinstance(extra_info, Mapping) else {}
    env_id = str(info.get("env_id") or VERL_DATA_SOURCES.get(data_source, data_source))
    spec = info.get("verifier") or None
    if spec is None and not info.get("env_id") and data_source in VERL_DATA_SOURCES:
        spec = _DEFAULT_MATH_VERIFIER
    if info.get("task"):
        return env_id, task_from_json(info["task"]), spec
    task_id = str(info.get("task_id") or info.get("index") or "verl")
    return env_id, Task(id=task_id, prompt="", answer=_answer(ground_truth)), spec


def task_for(data_source: str, ground_truth: Any, extra_info: dict[str, Any] | None) -> Task:
    """The task of a verl row (see ``row_for``)."""
    return row_for(data_source, ground_truth, extra_info)[1]


def _verdicts(
    data_sources: Sequence[str],
    solution_strs: Sequence[Any],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Mapping[str, Any] | None],
) -> tuple[list[Verdict], list[str]]:
    """The verdicts and each row's env id (the source its errors in a row are counted by)."""
    rows = []
    for ds, sol, gt, ei in zip(data_sources, solution_strs, ground_truths, extra_infos):
        env_id, task, spec = row_for(ds, gt, ei)
        rows.append((env_id, task, sol, spec))
    return _router().verify(rows), [row[0] for row in rows]


def _paid(verdicts: list[Verdict], on_error: Any, max_consecutive: Any, sources: Sequence[Any]) -> list[float]:
    """Each verdict's score under the failure policy (raises ``InfrastructureFailure`` under ``fail``);
    errors in a row are counted per env (verl's calls interleave the rows of several)."""
    paid = failure_policy(on_error, max_consecutive).rewards(verdicts, can_skip=False, sources=sources)
    return [float(p) for p in paid]  # type: ignore[arg-type]  # can_skip=False: never SKIP


def _score(verdict: Verdict, paid: float) -> dict[str, Any]:
    return {
        "score": paid,
        "acc": float(verdict.passed),
        # verl cannot leave a sample out of the update; this flag lets a run filter or count them.
        "verifier_error": float(verdict.reason is Reason.VERIFIER_ERROR),
    }


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: dict[str, Any] | None = None,
    *,
    on_error: FailurePolicy | str | None = None,
    max_consecutive: int | None = None,
    **_: Any,
) -> float:
    """verl's custom reward function: the reward of one response. A verifier error follows the
    failure policy (module docstring): by default 0.0 with a warning, and ``InfrastructureFailure``
    after ``max_consecutive`` in a row."""
    verdicts, sources = _verdicts([data_source], [solution_str], [ground_truth], [extra_info])
    return _paid(verdicts, on_error, max_consecutive, sources)[0]


def compute_score_detailed(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: dict[str, Any] | None = None,
    *,
    on_error: FailurePolicy | str | None = None,
    max_consecutive: int | None = None,
    **_: Any,
) -> dict[str, Any]:
    """Like ``compute_score`` but a dict (``score``, ``acc``, ``verifier_error``) verl logs per key."""
    verdicts, sources = _verdicts([data_source], [solution_str], [ground_truth], [extra_info])
    return _score(verdicts[0], _paid(verdicts, on_error, max_consecutive, sources)[0])


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[dict[str, Any] | None] | None = None,
    *,
    on_error: FailurePolicy | str | None = None,
    max_consecutive: int | None = None,
    **_: Any,
) -> list[dict[str, Any]]:
    """For verl's batch reward manager: every response verified in parallel through the pool."""
    extra = list(extra_infos) if extra_infos is not None else [None] * len(data_sources)
    sizes = {len(data_sources), len(solution_strs), len(ground_truths), len(extra)}
    if len(sizes) != 1:  # zip would drop rows and shift every later reward onto another response
        raise ValueError(
            f"compute_score_batch needs one entry per response in every column: {len(data_sources)} data_sources, "
            f"{len(solution_strs)} solution_strs, {len(ground_truths)} ground_truths, {len(extra)} extra_infos"
        )
    verdicts, sources = _verdicts(data_sources, solution_strs, ground_truths, extra)
    return [_score(v, p) for v, p in zip(verdicts, _paid(verdicts, on_error, max_consecutive, sources))]


def ground_truth_text(answer: Any) -> str:
    """The answer as verl's preprocessors store it: text as is, numbers as text, the rest as JSON."""
    if isinstance(answer, str):
        return answer
    if isinstance(answer, bool) or answer is None:
        return json.dumps(answer)
    if isinstance(answer, (int, float)):
        return str(answer)
    return json.dumps(answer, ensure_ascii=False, default=str, sort_keys=True)


def verl_rows(
    env: Env, tasks: Sequence[Task] | None = None, *, split: str = "train", data_source: str | None = None
) -> list[dict[str, Any]]:
    """The env's tasks (or ``tasks``) as verl rows."""
    spec = spec_to_json(verifier_spec(env))
    rows = []
    for index, task in enumerate(env.tasks if tasks is None else tasks):
        rows.append(
            {
                "data_source": data_source or env.env_id,
                "prompt": env.prompt_format.messages(task.prompt),
                "ability": env.family or "rlvr",
                "reward_model": {"style": "rule", "ground_truth": ground_truth_text(task.answer)},
                "extra_info": {
                    "split": split,
                    "index": index,
                    "env_id": env.env_id,
                    "task_id": task.id,
                    "task": task_to_json(task),
                    "verifier": spec,
                },
            }
        )
    return rows


def export_parquet(
    env: Env,
    path: str | Path,
    *,
    n: int | None = None,
    seed: int = 0,
    split: str = "train",
    data_source: str | None = None,
) -> Path:
    """Write the env's tasks in verl's parquet schema; ``n`` samples that many (procedural envs need it)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("export_parquet needs pyarrow: pip install pyarrow") from exc
    path = Path(path)
    if path.suffix.lower() != ".parquet":
        raise ValueError(f"verl reads Parquet: name the output file *.parquet, not {path.name!r}")
    if n is None and env.procedural:
        raise ValueError(f"{env.env_id} is procedural: pass n (how many tasks to export)")
    tasks = list(env.tasks) if n is None else env.sample(n, seed=seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(verl_rows(env, tasks, split=split, data_source=data_source)), path)
    return path
