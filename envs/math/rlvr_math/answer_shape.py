"""Answers whose shape says something other than their value (issue 26, round 5).

Each check names why the answer is refused (a reason for the verdict's details) or returns None:

* ``tail_word``: one word alone after the box on its line (``\\boxed{3} ribu.``, ``\\boxed{3} nghìn``)
  is read like a word inside the box: dropped when it is a unit or the task's own word, refused
  otherwise. An allow-list, so a magnitude word in a language no lexicon lists is refused too;
  a sentence after the box (``\\boxed{3} is the answer.``) is prose and is not read this way.
* ``joined_values``: two values joined by a word (``3 \\text{ e } 4``, ``3 a 4``, ``3 hay 4``):
  a pair or a range in any language, unless the word is a unit of a compound quantity (``5 ft 3 in``).
* ``unit_swap``: the answer's unit is not the gold's (``3 m`` for a gold ``3 km``, ``3 cm^2`` for
  ``3 cm``, ``3 hours`` for ``3 minutes``). Both must be known units (``UNIT_SCALES``); the value
  is not converted, so ``3000 m`` for ``3 km`` scores 0 as it did.
* ``second_final_answer``: a response that marks two different final values with different
  markers (``Final answer: 4`` then ``\\boxed{3}``, ``\\boxed{3}`` then ``#### 4``). Extraction
  reads one of them by a fixed order; a reader sees two answers. Boxes among themselves keep
  their own rules (``rlvr_math.extraction``: a later box corrects an earlier one).
* ``redefinition``: the response defines or redefines a macro the answer uses, or its box
  (``\\def``, ``\\newcommand``, ``\\renewcommand``, ``\\let`` ...), or changes category codes
  (``\\catcode``): the rendered answer is then not the text we read
  (``\\renewcommand{\\frac}[2]{#2}\\boxed{\\frac{3}{4}}`` shows 4).

Each is linear in its input and never raises on any ``str``.
"""

from __future__ import annotations

import re
from fractions import Fraction

from rlvr_envs.answer_tail import value_word_after as core_value_word_after
from rlvr_envs.extract import answer_tag, hashes_answer
from rlvr_envs.tail_arithmetic import value_of
from rlvr_envs.tail_clauses import table_values
from rlvr_math.languages import ALTERNATIVES, NEGATIONS
from rlvr_math.normalize import clean, compact, parse_number
from rlvr_math.units import CJK_COUNTERS, COPULAS, NEUTRAL, UNITS, is_unit

_GAP = r"(?:[ \t$)\]}*_]|\\[,;:! ]|\\q?quad(?![A-Za-z])|\\\)|\\\]|</answer>)*"
# Commands that may follow an answer without changing it: layout, end marks, text for a unit.
_INERT_COMMANDS = frozenset(
    """end right bigr Bigr biggr Biggr big Big quad qquad blacksquare square Box qed checkmark hfill label tag
    newline text textrm textbf mathrm mbox operatorname degree circ pmod bmod mod pod""".split()
)
_COMMAND_AFTER = re.compile(_GAP + r"\\([A-Za-z]+)")
# One letter after a value is a unit only in these cases: "3 m", "3 L"; "3M", "3K", "3B" are magnitudes.
_LETTER_UNITS = frozenset("msghltLVAWNJ")
# A word: a letter, then anything but spacing, digits and punctuation (combining marks too: "พัน").
_LINE_TAIL = re.compile(
    _GAP + r"(?:\\(?:text|mathrm|textrm|mbox)\s*\{\s*)?([^\W\d_][^\s\d.,;:!?。，、$\\{}()\[\]<>*]*)\.?"
)
_SHORT_LINE = re.compile(r"[^\n]{0,40}")
_MODULAR = re.compile(r"\\[pb]?mod(?![A-Za-z])|\bmod\b|\(mod\b", re.IGNORECASE)
_EXPONENT = re.compile(r"\^\s*\{?\s*-?\d+\s*\}?|[²³]")
_LINE_END = re.compile(r"[ \t]*(?:[}$*_)\]]|\\\)|\\\]|</answer>)*[ \t]*(?:[.!。,;:]?[ \t]*)(?:\n|$)")


def phrase_continuation(text: str, raw: str) -> str | None:
    """In an "answer is" phrase or a ``####`` line, what goes on after the value that was read
    ("The answer is 6 and a half." reads 6): a continuation or magnitude the core names."""
    at = raw.rfind(text) if text else -1
    if at < 0:
        return None
    changed = core_value_word_after(raw[at + len(text) : at + len(text) + 200])
    if changed is None:
        return None
    return f"the value goes on after what was read ({changed!r})"


