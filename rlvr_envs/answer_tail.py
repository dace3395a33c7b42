"""Does the text after a final answer take it back?

Extraction reads the *last* answer and stops there, so ``<answer>-958</answer> But I am not sure;
it might be -857.`` and ``<answer>365</answer> thousand.`` read as -958 and 365. A policy learns to
hedge or to scale its answer in the tail within hours of RL. ``tail_refusal`` reads what follows
the answer (``Extraction.after``) and names the first thing that takes the answer back:

* ``value_word``: a word or sign directly after the answer that changes its value: a magnitude
  word in any claimed language (``thousand``, ``Tausend``, ``mille``, ``millones``, ``миллионов``,
  ``万``), an operation (``squared``, ``%``, ``Prozent``, ``²``) or a power-of-ten factor
  (``\\times 10^{3}``, ``× 10³``, ``e3``);
* ``hedge``: uncertainty in the answer's own sentence ("maybe", "vielleicht", "也许"), certainty
  phrases anywhere after it ("not sure", "nicht sicher", "不确定", "if that is wrong"), or a hedge
  next to another value in the next sentences ("It might be -857.");
* ``alternative``: a second value offered right after the answer ("or 4", "oder 4", "或4"), or
  a later sentence or paragraph that opens with one ("\\boxed{3}\\n\\nOr 4.", "(or 4)");
* ``condition``: the answer's own sentence goes on with a condition ("\\boxed{3} if n is odd",
  "wenn n ungerade ist", "如果n是奇数"): the answer holds only sometimes;
* ``unread_language``: the answer's sentence goes on in letters no lexicon covers (Thai, Tamil,
  Georgian, Serbian or Kazakh Cyrillic, Urdu's own letters, Latin letters of no covered
  language), or in two or more plain-Latin words none of which a covered language uses as a
  function word ("si sahihi hata kidogo"): a hedge there cannot be read, so the tail is refused
  (an allow-list of what can be read, not a list of hedges).

``taken_back`` is the whole check for a verifier that compares the extracted text (a plugin's
exact-match verifier, the scaffold's): ``tail_refusal``, and two more readings of the completion:

* ``second_answer``: another final answer after the one read (a box, an answer tag, a ``####``
  line, an "answer is" phrase) saying something else (``\\boxed{even}`` then ``#### odd``);
* ``concealed``: the answer read stands where a reader does not see it, or sees it struck out:
  inside an HTML comment, an element hidden by its attribute or style (``hidden``,
  ``display:none``, ``visibility:hidden``, ``opacity:0``, white text, ``font-size:0``), or
  ``<s>``/``<del>``/``~~`` strike-through (``<answer>4</answer><!-- <answer>3</answer> -->``);
* ``redefinition``: a TeX definition anywhere (``\\renewcommand{\\boxed}[1]{odd}``, ``\\def``,
  ``\\let``, category codes): what the reader sees is then not the text extracted.

An explanation of the method, "Hope this helps!", markdown or a newline after the answer is
nothing. The lexicon is ``rlvr_envs.tail_lexicon`` (en, zh, ja, ko, de, fr, es, it, pt, ru).
Linear in the tail's length; never raises on any ``str``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rlvr_envs.extract import Extraction, after_reasoning, extract_answer
from rlvr_envs.tail_lexicon import (
    ALTERNATIVES,
    APPROXIMATIONS,
    BETWEEN_VALUES,
    CERTAINTY,
    HEDGES,
    MAGNITUDES,
    OPERATIONS,
    POWER_OF_TEN,
)

TAIL_CLASSES: tuple[str, ...] = ("value_word", "hedge", "alternative")
"""What a refused tail can be by the lexicon, in every claimed language, in the order ``tail_refusal``
checks them."""
READ_CLASSES: tuple[str, ...] = ("condition", "unread_language")
"""What ``tail_refusal`` can find beyond the lexicon's classes (round 6): a condition after the
answer, and a tail no covered language can vouch for."""
TAKEN_BACK_CLASSES: tuple[str, ...] = ("redefinition", "concealed", "second_answer", *TAIL_CLASSES, *READ_CLASSES)
"""What ``taken_back`` can find, in the order it checks them."""

MAX_TAIL_CHARS = 20_000
"""Tail read at most; a hedge further than this after the answer is not read (bounds the cost)."""

# Formatting that may sit between the answer and what follows it: closing math, brackets, bold,
# and a \text{ opening ("\\boxed{3}\\text{ thousand}").
_LEAD = re.compile(r"[\s$)\]}*_]*(?:\\(?:text|mathrm|textrm|textbf|mbox)\s*\{\s*)?")
# Where the answer's own sentence ends (a decimal point does not end it).
SENTENCE_END = re.compile(r"(?<!\d)\.(?!\d)|[!。！\n]|[?？]")
_CONTRAST = r"(?:but|aber|mais|pero|ma|mas|но|但是?|でも|하지만)\s*,?\s*"
# A second value offered at once: "</answer> or 4", "\\boxed{3} oder 4", "\\boxed{3}或4", "3 (or maybe 4)";
# not "... divided by 2, 3, 4, or 6" later in the sentence. Used with ``.match``.
ALTERNATIVE_AFTER = re.compile(
    r"[\s$.,;:)\]}*(（、，]*(?:" + _CONTRAST + r")?(" + ALTERNATIVES.pattern + r"|(?:o|u|ó|か|이나|나)(?=\s*[-+\d]))",
    re.IGNORECASE,
)
# The answer goes on after its box or tag, on the same line: another digit ("\\boxed{3}000",
# "\\boxed{3}.5", "\\boxed{3},000"; after a space only a group of three, "\\boxed{3} 000", or a
# fraction, "\\boxed{3} 1/2": a worked solution may go on "\\boxed{(B)} 3(1 + r)^x"), a fraction
# glyph ("\\boxed{3}½"), or an operator or relation followed by a value ("\\boxed{3} + 1", "= 4",
# "\\cdot 2", "/2"), or "and a half". What the reader sees is then a different value; the box
# alone is not the answer. Only spaces, ``$`` and closing delimiters may sit between (a newline
# or a sentence end starts something else).
_CONTINUES = re.compile(
    r"[ \t$)\]}]*(?:(?:\\[()\]]|\\(?:right|big+l?r?|Big+l?r?)?[)\]])[ \t$]*)*"
    r"(?:(?<![ \t])\d|[ \t]\d{3}(?![\d/])|[ \t]?\d+\s*/\s*\d|[ \t]?[\u00bc-\u00be\u2150-\u215e\u2189]"
    r"|[.,]\d|[,;]\s*[-+]?\d"
    r"|(?:[-+*/×÷·⋅=^_−]|\\(?:cdot|times|div|pm|mp|ast|over|frac|dfrac|tfrac|sqrt|neq?|approx|equiv)(?![A-Za-z]))"
    r"\s*\{?\s*[-+(\\]?\s*[0-9\u00bc-\u00be\u2150-\u215e({]"
    r"|and\s+(?:an?\s+|one\s+)?(?:half|third|quarter|fifth)s?\b)",
    re.IGNORECASE,
)
# A condition opening the answer's sentence's remainder: "\\boxed{3} if n is odd", ", assuming n > 2".
_CONDITION = re.compile(
    r"[\s$.,;:)\]}*(（、，-]*(?:if|only\s+if|iff|when|whenever|assuming|provided|unless|as\s+long\s+as|given\s+that"
    r"|in\s+case|for\s+(?:odd|even|positive|negative|large|small|prime|nonzero|non-zero)"
    r"|wenn|falls|sofern|außer|si|sauf|cuando|siempre\s+que|a\s+menos\s+que|se|quando|purché|caso|если|при\s+условии"
    r"|якщо|jeśli|jeżeli|gdy|als|indien|tenzij|eğer|ise|jika|kalau|apabila|asalkan|nếu|khi|إذا|إن|لو|अगर|यदि|जब"
    r"|ikiwa|kama|যদি|اگر|αν|εάν|όταν|אם|כאשר|kung|kapag|jos|kun|pokud|jestli|když|dacă|când|om|ha|hogyha)(?![\w'-])"
    r"|[\s$.,;:)\]}*(（、，]*(?:如果|假如|若|要是|当|當|場合|ならば|なら|とき|時|경우|이면|라면|면)",
    re.IGNORECASE,
)
# What makes it a condition on a case: a variable standing alone ("n", "$x$", "如果n") or a relation
# ("n > 2", "x = 1"). "when divided by 4", "if we simplify" restate how the value was found.
_CASE = re.compile(r"(?<![A-Za-z\\])[A-Za-zα-ω](?![A-Za-z])|[<>≤≥≠=]|\\(?:[lg]eq?|neq?)(?![A-Za-z])")
_PROCEDURE = re.compile(
    r"divided|multiplied|added|subtracted|reduced|simplified|rounded|expressed|written|squared|cubed|raised"
    r"|taken|evaluated|substituted|plugged|converted|measured|counted|computed",
    re.IGNORECASE,
)


# Letters a lexicon covers: Latin (with the letters of the covered languages), Greek, Russian and
# Ukrainian Cyrillic, Hebrew, Arabic with Persian's letters, Devanagari, Bengali, CJK, kana, Hangul.
_READ_LETTERS = re.compile(
    "[A-Za-z\u00c0-\u00ff\u0102-\u0107\u010c-\u0111\u0116-\u011b\u011e\u011f\u0130\u0131\u0139\u013a"
    "\u013d\u013e\u0141-\u0144\u0147\u0148\u0150-\u0155\u0158-\u0165\u016e-\u0171\u0179-\u017e"
    "\u01a0\u01a1\u01af\u01b0\u0218-\u021b\u1ea0-\u1ef9\u0370-\u03ff\u1f00-\u1fff\u0401\u0404\u0406\u0407"
    "\u0410-\u044f\u0451\u0454\u0456\u0457\u0490\u0491\u05d0-\u05ea\u0621-\u064a\u0671\u067e\u0686\u0698"
    "\u06a9\u06af\u06cc\u0900-\u097f\u0980-\u09ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f\u00aa\u00ba]"
)
_LETTER_RUN = re.compile(r"[^\W\d_]+")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
# Chat-template tokens and markup say nothing about the answer ("<|im_start|>user", "</answer>").
_MARKUP = re.compile(r"<\|[^|<>]{0,40}\|>|</?[A-Za-z][^<>]{0,80}>")
# Function words of the covered Latin-script languages: a plain-Latin tail of two or more words that
# has none of them is in a language no lexicon covers.
_FUNCTION_WORDS = frozenset(
    """a an the is are was were be been it its this that these those which who what as so since because for of to in
    on at by with from and or but not no we our us i my you your he she they their them there here then than thus
    hence therefore total answer final result value correct right exactly only units each per all both one
    der die das den dem des ein eine ist sind und oder aber nicht mit von zu im auf für also da weil ergebnis
    le la les un une est et ou mais pas de du des en au aux avec pour donc car réponse
    el los las es son y o pero no con por para del al que como respuesta
    il lo gli è e ma non di da per che con risposta
    os as um uma é são mas não com do da por resposta
    het een zijn en maar niet met voor dus antwoord
    jest są i lub ale nie z do na że odpowiedź
    bir ve veya ama değil ile için bu cevap
    adalah dan atau tetapi tidak dengan untuk yang ini itu jawaban jawapan ialah
    là và hoặc nhưng không với của cho này đáp án
    ni na au lakini si kwa ya wa la jibu
    ay at o ngunit hindi sa ng ang mga sagot
    on ja tai mutta ei se vastaus
    je a nebo ale ne se odpověď
    este și sau dar nu cu pentru răspunsul
    är och eller men inte med för svaret er og eller men ikke med svar
    az és vagy de nem egy válasz
    one two three four five six seven eight nine ten eleven twelve first second third half
    что это как так потому поскольку ответ равно или также итак значит тогда есть
    що або також відповідь дорівнює тому""".split()
)


def _has_word(text: str, word: str) -> bool:
    return re.search(r"(?<![\w'-])" + re.escape(word) + r"(?![\w'-])", text) is not None


def condition_after(sentence: str) -> str | None:
    """A condition on a case right after the answer in its sentence ("if n is odd", "wenn n > 2",
    "如果n是奇数"), or None."""
    found = _CONDITION.match(sentence)
    if found is None:
        return None
    clause = sentence[found.end() : found.end() + 80]
    if not _CASE.search(clause.replace("$", " ")) or _PROCEDURE.search(clause):
        return None
    return found.group(0).strip(" \t$.,;:)]}*(（、，-")


def unread_language(
    sentence: str, known: frozenset[str] = frozenset(), stands: Callable[[str], bool] | None = None
) -> str | None:
    """A word in the rest of the answer's sentence that no covered language can vouch for, or None.

    A letter outside the covered alphabets is read at once. Words in Latin or Cyrillic letters
    need evidence: two or more of them with no function word of a covered language among them
    (one of two letters counts only in English: "de", "ma", "di" are words of many languages)
    are in a language no lexicon covers. ``known``: lower-cased words that stand anyway (the
    task's own words); ``stands``: a test for more such words (a family's units)."""
    text = _MARKUP.sub(" ", _LATEX_COMMAND.sub(" ", sentence[:400]))
    words: list[str] = []
    for word in _LETTER_RUN.findall(text):
        if any(_READ_LETTERS.match(ch) is None for ch in word):
            if len(word) > 1 or not ("\u0370" <= word <= "\u03ff"):  # one Greek letter is a variable
                return word
        elif (word.isascii() and (len(word) > 1 or word.lower() in _ENGLISH_SHORT)) or (
            len(word) > 1 and _LATIN_OR_CYRILLIC.match(word)
        ):
            words.append(word.lower())  # one other letter is a variable ("r/10")
    # A clause after a comma, dash or bracket ("\\boxed{3}, ma hubo") is read from two words; a phrase
    # run on after the value ("\\boxed{3} milles marins") from three: a unit can take two words.
    clause = re.match(r"[\s$)\]}*]*[,;:(\u2013\u2014-]", sentence) is not None
    if len(words) < (2 if clause else 3):
        return None
    for word in words:
        if (
            word in known
            or word.rstrip("s") in known
            or word in _ENGLISH_SHORT
            or (len(word) > 2 and stands and stands(word))
        ):
            return None
        if len(word) > 2 and word in _FUNCTION_WORDS:
            return None
    return " ".join(words[:4])


_LATIN_OR_CYRILLIC = re.compile(r"^[A-Za-z\u00c0-\u024f\u1e00-\u1eff\u0400-\u04ff]+$")
_ENGLISH_SHORT = frozenset("a an as at be by do go he i if in is it me my no of on or so to up us we".split())


# A later sentence or paragraph that opens with an alternative ("Or 4.", "(or 4)", "**Alternatively** 4").
_OPENS_ALTERNATIVE = re.compile(
    r"[\s>`*_(\[|#-]*(" + ALTERNATIVES.pattern + r"|(?:" + BETWEEN_VALUES + r")(?=[\s*_):,]*[-+]?\d))[\s*_):,]*",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*")


def later_alternative(rest: str, answer: str) -> str | None:
    """A sentence after the answer's that opens with an alternative and states another value, or None."""
    mine = _NUMBER.findall(answer)
    for later in SENTENCE_END.split(rest[:2_000])[:4]:
        opened = _OPENS_ALTERNATIVE.match(later)
        if opened is None:
            continue
        values = _NUMBER.findall(later, opened.end())
        if (values and values[0] not in mine) or "\\boxed" in later:
            return opened.group(1).strip()
    for later in re.split(r"(?<=[?？])", rest[:2_000])[:3]:
        # "Wait, or is it 4?": a question about another value right after the answer.
        values = _NUMBER.findall(later)
        if QUESTION_MARK.search(later) and values and values[0] not in mine:
            return "?"
    return None


