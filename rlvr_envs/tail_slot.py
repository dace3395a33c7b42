"""What right around the answer slot makes a reader see or read another value (round 15, issue 26).

The extractors read the characters of the answer in memory order, and the tail readers judge the words after
it. Four ways around both, found by the attacker's round-15 classes on every math id (and mended for
reasoning-gym in its own screens, ``rlvr_reasoning_gym.screens``, whose readings these follow):

* ``display_override``: the answer under a directional override or embedding (U+202A, U+202B, U+202D, U+202E)
  opened on its line and not popped (U+202C) before it: ``U+202E \\boxed{284} U+202C`` is shown as
  ``}482{dexob\\``; a reader sees another text. No honest answer needs one (``bidi_display``).
* ``scale_after``: a per-mille or per-ten-thousand sign or word right after a numeric answer (``‰``, ``‱``,
  ``\\permil``, "per mille", "Promille", "pour mille", "por mil", "basis points"): ``284‰`` is 0.284, another
  value (``scale_swap``). Percent is not here: math documents ``percent="either"`` (``10\\%`` equals ``10``).
  A factorial sign on the answer inside the math (``$\\boxed{5}!$``, ``\\boxed{5}! = 120``) is read the same
  way: ``5!`` is 120. An exclamation after the math closes (``$\\boxed{5}$!``) is punctuation.
* ``restated_value``: a lone number in another notation (words in the covered languages, Roman or CJK
  numerals, ``0x``/``0b``/``0o`` integers) tied to a numeric answer by a restatement ("that is", "i.e.", a
  dash, ``=``, a colon), before it (``CCCLXXXIV, that is \\boxed{284}``) or after it (``\\boxed{110} = two
  hundred ten``), stating another value: the response says two values are one (``notation_clash``). The same
  value in another notation (``\\boxed{284} (CCLXXXIV)``, ``thirteen = \\boxed{13}``) stands. Plain digits count
  too where a restatement ties them (``384, that is \\boxed{284}``), not where a label's colon does (``2: ``).
* ``arithmetic_on_answer``: the answer's text later bracketed inside arithmetic in a sentence that states no
  equation (``Scratch that: 2*(\\frac{11}{2}) + 1.``): a value built on the answer, in any language
  (``self_correction``); a check (``2(5) + 1 = 11``) is left to the readings of checks.

Each returns a short description of what it refused, or None. Bounded windows; never raises on any ``str``.
"""

from __future__ import annotations

import re
from fractions import Fraction

from rlvr_envs.tail_restated import numerals_as_digits

_OPENERS = "\u202a\u202b\u202d\u202e"  # LRE, RLE, LRO, RLO: each lasts to its PDF (U+202C) or the paragraph's end
_PDF = "\u202c"
_LINE_CHARS = 2_000


def display_override(before: str, raw: str = "") -> str | None:
    """An override or embedding opened on the answer's line before the answer (``before`` ends where the answer's
    markup starts; ``raw`` is the answer as written, read up to its text) and not popped before it."""
    if not isinstance(before, str) or not isinstance(raw, str):
        return None
    line = before[-_LINE_CHARS:]
    line = line[line.rfind("\n") + 1 :] + raw
    if not any(ch in line for ch in _OPENERS):
        return None  # the common case, one scan in C
    depth, opened = 0, ""
    for ch in line:
        if ch in _OPENERS:
            depth, opened = depth + 1, opened or ch
        elif ch == _PDF and depth:
            depth -= 1
            opened = opened if depth else ""
    if depth:
        return f"a directional override (U+{ord(opened):04X}) covers the answer: a reader sees it reordered"
    return None


