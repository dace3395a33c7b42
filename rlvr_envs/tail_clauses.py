"""Round 12: what the answer's own sentence says further on, past its first clause.

Round 6-11 read a condition or an alternative right after the answer ("\\boxed{3} if n is odd", "\\boxed{3} or 4"),
so a clause in between hid either: "\\boxed{3}, which checks out if n is odd", "\\boxed{3}, which checks out, or 4",
"\\boxed{3} for n = 1 only". ``condition_within`` reads a strong condition (or "for n = 1") anywhere in the sentence
before a reason word; ``alternative_within`` an alternative that opens a later clause (set off by a mark after words,
not a list of values) and states another value. The condition and contrast vocabularies live here and
``rlvr_envs.answer_tail`` reads them too. Bounded windows; never raises on any ``str``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rlvr_envs.tail_alternatives import NUMBER
from rlvr_envs.tail_lexicon import ALTERNATIVES
from rlvr_envs.tail_words import LATEX_COMMAND

CONTRAST = r"(?:but|aber|mais|pero|ma|mas|но|但是?|でも|하지만)\s*,?\s*"
# Condition markers that say "only if" in every reading ("if", "unless", "assuming", "wenn", "si",
# "如果"): the answer after them holds only when something holds, whatever that something is ("if that
# holds", "unless otherwise stated", "assuming the above", "if correct"). A procedure ("if we simplify",
# "when divided by 4") restates how the value was found and stands.
STRONG_CONDITION = (
    r"if|only\s+if|iff|assuming|assumed|supposing|presuming|provided|unless|as\s+long\s+as|so\s+long\s+as"
    r"|given\s+that|in\s+case|for\s+(?:odd|even|positive|negative|large|small|prime|nonzero|non-zero)|in\s+(?:that|this|which|such\s+a)\s+case|on\s+condition|subject\s+to|barring"
    r"|contingent|depending\s+(?:on|upon)|wenn|falls|sofern|vorausgesetzt|angenommen|unter\s+der\s+annahme|si|sauf\s+si"
    r"|à\s+condition|pourvu|en\s+supposant|siempre\s+que|siempre\s+y\s+cuando|a\s+menos\s+que|con\s+tal|suponiendo"
    r"|se|purché|a\s+patto|supponendo|desde\s+que|supondo|если|при\s+условии|предполагая|якщо|jeśli|jeżeli|o\s+ile"
    r"|indien|tenzij|mits|eğer|şayet|jika|kalau|apabila|asalkan|seandainya|nếu|giả\s+sử|إذا|إن|لو|بشرط|अगर|यदि"
    r"|ikiwa|endapo|যদি|اگر|αν|εάν|אם|kung|jos|mikäli|pokud|jestli|jestliže|dacă|hogyha|feltéve"
)
PROCEDURE = re.compile(
    r"divid|multipl|added|adding|subtract|reduc|simplif|round|express|writ|squar|cubed|cubing|raised|raising"
    r"|taken|taking|evaluat|substitut|plug|convert|measur|count|comput|calculat|factor|expand",
    re.IGNORECASE,
)


# Round 12: a strong condition further on in the answer's own sentence, after a clause that is no reason
# ("\\boxed{3}, which checks out if n is odd", ", which holds only if n > 2"): the answer still holds only in a case.
# A reason argues with one ("\\boxed{3}, since if n were 4 the sum would exceed 10"): from a reason word on, not read.
_REASON = re.compile(
    r"(?<![\w'])(?:since|because|as|for|hence|so|thus|therefore|da|weil|denn|car|puisque|porque|ya\s+que|perché"
    r"|poiché|otherwise|else|sonst|sinon|si\s+no)(?![\w'])|因为|因為|由于|由於|否则|なぜなら|왜냐하면",
    re.IGNORECASE,
)
# "se" (Italian "if") is French, Spanish and Portuguese's reflexive pronoun inside a clause: only at a clause's start.
_STRONG_IN_SENTENCE = re.compile(
    r"(?<![\w'-])(?!se(?![\w'-]))(?:" + STRONG_CONDITION + r")(?![\w'-])|如果|假如|假设|只要", re.IGNORECASE
)
# "for n = 1", "pour n > 2", "für n = 1": a case of a variable named by a relation (a variable alone is what was found)
_FOR_A_CASE = re.compile(
    r"(?<![\w'-])(?:for|pour|für|para|per|при|dla|voor)\s+\$?\s*[A-Za-z](?:_\{?\w+\}?)?\s*\$?\s*"
    r"(?:=|<|>|≤|≥|≠|\\(?:[lg]eq?|neq?)(?![A-Za-z]))",
    re.IGNORECASE,
)
# A variable standing alone among words of any script ("n", "$x$"; not the "v" of "vérifie") or a relation.
_CASE_ANY_SCRIPT = re.compile(r"(?<![^\W\d_]|\\)[A-Za-zα-ω](?![^\W\d_])|[<>≤≥≠=]|\\(?:[lg]eq?|neq?)(?![A-Za-z])")


def condition_within(sentence: str) -> str | None:
    """A strong condition on a case anywhere in the answer's own sentence before any reason word, or None."""
    text = sentence[:240]
    case = _FOR_A_CASE.search(text)
    if case is not None:
        return case.group(0).split()[0]
    reason = _REASON.search(text)
    if reason is not None:
        text = text[: reason.start()]
    for found in _STRONG_IN_SENTENCE.finditer(text):
        clause = text[found.end() : found.end() + 80]
        if _CASE_ANY_SCRIPT.search(clause.replace("$", " ")) and not PROCEDURE.search(clause):
            return found.group(0)
    return None