QUESTION_MARK = re.compile(r"[?？]\s*$")


# "k = 3 ...": a short name (k, mn, bn) being defined or called is a variable, not a magnitude.
_DEFINED = re.compile(r"\s*[=(:]")
_VALUE = re.compile(r"\d|[一二三四五六七八九十百千万亿]|\\boxed|<answer>", re.IGNORECASE)


@dataclass(frozen=True)
class TailFinding:
    """Why the answer is taken back: ``kind`` is one of ``TAKEN_BACK_CLASSES``, ``text`` the words."""

    kind: str
    text: str

    def describe(self) -> str:
        return f"{self.kind}: {self.text!r} after the final answer"


def continuation_after(after: str) -> str | None:
    """The value going on right after the answer (``000``, ``.5``, ``+ 1``, ``= 4``, ``½``), or None."""
    glued = _CONTINUES.match(after)
    if glued is None:
        return None
    return glued.group(0).strip(" \t$)]}") or glued.group(0)


def value_word_after(after: str, operations: bool = True) -> str | None:
    """The word or sign directly after the answer that changes its value, or None.

    ``operations=False`` reads magnitudes and power-of-ten factors only: math reads ``%`` and
    "percent" after a value as a unit of its own."""
    glued = continuation_after(after)
    if glued is not None:
        return glued
    start = _LEAD.match(after)
    i = start.end() if start is not None else 0
    patterns = (MAGNITUDES, OPERATIONS, POWER_OF_TEN) if operations else (MAGNITUDES, POWER_OF_TEN)
    for pattern in patterns:
        found = pattern.match(after, i)
        if found is None:
            continue
        short_name = len(found.group(0)) <= 2 and found.group(0).isalpha() and found.group(0).isascii()
        if not (short_name and _DEFINED.match(after, found.end())):
            return found.group(0)
    # A sign glued to the answer ("</answer>%", "\\boxed{3}^2") counts even before formatting.
    found = (OPERATIONS.match(after) if operations else None) or POWER_OF_TEN.match(after)
    return found.group(0) if found is not None else None


