"""Final answers labelled in every language the judge family claims (``answer_view="v3"``).

The core's extractor (``rlvr_envs.extract``) reads a labelled final answer in English, Chinese and
Japanese ("Final answer: 42", "最终答案：42", "答えは 42"), and the last label is the answer: an
earlier one is reasoning. A label in another language was not a label: "Final answer: 42" then
"Réponse finale : 42" left the French line after the answer, where the tail reader saw words it has
no lexicon for and refused an honest response (``unread_language``), and "Final answer: 42" then
"Ответ: 41" showed the judge both, leaving a lenient judge to pick one.

``judge-ref-v6`` reads the labels of every claimed language (``LABEL``) by one rule:

* labels among themselves: the last one is the final answer, as the core reads English and Chinese
  ("Final answer: 41" ... "Réponse finale : 42" is 42; reversed, 41);
* a label after a stronger marker (an answer tag, a box, ``####``, which the core reads first) that
  says the same answer (one holds every content word of the other) restates it and is no hedge; one
  that says something else is another final answer after the one read: refused, as the core's
  ``second_answer`` refuses an English or Chinese one there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rlvr_judge.screen import _FUNCTION_WORDS, tokens, visible

_LABELS_LATIN = [
    # English; German; French; Spanish; Italian; Portuguese; Dutch; Polish; Turkish; Vietnamese; Indonesian.
    r"(?:the\s+)?final\s+answer", r"the\s+answer", r"answer",
    r"(?:die\s+)?endgültige\s+antwort", r"(?:die\s+)?antwort", r"(?:das\s+)?endergebnis",
    r"(?:la\s+)?réponse\s+finale", r"(?:la\s+)?réponse",
    r"(?:la\s+)?respuesta\s+final", r"(?:la\s+)?respuesta",
    r"(?:la\s+)?risposta\s+finale", r"(?:la\s+)?risposta",
    r"(?:a\s+)?resposta\s+final", r"(?:a\s+)?resposta",
    r"(?:het\s+)?(?:definitieve\s+antwoord|eindantwoord|antwoord)",
    r"ostateczna\s+odpowiedź", r"odpowiedź", r"(?:nihai|son)\s+cevap", r"cevap", r"yanıt",
    r"đáp\s+án\s+cuối\s+cùng", r"đáp\s+án", r"câu\s+trả\s+lời", r"jawaban\s+akhir", r"jawaban",
]  # fmt: skip
_LABELS_OTHER = [
    # Russian, Ukrainian; Greek; Arabic; Hindi; Chinese; Japanese; Korean.
    r"окончательный\s+ответ", r"ответ", r"остаточна\s+відповідь", r"відповідь", r"τελική\s+απάντηση", r"απάντηση",
    r"الإجابة\s+النهائية", r"الإجابة", r"الجواب", r"अंतिम\s+उत्तर", r"उत्तर",
    r"最终答案", r"最終答案", r"答案", r"最終的な答え", r"最終解答", r"答え", r"解答",
    r"최종\s*(?:답변|정답|답)", r"정답", r"답변", r"답",
]  # fmt: skip
# "is" after a label, in the languages above (a colon or an equals sign in any).
_VERBS = r"is|ist|est|es|è|é|wynosi|là|adalah|是|为|為|は|은|는|равен|равна|είναι|है"
_BOLD = r"(?:\*\*|__)?"
LABEL = re.compile(
    rf"^[ \t>#*_-]{{0,8}}{_BOLD}(?:(?<![\w])(?:{'|'.join(_LABELS_LATIN)})(?![\w])|(?:{'|'.join(_LABELS_OTHER)})){_BOLD}"
    rf"[ \t]*(?:[:：=]|(?:{_VERBS})(?![\w])[ \t]*:?)[ \t]*{_BOLD}[ \t]*(?P<value>[^\n]*\S)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
"""A line that gives a final answer: a label at its start (after markdown quote, heading, list or bold
marks), a colon, equals sign or "is", and the answer, the rest of the line."""
_VALUE_TAIL = re.compile(r"[\s.。!！*_$]+$")
READ_CHARS = 40_000
"""As much of the text after the answer as the screen reads (``hedges.READ_CHARS``)."""


@dataclass(frozen=True)
class Labelled:
    """A final answer given by a label line: where the line starts, where the answer ends, the answer."""

    start: int
    end: int
    value: str


def labels(text: str) -> list[Labelled]:
    """Every label line of ``text`` with an answer on it, in order."""
    out = []
    for found in LABEL.finditer(text[:READ_CHARS]):
        value = _VALUE_TAIL.sub("", found.group("value")).strip().strip("$").strip()
        if value:
            out.append(Labelled(found.start(), found.end(), value))
    return out


def content(text: str) -> set[str]:
    """The words of ``text`` that carry its content (numbers included), as a reader sees them."""
    return {t for t in tokens(visible(text)) if t not in _FUNCTION_WORDS}


def same_answer(one: str, other: str) -> bool:
    """Whether two final answers say the same: one holds every content word of the other ("42" and
    "42 (six times seven)"), as ``hedges.hedged`` reads a restatement."""
    said, read = content(one), content(other)
    return bool(said and read) and (said <= read or read <= said)


def last_label(response: str, after: str, how: str) -> Labelled | None:
    """The label that is the final answer by the last-wins rule, when the core's reading is a label
    ("answer_is") or nothing ("whole response"), with offsets in ``response``; else None. ``after`` is
    what the core left after its answer (the whole response when it read none)."""
    if how not in ("answer_is", "whole response"):
        return None
    found = labels(after)
    if not found:
        return None
    shift = response.rfind(after) if how == "answer_is" else response.find(after)
    if shift < 0:
        return None
    last = found[-1]
    return Labelled(last.start + shift, last.end + shift, last.value)


def other_final_answer(answer: str, after: str) -> tuple[str, str | None]:
    """(``after`` less the label lines that restate ``answer``, a label that says something else or
    None): what follows a stronger marker, read by the rule above."""
    kept = []
    at = 0
    for found in labels(after):
        if not same_answer(found.value, answer):
            return after, found.value
        kept.append(after[at : found.start])
        at = found.end
    kept.append(after[at:])
    return "".join(kept).strip(), None
