"""What an answer's terms say about it (issue 26, round 6): how exact it claims to be, which value
its digits spell in the answer's language, what may follow it without changing it.

Refusals (each returns a reason for the verdict's details, or None):

* ``approximate``: an approximation marker (``\\approx 3``, ``about 3``, ``3 (roughly)``, ``3-ish``,
  ``περίπου``) on the answer to a task that wants an exact value. Approximation stays fine where
  the task asks for one (its prompt says round, nearest, approximately, decimal places,
  significant figures ...) or its gold is itself a rounded decimal or carries a marker.
* ``set_for_scalar``: a set or interval (``\\{3\\}``, ``[3, 4]``) answering a one-value gold.
* ``prime_after``: a prime after the box (``\\boxed{3}'``, ``\\boxed{3}^\\prime``): 3 feet or 3
  minutes of arc is not 3, as ``\\boxed{3'}`` is not (round 5).

Readings that keep honest answers paid:

* ``without_ordinal``: an ordinal suffix that is the number's own (``\\boxed{3}rd``,
  ``\\boxed{21}^{\\text{st}}``, ``\\boxed{3}ème``) is dropped before the tail is read; another
  suffix (``\\boxed{3}th``) is left to the tail checks (refused as an unknown word).
* ``restated``: a justification after the answer (``, since 2+4=6``, ``because``, ``weil``,
  ``因为``) whose equation ends in the answer's own value restates it; the answer is the value
  before it (``The answer is 6, since 2+4=6.``). One ending in another value is not cut.
* ``dot_grouped``: ``3.000`` is 3000 where the task is written in a language that groups digits
  with a dot (German, Spanish, Italian, Portuguese, Dutch, Indonesian, Turkish, Vietnamese,
  Danish, Romanian ...), read from the prompt's own function words; elsewhere it stays 3.

Each is linear in its input and never raises on any ``str``.
"""

from __future__ import annotations

import re

from rlvr_envs.tail_lexicon import APPROXIMATIONS
from rlvr_math.normalize import clean, parse_number

_ASKS_APPROXIMATE = re.compile(
    # English, each a whole word in the sense of asking for a rounded value: "round" with what it
    # rounds to close by (not "around", "playground", "3 rounds", "round table"), "to the
    # nearest/closest ...", place values, "about how many".
    r"\bround(?:ed|ing)?\b(?=[^.?!\n]{0,40}?\b(?:to|off|up|down|nearest|closest|decimal|places?|whole|integer|"
    r"tenths?|hundredths?|thousandths?|digits?|significant|percent|cents?|dollars?)\b)"
    r"|\bto\s+the\s+(?:nearest|closest)\b|\bnearest\s+(?:whole|integer|tenth|hundredth|thousandth|percent|cent|dollar)"
    r"|\bapproximat\w*|\bestimat\w*|\bdecimal\s+places?\b|\bsignificant\s+(?:figures?|digits?)\b"
    r"|\bto\s+the\s+(?:tenth|hundredth|thousandth|ten[- ]thousandth|millionth)s?\b"
    r"|\b\d+(?:st|nd|rd|th)\s+(?:decimal|digit|place)"
    r"|\b(?:about|roughly|around)\s+how\s+(?:many|much|long|far|old)\b"
    # Other languages: the rounding verbs and "about" in a value's sense only.
    r"|\bgerundet\b|\brunden\s+sie\b|\bungefähr\b|\bnachkommastellen?\b"
    r"|\barrondi(?:e|s|es|r|ssez|ssant)?\b|\benviron\b|\bredonde\w*|\baproximad\w*|\barrotond\w*|\barredond\w*"
    r"|\bокругл\w*|\bпримерно\b|四舍五入|四捨五入|精确到|精確到|保留[^。？?]{0,6}位|近似|大约|大約|约(?=\s*[\d０-９]|为|等于|是多少|多少|几)"
    r"|約(?=\s*[\d０-９]|何)|およそ|概算|반올림|약\s*(?=[\d０-９]|몇)|대략",
    re.IGNORECASE,
)
_ROUNDED_DECIMAL = re.compile(r"^\s*-?\d*\.\d+\s*$")

