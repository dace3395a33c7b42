"""Round 13: arithmetic written after the answer is read for its truth, and a check for what it checks.

Round 12 paid a check after the answer whose arithmetic computes it ("验证：1+2=3。") by reading short lines only,
so a longer line stating something false rode along: "\\boxed{3}. Check: 4 = 3." (five words) was paid. A policy
learns to append such "checks" to look careful, and a false one is a second, contradicting statement. Two readings,
both on the text after the answer, in any language (numbers and "=" need no lexicon):

* ``false_arithmetic``: every chain of plain arithmetic after the answer ("4 = 3", "1+3=3", "2 \\cdot 2 = 3",
  "\\frac{8}{2} = 3") is evaluated exactly (``fractions.Fraction``, bounded sizes and powers) and must be TRUE; a
  decimal side holds to its last written digit ("1/3 = 0.33", "22/7 = 3.14"). A chain is only read where it stands
  on its own: after a mark, the text's start or a word that is no arithmetic word ("3 times 4 = 12" is not "4 = 12",
  "2x + 1 = 7" not "+ 1 = 7", "1,000 = 1000" not "000 = 1000"), and up to a mark or a unit word (not "= 3x", "= 3!",
  "= 3 (mod 4)"). What cannot be evaluated (a variable, pi, a root) is no chain and is left to the other readings.
* ``unchecked_value``: a check clause (opened by a check word in en/de/fr/es/it/pt/ru/ar/hi/zh/ja/ko) that computes
  nothing with the answer (no true chain holds the answer's value) and states another value ("Check: x = 4",
  "Verify: it is 4", "Проверка: 4") is no confirmation but a second answer. A true substitution check ("Check:
  3 + 1 = 4", "2 \\cdot \\frac{11}{2} = 11") holds the answer and stands.

Linear in the text (bounded window, bounded evaluation); never raises on any ``str``.
"""

from __future__ import annotations

import re
from fractions import Fraction

WINDOW = 4_000
"""Characters after the answer read for arithmetic (bounds the cost; a far paragraph is the far tail's)."""
_MAX_DIGITS = 40
_MAX_EXPONENT = 64
_MAX_BITS = 4_096
_MAX_CHAINS = 64

# LaTeX spellings of the operators and of a fraction, rewritten to plain arithmetic before reading.
_LATEX_OPS: tuple[tuple[str, str], ...] = (
    ("\\cdot", "*"),
    ("\\times", "*"),
    ("\\div", "/"),
    ("×", "*"),
    ("÷", "/"),
    ("·", "*"),
    ("⋅", "*"),
)
_LATEX_OPS += (("−", "-"), ("＝", "="), ("\\left", ""), ("\\right", ""), ("\\,", " "), ("\\;", " "), ("\\!", ""))
_LATEX_OPS += (("\\qquad", " "), ("\\quad", " "))
# "4\\dfrac{5}{8}" is the mixed number 4 5/8, not 4 times 5/8: left unread (a word that no chain holds).
_MIXED = re.compile(r"(\d)\s*(\\[dt]?frac)")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]{1,60})\}\s*\{([^{}]{1,60})\}")
_FRAC_DIGITS = re.compile(r"\\[dt]?frac\s*(\d)\s*(\d)")
_BRACE_GROUP = re.compile(r"\{([-+*/^() .\d]{1,60})\}")

# A chain: numeric sides joined by single "=" ("!=", "<=", "==", "=>" are not equalities).
_SIDE = r"[-+(]*[ \t]*\.?\d[\d. \t+\-*/^()]*"
_CHAIN = re.compile(r"(?<![<>!=])(" + _SIDE + r"(?:(?<![<>!=])=(?![=>])[ \t]*" + _SIDE + r")+)")
# Arithmetic words before a number make it an operand of what precedes it ("3 times 4 = 12", "half of 6 = 3",
# "the sum of 2 and 3 = 5", "6 divided by 2 = 3"): a chain right after one is not read on its own.
_OPERAND_WORDS = frozenset(
    """of times by over plus minus and from into per than to with x mal durch von und plus minus fois par sur de et
    por veces entre y más menos per volte di e più meno vezes ou mais на из и раз плюс минус""".split()
)
_CONJUNCTIONS = frozenset("and und et y e и".split())
_CJK_OPERAND = re.compile(
    r"(?:乘以?|除以?|加上?|[减減]去?|倍|的|和|与|與|掛け|割る|足す|引く|곱하기|더하기|빼기|나누기|[와과의])$"
)
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[\s$]*$")
# What may follow a chain's last number: a mark that ends it, a space before a word that is no operand or magnitude
# ("= 12 apples"). Not a letter glued to it ("3x"), an operator or bracket (a side cut short: "= \\frac{6}{x}"),
# "!" glued (a factorial), a decimal going on ("0.\\overline{3}"), a LaTeX command, "mod".
_AFTER_STOP = re.compile(r"[^\W\d_]|\s*[-+*/^=(\\%_']|!\w|!$|[.,:][^\s]|\s+[^\W\d_](?![^\W\d_])")
_AFTER_WORD = re.compile(r"\s+([^\W\d_]+)")
_NOT_UNIT = frozenset(
    """mod modulo pmod times of over by plus minus thousand thousands million millions billion hundred hundreds dozen
    dozens percent squared cubed tausend million millionen mille millions cent mil millones mila milioni тысяч
    миллион""".split()
)