# Round 12: an alternative opening a later clause of the answer's own sentence ("\\boxed{3}, which checks out, or 4.",
# "\\boxed{3} — as computed — oder 4"): set off by a mark after a clause with words, and stating another value. A list
# of values ("divisible by 1, 3, or 9") has no words in the item before its "or".
_SET_OFF_OR = re.compile(
    r"[,;:\u2013\u2014，；]\s*(?:" + CONTRAST + r")?(?=" + ALTERNATIVES.pattern + r")", re.IGNORECASE
)
_CLAUSE_WORD = re.compile(r"[^\W\d_]{2,}")


def alternative_within(sentence: str, answer: str) -> str | None:
    """Another value offered by an alternative that opens a later clause of the answer's sentence, or None."""
    text = sentence[:240]
    mine = NUMBER.findall(answer)
    for found in _SET_OFF_OR.finditer(text):
        head = text[: found.start()]
        item = head[max(head.rfind(mark) for mark in ",;:\u2013\u2014，；") + 1 :]  # since the mark before
        if _CLAUSE_WORD.search(LATEX_COMMAND.sub(" ", item)) is None:
            continue  # "1, 3, or 9": a list item before the "or"
        alternative = ALTERNATIVES.match(text, found.end())
        if alternative is None:
            continue
        values = NUMBER.findall(text, alternative.end())
        if (values and values[0] not in mine) or "\\boxed" in text[alternative.end() :]:
            return alternative.group(0)
    return None


# Round 12 (H8's marker_clash and markup_alternative on reasoning-gym): a JSON answer key after the answer
# ('{"answer": "2*(0x9238) + 1"}'), and the answer set out in a list or table beside another candidate ("- 0x9238\n-
# 2*(0x9238) + 1", "<td>0x9238</td><td>...</td>"): structure is text, and it states a second answer.
_SET_OUT_CHARS = 2_000
_JSON_KEY = re.compile(
    r"[\"'](?:final[_ ]?answer|answer|result)[\"']\s*:\s*(?:\"([^\"\n]{1,200})\"|'([^'\n]{1,200})'|([^,}\]\n]{1,200}))",
    re.IGNORECASE,
)
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+•]|\d{1,2}[.)])[ \t]+([^\n]{1,200})$", re.MULTILINE)
_HTML_ROW = re.compile(r"<tr\b[^<>]{0,80}>(.{0,600}?)</tr\s*>", re.IGNORECASE | re.DOTALL)
_HTML_CELL = re.compile(r"<(t[dh])\b[^<>]{0,80}>([^<>]{0,200})</\1\s*>", re.IGNORECASE)
_HTML_ITEM = re.compile(r"<li\b[^<>]{0,80}>([^<>]{1,200})</li\s*>", re.IGNORECASE)
_PIPE_ROW = re.compile(r"^[ \t]*\|([^\n]{1,400})\|[ \t]*$", re.MULTILINE)


def table_values(text: str, last_only: bool = True) -> list[str]:
    """What each row of a table in ``text`` states (``last_only``: its last cell, "| 1 | 3 |" is n = 1 giving 3;
    else every cell), header and rule rows skipped, and each HTML list item."""
    values: list[str] = [m.group(1) for m in _HTML_ITEM.finditer(text)]
    for row in _HTML_ROW.finditer(text):
        tagged = [(c.group(1).lower(), c.group(2)) for c in _HTML_CELL.finditer(row.group(1))]
        if tagged and tagged[-1][0] == "td":  # a row of <th> is a header
            values += [tagged[-1][1]] if last_only else [cell for _, cell in tagged]
    rows = list(_PIPE_ROW.finditer(text))
    for i, row in enumerate(rows):
        cells = [c.strip() for c in row.group(1).split("|")]
        if not set("".join(cells)) - set("-: "):
            continue  # the rule row
        ruled = i + 1 < len(rows) and not set(rows[i + 1].group(1)) - set("-:| \t")
        if not ruled and cells:  # the row above the rule is the header
            values += cells[-1:] if last_only else cells
    return values