def tail_refusal(after: str, answer: str = "") -> TailFinding | None:
    """What in ``after`` (the text following the final answer) takes ``answer`` back, or None.

    Words that the answer itself contains (an answer that is the phrase "maybe") are not read
    as a hedge of it."""
    if not isinstance(after, str) or not after.strip():
        return None
    after = after[:MAX_TAIL_CHARS]
    answer = answer if isinstance(answer, str) else ""
    lowered = answer.lower()
    glued = continuation_after(after)
    if glued is not None:  # "<answer>106</answer>000": a digit the answer has is still another digit
        return TailFinding("value_word", glued)
    word = value_word_after(after)
    if word is not None and word.lower() not in lowered:
        return TailFinding("value_word", word)
    cut = SENTENCE_END.search(after)
    sentence = after[: cut.end()] if cut is not None else after
    rest = after[len(sentence) :]
    hedge = HEDGES.search(sentence)
    if hedge is not None and hedge.group(0).lower() not in lowered:
        return TailFinding("hedge", hedge.group(0))
    alternative = ALTERNATIVE_AFTER.match(sentence)
    if alternative is not None and not ALTERNATIVES.search(answer) and _VALUE.search(sentence, alternative.end()):
        return TailFinding("alternative", alternative.group(1).strip())
    condition = condition_after(sentence)
    if condition is not None and not _has_word(lowered, condition.lower()):
        return TailFinding("condition", condition)
    approximation = APPROXIMATIONS.search(sentence)
    if approximation is not None and not APPROXIMATIONS.search(answer):
        return TailFinding("hedge", approximation.group(0))
    certain = CERTAINTY.search(rest)
    if certain is not None and certain.group(0).lower() not in lowered:
        return TailFinding("hedge", certain.group(0))
    for later in SENTENCE_END.split(rest)[:3]:
        hedge = HEDGES.search(later)
        if hedge is not None and _VALUE.search(later) and hedge.group(0).lower() not in lowered:
            return TailFinding("hedge", hedge.group(0))
    other = later_alternative(rest, answer)
    if other is not None:
        return TailFinding("alternative", other)
    known = frozenset(_LETTER_RUN.findall(lowered))
    unread = unread_language(sentence, known) or unread_language(next_sentence(rest), known)
    if unread is not None:
        return TailFinding("unread_language", unread)
    return None


