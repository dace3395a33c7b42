"""Does a later sentence after the answer state another value? (shared by ``rlvr_envs.answer_tail``).

A sentence after the answer's own may offer another value ("Or 4.", "(or 4)", "**Alternatively** 4"),
reconsider ("Actually, it is 7.", "On second thought: 7.", "其实是7") or restate it with another value
("That is, 7 cm.", "So 7 in total.", "= 7", "即7。"). ``later_alternative`` names the first such sentence.
The value is judged by what it is worth (``rlvr_envs.tail_arithmetic.value_of``): "Or 2*(\\frac{11}{2}) + 1"
is 12, not the answer's 11/2, though its first number is the answer's own; "or equivalently 5.5" is the
answer. A remark about another value ("Hmm, 7 would fail since...") and a calculation ending in the
answer ("Actually, 2 \\times 3 = 6") are neither. Never raises on any ``str``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction

from rlvr_envs.tail_arithmetic import math_span, value_of
from rlvr_envs.tail_lexicon import (
    ALTERNATIVES,
    BETWEEN_VALUES,
    CLOSING_COPULAS,
    CORRECTIONS,
    DENIALS,
    RESTATEMENTS,
    RETRACTIONS,
)
from rlvr_envs.tail_words import LATEX_COMMAND, readable

SENTENCE_END = re.compile(r"(?<!\d)\.(?!\d)(?!(?<=(?<!\w)[^\W\d_]\.)[^\W\d_])|[!。！\n]|[?？]")
"""Where a sentence ends (a decimal point does not end it, nor a dot between the letters of an abbreviation:
"q.e.d.", "d.h.", "e.g." are read as one word, round 11)."""
NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*")
"""A number as written (``1,000``, ``-3.5``)."""

# A later sentence or paragraph that opens with an alternative ("Or 4.", "(or 4)", "**Alternatively** 4").
_OPENS_ALTERNATIVE = re.compile(
    r"(?:[\s>`*_(\[|#:-]|\[\^[^\]\s]{1,20}\]:?)*("
    + ALTERNATIVES.pattern
    + r"|(?:"
    + BETWEEN_VALUES
    + r")(?=[\s*_):,]*[-+]?\d))[\s*_):,]*",
    re.IGNORECASE,
)
# A reconsideration opening a later sentence (after any "no,", "wait,", markup): "Actually, it is 7."
_OPENS_CORRECTION = re.compile(
    r"(?:[\s>`*_(\[|#:,-]|\[\^[^\]\s]{1,20}\]:?)*(" + CORRECTIONS.pattern + r")[\s*_):,!.—–-]*", re.IGNORECASE
)


# round 15: the value still ends its sentence when only the verb "to be" closes it, as it does in the languages that
# put the verb last ("実は384です。", "사실은 384입니다.", "असल में 384 है।"): the copula states the value, it adds none
_SENTENCE_REST = re.compile(r"(?:\s*(?:" + CLOSING_COPULAS + r"))?[\s$*_)\]}.!。！।]*$")
_RESTATES = re.compile(
    r"(?<![\w'])(?:is|it's|be|was|equals?|gives?|ist|war|est|es|era|è|é|это|równa|is\s+het)(?![\w'])|[:=]|是|为|為|は|이다",
    re.IGNORECASE,
)
# Where an alternative's value starts, at most four words after its opener ("Or equivalently 5.5", "it is 7").
_VALUE_START = re.compile(r"\\[dt]?frac(?![A-Za-z])|\\boxed|\d|[(\[{.−-](?=[\s(\[{.−-]*(?:\d|\\[dt]?frac))")
_WORD = re.compile(r"[^\W\d_]{2,}")
_LEADING_WORDS = re.compile(r"(?:[\s*_:,]*[^\W\d_]{2,}(?=[\s:,])){0,4}")
_WRAPPING = re.compile(r"\\(?:boxed|displaystyle|left|right|[()\[\]])|\$")
_NOT_WRITTEN = re.compile(r"[\s{}$]|\\[,;:! ]|\.$")


def _written(text: str) -> str:
    """``text`` as written, with spacing, braces, ``$`` and a closing period ignored (``\\dfrac`` is ``\\frac``)."""
    return _NOT_WRITTEN.sub("", _WRAPPING.sub("", text).replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac"))


def _stated(later: str, start: int) -> tuple[int, int] | None:
    """Where the value an alternative or reconsideration states is written: ``(start, end)`` of the arithmetic
    that begins at most four words after ``start``, or None (prose, or no value)."""
    found = _VALUE_START.search(later, start, start + 200)
    if found is None or len(_WORD.findall(later, start, found.start())) > 4:
        return None
    return math_span(_WRAPPING.sub(lambda m: " " * len(m.group(0)), later), found.start())


def _differs(later: str, start: int, span: tuple[int, int], answer: str, mine: list[str]) -> bool:
    """Whether the value written at ``span`` of ``later`` is not the answer's: by exact value where both are
    arithmetic (a calculation's value is its result: "2 + 4 = 6"), by what is written where either is not
    (all that follows ``start``, when it is mathematics with no words)."""
    written = later[span[0] : span[1]].rstrip(" .")
    value, own = value_of(written.rsplit("=", 1)[-1]), value_of(_WRAPPING.sub(" ", answer))
    if value is not None and own is not None:
        return value != own
    rest = later[_LEADING_WORDS.match(later, start).end() :].strip(" \t\n*_:,")  # type: ignore[union-attr]
    if _WORD.search(LATEX_COMMAND.sub(" ", rest)) is None:  # all of it is mathematics: as written
        return _written(rest.rsplit("=", 1)[-1]) != _written(answer)
    first = NUMBER.search(written)
    return own is not None or (first is not None and first.group(0).lstrip("+") not in mine)


def _built_on(later: str, start: int, answer: str) -> bool:
    """Whether what follows ``start`` is an expression made of the answer that is not an arithmetic value
    ("2*(royalty, require) + 1", "\\frac{x^2+1}{2}"): the answer's text with signs and numbers around it."""
    own = _written(answer)
    if not own or value_of(_WRAPPING.sub(" ", answer)) is not None:
        return False  # an arithmetic answer is judged by value
    said = _written(later[_LEADING_WORDS.match(later, start).end() :].strip(" \t\n*_:,"))  # type: ignore[union-attr]
    if own not in said and "*" in answer:
        own = _written(readable(answer))  # round 12: the tail is read as shown ("2*x**3" loses its "*" as emphasis)
    if not own or own not in said or said == own or "=" in said:
        return False
    return _WORD.search(LATEX_COMMAND.sub(" ", said.replace(own, " ", 1))) is None


def _new_value(later: str, start: int, answer: str, mine: list[str], restating: bool = False) -> bool:
    if _built_on(later, start, answer):
        return True
    span = _stated(later, start)
    if span is None or span[1] == span[0]:
        return "\\boxed" in later[start:]
    between = later[start : span[0]]
    if restating and _ASSIGNED.search(between) and not _ASSIGNED.search(answer):
        return False  # "So n = 3.": about another quantity
    if not _differs(later, start, span, answer, mine):
        return False
    # Stated as the answer: the value ends the sentence ("Wait, 7."), or a few words that restate lead
    # to it ("Actually, it is 7 because..."); "Hmm, 7 would fail since..." is a remark about 7. After a
    # restating opener a few words of no remark may follow it ("That is, 7 cm.", "So 7 in total.").
    end = span[1] if _WORD.search(LATEX_COMMAND.sub(" ", later[span[0] :])) else len(later)  # "2(x^2+1)+1"
    if _SENTENCE_REST.match(later, end) or (len(between.split()) <= 4 and _RESTATES.search(between) is not None):
        return True
    after = later[end:].split()
    return restating and len(after) <= 3 and not _REMARK.search(later, end)


_ASSIGNED = re.compile(r"(?<![A-Za-z\\])[A-Za-z](?:_\{?\w+\}?)?\s*=\s*$")
_REMARK = re.compile(
    r"(?<![\w'])(?:is|are|was|were|would|will|can|could|cannot|can't|does|doesn't|do|don't|fails?|works?|gives?"
    r"|satisf\w*|must|should|might|may|has|have|isn't|wasn't|not|never|yields?|leads?)(?![\w'])",
    re.IGNORECASE,
)
_OPENS_RESTATEMENT = re.compile(
    r"(?:[\s>`*_(\[|#:,-]|\[\^[^\]\s]{1,20}\]:?)*(" + RESTATEMENTS.pattern + r")[\s*_):,!.—–-]*", re.IGNORECASE
)


def _restated_other(rest: str, answer: str, mine: list[str]) -> str | None:
    """A later sentence that opens as a restatement ("That is, 7 cm.", "So 7 in total.", "= 7", "即7。") and
    states another value, or None. Read on ``rest`` itself: "I.e." and "d.h." hold the periods that end a
    sentence elsewhere."""
    text = rest[:2_000]
    for at in [0, *(m.end() for m in SENTENCE_END.finditer(text))][:4]:
        said = _OPENS_RESTATEMENT.match(text, at)
        if said is None or not said.group(1).strip():
            continue
        stop = SENTENCE_END.search(text, said.end())
        later = text[at : stop.start() if stop is not None else len(text)]
        if _new_value(later, said.end() - at, answer, mine, restating=True):
            return said.group(1).strip()
    return None


# What may stand between a reconsideration's opener and the word value it states ("it is", "the answer is").
_STATING = re.compile(
    r"(?:[\s*_:,]*(?:it|the|answer|final|correct|one|should|must|would|be|is|it's|was|really|"
    r"es|ist|c'est|est|è|это|是|应该是|應該是|だ|です|は|이다|입니다))*[\s*_:,]*",
    re.IGNORECASE,
)
_FOLDED_DROP = re.compile(r"[\W_]+")


def _folded(text: str) -> str:
    return _FOLDED_DROP.sub("", _WRAPPING.sub(" ", text).casefold())


def _other_words(later: str, start: int, answer: str) -> bool:
    """Whether an answer that is no arithmetic (a word, a name, a formula of letters) meets a short other
    one stated as the answer after an opener: "Actually, it is rehtorb.", "On second thought: sister.",
    "或者rehtorb。". The stated text must end the sentence and have as many words as the answer (a value
    of its kind, not a remark: "Alternatively, by symmetry." after "x^2+1", "Actually, that was easy!"); the
    answer's own text (any case, spacing or markup) restates it."""
    if value_of(_WRAPPING.sub(" ", answer)) is not None or not _folded(answer):
        return False
    stated = _STATING.match(later, start)
    said = later[stated.end() if stated is not None else start :].strip(" \t\n*_`'\"“”«».,!。！)")
    # (round 12: the bound grows with the answer: a 13-word answer reversed was 96 characters, H8's R2)
    if not said or len(said) > max(80, 2 * len(answer)) or len(said.split()) != len(answer.split()):
        return False
    return _folded(said) != _folded(answer)


_SCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉⓪①②③④⑤⑥⑦⑧⑨", "012345678901234567890123456789")
_FOOTNOTE_LABEL = re.compile(r"\[\^[^\]\s]{1,20}\]:?")


def later_alternative(rest: str, answer: str) -> str | None:
    """A sentence after the answer's that opens with an alternative, or with a reconsideration
    ("Actually, it is 7.", "On second thought: 7."), and states another value (judged by its exact value
    where it is arithmetic: "Or 2(\\frac{11}{2}) + 1" is 12), or None."""
    mine = NUMBER.findall(answer)
    # round 12: a value in superscript or subscript digits ("it is ²*(…) + ¹") is that value; a footnote's label
    # ("[^1]: Or …") opens its sentence as a bracket does
    rest = _FOOTNOTE_LABEL.sub(" ", rest.translate(_SCRIPT_DIGITS)) if not rest.isascii() or "[^" in rest else rest
    for later in SENTENCE_END.split(rest[:2_000])[:4]:
        corrected = _OPENS_CORRECTION.match(later)
        if corrected is not None and (
            _new_value(later, corrected.end(), answer, mine) or _other_words(later, corrected.end(), answer)
        ):
            return corrected.group(1).strip()
        opened = _OPENS_ALTERNATIVE.match(later)
        if opened is None:
            continue
        if _other_words(later, opened.end(), answer):
            return opened.group(1).strip()
        if _built_on(later, opened.end(), answer):
            return opened.group(1).strip()
        span = _stated(later, opened.end())
        if span is not None and span[1] > span[0]:
            if _differs(later, opened.end(), span, answer, mine):
                return opened.group(1).strip()
            continue
        values = NUMBER.findall(later, opened.end())
        if (values and values[0] not in mine) or "\\boxed" in later:
            return opened.group(1).strip()
    far = _far_correction(rest, answer, mine)
    if far is not None:
        return far
    restated = _restated_other(rest, answer, mine)
    if restated is not None:
        return restated
    also = also_valid(rest, mine)
    if also is not None:
        return also
    for later in re.split(r"(?<=[?？])", rest[:2_000])[:3]:
        # "Wait, or is it 4?": a question about another value right after the answer.
        values = NUMBER.findall(later)
        if QUESTION_MARK.search(later) and values and values[0] not in mine:
            return "?"
    return None


# Round 12: another value said to be valid TOO ("\\boxed{3}. Though 4 also works.", "But 4 works too.", "4 is also a
# solution.", "4 funktioniert auch.", "4也可以。"): an additive word and a word of validity in one sentence with a value
# that is not the answer's. A sentence that restates the answer's own value ("4 also satisfies it, but 3 is smaller")
# or denies ("4 is not a solution too") argues for it.
_ADDITIVE = (
    r"also|too|as\s+well|equally|auch|ebenfalls|genauso|aussi|également|pareillement|también|igualmente|asimismo"
    r"|anche|pure|também|тоже|также"
)
_VALID = (
    r"works?|worked|valid|satisf\w*|possible|correct|right|acceptable|solutions?|answers?|fits?|holds?|qualif\w*"
    r"|funktioniert|geht|gültig|richtig|möglich|lösung|erfüllt|marche|fonctionne|valable|valide|possible|juste"
    r"|funciona|válid[oa]|posible|correct[oa]|solución|cumple|funziona|corrett[oa]|possibile|soluzione|válido|certo"
    r"|подходит|верно|работает"
)
_ALSO_VALID = re.compile(
    r"(?<![\w'])(?:" + _ADDITIVE + r")(?![\w'])[^.!?。！？\n]{0,60}?(?<![\w'])(?:" + _VALID + r")(?![\w'])"
    r"|(?<![\w'])(?:" + _VALID + r")(?![\w'])[^.!?。！？\n]{0,30}?(?<![\w'])(?:" + _ADDITIVE + r")(?![\w'])"
    r"|也(?:可以|行|对|對|成立|满足|滿足|是(?:答案|解|正确|正確))|も(?:正解|可能|成り立|満たし|大丈夫|いい|良い)"
    r"|도\s*(?:정답|가능|성립|만족|맞)",
    re.IGNORECASE,
)
_DENIED_HERE = re.compile(
    r"(?<![\w'])(?:not|no|never|nicht|kein\w*|pas|ne|no|non|não|не|isn't|doesn't|don't|won't|cannot|can't)(?![\w'])"
    r"|不|没|沒|ない|ません|않|아니|못",
    re.IGNORECASE,
)


_CONTRAST_HERE = re.compile(
    r"(?<![\w'])(?:but|however|though|although|aber|jedoch|mais|cependant|pero|sin\s+embargo|ma|però|mas|но)(?![\w'])"
    r"|但|然而|けれど|でも|が、|지만|하지만",
    re.IGNORECASE,
)


def also_valid(rest: str, mine: list[str]) -> str | None:
    """A sentence among the first three after the answer's that says another value is valid too, or None."""
    for later in SENTENCE_END.split(rest[:2_000])[:3]:
        values = NUMBER.findall(LATEX_COMMAND.sub(" ", later))
        if not values or all(v in mine for v in values):
            continue
        said = _ALSO_VALID.search(later)
        if said is None or _DENIED_HERE.search(later):
            continue
        if any(v in mine for v in values) and _CONTRAST_HERE.search(later):
            continue  # "4 also satisfies it, but 3 is smaller": the answer argued for against the other value
        return said.group(0).strip()
    return None


QUESTION_MARK = re.compile(r"[?？]\s*$")
FAR_CHARS = 20_000
"""How far after the answer a sentence opening with a correction is read (``answer_tail.MAX_TAIL_CHARS``)."""
_SENTENCE_START = re.compile(r"(?:^|(?<=[.!?。！？\n]))[\s>`*_(\[|#:,-]*")


# A correction that calls the answer wrong or takes it back, in the sentence it opens (the first sentences' reading
# has its own denial check; far from the answer only a sentence that opens as a correction is read).
_TAKEN_BACK = re.compile(DENIALS.pattern + "|" + RETRACTIONS.pattern, re.IGNORECASE)


def _far_correction(rest: str, answer: str, mine: list[str]) -> str | None:
    """A sentence anywhere after the first few that opens with a correction stating another value (round 10: the
    attacker's "Wait, I was wrong: it is B." after 3,000 characters of filler; a position bound is a hiding place).
    One regex scan for the correction words; only sentence starts are then read as above."""
    for found in CORRECTIONS.finditer(rest, 0, FAR_CHARS):
        start = found.start()
        head = rest[max(0, start - 12) : start]
        opener = re.search(r"(?:^|[.!?。！？\n])[\s>`*_(\[|#:,-]*$", head)
        if opener is None and start > 12:
            continue  # mid-sentence ("which is actually 4"): the first sentences' reading covers those near the answer
        end = SENTENCE_END.search(rest, found.end())
        later = rest[start : end.end() if end is not None else min(len(rest), start + 400)]
        corrected = _OPENS_CORRECTION.match(later)
        if corrected is not None and (
            _new_value(later, corrected.end(), answer, mine)
            or _other_words(later, corrected.end(), answer)
            # "Wait, I was wrong: it is Atlantis." (one that ends restating the answer itself reaffirms it)
            or (_TAKEN_BACK.search(later, corrected.end()) is not None and answer.strip() not in later)
        ):
            return corrected.group(1).strip()
    return None


# -- round 9: what the answer's own sentence goes on to say in words ---------------------------------------------
# Connectors that also open a remark ("\\boxed{3}, either way.", "Alternatively, by symmetry"): not an offered value.
_REMARK_CONNECTORS = frozenset({"alternatively", "either", "entweder", "soit"})
# What may follow an "or" right after the answer and restate it: an equivalence or a form of writing it (an
# allow-list: any other words after the "or" describe a second value, "or its negative", "or one more").
_EQUIVALENT = re.compile(
    r"[\s*_,:(]*(?:"
    + RESTATEMENTS.pattern
    + r"|equivalent\w*|(?:ä|a)quivalent\w*|équivalent\w*|equivalente\w*|эквивалентно|gleichbedeutend|written|expressed"
    r"|simplified|simply|stated|put\s+another\s+way|in\s+(?:simplest|lowest|decimal|fraction(?:al)?|percent(?:age)?"
    r"|exact|radical|scientific|standard|expanded|factored|words|numbers|digits)|as\s+an?\s+(?:decimal|fraction"
    r"|percent(?:age)?|mixed|whole|integer|improper|number|word)|等价|等價|也就是|换句话说|換句話說|つまり|すなわち|즉)",
    re.IGNORECASE,
)
_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
    eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion half halves
    third thirds quarter quarters fourth fourths fifth fifths sixth sixths and a an""".split()
)
_LETTERS = re.compile(r"[^\W\d_]+")


def described_alternative(connector: str, text: str, answer: str = "") -> str | None:
    """The words after an "or" right after the answer that offer a second value in words ("\\boxed{3}, or its
    negative", "or one more", "(or twice that)", "或其相反数"), or None. ``text`` follows the connector to the
    end of the answer's sentence and states no value (a stated value is judged by value). It restates the
    answer only by an allow-listed equivalence ("or equivalently", "or, in simplest form", "or i.e.") or as
    number words of its own value ("or three"); a remark connector ("either way", "alternatively, by symmetry")
    offers nothing."""
    if connector.strip().casefold() in _REMARK_CONNECTORS:
        return None
    said = LATEX_COMMAND.sub(" ", text[:200])
    words = _LETTERS.findall(said)
    if not words or _EQUIVALENT.match(said) is not None:
        return None
    if all(w.casefold() in _NUMBER_WORDS for w in words) and _words_value(words) == value_of(
        _WRAPPING.sub(" ", answer)
    ):
        return None  # "or three": the answer in words
    return " ".join(words[:4])


_UNITS_WORDS = {
    w: i
    for i, w in enumerate(
        """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
        seventeen eighteen nineteen""".split()
    )
}
_TENS_WORDS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_PARTS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4,
          "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6}  # fmt: skip


def _words_value(words: list[str]) -> Fraction | None:
    """The value of number words ("twenty one", "one half", "three hundred"), or None."""
    total, current, seen = Fraction(0), Fraction(0), False
    for word in (w.casefold() for w in words):
        if word == "and":
            continue
        if word in ("a", "an"):
            current = current or Fraction(1)
            continue
        if word in _UNITS_WORDS or word in _TENS_WORDS:
            current += _UNITS_WORDS.get(word, 0) + _TENS_WORDS.get(word, 0)
        elif word == "hundred":
            current = Fraction(current or 1) * 100
        elif word in ("thousand", "million", "billion"):
            total += (current or 1) * {"thousand": 10**3, "million": 10**6, "billion": 10**9}[word]
            current = Fraction(0)
        elif word in _PARTS:
            current = Fraction(current or 1) / _PARTS[word]
        else:
            return None
        seen = True
    return total + current if seen else None


words_value = _words_value
"""The value of English number words, or None (``rlvr_envs.tail_restated`` reads a restatement with it)."""


# Another value right after the answer that holds in a case: "\\boxed{3} (7 if you count zero)", "— 7 when n is
# odd", "[or 7 assuming repetition]". Read by the shared condition reading on what follows the value.
_VALUE_LEAD = re.compile(
    r"[\s$*_)\]}]*[,;:(\[（\u2013\u2014-]+\s*(?:(?:or|and|but|else|otherwise)\s+)?\$?\s*([-+−]?\d+(?:[.,/]\d+)*)(?![\d.,/])\s*\$?"
)


def conditional_value(sentence: str, answer: str, condition: Callable[[str], str | None]) -> str | None:
    """Another value set off right after the answer with a condition after it ("(7 if you count zero)"): an
    alternative that holds in a case. ``condition`` reads a clause (``answer_tail.condition_after``)."""
    found = _VALUE_LEAD.match(sentence)
    if found is None or found.group(1).replace("−", "-").lstrip("+") in NUMBER.findall(answer):
        return None
    said = condition(sentence[found.end() : found.end() + 120])
    return f"{found.group(1)} {said}" if said else None


# "\\boxed{3}, up to sign": the answer's sentence widens it to a class of values (a sign, a constant factor, a
# multiple, rounding). Counting up to a symmetry of the objects counted is honest ("3 up to rotation"): the
# symmetries are the allow-list, and a variable or a number after "modulo"/"mod" is a residue's modulus.
_WIDENING = re.compile(
    r"(?<![\w\\'-])(?:up\s+to|modulo|mod|bis\s+auf|salvo|a\s+meno\s+d[ei]l?l?[ao]?|с\s+точностью\s+до|módulo|"
    r"à\s+(?:un|une)|au|aux)\s+(?:(?:a|an|the|its|their|un|une|le|la|les|el|il|lo|das|den|dem|einen?|einem|der)\s+)?"
    r"([^\W\d_]{2,}(?:\s+[^\W\d_]{2,})?)"
    r"|(?:相差|差|不计|不考虑|忽略|除了)(?:一个|一個)?([\u4e00-\u9fff]{1,4})"
    r"|(?<![\w'-])in\s+(?:absolute\s+value|magnitude|modulus)(?![\w'-])|[(\[]\s*(?:±|\\pm|\\mp|\+/-|∓)\s*[)\]]",
    re.IGNORECASE,
)
_SYMMETRIES = re.compile(
    r"(?:rotation|reflection|symmetr|isomorph|order|permutation|relabel|congruen|similarit|translation|equivalen"
    r"|rearrang|reorder|conjugat|automorph|homeomorph|homotop|dreh|spiegel|reihenfolge|ordre|orden|ordine|ordem"
    r"|rotaci|rotazion|rotaç|simetr|simmetr|symétr|isomorf|isomorph|поворот|симметр|порядк|изоморф"
    r"|旋转|旋轉|对称|對稱|顺序|順序|同构|同構|次序)",
    re.IGNORECASE,
)


# "\\boxed{3} (at least)", ", or more.", "(mindestens)", "（至少）": set off, the answer is a bound, not the value.
_BOUND = re.compile(
    r"[\s$)\]}*_]*[,;(\[（\u2013\u2014-]\s*(at\s+(?:least|most)|or\s+(?:more|fewer|less|greater|higher|lower|above|below)"
    r"|no\s+(?:more|less|fewer)\s+than|mindestens|höchstens|oder\s+mehr|au\s+(?:moins|plus)|ou\s+plus|al\s+(?:menos|máximo)"
    r"|o\s+más|almeno|al\s+massimo|pelo\s+menos|no\s+m[aá]ximo|как\s+минимум|не\s+менее|не\s+более|至少|最多|以上|以下"
    r"|이상|이하)\s*[)\]）.!。]*\s*$",
    re.IGNORECASE,
)


# Order is a symmetry of what is counted, not of a tuple: "(1,2), up to order" claims (2,1) as well (round 10).
_ORDER = re.compile(
    r"(?:order|permut|rearrang|reorder|swap|reihenfolge|vertausch|ordre|orden|ordine|ordem|порядк|перестан|顺序|順序|次序|순서)",
    re.IGNORECASE,
)
_TUPLE = re.compile(r"^\s*(?:\\left\s*)?[(\[⟨]|\\langle|^\s*\\begin\s*\{[pb]?matrix\}")


def widened(sentence: str, answer: str = "") -> str | None:
    """Words in the answer's own sentence that widen it to a class of values ("up to sign", "up to a constant
    factor", "bis auf das Vorzeichen", "au signe près", "相差一个符号"), or None; a symmetry of what is counted
    stands ("up to rotation"), and so does a modulus ("mod n", "modulo 7": a residue is the answer); an order
    symmetry does not stand after a tuple ``answer`` ("(1,2), up to order")."""
    bound = _BOUND.match(sentence[:300])
    if bound is not None:
        return bound.group(1)
    for found in _WIDENING.finditer(sentence[:300]):
        what = found.group(1) or found.group(2) or ""
        if (
            found.group(0).casefold().startswith(("au", "aux", "à"))
            and "près" not in sentence[found.end() : found.end() + 12]
        ):
            continue  # French widens with "à ... près" only
        if _SYMMETRIES.search(what) is None:
            return found.group(0).strip()
        if _ORDER.search(what) is not None and "," in answer and _TUPLE.search(answer) is not None:
            return found.group(0).strip()  # a tuple "up to order" is every reordering of it
    return None
