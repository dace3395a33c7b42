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

from rlvr_envs.tail_arithmetic import math_span, value_of
from rlvr_envs.tail_lexicon import ALTERNATIVES, BETWEEN_VALUES, CORRECTIONS, RESTATEMENTS
from rlvr_envs.tail_words import LATEX_COMMAND

SENTENCE_END = re.compile(r"(?<!\d)\.(?!\d)|[!。！\n]|[?？]")
"""Where a sentence ends (a decimal point does not end it)."""
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


_SENTENCE_REST = re.compile(r"[\s$*_)\]}.!。！]*$")
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
    if own not in said or said == own or "=" in said:
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
    if not said or len(said) > 80 or len(said.split()) != len(answer.split()):
        return False
    return _folded(said) != _folded(answer)


def later_alternative(rest: str, answer: str) -> str | None:
    """A sentence after the answer's that opens with an alternative, or with a reconsideration
    ("Actually, it is 7.", "On second thought: 7."), and states another value (judged by its exact value
    where it is arithmetic: "Or 2(\\frac{11}{2}) + 1" is 12), or None."""
    mine = NUMBER.findall(answer)
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
    restated = _restated_other(rest, answer, mine)
    if restated is not None:
        return restated
    for later in re.split(r"(?<=[?？])", rest[:2_000])[:3]:
        # "Wait, or is it 4?": a question about another value right after the answer.
        values = NUMBER.findall(later)
        if QUESTION_MARK.search(later) and values and values[0] not in mine:
            return "?"
    return None


QUESTION_MARK = re.compile(r"[?？]\s*$")