def next_sentence(rest: str, max_words: int = 8) -> str:
    """The sentence after the answer's own when it is short (a hedge on a line of its own: "Ma hubo.");
    a longer one is an explanation, read by the lexicon only."""
    later = next((piece for piece in SENTENCE_END.split(rest[:400]) if piece.strip()), "")
    if len(later.split()) > max_words or _CODE.search(later):
        return ""  # an explanation, or code and diagrams ("[asy] import graph; size(200);")
    return later


_CODE = re.compile(r"[;{}=\[\]]")


_DEFINITION = re.compile(
    r"\\(?:[egx]?def|let|futurelet|(?:re)?newcommand|providecommand|DeclareMathOperator|DeclareRobustCommand"
    r"|(?:re)?newenvironment|catcode|csname|uccode|lccode|mathcode|mathchardef|chardef)(?![A-Za-z])"
)
_PLAIN = re.compile(r"[\s$*_`]+")


def redefinition(completion: str) -> str | None:
    """The first TeX definition in ``completion`` (``\\def``, ``\\renewcommand``, ``\\let``, a category
    code), or None. A completion that defines commands renders as something other than its text."""
    if not isinstance(completion, str) or "\\" not in completion:
        return None
    found = _DEFINITION.search(completion)
    return found.group(0) if found is not None else None


