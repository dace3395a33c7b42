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
import unicodedata

from rlvr_envs.answer_tail import SENTENCE_END, TailFinding, concealed, second_answer, tail_refusal
from rlvr_judge.screen import _FUNCTION_WORDS, Screened, tokens, visible
from rlvr_judge.screen_lexicon import _alternation


def hedged(answer: str, after: str, level: int = 2) -> Screened | None:
    """Reference mode: whether the text after the final answer takes it back (``rlvr_envs.answer_tail``:
    a hedge, an alternative value, a value word, another final answer saying something else); from
    ``level`` 3 also a retraction in any claimed language ("Nein, eigentlich ist es der Rhein.")."""
    if not after.strip():
        return None
    if level >= 3:
        taken = retracted(answer, after)
        if taken is not None:
            return taken
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


# A retraction after the answer (our list; level 3): the answer is called wrong, then something else
# is said. Each opens with a word no remark uses to go on ("No,", "Wait", "Correction", "I was wrong").
_RETRACTIONS = [
    r"no\s*[,!:;]", r"no\.(?!\s*\d)", r"nee\s*[,.!:;]", r"wacht\s*[,.!:;]", r"wait\s*[,.!:;—-]",
    r"scratch\s+that", r"correction", r"i\s+was\s+wrong", r"my\s+mistake",
    r"i\s+mean", r"on\s+second\s+thoughts?", r"actually\s*,?\s+no", r"not\s+the\s+\w+\s*[,;:]\s*(?:it'?s|it\s+is)",
    r"nein\s*[,.!:;]", r"moment\s*[,.!:;]", r"korrektur", r"ich\s+habe\s+mich\s+geirrt", r"ich\s+meine",
    r"non\s*[,.!:;]", r"attends\s*[,.!:;—-]", r"je\s+me\s+suis\s+trompée?", r"je\s+veux\s+dire", r"pardon\s*[,.!:;]",
    r"espera\s*[,.!:;—-]", r"corrección", r"me\s+equivoqué", r"quiero\s+decir", r"mejor\s+dicho",
    r"aspetta\s*[,.!:;—-]", r"correzione", r"mi\s+sono\s+sbagliat[oa]", r"anzi", r"não\s*[,.!:;]", r"correção",
    r"me\s+enganei", r"нет\s*[,.!:;]", r"подожди(?:те)?\s*[,.!:;—-]", r"поправка", r"я\s+ошибл(?:ся|ась)", r"точнее",
    r"hapana\s*[,.!:;]", r"samahani\s*[,.!:;]", r"nie\s*[,.!:;]", r"pomyliłem\s+się", r"hayır\s*[,.!:;]",
    r"yanıldım", r"không\s*[,.!:;]", r"tôi\s+nhầm", r"ei\s*[,.!:;]",
]  # fmt: skip
_RETRACTIONS_CJK = """不对 不對 不是的 等等 更正 我错了 我錯了 说错了 說錯了
    いや 違います 違う 訂正 間違えました 아니요 아니 정정 잘못""".split()
_RETRACTION = _alternation(_RETRACTIONS, _RETRACTIONS_CJK)


def retracted(answer: str, after: str) -> Screened | None:
    """Whether ``after`` takes the answer back and says something else: a retraction word, then content
    words the answer does not have (a restatement after "I mean" says the same thing)."""
    text = visible(after[:2_000])
    found = _RETRACTION.search(text)
    if found is None:
        return None
    said = _content(text[found.end() :]) - _CERTAINTY_WORDS
    if said and not said <= _content(answer):
        return Screened("hedge", f"the text after the final answer takes it back ({found.group(0).strip()!r})")
    return None


_ANY_TAG = re.compile(r"</?\s*([^\s<>/=\"']{3,24})\s*>")
_TAG_NAMES = frozenset({"answer", "think", "final", "finalanswer", "final_answer", "response", "solution"})


def look_alike_tag(response: str) -> Screened | None:
    """Level 3: a tag whose name only looks like an answer or think tag (``<answеr>`` with a Cyrillic
    е): the extractor skips it, a judge model reads a second answer in it. Two real answer tags are
    the project's convention (the last one is the answer, as in every family) and are left alone."""
    from rlvr_judge.decoded import _LOOKALIKE

    for found in _ANY_TAG.finditer(response[:40_000]):
        name = found.group(1)
        if name.isascii():
            continue
        folded = unicodedata.normalize("NFKC", name).translate(_LOOKALIKE).casefold()
        if folded in _TAG_NAMES:
            return Screened("forged_format", f"a tag that only looks like <{folded}> ({found.group(0)!r})")
    return None


def hidden_answer(response: str) -> Screened | None:
    """The marked final answer where a reader does not see it (inside ``\\phantom{}``, a box scaled
    to zero, a hidden or white element, an unclosed comment, struck out), else None: the judge
    would be shown an answer the response does not visibly give."""
    from rlvr_envs.extract import extract_answer

    found = extract_answer(response) if isinstance(response, str) else None
    if found is None or not found.text.strip():
        return None
    why = concealed(response, found)
    return None if why is None else Screened("hedge", f"the final answer is not visible ({why})")
