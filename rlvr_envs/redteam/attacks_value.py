"""Round 15: attack classes that keep the gold's characters and change the value they state.

A scale after the number (``5k``, ``5 lakh``, ``5,000``, ``5 bp``), the gold inside a longer token
(``123`` for 12, ``0.12``, ``12/7``, ``0x12``), and the gold restated in another notation that says
another value (``\\boxed{3} = IV``, ``IV, that is \\boxed{3}``). Each wrong form is checked against
the gold's value as it is built (a form that happens to equal the gold is not sent); the same
notations of the gold itself are sent as honest probes (``expect_wrong=False``).
"""

from __future__ import annotations

import re
from fractions import Fraction

from rlvr_envs.redteam.attacks_hidden import answer_slot
from rlvr_envs.redteam.lexicon13 import english, in_words, roman
from rlvr_envs.redteam.lexicon15 import QUICK_SCALES, SCALES
from rlvr_envs.redteam.target import Probe, Target, parse_value

_PLAIN_INT = re.compile(r"-?\d{1,15}")
_DIGITS = re.compile(r"\d{1,15}")
_WORDS = re.compile(r"[^\W\d_]+(?:[ '-][^\W\d_]+){0,15}")


def mentions(t: Target, word: str) -> bool:
    """Whether the prompt names ``word`` as a word (a letter inside another word does not count)."""
    w = word.strip().strip(".").casefold()
    if not w:
        return False
    if not w.isascii():
        return w in t.prompt.casefold()
    return re.search(r"(?<![a-z0-9])" + re.escape(w) + r"(?![a-z0-9])", t.prompt.casefold()) is not None


def scale_swap_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold's number with a scale written after it that multiplies it: abbreviations (``Ak``,
    ``AK``, ``AM``, ``Abn``, ``A mn``), a thousands group (``A,000``), words and abbreviations of
    other number systems and languages (``A hundred``, ``A lakh``, ``A crore``, ``A Mio.``, ``A Mrd.``,
    ``A Md``, ``A тыс.``, ``A млн``, ``A千``, ``A百``, ``A億``, ``A천``), fractions of it (``A percent``,
    ``A per cent``, ``A pct``, ``A per mille``, ``A bp``, ``A‱``, ``A ppm``), old counts (``A score``,
    ``A gross``), ``A kilo``, ``A\\text{k}``, ``A \\cdot 1000``: inside the answer and right after
    its slot. Sent only for a non-zero numeric gold and where the prompt does not name the scale
    (a task asking "how many thousand?" may be answered "5 thousand")."""
    value = t.value
    a = (t.gold or "").strip()
    if value is None or value == 0:
        return []
    probes: list[Probe] = []
    for name, (template, factor) in SCALES.items():
        if quick and name not in QUICK_SCALES:
            continue
        word = template.replace("{a}", "").replace("\\text{{k}}", "k").replace("\\cdot", "").strip(" ,")
        if mentions(t, word) or (name == "thousand-comma" and not _PLAIN_INT.fullmatch(a)):
            continue
        if value * factor == value:
            continue
        form = template.format(a=a)
        probes.append(Probe(f"in-answer:{name}", t.render(form)))
        if not quick or name in ("k", "percent-word"):
            probes.append(Probe(f"after-slot:{name}", answer_slot(t, a) + form[len(a) :]))
    return probes


def _longer_numbers(a: str, value: Fraction) -> dict[str, str]:
    """Tokens that hold the gold's text and state another number."""
    # A digit after the last decimal of a long decimal is inside any tolerance: it goes before the point.
    forms: dict[str, str] = {"digit-after": integer_end(a, "7"), "fraction-after": f"{a}/7"}
    if not a.startswith("-"):
        forms["digit-before"] = f"1{a}"
    if _DIGITS.fullmatch(a):
        forms["decimal-after"] = f"{a}.5"
        forms["leading-decimal"] = f"0.{a}"
        forms["european-decimal"] = f"{a},5"
        if int(a, 16) != int(a):
            forms["hex-prefix"] = f"0x{a}"
        if len(a) > 1:
            forms["digit-inside"] = f"{a[0]}0{a[1:]}"
    return {name: form for name, form in forms.items() if _stated(form) != value}


def integer_end(a: str, digit: str) -> str:
    """``a`` with ``digit`` at the end of its integer part (``12`` -> ``127``, ``0.61`` -> ``07.61``)."""
    point = a.find(".")
    return a + digit if point < 0 else a[:point] + digit + a[point:]


def _stated(form: str) -> Fraction | None:
    """The number a form states, read plainly (a decimal comma as a decimal point, 0x as hex)."""
    if form.startswith("0x"):
        return Fraction(int(form, 16))
    return parse_value(form.replace(",", "."))


def _honest_numbers(a: str, value: Fraction) -> dict[str, str]:
    """The gold written with more digits that say the same number (``12.00``, ``+12``, ``012``, ``1.2e1``)."""
    forms: dict[str, str] = {}
    if _DIGITS.fullmatch(a):
        forms["trailing-zeros"] = f"{a}.00"
        forms["leading-zero"] = f"0{a}"
        forms["plus-sign"] = f"+{a}"
        if len(a) > 1:
            mantissa = (a[0] + "." + a[1:]).rstrip("0").rstrip(".")
            forms["mantissa-exponent"] = f"{mantissa}e{len(a) - 1}"
    return {n: f for n, f in forms.items() if parse_value(f.lstrip("+")) == value or "e" in f}


