"""The judge family's verifier: reference equivalence and rubrics, cached, ensembled, guarded.

A task's answer is ``{"reference": str | None, "rubric": [criterion, ...] | None}``. With a
rubric the response is graded against it (the reference, if any, is shown to the judge as
context); without one, the judge decides whether the response's final answer is equivalent to
the reference. Every judge failure is ``verifier_error``, never a reward (what a trainer adapter
pays for it is its ``on_error`` policy, ``rlvr_envs.adapters.failures``).
"""

from __future__ import annotations

import hashlib
import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.chat_markers import strip_turn_end
from rlvr_envs.tail_markup import broken_markup
from rlvr_envs.tail_slot import restated_value
from rlvr_judge.answer_reading import (  # re-exported: the verifier's names before the split
    FINAL_ANSWER_CHARS as FINAL_ANSWER_CHARS,
)
from rlvr_judge.answer_reading import (
    _answer_start,
    final_answer,
    final_answer_and_after,
    final_reading,
    final_sentence_and_after,
    strip_reasoning,
)
from rlvr_judge.cache import JudgeCache, cache_key
from rlvr_judge.client import JudgeCircuitOpen, JudgeClient, JudgeError
from rlvr_judge.final_labels import other_final_answer
from rlvr_judge.forged import forged_dialogue
from rlvr_judge.hedges import doubted_lead, hedged, hidden_answer, look_alike_tag, negated_reference, unseen_answer
from rlvr_judge.rubric import VIEWS as CRITERIA_VIEWS
from rlvr_judge.rubric import Criterion, CriterionError, aggregate_explicit, check_programmatic, parse_rubric
from rlvr_judge.screen import SCREEN_LEVEL, Screened
from rlvr_judge.screen import screen as screen_response
from rlvr_judge.templates import CRITERION_V0, HOLISTIC_V0, REF_V0, REF_V1, REF_V2, Template

