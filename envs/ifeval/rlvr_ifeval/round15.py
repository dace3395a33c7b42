"""Round 15 of issue 26 (``relevance_paste=11``, ``ifeval-data-v15`` / ``ifeval-synth-v15``): an
answer written for another prompt of the env's data, pasted under this one, and a short response
that holds its topic only in the request said back, read after every earlier rule passed it.

Issue 26: "the same response pasted under a thousand prompts must not score on them". Measured on
the 835 labelled rows (the response of row j under the prompt of row i, i != j, every pair, the
rows' own prompts as the background): ``ifeval-data-v14`` still paid such pastes where the pasted
text met a few of its new task's words by chance, which the overlap rule (10% of the task's units)
and the contrast rule read as an answer. The contrast rule (``contrast.answers_another_prompt``)
picks ONE other prompt, the one the response matches with the most weight, and asks its cover to be
30% and the response's own match under 30% of it: a large prompt met by chance outweighs the prompt
the text was written for and hides it, and two task words added to the paste lift its own match
over 30% of its home's (key 1996's story under key 2328's "Write a startup pitch for a time capsule
service": its home covered 56%, four of the home's words said twice or more, nothing of its task).

* **Answered elsewhere** (``answered_elsewhere``): a response of ``min_words`` words or more is
  refused when some other prompt of the background (not one with the same task units: a
  near-duplicate prompt is no other) is met with at least ``MIN_HOME_RARE`` times the weight of a
  unit no prompt has (two rare words are chance; four are a topic), covers at least
  ``MIN_HOME_COVER`` of that prompt's weight, ``MIN_DWELT_UNITS`` of its units are said twice or
  more (the text dwells on them: its subject, not a passing word), and either the response covers
  that prompt at least ``MIN_COVER_RATIO`` times better than its own task (weights by the
  background's IDF, as the contrast rule reads them), or it says none of its own task's units twice
  (the task words a paste adds, once each, do not make it about them) and covers that prompt
  ``MIN_UNTAKEN_COVER`` or more (or dwells on ``MIN_UNTAKEN_DWELT`` of its units). Every candidate
  is read, best covered first, not only the heaviest.

* **The topic only in the request said back** (``echoed_topic_only``): under a request to write
  about a topic (round 14's reading), a response of 5 to ``MAX_ECHO_WORDS`` words whose topic units
  stand only inside the prompt's own sentences said back word for word, whatever follows them (the
  attacker's ``constraint_swap`` on ``ifeval-synth-v14 -n 30 --seed 15``: "Here is the task restated:
  Write a summary about volunteering at an animal shelter. Hide at most 2 paragraphs ... markdo
  notwn ..."; round 14's ``restated_short`` reads echoes with words changed inside and at most two
  words of its own, and its ``short_off_topic`` counted the echo's topic words as held).

The bounds are the calibration's: each one loosened by a step refuses labelled-good answers
(``tests/ifeval/test_ifeval_round15_calibration.py``: a home met with 1.85 or 1.77 times the rare
weight, keys 1967 and 3326; one of its units said twice, 2691, 3401; covered twice as well as the
own task, 2229, 2605; a cover of 25%, the rubric 1670). The rule reads the background's compiled walk
(``contrast_jit.Walk``; the gate's own response units, kept by the verdict's reading: no
tokenisation of its own) and, for at most ``MAX_CANDIDATES`` candidates, one ``str.count`` per unit
on the casefolded head.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from rlvr_ifeval import contrast
from rlvr_ifeval.base import Checker
from rlvr_ifeval.pasted import cross_lingual
from rlvr_ifeval.relevance_units import MAX_RELEVANCE_CHARS, PREFIX, STOP_WORDS, units
from rlvr_ifeval.round14 import MIN_SHORT_WORDS, _about_request, topic_units
from rlvr_ifeval.text_words import count_words_any_script

ROUND_15_PASTE = 11
"""The ``relevance_paste`` level (``ifeval-data-v15`` / ``ifeval-synth-v15``) from which the
verifier applies this rule; lower levels keep their verdicts."""
MIN_HOME_RARE = 2.0
"""The other prompt must be met with this many times the weight of a unit no prompt has (the
contrast rule's floor is 1.6: two rare words)."""
MIN_HOME_COVER = 0.3
"""... covering this share of that prompt's weight (the contrast rule's ``MIN_OTHER_COVER``) ..."""
MIN_DWELT_UNITS = 2
"""... with this many of its met units said twice or more in the response ..."""
MIN_COVER_RATIO = 3.0
"""... and covered this many times better than the response covers its own task ..."""
MIN_UNTAKEN_COVER = 0.4
"""... or covered this much while the response says none of its own task's units twice (a task
word dropped in once, or twice at most, does not make the text about it: the words an attacker
adds to a paste to meet the overlap rule)."""
MIN_UNTAKEN_DWELT = 3
"""... or, covered ``MIN_HOME_COVER`` to ``MIN_UNTAKEN_COVER`` with the response's own task never
dwelt on, this many of its units said twice or more (a prompt whose constraint sentence is in a
language the gate's stop lists do not hold carries those words as units: "Antworte mit mindestens
80 Wörtern" dilutes a German prompt's cover)."""
MAX_CANDIDATES = 8
"""The candidates read for the repetition count, best covered first (the count is the only
per-candidate work in Python)."""

_MARKS_RE = re.compile("[\u0300-\u036f]")  # combining accents, as NFKD leaves them


def _matched(
    background: contrast.Background, response: set[str], own: int | None, floor: float
) -> list[tuple[int, float]]:
    """(prompt, matched weight) of every background prompt but ``own`` that ``response`` (its
    units) meets with ``floor`` or more, in the walk's order: the compiled walk's arrays where it
    is loaded (``contrast.walked``: the contrast rule's own walk of the same units, handed on within
    a verdict), filtered in numpy before Python sees them (the walk meets ~140 prompts a response,
    most under the floor); else the contrast module's Python walk (the same sums)."""
    arrays = contrast.walked(background, response)
    if arrays is None:
        return [(i, w) for i, w in contrast.matched_weights(background, response).items() if i != own and w >= floor]
    order, values = arrays
    met = order[order != own] if own is not None else order
    weights = values[met]
    keep = weights >= floor
    return list(zip(met[keep].tolist(), weights[keep].tolist(), strict=True))


def answered_elsewhere(
    prompt: str, head: str, task: frozenset[str], background: contrast.Background | None, min_words: int
) -> dict[str, Any] | None:
    """What was found when ``head`` (the response within the gate's cap) answers another prompt of
    ``background`` far better than its own task ``task`` (see the module), else None."""
    if background is None or not task or count_words_any_script(head) < min_words:
        return None
    found = units(head, prefix=PREFIX)
    own_weight = background.weight(task)
    own_cover = background.weight(task & found) / own_weight if own_weight else 0.0
    floor = MIN_HOME_RARE * background.unseen
    weights, prompt_units = background.weights, background.units
    candidates = []
    for i, w in _matched(background, found, background.index.get(prompt), floor):
        if prompt_units[i] != task and w >= MIN_HOME_COVER * weights[i]:
            candidates.append((-w / weights[i], i, w))
    if not candidates:
        return None
    low = head.casefold()
    if not low.isascii():  # the units have no accents ("volcán" is "volcan"): count them alike
        low = _MARKS_RE.sub("", unicodedata.normalize("NFKD", low))
    # (A substring count: a unit inside a longer word counts too, never fewer: a response is
    # read as dwelling on a subject at least as often as it does.)
    own_dwelt = sum(1 for u in task & found if low.count(u) >= 2)
    # Best covered first, then the lower index: the same pick in any process, whatever the walk's order.
    for neg_cover, i, w in sorted(candidates)[:MAX_CANDIDATES]:
        cover = -neg_cover
        if cover >= MIN_COVER_RATIO * own_cover or (not own_dwelt and cover >= MIN_UNTAKEN_COVER):
            need = MIN_DWELT_UNITS
        elif not own_dwelt:
            need = MIN_UNTAKEN_DWELT  # (covered less: more of it dwelt on)
        else:
            continue
        dwelt = sum(1 for u in prompt_units[i] & found if low.count(u) >= 2)
        if dwelt >= need:
            return {
                "answered_elsewhere": round(cover, 3),
                "other_prompt_weight": round(w / background.unseen, 2),
                "other_units_dwelt": dwelt,
                "own_task_cover": round(own_cover, 3),
                "own_units_dwelt": own_dwelt,
            }
    return None


MAX_ECHO_WORDS = 80
"""``echoed_topic_only`` reads responses under this many words (the data gate's ``min_words``,
whichever id: ``ifeval-synth`` judges from 20 words, and a request said back is that long)."""
MIN_ECHO_CHARS = 12
"""A prompt sentence of this many characters or more, said back verbatim, is an echo."""
# The prompt's sentences (a request and its constraints): split after . ? ! (and 。？！) or at lines.
_SENTENCES_RE = re.compile(r"(?<=[.?!\u3002\uff1f\uff01])\s+|\n+")
_ENDS = ".?!\u3002\uff1f\uff01 "


def echoed_topic_only(prompt: str, head: str, task: frozenset[str]) -> dict[str, Any] | None:
    """What was found when a response of ``round14.MIN_SHORT_WORDS`` to ``MAX_ECHO_WORDS`` words
    under a request to write about a topic holds the topic's units only inside the prompt's own
    sentences said back word for word ("Here is the task restated: Write a summary about
    volunteering at an animal shelter. Hide at most 2 paragraphs ..."), else None. Round 14's
    ``short_off_topic`` refuses such a response without the echo; the echo quotes the topic, it
    does not take it up (``restated_short`` reads echoes with words changed inside and at most two
    words of its own; here what follows the echo may be anything)."""
    if not task or not _about_request(prompt):
        return None
    if len(head) > 40 * MAX_ECHO_WORDS:
        return None  # (more words than the bound however long each)
    words = count_words_any_script(head)
    if not MIN_SHORT_WORDS <= words < MAX_ECHO_WORDS:
        return None
    said = " ".join(head.casefold().split())
    left = said
    for sentence in _SENTENCES_RE.split(prompt):
        echo = " ".join(sentence.casefold().split()).rstrip(_ENDS)
        if len(echo) >= MIN_ECHO_CHARS and echo in left:
            left = left.replace(echo, " ")
    if left == said:
        return None
    topic = topic_units(prompt, task)
    if not topic.isdisjoint(units(left, STOP_WORDS)):
        return None
    return {"echoed_topic_only": words, "topic_units": len(topic)}


def round15_text(
    prompt: str, response: str, checkers: Sequence[Checker], background: contrast.Background | None, min_words: int
) -> dict[str, Any] | None:
    """The verifier's hook, after round 14's rules passed the response (the gate's task units and
    bounds, the env's background)."""
    if any(c.allows_short_answer() for c in checkers):
        return None  # (a fixed option or a copy: the gate's overlap rules spare them too)
    from rlvr_ifeval.relevance import task_units  # (relevance imports the gate's modules)

    head = response[:MAX_RELEVANCE_CHARS]
    task = task_units(prompt, tuple(checkers), round9=True, round10=True).units
    found = echoed_topic_only(prompt, head, task) or answered_elsewhere(prompt, head, task, background, min_words)
    # A response in the language the prompt names cannot hold its English words (as the verifier
    # spares the overlap rule's refusals): asked only where a rule refused.
    if found is not None and cross_lingual(prompt, head):
        return None
    return found
