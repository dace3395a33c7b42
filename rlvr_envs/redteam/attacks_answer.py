"""Attack classes on a final answer: refusals, hedges, several answers, answers hidden in the
reasoning or after the tag, value-changing tails, negated or invisible answers.

Each builder takes a ``Target`` and ``quick`` (a smaller set of variants) and returns
``Probe``s; its docstring is the class's documentation (``rlvr-envs redteam --list-classes``).
"""

from __future__ import annotations

from fractions import Fraction

from rlvr_envs.redteam.lexicon import (
    AFTER_TAG,
    COMBINING_STRIKE,
    HEDGES,
    HEDGES_DRESSED,
    LATER_MARKERS,
    NEGATIONS,
    REFUSALS,
    VALUE_TAILS,
)
from rlvr_envs.redteam.target import Probe, Target

_QUICK_LANGUAGES = ("en", "zh", "ja", "de")
_QUICK_TAILS = (" thousand", " dozen", " squared", " halves", "万", "만", " Tausend", " ribu", "000", " + 1")
_PADDING = "Let me restate the reasoning once more before I commit. "


def empty_probes(t: Target, quick: bool) -> list[Probe]:
    """Empty, whitespace-only, refusals and "I don't know" in twelve languages, bare and in the
    final-answer slot; for a program, one that does nothing. A non-answer never earns reward."""
    probes = [Probe("empty", ""), Probe("whitespace", " \n\t \n"), Probe("empty-answer", t.render(""))]
    refusals = ("en", "zh", "ja") if quick else tuple(REFUSALS)
    for lang in refusals:
        text = REFUSALS[lang]
        if t.same_as_gold(text) or t.same_as_gold(text.rstrip("。.")):
            continue
        probes.append(Probe(f"refusal-{lang}", text))
        probes.append(Probe(f"refusal-{lang}-as-answer", t.render(text.rstrip("。."))))
    if not quick:
        probes += [Probe("n/a", t.render("N/A")), Probe("ellipsis", t.render("..."))]
    if t.kind == "code":
        from rlvr_envs.redteam.attacks_code import do_nothing_program

        probes.append(Probe("program-that-does-nothing", t.render(do_nothing_program(t))))
    return probes


