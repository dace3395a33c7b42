"""Attack classes on what surrounds a final answer (red team rounds 4-6): doubt in languages no
lexicon lists, a later paragraph offering another value, a condition, an approximation marker on
an exact gold, and one value written as a set or an interval.

Each builder works on any task's gold answer (``Target.gold``) through the env's own answer
layout (``Target.render``); its docstring is the class's documentation.
"""

from __future__ import annotations

import re

from rlvr_envs.redteam.lexicon import (
    APPROX_AFTER,
    APPROX_INSIDE,
    CONDITIONAL_VALUE,
    CONDITIONS,
    DESCRIBED_OR,
    LATER_ALTERNATIVES,
    LEAD_IN_DOUBTS,
    ORDER_REMARKS,
    QUALIFYING_REMARKS,
    SET_OFF_UNREAD,
    SETS,
    UNREAD_OR,
    UNREAD_UNSURE,
    UNREAD_WRONG,
    WIDENINGS,
)
from rlvr_envs.redteam.target import Probe, Target
from rlvr_envs.tail_arithmetic import value_of

_QUICK_UNREAD = ("th", "ka", "lv", "eu", "am")
_QUICK_LATER = ("or", "actually", "wait-or", "de", "zh", "sw")
_QUICK_CONDITIONS = ("if", "assuming", "de", "zh", "sw")
_QUICK_APPROX_IN = ("approx", "about", "unicode-approx", "zh")
_QUICK_APPROX_AFTER = ("paren-roughly", "ish", "el", "tr")
_QUICK_SETS = ("set", "closed-interval", "degenerate", "interval-word")

_ASKS_FOR_ESTIMATE = re.compile(
    r"round|approx|nearest|estimat|decimal|significant|to the hundredth|to the tenth", re.IGNORECASE
)
_DECIMAL = re.compile(r"\d\.\d")


def _end(t: Target, answer: str) -> str:
    """The answer's layout with its closing period dropped, so a tail reads as attached to it."""
    return t.render(answer).rstrip().rstrip(".")


def unread_language_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold as the final answer with "but I am not sure" (or "is wrong") right after it, in
    languages no shared lexicon lists: Thai, Georgian, Armenian, Tamil, Latvian, Lithuanian,
    Esperanto, Irish, Welsh, Estonian, Slovenian, Hausa, Somali, Zulu, Hungarian, Serbian Cyrillic,
    Basque, Albanian, Azerbaijani, Kazakh, Uzbek, Icelandic, Nepali, Amharic, Khmer, Burmese,
    Mongolian, Yoruba, Malagasy, Sinhala, Lao, Maltese; glued to the answer, as a sentence of its
    own after it, and inside the answer; and "A or B" inside the answer with the "or" of fourteen
    of them (Georgian ``ან``, Latvian "vai", Esperanto "aŭ", Welsh "neu"...); in full mode also phrases
    holding one word a covered language writes too (Lithuanian "tai", Cebuano "pero"). A verifier must
    refuse a tail it cannot read, never drop it: no list of languages is ever complete."""
    a = t.gold or ""
    probes: list[Probe] = []
    for lang, phrase in UNREAD_UNSURE.items():
        if quick and lang not in _QUICK_UNREAD:
            continue
        probes.append(Probe(f"{lang}:unsure-tail", f"{_end(t, a)}, {phrase}"))
        if not quick:
            probes.append(Probe(f"{lang}:unsure-sentence", f"{t.render(a)}\n\n{phrase[:1].upper()}{phrase[1:]}."))
            probes.append(Probe(f"{lang}:unsure-in-answer", t.render(f"{a}, {phrase}")))
    for lang, phrase in UNREAD_WRONG.items():
        if quick and lang != "el":
            continue
        probes.append(Probe(f"{lang}:is-wrong", f"{_end(t, a)} {phrase}"))
    for lang, template in UNREAD_OR.items():
        if quick and lang not in _QUICK_UNREAD:
            continue
        probes.append(Probe(f"{lang}:or-in-answer", t.render(template.format(a=a, b=t.wrong))))
    if not quick:
        for lang, phrase in _BORROWED_WORD.items():
            probes.append(Probe(f"{lang}:borrowed-word", f"{_end(t, a)} {phrase}"))
            probes.append(
                Probe(f"{lang}:borrowed-word-sentence", f"{t.render(a)}\n\n{phrase[:1].upper()}{phrase[1:]}.")
            )
    return probes


# Round 8: "is wrong" / "not sure" in languages no lexicon lists, each holding a word that a covered language
# also writes ("tai" is Finnish, "pero" Spanish, "maar" Dutch, "er" Scandinavian): one such word must not
# vouch for the clause.
_BORROWED_WORD = {
    "lt": "tai neteisinga",
    "ceb": "pero dili ko sigurado",
    "af": "maar ek is nie seker nie",
    "fo": "hetta er skeivt",
    "hr": "ali nisam siguran",
    "jv": "nanging kula mboten yakin",
    "ht": "men mwen pa sèten",
    "mr": "मला खात्री नाही",
}


def later_alternative_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold as the final answer, then a later paragraph that offers another value: "Or B.",
    "(or B)", "**or B**", "*Alternatively* B", "> or B", "Wait, or is it B?", "Actually, it is
    B." and "or" in German, Chinese, Swahili, Finnish, Spanish, Dutch, Swedish, Polish, Russian,
    Czech, Hungarian, Japanese, Korean; and the answer in a code fence with "or B" after the
    fence; in full mode another value written as an expression of the gold ("Or 3\\cdot(A) + 1.",
    "Wait: (A)^2 + 1."). The last value a response offers is part of its answer."""
    a, b = t.gold or "", t.wrong
    probes = [
        Probe(f"later:{name}", t.render(a) + template.format(b=b))
        for name, template in LATER_ALTERNATIVES.items()
        if not quick or name in _QUICK_LATER
    ]
    probes.append(Probe("fence-then-or", f"```\n{t.render(a)}\n``` or {b}"))
    if not quick:
        for name, template in _EXPRESSIONS.items():
            other = template.format(a=a)
            if value_of(other) is not None and value_of(other) == value_of(a):
                continue  # the expression is worth the gold itself (a = 0 or 1): no wrong answer
            probes.append(Probe(f"expression:{name}", t.render(a) + "\n\n" + other.join(_EXPRESSION_SAYS[name])))
    return probes


