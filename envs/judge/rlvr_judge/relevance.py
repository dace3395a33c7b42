"""Judge relevance: does a response address its task? (the ifeval family's ``relevance="judge"``).

Instruction-following rewards check a response's form; a judge model checks that it answers
the prompt at all. ``JudgeRelevance`` asks one yes/no question per response through the
family's client (nonce fences, strict parsing, bounded retries): "is this an attempt at the
task (its topic and purpose), whatever its format?". The ifeval verifier imports this module
only when ``relevance="judge"`` is chosen and gates its instruction score with the answer.

Before any question the family's screen (``rlvr_judge.screen``) reads the response: an empty
one, a refusal, the task pasted back, a word salad or a note to the grader alone does not
address the task, and is answered no without a judge call (``Relevance.screen`` names the
class; ``screen=False`` asks the judge about everything).

The judge sees the whole response (the env's ``max_completion_chars`` bounds it), never a cut.
A judge failure is an infrastructure failure: ``addresses`` raises ``JudgeError`` and the caller
reports ``verifier_error``, never a reward.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rlvr_judge.client import JudgeClient, JudgeError, resolve_judges
from rlvr_judge.screen import screen as screen_response
from rlvr_judge.templates import VERDICT_SCHEMA, Template

__all__ = ["RELEVANCE_V0", "JudgeError", "JudgeRelevance", "Relevance"]

RELEVANCE_V0 = Template(
    name="relevance",
    version="v0",
    system=(
        "You are a strict grader. You decide whether a response attempts the task it was written for: "
        "it must address the task's subject and purpose. Ignore the response's format, length, style and "
        "language; a response that is off-topic, generic filler, a word list or an answer to another task "
        "does not address the task."
    ),
    user=(
        "Task:\n{question}\n\nCriterion:\n{criterion}\n\n{guard}\n\n{fenced}\n\n"
        "Does the response address the task? Reply with only a JSON object: "
        '{{"verdict": "yes" or "no", "rationale": "one short sentence"}}'
    ),
    schema=VERDICT_SCHEMA,
    label="VERDICT",
)
"""The versioned prompt (its key is part of the ifeval verifier's description)."""


@dataclass(frozen=True)
class Relevance:
    """One judge answer."""

    addresses: bool
    rationale: str
    screen: str | None = None
    """The screen's class when the response was refused before any judge call."""


class JudgeRelevance:
    """Asks a judge whether a response addresses its task.

    Args:
        judge: a ``JudgeClient`` (or a list: the first is used); else ``base_url``/``model``
            and the client's keyword arguments, else ``$RLVR_JUDGE_BASE_URL``/``$RLVR_JUDGE_MODEL``
            (``JudgeUnavailableError`` naming them when none is given).
        screen: answer no, without a judge call, for what the family's screen refuses.
    """

    template = RELEVANCE_V0

    def __init__(
        self,
        judge: Any = None,
        *,
        base_url: str | None = None,
        model: str | None = None,
        screen: bool = True,
        **client_kwargs: Any,
    ) -> None:
        self.client: JudgeClient = resolve_judges(judge, base_url, model, **client_kwargs)[0]
        self.screen = bool(screen)

    @property
    def budget_s(self) -> float:
        """The longest one question can take: every try at the client's timeout, plus backoffs."""
        c = self.client
        tries = (c.max_retries + 1) * (2 if c.repair else 1)
        return tries * c.timeout_s + c.max_retries * c.max_backoff_s

    def describe(self) -> dict[str, Any]:
        return {"template": self.template.key, "judge": self.client.describe(), "screen": self.screen}

    def addresses(self, task: str, response: str) -> Relevance:
        """The judge's answer for ``response`` to ``task`` (raises ``JudgeError``), or the screen's no."""
        if self.screen:
            found = screen_response(response, prompt=task, rubric=True)
            if found is not None:
                return Relevance(False, f"screened before the judge: {found.why}"[:500], screen=found.kind)
        criterion = f"The response addresses this task: {task}"
        messages, _ = self.template.render(response, question=task, criterion=criterion)
        judgement = self.client.judge(messages, self.template)
        verdict = judgement.value.get("verdict")
        if verdict not in ("yes", "no"):
            raise JudgeError(f"the judge answered {verdict!r}, not yes or no")
        return Relevance(verdict == "yes", str(judgement.value.get("rationale") or "")[:500])