def _plain(text: str) -> str:
    return _PLAIN.sub(" ", text).strip().rstrip(".。!").strip().casefold()


def second_answer(after: str, answer: str) -> str | None:
    """Another final answer in ``after`` (the text following the one read) that is not ``answer``
    (the same words, or the same followed by more words, are the same answer), or None."""
    if not isinstance(after, str) or not after.strip():
        return None
    later = extract_answer(after[:MAX_TAIL_CHARS], skip_reasoning=False)
    if later is None:
        return None
    said, read = _plain(later.text), _plain(answer if isinstance(answer, str) else "")
    if said == read or (said.startswith(read) and read and not said[len(read)].isalnum()):
        return None
    return later.text


_HIDING_OPEN = re.compile(
    r"<([A-Za-z][\w-]*)\b[^<>]*?(?:(?<![-\w])hidden(?![-\w])|display\s*:\s*none|visibility\s*:\s*hidden"
    r"|opacity\s*:\s*0(?:\.0*)?(?![.\d])|font-size\s*:\s*0(?:\.0*)?(?![.\d])"
    r"|(?<![-\w])color\s*:\s*(?:white|#fff(?:fff)?\b|transparent))[^<>]*>"
    r"|<(s|del|strike)\s*>",
    re.IGNORECASE,
)
_STRUCK_CHARS = re.compile("[\u0334-\u0338]")
CONCEAL_WINDOW = 2_000
"""How far before the answer an unclosed comment, hidden element or strike-through is looked for."""


