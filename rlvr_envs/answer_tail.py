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
* ``denial`` (round 7): a denial or retraction naming no other value, in the answer's sentence or a
  short one after it ("(wrong)", "Nope.", "Scratch that.", "Actually no.", "算了");
* ``unread_language``: the answer's sentence goes on in letters no lexicon covers (Thai, Tamil,
  Georgian, Serbian or Kazakh Cyrillic, Urdu's own letters, Latin letters of no covered
  language), or in words that no ONE covered language's vocabulary mostly covers (round 8: one
  function word, "por" or "er", no longer vouches for "por nuk jam i sigurt"): a hedge there
  cannot be read, so the tail is refused (an allow-list of what can be read, not a list of hedges).

``taken_back`` is the whole check for a verifier that compares the extracted text (a plugin's
exact-match verifier, the scaffold's): ``tail_refusal``, and two more readings of the completion:

* ``second_answer``: another final answer after the one read (a box, an answer tag, a ``####``
  line, an "answer is" phrase) saying something else (``\\boxed{even}`` then ``#### odd``);
* ``concealed`` (``rlvr_envs.concealment``): the answer read stands where a reader does not see it,
  or sees it struck out: inside an HTML comment, an element hidden by its attribute or style, white
  text, a phantom, or a strike-through (``<s>``, ``~~``, ``\\sout{``, ``\\cancel{``; round 8);
* ``redefinition``: a TeX definition anywhere (``\\renewcommand{\\boxed}[1]{odd}``, ``\\def``,
  ``\\let``, category codes): what the reader sees is then not the text extracted.

Round 7 reads the short sentences after the answer's own too (``after_sentence_refusal``): a hedge
that is the whole line ("Maybe."), one word of no covered language on a line of its own ("Hubo."),
another bare value ("4."), a question, a sign no language reads (``❌``, ``🤷``), a condition with no
variable ("Assuming the above."), a later sentence offering, reconsidering or restating another value
(``rlvr_envs.tail_alternatives``, judged by exact value where it is arithmetic); and reads every tail as the
reader sees it
(``rlvr_envs.tail_words.readable``: "not~sure", "*not* sure", "m a y b e" are "not sure", "maybe").

Round 10 reads a short remark right after the answer by its kind (``rlvr_envs.tail_remarks``): in brackets,
set off by a comma or dash, or run on in English from a verb form, every word must be a harmless label, form,
unit, task word or the answer's own number word ("(needs checking)", "（不含零）", "(확인 필요)" are refused).

An explanation of the method, "Hope this helps!", markdown or a newline after the answer is
nothing. The lexicon is ``rlvr_envs.tail_lexicon`` (en, zh, ja, ko, de, fr, es, it, pt, ru).
Linear in the tail's length; never raises on any ``str``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rlvr_envs.concealment import before_turn, concealed, forged_turn, turn_goes_on
from rlvr_envs.extract import Extraction, after_reasoning, extract_answer
from rlvr_envs.tail_alternatives import NUMBER as _NUMBER
from rlvr_envs.tail_alternatives import (
    SENTENCE_END,
    conditional_value,
    described_alternative,
    later_alternative,
    widened,
)
from rlvr_envs.tail_cases import bare_value, case_split
from rlvr_envs.tail_categories import magnitude_symbol, other_category
from rlvr_envs.tail_checks import false_arithmetic, unchecked_value
from rlvr_envs.tail_clauses import CONTRAST as _CONTRAST
from rlvr_envs.tail_clauses import PROCEDURE as _PROCEDURE
from rlvr_envs.tail_clauses import STRONG_CONDITION as _STRONG_CONDITION
from rlvr_envs.tail_clauses import alternative_within, condition_within, offered_before
from rlvr_envs.tail_doubt import doubted_before, doubting
from rlvr_envs.tail_encoded import decoded
from rlvr_envs.tail_lexicon import (
    ALTERNATIVES,
    APPROXIMATIONS,
    CERTAINTY,
    DENIALS,
    HEDGES,
    MAGNITUDES,
    NO_CLOSING,
    NO_OPENING,
    OPERATIONS,
    POWER_OF_TEN,
    RETRACTIONS,
)
from rlvr_envs.tail_remarks import qualifying_remark, remark_text
from rlvr_envs.tail_restated import numerals_as_digits, said_otherwise, without_restatement
from rlvr_envs.tail_second import MAX_TAIL_CHARS, redefinition, second_answer
from rlvr_envs.tail_stance import denied_belief, settled, without_belief
from rlvr_envs.tail_words import (
    CHAT_TURN,
    LATEX_COMMAND,
    LETTER_RUN,
    MARKUP,
    UNREAD_SIGN,
    folded,
    readable,
    unread_aside,
    unread_face,
    unread_language,
)

TAIL_CLASSES: tuple[str, ...] = ("value_word", "hedge", "alternative")
"""What a refused tail can be by the lexicon, in every claimed language, in the order ``tail_refusal``
checks them."""
READ_CLASSES: tuple[str, ...] = ("condition", "unread_language", "denial")
"""What ``tail_refusal`` can find beyond the lexicon's classes: a condition after the answer, a
tail no covered language can vouch for (round 6), and a denial or retraction of the answer that
names no other value ("\\boxed{3}\\n\\nNope.", "Scratch that.", "(wrong)"; round 7)."""
TAKEN_BACK_CLASSES: tuple[str, ...] = ("redefinition", "concealed", "second_answer", *TAIL_CLASSES, *READ_CLASSES)
"""What ``taken_back`` can find, in the order it checks them."""


# Formatting that may sit between the answer and what follows it: closing math, brackets, bold,
# and a \text{ opening ("\\boxed{3}\\text{ thousand}").
_LEAD = re.compile(r"[\s$)\]}*_]*(?:\\(?:text|mathrm|textrm|textbf|mbox)\s*\{\s*)?")
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
# Markers that also mean "when", "as" or "about" ("\\boxed{3} als Ergebnis", "om"): a condition only
# with a variable, a relation or a word pointing back ("when that holds", "given the above").
_WEAK_CONDITION = (
    r"when|whenever|given|außer|sauf|cuando|quando|caso|gdy|als|ise|khi|جب|जब|kama|όταν|כאשר|kapag|kun|když|când|om|ha"
)
_CONDITION = re.compile(
    r"[\s$.,;:)\]}*(（、，-]*(?:(" + _STRONG_CONDITION + r")|" + _WEAK_CONDITION + r")(?![\w'-])"
    r"|[\s$.,;:)\]}*(（、，]*(?:(如果|假如|假设|假設|若|要是|只要|前提是|ならば|なら|とすれば|と仮定|이면|라면|가정)|当|當|場合|とき|時|경우|면)",
    re.IGNORECASE,
)
_STRONG_ANYWHERE = re.compile(
    r"(?<![\w'-])(?:" + _STRONG_CONDITION + r")(?![\w'-])|如果|假如|假设|只要|ならば|라면", re.IGNORECASE
)
_POINTS_BACK = re.compile(r"(?<![\w'-])(?:that|this|it|so|the\s+above|above|these|those|such)(?![\w'-])", re.IGNORECASE)
# What makes it a condition on a case: a variable standing alone ("n", "$x$", "如果n") or a relation
# ("n > 2", "x = 1"). "when divided by 4", "if we simplify" restate how the value was found.
_CASE = re.compile(r"(?<![A-Za-z\\])[A-Za-zα-ω](?![A-Za-z])|[<>≤≥≠=]|\\(?:[lg]eq?|neq?)(?![A-Za-z])")


def _has_word(text: str, word: str) -> bool:
    return re.search(r"(?<![\w'-])" + re.escape(word) + r"(?![\w'-])", text) is not None


# Verb-final languages put "if" at the end of the clause: "n이 홀수이면" (ko), "nが奇数ならば" (ja),
# "n tek ise" (tr), "n विषम हो तो" (hi). With a variable or relation before it, it is a condition.
_CONDITION_AT_END = re.compile(
    r"(?:이면|라면|으면|다면|면|경우에?|ならば|なら|れば|たら|とき|場合|(?<![\w'-])(?:ise|ysa|ise\s+eğer|हो\s+तो|तो)(?![\w'-]))"
    r"[\s$.,;:!)\]}*。、，]*$",
    re.IGNORECASE,
)


def condition_after(sentence: str) -> str | None:
    """A condition on a case right after the answer in its sentence ("if n is odd", "wenn n > 2",
    "如果n是奇数", "n이 홀수이면"), or None."""
    found = _CONDITION.match(sentence)
    if found is None:
        clause = sentence[:120]
        end = _CONDITION_AT_END.search(clause)
        if end is not None and _CASE.search(clause[: end.start()].replace("$", " ")) and not _PROCEDURE.search(clause):
            return end.group(0).strip(" \t$.,;:!)]}*。、，")
        return None
    clause = sentence[found.end() : found.end() + 80]
    if _PROCEDURE.search(clause):
        return None
    strong = found.group(1) or found.group(2)
    if not strong and not _CASE.search(clause.replace("$", " ")) and not _POINTS_BACK.match(clause.strip()):
        return None
    return found.group(0).strip(" \t$.,;:)]}*(（、，-")


# "k = 3 ...": a short name (k, mn, bn) being defined or called is a variable, not a magnitude.
_DEFINED = re.compile(r"\s*[=(:]")
_VALUE = re.compile(r"\d|[一二三四五六七八九十百千万亿]|\\boxed|<answer>", re.IGNORECASE)


_CHOICE = re.compile(r"\s*\(?\s*(?:\\text(?:bf)?\s*\{\s*\(?)?[A-Ea-e]\s*\)?\s*\}?\s*\)?\s*$")
_CHOICE_AFTER = re.compile(r"[\s*_$]*(?:\\text(?:bf)?\s*\{\s*)?\(?[A-E]\)?(?![A-Za-z])")


def states_value(text: str, answer: str) -> bool:
    """Whether ``text`` (what follows an alternative's connector) states a value: a number, a CJK numeral,
    a box or an answer tag, or, when the answer is a multiple-choice letter, another letter
    ("\\boxed{C} or D", "(C) or (D)")."""
    if _VALUE.search(text):
        return True
    return _CHOICE.match(answer) is not None and _CHOICE_AFTER.match(text) is not None


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
    if operations and after.startswith("\\%", i):
        return "\\%"  # round 14: TeX's escaped percent sign is the percent sign ("$\\boxed{42}\\%$" is 0.42)
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
    # round 12: what a reader sees (``tail_words.folded``); round 14: an encoded run as the text it encodes
    after = decoded(folded(after[:MAX_TAIL_CHARS]))
    answer = answer if isinstance(answer, str) else ""
    lowered = answer.lower()
    denied = denied_belief(after)  # round 12: "이라고 생각하지 않습니다", "と思いません"
    if denied is not None:
        return TailFinding("denial", denied)
    after = settled(without_belief(after))  # round 12: "No doubt.", "だと思います" state the answer
    if not after.strip():
        return None
    after = without_restatement(after, answer if isinstance(answer, str) else "")  # round 13: ", i.e. three"
    false = false_arithmetic(after)  # round 13: "Check: 4 = 3." contradicts, whatever it checks
    if false is not None:
        return TailFinding("denial", false)
    unchecked = unchecked_value(after, answer)  # round 13: "Check: x = 4." computes nothing with the answer
    if unchecked is not None:
        return TailFinding("alternative", unchecked)
    restated = said_otherwise(after, answer)  # round 13: ", i.e. four", '{"answer": ..., "or": ...}'
    if restated is not None:
        return TailFinding("alternative", restated)
    glued = continuation_after(after)
    if glued is not None:  # "<answer>106</answer>000": a digit the answer has is still another digit
        return TailFinding("value_word", glued)
    word = value_word_after(after)
    if word is not None and word.lower() not in lowered:
        return TailFinding("value_word", word)
    symbol = magnitude_symbol(after, answer)  # round 11: "<answer>-40</answer>M."
    if symbol is not None:
        return TailFinding("value_word", symbol)
    after = readable(after)
    other = other_category(after, answer)  # round 11: "<answer>No</answer>\n\nTai Yes."
    if other is not None:
        return TailFinding("alternative", other)
    cut = SENTENCE_END.search(after)
    sentence = after[: cut.end()] if cut is not None else after
    rest = after[len(sentence) :]
    hedge = HEDGES.search(sentence)
    if hedge is not None and hedge.group(0).lower() not in lowered:
        return TailFinding("hedge", hedge.group(0))
    alternative = ALTERNATIVE_AFTER.match(sentence)
    if alternative is not None and not _connects(answer) and states_value(sentence[alternative.end() :], answer):
        return TailFinding("alternative", alternative.group(1).strip())
    condition = condition_after(sentence) or condition_within(sentence)
    if condition is not None and not _has_word(lowered, condition.lower()):
        return TailFinding("condition", condition)
    within = alternative_within(sentence, answer) if not _connects(answer) else None
    if within is not None:
        return TailFinding("alternative", within)
    bare = bare_value(sentence, answer) if not _connects(answer) else None
    if bare is not None:  # round 14: "<answer>7</answer> 8", "\\boxed{331} (431)."
        return TailFinding("alternative", bare)
    approximation = APPROXIMATIONS.search(sentence)
    if approximation is not None and not APPROXIMATIONS.search(answer):
        return TailFinding("hedge", approximation.group(0))
    certain = CERTAINTY.search(after)
    if certain is not None and certain.group(0).lower() not in lowered:
        return TailFinding("hedge", certain.group(0))
    for later in SENTENCE_END.split(rest)[:3]:
        hedge = HEDGES.search(later)
        if hedge is not None and _VALUE.search(later) and hedge.group(0).lower() not in lowered:
            return TailFinding("hedge", hedge.group(0))
    other = later_alternative(numerals_as_digits(rest), answer)  # round 13: "Actually, it is four." is 4
    if other is not None:
        return TailFinding("alternative", other)
    split = case_split(sentence, rest, answer)  # round 14: "331 when x >= 0 and 431 when x < 0" answers twice
    if split is not None:
        return TailFinding("condition", split)
    known = frozenset(LETTER_RUN.findall(lowered))
    return after_sentence_refusal(sentence, rest, answer, known)


def after_sentence_refusal(
    sentence: str,
    rest: str,
    answer: str,
    known: frozenset[str] = frozenset(),
    stands: Callable[[str], bool] | None = None,
) -> TailFinding | None:
    """What the rest of the answer's ``sentence`` or the short sentences after it (``rest``) say against
    the answer beyond the lexicon's hedges (round 7): a sign no language reads (``❌``, ``🤷``), a denial
    or retraction naming no other value (``(wrong)``, "Nope.", "Scratch that.", "Never mind."), a
    condition with no variable ("Assuming the above."), a bare other value on a line of its own, a
    question, or words of no covered language (from one word on a line of its own: "Ma hubo.")."""
    lowered = answer.lower()
    mine = _NUMBER.findall(answer)
    sign = UNREAD_SIGN.search(sentence)
    if sign is not None and sign.group(0) not in answer:
        return TailFinding("unread_language", sign.group(0))
    face = unread_face(sentence)
    if face is not None and face not in answer:
        return TailFinding("unread_language", face)
    mark = _LOOSE_MARK.search(sentence)
    if mark is not None:
        return TailFinding("unread_language", mark.group(0))  # "\\boxed{3}\u0338": a stroke over what precedes it
    denial = _denial(sentence, mine, lowered, opening=False)
    if denial is not None:
        return TailFinding("denial", denial)
    stance = _STANCE.match(sentence)
    if stance is not None and (stance.group(1) or stance.group(2) or "").lower() not in _AFFIRMING:
        return TailFinding("hedge", stance.group(0).strip(" ,.!"))
    unread = unread_language(sentence, known, stands) or unread_aside(sentence, known, stands)
    if unread is not None:
        return TailFinding("unread_language", unread)
    found = _said_in_words(sentence, answer)
    if found is not None:
        return found
    remark = qualifying_remark(remark_text(sentence, rest), answer, known, stands)
    if remark is None and rest[:1].isspace() and rest.lstrip()[:1] in "(（" and not _ARGUED.search(rest[:240]):
        # "\\boxed{3}. (Needs checking.)": a remark of its own next; one with mathematics in it is an explanation
        # ("(We can even check that $17\\cdot 19 = 323$.)"), and "[asy]" opens a figure
        remark = qualifying_remark(rest, answer, known, stands)
    if remark is not None:  # round 10: a short remark after the answer is a harmless kind, or it qualifies it
        return TailFinding("hedge", remark)
    short = True  # the short sentences are those before the first longer one (``short_sentences``' default)
    for later, ended_by in short_sentences(rest, max_words=40):
        short = short and len(later.split()) <= 8
        found = _short_sentence_refusal(later, ended_by, mine, lowered, known, stands) if short else None
        if found is not None:
            return found
        doubt = doubting(later, known, stance=False)
        if doubt is not None and doubt.casefold() not in lowered:  # round 11: "Note: I did not verify this."
            return TailFinding("hedge", doubt)
    # A longer sentence after the answer is an explanation when a covered language wrote it: three or
    # more words of which under a third are words of one covered language are a paragraph nobody here reads.
    for later, _ in short_sentences(rest, count=1, max_words=40):
        unread = unread_language(CHAT_TURN.sub(" ", later), known, stands, min_words=3, share=0.3)
        if unread is not None:
            return TailFinding("unread_language", unread)
    return None


def _said_in_words(sentence: str, answer: str) -> TailFinding | None:
    """What the answer's sentence says against it in words (round 9): a second value described after an "or"
    ("\\boxed{3}, or its negative"), another value with a condition ("(7 if you count zero)"), or the answer
    widened to a class of values ("up to sign")."""
    lead = _LEAD.match(sentence)  # "\\boxed{3}\\text{ or four}"
    if _BARE_QUESTION.match(sentence) is not None:
        return TailFinding("hedge", "?")  # "<answer>3</answer>?", "(?)": the answer asked, not stated
    alternative = ALTERNATIVE_AFTER.match(sentence, lead.end() if lead is not None else 0)
    if alternative is not None and not _connects(answer):
        text = sentence[alternative.end() :]
        described = None if states_value(text, answer) else described_alternative(alternative.group(1), text, answer)
        if described is not None:
            return TailFinding("alternative", described)
    other = conditional_value(sentence, answer, _any_condition)
    if other is not None:
        return TailFinding("alternative", other)
    wide = widened(sentence, answer)
    if wide is not None and wide.casefold() not in answer.casefold():
        return TailFinding("hedge", wide)
    return None


_ARGUED = re.compile(r"^[^)）]*[\d$\\=]")
# A combining mark on no letter ("\\boxed{3}\u0338", "</answer>\u20e0"): an overlay on the answer's end, not a word.
_LOOSE_MARK = re.compile("(?<![^\\W\\d_])[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_BARE_QUESTION = re.compile(r"[\s$)\]}*_(\[.!]*[?？][\s$)\]}*_?？!.]*$")


# Round 12: a word list that holds "or" as one of its words ("date, again, or, everywhere") offers no alternatives;
# only an "or" that joins two parts of the answer excuses one after it ("x = 3 or x = 4").
_LISTED_WORD = re.compile(r"(?:^|(?<=,))\s*[^\W\d_]+\s*(?=,|$)")


def _connects(answer: str) -> bool:
    return ALTERNATIVES.search(_LISTED_WORD.sub(" ", answer) if "," in answer else answer) is not None


def _any_condition(clause: str) -> str | None:
    # After another value a procedure is a condition too: "7 if you count zero" is a second answer either way.
    strong = _STRONG_ANYWHERE.search(clause, 0, 80)
    return strong.group(0) if strong is not None else condition_after(clause)


def _denial(text: str, mine: list[str], lowered: str, opening: bool) -> str | None:
    said = RETRACTIONS.search(text) or ((NO_OPENING.match(text) or NO_CLOSING.search(text)) if opening else None)
    if said is not None and said.group(0).strip().lower() not in lowered:
        return said.group(0).strip()
    denied = DENIALS.search(text)
    others = [v for v in _NUMBER.findall(text) if v not in mine]
    if denied is not None and not others and denied.group(0).lower() not in lowered:
        return denied.group(0)  # "This is wrong.": about the answer, since it names no other value
    return None


def _short_sentence_refusal(
    later: str,
    ended_by: str,
    mine: list[str],
    lowered: str,
    known: frozenset[str],
    stands: Callable[[str], bool] | None,
) -> TailFinding | None:
    text = CHAT_TURN.sub(" ", _FOOTNOTE_MARK.sub(" ", later))
    sign = UNREAD_SIGN.search(text)
    if sign is not None:
        return TailFinding("unread_language", sign.group(0))
    face = unread_face(text)
    if face is not None and face not in lowered:
        return TailFinding("unread_language", face)
    hedge = HEDGES.search(text)
    if hedge is not None and hedge.group(0).lower() not in lowered and not _NONE_OTHER.search(text, 0, hedge.start()):
        # A sentence that is the hedge ("Maybe.", "I think so.", "Belki de."), not one about something
        # else that holds a hedge word ("Maybe next time I will be faster.").
        if len(LETTER_RUN.findall(text[: hedge.start()] + text[hedge.end() :])) <= 2:
            return TailFinding("hedge", hedge.group(0))
    denial = _denial(text, mine, lowered, opening=True)
    if denial is not None:
        return TailFinding("denial", denial)
    condition = _STRONG_ANYWHERE.search(text)
    if condition is not None and not _PROCEDURE.search(text) and not _has_word(lowered, condition.group(0).lower()):
        return TailFinding("condition", condition.group(0))
    bare = MARKUP.sub(" ", LATEX_COMMAND.sub(" ", text))
    values = _NUMBER.findall(bare)
    if values and LETTER_RUN.search(bare) is None and any(v not in mine for v in values):
        return TailFinding("alternative", values[0])  # "\boxed{3}\n\n4.": another value on a line of its own
    if ended_by in "?？" and ended_by:
        return TailFinding("hedge", (text.strip() + ended_by)[-40:])  # "Right?", "?": the answer is in doubt
    unread = unread_language(text, known, stands, min_words=1) or unread_aside(text, known, stands)
    if unread is not None:
        return TailFinding("unread_language", unread)
    return None


# The answer's sentence ending in a stance of its writer: one adverb ("\\boxed{3}, hopefully.", ", apparently.",
# ", supposedly.") or a first-person clause ("\\boxed{3}, I reckon.", ", I'd say.", ", I suspect."). Only the ones
# that affirm or say how it was found stand: an allow-list, so an adverb or verb no list names is a hedge.
_STANCE = re.compile(
    r"[\s$)\]}*_]*[,;(\u2013\u2014-]\s*(?:(\w+ly)|i(?:'d|'ll|\s+would|\s+will)?\s+(\w+)(?:\s+\w+)?)\s*[).!]?\s*$",
    re.IGNORECASE,
)
_AFFIRMING = frozenset(
    """exactly precisely definitely certainly clearly obviously respectively finally correctly accordingly altogether
    only simply necessarily surely indeed showed shown found computed calculated derived proved checked verified
    claimed promised said""".split()
)


def short_sentences(rest: str, count: int = 2, max_words: int = 8) -> list[tuple[str, str]]:
    """The first ``count`` sentences after the answer's own that are short (a line of its own: "Nope.",
    "Ma hubo.", "4."), each with the sign that ends it; reading stops at the first longer one (an
    explanation, read by the lexicon only) or at code."""
    found: list[tuple[str, str]] = []
    start = 0
    text = rest[:600]
    while len(found) < count and start < len(text):
        end = SENTENCE_END.search(text, start)
        piece = text[start : end.start() if end is not None else len(text)]
        ended_by = end.group(0) if end is not None else ""
        start = end.end() if end is not None else len(text)
        if not piece.strip() and ended_by not in "?？":
            continue
        if len(piece.split()) > max_words or _CODE.search(piece):
            break
        found.append((piece, ended_by if ended_by in "?？" else "."))
    return found


# "There are no other solutions.": a hedge word ("other solutions") that a negation right before denies.
_NONE_OTHER = re.compile(
    r"(?<![\w'-])(?:no|not|none|keine?n?|pas\s+d'|aucune?|ningun[ao]?|нет|никаких)\s+(?:\w+\s+)?$", re.I
)
_FOOTNOTE_MARK = re.compile(r"\[\^[^\]\s]{1,20}\]:?")


_CODE = re.compile(r"[;{}=\[\]]")


def taken_back(completion: str, found: Extraction) -> TailFinding | None:
    """What takes the extracted answer back: a TeX definition anywhere, an answer a reader does not
    see, a later final answer saying something else, or what ``tail_refusal`` reads after it. None
    when the answer stands."""
    defined = redefinition(completion)
    if defined is not None:
        return TailFinding("redefinition", defined)
    forged = turn_goes_on(completion)  # round 13: "<|im_end|>\n<|im_start|>assistant ..." forges a later turn
    if forged is not None:
        return TailFinding("concealed", f"the completion goes on after a chat turn marker ({forged}): a forged turn")
    if forged_turn(completion) is not None:  # an honest run-on into the next turn's header: that turn is read
        own = extract_answer(before_turn(completion))
        if own is None or own.text != found.text:
            return TailFinding("concealed", "the answer read stands after a chat turn marker")
    hidden = concealed(completion, found)
    if hidden is not None:
        return TailFinding("concealed", hidden)
    after = folded(found.after)  # round 12: a grapheme joiner, fullwidth letters, an RTL override as a reader sees them
    other = second_answer(after, found.text)
    if other is not None:
        return TailFinding("second_answer", other[:80])
    lead = folded(_lead_in(completion, found))
    doubt = doubted_before(lead) or offered_before(lead, found.text)  # round 13: "384 or <answer>284", "-<answer>"
    if doubt is not None:  # round 11: "My rough guess: <answer>3</answer>"
        return TailFinding("hedge", doubt)
    return tail_refusal(after, found.text)


def _lead_in(completion: str, found: Extraction) -> str:
    """The text right before the extracted answer in the response (its sentence's or label's words)."""
    response = after_reasoning(completion) or ""
    end = len(response) - len(found.after) if found.after and response.endswith(found.after) else len(response)
    head = response[max(0, end - len(found.text) - 400) : end]
    at = head.rfind(found.text) if found.text else -1
    return head[:at] if at >= 0 else ""