# Round 12: only the QUESTION's request counts. "Mark estimates it will cost $5." and "Approximately 300 people came."
# are the problem's data: the answer asked for is still exact. A sentence requests when it asks (ends in "?"), is
# the prompt's last, or opens with a request (an imperative, "please", a "what/how" word) or names the answer.
_SENTENCES = re.compile(r"[^.!?。！？\n]*(?:[.!?。！？]+[)）\]\s]*|\n+|$)")
_REQUEST_OPENING = re.compile(
    r"[\s(\[（*_#>-]*(?:please\s+|then\s*,?\s+|now\s*,?\s+|also\s*,?\s+|bitte\s+|(?:\d+|[a-z])[.)]\s+)?"
    r"(?:find|compute|calculate|determine|evaluate|express|give|round|estimate|approximate|write|state|enter|report|provide"
    r"|simplify|solve|answer|use|show|what|how|which|who|when|where|why|to\s+the\s+nearest|correct\s+to"
    r"|runden|gib|geben|berechne|berechnen|bestimme|bestimmen|wie|was|welche|arrondi\w*|donne\w*|calcule\w*|d[ée]termine\w*"
    r"|quel\w*|combien|redonde\w*|calcul[ae]\w*|da|dé|cuánt\w*|cuál\w*|qué|arrotond\w*|arredond\w*|округл\w*|найди\w*|сколько)"
    r"(?![\w'])",
    re.IGNORECASE,
)
_NAMES_ANSWER = re.compile(
    r"(?<![\w'])(?:answer|antwort|réponse|respuesta|risposta|resposta|ответ)|答案|答え|结果|結果|답", re.IGNORECASE
)


def asks_approximation(prompt: str) -> bool:
    """Whether the task's request (not its data) asks for an approximate value (``_ASKS_APPROXIMATE``)."""
    text = prompt[:20_000] if isinstance(prompt, str) else ""
    if _ASKS_APPROXIMATE.search(text) is None:
        return False  # the common case: no word of that sense anywhere
    sentences = [m.group(0) for m in _SENTENCES.finditer(text) if m.group(0).strip()]
    for i, sentence in enumerate(sentences):
        if _ASKS_APPROXIMATE.search(sentence) is None:
            continue
        if (
            i == len(sentences) - 1
            or re.search(r"[?？]", sentence)
            or _REQUEST_OPENING.match(sentence)
            or _NAMES_ANSWER.search(sentence)
        ):
            return True
    return False


def approximate(pred_raw: str, sentence_after: str, gold: str, prompt: str) -> str | None:
    """An approximation marker in or right after the answer of a task that wants an exact value."""
    if APPROXIMATIONS.search(pred_raw[:2_000]) is None and APPROXIMATIONS.search(sentence_after[:400]) is None:
        return None  # the common case, decided without cleaning anything
    if APPROXIMATIONS.search(gold) or _ROUNDED_DECIMAL.match(clean(gold)) or asks_approximation(prompt):
        return None
    text = clean(pred_raw[:2_000])
    found = APPROXIMATIONS.search(text)
    if found is not None and not _LEADS.match(text[: found.start()]):
        found = None  # "x = \\frac{1}{3} \\approx 0.33": the exact value is stated, then rounded
    found = found or APPROXIMATIONS.search(sentence_after[:400])
    if found is None:
        return None
    return f"approximate answer ({found.group(0).strip()!r}) to a task that wants an exact value"


# What may stand before a leading approximation: nothing, a name ("x", "x_1", "f(2)"), "=" or a word.
_LEADS = re.compile(
    r"^[\s$({]*(?:(?:[A-Za-z](?:_\{?\w+\}?)?(?:\([^()]{0,20}\))?|\\[A-Za-z]+)\s*=?\s*)?(?:is\s+|es\s+|ist\s+)?$"
)