# A check clause's opening word, by stem, in every claimed language and ru/pt/it/ar/hi.
_CHECK_WORD = re.compile(
    r"(?<![^\W\d_])(?:(?:double[- ]?|sanity[- ]?|cross[- ]?)?check(?:ing|ed|s)?|verif(?:y|ying|ied|ication|ies)"
    r"|probe|prüf\w*|überprüf\w*|kontroll\w*|nachprüf\w*|vérifi\w*|contrôl\w*|comprob\w*|verific\w*|controll\w*"
    r"|conferi\w*|checagem|провер\w*|التحقق|تحقق|जाँच|जांच|सत्यापन)(?![^\W\d_])"
    r"|验证|驗證|检验|檢驗|验算|驗算|检查|檢查|代入|検算|検証|確認|검산|검증|확인|대입",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.!?](?!\d)|[。！？\n]")
# A value a check clause states: after "=" or a copula ("is", "ist", "est", "es", "è", "é", "равно", "是", "为").
_STATED = re.compile(
    r"(?:(?<![<>!=])=(?![=>])|(?<![^\W\d_])(?:is|equals|gives|ist|ergibt|est|vaut|es|da|è|é|dá|fa|равно|равен|будет)"
    r"(?![^\W\d_])|是|为|為|等于|等於|は|는|은)\s*\$?\s*(-?\d+(?:\.\d+)?)(?![\d.]*\d)(?!\s*[A-Za-z(^\\])",
    re.IGNORECASE,
)
# "double-check with n=3", "for x = 2", "taking k = 5": a case the check tries, not a value it states.
_CASE_BEFORE = re.compile(
    r"(?<![^\W\d_])(?:with|for|at|when|if|where|taking|setting|let|put|plugging\s+in|mit|für|bei|wenn|pour|avec|si|con"
    r"|para|per|при|для|если)\s+\$?\s*[A-Za-zα-ω](?:_\{?\w+\}?)?\s*\$?\s*$|(?:当|令|设|設)\s*[A-Za-z]\s*$",
    re.IGNORECASE,
)
_BARE_VALUE = re.compile(r"^[\s:：,，$*_]*(-?\d+(?:\.\d+)?)[\s$*_]*$")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_FIRST_TERM = re.compile(r"(\d{1,40}(?:\.\d{1,40})?)\s*[-+]")


def _plain(text: str) -> str:
    """``text`` with LaTeX arithmetic written plainly: ``\\cdot`` as ``*``, ``\\frac{a}{b}`` as ``((a)/(b))``,
    math delimiters as spaces, so a chain written in LaTeX reads as one written in text."""
    for old, new in _LATEX_OPS:
        if old in text:
            text = text.replace(old, new)
    if "frac" in text:
        text = _MIXED.sub(r"\1\\mixed\2", text)
        for _ in range(3):  # nested fractions, a bounded number of levels
            text = _FRAC.sub(lambda m: f"(({m.group(1)})/({m.group(2)}))", _FRAC_DIGITS.sub(r"\\frac{\1}{\2}", text))
    if "{" in text:
        text = _BRACE_GROUP.sub(r"(\1)", text)
    return text.replace("$", " ").replace("\\(", " ").replace("\\)", " ").replace("\\[", " ").replace("\\]", " ")


class _Unreadable(Exception):
    """An expression that is not plain bounded arithmetic (never escapes ``evaluate``)."""


_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?|\.\d+)|([-+*/^()]))")


def evaluate(expression: str) -> Fraction | None:
    """The exact value of plain arithmetic (numbers, + - * / ^, brackets, a number before a bracket multiplies),
    or None when it is not that, divides by zero or grows past the bounds. Recursive descent on tokens."""
    tokens: list[str] = []
    at = 0
    text = expression.strip()
    if len(text) > 400:
        return None
    while at < len(text):
        found = _TOKEN.match(text, at)
        if found is None or found.end() == at:
            return None
        tokens.append(found.group(1) or found.group(2))
        at = found.end()
    try:
        value, used = _sum(tokens, 0, 0)
    except (_Unreadable, ZeroDivisionError, OverflowError, ValueError):
        return None
    return value if used == len(tokens) else None