_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
# Round 14 (H4): a short line that is only an expression in one-letter variables ("q - p", "(p + q)/2").
_EXPRESSION = re.compile(r"[(\[]?\s*[-+]?\s*(?:(?<![A-Za-z])[A-Za-z](?![A-Za-z])|\d|[-+*/^()\s.])+\s*[)\]]?")
_OPERATOR = re.compile(r"[A-Za-z0-9)]\s*[-+*/^]\s*[-+(A-Za-z0-9]")


_CHECK = re.compile(r"([-+\d\s.()*/×÷·^]*\d[-+\d\s.()*/×÷·^]*)=\s*\$?\s*(-?\d+(?:\.\d+)?)(?![\d.,]\d)")


def _without_checks(text: str, answer: str) -> str:
    """``text`` without the arithmetic checks in it that compute the answer's own value ("1+2=3" for 3): an
    equation whose left side, evaluated exactly, is the answer is a check of it; "4=3" or "1+2=4" are not."""
    own = value_of(answer.strip().strip("$ {}"))
    if own is None:
        return text

    def check(found: re.Match[str]) -> str:
        left, right = (
            value_of(found.group(1).replace("×", "*").replace("÷", "/").replace("·", "*")),
            value_of(found.group(2)),
        )
        operated = re.search(r"\d\s*[-+*/×÷·^]\s*[\d(]", found.group(1)) is not None
        return " " if operated and left is not None and left == right == own else found.group(0)

    return _CHECK.sub(check, text)


def tail_word(after: str, context: frozenset[str], answer: str = "") -> str | None:
    """A lone word after the answer on its line that is neither a unit nor a word of the task."""
    line = _SHORT_LINE.match(after)
    rest = line.group(0) if line is not None else ""
    ends = line is None or line.end() == len(after) or after[line.end()] == "\n"
    if ends and len(rest.split()) <= 4:
        # "\\boxed{3} i.e. 4", "\\boxed{3} (4)": a short line after the box that states another value.
        # "\\boxed{3}, not 2." contrasts; "\\boxed{9} \\pmod{11}" states the modulus; the answer's own
        # value said again ("\\boxed{6}. 답은 6입니다.") is no other value.
        mine = set(_DIGITS.findall(answer))
        # round 12: a check whose equation ends in the answer's own value ("验证：1+2=3", "Probe: 1+2=3",
        # "검산: 1+2=3") restates it; its terms are no other value
        checked = _without_checks(rest, answer) if mine and "=" in rest else rest
        others = [v for v in _DIGITS.findall(_EXPONENT.sub(" ", checked)) if v not in mine]
        if others and not NEGATIONS.search(rest) and not _MODULAR.search(rest):
            return f"another value right after the answer ({rest.strip()!r})"
    # round 14 (H4): a short line that is only an expression, however spaced ("2 * ( p - q ) + 1", "q - p"), is
    # another value unless it is the answer written again
    expression = _EXPRESSION.fullmatch(rest.strip(" \t$.,;:!")) if ends and rest.strip() else None
    said = rest.strip(" \t$.,;:!()[]")
    if (
        expression is not None
        and _OPERATOR.search(rest)
        and compact(said) != compact(answer)
        and not _same(said, answer)
    ):
        return f"another expression right after the answer ({rest.strip()!r})"  # "\\boxed{p - q} q - p"
    command = _COMMAND_AFTER.match(after)
    if command is not None and command.group(1) not in _INERT_COMMANDS:
        return f"a command after the value ({command.group(0).strip()!r} right after the answer)"
    found = _LINE_TAIL.match(after)
    if found is None or not _LINE_END.match(after, found.end()):
        return None
    word = found.group(1)
    if len(word) == 1 and word.isascii() and word not in _LETTER_UNITS:
        return f"a letter after the value that is not a unit ({word!r} right after the answer)"
    if is_unit(word, context, single_letters=True) or word.lower() in COPULAS:
        return None
    if not word.isascii() and (word in CJK_COUNTERS or any(word in w for w in context if not w.isascii())):
        return None  # "\\boxed{3}个", "\\boxed{3}本" or the prompt's own "苹果"
    return f"a word after the value that is not a unit ({word!r} right after the answer)"