def concealed(completion: str, found: Extraction) -> str | None:
    """Why a reader does not see the extracted answer as stated (hidden, in a comment, struck out), or None."""
    if not isinstance(completion, str):
        return None
    response = after_reasoning(completion) or ""
    end = len(response) - len(found.after) if found.after and response.endswith(found.after) else len(response)
    region = response[max(0, end - len(found.text) - CONCEAL_WINDOW) : end]
    if _STRUCK_CHARS.search(found.text):
        return "struck-out characters"
    opened = region.rfind("<!--")
    if opened >= 0 and "-->" not in region[opened:]:
        return "inside an HTML comment"
    if region.count("~~") % 2 == 1:
        return "struck out (~~)"
    for match in _HIDING_OPEN.finditer(region):
        tag = (match.group(1) or match.group(2) or "").lower()
        if not re.search(r"</\s*" + re.escape(tag) + r"\s*>", region[match.end() :], re.IGNORECASE):
            return f"inside a hidden or struck element ({match.group(0)[:40]!r})"
    return None


def taken_back(completion: str, found: Extraction) -> TailFinding | None:
    """What takes the extracted answer back: a TeX definition anywhere, an answer a reader does not
    see, a later final answer saying something else, or what ``tail_refusal`` reads after it. None
    when the answer stands."""
    defined = redefinition(completion)
    if defined is not None:
        return TailFinding("redefinition", defined)
    hidden = concealed(completion, found)
    if hidden is not None:
        return TailFinding("concealed", hidden)
    other = second_answer(found.after, found.text)
    if other is not None:
        return TailFinding("second_answer", other[:80])
    return tail_refusal(found.after, found.text)