_MATH_CLOSE = r"(?:\$|\\\)|\\\])"
# A per-mille or per-ten-thousand scale in the languages the tail covers (sign, TeX command, words), and basis
# points; each may be glued to the answer or spaced from it, inside the math or just after it.
_SCALE = re.compile(
    r"[\s$]*(?:\\\)|\\\])?[\s$]*(?:"
    r"[\u2030\u2031\u0609\u060a]"  # ‰ ‱ and the Arabic-Indic per mille / per ten thousand signs
    r"|\\(?:permil|permille|perthousand|textperthousand|textpertenthousand|pertenthousand)(?![A-Za-z])"
    r"|\\text(?:rm|up|normal)?\s*\{\s*(?:\u2030|\u2031)\s*\}"
    r"|(?:per|pro|pour|por|par)[\s-]*(?:mille|mill|mil|millage|ten[\s-]+thousand|dix[\s-]+mille|diez[\s-]+mil)"
    r"(?![A-Za-z])"
    r"|promill?e?(?![A-Za-z])|промилле|проміле|promil(?![A-Za-z])|‰"
    r"|basis[\s-]+points?(?![A-Za-z])|bps(?![A-Za-z])|basispunkte?n?(?![A-Za-z])|points?\s+de\s+base"
    r"|puntos?\s+b[aá]sicos?|pontos?\s+base|千分之|万分之|萬分之|パーミル|퍼밀)",
    re.IGNORECASE,
)
# A factorial on the answer: "!" glued to it and followed by the math's end or an operator ("$\\boxed{5}!$").
_FACTORIAL = re.compile(r"[ \t]*!+[ \t]*(?:" + _MATH_CLOSE + r"|[=+\-*/^<>]|\\(?:cdot|times|div)(?![A-Za-z]))")


def scale_after(after: str, gold: str) -> str | None:
    """A per-mille scale or a factorial sign right after the answer that the gold does not carry."""
    if not isinstance(after, str) or not isinstance(gold, str):
        return None
    head = after[:80]
    found = _SCALE.match(head)
    if found is not None and _SCALE.search(gold) is None:
        return f"a scale after the answer ({found.group(0).strip()!r}): it states another value"
    factorial = _FACTORIAL.match(head)
    if factorial is not None and "!" not in gold:
        return f"a factorial sign on the answer ({factorial.group(0).strip()!r}): it states another value"
    return None


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:/\d+)?")


def _number(text: str) -> Fraction | None:
    s = text.strip().strip("$").strip().replace(",", "").replace("{", "").replace("}", "")
    if not _NUMBER.fullmatch(s):
        return None
    try:
        return Fraction(s)
    except (ValueError, ZeroDivisionError):
        return None


# A restatement connector, in the languages the tail covers.
_CONNECTOR = (
    r"(?:[,，]?\s*(?:that\s+is|i\.\s?e\.?|namely|which\s+is|d\.\s?h\.|das\s+heißt|c'est-à-dire|es\s+decir|o\s+sea"
    r"|cioè|ou\s+seja|isto\s+é|то\s+есть|т\.\s?е\.|тобто|czyli|dus|yani|yaitu|tức\s+là|즉|つまり|すなわち)\s*,?"
    r"|\s*[—–=:：≡]|\s+-|\s*[,，]?\s*(?:即|也就是))\s*"
)
# The clause before the answer: from a sentence's end (a full stop not inside a decimal number, a "!" that is not TeX's
# negative thin space "\\!" inside "10,\\!000") to the connector.
_LEAD = re.compile(
    r"(?:^|(?<!\\)[!?;:]|[\n。！？；：(（]|\.(?!\d))\s*[*_$]*((?:[^\n.!?;:。！？；：,，、=—–()（）*_$\\{}]|(?<=\d)[.,](?=\d)){1,60}?)"
    r"\s*[*_$]*" + _CONNECTOR + r"[*_$]*$"
)
# How each connector of ``_CONNECTOR`` ends once spacing, emphasis, commas and a full stop are stripped (a cheap
# test with ``str.endswith`` before the clause's regex runs).
_CONNECTOR_ENDINGS = (
    *"—–=:：≡-即",
    *"that is|i.e|ie|namely|which is|d.h|d. h|das heißt|c'est-à-dire|es decir|o sea|cioè|ou seja|isto é".split("|"),
    *"то есть|т.е|т. е|тобто|czyli|dus|yani|yaitu|tức là|즉|つまり|すなわち|也就是".split("|"),
)
_OPENINGS = ("\\boxed{", "\\boxed {", "\\fbox{", "\\fbox {", "$", "\\(", "\\[")


def _without_opening(lead: str) -> str:
    """``lead`` without the answer's opening markup and spacing at its end (``$\\boxed{``, ``\\(``)."""
    while True:
        stripped = lead.rstrip()
        for opening in _OPENINGS:
            if stripped.endswith(opening):
                stripped = stripped[: -len(opening)]
                break
        if stripped == lead:
            return lead
        lead = stripped