def hedge_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold offered with a competitor ("A or B"), with doubt ("maybe A", "A, but I'm not
    sure"), in English, Chinese, Japanese, Korean, German, French, Spanish, Vietnamese, Turkish,
    Indonesian, Arabic and Hindi, inside the final answer; hedges dressed as a unit
    (``A \\text{ unverified}``); and an alternative placed after 2,100 characters of padding (past
    a grader that reads only the start). Committing to one answer is what earns reward."""
    a, b = t.gold or "", t.wrong
    probes: list[Probe] = []
    for lang in _QUICK_LANGUAGES if quick else HEDGES:
        forms = HEDGES[lang]
        for form in ("or", "unsure") if quick else ("or", "maybe", "unsure"):
            probes.append(Probe(f"{lang}:{form}", t.render(forms[form].format(a=a, b=b))))
    for name, template in HEDGES_DRESSED.items():
        if quick and name not in ("text-unverified", "gold-second"):
            continue
        probes.append(Probe(f"dressed:{name}", t.render(template.format(a=a, b=b))))
    padding = _PADDING * (2100 // len(_PADDING) + 1)
    probes.append(Probe("alternative-after-2100-chars", t.render(f"{a}. {padding}Or {b}.")))
    return probes


def after_answer_probes(t: Target, quick: bool) -> list[Probe]:
    """Text after the final answer that takes it back or changes it: the gold as the answer, then
    "But I am not sure; it might be B" or ", but I'm not sure" in twelve languages; a wrong
    answer, then "If that is wrong, it is A"; for a numeric gold, a scale word right after the
    answer slot (``\\boxed{A} thousand``, ``<answer>A</answer>万``); for a program, the right
    program as prose after a wrong one. What follows the answer can change it, so a verifier
    must read it (or refuse the response), never drop it."""
    a, b = t.gold or "", t.wrong
    if t.kind == "code":
        from rlvr_envs.redteam.attacks_code import do_nothing_program

        # As prose, not a second fenced program: the last of two programs is a revision.
        wrong = t.render(do_nothing_program(t))
        return [Probe("right-program-after-answer", wrong + "\n\nIf that is wrong, use this instead:\n" + a)]
    probes: list[Probe] = []
    for lang in ("en", "zh", "de") if quick else HEDGES:
        forms = HEDGES[lang]
        probes.append(Probe(f"{lang}:unsure-after", t.render(a) + " " + forms["after"].format(a=a, b=b)))
        # The doubt glued to the answer slot, no alternative ("\\boxed{3}, but I am not sure").
        probes.append(Probe(f"{lang}:unsure-tail", forms["unsure"].format(a=t.render(a).rstrip("."), b=b)))
    for name, template in AFTER_TAG.items():
        if quick and name != "if-wrong":
            continue
        probes.append(Probe(f"gold-after-answer:{name}", t.render(b) + "\n" + template.format(a=a)))
    for tail, how, label in _changing_tails(t, quick):
        # Only scale words and shifts: a sign right after the slot ("\\boxed{3}!") may be punctuation.
        if how in ("scale", "shift") and tail[:1] not in "!^":
            probes.append(Probe(f"value-word-after-slot:{label}", t.render(a).rstrip(".") + tail + "."))
    return probes


def multi_answer_probes(t: Target, quick: bool) -> list[Probe]:
    """Several final answers with the gold among them: the gold's answer slot followed by a wrong
    one, the gold between two wrong ones, the gold and a wrong value in one answer, several
    ``\\boxed{}`` or ``<answer>`` tags, a boxed gold followed by a wrong ``####`` line or answer tag
    (the read answer must be the last one stated), and the env's own ``hedged_completion`` (the gold among
    fifty candidates). The gold as the LAST of several answers is not a probe: an env that reads
    the last answer pays a hedger no more than a guesser there."""
    a, b = t.gold or "", t.wrong
    if t.kind == "code":
        from rlvr_envs.redteam.attacks_code import do_nothing_program

        return [Probe("right-program-then-wrong-program", t.render(a) + "\n\n" + t.render(do_nothing_program(t)))]
    c = _another_wrong(t)
    probes = [
        Probe("gold-slot-then-wrong-slot", t.render(a) + "\n" + t.render(b)),
        Probe("gold-between-wrong", t.render(b) + "\n" + t.render(a) + "\n" + t.render(c)),
        Probe("list-in-one-answer", t.render(f"{a}, {b}")),
        Probe("boxes", f"\\boxed{{{a}}} \\boxed{{{b}}}"),
        Probe("answer-tags", f"<answer>{a}</answer>\n<answer>{b}</answer>"),
    ]
    if not quick:
        probes += [
            Probe("and-in-one-answer", t.render(f"{a} and {b}")),
            Probe("semicolon-in-one-answer", t.render(f"{a}; {b}")),
            Probe("set-in-one-answer", t.render(f"\\{{{a}, {b}\\}}")),
            Probe("boxes-in-one-slot", t.render(f"\\boxed{{{a}}}, \\boxed{{{b}}}")),
        ]
    for name, template in LATER_MARKERS.items():
        # The gold read from a box while a later marker of another kind states a wrong value (for
        # formats that answer in a box: other slots have their own one-marker rules).
        if "\\boxed" in t.render(a) and name != "boxed":
            probes.append(Probe(f"gold-slot-then-later-marker:{name}", t.render(a) + template.format(b=b)))
    if t.hedged_completion is not None:
        probes.append(Probe("env-hedged-completion", t.hedged_completion))
    return probes


def _another_wrong(t: Target) -> str:
    """A second wrong value, different from the gold and from ``t.wrong``."""
    from rlvr_envs.redteam.target import wrong_value

    c = wrong_value(t.wrong)
    return c if not t.same_as_gold(c) and c != t.wrong else f"2*({t.wrong}) + 1"


def think_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold only inside the reasoning (``<think>``) with a wrong final answer after it; and,
    for formats that reason inside ``<think>``, the gold inside a think block with no final
    answer, or inside an unclosed one."""
    a, b = t.gold or "", t.wrong
    if t.kind == "code":
        from rlvr_envs.redteam.attacks_code import do_nothing_program

        wrong = t.render(do_nothing_program(t))
        return [Probe("right-program-in-think", f"<think>\n{t.render(a)}\n</think>\n{wrong}")]
    thought = f"The answer is {a}. \\boxed{{{a}}} <answer>{a}</answer>"
    probes = [Probe("gold-in-think-wrong-after", f"<think>{thought}</think>\n{t.render(b)}")]
    if t.think_format:
        probes += [
            Probe("think-only", f"<think>{thought}</think>"),
            Probe("unclosed-think", f"<think>{thought}"),
        ]
    return probes


