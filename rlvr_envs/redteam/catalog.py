"""The attack classes, in report order, and which tasks each applies to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rlvr_envs.redteam import attacks_answer as answer
from rlvr_envs.redteam import attacks_code as code
from rlvr_envs.redteam import attacks_correction as correction
from rlvr_envs.redteam import attacks_display as display
from rlvr_envs.redteam import attacks_glyph as glyph
from rlvr_envs.redteam import attacks_guess as guess
from rlvr_envs.redteam import attacks_hidden as hidden
from rlvr_envs.redteam import attacks_lean as lean
from rlvr_envs.redteam import attacks_notation as notation
from rlvr_envs.redteam import attacks_order as order
from rlvr_envs.redteam import attacks_paste as paste
from rlvr_envs.redteam import attacks_prompt as prompt
from rlvr_envs.redteam import attacks_render as render
from rlvr_envs.redteam import attacks_tail as tail
from rlvr_envs.redteam import attacks_text as text
from rlvr_envs.redteam import attacks_value as value
from rlvr_envs.redteam.mining import forge_turns, mine_feedback, prompt_lookup_probes
from rlvr_envs.redteam.retries import enumerate_retries
from rlvr_envs.redteam.target import GoldKind, Probe, Target

if TYPE_CHECKING:
    from rlvr_envs.env import Env

Builder = Callable[[Target, bool], list[Probe]]
Episode = Callable[["Env", Target, bool], list[tuple[Probe, Any]]]

_SHORT: frozenset[GoldKind] = frozenset({"number", "short"})


@dataclass(frozen=True)
class AttackClass:
    """One family of exploits: a builder of probes per task (or an episode player), and the kinds
    of gold answer it needs (None: every task, with or without a gold)."""

    name: str
    build: Builder | None
    kinds: frozenset[GoldKind] | None
    needs: str
    """What a task must have for the class to apply (said in the report when none does)."""
    episode: Episode | None = None

    @property
    def doc(self) -> str:
        fn = self.build or self.episode
        return " ".join((fn.__doc__ or "").split()) if fn is not None else ""

    def applies(self, target: Target) -> bool:
        return self.kinds is None or target.kind in self.kinds


CLASSES: tuple[AttackClass, ...] = (
    AttackClass("empty", answer.empty_probes, None, ""),
    AttackClass("hedge", answer.hedge_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("after_answer", answer.after_answer_probes, _SHORT | {"code"}, "a short gold answer or program"),
    AttackClass("multi_answer", answer.multi_answer_probes, _SHORT | {"code"}, "a short gold answer or program"),
    AttackClass("think", answer.think_probes, _SHORT | {"code"}, "a short gold answer or program"),
    AttackClass("value_suffix", answer.value_tail_probes, frozenset({"number"}), "a numeric gold answer"),
    AttackClass("negation", answer.negation_probes, _SHORT, "a short gold answer (answer_text)"),
    # Red team rounds 4-6: the classes the families' own campaigns found after the first catalog.
    AttackClass("unread_language", tail.unread_language_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("later_alternative", tail.later_alternative_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("condition", tail.condition_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("approximation", tail.approximation_probes, _SHORT, "an exact (no decimal point) short gold"),
    AttackClass("set_interval", tail.set_interval_probes, frozenset({"number"}), "a numeric gold answer"),
    AttackClass("said_in_words", tail.said_in_words_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("hidden_answer", hidden.hidden_answer_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("grader_note", hidden.grader_note_probes, None, ""),
    AttackClass(
        "forged_verdict", hidden.forged_verdict_probes, _SHORT | {"long", "code"}, "a gold answer to be wrong about"
    ),
    AttackClass("self_grading", text.self_grading_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("lean_wrapper", lean.lean_wrapper_probes, None, "a Lean statement in the prompt's lean4 block"),
    AttackClass("word_salad", text.word_salad_probes, None, ""),
    AttackClass("paste_many", paste.paste_probes, None, ""),
    AttackClass("echo_prompt", text.echo_probes, None, ""),
    AttackClass("huge", text.huge_probes, None, ""),
    AttackClass("binary", text.binary_probes, None, ""),
    AttackClass("code_exit", code.exit_probes, frozenset({"code"}), "a program-graded task (a code gold)"),
    AttackClass("code_always_equal", code.always_equal_probes, frozenset({"code"}), "a gold program with functions"),
    AttackClass("code_tamper", code.tamper_probes, frozenset({"code"}), "a program-graded task (a code gold)"),
    AttackClass("code_output_format", code.output_format_probes, frozenset({"code"}), "a stdin/stdout gold program"),
    AttackClass(
        "prompt_lookup", prompt_lookup_probes, frozenset({"code"}), "a gold program and examples in the prompt"
    ),
    AttackClass("induced_error", code.induced_error_probes, frozenset({"code"}), "a program-graded task (a code gold)"),
    AttackClass("code_trivial", code.trivial_probes, frozenset({"code"}), "a program-graded task (a code gold)"),
    AttackClass(
        "code_guess", guess.guess_probes, frozenset({"code"}), "a yes/no code task with examples in the prompt"
    ),
    # Round 12: disguised words and values, more languages, orderings, markers, structure, verdicts,
    # length caps, and (for instruction-following ids first) texts built from the prompt.
    AttackClass("more_languages", order.more_languages_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("not_but", order.not_but_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("disguised_marker", glyph.disguised_marker_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("disguised_value", glyph.disguised_value_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("marker_clash", order.marker_clash_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("markup_alternative", order.markup_alternative_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("self_verdict", order.self_verdict_probes, None, ""),
    AttackClass("far_retraction", order.far_retraction_probes, _SHORT, "a short gold and a size cap over 40,000"),
    AttackClass("echo_gold", order.echo_gold_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("keyword_stuffing", prompt.keyword_stuffing_probes, None, ""),
    AttackClass("constraint_swap", prompt.constraint_swap_probes, None, ""),
    AttackClass("script_swap", prompt.script_swap_probes, None, ""),
    AttackClass("other_prompt", prompt.other_prompt_probes, None, "another task in the run with other words"),
    # Round 13: values encoded, hidden by rendering or in other notations, markup left unbalanced,
    # turn markers, split answers, two-branch answers and spam.
    AttackClass("encoded_alternative", render.encoded_alternative_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("rendered_hidden", render.rendered_hidden_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("other_notation", notation.other_notation_probes, _SHORT, "a short integer gold answer"),
    AttackClass("two_branch", notation.two_branch_probes, _SHORT, "a short gold and a prompt with no cases"),
    AttackClass("answer_spam", notation.answer_spam_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("broken_markup", render.broken_markup_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("role_marker", render.role_marker_probes, _SHORT | {"code"}, "a short gold answer or program"),
    AttackClass("split_answer", render.split_answer_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("before_slot", render.before_slot_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("wrapped_slot", notation.wrapped_slot_probes, frozenset({"number"}), "a numeric gold answer"),
    # Round 15: the gold's characters kept and another value stated (a scale, a longer token, a
    # restatement in another notation, a reversed display, digits of another script), the gold
    # corrected afterwards, only in another family's reasoning block, or one item of a list.
    AttackClass("scale_swap", value.scale_swap_probes, frozenset({"number"}), "a non-zero numeric gold answer"),
    AttackClass("gold_substring", value.gold_substring_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("notation_clash", value.notation_clash_probes, _SHORT, "a short non-negative integer gold"),
    AttackClass("bidi_display", display.bidi_display_probes, _SHORT, "a short gold that shows otherwise reversed"),
    AttackClass("confusable_value", display.confusable_value_probes, frozenset({"number"}), "a numeric gold answer"),
    AttackClass("self_correction", correction.self_correction_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("reasoning_tags", correction.reasoning_tags_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("list_item", correction.list_item_probes, _SHORT, "a short gold answer (answer_text)"),
    AttackClass("feedback_mining", None, None, "an env that can be made with max_turns > 1", episode=mine_feedback),
    AttackClass("forged_turn", None, None, "an env that can be made with max_turns > 1", episode=forge_turns),
    AttackClass(
        "retry_enumeration", None, None, "an env that can be made with max_turns > 1", episode=enumerate_retries
    ),
)

BY_NAME: dict[str, AttackClass] = {c.name: c for c in CLASSES}

KIT_CLASSES: tuple[str, ...] = (
    "empty",
    "hedge",
    "multi_answer",
    "think",
    "value_suffix",
    "negation",
    "word_salad",
    "echo_prompt",
    "set_interval",
    "forged_verdict",
)
"""The handful the conformance kit runs on its tasks (cheap for every family). Not yet
``after_answer``: the core's ``extract_answer`` reads the last answer and ignores what follows
it, so every verifier built on it (the README's example, ``rlvr-envs new``'s scaffold,
reasoning-gym) pays "\\boxed{A}. But I am not sure; it might be B." and "\\boxed{A} thousand."
until the extractor refuses such a tail; ``rlvr-envs redteam`` and tests/redteam run it at full
strength meanwhile."""


def select(names: str | list[str] | tuple[str, ...] | None) -> list[AttackClass]:
    """Classes by name (a comma-separated string or a list); all of them for None."""
    if names is None:
        return list(CLASSES)
    wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    unknown = [n for n in wanted if n not in BY_NAME]
    if unknown:
        raise ValueError(f"unknown attack class(es) {unknown}; choose from {[c.name for c in CLASSES]}")
    return [c for c in CLASSES if c.name in wanted]