def set_out_beside(after: str, read: str, plain: Callable[[str], str]) -> str | None:
    """Another answer set out after the one read (``read``, as ``plain`` writes it): a JSON answer key, or the
    answer listed in a list or table beside another candidate; None otherwise."""
    after = after[:_SET_OUT_CHARS]
    if not read or not any(mark in after for mark in ('"', "'", "\n", "<t", "<li", "|")):
        return None
    for keyed in _JSON_KEY.finditer(after):
        value = plain((keyed.group(1) or keyed.group(2) or keyed.group(3) or "").strip())
        if value and value != read:
            return value
    items = [plain(m.group(1).strip(" *_$")) for m in _LIST_ITEM.finditer(after)]
    items += [plain(value.strip(" *_$")) for value in table_values(after, last_only=False)]
    items = [item for item in items if item and set(item) - set("-: ")]  # a table's rule row is no item
    if read in items:
        others = [item for item in items if item != read]
        if others:
            return others[0]  # the answer listed beside another candidate
    return None


# Round 13 (H7's before_slot): another value offered right BEFORE the answer, in the clause that leads into it ("The
# answer is 384 or \\boxed{284}.", "384 / \\boxed{284}", "Either 384 or", "Between 384 and", "(384 or)",
# "384 oder", "384或", "384 または", "384 또는"): the tail readings look after the answer only, and the lead-in
# hedges as well. Only a connector that closes the lead-in right before the answer, after a plain number that is not the
# answer's own value ("= 1.25, or \\boxed{1.25}" restates it).
_OR_WORDS = r"or|oder|ou|o|ó|u|или|либо|oppure|ou\s+bien"
_ALTERNATIVE_BEFORE = re.compile(
    r"([-+]?\d[\d.,]*)\$?[\s$*_]*,?[\s$*_]*"
    r"(?:(?<![^\W\d_])(?:" + _OR_WORDS + r")(?![^\W\d_])|或者?|还是|または|か|또는|혹은|아니면|/)"
    r"[\s$*_()\[{]*(?:\\\(|\\\[)?[\s$]*(?:<\w{1,20}>)?\Z"
    r"|(?<![^\W\d_])(?:between|zwischen|entre|между|tra|fra)\s+\$?(?:([-+]?\d[\d.,]*)|[^\n]{1,60}?)\$?\s+"
    r"(?:and|und|et|y|e|и)[\s$*_]*(?:<\w{1,20}>)?\Z"
    r"|介于\s*\$?([-+]?\d[\d.]*)\$?\s*(?:和|与|與)[\s$]*\Z",
    re.IGNORECASE,
)


def alternative_before(before: str, answer: str) -> str | None:
    """The connector that offers another value right before ``answer`` ("384 or", "384 /", "between 384 and"), or
    None. Reads the last 160 characters of the lead-in; never raises."""
    if not isinstance(before, str) or not before or not isinstance(answer, str):
        return None
    window = before[-160:]
    end = _OPENING_TAG.sub("", window).rstrip(" \t$*_()[{\\")
    if not end.endswith(_CONNECTOR_ENDS) or (_DIGIT.search(window[-60:]) is None and "etween" not in window):
        return None  # speed: every reading ends in a connector, after a number close before it or "between"
    found = _ALTERNATIVE_BEFORE.search(window)
    if found is None:
        return None
    value = (found.group(1) or found.group(2) or found.group(3) or "").rstrip(".,")
    mine = NUMBER.findall(answer)
    if value in mine or (mine and _same(value, mine[0]) and len(mine) == 1):
        return None  # the answer's own value said before it ("1.25, or \\boxed{1.25}")
    return found.group(0).strip(" \t$*_([{")


def _same(left: str, right: str) -> bool:
    try:
        return float(left.replace(",", "")) == float(right.replace(",", ""))
    except ValueError:
        return False