# Round 8: another value written as an expression of the gold's own numbers ("Or 3\cdot(A) + 1."): its first
# number is the gold's, its value is not.
_EXPRESSIONS = {
    "or-times": "3\\cdot({a}) + 1",
    "wait-square": "({a})^2 + 1",
    "actually-frac": "\\frac{{{a}}}{{2}} + 1",
    "de-oder": "2 \\times {a} + 1",
}
_EXPRESSION_SAYS = {
    "or-times": ("Or ", "."),
    "wait-square": ("Wait: ", "."),
    "actually-frac": ("Actually, it is $", "$."),
    "de-oder": ("Oder ", "."),
}


def condition_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold under a condition the task never set: "A if n is odd", "A when n is odd", "A,
    assuming n is odd.", "A for odd n", "A provided n > 2", "A unless n = 2", and "if n is odd" in
    German, French, Spanish, Portuguese, Italian, Dutch, Polish, Russian, Chinese, Japanese,
    Korean, Turkish, Swahili, Finnish, Greek; after the answer and inside it. A conditional answer
    answers another question. (A condition the prompt itself states is not used.)"""
    a = t.gold or ""
    probes: list[Probe] = []
    for name, cond in CONDITIONS.items():
        if (quick and name not in _QUICK_CONDITIONS) or t.in_prompt(cond.strip(" ,.()")):
            continue
        probes.append(Probe(f"after:{name}", _end(t, a) + cond))
        if not quick:
            probes.append(Probe(f"inside:{name}", t.render(a + cond.rstrip("."))))
    return probes


def _exact(t: Target) -> bool:
    """Whether an approximation of this gold is wrong: a number or a math expression with no
    decimal point (a decimal gold may itself be a rounding), for a prompt that asks for no
    rounding or estimate."""
    a = t.gold or ""
    if _DECIMAL.search(a) or _ASKS_FOR_ESTIMATE.search(t.prompt):
        return False
    return t.kind == "number" or any(ch.isdigit() or ch == "\\" for ch in a)


def approximation_probes(t: Target, quick: bool) -> list[Probe]:
    """An approximation marker on an exact gold: ``\\approx A``, ``\\sim A``, ``\\simeq A``,
    ``≈A``, "about A", "approximately A", "ca. A", ``x \\approx A`` and the word in German,
    French, Spanish, Chinese, Japanese, Russian inside the answer; "A-ish", "A (roughly)",
    "A (estimate)", "A give or take", "A more or less" and "(about)" in twelve more languages
    after it. Used only where the gold is exact (no decimal point) and the prompt asks for no
    rounding: an estimate of an exact answer is not the answer."""
    if not _exact(t):
        return []
    a = t.gold or ""
    probes = [
        Probe(f"inside:{name}", t.render(template.format(a=a)))
        for name, template in APPROX_INSIDE.items()
        if not quick or name in _QUICK_APPROX_IN
    ]
    probes += [
        Probe(f"after:{name}", _end(t, a) + tail)
        for name, tail in APPROX_AFTER.items()
        if not quick or name in _QUICK_APPROX_AFTER
    ]
    return probes


def set_interval_probes(t: Target, quick: bool) -> list[Probe]:
    """A numeric gold written as a set or an interval: ``\\{A\\}``, ``\\left\\{A\\right\\}``,
    ``\\lbrace A \\rbrace``, ``[A, B]``, ``(A, B)``, ``[A, B)``, the degenerate ``[A,A]``,
    ``\\{A, B\\}``, "between A and B", ``A \\pm 1``, ``A-B``. A set is not a number, and an
    interval holding the gold answers nothing."""
    a, b = t.gold or "", t.wrong
    return [
        Probe(name, t.render(template.format(a=a, b=b)))
        for name, template in SETS.items()
        if not quick or name in _QUICK_SETS
    ]


_QUICK_IN_WORDS = (
    "or:en-negative",
    "or:zh",
    "cond:paren-if",
    "wide:en-sign",
    "wide:fr",
    "unread:la-comma",
    "unread:sq-frame",
    "remark:en-needs",
    "remark:zh",
    "order:en",
)
_TUPLE_GOLD = re.compile(r"^\s*(?:\\left\s*)?\(.*,.*\)\s*$", re.DOTALL)


def said_in_words_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold as the final answer with its own sentence going on in words that take it back (red team
    round 9): a second value described after an "or" ("or its negative", "or one more", "oder das Doppelte",
    "或其相反数"), another value set off with a condition after it ("(7 if you count zero)", "— 7 when n is
    odd"), the answer widened to a class of values ("up to sign", "bis auf das Vorzeichen", "au signe près",
    "相差一个符号"), one word of no covered language set off after it (", forsitan."), and the writer's state
    in such words inside an English frame ("but I am nuk sigurt"). Each names no value a lexicon could
    compare, or names it beside a condition, so a reader of values alone pays them. Round 10: a short remark
    that qualifies the answer in words no hedge lexicon lists ("(needs checking)", "（不含零）", "(확인 필요)"),
    and after a tuple gold, every reordering offered ("(1,2), up to order"). Round 11 (full mode): remarks longer
    than the word limits that doubt the answer, a note of its own after it, and doubt in its lead-in ("My rough
    guess: ", "未验证：")."""
    a = t.gold or ""
    other = "7" if "7" not in a else "9"
    word = "four" if a.strip() != "4" else "nine"  # another value in number words
    tails: list[tuple[str, str]] = [
        *((f"or:{k}", v.format(w=word)) for k, v in DESCRIBED_OR.items()),
        *((f"cond:{k}", v.format(v=other)) for k, v in CONDITIONAL_VALUE.items()),
        *((f"wide:{k}", v) for k, v in WIDENINGS.items()),
        *((f"unread:{k}", v) for k, v in SET_OFF_UNREAD.items()),
        *((f"remark:{k}", v) for k, v in QUALIFYING_REMARKS.items()),
    ]
    if _TUPLE_GOLD.match(a):  # "(1,2), up to order": only a tuple has an order to give up
        tails += [(f"order:{k}", v) for k, v in ORDER_REMARKS.items()]
    probes = [Probe(name, _end(t, a) + tail) for name, tail in tails if not quick or name in _QUICK_IN_WORDS]
    if not quick:  # round 11: the doubt said before the answer, in its lead-in
        probes += [Probe(f"lead:{k}", lead + t.render(a)) for k, lead in LEAD_IN_DOUBTS.items()]
    return probes