_SET_OPEN = re.compile(r"^\s*\$?\s*(?:\\left\s*)?(?:\\\{|\\lbrace|\{(?=[^{}]*,)|\[|\((?=[^()]*,))")


def set_for_scalar(pred: str, gold: str, gold_is_set: bool) -> str | None:
    """A set or interval answering a gold that is one value (a number)."""
    if gold_is_set or not _SET_OPEN.match(pred) or not (pred.count(",") or "\\{" in pred or "\\lbrace" in pred):
        return None
    if parse_number(clean(gold)) is None:
        return None
    return "a set or interval answering a one-value question"


_PRIME = re.compile(r"\s*(?:'|′|″|\^\s*\{?\s*\\prime|\\prime)")


def prime_after(after: str, before: str) -> str | None:
    """A prime right after the box (not a closing quote around a quoted box)."""
    if _PRIME.match(after) is None or before.rstrip().endswith(("'", "‘", "`")):
        return None
    return "a prime after the value (feet, minutes): not the number itself"


_ORDINAL = re.compile(
    r"(?:\^\s*\{?\s*)?(?:\\text(?:rm|up)?\s*\{\s*)?(st|nd|rd|th|ème|eme|e|er|re|ère|º|ª|ᵉ|ᵗʰ|ˢᵗ|ⁿᵈ|ʳᵈ)\s*\}?\s*\}?(?![\w])",
)
_ENGLISH_ORDINAL = {1: "st", 2: "nd", 3: "rd"}


def _own_suffix(value: int, suffix: str) -> bool:
    suffix = {"ˢᵗ": "st", "ⁿᵈ": "nd", "ʳᵈ": "rd", "ᵗʰ": "th"}.get(suffix, suffix)
    if suffix in ("st", "nd", "rd", "th"):
        own = "th" if value % 100 in (11, 12, 13) else _ENGLISH_ORDINAL.get(value % 10, "th")
        return suffix == own
    if suffix in ("er", "re", "ère"):
        return value == 1  # French 1er / 1re
    if suffix in ("ème", "eme", "ᵉ"):
        return value != 1
    return suffix in ("º", "ª")  # Spanish, Portuguese, Italian 3º / 3ª


def without_ordinal(after: str, answer: str) -> str:
    """``after`` without a leading ordinal suffix that is the answer's own (``rd`` after 3)."""
    text = answer.strip().strip("$").strip()
    if not text.isdigit() or len(text) > 12:
        return after
    found = _ORDINAL.match(after)
    if found is None or not _own_suffix(int(text), found.group(1)):
        return after
    return after[found.end() :]


_REASON = re.compile(
    r"\s*[,;(]?\s*(?:since|because|as|for|given\s+that|due\s+to|weil|da|denn|car|puisque|parce\s+que|porque|pues"
    r"|ya\s+que|perché|poiché|dato\s+che|pois|так\s+как|потому\s+что|поскольку|ponieważ|bo|omdat|want|çünkü"
    r"|karena|kerana|sebab|vì|bởi\s+vì|لأن|क्योंकि|kwa\s+sababu|επειδή|כי|dahil|koska|protože|deoarece|fiindcă)"
    r"(?![\w'-])|\s*[,;(]?\s*(?:因为|因為|由于|由於|なぜなら)",
    re.IGNORECASE,
)
_EQUATION_END = re.compile(r"=\s*\$?\s*([-+]?\d+(?:[.,]\d+)?)\s*\$?\s*\)?\s*[.。!]?\s*$")


def restated(head: str, justification: str) -> bool:
    """Whether ``justification`` ("since 2+4=6") ends with an equation whose value is ``head``'s."""
    found = _EQUATION_END.search(justification[:400].replace("$", " "))
    if found is None:
        return False
    mine, theirs = parse_number(clean(head)), parse_number(clean(found.group(1)))
    return mine is not None and theirs is not None and mine.value == theirs.value