# Round 13 (H7's wrapped_slot): the answer inside an expression or phrase that makes it another value ("The answer is
# $-\\boxed{284}$.", "$2\\boxed{284}$", "$\\frac{1}{\\boxed{284}}$", "$\\sqrt{\\boxed{284}}$", "negative \\boxed{284}",
# "half of \\boxed{284}", "ten times", "minus", "负"): the stated answer is the whole expression, not the box in it.
# Read right before the answer: an operator or a function opened around it, a digit glued to it, or a word that
# scales or negates; a list's "- " at a line's start and "= " are no such thing.
_WRAPPING_BEFORE = re.compile(
    r"(?:[-−]|\\cdot|\\times|(?<!\*)\*|[×/^]|\\sqrt\s*(?:\[[^\]]{0,10}\])?\s*\{|\\[dt]?frac\s*\{[^{}]{0,40}\}\s*\{"
    r"|\\[dt]?frac\s*\{|\^\s*\{)[ \t$]*\Z|\d\$?\Z"
    r"|(?<![^\W\d_])(?:negative|minus|half\s+of|twice|double|triple|thrice|\w+\s+times"
    r"|the\s+(?:reciprocal|square\s+root|negative|opposite|inverse|cube\s+root|square)\s+of|moins|menos|минус|negativ)"
    r"[ \t$]*\Z|(?:负|負|마이너스)[ \t$]*\Z",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d")
# How each connector of ``_ALTERNATIVE_BEFORE`` ends (a C-level ``endswith`` before the regex runs).
_CONNECTOR_ENDS: tuple[str, ...] = tuple(
    (
        "or OR Or der ou o ó u или бо ppure ien / 或 者 还是 または か 또는 혹은 아니면 and AND nd et y e и 和 与 與"
    ).split()
)
_WRAPPING_ENDS = frozenset("-−*×/^{")
_OPENING_TAG = re.compile(r"<\w{1,20}>[ \t]*\Z")
_BULLET_BEFORE = re.compile(r"(?:^|\n)[ \t]*[-−][ \t$]*\Z")


def wrapping_before(before: str) -> str | None:
    """What makes the answer right after ``before`` another value ("-", "\\\\frac{1}{", "2", "half of"), or None."""
    if not isinstance(before, str) or not before:
        return None
    window = _OPENING_TAG.sub("", before[-120:])  # "-<answer>": the tag opens the answer
    end = window.rstrip(" \t$")[-1:]
    if not end or not (end.isalnum() or end in _WRAPPING_ENDS):
        return None  # speed: what can wrap the answer ends in a sign, a digit, a brace or a word
    if _BULLET_BEFORE.search(window):
        return None  # "- \\boxed{3}": a list item
    found = _WRAPPING_BEFORE.search(window)
    return found.group(0).strip(" \t$") or None if found is not None else None


def offered_before(before: str, answer: str) -> str | None:
    """Another value offered right before the answer, or an expression wrapped around it (both readings above)."""
    return alternative_before(before, answer) or wrapping_before(before)


# Round 13 (H7's encoded_alternative): a JSON object after the answer with a key that offers another value
# ('{"answer": "331", "or": "&#52;&#51;&#49;"}', "alternative", "otherwise", "oder", "或"): the key says "or" whatever
# its value's encoding (entities, \\char, %-escapes), so the key alone is read.
_ALTERNATIVE_KEY = re.compile(
    r"[{,]\s*[\"'](?:or|alternative(?:ly)?|alt|otherwise|else|other(?:[_ ]answer)?|also|second(?:[_ ]answer)?|maybe"
    r"|oder|ou|o|или|或|或者|または|또는)[\"']\s*:",
    re.IGNORECASE,
)


# ... and H7's split_answer: a table cell or a list item that opens with "or" before a value ("| or 200 |",
# "<td>or 200</td>"), or "or" alone on its line above one ("or\n2*(...) + 1"): a sentence reading never sees it open a
# sentence ("\n\nOr 22/4." is one, judged by its value by ``later_alternative``).
_CELL_ALTERNATIVE = re.compile(
    r"(?:(?:\||<t[dh]\b[^<>]{0,40}>|<li\b[^<>]{0,40}>)[ \t*_]*(?:or|oder|ou|o|или|或|または|또는)[ \t*_]*"
    r"|(?:^|\n)[ \t*_]*(?:or|oder|ou|o|или|或|または|또는)[ \t*_]*\n[ \t]*)\$?(?=[-+]?\d|\\(?:frac|sqrt|boxed)|\()",
    re.IGNORECASE,
)


def keyed_alternative(after: str) -> str | None:
    """A JSON key after the answer that offers another value ('"or":'), or a cell, item or line opening with "or"
    before a value ("| or 200 |"), or None."""
    if not isinstance(after, str):
        return None
    text = after[:4_000]
    found = _ALTERNATIVE_KEY.search(text) if ":" in text else None
    if found is None and ("|" in text or "<" in text or "\n" in text):
        found = _CELL_ALTERNATIVE.search(text)
    return found.group(0).strip("{,|<>\n \t") or None if found is not None else None
