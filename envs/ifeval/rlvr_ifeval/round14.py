"""Round 14 of issue 26 (``relevance_paste=10``, ``ifeval-data-v14`` / ``ifeval-synth-v14``): the
responses the overlap rule does not judge, and headings that name a task the body never takes
up, read after every earlier rule passed one.

The overlap rule (``relevance.off_topic``) judges a response only where its task has
``MIN_TASK_UNITS`` units or more and the response ``min_words`` words or more (80 on
``ifeval-data``, 20 on ``ifeval-synth``): lowering either bound refused honest answers (a riddle
about auspices never says "auspices"; short answers to questions share no word with them). The
attacker paid through both gaps (``rlvr-envs redteam ifeval-data-v13 -n 30 --seed 14``: the
lighthouse essay in capitals under "Write an essay about Alvin and the Chipmunks in English and in
all capital letters.", a task of two units; ``ifeval-synth-v13 --seed 14``: a 12-word salad under
"Write a summary about starting a podcast.").

* **A long text that shares nothing with its prompt** (``nothing_of_prompt``): under a task of one
  or two units, a response of ``min_words`` words or more that holds none of them and no content
  word of its whole prompt either (not "essay", not "write", not a word of a constraint). Honest
  answers under such tasks that avoid the task's units still say some word of the prompt (the
  labelled rows: at least one, keys 2828, 3326; two or more, 1389, 1466, 2941, 3001).
* **A short text that holds none of its topic** (``short_off_topic``): under a request to write
  about a topic ("Write a summary about starting a podcast.", "Schreibe einen Aufsatz über ...",
  "写一篇关于...的文章", Portuguese, Italian, Dutch, Russian, Japanese; "a TLDR of ..."), a response of
  ``MIN_SHORT_WORDS`` words or more, under ``min_words``, that holds none of the topic's units
  (``topic_units``: the task's units after "about"; before について in Japanese). The
  short answers the labelled rows pay without a task word answer other requests (a tagline,
  names, a rewrite, a question), or are verse or riddles, which withhold their subject by design
  (keys 1516, 1162, 2078): those requests are not read, nor a prompt that quotes the text to
  work on (a summary of a quoted page says the page's words: key 2380).
* **The request said back with words changed** (``restated_short``): under the same requests, a
  response no longer than its prompt and 200 characters that holds the topic's words because it
  says the request back ("Write a summary about ending a podcast. Answer without more than 401
  sentences.", twice, or behind "Here is the task restated:") with at most
  ``MAX_SHORT_OWN_WORDS`` content words of its own (round 13's
  ``swapped.restated_prompt(part=True)`` allows one; the frame's words made three).
* **The task's words only in headings** (``headings_only``): a short line over a prose line (a
  heading of any shape) over the paragraphs of a text on something else, the body meeting at
  most one task word once (round 12's ``label_only`` reads one label at the start or the end).

The rules read the units the gate reads (``relevance_units.units``, compiled), past per-prompt
exits (the task's unit count, the request: cached); the headings rule splits the head into lines
and reads each line's length first. Measured: ~12-28 us a verdict over ``-v13`` (the README).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from rlvr_ifeval.base import Checker
from rlvr_ifeval.genre import requested_verse
from rlvr_ifeval.pasted import cross_lingual
from rlvr_ifeval.relevance_units import STOP_WORDS, units
from rlvr_ifeval.stuffing import _prompt_units, hook_reading
from rlvr_ifeval.swapped import MAX_PART_EXTRA_CHARS, _quoted, restated_prompt
from rlvr_ifeval.text_words import count_words_any_script

ROUND_14_PASTE = 10
"""The ``relevance_paste`` level (``ifeval-data-v14`` / ``ifeval-synth-v14``) from which the
verifier applies these rules; lower levels keep their verdicts."""
MIN_SHORT_WORDS = 5
"""``short_off_topic`` reads responses of this many words or more: a title or a name is not read."""

# A request to write about a topic, in the languages the gate reads with spaces and in Chinese
# and Japanese: the verb, up to 60 characters of the form asked for, the word for "about".
# Each language's verbs with its own word for "about" (an English "over" or "su" is no topic).
_ABOUT_PAIRS = (
    (r"write|compose|draft|pen|give|create|generate|craft|produce|prepare", r"about"),
    # A summary, a TLDR, a review of a topic.
    (r"summar\w*|tl;?dr|overview|recap|synopsis|review|critique|analysis|description", r"of"),
    (r"schreib\w*|verfass\w*", r"über|ueber"),
    (r"[ée]cri\w*|r[ée]dige\w*", r"sur"),
    (r"escrib\w*|redact\w*|escrev\w*|redij\w*", r"sobre|acerca\s+de"),
    (r"scriv\w*|redig\w*", r"su|sul\w*|riguardo"),
    (r"schrijf\w*", r"over"),
    (r"напиш\w*|написа\w*|составь\w*", r"об?|обо|про"),
)
_ABOUT_RE = re.compile(
    "|".join(rf"\b(?:{verbs})\b[^.?!\n]{{0,60}}?\b(?:{about})\b" for verbs, about in _ABOUT_PAIRS)
    + r"|[写寫撰][^。？！\n]{0,12}?关于|(?P<before>について|に関する)",
    re.IGNORECASE,
)
# Forms that withhold their subject by design (a riddle names what it hides by hints; a quiz
# asks rather than tells) or say it in images (verse: ``genre.requested_verse``).
_WITHHELD_RE = re.compile(r"\b(?:riddles?|puzzles?|enigmas?|r[äa]tsel|devinettes?|adivinanzas?|quiz\w*)\b|谜|なぞなぞ")


_TOPIC_END_RE = re.compile(r"[.?!;:\n\u3002\uff1f\uff01]")


@lru_cache(maxsize=4096)
def _about_request(prompt: str) -> bool:
    """Whether the prompt asks for a text about a topic in prose (per prompt: cached)."""
    if not _ABOUT_RE.search(prompt) or _WITHHELD_RE.search(prompt) or requested_verse(prompt) is not None:
        return False
    # Quoted material is the text to work on ("a summary of the following page: "..."): an answer
    # says its words, not the request's (the labelled key 2380).
    return not _quoted(prompt)


@lru_cache(maxsize=4096)
def topic_units(prompt: str, task: frozenset[str]) -> frozenset[str]:
    """The task's units that name the topic a request to write about asks for: those of the words
    after "about" (über, sur, sobre, 关于 ...) to the end of its sentence. The request's own words
    ("schreibe", "über", "article": the gate's stop lists are English-first) are no sign of the
    topic in a response; where the topic holds none of the task's units, the task's units."""
    found = _ABOUT_RE.search(prompt)
    if found is None:
        return task
    if found.group("before"):
        # Japanese names the topic before its particle ("モーツァルトについて"): back to the
        # sentence's start.
        lead = prompt[max(0, found.start() - 400) : found.start()]
        ends = list(_TOPIC_END_RE.finditer(lead))
        text = lead[ends[-1].end() :] if ends else lead
    else:
        tail = prompt[found.end() : found.end() + 400]
        end = _TOPIC_END_RE.search(tail)
        text = tail[: end.start()] if end else tail
    topic = task.intersection(units(text, STOP_WORDS))
    return frozenset(topic) or task


def nothing_of_prompt(
    prompt: str, head: str, task: frozenset[str], min_units: int, min_words: int
) -> dict[str, Any] | None:
    """What was found when a response of ``min_words`` words or more under a task of fewer than
    ``min_units`` units holds none of them nor any content word of its prompt, else None."""
    if not task or len(task) >= min_units or _WITHHELD_RE.search(prompt):
        return None  # (the overlap rule judges tasks of ``min_units`` units; riddles withhold)
    held = units(head, STOP_WORDS)
    if not held.isdisjoint(_prompt_units(prompt)) or not held.isdisjoint(task):
        return None
    words = count_words_any_script(head)
    if words < min_words:
        return None
    return {"nothing_of_prompt": words, "task_units": len(task)}


def short_off_topic(prompt: str, head: str, task: frozenset[str], min_words: int) -> dict[str, Any] | None:
    """What was found when a response of ``MIN_SHORT_WORDS`` to ``min_words`` words under a request
    to write about a topic holds none of the task's units, else None."""
    if not task or not _about_request(prompt):
        return None
    if len(head) > 40 * min_words:
        return None  # (more words than ``min_words`` however long each: the overlap rule's)
    words = count_words_any_script(head)
    if not MIN_SHORT_WORDS <= words < min_words:
        return None
    topic = topic_units(prompt, task)
    if not topic.isdisjoint(units(head, STOP_WORDS)):
        return None
    return {"short_off_topic": words, "topic_units": len(topic)}


MAX_SHORT_OWN_WORDS = 2
"""``restated_short``: the prompt said back with words changed inside may bring this many content
words of its own (round 13's reading of any response allows one)."""
MAX_FRAME_WORDS = 8
# A lead-in up to a colon ("Here is the task restated:", "Voici la consigne :", "任务复述："):
_LEAD_IN_RE = re.compile(r"\s*([^:\uff1a\n]{1,80})[:\uff1a]")


def restated_short(
    prompt: str, head: str, checkers: Sequence[Checker], task: frozenset[str], min_words: int
) -> dict[str, Any] | None:
    """What was found when a response of ``MIN_SHORT_WORDS`` words or more, no longer than its
    prompt and ``MAX_PART_EXTRA_CHARS`` characters, under a request to write about a topic says
    the request back with words changed inside ("Write a summary about ending a podcast. Answer
    without more than 401 sentences.", bare, twice, or behind a lead-in) and adds at most
    ``MAX_SHORT_OWN_WORDS`` content words of its own, else None. It holds the topic's words
    (``short_off_topic`` passes it; said twice, it is over synth's 20 words, and the overlap rule
    passes it) and answers nothing. A lead-in that names none of the prompt's words ("Here is the
    task restated:") is the echo's frame, not the response's own text; one that does ("Starting a
    podcast: ...") is its answer's first words."""
    if not task or not _about_request(prompt) or len(head) > len(prompt) + MAX_PART_EXTRA_CHARS:
        return None  # (the part reading's own exit: a part said back, even twice, is short)
    words = count_words_any_script(head)
    if words < MIN_SHORT_WORDS:
        return None
    lead = _LEAD_IN_RE.match(head)
    if lead is not None and len(lead.group(1).split()) <= MAX_FRAME_WORDS:
        if units(lead.group(1), STOP_WORDS).isdisjoint(_prompt_units(prompt)):
            head = head[lead.end() :]
    # (Half the prompt's pairs said back: answered by ``MAX_SHORT_OWN_WORDS`` + 1 words of its own,
    # not by the gate's ``min_words``: a short answer that opens with its request is an answer.)
    own = MAX_SHORT_OWN_WORDS + 1
    found = restated_prompt(prompt, head, own, checkers, part=True, max_own=MAX_SHORT_OWN_WORDS)
    return None if found is None else {**found, "restated_short": words}


MIN_HEADED_BODY_WORDS = 60
"""``headings_only`` reads a body of this many words or more (``stuffing.MIN_BODY_WORDS``)."""
MIN_TASK_HEADINGS = 2
"""``headings_only`` reads responses with this many headings naming the task or more: one title
over its body is round 12's ``label_only`` (a rubric titled with its task, key 1670, whose body
says "piece" for "composition", is an answer)."""
MAX_LABEL_WORDS = 8
"""A heading or label line has at most this many words ..."""
MAX_LABEL_CHARS = 60
"""... and characters, and stands over a prose line (``MIN_PROSE_LINE_CHARS`` or more)."""
MIN_PROSE_LINE_CHARS = 60
MIN_SENTENCE_LINE_CHARS = 30
"""... or a sentence of this many characters or more (German's "Er putzte die große Linse bis sie
glänzte.")."""
# A line that heads what follows rather than says: short, not ended as a sentence or a clause,
# and over a prose line (lines of symbols between: an underline, a rule). Its shape is free (a
# markdown heading, a title, bold, capitals, "Section 2", <h2>, [..], a colon label): what makes
# it a heading is where it stands. Verse, list items and code are short lines over short lines.
_SENTENCE_LINE_RE = re.compile(rf"[^\n]{{{MIN_SENTENCE_LINE_CHARS},}}[.!?\u3002\uff01\uff1f]")
_SYMBOLS_RE = re.compile(r"[^\w]*")
MAX_SYMBOL_LINES = 3
_CLAUSE_END = frozenset(".!?,;\u3002\uff01\uff1f\uff0c\uff1b")


def _over_prose(lines: list[str], at: int) -> bool:
    """Whether a prose line stands at ``lines[at]``, after at most ``MAX_SYMBOL_LINES`` lines of
    symbols (blank lines too)."""
    for line in lines[at : at + MAX_SYMBOL_LINES + 1]:
        if len(line) >= MIN_PROSE_LINE_CHARS or _SENTENCE_LINE_RE.match(line):
            return True
        if not _SYMBOLS_RE.fullmatch(line):
            return False
    return False


def _labels(head: str) -> tuple[list[str], str]:
    """The heading lines of ``head`` and its body (the other lines). One pass over the lines, each
    line read by its length first (a line of prose is no heading: the common case)."""
    lines = head.split("\n")
    labels: list[str] = []
    body: list[str] = []
    for i, line in enumerate(lines):
        if len(line) <= 2 * MAX_LABEL_CHARS:
            s = line.strip()
            if (
                s
                and len(s) <= MAX_LABEL_CHARS
                and s[-1] not in _CLAUSE_END
                and not s.startswith("```")  # (a code fence)
                and len(s.split()) <= MAX_LABEL_WORDS
                and _over_prose(lines, i + 1)
            ):
                labels.append(s)
                continue
        body.append(line)
    return labels, "\n".join(body)


def headings_only(prompt: str, head: str, task: frozenset[str], needed: int) -> dict[str, Any] | None:
    """What was found when the task's units stand only in headings, labels and short lines spread
    through the response ("## Urban Gardening" over each paragraph of an essay on a lighthouse)
    and its body of ``MIN_HEADED_BODY_WORDS`` words or more holds none of them, else None. Round
    12's ``label_only`` reads one label at the start or the end; a heading over every paragraph
    escaped it."""
    labels, body = _labels(head)
    if len(labels) < MIN_TASK_HEADINGS:
        return None
    # Cheapest first, each one compiled pass: the labels together, then the body (where an
    # answer says its task and most responses leave), then each label on its own.
    in_labels = task.intersection(units("\n".join(labels), STOP_WORDS))
    if len(in_labels) < max(1, needed) or len(body.split()) < MIN_HEADED_BODY_WORDS:
        return None
    in_body = task.intersection(units(body, STOP_WORDS))
    if len(in_body) > 1:
        return None
    if in_body:
        # One task word said once in the body is a chance meeting ("a small cottage" under
        # "small apartments", as round 13 reads a label's body); said twice, the body takes it up.
        # (A substring count: it counts the unit inside other words too, never fewer.)
        (unit,) = in_body
        if body.casefold().count(unit) > 1 or len(in_labels - in_body) < max(1, needed):
            return None
    if sum(1 for line in labels if not task.isdisjoint(units(line, STOP_WORDS))) < MIN_TASK_HEADINGS:
        return None  # (one title over a body: round 12's and 13's label rules read it)
    return {"headings_only": len(labels), "task_units_in_headings": len(in_labels), "chance_mentions": len(in_body)}


def round14(
    prompt: str,
    head: str,
    checkers: Sequence[Checker],
    task: frozenset[str],
    *,
    min_units: int,
    min_words: int,
    needed: int = 1,
) -> dict[str, Any] | None:
    """Round 14's rules: what was found, or None (``hook_reading``'s head and units)."""
    if not task or any(c.allows_short_answer() for c in checkers):
        return None
    found = (
        nothing_of_prompt(prompt, head, task, min_units, min_words)
        or short_off_topic(prompt, head, task, min_words)
        or restated_short(prompt, head, checkers, task, min_words)
        or headings_only(prompt, head, task, needed)
    )
    # A response in the language the prompt names cannot hold its English words (as the verifier
    # spares the overlap rule's refusals): asked only where a rule refused.
    if found is not None and cross_lingual(prompt, head):
        return None
    return found


def round14_text(
    prompt: str, response: str, checkers: Sequence[Checker], min_share: float, min_units: int, min_words: int
) -> dict[str, Any] | None:
    """The verifier's hook, after round 13's rules passed the response (``stuffing.hook_reading``'s
    reading of the head and the task's units; the gate's own bounds)."""
    head, task_units, need, _ = hook_reading(prompt, response, checkers, min_share)
    return round14(prompt, head, checkers, task_units, min_units=max(1, min_units), min_words=min_words, needed=need)