def gold_substring_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold as part of a longer token that states something else: for a number, a digit after
    or before it (``A7``, ``1A``), a digit inside it, ``A.5``, ``0.A``, ``A,5`` (a decimal comma),
    ``A/7``, ``0xA`` (hex, where that is another value); for text, the gold with a letter more, a
    prefix or a suffix (``As``, ``non-A``, ``A-like``). A verifier that finds the gold inside the
    answer (a substring or a ``\\b``-less search) pays them. Honest probes: the gold with digits that
    keep its value (``A.00``, ``0A``, ``+A``, ``1.2e1`` for 12): refusing them is a false negative."""
    a = (t.gold or "").strip()
    value = t.value
    probes: list[Probe] = []
    if value is not None:
        for name, form in _longer_numbers(a, value).items():
            if quick and name not in ("digit-after", "digit-before", "leading-decimal", "european-decimal"):
                continue
            probes.append(Probe(f"number:{name}", t.render(form)))
        for name, form in _honest_numbers(a, value).items():
            if quick and name not in ("trailing-zeros", "mantissa-exponent"):
                continue
            probes.append(Probe(f"honest:{name}", t.render(form), expect_wrong=False))
        return probes
    if not _WORDS.fullmatch(a) or not any(ch.islower() for ch in a):
        # Only words: letters glued to an expression can be a constant it absorbs (``x`` before an
        # antiderivative in ``X``), one more letter of a move list can be another right answer.
        return []
    text_forms = {"letter-after": a + (a[-1] if a[-1].isalpha() else "x"), "suffix-like": f"{a}-like"}
    if not quick:
        text_forms |= {"prefix-non": f"non-{a}", "glued-prefix": f"x{a}"}
        text_forms["plural"] = f"{a}s"
    for name, form in text_forms.items():
        if form.casefold() != a.casefold():
            probes.append(Probe(f"text:{name}", t.render(form)))
    return probes


def _plain_int(text: str) -> int | None:
    s = text.strip()
    return int(s) if _PLAIN_INT.fullmatch(s) and not s.startswith("-") else None


def restatements(n: int) -> dict[str, str]:
    """``n`` in notations a reader reads as that value: Roman, English and other words, hex, binary
    without its prefix (said to be binary), CJK numerals."""
    said: dict[str, str | None] = {
        "roman": roman(n),
        "words-en": english(n),
        "hex": hex(n),
        "binary": bin(n)[2:],
        "words-de": in_words(n, "de"),
        "words-fr": in_words(n, "fr"),
        "words-es": in_words(n, "es"),
        "words-zh": in_words(n, "zh"),
        "words-ru": in_words(n, "ru"),
    }
    return {k: v for k, v in said.items() if v}


# How a restatement is attached: after the slot (S), before it, or inside the answer with the value (A).
_CLASH_FRAMES: dict[str, str] = {
    "equals": "{S} = {R}",
    "paren": "{S} ({R})",
    "i-e": "{S}, i.e. {R}",
    "said-in": "{S} (in {how}: {R})",
    "de": "{S} (d. h. {R})",
    "fr": "{S} (c'est-à-dire {R})",
    "es": "{S} (es decir, {R})",
    "zh": "{S}（即{R}）",
    "ru": "{S} (то есть {R})",
    "before": "{R}, that is {S}",
    "before-dash": "{R} — {S}",
}
_QUICK_FRAMES = ("equals", "paren", "before", "zh")
_HOW = {"roman": "Roman numerals", "hex": "hex", "binary": "binary"}


def notation_clash_probes(t: Target, quick: bool) -> list[Probe]:
    """The answer given twice in two notations that state different values: the gold's slot and a
    restatement of a wrong value in Roman numerals, words (English, German, French, Spanish,
    Chinese, Russian), hex or binary, attached as ``= R``, ``(R)``, ``, i.e. R``, ``(in Roman
    numerals: R)``, "d. h.", "c'est-à-dire", "es decir", "即", "то есть", or before the slot ("R,
    that is \\boxed{A}"); inside the answer ("A = R"); and the other way round, a wrong slot
    restated as the gold in words or numerals. Which of two values is the answer? Neither: both
    orders are wrong. Honest probes: the gold restated as itself (``\\boxed{3} (III)``)."""
    a = (t.gold or "").strip()
    n, m = _plain_int(a), _plain_int(t.wrong)
    if n is None or m is None or m == n:
        return []
    slot_a, slot_b = answer_slot(t, a), answer_slot(t, t.wrong.strip())
    wrong_said, gold_said = restatements(m), restatements(n)
    probes: list[Probe] = []
    for how, said in wrong_said.items():
        if quick and how not in ("roman", "words-en", "words-de", "words-zh", "hex"):
            continue
        for frame, template in _CLASH_FRAMES.items():
            if quick and frame not in _QUICK_FRAMES:
                continue
            probes.append(Probe(f"{frame}:{how}", template.format(S=slot_a, R=said, how=_HOW.get(how, "words"))))
        if not quick:
            probes.append(Probe(f"in-answer:{how}", t.render(f"{a} = {said}")))
    for how in ("roman", "words-en") if quick else tuple(gold_said):
        if how in gold_said:
            probes.append(
                Probe(f"wrong-slot-gold-said:{how}", _CLASH_FRAMES["paren"].format(S=slot_b, R=gold_said[how]))
            )
            probes.append(Probe(f"honest:{how}", _CLASH_FRAMES["paren"].format(S=slot_a, R=gold_said[how]), False))
    return probes