_LIST_MARK = re.compile(r"[,;]|\\\{|\\cup|\band\b")
_JOINED = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s+((?:[^\W\d_]+\.?\s+){1,3})[-+]?\d")


_MAYBE_JOINED = re.compile(r"\d[^\d]*?[^\W\d_][^\d]*?\d")


def maybe_joined(answer: str) -> bool:
    """A cheap test before ``joined_values`` cleans the answer: two digits with a letter between."""
    return bool(_MAYBE_JOINED.search(answer[:2_000]))


def joined_values(cleaned: str, gold_cleaned: str, context: frozenset[str]) -> str | None:
    """Two values joined by words (``3 e 4``), unless the gold has that shape or the words are units."""
    if _JOINED.search(gold_cleaned) or _LIST_MARK.search(gold_cleaned) or ALTERNATIVES.search(gold_cleaned):
        return None  # a gold pair or list: the usual list rules compare it
    for match in _JOINED.finditer(cleaned[:2_000]):
        words = match.group(1).split()
        if not all(is_unit(w, context, single_letters=False) for w in words):
            return f"two values joined by words ({' '.join(words)!r})"
    return None


# Known units: (dimension, scale). Names map to one key, so "km" and "kilometres" are the same unit.
_SCALED = {
    ("length", Fraction(1)): "m meter meters metre metres",
    ("length", Fraction(1000)): "km kilometer kilometers kilometre kilometres",
    ("length", Fraction(1, 100)): "cm centimeter centimeters centimetre centimetres",
    ("length", Fraction(1, 1000)): "mm millimeter millimeters millimetre millimetres",
    ("length", Fraction(1, 10)): "dm decimeter decimeters",
    ("length", Fraction(1, 10**6)): "um µm μm micrometer micrometers micron microns",
    ("length", Fraction(1, 10**9)): "nm nanometer nanometers",
    ("length", Fraction(1609344, 1000)): "mi mile miles",
    ("length", Fraction(9144, 10000)): "yd yard yards",
    ("length", Fraction(3048, 10000)): "ft foot feet",
    ("length", Fraction(254, 10000)): "inch inches",
    ("mass", Fraction(1)): "g gram grams",
    ("mass", Fraction(1000)): "kg kilogram kilograms",
    ("mass", Fraction(1, 1000)): "mg milligram milligrams",
    ("mass", Fraction(10**6)): "tonne tonnes",
    ("mass", Fraction(45359237, 10**5)): "lb lbs pound pounds",
    ("mass", Fraction(28349523125, 10**9)): "oz ounce ounces",
    ("time", Fraction(1)): "s sec secs second seconds",
    ("time", Fraction(1, 1000)): "ms millisecond milliseconds",
    ("time", Fraction(60)): "min mins minute minutes",
    ("time", Fraction(3600)): "h hr hrs hour hours",
    ("time", Fraction(86400)): "day days",
    ("time", Fraction(604800)): "wk wks week weeks",
    ("time", Fraction(2629746)): "mo month months",
    ("time", Fraction(31556952)): "yr yrs year years",
    ("volume", Fraction(1)): "l liter liters litre litres",
    ("volume", Fraction(1, 1000)): "ml milliliter milliliters millilitre millilitres",
    ("volume", Fraction(1, 100)): "cl",
    ("volume", Fraction(1, 10)): "dl",
    ("money", Fraction(1)): "dollar dollars usd bucks",
    ("money", Fraction(1, 100)): "cent cents penny pennies",
    ("angle", Fraction(1)): "rad radian radians",
    ("angle", Fraction(-1)): "deg degree degrees ° \\circ",  # -1: a key apart from radians, not a factor
    ("energy", Fraction(1)): "j joule joules",
    ("energy", Fraction(1000)): "kj",
    ("frequency", Fraction(1)): "hz hertz",
    ("frequency", Fraction(1000)): "khz",
    ("frequency", Fraction(10**6)): "mhz",
}
UNIT_SCALES: dict[str, tuple[str, Fraction]] = {
    name: key for key, names in _SCALED.items() for name in names.split() if name.lower() in UNITS or not name.isalpha()
}
"""Unit names with their dimension and scale, for ``unit_swap`` (only names ``rlvr_math.units`` drops)."""

