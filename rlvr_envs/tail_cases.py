"""Round 14: a case split after the answer that names another value (H7's ``two_branch``).

"\\boxed{331}.\\n\\nMore precisely: 331 when x \\ge 0 and 431 when x < 0." answers two questions the task never
asked, one of them wrongly: round 13 read a condition right after the answer, in its own sentence, and a short
sentence holding a strong "if", so a later sentence splitting into cases with "when", "otherwise", "depending on",
"なら" / "そうでなければ" or "이면" / "아니면" was paid. ``case_split`` reads the answer's sentence and the sentences
after it (a bounded window) for a case split: a condition on a case (a variable or a relation after "if", "when",
"for", "falls", "si", "если", "若", "なら", "이면", ...) or a word that splits by itself ("otherwise", "sonst",
"sinon", "иначе", "否则", "depending on", "je nach", ...). A split is refused when it STATES A VALUE THAT IS NOT THE
ANSWER'S: the numbers of the sentence, less those that belong to the condition ("x < 0", "for n = 2", "n^2",
"greater than 5"). A case note that repeats the boxed value ("331 when x \\ge 0, as given") or only explains a
condition ("This holds for all x \\ge 0.") names no other value and stands.

``bare_value`` (the shared tail; math's ``answer_shape`` reads the same): the rest of the answer's sentence is only
another number, bare or bracketed ("<answer>7</answer> 8", "\\boxed{331} (431)."): a second value with no word to
make it anything else.

Bounded (``WINDOW`` characters); never raises on any ``str``.
"""

from __future__ import annotations

import re
from fractions import Fraction

from rlvr_envs.tail_alternatives import NUMBER, SENTENCE_END
from rlvr_envs.tail_arithmetic import value_of
from rlvr_envs.tail_clauses import PROCEDURE, STRONG_CONDITION
from rlvr_envs.tail_words import LATEX_COMMAND

WINDOW = 1_200
"""Characters after the answer read for a case split (the answer's sentence and the next few)."""

