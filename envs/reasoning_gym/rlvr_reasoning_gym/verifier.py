"""The family's verifier: read the final answer, then judge it with the dataset's rule.

Binary by default: reward 1 only for a correct final answer. With ``partial_credit=True``
a wrong answer earns reasoning-gym's own partial score, except where that scorer is
unsound (it evaluates raw model text, or pays for wrong answers; see ``Rule.partial``)
and except a scorer's 1.0 for an answer our check rejects, which is a scorer flaw and
pays nothing.
"""

from __future__ import annotations

import copy
import re
from functools import cache
from typing import Any

from rlvr_envs.extract import METHODS, extract_answer
from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.verifier import Verifier
from rlvr_reasoning_gym.catalog import RULES, Rule
from rlvr_reasoning_gym.compare import COMPARATORS, grid_rows, parse_int, same_text

DEFAULT_TIME_BUDGET_S = 5.0
"""Symbolic scorers (integration by sympy) need more than the core's default."""


@cache
def _shape(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def gold_text(name: str, payload: dict[str, Any]) -> str | None:
    """The reference answer as the policy would write it."""
    rule = RULES.get(name)
    if rule is not None and rule.gold_key is not None:
        value = payload.get("metadata", {}).get(rule.gold_key)
        if value is None:
            return None
        return value if isinstance(value, str) else _json_compact(value)
    answer = payload.get("answer")
    return answer if isinstance(answer, str) else None


def _json_compact(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def _entry(task: Task, payload: dict[str, Any]) -> dict[str, Any]:
    return {"question": task.prompt, "answer": payload.get("answer"), "metadata": copy.deepcopy(payload["metadata"])}


def has_shape(rule: Rule, answer: str) -> bool:
    """The whole answer matches the rule's shape guard (only such text reaches a scorer)."""
    return rule.shape is not None and _shape(rule.shape).fullmatch(answer.strip()) is not None


def _rg_score(name: str, answer: str, payload: dict[str, Any], task: Task) -> float:
    from rlvr_reasoning_gym.generation import score

    return score(name, payload.get("level"), payload.get("overrides", {}), answer, _entry(task, payload))


def judge(rule: Rule, name: str, answer: str, payload: dict[str, Any], task: Task) -> bool:
    """True when ``answer`` (the extracted final answer) is correct for the task."""
    if rule.kind == "scorer":
        if not has_shape(rule, answer):
            return False
        return _rg_score(name, answer.strip(), payload, task) == 1.0
    gold = gold_text(name, payload)
    if gold is None:
        return False
    if rule.kind == "auto":  # mixed answer types within one dataset: numbers or words
        if parse_int(gold) is not None:
            return COMPARATORS["integer"](answer, gold)
        return same_text(answer, gold, **rule.options)
    if rule.kind == "grid_any":
        rows = grid_rows(answer)
        return bool(rows) and any(rows == grid_rows(g) for g in payload["metadata"].get(rule.options["key"], []))
    return bool(COMPARATORS[rule.kind](answer, gold, **rule.options))


class ReasoningGymVerifier(Verifier):
    """Verifies tasks of any registered reasoning-gym dataset (the task names its dataset)."""

    def __init__(
        self,
        methods: tuple[str, ...] = METHODS,
        partial_credit: bool = False,
        time_budget_s: float = DEFAULT_TIME_BUDGET_S,
    ) -> None:
        self.methods = tuple(methods)
        self.partial_credit = partial_credit
        self.time_budget_s = time_budget_s

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Unpickled in a pool worker: pay reasoning-gym's import now, outside any time budget.
        self.__dict__.update(state)
        from rlvr_reasoning_gym.generation import _rg

        _rg()

    def verify(self, task: Task, completion: str) -> Verdict:
        payload = task.answer
        if not isinstance(payload, dict) or not isinstance(payload.get("dataset"), str):
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "task.answer is not an rg payload"})
        name = payload["dataset"]
        rule = RULES.get(name)
        if rule is None:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"dataset {name!r} is not registered"})
        found = extract_answer(completion, self.methods)
        if found is None:
            return Verdict.failure(Reason.NO_ANSWER, details={"dataset": name})
        if judge(rule, name, found.text, payload, task):
            return Verdict.correct(found.text, details={"dataset": name})
        details: dict[str, Any] = {"dataset": name}
        reward = 0.0
        if self.partial_credit and rule.partial and (rule.kind != "scorer" or has_shape(rule, found.text)):
            raw = _rg_score(name, found.text, payload, task)
            details["rg_score"] = raw
            # A full score for an answer our check rejects is the scorer's flaw, not partial credit.
            reward = raw if 0.0 <= raw < 1.0 else 0.0
        return Verdict.failure(Reason.WRONG, extracted=found.text, details=details, reward=reward)