_AFTER = re.compile(
    r"[\s}]*[*_$]*(?:\\\)|\\\])?"
    + _CONNECTOR
    + r"[*_$]*((?:[^\n.!?;:。！？；：,，、=—–()（）*_$\\{}]|(?<=\d)[.,](?=\d)){1,60}?)"
    r"\s*[*_$]*(?:\.(?!\d)|[!?;。！？)）\n]|$)"
)
_COMMA_ONLY = re.compile(r"[\s}*_$]*,[\s*_$]*")  # "A, B": a second value the other readings judge
_ONE = frozenset("one un une uno una um uma eins ein eine один одна".split())


_LABEL = re.compile(r"\s*[,:：]?\s*$")  # a bare colon or comma after a number is a label ("2: ..."), not a restatement


def _said(text: str, connector: str) -> Fraction | None:
    """The value a lone number states: digits (tied by a restatement, not by a label's colon or a comma), words
    or numerals (``numerals_as_digits``), or an integer with a base prefix (``0x1f``, ``0b11``, ``0o17``)."""
    plain = _number(text)
    if plain is not None:
        return None if _LABEL.fullmatch(connector) else plain
    if text.casefold() in _ONE:  # the word for one is also an article: alone as a clause it is the number
        return Fraction(1)
    value = _number(numerals_as_digits(text))
    if value is None and re.fullmatch(r"0[xXbBoO][0-9a-fA-F]{1,32}", text):
        value = Fraction(int(text, 0))
    return value


def restated_value(before: str, text: str, after: str) -> str | None:
    """A lone number in another notation, of another value, tied to the numeric answer ``text`` by a restatement
    right before it (``before`` ends where the answer's markup starts) or right after it."""
    if not all(isinstance(part, str) for part in (before, text, after)):
        return None
    answer = _number(text)
    if answer is None:
        return None
    # Only the end of the lead-in is read (a lone clause is at most 60 characters, its connector a few words), and
    # only where it ends with a connector: two searches bounded to the last 40 characters before the regex of the
    # clause runs (21 -> 4 us per reference answer).
    lead = _without_opening(before[-160:])
    tied = lead[-24:].rstrip(" \t*_$,，.").casefold().endswith(_CONNECTOR_ENDINGS)
    # the clause's start, its at most 60 characters, the connector: within the last 100 (``^`` stays the real start)
    found = _LEAD.search(lead, max(0, len(lead) - 100)) if tied else None
    if found is not None:
        said = _said(found.group(1).strip(), lead[found.end(1) :].strip("*_$ "))
        if said is not None and said != answer:
            return f"{found.group(1).strip()!r} before the answer says another value ({said})"
    found = _AFTER.match(after[:300])
    if found is not None and not _COMMA_ONLY.fullmatch(after[: found.start(1)]):
        said = _said(found.group(1).strip(), after[: found.start(1)].strip("}*_$ ").removeprefix("\\)"))
        if said is not None and said != answer:
            return f"{found.group(1).strip()!r} after the answer says another value ({said})"
    return None


_OPERATOR = r"(?:[-+*/^×·÷]|\\cdot|\\times|\\div)"
_SENTENCE = re.compile(r"[^.!?。！？\n]*(?:\.(?!\d)|[!?。！？\n]|$)")


def arithmetic_on_answer(text: str, after: str) -> str | None:
    """The answer's own text put in brackets inside arithmetic after it, in a sentence that states no equation
    (``Scratch that: 2*(\\frac{11}{2}) + 1.``, ``Erratum: read (A) - 1 for A.``): a new value built on the answer,
    in whatever words surround it. A check computes with the answer and states what it gives (``2(5) + 1 = 11``):
    an ``=`` (or a relation) in the sentence leaves it to the readings of checks."""
    if not isinstance(text, str) or not isinstance(after, str):
        return None
    answer = text.strip()
    if not answer or answer not in after:
        return None
    inner = re.escape(answer)
    # parentheses only: a brace group is TeX's argument ("2^{3}" is an exponent written the usual way)
    pattern = rf"(?:{_OPERATOR}|\d)\s*\(\s*{inner}\s*\)|\(\s*{inner}\s*\)\s*{_OPERATOR}"
    for found in re.finditer(pattern, after[:_LINE_CHARS]):
        start = after.rfind(".", 0, found.start()) + 1
        sentence = _SENTENCE.match(after, found.end())
        end = sentence.end() if sentence is not None else len(after)
        if not re.search(r"=|\\(?:ne|neq|le|ge|leq|geq|approx|equiv)(?![A-Za-z])|[<>≠≤≥≈]", after[start:end]):
            return f"the answer inside arithmetic after it ({found.group(0)[:60]!r}): another value"
    return None
