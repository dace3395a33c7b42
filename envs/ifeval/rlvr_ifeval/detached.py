"""The task named, then left: a sentence that names the task is no answer when nothing else in
the response takes it up (issue 26, round 10: ``relevance_paste=6``).

The overlap rule asks whether a response holds enough of its task's words; one sentence holds
them all. "Japan itinerary journey is important and worth thinking about." before (or after, or
in the middle of) a 160-word essay on marmalade covered the task and scored 1 on 48/541
``ifeval-data`` and 38/300 ``ifeval-synth`` tasks after round 9. Where a response really
answers, the sentence that names the task is taken up by the text around it: the words it adds
to the task's own come back ("the rubric's criteria ... each criterion"), or the task's words
come back further on. A sentence whose other words appear nowhere else, in a response whose
every other sentence is free of the task, is a label stuck on someone else's text.

The rule (``named_not_answered``), for responses of at least the gate's ``min_words`` words:

* the task's units (``relevance.task_units``) occur in sentences of ONE paragraph only, or of
  the first and the last (a frame around another text); a line is a paragraph (a list item, a
  heading, a JSON line);
* each such paragraph ends as prose does, with a sentence's final punctuation (closing quotes,
  brackets and emphasis marks ignored): a heading or a greeting ("RUBRIC FOR EVALUATING A
  MUSICAL COMPOSITION", "Hey McQueen, the King of the Race Track!<br>") is how real answers
  name their task, and its words are not expected to come back;
* the sentences that name the task hold at most ``MAX_NAMING_SHARE`` of the response's words,
  and the rest holds at least ``MIN_UNNAMED_WORDS``;
* none of their other content units (``relevance.TASK_STOP_WORDS`` left out) occurs anywhere
  else in the response.

Calibrated on the labelled responses (../shared/data): no labelled-good answer the round-9 ids
pay is refused (the README has the numbers). What it does not close, and why: a title line
naming the task before an off-topic text (the shape of real titled answers), the task's words
sprinkled one each through an off-topic text (lexically the shape of a terse real answer) and
a text that shares no word with a task of one or two units; the README's hostile table.

Cost: one tokenisation of the response's paragraphs, stopped at the second paragraph that names
the task unless it is the last after the first (most real answers name it in several); sentences
are split only in the paragraphs that name it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rlvr_ifeval.text import count_words_any_script

MIN_UNNAMED_WORDS = 80
"""... and the rest of the response, which never names it, has at least this many words: a
short answer that names its task in its last sentences ("... she dreamed in her new language.
Learning it had been slow and funny.") is a short answer, not a label on someone else's text
(the gate's ``MIN_RESPONSE_WORDS``)."""
MAX_NAMING_SHARE = 0.25
"""The sentences naming the task hold at most this share of the response's words (a real
answer that names its task in one paragraph only and is mostly that paragraph is spared)."""

# A sentence ends at its final punctuation and what closes around it (a quote, a bracket, bold):
# "\u201cX is worth a look.\u201d The keeper ..." is two sentences.
_SENTENCE_END_RE = re.compile(
    r"(?<=[.!?\u3002\uff01\uff1f\u2026])[\"'\u201d\u2019\u00bb)\]}*_`]*\s+|(?<=[\u3002\uff01\uff1f])"
)
_CLOSERS = " \t\r\"'\u201d\u2019\u00bb)]}*_`>"
"""What may follow a sentence's final punctuation at a paragraph's end (quotes, brackets,
emphasis, a JSON string's end)."""
_PROSE_END = frozenset(".!?\u3002\uff01\uff1f\u2026")


def named_not_answered(
    head: str,
    task: frozenset[str],
    min_words: int,
    head_units: set[str] | frozenset[str] | None = None,
    *,
    read_units: Callable[[str], set[str]],
) -> dict[str, Any] | None:
    """What was found when ``head`` names its task (``task``: its units) in sentences of one
    paragraph (or of the first and the last) that the rest of the response never takes up,
    else None. ``head_units``: the units of all of ``head`` where the caller has them (none of
    the task's: nothing to read). ``read_units``: a text's content units, as the gate reads them
    (``relevance.named_not_answered`` passes its own reader: this module does not import the
    gate that calls it)."""

    if not task or (head_units is not None and task.isdisjoint(head_units)):
        return None
    paragraphs = [p for p in head.split("\n") if p and not p.isspace()]
    last = len(paragraphs) - 1
    naming: list[int] = []
    found: list[set[str]] = []
    for i, paragraph in enumerate(paragraphs):
        mine = read_units(paragraph)
        found.append(mine)
        if not task.isdisjoint(mine):
            naming.append(i)
            # Named in two paragraphs: taken up, unless they are the first and the last with
            # text between them (a frame around someone else's: "X matters. <essay> So X
            # matters."); a greeting and a body are two paragraphs, not a frame.
            if len(naming) > 2 or (len(naming) == 2 and (naming[0] != 0 or i != last or last < 2)):
                return None
    if not naming:
        return None
    said: set[str] = set()
    rest: set[str] = set()
    words = 0
    for i in naming:
        paragraph = paragraphs[i].strip()
        if paragraph.rstrip(_CLOSERS)[-1:] not in _PROSE_END:
            return None  # a heading, a greeting, a list label: how real answers name a task
        for sentence in _SENTENCE_END_RE.split(paragraph):
            mine = read_units(sentence)
            if task.isdisjoint(mine):
                rest |= mine
            else:
                said |= mine
                words += count_words_any_script(sentence)
    # Counted last: most responses are settled above without counting their words.
    total = count_words_any_script(head)
    if total < max(1, min_words) or words > MAX_NAMING_SHARE * total or total - words < MIN_UNNAMED_WORDS:
        return None
    said -= task
    for i, mine in enumerate(found):
        if i not in naming:
            rest |= mine
    if not said.isdisjoint(rest):
        return None
    return {"named_not_answered": round(words / total, 3), "task_units": len(task), "words": total}
