"""TRL adapter: any env as a ``GRPOTrainer`` reward function, plus the dataset it reads.

    from rlvr_envs.adapters.trl import build_dataset, reward_function
    train = build_dataset("math-gsm8k", n=512)
    trainer = GRPOTrainer(model=..., reward_funcs=[reward_function("math-gsm8k")], train_dataset=train)

The dataset holds the prompt the policy sees plus columns the policy never sees: ``env_id``
(with its version), ``task`` (the task as JSON, answer included) and ``verifier`` (the env's
verifier spec, see ``rlvr_envs.adapters.rows``). TRL hands every non-prompt column to reward
functions as keyword arguments, so the reward function verifies a row from the row alone:
``reward_function()`` with no env id scores any exported row without loading a dataset.
Nothing here imports torch; ``build_dataset`` imports ``datasets`` when called.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rlvr_envs.adapters.failures import FailurePolicy, Skip
from rlvr_envs.adapters.routing import EnvRouter, task_from_json, task_to_json
from rlvr_envs.adapters.rows import spec_to_json, verifier_spec
from rlvr_envs.shaping import RewardShaping
from rlvr_envs.types import Reason, Task, Verdict

if TYPE_CHECKING:
    from rlvr_envs.env import Env

TASK_COLUMN = "task"
ENV_COLUMN = "env_id"
VERIFIER_COLUMN = "verifier"


def content_text(content: object) -> str:
    """A message's content as text: a string, or the text parts of a list of typed parts
    (``[{"type": "text", "text": ...}]``, the multimodal form); no content is no text (not "None")."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        return "".join(
            str(part.get("text") or "") if isinstance(part, Mapping) and part.get("type", "text") == "text" else ""
            for part in content
        )
    return str(content)


