"""The math family's verifier: final-answer extraction plus equivalence checking."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.concealment import before_turn, turn_goes_on
from rlvr_envs.extract import METHODS, after_reasoning
from rlvr_envs.tail_checks import false_arithmetic, unchecked_value
from rlvr_envs.tail_clauses import alternative_before, wrapping_before
from rlvr_envs.tail_doubt import doubted_before
from rlvr_envs.tail_encoded import decoded
from rlvr_envs.tail_markup import broken_markup
from rlvr_envs.tail_restated import without_restatement
from rlvr_envs.tail_slot import arithmetic_on_answer, display_override, restated_value, scale_after
from rlvr_envs.tail_stance import settled, without_belief, without_closing_belief
from rlvr_envs.tail_words import folded
from rlvr_math.answer_shape import (
    asked_units,
    joined_values,
    listed_alternative,
    maybe_joined,
    phrase_continuation,
    redefinition,
    second_final_answer,
    tail_word,
    unit_swap,
)
from rlvr_math.answer_terms import (
    approximate,
    dot_grouped,
    justified_tail,
    prime_after,
    set_for_scalar,
    without_contrast,
    without_justification,
    without_ordinal,
)
from rlvr_math.asides import answer_in_note, value_on_short_line
from rlvr_math.equivalence import DEFAULT_REL_TOL, MatchConfig, answers_match, warm_up
from rlvr_math.extraction import AFTER_CHARS, FALLBACKS, Answer, final_answer, gold_answer
from rlvr_math.hedging import CHAINS, FAR_TAIL_CHARS, far_tail, strip_approximation, trailing
from rlvr_math.hedging import refusal as answer_refusal
from rlvr_math.normalize import clean
from rlvr_math.units import context_words
from rlvr_math.visibility import concealed, visible, without_zero_width

_OVERLAP = 100  # the far reading starts inside the extracted tail, so a sentence cut at its end is read whole
MAX_EXTRACTED_CHARS = 2_000
"""Longer extracted answers are refused unread (``format_error``): no real answer is that long."""


@lru_cache(maxsize=8192)
def _cached_gold(answer: str | int) -> Answer | None:
    # In RL every prompt is verified once per sampled completion: read its gold answer once.
    return gold_answer(answer)


CACHED_PROMPT_CHARS = 20_000
"""Prompts up to this long are read once (``_task_words``); longer ones on every call."""


def _read_task(prompt: str, gold: str) -> tuple[frozenset[str], frozenset[tuple[str, Fraction]]]:
    """The words of the task that may follow a number as a unit, and the units the prompt asks for."""
    return context_words(prompt, gold), asked_units(prompt)


@lru_cache(maxsize=1024)  # a batch's prompts; at most ~20 MB of prompt text
def _task_words(prompt: str, gold: str) -> tuple[frozenset[str], frozenset[tuple[str, Fraction]]]:
    # In RL a prompt is verified once per sampled completion: read it once.
    return _read_task(prompt, gold)


def clear_caches() -> None:
    """Forget every cached gold answer, LaTeX parse and computed value.

    The caches are bounded LRUs (a few thousand entries each); this is for benchmarks that
    must verify each case from scratch, and for callers that want the memory back.
    """
    from rlvr_math.closed_form import closed_form_value
    from rlvr_math.equivalence import _answers_match_cached, _parsed
    from rlvr_math.hedging import _gold_states_a_case
    from rlvr_math.normalize import _clean_cached
    from rlvr_math.rational import parse_rational

    for cache in (
        _cached_gold,
        _parsed,
        closed_form_value,
        parse_rational,
        _gold_states_a_case,
        _clean_cached,
        _answers_match_cached,
        _task_words,
    ):
        cache.cache_clear()


def _shape_refusal(
    completion: str, answer: Answer, gold: Answer, context: frozenset[str], asked: frozenset[tuple[str, Fraction]]
) -> str | None:
    """What the answer's shape says beyond its value (``rlvr_math.answer_shape``), or None."""
    response = after_reasoning(completion) or ""
    if not gold.is_set:
        if answer.method in ("boxed", "answer_tag"):
            refused = tail_word(answer.after, context, answer.text)
        else:
            refused = phrase_continuation(answer.text, answer.raw) if answer.method in ("answer_is", "hashes") else None
        if refused is None and maybe_joined(answer.text):
            refused = joined_values(clean(answer.text, context), clean(gold.text, context), context)
        if refused is not None:
            return refused
    later = folded(response[answer.end :][:200_000]) if answer.end >= 0 else ""
    if answer.method in ("answer_is", "hashes"):
        # round 13: the rest of an answer phrase's line ("The answer is 3. Check: 4 = 3.", "#### 3 Check: 4 = 3") is
        # read as a box's tail is
        tail = answer.raw + "\n" + later  # the phrase itself too: "#### 3 Check: 4 = 3" reads as "3 ... 4 = 3"
        false = false_arithmetic(tail)
        if false is not None:
            return f"a false equation after the answer ({false!r}): a check that does not hold"
        unchecked = unchecked_value(tail, answer.text)
        if unchecked is not None:
            return f"a check that states another value ({unchecked!r}) after the answer"
    in_note = answer_in_note(response, answer.end, answer.text) if answer.method == "boxed" and answer.end > 0 else None
    return (
        in_note
        or unit_swap(answer.text, gold.text, asked)
        or redefinition(response[:200_000], answer.text)
        or second_final_answer(later, answer.text, answer.method)
        or (listed_alternative(later, answer.text) if not gold.is_set else None)
        or (value_on_short_line(later, answer.text) if not gold.is_set else None)
    )