_UNIT_TEXT = re.compile(
    r"(?<![A-Za-z\\])(?:(square|sq|cubic|cu)\s+)?([A-Za-zµμ]+|°|\\circ)(?![A-Za-z])\s*(?:\^\s*\{?\s*([23])\s*\}?|([²³]))?"
)
_VALUE_DIGIT = re.compile(r"(?<!\^)(?<!\^\{)(?<!\^ )\d")
_LATEX_WRAPPERS = re.compile(r"\\(?:text|mathrm|textrm|mbox|operatorname|,|;|!|quad| )|[{}$]")


def _unit(text: str) -> tuple[str, Fraction, int] | None:
    """The one known unit after the last digit of ``text`` with its power, or None (none, several, unknown)."""
    # The value ends at its last digit that is not an exponent ("3 \\text{ m}^2" ends at the 3).
    last = max((m.end() for m in _VALUE_DIGIT.finditer(text[:2_000])), default=-1)
    if last < 0:
        return None
    tail = _LATEX_WRAPPERS.sub(" ", text[last : last + 200]).replace("^ ", "^")
    if "\\$" in text[:last] and not re.search(r"[A-Za-z]", tail):
        return ("money", Fraction(1), 1)  # "\\$3": dollars written before the value
    found = None
    for match in _UNIT_TEXT.finditer(tail):
        name = match.group(2)
        key = UNIT_SCALES.get(name) or UNIT_SCALES.get(name.lower()) if name != "M" else None
        if key is None:
            if name.lower() in NEUTRAL:
                continue
            return None  # a word we cannot place: leave the comparison to the usual rules
        if found is not None:
            return None  # a compound unit (km/h, kg m): not compared here
        power = 1
        if match.group(1):
            power = 3 if match.group(1) in ("cubic", "cu") else 2
        if match.group(3) or match.group(4):
            power = int(match.group(3) or {"²": 2, "³": 3}[match.group(4)])
        found = (key[0], key[1], power)
    return found


_ASKED_UNIT = re.compile(
    r"(?:how\s+many|how\s+much|(?<![A-Za-z])in|in\s+units\s+of|expressed\s+in|measured\s+in)\s+"
    r"(?:square\s+|sq\.?\s+|cubic\s+)?([A-Za-z]+)",
    re.IGNORECASE,
)


def asked_units(prompt: str) -> frozenset[tuple[str, Fraction]]:
    """The known units a prompt asks for ("How many minutes ...", "... in meters?")."""
    asked = set()
    for match in _ASKED_UNIT.finditer(prompt[:20_000]):
        key = UNIT_SCALES.get(match.group(1).lower())
        if key is not None and len(match.group(1)) > 1:
            asked.add(key)
    return frozenset(asked)


def unit_swap(pred: str, gold: str, asked: frozenset[tuple[str, Fraction]] = frozenset()) -> str | None:
    """The answer's known unit differs from the gold's known unit (dimension, scale or power), or,
    for a gold without a unit, from the unit the prompt asks for in that dimension."""
    if "/" in pred or "/" in gold or "per" in pred.lower() or "per" in gold.lower():
        return None
    pred_unit = _unit(pred)
    if pred_unit is None:
        return None
    gold_unit = _unit(gold)
    if gold_unit is None:
        same_dimension = {key for key in asked if key[0] == pred_unit[0]}
        if same_dimension and (pred_unit[0], pred_unit[1]) not in same_dimension:
            return "the answer's unit is not the one the prompt asks for (the value would need converting)"
        return None
    if pred_unit == gold_unit:
        return None
    return "the answer's unit is not the gold answer's (the value would need converting)"


_DEFINITION = re.compile(
    r"\\(?:(?:re)?newcommand|providecommand|DeclareMathOperator|DeclareRobustCommand|[egx]?def|let|mathchardef"
    r"|chardef)(?![A-Za-z])\s*\*?\s*\{?\s*(\\(?:[A-Za-z]+|.))"
)
_CATCODE = re.compile(r"\\(?:catcode|csname|uccode|lccode|mathcode)(?![A-Za-z])")
_COMMAND = re.compile(r"\\(?:[A-Za-z]+|.)")
_BOX_COMMANDS = frozenset({"\\boxed", "\\fbox"})