def completion_text(completion: object) -> object:
    """The text of a completion in TRL's standard (str) or conversational (messages) form.

    Anything else is passed through unchanged, so the verifier turns it into a verdict.
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and all(isinstance(m, Mapping) for m in completion):
        turns = [m for m in completion if m.get("role", "assistant") == "assistant"]
        if turns and turns[-1].get("tool_calls"):
            # The last turn asks for tools: the rollout was cut (TRL's tool-call limit) before
            # they ran, so it holds no final answer; one written beside the calls is not paid.
            return ""
        # A conversational completion: the assistant turns, in order.
        return "".join(content_text(m.get("content")) for m in turns)
    if isinstance(completion, Sequence) and not completion:
        return ""
    return completion


class RewardFunction:
    """A TRL reward function backed by one or more envs.

    Called as TRL does: ``fn(prompts=..., completions=..., completion_ids=..., **columns)``,
    where ``columns`` are the dataset's other columns, one value per completion. Returns one
    float per completion, or ``None`` where the verifier itself failed (``verifier_error``):
    TRL leaves a ``None`` out of the reward instead of training on a false zero. ``on_error``
    (a ``FailurePolicy`` or ``"fail"``/``"skip"``/``"zero"``, see ``rlvr_envs.adapters.failures``)
    decides: by default ``None``, until ``max_consecutive`` errors in a row raise
    ``InfrastructureFailure``.

    Attributes:
        last_verdicts: the verdicts of the most recent call (for logging).
        reason_counts: how often each ``Reason`` has come up across all calls.
    """

    def __init__(
        self,
        router: EnvRouter,
        shaping: RewardShaping | None = None,
        *,
        name: str = "rlvr_reward",
        task_column: str = TASK_COLUMN,
        env_column: str = ENV_COLUMN,
        verifier_column: str = VERIFIER_COLUMN,
        on_error: FailurePolicy | str | None = None,
    ) -> None:
        self.router = router
        self.failures = FailurePolicy.of(on_error, f"TRL reward {name}", can_skip=True)
        self.shaping = shaping
        self.__name__ = name  # TRL names the logged reward column after this
        self.task_column = task_column
        self.env_column = env_column
        self.verifier_column = verifier_column
        self.last_verdicts: list[Verdict] = []
        self.reason_counts: Counter[str] = Counter()
        self.format_per_row = False
        """Pay each row's format reward for its own env's prompt format (a mixture: lean's
        ```lean4 block, math's \\boxed{}), not one format for every row."""

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Sequence[int]] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        if completions is None:
            raise TypeError("the reward function needs completions=... (TRL passes it as a keyword)")
        tasks_column = columns.get(self.task_column)
        if tasks_column is None:
            raise KeyError(
                f"the dataset has no {self.task_column!r} column; build it with "
                "rlvr_envs.adapters.trl.build_dataset (or add the task JSON yourself)"
            )
        n = len(completions)
        if len(tasks_column) != n:
            raise ValueError(f"got {n} completions but {len(tasks_column)} values in column {self.task_column!r}")
        env_ids = columns.get(self.env_column) or [None] * n
        specs = columns.get(self.verifier_column) or [None] * n
        for name, column in ((self.env_column, env_ids), (self.verifier_column, specs)):
            if len(column) != n:
                raise ValueError(f"got {n} completions but {len(column)} values in column {name!r}")
        rows = [
            (env_ids[i], task_from_json(tasks_column[i]), completion_text(completions[i]), specs[i]) for i in range(n)
        ]
        verdicts = self.router.verify(rows)
        self.last_verdicts = verdicts
        self.reason_counts.update(v.reason.value for v in verdicts)
        # Errors in a row are counted per env: a mixture's healthy rows never hide a dead backend.
        paid = self.failures.rewards(verdicts, can_skip=True, sources=[row[0] for row in rows])
        rewards: list[float | None] = []
        for i, (verdict, pay) in enumerate(zip(verdicts, paid)):
            if isinstance(pay, Skip):
                rewards.append(None)
                continue
            if self.shaping is None or verdict.reason is Reason.VERIFIER_ERROR:
                rewards.append(pay)  # an infrastructure failure paid 0.0 (on_error="zero") is never shaped
                continue
            text = rows[i][2]
            length = len(completion_ids[i]) if completion_ids is not None else None
            fmt = self.router.prompt_format_for(rows[i][0], rows[i][3]) if self.format_per_row else None
            rewards.append(float(self.shaping(verdict, text if isinstance(text, str) else "", length, fmt)))
        return rewards


def reward_function(
    envs: str | Env | Sequence[str | Env] | None = None,
    *,
    format_weight: float = 0.0,
    l_max: int | None = None,
    l_cache: int = 0,
    overlong_weight: float = 1.0,
    shaping: RewardShaping | None = None,
    name: str | None = None,
    on_error: FailurePolicy | str | None = None,
    **make_kwargs: Any,
) -> RewardFunction:
    """A TRL reward function for ``envs`` (one id, several ids, env objects, or None for any id).

    Args:
        envs: which envs rows may come from; rows are routed by their ``env_id`` column. With
            None, any row built by ``build_dataset`` is verified from its own ``verifier``
            column, with no dataset loaded (an env is made only for rows without one).
        format_weight: bonus for following the prompt format's layout (0 turns it off).
        l_max, l_cache, overlong_weight: DAPO soft over-length penalty in tokens (off when
            ``l_max`` is None); lengths come from TRL's ``completion_ids``.
        shaping: a ready ``RewardShaping`` instead of the three options above.
        name: the name TRL logs the reward under.
        on_error: what a ``verifier_error`` pays: ``"fail"`` (default: ``None``, and
            ``InfrastructureFailure`` after ``max_consecutive`` in a row), ``"skip"`` (always ``None``),
            ``"zero"`` (0.0), or a ``FailurePolicy`` (``FailurePolicy("fail", max_consecutive=4)``).
        make_kwargs: passed to ``rlvr_envs.make`` (for example ``prompt_format="r1"``).
    """
    router = EnvRouter(envs, make_kwargs=make_kwargs)
    built_here = shaping is None
    if shaping is None and (format_weight or l_max is not None):
        default = router.default
        # The format object itself, so a custom (unregistered) format works too.
        fmt = default.prompt_format if default is not None else make_kwargs.get("prompt_format", "plain")
        shaping = RewardShaping(
            format_weight=format_weight,
            prompt_format=fmt,  # get_format accepts a name or a format
            l_max=l_max,
            l_cache=l_cache,
            overlong_weight=overlong_weight,
        )
    if name is None:
        ids = list(router.envs)
        name = "reward_" + (ids[0] if len(ids) == 1 else "mixed")
    function = RewardFunction(router, shaping, name=name.replace("-", "_"), on_error=on_error)
    # A mixture's rows ask in their own envs' formats (unless one format was asked of every env).
    function.format_per_row = built_here and router.default is None and "prompt_format" not in make_kwargs
    return function


def prompt_for(env: Env, task: Task, conversational: bool = True) -> list[dict[str, str]] | str:
    """What the policy sees for ``task``: chat messages, or one string for base models."""
    if conversational:
        return env.prompt_format.messages(task.prompt)
    user = env.prompt_format.user_message(task.prompt)
    system = env.prompt_format.system_prompt
    return f"{system}\n\n{user}" if system else user


def split_counts(n: int, weights: Sequence[float]) -> list[int]:
    """``n`` rows shared out in proportion to ``weights`` (largest remainders, sums to ``n``)."""
    if any(w < 0 for w in weights) or not sum(weights) > 0:
        raise ValueError(f"mixing weights must be non-negative with a positive sum, got {list(weights)}")
    total = float(sum(weights))
    exact = [n * w / total for w in weights]
    counts = [int(x) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: exact[i] - counts[i], reverse=True)
    for i in order[: n - sum(counts)]:
        counts[i] += 1
    return counts


def build_rows(
    envs: str | Env | Sequence[str | Env],
    n: int | None = None,
    *,
    weights: Sequence[float] | None = None,
    seed: int = 0,
    conversational: bool = True,
    exclude: set[str] | None = None,
    **make_kwargs: Any,
) -> list[dict[str, Any]]:
    """Rows ``{prompt, env_id, task, verifier, task_id}`` drawn from ``envs``, shuffled with ``seed``.

    Args:
        n: total rows (None: every task of each finite env; procedural envs need ``n``).
        weights: mixing weights, one per env (default equal).
        exclude: task fingerprints to leave out (keeps a held-out split unseen in training).
    """
    router = EnvRouter(envs if not isinstance(envs, (str, bytes)) else [envs], make_kwargs=make_kwargs)
    env_list = list(router.envs.values())
    weights = list(weights) if weights is not None else [1.0] * len(env_list)
    if len(weights) != len(env_list):
        raise ValueError(f"got {len(weights)} mixing weights for {len(env_list)} envs")
    exclude = exclude or set()
    rows: list[dict[str, Any]] = []
    counts = split_counts(n, weights) if n is not None else [None] * len(env_list)
    for k, (env, count) in enumerate(zip(env_list, counts)):
        if count is None and env.procedural:
            raise ValueError(f"{env.env_id} is procedural: pass n (the number of rows to generate)")
        tasks = _draw(env, count, seed + k, exclude)
        spec = spec_to_json(verifier_spec(env))
        for task in tasks:
            rows.append(
                {
                    "prompt": prompt_for(env, task, conversational),
                    ENV_COLUMN: env.env_id,
                    TASK_COLUMN: task_to_json(task),
                    VERIFIER_COLUMN: spec,
                    "task_id": task.id,
                }
            )
    random.Random(seed).shuffle(rows)
    return rows


def _draw(env: Env, count: int | None, seed: int, exclude: set[str]) -> list[Task]:
    if count is None:
        return [t for t in env.tasks if t.fingerprint not in exclude]
    if not env.procedural:
        order = list(range(len(env.tasks)))
        random.Random(seed).shuffle(order)
        kept = (env.tasks[i] for i in order if env.tasks[i].fingerprint not in exclude)
        return [t for _, t in zip(range(count), kept)]
    out: list[Task] = []
    seen = set(exclude)
    rng = random.Random(seed)
    # Procedural generators may repeat small problems: draw until enough distinct ones.
    for _ in range(50):
        for task in env.sample(max(count - len(out), 1) * 2, seed=rng.getrandbits(32)):
            if task.fingerprint not in seen:
                seen.add(task.fingerprint)
                out.append(task)
                if len(out) == count:
                    return out
    return out


def build_dataset(
    envs: str | Env | Sequence[str | Env],
    n: int | None = None,
    **kwargs: Any,
) -> Any:
    """``build_rows`` as a Hugging Face ``datasets.Dataset`` (what ``GRPOTrainer`` expects)."""
    try:
        import datasets
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("build_dataset needs the 'datasets' package: pip install datasets") from exc
    return datasets.Dataset.from_list(build_rows(envs, n, **kwargs))