def _bounded(value: Fraction) -> Fraction:
    """``value``, unless its terms outgrow what a check written by hand holds (bounds the cost of the next step)."""
    if value.numerator.bit_length() > _MAX_BITS or value.denominator.bit_length() > _MAX_BITS:
        raise _Unreadable
    return value


def _sum(tokens: list[str], i: int, depth: int) -> tuple[Fraction, int]:
    value, i = _product(tokens, i, depth)
    while i < len(tokens) and tokens[i] in "+-":
        right, j = _product(tokens, i + 1, depth)
        value, i = _bounded(value + right if tokens[i] == "+" else value - right), j
    return value, i


def _product(tokens: list[str], i: int, depth: int) -> tuple[Fraction, int]:
    value, i = _power(tokens, i, depth)
    while i < len(tokens) and (tokens[i] in "*/" or tokens[i] == "("):
        if tokens[i] == "(":  # "2(3)": a number before a bracket multiplies it
            right, i = _power(tokens, i, depth)
            value = _bounded(value * right)
            continue
        right, j = _power(tokens, i + 1, depth)
        value, i = _bounded(value * right if tokens[i] == "*" else value / right), j
    return value, i


def _power(tokens: list[str], i: int, depth: int) -> tuple[Fraction, int]:
    base, i = _unary(tokens, i, depth)
    if i < len(tokens) and tokens[i] == "^":
        exponent, i = _power(tokens, i + 1, depth)
        if exponent.denominator != 1 or abs(exponent) > _MAX_EXPONENT or abs(base.numerator).bit_length() > 256:
            raise _Unreadable  # a root or a huge power: not read here
        base = _bounded(base ** int(exponent))
    return base, i


def _unary(tokens: list[str], i: int, depth: int) -> tuple[Fraction, int]:
    if depth > 20 or i >= len(tokens):
        raise _Unreadable
    token = tokens[i]
    if token in "+-":
        value, j = _unary(tokens, i + 1, depth + 1)
        return (value if token == "+" else -value), j
    if token == "(":
        value, j = _sum(tokens, i + 1, depth + 1)
        if j >= len(tokens) or tokens[j] != ")":
            raise _Unreadable
        return value, j + 1
    if token[0].isdigit() or token[0] == ".":
        if len(token) > _MAX_DIGITS:
            raise _Unreadable
        return Fraction(token), i + 1
    raise _Unreadable


def _holds(left: Fraction, right: Fraction, written: str) -> bool:
    """``left = right`` where ``right`` was written as ``written``: exactly, or to the last digit a decimal shows."""
    if left == right:
        return True
    decimals = re.fullmatch(r"\s*-?\d*\.(\d+)\s*", written)
    return decimals is not None and abs(left - right) < Fraction(1, 10 ** len(decimals.group(1)))


def _chains(text: str, closed: bool = True) -> list[tuple[list[str], list[Fraction | None]]]:
    """Each chain of plain arithmetic in ``text`` that stands on its own: its sides as written and their values.
    ``closed=False`` reads a chain whatever follows it ("17 \\cdot 44 = 748 \\equiv 1"): enough to see that
    a check works with the answer, never to call one false."""
    found: list[tuple[list[str], list[Fraction | None]]] = []
    for match in _CHAIN.finditer(text):
        if len(found) >= _MAX_CHAINS:
            break
        start, end = match.span(1)
        chain = match.group(1).rstrip()
        end = start + len(chain)
        while chain and chain[-1] in "+-*/^(.":  # a sentence's dot or a dangling operator is not the chain's
            chain = chain[:-1].rstrip()
            end = start + len(chain)
        lead = len(chain) - len(chain.lstrip())
        chain, start = chain.strip(), start + lead
        bullet = _BULLET.match(chain)
        listed = bullet is not None and _line_start(text, start)
        if listed and bullet is not None:
            chain, start = chain[bullet.end() :], start + bullet.end()  # "- 3 \\cdot 5 = 15": a list item's mark
        listed = listed or _MARKED_LINE.search(text, max(0, start - 12), start) is not None  # "> 4 = 3"
        if not chain or chain[0] in "*/^+" or "=" not in chain or not _stands_alone(text, start, end, closed, listed):
            continue
        sides = [_balanced(side) for side in chain.split("=")]
        if any(not re.search(r"\d", side) for side in sides):
            continue
        found.append((sides, [evaluate(side) for side in sides]))
    return found