def redefinition(response: str, answer: str) -> str | None:
    """A macro that the answer uses (or its box) defined in the response, or a category code changed:
    the rendered answer is then not the text we read (``\\renewcommand{\\frac}[2]{#2}\\boxed{\\frac{3}{4}}``
    shows 4). A definition the answer does not use changes nothing it shows."""
    if "\\" not in response:
        return None
    changed = _CATCODE.search(response)
    if changed is not None:
        return f"the response changes how characters read ({changed.group(0)}): the answer does not show what it says"
    used = set(_COMMAND.findall(answer)) | _BOX_COMMANDS
    for found in _DEFINITION.finditer(response):
        if found.group(1) in used:
            return f"the response redefines {found.group(1)}, which the answer uses: it does not show what it says"
    return None


# Round 11: the marker in every claimed language (a later "정답은 4입니다", "正解は4", "Endergebnis: 4" after a box
# stated a second answer nobody read), with "=" as a marker's colon ("답 = 4", "answer = 4").
_FINAL_PHRASE = re.compile(
    r"(?:final\s+answer\s*(?:\*\*)?\s*(?:is\s*:?|[:=])|the\s+(?:correct\s+)?answer\s+(?:is|should\s+be)\s*:?"
    r"|(?<!\w)answer\s*(?:\*\*)?\s*[:=]"
    r"|(?<!\w)(?:(?:endgültige\s+)?antwort|endergebnis|ergebnis|lösung)\s*(?:\*\*)?\s*(?:ist|lautet|[:=])"
    r"|(?<!\w)(?:réponse(?:\s+finale)?|résultat(?:\s+final)?)\s*(?:\*\*)?\s*(?:est|[:=])"
    r"|(?<!\w)(?:respuesta(?:\s+final)?|resultado(?:\s+final)?|solución)\s*(?:\*\*)?\s*(?:es|[:=])"
    r"|(?:最终)?答案\s*(?:应该)?(?:是|为|為|:|：|=)|结果\s*(?:是|为|:|：|=)|結果\s*(?:は|:|：|=)|(?<![\w])答\s*[:：=]"
    r"|(?:最終的な)?答え\s*(?:は|:|：|=)|正解\s*(?:は|:|：|=)?|解答\s*(?:は|:|：|=)"
    r"|(?:최종\s*)?(?:정답|답)\s*(?:은|는|:|：|=)?(?=\s*\$?\s*[-+\d]))"
    r"\s*(?:\*\*)?\s*\$?\s*([^\n$*]{1,80})",
    re.IGNORECASE,
)
_MARKED = ("####", "<answer>", "\\boxed", "\\fbox", "nswer", "esult", "答", "正解", "답", "ntwort", "rgebnis", "ösung",
           "éponse", "ésultat", "espuesta", "esultado", "olución", "结果", "結果")  # fmt: skip
_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{([^{}]{1,80})\}")


def _value(text: str) -> Fraction | None:
    """The plain number a marker states ("4", "4 apples", "4."), or None."""
    words = text.split()
    for candidate in (text, words[0] if words else ""):
        number = parse_number(clean(candidate.strip().rstrip(".,;:").strip()))
        if number is not None:
            return None if number.percent else number.value
    return None


_LABELLED = re.compile(r"[:=：]")
_JSON_ANSWER = re.compile(
    r"[\"'](?:final[_ ]?answer|answer|result)[\"']\s*:\s*([\"']?)([^\"'\n{}\[\],]{1,80})\1", re.IGNORECASE
)
_NAMED = re.compile(r"^\s*\$?\s*[A-Za-z](?:_\{?\w+\}?)?\s*=\s*")


def _written(text: str) -> str:
    """A written form to compare two answers that are not plain numbers: a leading "x =" dropped."""
    return compact(clean(_NAMED.sub("", text.strip().rstrip(".").strip("$ "))))


def _last_box(text: str) -> str | None:
    """The content of the last ``\\boxed{}``/``\\fbox{}`` in ``text``, braces balanced (``\\frac{11}{2}`` inside),
    at most 200 characters; None when there is none."""
    at = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    if at < 0:
        return None
    start = text.find("{", at)
    if start < 0 or re.fullmatch(r"\\(?:boxed|fbox)\s*", text[at:start]) is None:
        return None
    depth = 0
    for i in range(start, min(len(text), start + 202)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1 : i] or None
    return None


