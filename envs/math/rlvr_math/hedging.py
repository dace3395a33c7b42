"""Answers that say more than one thing: hedged, offering alternatives, or contradicting themselves.

The cleaning that makes ``\\boxed{12 \\text{ cm}}`` read as 12 also made ``\\boxed{3 perhaps}`` read
as 3 (a trailing word looks like a unit), and ``x = 12 = 11`` answered with its last side, 11. A
policy trained on such rewards learns to hedge. Every check here runs on the extracted answer
before it is compared, and each refusal scores 0 with its reason in the verdict's details:

* **hedges**: a word or phrase of uncertainty (``perhaps``, ``maybe``, ``probably``, ``possibly``,
  ``not sure``, ``I think``, ``I guess``, a question mark, and the same in Chinese and Japanese,
  matched as substrings there because those scripts have no spaces). A hedge word that the gold
  answer itself contains (a yes/no/maybe question) is not a hedge;
* **alternatives**: ``3 or 4``, ``either 3 or 4``, ``3 (or 4)`` when the gold answer is one value
  (a gold set, list or tuple, or a gold written with "or", is compared as usual: ``x = 3 or x = 4``
  is a fine way to give a solution set);
* **self-contradicting chains**: in ``a = b = c`` (or ``12 = 11``) every side that is a plain number
  must have the same value; a decimal side may be that value rounded (``\\frac{1}{3} = 0.333``).
  ``x = 5 + 5 + 1 = 11`` is a chain that agrees and is answered by its last side, as before.
  ``chains="last"`` turns this check off and reads any chain by its last side, math-verify's
  convention (its test suite labels ``x = 5+5+1 = 7 = 11`` equal to ``x = 11``).

Approximation is not hedging: word problems ask for approximate values, and the gold answer
sets the precision. A leading ``\\approx``, ``≈``, ``~``, "approximately", "about", "around" or
"roughly" before a plain number is dropped (``\\approx 3.14`` answers ``3.14``, and is still wrong
for ``\\pi`` under the default relative tolerance); see ``strip_approximation``.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from rlvr_envs.answer_tail import (
    ALTERNATIVE_AFTER,
    SENTENCE_END,
    after_sentence_refusal,
    alternative_within,
    condition_after,
    condition_within,
    later_alternative,
    readable,
    states_value,
)
from rlvr_envs.tail_cases import case_split
from rlvr_envs.tail_checks import false_arithmetic, unchecked_value
from rlvr_envs.tail_clauses import keyed_alternative
from rlvr_envs.tail_restated import numerals_as_digits, restated_otherwise
from rlvr_envs.tail_stance import denied_belief
from rlvr_math.languages import ALTERNATIVES, CERTAINTY, DENIALS, HEDGES, NEGATIONS, QUESTION
from rlvr_math.normalize import clean, compact, parse_number
from rlvr_math.units import is_unit, unread_tail, value_word_after

_LATEX_WORD = re.compile(r"\\[A-Za-z]+")
_LIST_MARK = re.compile(r",|;|\\\{|\\lbrace|\\cup|\band\b")
_APPROX = re.compile(
    r"^\s*(?:\\approx|≈|~|\\sim|(?:approximately|approx\.?|about|around|roughly)(?![A-Za-z]))\s*", re.IGNORECASE
)
_RELATION = re.compile(r"[<>]|\\[lg]eq?\b|\\ne(?:q)?\b|\\approx|\\le|\\ge|\\sim|\\equiv|\\pm|\\mp")
_DECIMALS = re.compile(r"(?<![\d.])\d*\.(\d+)(?![\d.])")
_CHAIN_LINK = re.compile(r"=|\\(?:approx|equiv|simeq|cong|sim)(?![A-Za-z])|≈")
_APPROX_LINK = re.compile(r"\\(?:approx|simeq|sim)(?![A-Za-z])|≈")
_INEQUALITY = re.compile(r"[<>]|\\[lg]eq?(?![A-Za-z])|\\ne(?:q)?(?![A-Za-z])|\\le|\\ge|\\pm|\\mp|\\neq|≤|≥|≠|:=")
_MODULAR = re.compile(r"\\[pb]?mod(?![A-Za-z])|\bmod\b|\\pmod")
_NAME = re.compile(r"^[A-Za-z](?:_\{?\w+\}?)?(?:\([A-Za-z0-9, ]*\))?'?$|^\\[A-Za-z]+(?:_\{?\w+\}?)?$")
_INTEGER = re.compile(r"^[+-]?\d+$")
_TRAILING_ELLIPSIS = re.compile(r"(?:\\[lc]?dots|\.\.\.|…)\s*\$?\s*\}?\s*$")


def hedge(pred_raw: str, gold: str) -> str | None:
    """The hedge in an answer ("perhaps", "vielleicht", "也许", "?"), unless the gold answer says it too."""
    gold_words = " ".join(gold.lower().split())
    for match in HEDGES.finditer(pred_raw):
        word = " ".join(match.group(0).lower().split())
        if word not in gold_words:
            return word
    if QUESTION.search(pred_raw) and not QUESTION.search(gold):
        return "?"
    return None


def alternatives(pred: str, gold: str, gold_is_set: bool) -> bool:
    """Whether a one-value gold answer is answered with alternatives ("3 or 4", "3 oder 4", "3或4")."""
    if gold_is_set or ALTERNATIVES.search(gold) or _LIST_MARK.search(gold) or _is_bracketed_list(gold):
        return False
    return bool(ALTERNATIVES.search(pred))


# A denial of the answer right after it: a verdict ("\\boxed{3} is wrong", "is not correct", "ist
# falsch", "是错的", "は違う"). A bare contrast ("\\boxed{3}, not 2") or a property ("\\boxed{3} is
# not divisible by 2") denies nothing about the answer.
_NEGATED_AFTER = re.compile(
    r"^[\s$.,:;)\]}*]*(?:(?:is|was|would\s+be|ist|war|est|es|era|è|é|jest|je|är|er|adalah|ialah|là|olan|є|это|是|は|는|은|이|가)\s*)?"
    # Up to two more words before the verdict ("είναι λάθος", "on väärin", "este greșit", "is clearly wrong").
    r"(?:[^\W\d_]+\s+){0,2}(?:"
    + DENIALS.pattern
    + r")|^[\s$.,:;)\]}*]*(?:(?:isn'?t|wasn'?t)\s+(?:right|correct|true|valid|the\s+answer)"
    + r"|n'est\s+pas\s+(?:correct|juste|bon|la\s+(?:bonne\s+)?réponse)|no\s+es\s+(?:correct[oa]|la\s+respuesta)"
    + r"|不是(?:答案|正确|正確|对|對)|ではない|じゃない|아니)",
    re.IGNORECASE,
)


def trailing(
    after: str, gold: str, gold_is_set: bool, answer: str = "", context: frozenset[str] = frozenset()
) -> str | None:
    """A hedge, alternative or denial right after the final answer ("\\boxed{3}, but I am not sure.").

    In the rest of the answer's own sentence every hedge and alternative counts; further on,
    only what can be about the answer alone: certainty ("not sure", "nicht sicher", "不确定"),
    "if that is wrong ...", "or maybe", or a hedge next to another value ("Maybe it is 4.").
    "I hope it is correct." and "Maybe next time I will be faster." are no hedges."""
    if not after.strip():
        return None
    denied = denied_belief(after)  # round 12: "이라고 생각하지 않습니다", "と思いません": "I do not think it is"
    if denied is not None and not NEGATIONS.search(gold):
        return f"negated answer ({denied!r} after it)"
    # round 13: arithmetic after the answer must be true ("Check: 4 = 3."), and a check must compute with the answer
    # or state no other value ("Check: x = 4."): ``rlvr_envs.tail_checks``
    false = false_arithmetic(after)
    if false is not None:
        return f"a false equation after the answer ({false!r}): a check that does not hold"
    unchecked = unchecked_value(after, answer or gold)
    if unchecked is not None:
        return f"a check that states another value ({unchecked!r}) after the answer"
    restated = restated_otherwise(after, answer or gold)  # "\\boxed{3}, i.e. four.": said again as another value
    if restated is not None:
        return f"the answer restated as another value ({restated!r})"
    keyed = keyed_alternative(after)  # '{"answer": "331", "or": "&#52;..."}', "| or 200 |": another offered
    if keyed is not None:
        return f"alternatives offered ({keyed!r}: a JSON key, a cell or a line after the answer)"
    raw, after = after, readable(after)  # "not~sure", "*not* sure", "m a y b e" read as the reader sees them
    cut = SENTENCE_END.search(after)
    sentence = after[: cut.end()] if cut is not None else after
    rest = after[len(sentence) :]
    word = hedge(sentence, gold)
    if word is not None:
        return f"hedged answer ({word!r} after it)"
    changed = value_word_after(raw)
    if changed is not None and changed.lower() not in gold.lower():
        return f"words after the value that are not a unit ({changed!r} right after the answer)"
    alternative = ALTERNATIVE_AFTER.match(sentence)
    if alternative is not None and not gold_is_set and not ALTERNATIVES.search(gold):
        if re.search(r"\d|\\boxed", sentence[alternative.end() :]) or states_value(
            sentence[alternative.end() :], answer
        ):
            return f"alternatives offered ({alternative.group(1).strip()!r} after the answer)"
    if _NEGATED_AFTER.search(sentence) and not NEGATIONS.search(gold):
        return "negated answer (a denial right after it)"
    condition = condition_after(sentence) or condition_within(sentence)
    if condition is not None and condition.lower() not in gold.lower():
        return f"conditional answer ({condition!r} right after it)"
    within = alternative_within(sentence, answer) if not gold_is_set and not ALTERNATIVES.search(gold) else None
    if within is not None:
        return f"alternatives offered ({within!r} later in the answer's sentence)"
    certain = CERTAINTY.search(after)
    if certain is not None and certain.group(0).lower() not in gold.lower():
        return f"hedged answer ({certain.group(0)!r} after it)"
    for later in SENTENCE_END.split(rest)[:3]:
        if re.search(r"\d|\\boxed", later) and HEDGES.search(later) and not HEDGES.search(gold):
            return f"hedged answer ({HEDGES.search(later).group(0)!r} with another value after it)"  # type: ignore[union-attr]
    if not gold_is_set and not ALTERNATIVES.search(gold):
        other = later_alternative(numerals_as_digits(rest), answer)  # round 13: words, numerals
        if other is not None:
            return f"alternatives offered ({other!r} opening a later sentence)"
    split = case_split(sentence, rest, answer or gold) if not gold_is_set else None
    if split is not None:  # round 14: "331 when x >= 0 and 431 when x < 0", "nが偶数なら331、そうでなければ431"
        return f"conditional answer (a case split naming another value: {split!r})"
    known = context | frozenset(gold.lower().split())
    unit = lambda w: is_unit(w, context, single_letters=False)  # noqa: E731
    found = after_sentence_refusal(sentence, rest, answer, known, unit)
    if found is None:
        return None
    if found.kind == "unread_language":
        return f"words after the answer in a language no lexicon covers ({found.text!r}): a hedge there cannot be read"
    return _SAID[found.kind] + f" ({found.text!r} after it)"


FAR_TAIL_CHARS = 20_000
"""How far past the extracted ``after`` (``extraction.AFTER_CHARS``) the tail is read for what takes the answer back
wherever it stands (round 10: "Wait, I was wrong: it is 5." after 3,000 characters of filler was never read)."""


def far_tail(far: str, gold: str, gold_is_set: bool, answer: str) -> str | None:
    """What, beyond the first ``AFTER_CHARS`` after the answer, takes it back wherever it stands: certainty
    ("not sure", "nicht sicher") and a sentence opening with a correction or an alternative that states another
    value. The first sentences' readings (hedges, conditions, remarks) stay with the answer's own tail."""
    if not far.strip():
        return None
    far = readable(far[:FAR_TAIL_CHARS])
    certain = CERTAINTY.search(far)
    if certain is not None and certain.group(0).lower() not in gold.lower():
        return f"hedged answer ({certain.group(0)!r} far after it)"
    if not gold_is_set and not ALTERNATIVES.search(gold):
        other = later_alternative(numerals_as_digits(far), answer)
        if other is not None:
            return f"alternatives offered ({other!r} opening a later sentence)"
    return None


_SAID = {
    "hedge": "hedged answer",
    "denial": "negated answer (a denial or retraction after it)",
    "condition": "conditional answer",
    "alternative": "alternatives offered (another value on a line of its own)",
}


def _is_bracketed_list(text: str) -> bool:
    t = text.strip().strip("$").strip()
    return len(t) > 2 and t[0] in "([" and t[-1] in ")]" and "," in t


def contradiction(pred: str, gold: str = "") -> str | None:
    """``12 = 11``: two sides of one chain that are different plain numbers.

    The chain's links are ``=`` and the equivalence-like relations ``\\approx``, ``\\equiv``,
    ``\\simeq``, ``\\cong``, ``\\sim`` (``5 \\approx 6`` answered 5 and 6 at once). Across an
    approximate link a side may be the other rounded to its own digits (``\\frac{22}{7} \\approx 3.14``,
    ``99.7 \\approx 100``). A modular chain (``\\pmod``) is left alone. When the gold answer is not a
    relation, two sides that are both expressions (not a name being assigned) must be the same
    rational expression: ``x+1 = x-1`` answers neither side.
    """
    gold_is_relation = bool(_CHAIN_LINK.search(gold) or _RELATION.search(gold))
    for item in _top_level_split(pred, ",;"):
        if not _CHAIN_LINK.search(item) or _INEQUALITY.search(item) or _MODULAR.search(item):
            continue
        approximate = bool(_APPROX_LINK.search(item))
        sides = [s.strip() for s in _top_level_split(_CHAIN_LINK.sub("\x00", item), "\x00")]
        values: list[tuple[Fraction, int | None, str]] = []
        for side in sides:
            number = parse_number(clean(side)) if side else None
            if number is not None and not number.percent:
                values.append((number.value, _decimal_places(side, approximate), side.strip().strip("$").strip()))
        for i in range(len(values)):
            for j in range(i + 1, len(values)):
                if not _agree(values[i], values[j], approximate):
                    return f"{values[i][2]} = {values[j][2]}"
        if not gold_is_relation:
            clash = _differing_expressions(sides)
            if clash is not None:
                return clash
    return None


def _differing_expressions(sides: list[str]) -> str | None:
    from rlvr_math.rational import rational_identity

    expressions = [s for s in sides if s and not _NAME.match(s.strip().strip("$").strip())]
    cleaned = [clean(s) for s in expressions]
    for i in range(len(cleaned)):
        for j in range(i + 1, len(cleaned)):
            if rational_identity(cleaned[i], cleaned[j]) is False:
                return f"{expressions[i].strip()} = {expressions[j].strip()}"
    return None


def _decimal_places(side: str, approximate: bool = False) -> int | None:
    places = [len(m.group(1)) for m in _DECIMALS.finditer(side)]
    if places:
        return min(places)
    # "99.7 \approx 100": an integer is a value rounded to units, but only across an approximation.
    return 0 if approximate and _INTEGER.match(clean(side)) else None


def _agree(a: tuple[Fraction, int | None, str], b: tuple[Fraction, int | None, str], approximate: bool = False) -> bool:
    if a[0] == b[0]:
        return True
    # A decimal side may be the other side rounded or truncated to its digits: 1/3 = 0.333.
    places = [p for p in (a[1], b[1]) if p is not None]
    if not places:
        return False
    if approximate:
        return abs(a[0] - b[0]) <= Fraction(1, 2 * 10 ** min(places))  # rounded: half a unit of the last digit
    return abs(a[0] - b[0]) <= Fraction(1, 10 ** min(places))


def _top_level_split(text: str, separators: str) -> list[str]:
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in separators and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def strip_approximation(pred: str, gold: str) -> str:
    """``\\approx 3.14`` as ``3.14`` (a plain number after a leading approximation marker)."""
    cleaned = clean(pred)  # "\\text{approximately } 250" reads "approximately 250"
    match = _APPROX.match(cleaned)
    if match is None or _APPROX.match(clean(gold)):
        return pred
    rest = cleaned[match.end() :].strip()
    return rest if rest and parse_number(clean(rest)) is not None else pred


MAX_CONDITION_SCAN = 2_000
"""Characters of an answer read for a condition: all of any answer the verifier reads (padding the
value so the condition sits further on changes nothing)."""
# A value, then words, then a relation on one variable: "2 pour n = 2", "2 in the case n = 2", "2, valid for
# n = 2". Words that name no marker still tie the value to a case ("x = 2" alone is the answer itself).
_VALUE_FOR_A_CASE = re.compile(
    r"\s*[-+]?[\d.,/\\{}()\s]*\d[\d.,/\\{}()\s]*[,;]?\s+((?:[^\W\d_]{2,}[\s,]+){1,4})"
    r"[A-Za-z](?:_\{?\w+\}?)?\s*(?:=|<|>|≤|≥|≠|\\(?:[lg]eq?|neq?)(?![A-Za-z]))"
)
_WORD_START = re.compile(r"(?<![^\W\d_])[^\W\d_]|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def condition_inside(cleaned: str, gold: str) -> str | None:
    """A condition inside the final answer after its value ("2 unless n = 2", "3 only if n = 1",
    "3 (若 n 为奇数)", "3 wenn n > 2"), unless the gold answer states a condition itself.

    Every word start after the first character is tried as the start of a condition clause, read
    as the shared tail check reads one after the answer (``rlvr_envs.answer_tail.condition_after``:
    strong markers in every covered language; weak ones, "when", "given", with a variable or
    relation; verb-final markers at the clause's end). The answer holds only in a case: it answers
    nothing the task asked, whatever value the condition names."""
    if len(cleaned) < 3 or _WORD_START.search(cleaned, 1) is None or _gold_states_a_case(gold):
        return None
    return _case_in(cleaned)


@lru_cache(maxsize=4096)
def _gold_states_a_case(gold: str) -> bool:
    # Read once per gold: in RL every prompt's gold is checked against many completions.
    return "cases" in gold or _case_in(clean(gold)) is not None


def _case_in(text: str) -> str | None:
    found = _condition_at(text)
    if found is None:
        case = _VALUE_FOR_A_CASE.match(text[:MAX_CONDITION_SCAN])
        found = case.group(1).strip() if case is not None else None
    return found


def _condition_at(text: str) -> str | None:
    for start in _WORD_START.finditer(text[:MAX_CONDITION_SCAN], 1):
        if not text[: start.start()].strip(" \t$({[（"):
            continue  # nothing before it: the answer is no value with a condition
        found = condition_after(text[start.start() :])
        if found is not None:
            return found
    return None


# "\\boxed{2|_{n=2}}", "2 \\Big|_{x=1}": the value at one case of a variable (an evaluation bar), not the answer.
_EVALUATED_AT = re.compile(r"(?:\||\\[rR]?[vV]ert)\s*_\s*\{[^{}]{0,60}=")

CHAINS = ("consistent", "last")


def refusal(
    pred: str,
    pred_raw: str,
    gold: str,
    gold_is_set: bool,
    chains: str = "consistent",
    context: frozenset[str] = frozenset(),
) -> str | None:
    """Why this answer scores 0 before any comparison (a reason for the details), or None."""
    word = hedge(pred_raw or pred, gold)
    if word is not None:
        return f"hedged answer ({word!r})"
    if alternatives(pred, gold, gold_is_set):
        return "alternatives offered for a one-value answer"
    denial = NEGATIONS.search(_LATEX_WORD.sub(" ", pred))
    if denial is not None and not NEGATIONS.search(gold):
        return f"negated answer ({denial.group(0).strip()!r})"
    cleaned = clean(pred, context)
    condition = condition_inside(cleaned, gold)
    if condition is not None:
        return f"conditional answer ({condition!r} inside it)"
    evaluated = _EVALUATED_AT.search(pred)
    if evaluated is not None and _EVALUATED_AT.search(gold) is None:
        return f"conditional answer (evaluated at a case inside it: {evaluated.group(0)!r})"
    tail = unread_tail(cleaned)
    if tail is not None and compact(cleaned) != compact(clean(gold, context)):
        return f"words after the value that are not a unit ({tail!r})"
    if _TRAILING_ELLIPSIS.search(pred) and not _TRAILING_ELLIPSIS.search(gold):
        return "unfinished answer (trailing ellipsis)"
    clash = contradiction(pred, gold) if chains == "consistent" else None
    if clash is not None:
        return f"self-contradicting answer ({clash})"
    return None
