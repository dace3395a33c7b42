"""Reference mode: does the text after the final answer take it back?

The judge is shown the final answer and everything after it (template ``ref-v1`` tells it that a
later hedge or alternative makes the answer not equivalent), but a lenient judge pays "<answer>The
Danube</answer> But I am not sure." all the same. ``hedged`` refuses it first, with the core's
reading of a tail (``rlvr_envs.answer_tail``: a hedge, an alternative value, a value word, another
final answer saying something else) and qualified doubts ("not entirely sure"). A sentence with a
doubt that says enough of its own ("I don't know the exact length though") is a remark about
something else: it goes to the judge, which decides.
"""

from __future__ import annotations

import re

from rlvr_envs.answer_tail import SENTENCE_END, TailFinding, second_answer, tail_refusal
from rlvr_judge.screen import _FUNCTION_WORDS, Screened, tokens, visible


def hedged(answer: str, after: str) -> Screened | None:
    """Reference mode: whether the text after the final answer takes it back (``rlvr_envs.answer_tail``:
    a hedge, an alternative value, a value word, another final answer saying something else)."""
    if not after.strip():
        return None
    other = second_answer(after, answer)
    if other is not None:
        # The same answer restated with more words ("The answer is Danube because it flows through
        # Vienna") holds every content word of the one read, or the other way round.
        said, read = _content(other), _content(answer)
        if said and read and not (said <= read or read <= said):
            return Screened("hedge", f"another final answer after the one read ({other[:60]!r})")
    found = tail_refusal(after, answer)
    if found is None:
        degree = _DEGREE_HEDGE.search(after[:2_000])
        found = TailFinding("hedge", degree.group(0)) if degree is not None else None
    if found is None or (found.kind == "hedge" and _remark(after, found.text, answer)):
        return None
    return Screened("hedge", f"the text after the final answer takes it back ({found.describe()})")


def _content(text: str) -> set[str]:
    """The words of ``text`` that carry its content (numbers included), as a reader sees them."""
    return {t for t in tokens(visible(text)) if t not in _FUNCTION_WORDS}


# "Not sure" qualified by a degree ("not entirely sure", "nicht ganz sicher"): the core lexicon's
# phrases are unqualified.
_DEGREE_HEDGE = re.compile(
    r"(?<![\w'-])(?:not|isn't|am\s+not|i'm\s+not)\s+(?:completely|entirely|totally|fully|quite|absolutely|really|100\s*%)"
    r"\s+(?:sure|certain|confident)|nicht\s+(?:ganz|völlig|hundertprozentig|100\s*%)\s+sicher"
    r"|pas\s+(?:tout\s+à\s+fait|complètement|entièrement|100\s*%)\s+sûr|no\s+(?:estoy\s+)?(?:del\s+todo|completamente"
    r"|100\s*%)\s+segur[oa]",
    re.IGNORECASE,
)
# Words about being right or sure say nothing of their own (en, de, fr, es, it, pt).
_CERTAINTY_WORDS = frozenset(
    """sure certain right correct wrong true answer confident completely entirely totally quite really fully
    absolutely one hundred percent sicher richtig falsch antwort ganz völlig sûr certain juste faux réponse
    tout fait seguro segura correcto correcta respuesta cierto del todo certo giusto risposta certeza
    resposta""".split()
)
REMARK_WORDS = 3
"""Content words of its own that make a sentence with a hedge phrase a remark about something else
("I don't know the exact length though") rather than about the answer ("But I am not sure.")."""


def _remark(after: str, phrase: str, answer: str) -> bool:
    """Whether the sentence holding ``phrase`` says enough of its own to be a remark about something
    other than the answer (the judge is shown it and decides); with no number in it when the answer
    is a number (then a number beside the hedge is another answer)."""
    for sentence in SENTENCE_END.split(after):
        if phrase.casefold() not in sentence.casefold():
            continue
        rest = sentence.casefold().replace(phrase.casefold(), " ")
        own = [t for t in tokens(rest) if len(t) >= 3 and t not in _FUNCTION_WORDS and t not in _CERTAINTY_WORDS]
        numeric = any(ch.isdigit() for ch in answer)
        return len(own) >= REMARK_WORDS and not (numeric and any(ch.isdigit() for ch in rest))
    return False