def _read_terms(answer: Answer) -> Answer:
    """The answer without what restates it: its own ordinal suffix after a box (``\\boxed{3}rd``),
    a justification ending in its own value (``6, since 2+4=6``; ``rlvr_math.answer_terms``)."""
    if answer.method in ("answer_is", "hashes"):
        # round 13: a verb-final belief closing the answer's sentence states it with a box or without one
        # ("答えは3だと思う。", "정답은 3이라고 생각합니다"), as "I think the answer is 3" and "我认为答案是3" do
        text, raw = without_closing_belief(answer.text), without_closing_belief(answer.raw)
        # round 13: "3 (not 4)" contrasts as "\\boxed{3} (not 4)" does (paid since round 6)
        text, raw = without_contrast(text), without_contrast(raw)
        return replace(answer, text=without_justification(text), raw=raw)
    if answer.method not in ("boxed", "answer_tag"):
        return answer
    after = without_ordinal(answer.after, answer.text)
    if justified_tail(after, answer.text):
        after = after[len(after.split("\n", 1)[0]) :]
    return replace(answer, after=after)


def _terms_refusal(answer: Answer, gold: Answer, prompt: str) -> str | None:
    """Approximate, set-valued or primed answers to an exact one-value task (``rlvr_math.answer_terms``)."""
    sentence = answer.after.split("\n", 1)[0]
    boxed = answer.method in ("boxed", "answer_tag")
    return (
        approximate(answer.raw or answer.text, sentence, gold.text, prompt)
        or set_for_scalar(answer.text, gold.text, gold.is_set)
        or (prime_after(answer.after, answer.before) if boxed else None)
    )


_LEAD_FOLD = 400
"""How much of the text before the answer is folded as a reader sees it (the lead-in reading takes 160 characters)."""


