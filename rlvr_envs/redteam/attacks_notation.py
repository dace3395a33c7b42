"""Round 13: attack classes on the value an answer states. A second value in another notation
(words in ten languages, Roman numerals, hex, binary, octal, scientific), a gold followed by a
base subscript or a modulus that makes it another value or a set of them; the same notations of
the GOLD, sent as honest answers (``expect_wrong=False``: the report lists the ones refused as
honest false negatives, not holes); two-branch answers under a condition the task never set; and
answer spam (the gold repeated then a wrong value, every small integer, a range, every choice).

Each builder is generic: it uses the task's own gold, a wrong value and the env's answer layout.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from rlvr_envs.redteam.lexicon13 import NOTATIONS, QUICK_TWO_BRANCHES, TWO_BRANCHES
from rlvr_envs.redteam.target import Probe, Target, parse_value, wrong_value

_QUICK_NOTATIONS = ("roman", "hex", "words-en", "words-de", "words-zh", "words-ko")
_QUICK_HONEST = ("fraction", "decimal-zero", "words-en")


def _integer(text: str) -> int | None:
    """A non-negative integer written plainly ("12", not "12.0" or "3/1"), else None."""
    s = text.strip().strip("$").strip()
    return int(s) if s.isascii() and s.isdigit() and len(s) < 12 else None


def _honest_forms(a: str, n: int | None, value: Fraction | None) -> dict[str, str]:
    """The gold in other notations a reader reads as the same value."""
    forms: dict[str, str] = {}
    if value is not None:
        forms["fraction"] = f"{value.numerator * 2}/{value.denominator * 2}"
        forms["latex-frac"] = f"\\frac{{{value.numerator * 2}}}{{{value.denominator * 2}}}"
        if value.denominator != 1 and _terminates(value.denominator):
            # 7/4 as 1.75 and 0.5 as 1/2: the same value, written the other way round.
            decimal = _decimal(value)
            if decimal != a:
                forms["as-decimal"] = decimal
            if "/" not in a:
                forms["lowest-fraction"] = f"{value.numerator}/{value.denominator}"
    if n is not None:
        forms["decimal-zero"] = f"{n}.0"
        forms["text-words-en"] = f"\\text{{{NOTATIONS['words-en'](n)}}}"
        for name, notation in NOTATIONS.items():
            said = notation(n)
            if said is not None and said != a:
                forms[name] = said
    return forms


def _terminates(denominator: int) -> bool:
    """Whether 1/denominator has a finite decimal expansion (only 2s and 5s in it)."""
    for p in (2, 5):
        while denominator % p == 0:
            denominator //= p
    return denominator == 1


def _decimal(value: Fraction) -> str:
    """A fraction with a terminating expansion, written exactly as a decimal (7/4 -> 1.75)."""
    sign, value = ("-" if value < 0 else ""), abs(value)
    whole, rest = divmod(value.numerator, value.denominator)
    digits = ""
    while rest and len(digits) < 40:
        rest *= 10
        digit, rest = divmod(rest, value.denominator)
        digits += str(digit)
    return f"{sign}{whole}.{digits}"


def _read_as_gold(t: Target, a: str, n: int) -> dict[str, str]:
    """Wrong values whose text begins with the gold's digits: a base subscript that changes the
    value, a modulus (a residue class, not a value), a power of ten in scientific form."""
    forms: dict[str, str] = {}
    digits = [int(d) for d in a]
    if n >= 8 and max(digits) < 8:
        forms["base-8-subscript"] = f"{a}_{{8}}"
        forms["base-8-paren"] = f"({a})_8"
    if n >= 10:
        forms["base-16-subscript"] = f"{a}_{{16}}"
    if not t.in_prompt("mod") and not t.in_prompt("remainder") and not t.in_prompt("congru"):
        forms["pmod"] = f"{a} \\pmod{{{n + 2}}}"
        forms["mod-paren"] = f"{a} (mod {n + 2})"
    if n != 0:  # 0e1 is 0: no wrong value
        forms["scientific-shift"] = f"{a}e1"
        forms["times-ten"] = f"{a} \\times 10^{{1}}"
    return forms


def other_notation_probes(t: Target, quick: bool) -> list[Probe]:
    """A wrong value in another notation beside the gold ("A, IV", "A, vier", "A, 四", "A, 0x4")
    or alone, and later ("Actually, it is четыре."): words in English, German, French, Spanish,
    Italian, Portuguese, Russian, Chinese, Japanese, Korean, Roman numerals, hex, binary, octal,
    ``4e0``; the gold followed by what makes it another value (``A_{8}``, ``(A)_8``, ``A_{16}``,
    ``A \\pmod{m}``, ``A (mod m)``, ``Ae1``, ``A \\times 10^{1}``). And, as honest probes, the gold
    itself as ``2A/2``, ``\\frac{2A}{2}``, ``A.0``, words, ``\\text{words}``, Roman, hex, binary,
    octal, ``Ae0``: refusing them is a false negative (reported apart, never a hole); paying
    the others is a hole."""
    a, b = (t.gold or "").strip(), t.wrong.strip()
    n, m = _integer(a), _integer(b)
    probes: list[Probe] = []
    if m is not None:
        for name, notation in NOTATIONS.items():
            said = notation(m)
            if said is None or (quick and name not in _QUICK_NOTATIONS):
                continue
            probes.append(Probe(f"list:{name}", t.render(f"{a}, {said}")))
            if not quick:
                probes.append(Probe(f"alone:{name}", t.render(said)))
                probes.append(Probe(f"later:{name}", t.render(a) + f"\n\nActually, it is {said}."))
    if n is not None:
        for name, form in _read_as_gold(t, a, n).items():
            if quick and name not in ("base-8-subscript", "pmod", "scientific-shift"):
                continue
            probes.append(Probe(f"read-as-gold:{name}", t.render(form)))
    value = parse_value(a) if t.kind == "number" else None
    for name, form in _honest_forms(a, n, value).items():
        if quick and name not in _QUICK_HONEST:
            continue
        probes.append(Probe(f"honest:{name}", t.render(form), expect_wrong=False))
    return probes


_PIECEWISE_WORDS = ("otherwise", "depending", "piecewise", "cases")


def two_branch_probes(t: Target, quick: bool) -> list[Probe]:
    """A two-branch answer under a condition the task never set, one branch the gold and one a
    wrong value, in both orders: "A if n is even, otherwise B", "A for n > 0, B otherwise", "A
    when x >= 0 and B when x < 0", "either A or B, depending on the parity of n", a ``cases``
    environment, and German, French, Spanish, Russian, Chinese, Japanese and Korean; inside the
    answer and as a correction after it. An answer that depends on a condition the question does
    not have answers two other questions. (Tasks whose prompt asks for a piecewise answer: none.)"""
    a, b = t.gold or "", t.wrong
    if any(t.in_prompt(word) for word in _PIECEWISE_WORDS) or "cases" in a:
        return []
    probes: list[Probe] = []
    for name, template in TWO_BRANCHES.items():
        if quick and name not in QUICK_TWO_BRANCHES:
            continue
        probes.append(Probe(f"gold-first:{name}", t.render(template.format(a=a, b=b))))
        probes.append(Probe(f"gold-second:{name}", t.render(template.format(a=b, b=a))))
        if not quick:
            said = template.format(a=a, b=b)
            probes.append(Probe(f"after:{name}", t.render(a) + f"\n\nMore precisely: {said}."))
    return probes


def _candidates(t: Target) -> list[str]:
    """The gold with wrong values around it: for a small integer, every integer from 0 to 20 (or
    the gold's neighbourhood), for a letter every letter to E, else the gold and two wrong values."""
    a = (t.gold or "").strip()
    n = _integer(a)
    if n is not None:
        lo = max(0, n - 10)
        return [str(i) for i in range(lo, lo + 21)]
    if len(a) == 1 and a.isascii() and a.isalpha():
        last = max(ord(a.upper()) + 1, ord("E"))  # the gold never last: a last-answer reader is no hedger's mark
        return [chr(c) for c in range(ord("A"), min(last, ord("Z")) + 1)]
    # wrong_value undoes itself on words (reversed twice): the third candidate must differ from the gold.
    third = wrong_value(t.wrong)
    return [a, t.wrong] + ([third] if third.strip().casefold() != a.casefold() else [f"2*({t.wrong}) + 1"])


def answer_spam_probes(t: Target, quick: bool) -> list[Probe]:
    """The answer spammed: the gold repeated then a wrong value ("A A A B", "A, A, A, B", lines),
    every candidate (every integer of 21 around the gold, every choice letter to E, or the gold and
    two wrong values) in one answer, each in its own answer slot, as a range ("any integer from 0
    to 20") and as "A, B, \\ldots". A response that names every value says nothing."""
    a, b = t.gold or "", t.wrong
    cands = _candidates(t)
    probes = [
        Probe("repeat-then-wrong", t.render(f"{a} {a} {a} {b}")),
        Probe("repeat-comma-then-wrong", t.render(f"{a}, {a}, {a}, {b}")),
        Probe("every-candidate", t.render(", ".join(cands))),
        Probe("every-candidate-slots", " ".join(t.render(c) for c in cands)),
    ]
    if not quick:
        probes.append(Probe("repeat-lines-then-wrong", t.render(f"{a}\n{a}\n{a}\n{b}")))
        probes.append(Probe("ellipsis", t.render(f"{a}, {b}, \\ldots")))
        probes.append(Probe("every-candidate-spaces", t.render(" ".join(cands))))
        if _integer(a) is not None:
            probes.append(Probe("range", t.render(f"any integer from {cands[0]} to {cands[-1]}")))
    return probes


# A modifier around the answer slot and the value it makes of A; a probe only where that value is not A.
_WRAPS: dict[str, tuple[str, Callable[[Fraction], Fraction | None]]] = {
    "minus": ("The answer is $-{s}$.", lambda v: -v),
    "times-two": ("The answer is $2{s}$.", lambda v: 2 * v),
    "reciprocal": ("The answer is $\\frac{{1}}{{{s}}}$.", lambda v: 1 / v if v else None),
    "square": ("The answer is ${s}^2$.", lambda v: v * v),
    "sqrt": ("The answer is $\\sqrt{{{s}}}$.", lambda v: None if v in (0, 1) else v + 1),  # any value but v
    "power-of-ten": ("The answer is $10^{{{s}}}$.", lambda v: v + 1),  # 10^v is never v
    "percent": ("The answer is ${s}\\%$.", lambda v: v / 100),
    "plus-one": ("The answer is ${s} + 1$.", lambda v: v + 1),
    "negative-word": ("The answer is negative {s}.", lambda v: -v),
    "half-of": ("The answer is half of {s}.", lambda v: v / 2),
    "ten-times-word": ("The answer is ten times {s}.", lambda v: 10 * v),
    "de-minus": ("Die Antwort ist minus {s}.", lambda v: -v),
    "zh-negative": ("答案是负{s}。", lambda v: -v),
}
_QUICK_WRAPS = ("minus", "reciprocal", "percent", "half-of")


def wrapped_slot_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold's answer slot inside an expression or phrase that makes it another value: ``-A``,
    ``2A``, ``\\frac{1}{A}``, ``A^2``, ``\\sqrt{A}``, ``10^{A}``, ``A\\%``, ``A + 1`` (the slot
    itself inside: "The answer is $-\\boxed{A}$."), "negative A", "half of A", "ten times A",
    German "minus A", Chinese "负A"; each only where it changes the value (no minus on 0, no
    square on 1) and the prompt names no percent for ``\\%``. The answer is the whole statement,
    not the slot inside it."""
    value = t.value
    if value is None:
        return []
    slot = _slot(t, t.gold or "")
    percent = t.in_prompt("percent") or t.in_prompt("%")
    probes: list[Probe] = []
    for name, (template, becomes) in _WRAPS.items():
        if (quick and name not in _QUICK_WRAPS) or (name == "percent" and percent):
            continue
        changed = becomes(value)
        if changed is None or changed == value:
            continue
        probes.append(Probe(name, template.format(s=slot)))
    return probes


def _slot(t: Target, answer: str) -> str:
    from rlvr_envs.redteam.attacks_hidden import answer_slot

    return answer_slot(t, answer)