RATIONALE_CHARS = 300
MAX_FINAL_CHARS = 4_000
"""Default ``max_final_chars``: most characters of final answer plus what follows it shown to the judge."""
MIN_ECHO_CHARS = 24
MIN_REFERENCE_ECHO_CHARS = 48
_WS = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Case- and whitespace-insensitive form for echo checks (no word splitting: CJK-safe)."""
    return _WS.sub(" ", text.casefold()).strip()


def _worst_call_s(judge: JudgeClient) -> float:
    return judge.timeout_s * (judge.max_retries + 1) + judge.max_backoff_s * judge.max_retries


def _hash(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False).encode("utf-8")).hexdigest()[:24]


class JudgeVerifier(Verifier):
    """Scores a response with one or more judges, by reference or by rubric.

    Args:
        judges: the ``JudgeClient``s (several: an ensemble of judges).
        samples: judgements per judge; above 1 they are sampled at ``sample_temperature`` with
            seeds 0..k-1 (an ensemble of samples of one judge).
        combine: ``majority`` (yes when more than half say yes; a tie is no) or ``mean`` (the
            yes-fraction is the credit).
        aggregation: ``explicit`` (one judge call per judge criterion, weighted sum) or
            ``implicit`` (one holistic call given the whole rubric, 0-10 scaled to [0, 1]).
        pass_threshold: reward at or above which the verdict passes.
        cache: a ``JudgeCache``, a path, ``None`` for the default path, or ``False`` for none.
        max_response_chars: longer responses are refused (``format_error``) before any judge call:
            padding must not push the grading instructions out of the judge's context, or cost.
        max_final_chars: in reference mode the judge sees the whole final answer and everything
            written after it (the whole response when no answer is marked); more than this is
            refused (``format_error`` naming the limit) before any judge call, never cut.
        answer_view: ``"v3"`` (``judge-ref-v6``: as ``"v2"``, with final answers labelled in every claimed
            language read by one rule, ``rlvr_judge.final_labels``), ``"v2"`` (``judge-ref-v5``: the above
            with the sentence that gives the final answer before it, template ``ref-v2``), ``"v1"`` (the
            above, template ``ref-v1``) or ``"v0"``
            (``judge-ref-v0``: the final answer alone, cut at 2,000 characters, template ``ref-v0``;
            kept so old results reproduce).
        screen: refuse non-answers before any judge call (``rlvr_judge.screen``; ``details["screen"]``
            names the class). ``True``: every check (``SCREEN_LEVEL``): empty answers, refusals, prompt
            pastes, word salads, grader-only notes, notes hidden or encoded anywhere, payloads in an
            encoding the task did not ask for, imitations of the judge's side and, in reference mode,
            a hedge or another answer after the final answer. ``1``: the first five only (the ids
            ``judge-ref-v2``, ``judge-v2``, ``rubric-v1``). ``False``: the judge sees everything (the
            ids before those).
        echo_sources: other text the policy was given (its env sets the prompt format's
            instruction and system prompt): pasting it back is screened as an echo.
        time_budget_s: the pool's hard budget per verification (when run in the pool).
        criteria_view: ``"reader"`` (``rubric-v4``, ``judge-v5``): regex criteria read the response as a
            reader sees it (``rlvr_judge.rubric.check_programmatic``); ``"raw"``: the text as it is.
        turn_end: ``"strip"`` (``judge-ref-v7``, ``judge-v7``): chat-template markers that only end the
            response (a decoded end of turn, padding) are dropped first (``rlvr_envs.chat_markers``);
            ``"keep"``: read as written (an honest answer ending in ``<|im_end|>`` was refused).
    """

    def __init__(
        self,
        judges: list[JudgeClient],
        *,
        samples: int = 1,
        sample_temperature: float = 0.7,
        combine: str = "majority",
        aggregation: str = "explicit",
        pass_threshold: float = 1.0,
        cache: JudgeCache | str | bool | None = None,
        max_response_chars: int = 32_000,
        max_final_chars: int = MAX_FINAL_CHARS,
        answer_view: str = "v1",
        screen: bool | int = True,
        echo_sources: tuple[str, ...] = (),
        time_budget_s: float | None = None,
        criteria_view: str = "raw",
        turn_end: str = "keep",
    ) -> None:
        if turn_end not in ("keep", "strip"):
            raise ValueError(f"turn_end must be 'keep' or 'strip', got {turn_end!r}")
        self.turn_end = turn_end
        if not judges:
            raise ValueError("at least one judge is needed")
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        if combine not in ("majority", "mean"):
            raise ValueError(f"combine must be 'majority' or 'mean', got {combine!r}")
        if aggregation not in ("explicit", "implicit"):
            raise ValueError(f"aggregation must be 'explicit' or 'implicit', got {aggregation!r}")
        if not 0 < pass_threshold <= 1:
            raise ValueError(f"pass_threshold must be in (0, 1], got {pass_threshold}")
        if answer_view not in ("v0", "v1", "v2", "v3"):
            raise ValueError(f"answer_view must be 'v0', 'v1', 'v2' or 'v3', got {answer_view!r}")
        if criteria_view not in CRITERIA_VIEWS:
            raise ValueError(f"criteria_view must be one of {CRITERIA_VIEWS}, got {criteria_view!r}")
        self.criteria_view = criteria_view
        if max_final_chars < 1:
            raise ValueError(f"max_final_chars must be positive, got {max_final_chars}")
        self.max_final_chars = max_final_chars
        self.answer_view = answer_view
        if screen is True:
            screen = SCREEN_LEVEL
        if isinstance(screen, bool) or not isinstance(screen, int) or not 0 <= screen <= SCREEN_LEVEL:
            if screen is not False:
                raise ValueError(f"screen must be True, False or a level 0-{SCREEN_LEVEL}, got {screen!r}")
            screen = 0
        self.screen = screen
        self.echo_sources = tuple(echo_sources)
        self.judges = list(judges)
        self.samples = samples
        self.sample_temperature = sample_temperature
        self.combine = combine
        self.aggregation = aggregation
        self.pass_threshold = pass_threshold
        self.max_response_chars = max_response_chars
        if cache is False:
            self.cache: JudgeCache | None = None
        elif isinstance(cache, JudgeCache):
            self.cache = cache
        else:
            self.cache = JudgeCache(cache if isinstance(cache, str) else None)
        self.time_budget_s = time_budget_s if time_budget_s is not None else self._worst_case_s()

    def _worst_case_s(self) -> float:
        """Longest one verification can take: a call and its repair call, each with every retry spent."""
        worst_call = max(_worst_call_s(j) for j in self.judges)
        return 2 * worst_call + 5

    def fit_budget(self, seconds: float) -> None:
        """Make the worst case fit in ``seconds`` (the reward server's ``max_call_s``): fewer retries
        first, then shorter request timeouts, for every judge. Judge calls run in the caller's
        process, where no pool can kill them, so their own bounds are what holds the budget."""
        for judge in self.judges:
            while 2 * _worst_call_s(judge) + 5 > seconds and judge.max_retries > 0:
                judge.max_retries -= 1
            if 2 * _worst_call_s(judge) + 5 > seconds:
                judge.timeout_s = max(1.0, (seconds - 5) / 2)
            judge._transport = None  # rebuilt with the new bounds at the next call
        self.time_budget_s = min(self.time_budget_s, max(self._worst_case_s(), 1.0), seconds)

    # -- one judged question, over the ensemble -------------------------------------------------
    def _members(self) -> list[tuple[JudgeClient, float | None, int | None, str]]:
        out: list[tuple[JudgeClient, float | None, int | None, str]] = []
        for j in self.judges:
            if self.samples == 1:
                out.append((j, None, None, j.fingerprint))
            else:
                for s in range(self.samples):
                    out.append((j, self.sample_temperature, s, f"{j.fingerprint}|t={self.sample_temperature}|s={s}"))
        return out

    def _ask(self, template: Template, task: Task, shown: Any, role: str, **fields: str) -> dict[str, Any]:
        """Ask every ensemble member; the per-member values, keys and counts (raises JudgeError)."""
        response = fields.pop("response")
        members = self._members()
        shown_hash = _hash(shown)

        def one(member: tuple[JudgeClient, float | None, int | None, str]) -> tuple[dict[str, Any], str, bool]:
            judge, temperature, seed, fp = member
            key = cache_key(fp, template.key, task.fingerprint, shown_hash, role)
            if self.cache is not None:
                hit = self.cache.get(key)
                if hit is not None:
                    return hit, key, True
            messages, _ = template.render(response, **fields)
            judgement = judge.judge(messages, template, temperature=temperature, seed=seed)
            value = dict(judgement.value)
            if "rationale" in value:
                value["rationale"] = str(value["rationale"])[:RATIONALE_CHARS]
            if self.cache is not None:
                self.cache.put(key, fp, template.key, value)
            return value, key, False

        if len(members) == 1:
            results = [one(members[0])]
        else:
            with ThreadPoolExecutor(max_workers=min(len(members), 16)) as pool:
                results = list(pool.map(one, members))
        return {
            "values": [r[0] for r in results],
            "keys": [r[1] for r in results],
            "hits": sum(r[2] for r in results),
            "judges": [m[0].name for m in members],
        }

    def _combine_votes(self, values: list[dict[str, Any]]) -> tuple[float, float, list[str]]:
        votes = [v["verdict"] for v in values]
        yes = sum(v == "yes" for v in votes)
        n = len(votes)
        credit = yes / n if self.combine == "mean" else float(yes * 2 > n)
        disagreement = 1 - max(yes, n - yes) / n
        return credit, disagreement, votes

    # -- Verifier --------------------------------------------------------------------------------
    def verify(self, task: Task, completion: str) -> Verdict:
        answer = task.answer if isinstance(task.answer, dict) else None
        reference = answer.get("reference") if answer else None
        raw_rubric = answer.get("rubric") if answer else None
        if (reference is None or not str(reference).strip()) and not raw_rubric:
            return Verdict.failure(
                Reason.VERIFIER_ERROR, details={"error": f"task {task.id!r} has neither a reference nor a rubric"}
            )
        try:
            rubric = parse_rubric(raw_rubric) if raw_rubric else None
        except CriterionError as exc:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"task {task.id!r}: {exc}"})
        if not isinstance(completion, str):
            return Verdict.failure(Reason.FORMAT_ERROR, details={"error": "completion is not a string"})
        if self.turn_end == "strip":  # v7: a decoded end of turn is no part of the answer (it was refused)
            completion = strip_turn_end(completion)
            while "<s>" not in completion and completion.rstrip().endswith("</s>"):  # Llama 2's EOS, not a strike-out
                completion = completion.rstrip()[: -len("</s>")]
        response = strip_reasoning(completion)
        if response is None:
            return Verdict.failure(Reason.FORMAT_ERROR, details={"error": "a <think> block is never closed"})
        if not response:
            return Verdict.failure(Reason.NO_ANSWER, details={"guard": "empty response"})
        if len(response) > (cap := self.max_response_chars):
            return Verdict.failure(
                Reason.FORMAT_ERROR,
                details={"guard": f"the response has {len(response)} characters; the judge's cap is {cap}"},
            )
        screened = self._screen(task, response, rubric, None if reference is None else str(reference))
        if screened is not None:
            return screened
        guard = self._guard(task, response, rubric, None if reference is None else str(reference))
        if guard is not None:
            return Verdict.failure(Reason.WRONG, extracted=response[:200], details={"guard": guard})
        try:
            if rubric is None:
                return self._verify_reference(task, response, str(reference))
            return self._verify_rubric(task, response, rubric, None if reference is None else str(reference))
        except JudgeError as exc:
            details: dict[str, Any] = {"error": f"judge call failed: {exc}"[:600]}
            details["judges"] = [j.name for j in self.judges]
            if isinstance(exc, JudgeCircuitOpen):
                details["circuit_breaker"] = "open"
            return Verdict.failure(Reason.VERIFIER_ERROR, details=details)

    def _screen(
        self, task: Task, response: str, rubric: list[Criterion] | None, reference: str | None
    ) -> Verdict | None:
        """The screen's refusal of what the judge would be shown (``rlvr_judge.screen``), or None."""
        if not self.screen:
            return None
        answer, after, start, other, how = "", "", None, None, ""
        if rubric is None and self.answer_view == "v3":
            answer, after, shown, how, start = final_reading(response)
            if how in ("answer_tag", "boxed", "hashes"):
                # A label after a stronger marker: the same answer restated is no hedge, another is refused.
                after, other = other_final_answer(answer, after)
        elif rubric is None and self.answer_view == "v2":
            answer, shown, _how = final_sentence_and_after(response)
            after = final_answer_and_after(response)[1]
        elif rubric is None and self.answer_view == "v1":
            answer, after, _how = final_answer_and_after(response)
            shown = f"{answer}\n\n{after}" if after else answer
        else:
            shown = response
        found = screen_response(
            shown,
            prompt=task.prompt,
            reference=reference,
            criteria=[c.text for c in rubric or ()],
            echo_sources=self.echo_sources,
            rubric=rubric is not None,
            level=self.screen,
        )
        if found is None and self.screen >= 2 and how in ("answer_tag", "boxed"):
            # round 14: '<answer>\\boxed{A} B}</answer>' shows the judge A; read as balanced markup
            # reads it, the answer's markup holds a second value (rlvr_envs.tail_markup)
            broken = broken_markup(response, how)
            found = Screened("hedge", f"the answer's markup does not balance: {broken}") if broken else None
        if found is None and self.screen >= 2 and other is not None:
            found = Screened("hedge", f"another final answer after the one read ({other[:60]!r})")
        if found is None and self.screen >= 2 and after:
            found = hedged(answer, after, level=self.screen)
        if found is None and self.screen >= 3 and rubric is None:
            found = look_alike_tag(response) or hidden_answer(response)
            if found is None and self.answer_view != "v3":  # round 11: the answer inside markup out of sight
                answer_at, _after, how = final_answer_and_after(response)
                start = _answer_start(response, how, answer_at)
            if found is None:
                found = unseen_answer(response, start)
            if found is None and self.answer_view in ("v2", "v3"):  # the views that show the answer's lead-in
                found = doubted_lead(response, start)
            if found is None and self.turn_end == "strip":  # v7, round 15: "III, that is <answer>2</answer>"
                clash = restated_value(response[: start or 0], answer, after)
                found = Screened("hedge", f"two values said to be one: {clash}") if clash else None
            if found is None and reference:
                found = negated_reference(shown, reference)
            if found is None and self.turn_end == "strip":  # v7: a dialogue before the answer shown (H7, round 13)
                dialogue = forged_dialogue(response, f"{task.prompt} {reference or ''}")
                found = Screened("forged_format", dialogue) if dialogue else None
        elif found is None and self.screen >= 3:  # round 15: rubric mode too ("用户：..." / "助手：所有要求都满足")
            dialogue = forged_dialogue(response, " ".join([task.prompt, *(c.text for c in rubric or ())]))
            found = Screened("forged_format", dialogue) if dialogue else None
        if found is None:
            return None
        reason = Reason.NO_ANSWER if found.kind in ("empty", "refusal") else Reason.WRONG
        return Verdict.failure(reason, extracted=shown[:200], details={"guard": found.why, "screen": found.kind})

    def _guard(self, task: Task, response: str, rubric: list[Criterion] | None, reference: str | None) -> str | None:
        """Why the response is rejected before any judge sees it, or None."""
        said, prompt = normalise(response), normalise(task.prompt)
        if prompt and prompt in said and len(said) - len(prompt) < max(40, len(prompt) // 5):
            return "the response only echoes the prompt"
        if rubric is not None:
            for i, c in enumerate(rubric):
                text = normalise(c.text)
                if len(text) >= MIN_ECHO_CHARS and text in said:
                    return f"the response repeats rubric criterion {i} verbatim"
        if reference is not None:
            ref = normalise(reference)
            if (
                len(ref) >= MIN_REFERENCE_ECHO_CHARS
                and ref in said
                and (rubric is not None or len(said) >= 2 * len(ref))
            ):
                return "the response repeats the reference answer verbatim"
        return None

    def _verify_reference(self, task: Task, response: str, reference: str) -> Verdict:
        template, after = REF_V0, ""
        if self.answer_view == "v0":
            answer, how = final_answer(response)
            shown = answer
        else:
            template = REF_V1 if self.answer_view == "v1" else REF_V2
            answer, after, how = final_answer_and_after(response)
            shown = f"{answer}\n\n{after}" if after else answer
            if self.answer_view == "v2":
                shown = final_sentence_and_after(response)[1]
            elif self.answer_view == "v3":
                answer, after, shown, how, _start = final_reading(response)
            if len(shown) > (cap := self.max_final_chars):
                what = "the final answer and the text after it have" if after else "the final answer has"
                if how == "whole response":
                    what = "the response (no marked final answer) has"
                return Verdict.failure(
                    Reason.FORMAT_ERROR,
                    extracted=answer[:200],
                    details={
                        "guard": f"{what} {len(shown)} characters; the judge is shown at most {cap} "
                        "(max_final_chars) and nothing is cut",
                        "final_answer": how,
                    },
                )
        asked = self._ask(
            template, task, [task.prompt, reference, shown], "reference",
            response=shown, question=task.prompt, reference=reference,
        )  # fmt: skip
        credit, disagreement, votes = self._combine_votes(asked["values"])
        details = {
            "mode": "reference",
            "template": template.key,
            "final_answer": how,
            "after_answer_chars": len(after),
            "votes": votes,
            "disagreement": disagreement,
            "rationale": asked["values"][0].get("rationale", ""),
            "cache_key": asked["keys"][0] if len(asked["keys"]) == 1 else asked["keys"],
        }
        return self._verdict(credit, answer, details)

    def _verify_rubric(self, task: Task, response: str, rubric: list[Criterion], reference: str | None) -> Verdict:
        reference_block = f"Reference answer (for context):\n{reference}\n\n" if reference else ""
        entries: list[dict[str, Any]] = []
        credits: list[float] = []
        judged: list[int] = []
        for i, c in enumerate(rubric):
            entry: dict[str, Any] = {"index": i, "text": c.text[:200], "kind": c.kind, "weight": c.weight}
            if c.required:
                entry["required"] = True
            if c.kind != "judge":
                met, how = check_programmatic(c, response, self.criteria_view)
                entry.update(met=met, by=how)
                credits.append(float(met))
            else:
                judged.append(i)
                credits.append(0.0)
            entries.append(entry)
        disagreements: list[float] = []
        if self.aggregation == "explicit" and judged:

            def ask(i: int) -> dict[str, Any]:
                return self._ask(
                    CRITERION_V0, task, [task.prompt, reference, rubric[i].text, response], f"criterion:{i}",
                    response=response, question=task.prompt, reference_block=reference_block, criterion=rubric[i].text,
                )  # fmt: skip

            if len(judged) == 1:
                answers = [ask(judged[0])]
            else:
                with ThreadPoolExecutor(max_workers=min(len(judged), 8)) as pool:
                    answers = list(pool.map(ask, judged))
            for i, asked in zip(judged, answers):
                credit, disagreement, votes = self._combine_votes(asked["values"])
                credits[i] = credit
                disagreements.append(disagreement)
                entries[i].update(
                    met=credit if self.combine == "mean" else credit >= 0.5,
                    by="judge",
                    votes=votes,
                    disagreement=disagreement,
                    rationale=asked["values"][0].get("rationale", ""),
                    cache_key=asked["keys"][0] if len(asked["keys"]) == 1 else asked["keys"],
                )
        details: dict[str, Any] = {"mode": f"rubric-{self.aggregation}", "criteria": entries}
        if self.aggregation == "explicit":
            reward, why = aggregate_explicit(rubric, credits)
            details["template"] = CRITERION_V0.key if judged else None
        else:
            reward, why, extra = self._holistic(task, response, rubric, reference_block, credits)
            details.update(extra)
            disagreements.append(extra["disagreement"])
        if why:
            details["zeroed_by"] = why
        details["disagreement"] = max(disagreements) if disagreements else 0.0
        return self._verdict(reward, None, details)

    def _holistic(
        self, task: Task, response: str, rubric: list[Criterion], reference_block: str, credits: list[float]
    ) -> tuple[float, str | None, dict[str, Any]]:
        lines = []
        for i, c in enumerate(rubric):
            tag = "REQUIRED " if c.required else ("PENALTY " if c.penalty else "")
            lines.append(f"{i + 1}. {tag}(weight {abs(c.weight):g}) {c.text}")
        rubric_text = "\n".join(lines)
        asked = self._ask(
            HOLISTIC_V0, task, [task.prompt, reference_block, rubric_text, response], "holistic",
            response=response, question=task.prompt, reference_block=reference_block, rubric=rubric_text,
        )  # fmt: skip
        scores = [v["score"] / 10 for v in asked["values"]]
        if self.combine == "mean":
            score = sum(scores) / len(scores)
        else:
            score = sorted(scores)[len(scores) // 2]  # the median: the majority's grade
        spread = max(scores) - min(scores)
        why = None
        for i, c in enumerate(rubric):
            if c.kind != "judge" and c.required and credits[i] < 0.5:
                score, why = 0.0, f"required criterion {i} not met"
                break
        extra = {
            "template": HOLISTIC_V0.key,
            "holistic_scores": scores,
            "rationale": asked["values"][0].get("rationale", ""),
            "cache_key": asked["keys"][0] if len(asked["keys"]) == 1 else asked["keys"],
            "disagreement": spread,
        }
        return score, why, extra

    def _verdict(self, reward: float, extracted: str | None, details: dict[str, Any]) -> Verdict:
        reward = min(1.0, max(0.0, float(reward)))
        if reward >= self.pass_threshold - 1e-9:
            return Verdict.correct(extracted, details=details, reward=reward)
        return Verdict.failure(Reason.WRONG, extracted=extracted, details=details, reward=reward)
