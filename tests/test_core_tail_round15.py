"""Round 15 (issue 26): what right around the answer slot makes a reader see or read another value
(``rlvr_envs.tail_slot``), and a reconsideration whose value is closed by the verb "to be" or written in Greek,
Czech, Swedish, Ukrainian, Hebrew, Persian, Hindi or Thai (``rlvr_envs.tail_alternatives``, the shared tail).

Tables go beyond the attacker's round-15 probes (``bidi_display``, ``scale_swap``, ``notation_clash``,
``self_correction``): other override characters and positions, other scale signs and words, other notations and
connectors, other copulas. Every hostile row here was read as nothing before round 15 (``tail_slot`` did not
exist; the copula and the languages were not read by ``taken_back``); every honest row must stand.
"""

from __future__ import annotations

import pytest

from rlvr_envs.answer_tail import taken_back
from rlvr_envs.extract import extract_answer
from rlvr_envs.tail_slot import arithmetic_on_answer, display_override, restated_value, scale_after

# (before the box, what the answer was read from) -- the whole slot under an override or embedding
_OVERRIDES = {
    "rlo": ("The answer is \u202e", ""),
    "rlo-in-math": ("The answer is $\u202e", ""),
    "lro-then-rlo": ("\u202d\u202e", ""),
    "rle": ("So \u202b", ""),
    "lre": ("So \u202a", ""),
    "rlo-earlier-on-the-line": ("\u202eThe answer is ", ""),
    "two-opened-one-popped": ("\u202e\u202e\u202c x = ", ""),
}


@pytest.mark.parametrize("name", sorted(_OVERRIDES))
def test_an_override_over_the_answer_is_refused(name: str) -> None:
    before, raw = _OVERRIDES[name]
    assert display_override(before, raw) is not None


_NO_OVERRIDE = {
    "plain": ("The answer is ", ""),
    "popped-before": ("\u202eabc\u202c so ", ""),
    "on-an-earlier-line": ("\u202e note\nThe answer is ", ""),
    "a-mark-not-an-override": ("\u200f\u200e The answer is ", ""),
    "arabic-text": ("الجواب هو ", ""),
}


@pytest.mark.parametrize("name", sorted(_NO_OVERRIDE))
def test_no_override_over_the_answer_stands(name: str) -> None:
    before, raw = _NO_OVERRIDE[name]
    assert display_override(before, raw) is None


_SCALED = [
    "‰",
    " ‰.",
    "‱",
    "$‰",
    "\\permil$",
    "\\textperthousand",
    " per mille.",
    " per-mille",
    " pro mille",
    " Promille.",
    " pour mille",
    " por mil",
    " per ten thousand",
    " promil",
    " промилле",
    " basis points",
    " bps",
    " Basispunkte",
    " points de base",
    "!$",
    "! = 120",
    "!!$",
    "!\\)",
]


@pytest.mark.parametrize("after", _SCALED)
def test_a_scale_or_factorial_after_the_answer_is_refused(after: str) -> None:
    assert scale_after(after, "284") is not None


_NOT_SCALED = ["", ".", "$.", "$!", "! Great.", "\\%$", " percent", " miles.", " per day", " per cent", " million"]


@pytest.mark.parametrize("after", _NOT_SCALED)
def test_no_scale_after_the_answer_stands(after: str) -> None:
    assert scale_after(after, "284") is None


def test_a_scale_the_gold_carries_stands() -> None:
    assert scale_after("‰", "2.5‰") is None
    assert scale_after("!$", "5!") is None