def second_final_answer(later: str, value_text: str, method: str) -> str | None:
    """A final-answer marker after the answer that was read, of another kind, stating another plain number.

    ``later`` is the response after the answer. A later "final answer is" phrase corrects a box
    (extraction reads it instead), and a later box is read before an earlier phrase; but a later
    ``####`` line or answer tag is read after a box by method order: the answer read must be the
    last one the response states."""
    response = later
    if not any(marker in response for marker in _MARKED):
        return None  # the common case: nothing marked after the answer (reading a value costs more)
    mine = _value(value_text)
    others: list[tuple[str, str]] = []
    hashes = hashes_answer(response)
    if hashes is not None:
        others.append(("hashes", hashes))
    tagged = answer_tag(response)
    if tagged is not None:
        others.append(("answer_tag", tagged))
    phrases = list(_FINAL_PHRASE.finditer(response))
    if phrases:
        first = phrases[-1].group(1).split()
        others.append(("answer_is", first[0].rstrip(".,;:") if first else ""))
        label = phrases[-1]
        line_start = response.rfind("\n", 0, label.start()) + 1
        line = response[label.start(1) :].split("\n", 1)[0][:120].strip().rstrip(".").strip("$* ")
        labelled = _LABELLED.search(label.group(0)[: label.start(1) - label.start()]) and not response[
            line_start : label.start()
        ].strip(" \t*_#>-")
        if labelled or (_WORDY.search(_LATEX_NAME.sub(" ", line)) is None and re.search(r"\d", line)):
            # round 12: "Answer: 2*(6+9i) + 1" is a label and its value, and "The answer is 2*(6+9i) + 1." states
            # only mathematics: the whole line is compared, not only its first number ("the answer is right" is prose)
            others.append(("answer_line", line))
    keyed = list(_JSON_ANSWER.finditer(response))
    if keyed:  # round 12 (H8's marker_clash): '{"answer": "200"}' after the box
        others.append(("json", keyed[-1].group(2)))
    box = _last_box(response)
    if box is not None:
        others.append(("boxed", box))
    for kind, text in others:
        if kind == method or (kind == "boxed" and method == "answer_tag" and "\\boxed" in (tagged or "")):
            continue
        value = _value(text)
        if kind == "answer_is" and (value is None or mine is None):
            continue  # an "answer is" phrase is prose ("the answer is right"): compared only as a number
        if kind == "answer_line" and (value is not None or method == "answer_is"):
            continue  # a plain number was compared above; an "answer is" read is this very line
        if value is not None and mine is not None:
            differs = value != mine
        else:  # not both plain numbers: the written forms must agree ("6+9i" then "#### 2*(6+9i) + 1")
            differs = _written(text) != _written(value_text)
        if differs:
            return f"two different final answers ({kind}: {text.strip()[:40]!r})"
    return None


# Round 12 (H8's markup_alternative): another value set out as an item of a list or a table after the answer
# ("- 6+9i\n- 2*(6+9i) + 1", "<td>2*(6+9i) + 1</td>", "| 3 | 4 |"). Structure is text: an item that is only
# mathematics states a value, and one other than the answer's is a second answer. An item with words ("- Real part:
# 6") describes; a computation whose last side is the answer's value ("- 2 + 4 = 6") checks it.
_ITEM = re.compile(r"^[ \t]*(?:[-*+•]|\d{1,2}[.)])[ \t]+([^\n]{1,120})$", re.MULTILINE)
_WORDY = re.compile(r"[^\W\d_]{2,}")
_LATEX_NAME = re.compile(r"\\[A-Za-z]+")
LIST_READ_CHARS = 2_000


def listed_alternative(later: str, value_text: str) -> str | None:
    """An item of a list or table after the answer that states another value, or None."""
    head = later[:LIST_READ_CHARS]
    if not any(mark in head for mark in ("\n-", "\n*", "\n+", "\n1", "\n•", "<t", "<li", "|")):
        return None  # the common case: nothing set out after the answer
    mine, own = _value(value_text), _written(value_text)
    items = [m.group(1) for m in _ITEM.finditer(head)] + table_values(head)
    for item in items:
        text = item.strip().strip("$*_ ").rstrip(".").strip("$ ")
        if not text or _WORDY.search(_LATEX_NAME.sub(" ", text)) is not None or not re.search(r"\d", text):
            continue  # words describe (a label, a step); an item with no digit is a name
        last = re.split(r"=|\\approx|≈", text)[-1].strip()
        value = _value(last)
        differs = value != mine if value is not None and mine is not None else _written(last) != own
        if differs:
            return f"another value listed after the answer ({text[:40]!r})"
    return None


def _same(said: str, answer: str) -> bool:
    """Whether ``said`` is the answer's value written another way ("\\boxed{5} (2 + 3)")."""
    value = value_of(said)
    return value is not None and value == value_of(answer)