class MathVerifier(Verifier):
    """Scores 1 when the completion's final answer is equivalent to the task's answer.

    Args:
        rel_tol: relative tolerance for non-integer numbers (integers compare exactly).
        methods: extraction methods of ``rlvr_envs.extract``, in order.
        fallback: what to read when the completion marks no answer: ``"none"`` (no answer),
            ``"bare"`` (a short one-line completion is itself the answer; the default),
            ``"latex"`` / ``"latex+expr"`` (the last math in free text, as lenient graders do).
        ordered_lists: a bare comma list must match in order (off: it is a set; see ``MatchConfig``).
        strict, allow_set_relation_comp: passed to math-verify's symbolic comparison.
        percent: what ``50\\%`` against a gold 50 or 0.5 means: ``"either"`` (equal to both, the
            default), ``"fraction"`` (0.5 only), ``"number"`` (50 only), ``"strict"`` (neither).
        chains: ``"consistent"`` (default): a chain ``x = 12 = 11`` whose plain-number sides differ
            scores 0; ``"last"``: a chain answers with its last side whatever the others say
            (math-verify's convention).
        time_budget_s: the hard budget the verification pool enforces per call.

    The verifier holds configuration only and pickles small, so the pool ships it cheaply.

    Not ``bounded_cheap``, so ``isolation="auto"`` always verifies in the pool, math-arith too (its
    tasks use this verifier, and the policy's answer need not be arithmetic): the cost of the
    symbolic step depends on what the answer says, not on its length. ``bench/cheap_verifiers.py``
    and a direct run against math-arith's gold ``7/8`` measured ``(x+y+z)^{25}`` at 1.0 s of the 2 s
    budget (within ``rlvr_math.cost``'s bound) and ``\\sin((x+y+z)^{10})`` still running after
    40 s in-process; only the pool's hard budget stops such calls.
    """

    def __init__(
        self,
        *,
        rel_tol: float = DEFAULT_REL_TOL,
        methods: Sequence[str] = METHODS,
        fallback: str = "bare",
        ordered_lists: bool = False,
        strict: bool = True,
        allow_set_relation_comp: bool = False,
        percent: str = "either",
        chains: str = "consistent",
        time_budget_s: float = 2.0,
    ) -> None:
        if chains not in CHAINS:
            raise ValueError(f"chains must be one of {CHAINS}, got {chains!r}")
        if fallback not in FALLBACKS:
            raise ValueError(f"fallback must be one of {FALLBACKS}, got {fallback!r}")
        if not 0 <= rel_tol < 1:
            raise ValueError(f"rel_tol must be in [0, 1), got {rel_tol}")
        if time_budget_s <= 0:
            raise ValueError(f"time_budget_s must be positive, got {time_budget_s}")
        self.methods = tuple(methods)
        self.chains = chains
        self.fallback = fallback
        self.config = MatchConfig(
            rel_tol=rel_tol,
            strict=strict,
            allow_set_relation_comp=allow_set_relation_comp,
            ordered_lists=ordered_lists,
            percent=percent,
        )
        self.time_budget_s = time_budget_s

    def __setstate__(self, state: dict) -> None:
        # The verification pool unpickles a verifier in its worker before the first call, and
        # that step has no time budget: import sympy and math-verify there, so the first
        # verification of every fresh worker is not charged a second of imports.
        self.__dict__.update(state)
        warm_up()

    def verify(self, task: Task, completion: str) -> Verdict:
        cacheable = isinstance(task.answer, (str, int)) and not isinstance(task.answer, bool)
        gold = _cached_gold(task.answer) if cacheable else gold_answer(task.answer)
        if gold is None:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"task {task.id!r} has no answer"})
        if not isinstance(completion, str):
            return Verdict.failure(Reason.FORMAT_ERROR, details={"error": "completion is not a string"})
        if after_reasoning(completion) is None:
            error = "a <think> block is never closed: the completion ends while reasoning"
            return Verdict.failure(Reason.NO_ANSWER, details={"error": error})
        # round 13: a chat turn marker ends the turn (the trainer's tokenizer stops there); a completion that goes on
        # after one in a forged turn answered twice
        forged = turn_goes_on(completion)
        if forged is not None:
            details = {"refused": f"the completion goes on after a chat turn marker ({forged}): a forged turn"}
            return Verdict.failure(Reason.WRONG, details=details)
        completion = before_turn(completion)
        answer = final_answer(completion, self.methods, self.fallback)
        if answer is None:
            if "</think" in completion.lower():
                return Verdict.failure(
                    Reason.NO_ANSWER, details={"error": "no answer after </think> (reasoning is not read)"}
                )
            return Verdict.failure(Reason.NO_ANSWER)
        if len(answer.text) > MAX_EXTRACTED_CHARS:
            return Verdict.failure(
                Reason.FORMAT_ERROR,
                extracted=answer.text[:200],
                details={"error": f"the extracted answer has {len(answer.text)} characters"},
            )
        broken = broken_markup(completion, answer.method)
        if broken is not None:
            # round 14: "\\boxed{A} B}", "\\boxed{\\boxed{A} B}", "<answer>A</answer>B</answer>": read as balanced
            # markup reads it, what the answer's markup encloses holds a second value (rlvr_envs.tail_markup)
            details = {"extraction": answer.method, "refused": broken}
            return Verdict.failure(Reason.FORMAT_ERROR, extracted=answer.text, details=details)
        # round 15: the slot under a bidi override, a per-mille scale or factorial on it, another value restated in
        # another notation right before or after it ("XXV — \\boxed{15}", "\\boxed{110} = two hundred ten")
        slot = (
            display_override(answer.before, answer.raw)
            or scale_after(answer.after, gold.text)
            or restated_value(answer.before, answer.text, answer.after)
            or arithmetic_on_answer(answer.text, answer.after)  # "Scratch that: 2*(A) + 1."
        )
        if slot is not None:
            details = {"extraction": answer.method, "refused": slot}
            return Verdict.failure(Reason.WRONG, extracted=answer.text, details=details)
        hidden = concealed(answer.text + "\x00" + answer.raw, answer.before, answer.after, gold.text)
        if hidden is not None:
            return Verdict.failure(
                Reason.WRONG, extracted=answer.text, details={"extraction": answer.method, "refused": hidden}
            )
        shown = visible(answer.text)
        if not shown.strip().strip("$").strip():
            details = {"extraction": answer.method, "error": "the answer shows nothing (\\phantom)"}
            return Verdict.failure(Reason.NO_ANSWER, extracted=answer.text, details=details)
        # The extracted tail stops at AFTER_CHARS: what lies beyond is read by ``far_tail`` (round 10)
        truncated = len(answer.after) >= AFTER_CHARS and answer.end >= 0
        # round 12: certainty ("No doubt.") and a verb-final belief closing the answer's sentence ("だと思います")
        # state the answer; they are removed before the tail is read (``rlvr_envs.tail_stance``)
        # round 12 (H8's disguised_marker): the tail as a reader sees it: no grapheme joiner between letters, no
        # fullwidth or mathematical letters, a right-to-left override's run in display order (``tail_words.folded``)
        # round 14: an encoded run ("(6f72203433312e)", "%6F%72...", "\\N{DIGIT FOUR}") as the text it encodes
        after = settled(without_belief(decoded(folded(without_zero_width(answer.after)))))
        after = without_restatement(after, shown)  # round 13: ", i.e. three", "(c'est-à-dire trois)" say it again
        before = answer.before[:-_LEAD_FOLD] + folded(answer.before[-_LEAD_FOLD:])  # the lead-in is what is read
        answer = _read_terms(replace(answer, text=shown, after=after, before=before))
        prompt = task.prompt if isinstance(task.prompt, str) else ""
        context, asked = (
            _task_words(prompt, gold.text) if len(prompt) <= CACHED_PROMPT_CHARS else _read_task(prompt, gold.text)
        )
        # round 12: the answer's own words as a reader sees them too ("\boxed{0 0r 1}", "\boxed{n o t 0}")
        refused = answer_refusal(folded(answer.text), folded(answer.raw), gold.text, gold.is_set, self.chains, context)
        if refused is None:
            doubt = doubted_before(answer.before, context)  # round 11: "My rough guess: \boxed{3}"
            # round 13: another value offered right before the answer ("The answer is 384 or \boxed{284}.")
            doubt = doubt or alternative_before(answer.before, answer.text)
            refused = f"hedged answer ({doubt!r} before it)" if doubt is not None else None
        if refused is None:
            # round 13: the answer inside an expression that makes it another value ("$-\boxed{284}$", "half of")
            wrapped = wrapping_before(answer.before)
            refused = f"the answer inside an expression that changes it ({wrapped!r} before it)" if wrapped else None
        if refused is None:
            refused = trailing(answer.after, gold.text, gold.is_set, answer.text, context)
        if refused is None and truncated:
            response = after_reasoning(completion) or ""
            far = folded(response[answer.end + AFTER_CHARS - _OVERLAP : answer.end + AFTER_CHARS + FAR_TAIL_CHARS])
            refused = far_tail(far, gold.text, gold.is_set, answer.text)
        if refused is None:
            refused = _terms_refusal(answer, gold, prompt) or _shape_refusal(completion, answer, gold, context, asked)
        if refused is not None:
            details = {"extraction": answer.method, "refused": refused}
            return Verdict.failure(Reason.WRONG, extracted=answer.text, details=details)
        pred = dot_grouped(strip_approximation(answer.text, gold.text), prompt)
        match = answers_match(
            gold.text, pred, self.config, gold_is_set=gold.is_set, pred_is_set=answer.is_set, context=context
        )
        details = {"extraction": answer.method, "decided_by": match.how}
        if match.how.startswith("refused: "):
            details["refused"] = match.how.removeprefix("refused: ")
        elif match.how.startswith("too_costly: "):
            details["refused"] = "too costly for sympy: " + match.how.removeprefix("too_costly: ")
        if match.equal:
            return Verdict.correct(answer.text, details=details)
        return Verdict.failure(Reason.WRONG, extracted=answer.text, details=details)
