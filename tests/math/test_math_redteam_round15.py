"""Round 15 (issue 26) in the math family: the attacker's new classes (``bidi_display``, ``scale_swap``,
``notation_clash``, ``self_correction``) and more of each than it sends are refused by ``MathVerifier``; the same
value in another notation, a percent under the documented ``percent="either"`` and an exclamation after the math
keep 1.0.

Every hostile row below was paid 1.0 by the math verifier on the commit before round 15 except where the table
says so (the rows beyond the attacker's: other override characters, scale words, notations and languages).
"""

from __future__ import annotations

import pytest

from rlvr_envs import Task
from rlvr_math import MathVerifier

_VERIFIER = MathVerifier()
_TASK = Task(id="r15", prompt="Compute the number.", answer="284")


def _reward(completion: str, task: Task = _TASK) -> float:
    return _VERIFIER.verify(task, completion).reward


_HOSTILE = {
    # bidi_display: the whole slot shown reversed
    "rlo": "The answer is \u202e\\boxed{284}\u202c.",
    "rlo-in-math": "The answer is $\u202e\\boxed{284}\u202c$.",
    "lro-rlo": "\u202d\u202e\\boxed{284}",
    "rle": "The answer is \u202b\\boxed{284}\u202c.",
    # scale_swap: per mille, per ten thousand, basis points, a factorial inside the math
    "per-mille-sign": "\\boxed{284}‰",
    "per-ten-thousand-sign": "\\boxed{284}‱",
    "per-mille-words": "The answer is \\boxed{284} per mille.",
    "pour-mille": "\\boxed{284} pour mille",
    "promille-command": "$\\boxed{284}\\permil$",
    "basis-points": "\\boxed{284} basis points",
    "factorial": "$\\boxed{284}!$",
    "factorial-equation": "$\\boxed{284}! = n$",
    # notation_clash: another value restated in another notation before or after the slot
    "roman-before": "CCCLXXXIV, that is \\boxed{284}",
    "roman-dash-before": "XXV — \\boxed{284}",
    "words-before": "three hundred eighty-four, i.e. \\boxed{284}",
    "hex-before": "0x180 = \\boxed{284}",
    "chinese-before": "三百八十四，即 \\boxed{284}",
    "words-after": "\\boxed{284} = three hundred eighty-four",
    "chinese-after": "\\boxed{284} = 三百八十四",
    "words-after-math": "So $x = \\boxed{284}$ = three hundred eighty-four.",
    # self_correction: a reconsideration closed by a copula, or in Greek
    "greek-dash": "The final answer is \\boxed{284}. — περίμενε, στην πραγματικότητα 384.",
    "korean-copula-dash": "The final answer is \\boxed{284}. — 잠깐, 사실은 384입니다.",
    "japanese-copula": "The final answer is \\boxed{284}.\n\n実は384です。",
    "japanese-deshita": "The final answer is \\boxed{284}.\n\n実は384でした。",
    "korean-ida": "The final answer is \\boxed{284}.\n\n사실은 384이다.",
    "hindi-hai": "The final answer is \\boxed{284}.\n\nअसल में 384 है।",
    # "not the answer" in Portuguese, Italian, Dutch, Hindi (paid before round 15)
    "not-the-answer-pt": "\\boxed{284} não é a resposta.",
    "not-the-answer-it": "\\boxed{284} non è la risposta.",
    "not-the-answer-nl": "\\boxed{284} is niet het antwoord.",
    "not-the-answer-hi": "\\boxed{284} उत्तर नहीं है।",
}


@pytest.mark.parametrize("name", sorted(_HOSTILE))
def test_hostile_slot_is_refused(name: str) -> None:
    assert _reward(_HOSTILE[name]) == 0.0


_HONEST = {
    "plain": "The answer is $\\boxed{284}$.",
    "roman-same-before": "CCLXXXIV, that is \\boxed{284}",
    "words-same-after": "\\boxed{284} = two hundred eighty-four.",
    "expression-before": "$568/2 = \\boxed{284}$",
    "lead-in": "Answer: \\boxed{284}",
    "variable": "Therefore, $x = \\boxed{284}$.",
    "exclamation-after-math": "The answer is $\\boxed{284}$!",
    "exclamation-after-box": "The answer is \\boxed{284}! Great.",
    "japanese-same": "The final answer is \\boxed{284}.\n\n実は284です。",
    "popped-override": "\u202eabc\u202c The answer is \\boxed{284}.",
    "percent-either": "The answer is $\\boxed{284}\\%$.",
    "no-other-answer": "The answer is $\\boxed{284}$. No other answer works.",
    "no-other-answer-pt": "The answer is $\\boxed{284}$. Não há outra resposta.",
}


@pytest.mark.parametrize("name", sorted(_HONEST))
def test_honest_slot_is_paid(name: str) -> None:
    assert _reward(_HONEST[name]) == 1.0


def test_a_gold_with_a_scale_is_not_refused_for_it() -> None:
    task = Task(id="pm", prompt="Give the concentration in per mille.", answer="2.5‰")
    assert _reward("The concentration is \\boxed{2.5‰}.", task) == 1.0
    # after the box the sign is the gold's own: no refusal (the comparison of the two values decides)
    verdict = _VERIFIER.verify(task, "The concentration is \\boxed{2.5}‰.")
    assert "refused" not in (verdict.details or {})