def justified_tail(after: str, answer: str) -> bool:
    """Whether the rest of the answer's line is a justification restating its value."""
    line = after.split("\n", 1)[0]
    opened = _REASON.match(line)
    return opened is not None and restated(answer, line[opened.end() :])


# Round 13: "3 (not 4)" in an answer read without a box: a contrast with another value, as "\\boxed{3} (not 4)" and
# "\\boxed{3}, not 4." are read after a box; "3 (not 3)" takes the answer back and stays.
_CONTRAST_TAIL = re.compile(
    r"\s*[(（]\s*(?:not|nicht|pas|no|non|не|não|不是|ではなく|아님)\s*\$?\s*(-?\d+(?:[.,]\d+)?)\s*\$?\s*[)）]\s*$",
    re.IGNORECASE,
)
_HEAD_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")


def without_contrast(phrase: str) -> str:
    """An answer phrase without a closing contrast with another value (``3 (not 4)`` -> ``3``); unchanged otherwise."""
    if not isinstance(phrase, str) or ("(" not in phrase and "（" not in phrase):
        return phrase
    found = _CONTRAST_TAIL.search(phrase[-160:])
    if found is None:
        return phrase
    head = phrase[: len(phrase) - len(phrase[-160:]) + found.start()].rstrip()
    mine = _HEAD_NUMBER.findall(head)
    return head if mine and found.group(1) not in mine else phrase


def without_justification(phrase: str) -> str:
    """An "answer is" phrase cut before a justification that restates its value (``6, since 2+4=6``)."""
    for found in _REASON.finditer(phrase[:400]):
        head = phrase[: found.start()].strip().strip("$").strip()
        if head and restated(head, phrase[found.end() :]):
            return head
    return phrase


# Function words of the languages that group digits with a dot (1.234,5): two distinct ones in the
# prompt mark its language. German, Spanish, Italian, Portuguese, Dutch, Indonesian/Malay, Turkish,
# Vietnamese, Danish/Norwegian, Romanian, Greek, Slovenian/Croatian.
_DOT_GROUPING_WORDS = frozenset(
    """der die das und ist sind wie viele viel hat haben ein eine einer nicht mit von für auf dem den des zu im
    wird werden kostet jeder jede insgesamt euro
    el los las y es son cuántos cuántas cuánto tiene del con por para una que cada
    il gli è sono quanti quante quanto ha della delle con per che ogni
    os as é são quantos quantas quanto tem com por uma cada
    het een zijn en hoeveel heeft met voor van elke
    dan adalah berapa yang dengan untuk dari setiap
    ve bir kaç kadar ile için bu her
    và là bao nhiêu có của cho mỗi
    og er hvor mange har med til en et
    și este câte câți are cu pentru fiecare
    και είναι πόσα πόσοι έχει με για""".split()
)
_MAYBE_DOT_GROUPED = re.compile(r"\d\.\d{3}")
_DOT_GROUPED = re.compile(r"^\s*([-+]?\d{1,3}(?:\.\d{3})+)\s*$")
_WORD = re.compile(r"[^\W\d_]+")


def dot_grouping_language(prompt: str) -> bool:
    """Whether the prompt is written in a language that groups thousands with a dot."""
    words = {w.lower() for w in _WORD.findall(prompt[:4_000])}
    return len(words & _DOT_GROUPING_WORDS) >= 2 and len(words & _ENGLISH_MARKERS) < 2


_ENGLISH_MARKERS = frozenset("the is are how many much what of and".split())


def dot_grouped(pred: str, prompt: str) -> str:
    """``3.000`` as ``3000`` in a task written in a language that groups digits with a dot."""
    if "." not in pred or not _MAYBE_DOT_GROUPED.search(pred):
        return pred  # the common case, decided without cleaning
    found = _DOT_GROUPED.match(clean(pred))
    if found is None or not dot_grouping_language(prompt):
        return pred
    return found.group(1).replace(".", "")