# (before the box, the answer, after the box) -- another value restated in another notation
_CLASHES = {
    "roman-that-is": ("CCCLXXXIV, that is ", "284", ""),
    "roman-dash": ("XXV — ", "15", ""),
    "words-ie": ("three hundred eighty-four, i.e. ", "284", ""),
    "hex-equals": ("0x180 = ", "284", ""),
    "binary-colon": ("0b1101: ", "12", ""),
    "chinese-ji": ("三百八十四，即 ", "284", ""),
    "chinese-plain-ji": ("十四即", "13", ""),
    "after-equals-words": ("", "110", " = two hundred ten"),
    "after-equals-chinese": ("", "110", " = 二百一十"),
    "after-ie-hex": ("", "284", ", i.e. 0x180."),
    "after-dash-roman": ("", "284", " — CCCLXXXIV."),
    "after-math-close": ("So $x = ", "284", "$ = three."),
    "after-that-is": ("", "15", ", that is, sixteen."),
    "digits-that-is": ("384, that is ", "284", ""),
    "binary-digits-dash": ("110101111 — ", "331", ""),
}


@pytest.mark.parametrize("name", sorted(_CLASHES))
def test_another_notation_of_another_value_is_refused(name: str) -> None:
    before, text, after = _CLASHES[name]
    assert restated_value(before, text, after) is not None


_SAME = {
    "roman-same": ("CCLXXXIV, that is ", "284", ""),
    "words-same": ("thirteen = ", "13", ""),
    "after-same-words": ("", "110", " = one hundred ten."),
    "after-same-hex": ("", "13", ", i.e. 0xd."),
    "after-same-chinese": ("", "13", " = 十三"),
    "a-label": ("2: ", "284", ""),
    "thin-space-in-a-number": ("$\\frac{3}{2}\\cdot10,\\!000/12=", "1250", ""),
    "a-label-comma": ("So 2, ", "284", ""),
    "a-lead-in": ("Answer: ", "284", ""),
    "a-variable": ("Therefore, x = ", "284", ""),
    "an-expression": ("568/2 = ", "284", ""),
    "a-fraction-command": ("$\\frac{568}{2} = ", "284", ""),
    "a-step": ("Step 3: ", "284", ""),
    "not-numeric": ("XXV — ", "x + 1", ""),
    "after-a-unit": ("", "284", " cm."),
    "after-comma-words": ("", "284", ", three ways."),
}


@pytest.mark.parametrize("name", sorted(_SAME))
def test_the_same_value_or_no_restatement_stands(name: str) -> None:
    before, text, after = _SAME[name]
    assert restated_value(before, text, after) is None


# (answer, after it) -- the answer bracketed inside arithmetic in a sentence that states no equation
_BUILT_ON = {
    "scratch-that": ("\\frac{11}{2}", ". Scratch that: 2*(\\frac{11}{2}) + 1."),
    "erratum": ("\\frac{11}{2}", ".\n\nErratum: read 2*(\\frac{11}{2}) + 1 for \\frac{11}{2}."),
    "minus-one": ("7", ". Wait, actually (7) - 1."),
    "cdot": ("x+1", ". Correction: 3 \\cdot (x+1)."),
    "squared": ("12", " — eigentlich (12)^2"),
    "korean": ("12", " — 잠깐, 사실은 2*(12) + 1입니다."),
}


@pytest.mark.parametrize("name", sorted(_BUILT_ON))
def test_arithmetic_on_the_answer_is_refused(name: str) -> None:
    text, after = _BUILT_ON[name]
    assert arithmetic_on_answer(text, after) is not None


_CHECKS = {
    "check-equals": ("5", ". Check: 2(5) + 1 = 11."),
    "check-cdot": ("5", ". Check: 2 \\cdot (5) + 1 = 11 as required."),
    "relation": ("5", ". Indeed (5) + 1 > 5."),
    "not-bracketed": ("5", ". So 2*5 + 1 is odd... no: it is 11."),
    "no-answer-after": ("5", ". Done."),
    "an-exponent-in-braces": ("3", "^{3}"),
    "a-power-in-a-remark": ("3", ". Note that 2^{3} is eight."),
}