_OPENING_MARKS = frozenset(".,;:!?。，；：！？、（([【「\n\t\"'“‘*_")
_GLUED_MARKS = frozenset("*_\"'“‘")
_COMMAND_BEFORE = re.compile(r"\\[A-Za-z]+$")


_BULLET = re.compile(r"(?:[-+*>]|\d{1,2}[.)])[ \t]+")  # a list item's mark or a quote's, at a line's start


_MARKED_LINE = re.compile(r"(?:^|\n)[ \t]*(?:[-+*>]|\d{1,2}[.)])[ \t]+$")


def _line_start(text: str, at: int) -> bool:
    line = text.rfind("\n", 0, at) + 1
    return not text[line:at].strip(" \t$")


def _balanced(side: str) -> str:
    """A side without the brackets that open or close around the whole chain ("(4 = 3)": "4" and "3")."""
    side = side.strip()
    while side.startswith("(") and side.count("(") > side.count(")"):
        side = side[1:].lstrip()
    while side.endswith(")") and side.count(")") > side.count("("):
        side = side[:-1].rstrip()
    return side


def _stands_alone(text: str, start: int, end: int, closed: bool = True, listed: bool = False) -> bool:
    """Whether the chain at ``text[start:end]`` says what it shows: nothing glued to it that makes its first
    number an operand of what precedes ("3 times 4", "2x + 1", "1,000") or its last one part of what follows."""
    before = "" if listed else text[max(0, start - 40) : start]
    edge = before.rstrip(" \t$")
    last = edge[-1:]
    if last and not last.isalpha() and last not in _OPENING_MARKS:
        return False  # "x^2 = 4", "f(2) = 4", "a - 3 = 4", "a@b = 4": part of what stands before
    if last and last in _GLUED_MARKS and (edge[-2:-1].isalnum() or edge[-2:-1] in ")}]"):
        return False  # "9*2 = 18", "r_3 = 8", "f'(2) = 5": an operator, an index or a prime, not markdown or a quote
    if before[-1:] in (".", ","):
        return False  # ".25 = ...", "a,3": a decimal point or a separator glued to the number
    if last and last in ".,:" and edge[-2:-1].isdigit():
        return False  # "1,000 = 1000", "3:1 = 6:2": the first number is part of one before
    if text[start] in "-+" and (last.isalnum() or (not last and start > 0)):
        return False  # "area - 3 = 4": a sign after a word is an operation on it
    if _COMMAND_BEFORE.search(edge):
        return False  # "\\Rightarrow 0 = -12", "a \\star 1 = ...": what a command makes of it is not read
    word = _WORD_BEFORE.search(edge)
    if word is not None:
        token = word.group(1)
        spaced = len(edge) < len(before)
        wide = ord(token[-1]) >= 0x2E80  # CJK and Hangul: no spaces between words
        if not spaced and not wide:
            return False  # "x3 = 4", "a2 = 4": a letter glued to the number
        joined = token.casefold() in _CONJUNCTIONS and edge[: -len(token)].rstrip()[-1:] in (",", ";", "，", "；")
        if (token.isascii() and len(token) == 1) or _CJK_OPERAND.search(token):
            return False  # "x 3", "3乘4=12": an operand of what precedes
        if token.casefold() in _OPERAND_WORDS and not joined:
            return False  # "3 times 4 = 12", "the sum of 2 and 3 = 5"; ", and 2 + 2 = 5" opens a clause
    if not closed:
        return True
    after = text[end : end + 40]
    if _AFTER_STOP.match(after) is not None:
        return False
    word = _AFTER_WORD.match(after)
    return word is None or word.group(1).casefold() not in _NOT_UNIT


# Round 14: "Check: 4 m = 3 m.", "12 dollars = 10 dollars", "$4\\text{ m} = 3\\text{ m}$": a word after a number that
# follows a number on the other side of an "=" too is the quantities' unit, and the chain is read without it (round 13
# stopped at the word and read nothing). An arithmetic word ("times", "of") or a magnitude is no unit.
_UNIT_AFTER = re.compile(
    r"(?<=\d)(?:[ \t]*\\(?:text|mathrm|textrm|mbox)\s*\{\s*([^{}\d]{1,20}?)\s*\}|[ \t]+([^\W\d_]{1,15})(?![^\W\d_]))"
)
_UNIT_CLAUSE = re.compile(r"[^.!?。！？\n]+")