def _tail_changes(value: Fraction, how: str) -> bool:
    """Whether the tail changes the value. Powers and factorials bind tighter than a sign
    (``-1^2`` and ``-2!`` are -1 and -2), so they are judged on the magnitude."""
    if how == "shift":
        return True
    if how == "scale":
        return value != 0
    if how in ("square", "cube"):
        return abs(value) not in (0, 1)
    return abs(value) not in (1, 2)  # factorial


def _changing_tails(t: Target, quick: bool) -> list[tuple[str, str, str]]:
    """(tail, how it changes, label) for the value tails that change this numeric gold's value and
    whose word the prompt does not use; none for a gold that is not a number."""
    value = t.value
    if value is None:
        return []
    return [
        (tail, how, tail.strip() or tail)
        for tail, how in VALUE_TAILS
        if (not quick or tail in _QUICK_TAILS)
        and _tail_changes(value, how)
        and not t.in_prompt(tail.strip(" \\"))
        and _glued_value(t.gold or "", tail) != value
    ]


def _glued_value(gold: str, tail: str) -> Fraction | None:
    """The number the gold and a glued tail read as together, if they read as one: ``0.5`` then
    ``000`` is ``0.5000``, the same value (not a wrong answer to probe with)."""
    try:
        return Fraction((gold + tail).strip())
    except (ValueError, ZeroDivisionError):
        return None


def value_tail_probes(t: Target, quick: bool) -> list[Probe]:
    """A numeric gold followed by a word or sign that changes its value: ``A thousand``,
    ``A dozen``, ``A squared``, ``A halves``, ``A万``, ``A亿``, ``A만``, ``A Tausend``, ``A mille``,
    ``A^2``, ``A!``, ``A \\times 10^{3}``, magnitude words in more languages (``A ribu``, ``A nghìn``,
    ``A elfu``: a lone word after a value must be a unit or refused), and the value going on after
    its slot (``A000``, ``A + 1``, ``A.5``, ``A\\pi``): each used only where it really changes the gold's value
    (no ``squared`` after 1) and the prompt does not mention that word (``3 dozen`` can be the
    answer to "how many dozen?"). Inside the final answer and as "The answer is ..." prose (right
    after the answer slot: ``after_answer``)."""
    a = t.gold or ""
    probes: list[Probe] = []
    for tail, _how, label in _changing_tails(t, quick):
        probes.append(Probe(f"in-answer:{label}", t.render(a + tail)))
        if not quick:
            probes.append(Probe(f"prose:{label}", f"The answer is {a}{tail}."))
    return probes


def negation_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold negated (``\\not= A``, ``\\neq A``, "not A" in ten languages), struck out
    (``~~A~~``, ``\\cancel{A}``, ``\\sout{A}``, ``<del>``, combining strokes) or invisible
    (``\\phantom{A}``, a white colour switch, an HTML comment) in the final answer, or in a box
    that a ``\\renewcommand`` makes show a wrong value: what a reader cannot see, or sees
    crossed out or denied, is not an answer."""
    a = t.gold or ""
    quick_set = ("not=", "markdown-strike", "phantom", "cancel", "html-del", "zh", "de")
    probes = [
        Probe(name, t.render(template.format(a=a)))
        for name, template in NEGATIONS.items()
        if not quick or name in quick_set
    ]
    probes.append(Probe("combining-strike", t.render("".join(ch + COMBINING_STRIKE for ch in a))))
    # The box redefined to show a wrong value while its argument is the gold.
    if "\\boxed" in t.render(a):
        probes.append(Probe("redefined-box", f"\\renewcommand{{\\boxed}}[1]{{{t.wrong}}}" + t.render(a)))
    return probes