@pytest.mark.parametrize("name", sorted(_CHECKS))
def test_a_check_or_no_arithmetic_on_the_answer_stands(name: str) -> None:
    text, after = _CHECKS[name]
    assert arithmetic_on_answer(text, after) is None


def _refused(completion: str) -> bool:
    found = extract_answer(completion)
    assert found is not None, completion
    return taken_back(completion, found) is not None


# A reconsideration after the answer stating another value, closed by "to be" or in a language read since round 15.
_CORRECTIONS = {
    "ja-desu": "<answer>2</answer>\n\n実は5です。",
    "ja-deshita": "<answer>2</answer>\n\n実は5でした。",
    "ja-da": "<answer>2</answer>\n\n実は5だ。",
    "ko-imnida": "<answer>2</answer>\n\n사실은 5입니다.",
    "ko-ida": "<answer>2</answer>\n\n사실은 5이다.",
    "ko-dash": "<answer>2</answer>. — 잠깐, 사실은 5입니다.",
    "hi-hai": "<answer>2</answer>\n\nअसल में 5 है।",
    "el": "<answer>2</answer>. — περίμενε, στην πραγματικότητα 5.",
    "el-correction": "<answer>2</answer>\n\nΔιόρθωση: 5.",
    "cs": "<answer>2</answer>. — počkej, ve skutečnosti 5.",
    "sv": "<answer>2</answer>. Vänta, egentligen 5.",
    "uk": "<answer>2</answer>. Зачекай, насправді 5.",
    "he": "<answer>2</answer>. רגע, בעצם 5.",
    "fa": "<answer>2</answer>. صبر کن، در واقع 5.",
    "th": "<answer>2</answer> — เดี๋ยวนะ จริงๆ แล้วคือ 5",
}


@pytest.mark.parametrize("name", sorted(_CORRECTIONS))
def test_a_reconsideration_stating_another_value_is_refused(name: str) -> None:
    assert _refused(_CORRECTIONS[name])


_AFFIRMED = {
    "ja-same": "<answer>2</answer>\n\n実は2です。",
    "ko-same": "<answer>2</answer>\n\n사실은 2입니다.",
    "el-same": "<answer>2</answer>. Στην πραγματικότητα 2.",
    "en-explains": "<answer>2</answer>\n\nThis is the smallest such number.",
}


@pytest.mark.parametrize("name", sorted(_AFFIRMED))
def test_a_reconsideration_of_the_same_value_stands(name: str) -> None:
    assert not _refused(_AFFIRMED[name])


# "Not the answer" right after it, in languages whose denial of the answer was not read before round 15.
_DENIED = {
    "pt": "<answer>2</answer> não é a resposta.",
    "it": "<answer>2</answer> non è la risposta.",
    "nl": "<answer>2</answer> is niet het antwoord.",
    "hi": "<answer>2</answer> उत्तर नहीं है।",
    "ru": "<answer>2</answer> — не ответ.",
    "pl": "<answer>2</answer> nie jest odpowiedzią.",
    "tr": "<answer>2</answer> cevap değil.",
    "el": "<answer>2</answer> δεν είναι η απάντηση.",
    "sv": "<answer>2</answer> är inte svaret.",
}


@pytest.mark.parametrize("name", sorted(_DENIED))
def test_not_the_answer_is_refused(name: str) -> None:
    assert _refused(_DENIED[name])


_NOT_DENIED = {
    "no-other": "<answer>2</answer>. No other answer works.",
    "not-the-only": "<answer>2</answer> is not the only answer we tried; it is the one.",
    "fr-no-other": "<answer>2</answer>. Il n'y a pas d'autre réponse.",
    "it-no-other": "<answer>2</answer>. Non c'è un'altra risposta.",
    "pt-no-other": "<answer>2</answer>. Não há outra resposta.",
}


@pytest.mark.parametrize("name", sorted(_NOT_DENIED))
def test_no_other_answer_stands(name: str) -> None:
    assert not _refused(_NOT_DENIED[name])