def _without_units(text: str) -> str:
    """``text`` without the unit words that stand after numbers on both sides of an "=" in one clause."""
    if "=" not in text or _UNIT_AFTER.search(text) is None:
        return text
    cut: list[re.Match[str]] = []
    for clause in _UNIT_CLAUSE.finditer(text):
        if "=" not in clause.group(0):
            continue
        units = [
            (m, (m.group(1) or m.group(2)).strip().casefold())
            for m in _UNIT_AFTER.finditer(text, clause.start(), clause.end())
        ]
        units = [(m, u) for m, u in units if u and u not in _OPERAND_WORDS and u not in _NOT_UNIT]
        for unit in sorted({u for _, u in units}):
            at = [m for m, u in units if u == unit]
            if len(at) >= 2 and "=" in text[at[0].end() : at[-1].start()]:
                cut += at
    out, last = [], 0
    for m in sorted(cut, key=lambda m: m.start()):
        out.append(text[last : m.start()])
        last = m.end()
    return "".join(out) + text[last:]


def false_arithmetic(after: str) -> str | None:
    """The first chain of plain arithmetic after the answer that is false ("4 = 3", "1+3=3"), or None."""
    if not isinstance(after, str):
        return None
    text = after[:WINDOW]
    if "=" not in text and "＝" not in text:
        return None
    for sides, values in _chains(_plain(_without_units(text))):
        for i in range(len(sides) - 1):
            left, right = values[i], values[i + 1]
            if left is None or right is None or _holds(left, right, sides[i + 1]):
                continue
            first = _FIRST_TERM.match(sides[i + 1])
            if i + 2 < len(sides) and first is not None and _holds(left, Fraction(first.group(1)), first.group(1)):
                continue  # "3/2 = 1.50 + 3.00 = 4.50": a running total goes on from the value, then is summed
            return " = ".join(sides)
    return None


def _shown(answer: str) -> str:
    """The answer as a chain would hold it: plain arithmetic, no spaces."""
    return _plain(answer.replace("\\boxed", "").replace("\\fbox", "")).strip(" {}$").replace(" ", "")


def _answer_values(answer: str) -> set[Fraction]:
    plain = _shown(answer)
    value = evaluate(plain.replace("{", "(").replace("}", ")"))
    values = {value} if value is not None else set()
    return values | {Fraction(n) for n in _NUMBER.findall(plain)[:1] if len(n) <= _MAX_DIGITS and plain.strip() == n}


def unchecked_value(after: str, answer: str) -> str | None:
    """Another value stated by a check clause after the answer that computes nothing with the answer
    ("\\boxed{3}. Check: x = 4.", "Verify: it is 4."), or None. Only answers that are one number are read."""
    if not isinstance(after, str) or not isinstance(answer, str):
        return None
    text = after[:WINDOW]
    if _CHECK_WORD.search(text) is None:
        return None  # speed: most tails hold no check word; the answer's value is read only for one that does
    mine = _answer_values(answer)
    if not mine:
        return None
    shown = _shown(answer)
    for opened in _CHECK_WORD.finditer(text):
        end = _CLAUSE_END.search(text, opened.end())
        clause = _plain(text[opened.end() : end.start() if end is not None else min(len(text), opened.end() + 300)])
        if any(_computes(values, sides, mine, shown) for sides, values in _chains(clause, closed=False)):
            continue  # "Check: 1 + 2 = 3", "3 + 1 = 4": the check works with the answer's value
        bare = _BARE_VALUE.match(clause)
        stated = (
            [Fraction(bare.group(1))]
            if bare is not None
            else [
                Fraction(m.group(1))
                for m in _STATED.finditer(clause)
                if _CASE_BEFORE.search(clause, 0, m.start()) is None
            ]
        )
        if stated and not mine.intersection(stated):  # "x = 3" or "n = 3" among them: it reaches the answer
            return f"{opened.group(0)}{clause[:60].rstrip()}"
    return None


def _computes(values: list[Fraction | None], sides: list[str], mine: set[Fraction], shown: str) -> bool:
    """A true chain that holds the answer's value as a side or as a number in a side."""
    known = [v for v in values if v is not None]
    if len(known) < len(values) or any(not _holds(known[i], known[i + 1], sides[i + 1]) for i in range(len(known) - 1)):
        return False
    if any(_holds(m, v, side) for v, side in zip(known, sides, strict=True) for m in mine):
        return True
    if shown and any(shown in side.replace(" ", "") for side in sides):
        return True  # "2 \\cdot \\frac{11}{2} = 11": the answer substituted, as written
    return any(Fraction(n) in mine for side in sides for n in _NUMBER.findall(side) if len(n) <= _MAX_DIGITS)
