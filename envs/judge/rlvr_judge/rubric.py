"""Rubric criteria: what each one asks, and the programmatic checks reused from the hub.

A criterion is ``{"text", "weight", "kind", "required", ...}``:

- ``kind="judge"`` (default): a judge model decides yes/no.
- ``kind="ifeval"``: an IFEval / IFBench instruction (``instruction_id``, ``kwargs``) checked by
  ``rlvr_ifeval``'s checkers.
- ``kind="math"``: the response's final answer equals ``answer`` (``rlvr_math``'s verifier).
- ``kind="regex"``: ``pattern`` is found in the response (``must_match=False``: is absent);
  run by the ``regex`` module under a time limit, so a pathological pattern cannot hang.
- ``kind="json_schema"``: the response (optionally in a ```json fence) is JSON valid against ``schema``.

A negative ``weight`` makes a penalty: the criterion describes something bad, and meeting it
subtracts. ``required=True``: missing it gives reward 0 whatever the rest (not for penalties).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.errors import RlvrEnvsError

KINDS = ("judge", "ifeval", "math", "regex", "json_schema")
REGEX_TIMEOUT_S = 0.5


class CriterionError(RlvrEnvsError, ValueError):
    """A criterion that cannot be checked as written (data problem, not the response's fault)."""


@dataclass(frozen=True)
class Criterion:
    text: str
    weight: float = 1.0
    kind: str = "judge"
    required: bool = False
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def penalty(self) -> bool:
        return self.weight < 0

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "weight": self.weight, "kind": self.kind, "required": self.required, **self.params}


def parse_criterion(raw: Any) -> Criterion:
    """A validated ``Criterion`` from a dict (or a plain string: a judge criterion of weight 1)."""
    if isinstance(raw, str):
        raw = {"text": raw}
    if not isinstance(raw, Mapping):
        raise CriterionError(f"a criterion must be an object or a string, got {type(raw).__name__}")
    data = dict(raw)
    text = data.pop("text", None)
    kind = data.pop("kind", "judge")
    weight = data.pop("weight", 1.0)
    required = data.pop("required", False)
    if kind not in KINDS:
        raise CriterionError(f"criterion kind must be one of {KINDS}, got {kind!r}")
    if not isinstance(text, str) or not text.strip():
        if kind == "judge":
            raise CriterionError("a judge criterion needs a non-empty 'text'")
        text = f"{kind} check"
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) or weight == 0:
        raise CriterionError(f"criterion weight must be a finite non-zero number, got {weight!r}")
    if not isinstance(required, bool):
        raise CriterionError(f"'required' must be true or false, got {required!r}")
    if required and weight < 0:
        raise CriterionError("a penalty (negative weight) cannot be required")
    criterion = Criterion(text=text.strip(), weight=float(weight), kind=kind, required=required, params=data)
    _validate_params(criterion)
    return criterion


def parse_rubric(raw: Any) -> list[Criterion]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raise CriterionError("the rubric is a string that is not JSON; give a list of criteria") from None
    if not isinstance(raw, (list, tuple)) or not raw:
        raise CriterionError("the rubric must be a non-empty list of criteria")
    out = []
    for i, item in enumerate(raw):
        try:
            out.append(parse_criterion(item))
        except CriterionError as exc:
            raise CriterionError(f"criterion {i}: {exc}") from None
    if not any(c.weight > 0 for c in out):
        raise CriterionError("the rubric needs at least one criterion with a positive weight")
    return out


def _validate_params(c: Criterion) -> None:
    p = c.params
    if c.kind == "ifeval":
        from rlvr_ifeval.base import InstructionError
        from rlvr_ifeval.scoring import build_checker

        if not isinstance(p.get("instruction_id"), str):
            raise CriterionError("an ifeval criterion needs 'instruction_id'")
        try:
            build_checker(p["instruction_id"], p.get("kwargs") or {})
        except InstructionError as exc:
            raise CriterionError(str(exc)) from None
    elif c.kind == "math":
        if p.get("answer") is None or str(p.get("answer")).strip() == "":
            raise CriterionError("a math criterion needs 'answer'")
    elif c.kind == "regex":
        import regex

        if not isinstance(p.get("pattern"), str):
            raise CriterionError("a regex criterion needs 'pattern'")
        try:
            regex.compile(p["pattern"])
        except regex.error as exc:
            raise CriterionError(f"bad regex {p['pattern']!r}: {exc}") from None
    elif c.kind == "json_schema":
        import jsonschema

        if not isinstance(p.get("schema"), Mapping):
            raise CriterionError("a json_schema criterion needs 'schema' (an object)")
        try:
            jsonschema.Draft202012Validator.check_schema(p["schema"])
        except jsonschema.SchemaError as exc:
            raise CriterionError(f"bad JSON schema: {exc.message[:200]}") from None


_JSON_FENCE = re.compile(r"\A\s*```(?:json)?\s*\n(.*?)\n\s*```\s*\Z", re.DOTALL)


