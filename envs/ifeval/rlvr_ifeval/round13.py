"""Round 13 of issue 26 (``relevance_paste=9``, ``ifeval-data-v13`` / ``ifeval-synth-v13``): what round
12 (``rlvr_ifeval.stuffing``) left open, read after every earlier rule passed a response.

* **A label over an essay that meets the prompt by chance** (``label_by_chance``): round 12's
  ``label_only`` needs the body under a title or over a "Keywords:" line to share no word of the
  prompt, so an essay on a lighthouse keeper that says "weather" once under "<<Weather
  Conditions Arctic Cold>>", or "rocky point" under a task that asks for bullet points, was paid.
  A body that takes its task up says its words more than once; one prompt word said once in all
  the prose is a chance meeting, and the label rule reads the body without it.
* **Asides** (``rlvr_ifeval.asides``): the task's words hung on the edge of sentences about
  something else, whatever words frame them.
* **Two fixed options or more** (``options_hedged``): the prompt (its option list with it) said
  back over an essay holds every option of "My answer is yes. / no. / maybe." and was paid.
* **Part of the prompt said back** (``swapped.restated_prompt(part=True)``): round 12 needs half the
  prompt's word pairs; a response that says back its topic sentence with one constraint changed
  ("Write a blog post about urban beekeeping using commas.") holds less than half of a long prompt
  and nothing of its own.

Each reading exits early on the common case (a response longer than twice its prompt for the
restatement, fewer than four task words for the asides, prose lines that say the prompt's words
more than once for the label), and the verifier calls this only where the reward is still above 0
and rounds 3-12 passed the response.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from rlvr_ifeval.asides import aside_mentions
from rlvr_ifeval.base import Checker
from rlvr_ifeval.checkers_classic import CONSTRAINED_RESPONSES
from rlvr_ifeval.relevance_units import PREFIX, STOP_WORDS, _fold, units
from rlvr_ifeval.stuffing import MAX_READ_CHARS, MIN_LABEL_PROMPT_SHARE, _prompt_units, hook_reading, label_only
from rlvr_ifeval.swapped import restated_prompt

ROUND_13_PASTE = 9
"""The ``relevance_paste`` level (``ifeval-data-v13`` / ``ifeval-synth-v13``) from which the
verifier applies these rules; lower levels keep their verdicts."""
MIN_PROSE_LINE_WORDS = 12
"""A line of this many words or more is prose (a body's), not a label (a title, a keywords line)."""
MAX_CHANCE_MENTIONS = 1
"""The prose may say the prompt's words this many times in all and still be read as a text on
something else under a label: one word met once."""

_WORD_RE = re.compile(r"[^\W\d_]+")
_PARAGRAPH_RE = re.compile(r"\n[^\S\n]*\n")
"""A blank line (``label_only``'s paragraph break)."""
_NO_DROP: frozenset[str] = frozenset()


@lru_cache(maxsize=1024)
def _flat(prompt: str) -> str:
    return " ".join(prompt.split()).casefold()


def label_by_chance(
    prompt: str, head: str, task: frozenset[str], prompt_share: float = MIN_LABEL_PROMPT_SHARE
) -> dict[str, Any] | None:
    """What ``stuffing.label_only`` finds once the one prompt word the prose meets by chance is
    taken out, else None (prose that says the prompt's words twice or more is left to it)."""
    text = head[:MAX_READ_CHARS]
    # The common exits, in compiled calls: a label is a line of its own in the first or the last
    # paragraph and names the task (``label_only`` reads no other), and it stands at the start or
    # the end, so the middle third is prose, where two of the prompt's words are more than chance.
    stripped = text.strip()
    if "\n" not in stripped:
        return None
    paragraphs = _PARAGRAPH_RE.split(stripped)
    # (Every word read, stop words too, as ``label_only`` reads a line: an exit, never a refusal.)
    if task.isdisjoint(units(paragraphs[0], _NO_DROP)) and task.isdisjoint(units(paragraphs[-1], _NO_DROP)):
        return None
    ours = _prompt_units(prompt)
    third = len(text) // 3
    if len(ours.intersection(units(text[third : len(text) - third], STOP_WORDS))) > MAX_CHANCE_MENTIONS:
        return None
    chance: list[tuple[int, int]] = []
    blank: list[tuple[int, int]] = []
    offset = 0
    for line in text.split("\n"):
        words = list(_WORD_RE.finditer(line))
        if len(words) >= MIN_PROSE_LINE_WORDS:
            spans, met, content = [], [], 0
            for m in words:
                word = m.group(0)
                folded = word.lower() if word.isascii() else _fold(word)
                if len(folded) < 3 or folded in STOP_WORDS:
                    if len(folded) >= 3 and folded[:PREFIX] in ours:
                        # A stop word that begins like a prompt word ("through" under
                        # "throughout") says nothing of the task: taken out, never counted.
                        spans.append((offset + m.start(), offset + m.end()))
                    continue
                content += 1
                if folded[:PREFIX] in ours:
                    met.append((offset + m.start(), offset + m.end()))
            # A long line made of the prompt's words ("This response covers summary, text, funny,
            # nobel, prize ...") is a label, not prose: the label rule reads it as one. The
            # prompt's own sentence said back (repeat-then-answer, key 2355) is the request, and
            # what follows it answers: read as prose.
            if 2 * len(met) < content or " ".join(line.split()).casefold() in _flat(prompt):
                blank.extend(spans + met)
                chance.extend(met)
                if len(chance) > MAX_CHANCE_MENTIONS:
                    return None
        offset += len(line) + 1
    if not chance:
        return None  # (nothing met by chance: round 12's reading is the whole answer)
    for a, b in reversed(blank):
        # Underscores: no letters (the word is gone), the same length (the label rule's thirds).
        text = text[:a] + "_" * (b - a) + text[b:]
    found = label_only(prompt, text, task, prompt_share)
    return None if found is None else {**found, "chance_mentions": len(chance)}


def options_hedged(head: str, checkers: Sequence[Checker]) -> dict[str, Any] | None:
    """What was found when a response to a fixed-option instruction ("Your answer must contain one
    of the following exact phrases: My answer is yes. / no. / maybe.") holds two options or more,
    else None. The checker pays any option held; a response that says back the prompt (its option
    list with it) over an essay holds all three and has chosen none (``ifeval-data`` key 3752:
    the attacker's ``paste_many`` and ``constraint_swap``, ``-n 30 --seed 3``). An answer commits to
    one."""
    for checker in checkers:
        if checker.instruction_id == _CONSTRAINED:
            held = [option for option in CONSTRAINED_RESPONSES if option in head]
            if len(held) > 1:
                return {"options_held": len(held)}
    return None


_CONSTRAINED = "detectable_format:constrained_response"


def round13(
    prompt: str,
    head: str,
    checkers: Sequence[Checker],
    task: frozenset[str],
    needed: int,
    *,
    label_share: float = MIN_LABEL_PROMPT_SHARE,
    min_words: int = 5,
) -> dict[str, Any] | None:
    """Round 13's rules, cheapest first: what was found, or None (``stuffing.stuffed``'s arguments)."""
    found = options_hedged(head, checkers) or restated_prompt(prompt, head, min_words, checkers, part=True)
    if found is not None or not task or any(c.allows_short_answer() for c in checkers):
        return found
    return aside_mentions(prompt, head, task, max(1, needed)) or label_by_chance(prompt, head, task, label_share)


def round13_text(prompt: str, response: str, checkers: Sequence[Checker], min_share: float) -> dict[str, Any] | None:
    """The verifier's hook, after ``stuffing.stuffed_text`` passed the response (the same reading
    of the task's units and the gate's need: ``stuffing.hook_reading``)."""
    head, task_units, need, label_share = hook_reading(prompt, response, checkers, min_share)
    return round13(prompt, head, checkers, task_units, need, label_share=label_share)