# Words that split into cases by themselves: "otherwise", "depending on": no variable needed after them.
_SPLITS = (
    r"otherwise|else|elsewhere|sonst|andernfalls|ansonsten|je\s+nach|abhängig\s+von|sinon|autrement|selon|suivant"
    r"|de\s+lo\s+contrario|si\s+no|en\s+otro\s+caso|en\s+caso\s+contrario|según|dependiendo\s+de|altrimenti"
    r"|a\s+seconda|senão|caso\s+contrário|dependendo|иначе|в\s+противном\s+случае|в\s+зависимости|depending\s+(?:on|upon)"
)
_SPLIT_CJK = (
    r"否则|否則|不然|取决于|取決於|そうでなければ|それ以外|でなければ|によって|に応じて"
    r"|아니면|그렇지\s*않으면|에\s*따라"
)
# Markers of a condition: the strong ones, and those that also mean "when"/"for" (a case only with a variable or a
# relation after them: "when x < 0", "for n > 0"; "when we add 2 and 4" is how the value was found).
_CONDITIONS = STRONG_CONDITION + r"|when|whenever|for|für|bei|quand|lorsque|pour|cuando|para|quando|per|при|для|когда"
_CONDITION_CJK = r"如果|假如|假设|假設|若|当|當|只要|ならば|なら|場合|とき|れば|이면|라면|으면|경우"
_MARKER = re.compile(
    r"(?<![\w'-])(?:("
    + _SPLITS
    + r")|("
    + _CONDITIONS
    + r"))(?![\w'-])|("
    + _SPLIT_CJK
    + r")|("
    + _CONDITION_CJK
    + r")",
    re.IGNORECASE,
)
# A case after a condition marker: a relation, a letter in math, a lone variable letter (not a word of one letter:
# "a", "I", "e", "o", "y", "u"), or a parity or sign word. Read in the 60 characters after the marker, or, for a
# verb-final marker ("n이 짝수이면", "nが偶数なら"), the 30 before it.
_CASE = re.compile(
    r"[<>≤≥≠=]|\\(?:[lg]eq?(?:slant)?|[lg]t|neq?)(?![A-Za-z])|\$\s*[A-Za-z]\s*[$=<>]"
    r"|(?<![^\W\d_]|\\)[b-df-hj-np-tv-xzα-ω](?![^\W\d_])"
    r"|(?<![^\W\d_])(?:even|odd|positive|negative|prime|gerade|ungerade|pair|impair|par|impar|pari|dispari|чётн\w*"
    r"|четн\w*|нечётн\w*|нечетн\w*)(?![^\W\d_])|偶数|奇数|偶數|奇數|正数|负数|짝수|홀수|양수|음수",
    re.IGNORECASE,
)
_VERB_FINAL = frozenset("ならば なら 場合 とき れば 이면 라면 으면 경우".split())
# A number that belongs to the condition, not to what the split states: after an inequality ("x < 0", "n \\ge 2"),
# after a comparison word ("greater than 5", "at least 2", "divisible by 3"), glued to a letter or an index or
# exponent mark ("x_1", "n^2", "2n"), or set by the marker itself ("for n = 2", "if x is 3", "当n=2").
_CONDITION_NUMBER = re.compile(
    r"(?:[<>≤≥≠]|\\(?:[lg]eq?(?:slant)?|[lg]t|neq?)(?![A-Za-z])|(?<![^\W\d_])(?:than|least|most|by|of|als|que|чем"
    r"|exceeds?|über|unter|plus\s+de|moins\s+de|más\s+de|menos\s+de|от|до)(?![^\W\d_]))[\s$*_{]*$"
    r"|[A-Za-z_^{]$",
    re.IGNORECASE,
)
_SET_BY_MARKER = re.compile(
    r"(?:" + _CONDITIONS + r"|" + _CONDITION_CJK + r")\s*\$?\s*[A-Za-zα-ω](?:_\{?\w+\}?)?\s*\$?\s*"
    r"(?:=|is|equals|ist|est|es|è|é|равно|是|为|為|等于|が|이|가)?\s*\$?\s*$",
    re.IGNORECASE,
)
_VARIABLE = re.compile(r"(?<![^\W\d_]|\\)([b-df-hj-np-tv-xzα-ω])(?![^\W\d_])")
_GIVEN = re.compile(
    r"(?<![^\W\d_]|\\)([A-Za-zα-ω])\s*\$?\s*(?:=|is|equals|ist|est|es|è|é|是|为|為)\s*\$?\s*$", re.IGNORECASE
)
_GLUED_AFTER = re.compile(r"[A-Za-z_^]|\s*[<>≤≥=]|\s*\\(?:[lg]eq?|[lg]t|neq?)(?![A-Za-z])")
# A quantifier is no case: "reduces to 0 for any root", "for all x \\ge 0", "für alle n".
_QUANTIFIED = re.compile(
    r"\s*\$?\s*(?:any|all|every|each|some|alle|jedes?|tout|tous|toute|todo|todos|cada|ogni|tutti|любо\w*|всех)\b"
)
_PARTICIPLES = frozenset("provided assumed assuming supposing presuming given".split())
_PARTICIPLE_CASE = re.compile(r"\s*(?:that\b|\$|[A-Za-zα-ω](?![^\W\d_]))", re.IGNORECASE)
_FOR_WORDS = frozenset("for für pour para per при для".split())
_PARITY = (
    r"even|odd|positive|negative|prime|gerade|ungerade|pair|impair|par|impar|pari|dispari|чётн\w*|четн\w*|нечётн\w*"
    r"|нечетн\w*"
)
# "for n > 0", "for n even", "for odd n": "for" names a case only with a relation or a parity after its variable.
_FOR_A_CASE = re.compile(
    r"\s*\$?\s*(?:[A-Za-zα-ω](?:_\{?\w+\}?)?\s*\$?\s*(?:[<>≤≥≠=]|\\(?:[lg]eq?|[lg]t|neq?)(?![A-Za-z])"
    r"|(?:is\s+|ist\s+|est\s+|es\s+)?(?:" + _PARITY + r")(?![^\W\d_]))|(?:" + _PARITY + r")(?![^\W\d_]))",
    re.IGNORECASE,
)
# Where a condition's clause ends: a clause mark, "and", "then", "the" (a new subject: "when n is odd the result is").
_CLAUSE_END = re.compile(r"[;:，、；]|,\s|\s(?:and|then|the|it|we|und|dann|et|alors|y|entonces|и|то)\s|则|，")
_RELATION = re.compile(r"[<>≤≥≠=]|\\(?:[lg]eq?(?:slant)?|[lg]t|neq?)(?![A-Za-z])|\s(?:is|ist|est|es)\s")
# Code after the answer (an Asymptote figure, a code block) is no sentence.
_CODE_START = re.compile(r"\[asy\]|\\begin\{asy\}|```")


def _is_case(sentence: str, marker: re.Match[str]) -> bool:
    """Whether ``marker`` opens (or, verb-final, closes) a condition on a case, or splits by itself."""
    if marker.group(1) or marker.group(3):
        return True  # "otherwise", "depending on", "否则", "아니면": a split whatever follows
    word = marker.group(0)
    if _QUANTIFIED.match(sentence, marker.end()):
        return False
    if marker.group(0).casefold() in _PARTICIPLES and not _PARTICIPLE_CASE.match(sentence, marker.end()):
        return False  # "The solution provided assumes ...": a participle, no condition
    if marker.group(0).casefold() in _FOR_WORDS and not _FOR_A_CASE.match(sentence, marker.end()):
        return False  # "for the given board", "for these values": "for" names a case only as "for n > 0", "for odd n"
    if word in _VERB_FINAL:
        clause = sentence[max(0, marker.start() - 30) : marker.start()]
    else:
        clause = sentence[marker.end() : marker.end() + 60]
    return _CASE.search(clause) is not None and PROCEDURE.search(clause) is None