VIEWS = ("raw", "reader")
MAX_MATCHES = 256
"""Matches of a regex criterion read for one a reader sees (a bound: a pattern matching everywhere)."""


_INLINE_CODE = re.compile(r"`[^`\n]{1,200}`")


def _seen_match(pattern: str, response: str) -> bool:
    """Whether ``pattern`` matches text a reader sees: a match inside an HTML comment, a hidden or
    white element, ``\\phantom`` and the like (``rlvr_envs.concealment``), or struck out, is not one."""
    import regex

    from rlvr_envs.concealment import CONCEAL_WINDOW, hidden_before
    from rlvr_judge.struck import struck_spans

    struck = struck_spans(response) if ("~~" in response or "<" in response) else []
    for k, found in enumerate(regex.finditer(pattern, response, timeout=REGEX_TIMEOUT_S)):
        if k >= MAX_MATCHES:
            break
        start, end = found.span()
        if any(a <= start and end <= b for a, b in struck):
            continue
        # "<<title>>" (IFEval's title markup) is no HTML element, and inline code shows its text as
        # written (a `%` there opens no comment): neither hides what follows.
        before = _INLINE_CODE.sub(" ", response[max(0, start - CONCEAL_WINDOW) : start].replace("<<", "\u00ab\u00ab"))
        if hidden_before(before) is None:
            return True
    return False


def _read_as_shown(response: str) -> str:
    """The response as a reader reads its letters: zero-width characters gone, compatibility forms
    (full-width) and look-alike letters (a Cyrillic е in "Sydnеy") read as the plain ones."""
    import unicodedata

    from rlvr_judge.decoded import _LOOKALIKE
    from rlvr_judge.screen import _ZERO_WIDTH

    return unicodedata.normalize("NFKC", _ZERO_WIDTH.sub("", response)).translate(_LOOKALIKE)


def check_programmatic(c: Criterion, response: str, view: str = "raw") -> tuple[bool, str]:
    """(met, how) for a programmatic criterion. Never raises on the response.

    ``view="reader"`` (``rubric-v4``, ``judge-v5``): a regex criterion is met only by a match a
    reader sees (not hidden, not struck out), and one that must not match is broken by the text a
    reader sees as well (a zero-width character or a look-alike letter inside the word counts)."""
    p = c.params
    if c.kind == "ifeval":
        from rlvr_ifeval.scoring import evaluate

        result = evaluate([p["instruction_id"]], [p.get("kwargs") or {}], response, loose=bool(p.get("loose", False)))
        return bool(result[0].followed), result[0].error or "ifeval checker"
    if c.kind == "math":
        from rlvr_envs.types import Task
        from rlvr_math.verifier import MathVerifier

        answer = p["answer"]
        verdict = MathVerifier().verify(
            Task(id="criterion", prompt="", answer=answer if isinstance(answer, (int, str)) else str(answer)), response
        )
        return verdict.passed, f"math verifier: {verdict.reason.value}"
    if c.kind == "regex":
        import regex

        must = p.get("must_match", True)
        try:
            if view == "reader" and must:
                found = _seen_match(p["pattern"], response)
            elif view == "reader":
                found = any(
                    regex.search(p["pattern"], text, timeout=REGEX_TIMEOUT_S) is not None
                    for text in (response, _read_as_shown(response))
                )
            else:
                found = regex.search(p["pattern"], response, timeout=REGEX_TIMEOUT_S) is not None
        except TimeoutError:
            return False, "regex timed out (counted as not met)"
        met = found if must else not found
        return met, "regex " + ("found" if found else "not found")
    if c.kind == "json_schema":
        import jsonschema

        fenced = _JSON_FENCE.match(response)
        text = fenced.group(1) if fenced else response.strip()
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            return False, "not JSON"
        try:
            jsonschema.validate(value, p["schema"])
        except jsonschema.ValidationError as exc:
            return False, f"schema: {exc.message[:120]}"
        except RecursionError:
            return False, "schema: too deeply nested"
        return True, "valid JSON for the schema"
    raise CriterionError(f"{c.kind!r} is not a programmatic kind")


def aggregate_explicit(criteria: list[Criterion], credits: list[float]) -> tuple[float, str | None]:
    """Weighted sum normalised to [0, 1]; a missed required criterion gives 0.

    ``credits[i]`` is how much criterion ``i`` is met (1/0, or an ensemble's yes-fraction).
    Positive criteria add ``weight * credit``; penalties subtract ``|weight| * credit``; the sum is
    divided by the total positive weight and clipped to [0, 1].
    """
    for i, (c, credit) in enumerate(zip(criteria, credits)):
        if c.required and credit < 0.5:
            return 0.0, f"required criterion {i} not met"
    positive = sum(c.weight for c in criteria if c.weight > 0)
    earned = sum(c.weight * credit for c, credit in zip(criteria, credits))
    return min(1.0, max(0.0, earned / positive)), None