def _condition_spans(sentence: str, markers: list[re.Match[str]]) -> list[tuple[int, int]]:
    """Where each condition's clause holds a relation: from its first relation to the clause's end ("when
    $(a,b,c,d)=(1,3,3,9)$", "for n = 2, ..."): the numbers there are the case's, not what the split states."""
    spans: list[tuple[int, int]] = []
    for marker in markers:
        if marker.group(1) or marker.group(3) or marker.group(0) in _VERB_FINAL:
            continue
        end = _CLAUSE_END.search(sentence, marker.end(), marker.end() + 80)
        stop = end.start() if end is not None else min(len(sentence), marker.end() + 80)
        relation = _RELATION.search(sentence, marker.end(), stop)
        if relation is not None:
            spans.append((relation.start(), stop))
    return spans


def _case_variables(sentence: str, markers: list[re.Match[str]]) -> set[str]:
    """The variables the conditions speak of ("n" in "if n were even", "x" in "when x < 0")."""
    names: set[str] = set()
    for marker in markers:
        if marker.group(1) or marker.group(3):
            continue
        if marker.group(0) in _VERB_FINAL:
            clause = sentence[max(0, marker.start() - 30) : marker.start()]
        else:
            end = _CLAUSE_END.search(sentence, marker.end(), marker.end() + 60)
            clause = sentence[marker.end() : end.start() if end is not None else marker.end() + 60]
        names.update(_VARIABLE.findall(clause))
    return names


def _stated_values(sentence: str, markers: list[re.Match[str]]) -> list[str]:
    """The numbers ``sentence`` states, less those that belong to its conditions: in a condition's clause, or a value
    given to a variable a condition speaks of ("If n were even it would differ, but n = 5 here.")."""
    found: list[str] = []
    spans = _condition_spans(sentence, markers)
    names = _case_variables(sentence, markers)
    for number in NUMBER.finditer(sentence):
        if any(lo <= number.start() < hi for lo, hi in spans):
            continue
        before = sentence[max(0, number.start() - 40) : number.start()]
        if _CONDITION_NUMBER.search(before) or _SET_BY_MARKER.search(before):
            continue
        given = _GIVEN.search(before)
        if given is not None and given.group(1) in names:
            continue
        if _GLUED_AFTER.match(sentence, number.end()):
            continue  # "2n", "3 < n", "2 = x": part of a relation or a term
        found.append(number.group(0))
    return found


def _own(number: str, mine: list[str], value: Fraction | None) -> bool:
    plain = number.replace(",", "").lstrip("+")
    if number in mine or plain in mine:
        return True
    try:
        return value is not None and Fraction(plain) == value
    except (ValueError, ZeroDivisionError):
        return False


def case_split(sentence: str, rest: str, answer: str) -> str | None:
    """A sentence from the answer's own (``sentence``, what follows the answer in it) through the next ones (``rest``)
    that splits into cases and states a value that is not ``answer``'s ("331 when x \\ge 0 and 431 when x < 0",
    "either 331 or 431, depending on the parity of n", "nが偶数なら331、そうでなければ431"), described, or None.
    An answer that itself holds a condition or a ``cases`` environment is a piecewise answer: not read."""
    if not isinstance(sentence, str) or not isinstance(rest, str) or not isinstance(answer, str):
        return None
    text = (sentence + rest)[:WINDOW]
    code = _CODE_START.search(text)
    text = text[: code.start()] if code is not None else text
    if _MARKER.search(text) is None or _MARKER.search(answer) is not None or "cases" in answer:
        return None  # speed: most tails hold no marker at all
    mine = NUMBER.findall(answer)
    value = value_of(answer.replace("\\boxed", ""))
    start = 0
    for end in [m.end() for m in SENTENCE_END.finditer(text)] + [len(text)]:
        part, start = text[start:end], end
        markers = [m for m in _MARKER.finditer(part) if _is_case(part, m)]
        if not markers:
            continue
        others = [n for n in _stated_values(part, markers) if not _own(n, mine, value)]
        if others:
            return f"{markers[0].group(0).strip()} ... {others[0]}"
    return None


_WORD = re.compile(r"[^\W\d_]{2,}")


def bare_value(sentence: str, answer: str) -> str | None:
    """Another number that is all the rest of the answer's ``sentence`` holds (" 8.", " (431).", " [$8$]"), or None.
    A word there ("(431 in base 5)", "(see 8)") leaves it to the other readings."""
    if not isinstance(sentence, str) or not isinstance(answer, str) or len(sentence) > 200:
        return None
    if _WORD.search(LATEX_COMMAND.sub(" ", sentence)) is not None:
        return None
    mine = NUMBER.findall(answer)
    value = value_of(answer.replace("\\boxed", ""))
    said = value_of(sentence.strip(" \t\n()[]$.,;:!。"))
    if said is not None and value is not None and said == value:
        return None  # "\\boxed{3.5} (7/2)": the answer again, written another way
    others = [n for n in NUMBER.findall(sentence) if not _own(n, mine, value)]
    return others[0] if others else None
