"""A response that shares nothing with its own prompt while another prompt claims it (issue 26,
round 5: ``ifeval-data-v5``, ``ifeval-synth-v6``; rounds 6 and 7 below).

The contrast rules of ``rlvr_ifeval.contrast`` refuse a response another prompt of the background
matches far better than its own task. They must allow for real answers that paraphrase their
task, so they weigh the own task's matched words against the other prompt's, and a pasted answer
that happens to share one word with its new prompt, or a short one, passes. Measured on the
labelled responses, most pastes still paid share *no* content word at all with the prompt they
were pasted under (212 of 271), while a real answer that shares none with its prompt is rare (20
of 493) and is one whose words no background prompt matches well either: a name ("Oreo, Panda,
Zebra"), a number, a rewrite in synonyms.

The rule: a response is an answer to another prompt when

* its own prompt has at least ``MIN_PROMPT_UNITS`` content units, taken from the **whole**
  prompt (the task text of ``relevance.task_units`` drops every sentence with a constraint cue,
  and with it "a funny email about the ingredients of a good life that contains at least 20
  sentences"), without the instructions' own string arguments (forbidden words, keywords);
* the response holds **none** of them (a unit and its plural or singular are one: "moms" and
  "mom"), and
* some other background prompt matches it with a similarity (IDF-weighted matched units over the
  square root of that prompt's weight, as ``contrast.outranked``) of ``MIN_HOME_SIMILARITY`` or
  more: evidence that the text was written for something else, not merely that it paraphrases.

Not judged: prompts that name a language other than English or leave the language open
(translation: a cross-lingual answer shares no word by nature), and responses whose own prompt
has fewer content units. A paste whose home is not in the background is left to the other rules.

``cross_lingual`` is the same idea turned around for the overlap rule: a response in the
language a prompt names ("Explain in French ...") cannot be expected to use the English prompt's
words, so the overlap rule does not judge it (labelled key 1137 was refused for that).

Round 6 (``relevance_paste=2``: ``ifeval-data-v6``, ``ifeval-synth-v7``) adds two rules that
need no home, or a far better one:

* **Avoids the words chance alone would meet.** A response that shares no content unit with
  its prompt is refused, whatever other prompt it matches or none, when chance alone would put
  ``MIN_CHANCE_UNITS`` of the prompt's units in a text of its length: a unit is in a random
  background prompt at its document frequency ``p`` (``exp(-idf)``), and a response of ``m``
  distinct units is as large as ``d = m / k`` prompts (``k``: a background prompt's mean number
  of units), so ``expected_by_chance`` = sum over the prompt's units of ``1 - (1 - p) ** d``.
  Length-aware by construction: a short answer ("Oreo, Panda, Zebra", "My answer is no.") or
  one under a prompt of rare words (a name, a topic) is expected to meet nothing and is not
  judged; a longer text that avoids every common word of a long prompt is not answering it.
  Real answers share about ten times what chance gives, so one that shares nothing where
  chance gives a quarter of a unit is rare: among the labelled-good answers the most is 0.236
  (key 2100, 69 words on Frankenstein's bride's fashion that never name her). Prompts of two
  content units are judged by this rule too (``MIN_CHANCE_PROMPT_UNITS``), and it needs a
  background of ``MIN_CHANCE_BACKGROUND`` prompts or more.
* **A far better home.** A response sharing 12-25% of its prompt's weight (``MAX_SHARED_COVER``
  .. ``MAX_SHARED_COVER_FAR``) is refused when another prompt's similarity is
  ``MIN_FAR_HOME_SIMILARITY`` or more and ``MIN_FAR_HOME_RATIO`` times its own prompt's: long
  pastes meet a few of any prompt's words, and their home matches them far better (the labelled
  answers in that band reach a ratio of 4.26 at most).

Round 7 (``relevance_paste=3``: ``ifeval-data-v7``) asks what chance gives and what an answer would
give, of the background's own prompts of ``MIN_CHANCE_PROMPT_UNITS`` content units or more (a
prompt outside it, such as a generator's task, keeps the instructions' strings among its content
units: eight forbidden words an honest answer avoids are not words it should carry):

* **No more than chance.** A response that shares some of its prompt's units, but at most
  ``expected_by_chance`` of them, is refused, home or none: a long paste meets "work" and "city"
  by chance, and the round-6 rules weighed such a share as evidence. One that shares at most
  ``MAX_CHANCE_EXCESS`` more is judged as one that shares nothing (another prompt's similarity
  ``MIN_HOME_SIMILARITY`` or more refuses it).
* **What an answer would carry.** A response that shares none of its prompt's units is refused
  when an answer of its size would carry ``MIN_ANSWER_UNITS`` of them (``expected_if_answered``:
  the labelled-good answers carry 0.6-0.7 of their prompt's units once they are 40 distinct units
  long, fewer when shorter). The chance rule cannot judge a prompt of rare words (names, places):
  chance meets none of them, and an answer meets several.

Measured on the labelled pairs (``bench/ifeval_hostile.py --pastes``): pastes paid 190 -> 170 of
14,780, IFBench answers under IFEval prompts 44 -> 40 of 2,310, no labelled-good answer refused
more. What stays paid is mostly out of lexical reach: short answers (under 20 distinct units,
where half the labelled-good answers under 10 units share no word with their own prompt), prompts
in or naming another language, prompts of one content unit.

Cost: the prompt's units are computed once per prompt (at ``Background.build`` for the
background's prompts, else cached); a response costs one set test, and the walk over the other
prompts' matches (which ``contrast`` has already made) only when it shares nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rlvr_ifeval import relevance
from rlvr_ifeval.base import Checker, strings
from rlvr_ifeval.language import detect_language, obvious_language
from rlvr_ifeval.relevance import _TASK_TEXT_ARGS, TASK_STOP_WORDS, units
from rlvr_ifeval.response_language import _NAME_RE, _NAMES, _family, allowed_languages

if TYPE_CHECKING:  # contrast calls this module; it only reads a Background's fields
    from rlvr_ifeval.contrast import Background

MIN_PROMPT_UNITS = 3
"""A prompt with fewer content units is not judged ("Write a poem.", "Name a dog.")."""
MIN_HOME_SIMILARITY = 2.0
"""When the response shares nothing with its prompt, the other prompt's similarity must reach
this (calibrated on the labelled responses: at 1.9 and 2.0 no labelled-good answer is refused,
at 1.8 one is, at 1.5 five are)."""
MAX_SHARED_COVER = 0.12
"""When it shares a little, the shared units' weight must be at most this share of the prompt's
(a long paste meets a word or two of any prompt by chance: "work", "offering", "code") ..."""
MIN_HOME_SIMILARITY_SHARED = 2.5
"""... the other prompt's similarity must reach this ..."""
MIN_HOME_RATIO = 2.5
"""... and this many times the response's similarity to its own prompt. Calibrated on the
labelled responses: no labelled-good answer refused; the closest has a cover of 0.153 (at 0.15
none, at 0.17 two are refused)."""
# Round 6 (``relevance_paste=2``).
MIN_CHANCE_UNITS = 0.25
"""A response sharing no content unit with its prompt is refused when random prompts of the
background as large as the response would hold this many of the prompt's units between them
(``expected_by_chance``). Real answers share about ten times what chance gives (labelled-good:
9.4 times in sum, median 11.6), so one expected to meet a quarter of a unit by chance is expected
to meet two or three as an answer. Calibrated on the labelled responses: the labelled-good
answers that share nothing reach 0.236 (key 2100; then 0.10); at 0.25 no labelled-good answer
is refused and 9 of the labelled pastes are (0.3: 7; 0.2: 10 and 2100; 0.1: 26 and 2100)."""
MIN_CHANCE_PROMPT_UNITS = 2
"""The chance rule judges prompts of this many content units or more (the other rules of this
module ``MIN_PROMPT_UNITS``): "a trip to Japan" has two, and an answer that names neither where
chance expects a quarter of one is not about it. Labelled: at 2 the rule stops one more paste
and 11 more IFBench answers under IFEval prompts than at 3, and refuses no labelled-good answer
(those under prompts of 2 units that share nothing reach 0.193)."""
MIN_CHANCE_BACKGROUND = 50
"""The chance rule needs this many background prompts (document frequencies over a handful of
base prompts say nothing about chance: every word of three prompts is "common")."""
MAX_SHARED_COVER_FAR = 0.25
"""A response sharing more than ``MAX_SHARED_COVER`` and at most this share of its prompt's weight
is refused when ..."""
MIN_FAR_HOME_SIMILARITY = 3.0
"""... another prompt's similarity reaches this ..."""
MIN_FAR_HOME_RATIO = 5.0
"""... and this many times its own prompt's (the labelled-good answers in the band: 4.26 at most;
at 4.0 two are refused)."""
# Round 7 (``relevance_paste=3``).
MAX_CHANCE_EXCESS = 0.4
"""A response sharing some of its prompt's units is judged as one sharing nothing when it shares
at most this many more than ``expected_by_chance`` (refused outright at or under it). Labelled-
good answers share 0.21 more at the least (key 3071: 1 shared, 0.79 expected, no home), then
0.47 (keys 2416, 57, whose best other prompts reach 2.46 and 4.51: at 0.5 both are refused)."""
ANSWER_CARRY = 0.65
"""The share of its prompt's content units a long answer carries (labelled-good answers of 40
distinct units or more: 0.6-0.7 of them) ..."""
ANSWER_CARRY_UNITS = 12.0
"""... reached as ``1 - exp(-m / ANSWER_CARRY_UNITS)`` for an answer of ``m`` distinct units (the
labelled-good answers of under 10 units carry 0.16 of them, of 10-20 units 0.5)."""
MIN_ANSWER_UNITS = 5.0
"""A response that shares no content unit with its prompt is refused when an answer of its size
would carry this many (``expected_if_answered``): a real answer that carries none of eight or
more of its prompt's words is rare. Labelled-good answers that share nothing reach 4.43 (key
2100, 44 units under 7; then 3.87: keys 3748, a haiku rewritten in other words, and 91, 4 units
under 21); at 4.5 none is refused, at 4.0 one."""
MAX_PROMPT_CHARS = 20_000
"""A prompt is read this far for its units."""
MAX_CACHED = 4096
"""Prompts outside the background whose content a background keeps (a generator's tasks)."""

_ENGLISH = frozenset({"en"})
_LATIN = frozenset({"latin"})


@dataclass(frozen=True)
class PromptContent:
    """A prompt's content units, each with its plural or singular, and their weights."""

    units: tuple[tuple[frozenset[str], float], ...]
    """(the unit and its variants, its weight over the background)."""
    every: frozenset[str]
    """Every variant of every unit (one set test: does the response share anything?)."""
    weight: float
    """The units' total weight."""


def literal_units(checkers: Iterable[Checker]) -> frozenset[str]:
    """The units of the instructions' string arguments (forbidden words, keywords, end phrases):
    a response holds the ones it must and lacks the ones it must not, whatever it answers."""
    found: set[str] = set()
    for checker in checkers:
        for name, value in checker.kwargs.items():
            if name not in _TASK_TEXT_ARGS:
                for s in strings(value):
                    found |= units(s)
    return frozenset(found)


def variants(unit: str) -> frozenset[str]:
    """A unit with its plural or singular (units are cut at six letters, so only short words
    differ: "moms"/"mom", "dogs"/"dog")."""
    out = {unit}
    if len(unit) < 6:
        out.add(unit + "s")
        if len(unit) > 3 and unit.endswith("s"):
            out.add(unit[:-1])
    return frozenset(out)


@lru_cache(maxsize=4096)
def content_units(prompt: str, literal: frozenset[str] = frozenset()) -> frozenset[str] | None:
    """The content units of the whole ``prompt`` (every sentence, constraint sentences too, less
    the stop, request and form words and ``literal``), or None when the prompt is not judged: it
    names a language other than English or leaves the language open."""
    prompt = prompt[:MAX_PROMPT_CHARS]
    allowed = allowed_languages(prompt)
    if allowed is None or allowed[0] != _ENGLISH or allowed[1] != _LATIN:
        return None  # another language, or no language found: its words are not the response's
    return frozenset(units(prompt, TASK_STOP_WORDS) - literal)


def prompt_content(found: frozenset[str] | None, idf: dict[str, float], unseen: float) -> PromptContent | None:
    """``content_units`` weighted by a background's inverse document frequencies."""
    if found is None:
        return None
    weighted = tuple((variants(u), idf.get(u, unseen)) for u in sorted(found))
    every = frozenset().union(*(v for v, _ in weighted)) if weighted else frozenset()
    return PromptContent(weighted, every, sum(w for _, w in weighted))


def shares_little_but_has_a_home(
    background: Background,
    prompt: str,
    task: frozenset[str],
    response: frozenset[str] | set[str],
    matched: dict[int, float],
) -> dict[str, Any] | None:
    """What was found when ``response`` (its units) holds none, or only a small weight, of
    ``prompt``'s content units while another background prompt matches it well, else None.
    ``matched``: ``contrast.matched_weights(background, response)``."""
    own_index = background.index.get(prompt)
    mine = background.prompt_content(prompt, own_index)
    level = int(background.paste)
    if mine is not None and own_index is None and level >= 4:
        mine = _without_instruction_words(mine, prompt, task)
    if mine is None or not mine.units:
        return None
    nothing = mine.every.isdisjoint(response)
    # Round 7 judges the background's own prompts only: their content units were made without the
    # instructions' strings (a prompt outside it, a generator's task, keeps its forbidden words).
    if level >= 3 and own_index is not None and len(mine.units) >= MIN_CHANCE_PROMPT_UNITS:
        if nothing:
            carried = expected_if_answered(len(mine.units), len(response))
            if carried >= MIN_ANSWER_UNITS:
                return {"own_prompt_cover": 0.0, "expected_if_answered": round(carried, 2)}
        else:
            found = _no_more_than_chance(background, prompt, task, mine, response, matched)
            if found is not None:
                return found
    if len(mine.units) < MIN_PROMPT_UNITS:
        if level >= 2 and nothing and len(mine.units) >= MIN_CHANCE_PROMPT_UNITS:
            return _by_chance(background, mine, response)
        return None
    if nothing:
        cover = own = 0.0
        floor = MIN_HOME_SIMILARITY
    else:
        shared = sum(w for variants, w in mine.units if not variants.isdisjoint(response))
        cover = shared / mine.weight
        own = shared / math.sqrt(mine.weight)
        if cover <= MAX_SHARED_COVER:
            floor = max(MIN_HOME_SIMILARITY_SHARED, MIN_HOME_RATIO * own)
        elif level >= 2 and cover <= MAX_SHARED_COVER_FAR:
            floor = max(MIN_FAR_HOME_SIMILARITY, MIN_FAR_HOME_RATIO * own)
        else:
            return None
    best = _best_other_similarity(background, prompt, task, matched)
    if best < floor:
        return _by_chance(background, mine, response) if level >= 2 and nothing else None
    return {
        "own_prompt_cover": round(cover, 3),
        "own_prompt_similarity": round(own, 2),
        "other_prompt_similarity": round(best, 2),
    }


def instruction_words(prompt: str, task: frozenset[str]) -> frozenset[str]:
    """The units of ``prompt`` its instructions name as strings (forbidden words, keywords), as
    far as the prompt alone tells: those of its task text that ``task`` (its task units, made with
    the instructions' strings taken out) lacks, and those quoted in its constraint sentences."""
    stated = relevance.task_units(prompt, ()).units
    found = set(stated - task)
    for sentence in _SENTENCE.split(prompt[:MAX_PROMPT_CHARS]):
        if relevance.constraint_sentence(sentence):
            for quoted in _QUOTED.findall(sentence):
                found |= units(quoted, TASK_STOP_WORDS)
    return frozenset(found)


_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")  # as the task text is cut (relevance.task_units)
_QUOTED = re.compile(r"\"[^\"]{1,200}\"|“[^”]{1,200}”|'[^'\n]{1,200}'|\[[^\]]{1,200}\]")


def _without_instruction_words(mine: PromptContent, prompt: str, task: frozenset[str]) -> PromptContent | None:
    """``mine`` (the content of a prompt outside the background, made from the prompt alone)
    without ``instruction_words``: an answer must avoid a forbidden word, and is not to be judged
    by its absence (round 8; the background's own prompts have them taken out at ``build``)."""
    drop = instruction_words(prompt, task)
    if not drop:
        return mine
    kept = tuple((variants, w) for variants, w in mine.units if variants.isdisjoint(drop))
    if len(kept) == len(mine.units):
        return mine
    every = frozenset().union(*(v for v, _ in kept)) if kept else frozenset()
    return PromptContent(kept, every, sum(w for _, w in kept))


def _by_chance(
    background: Background, mine: PromptContent, response: frozenset[str] | set[str]
) -> dict[str, Any] | None:
    """What was found when ``response`` (its units), which holds none of ``mine``, would hold
    ``MIN_CHANCE_UNITS`` of them by chance, else None."""
    if len(background.units) < MIN_CHANCE_BACKGROUND:
        return None
    expected = expected_by_chance(mine, len(response) / _mean_units(background))
    if expected < MIN_CHANCE_UNITS:
        return None
    return {"own_prompt_cover": 0.0, "expected_by_chance": round(expected, 2)}


def expected_if_answered(prompt_units: int, response_units: int) -> float:
    """How many of a prompt's ``prompt_units`` content units an answer of ``response_units``
    distinct units carries, as the labelled-good answers do: each unit with probability
    ``ANSWER_CARRY * (1 - exp(-response_units / ANSWER_CARRY_UNITS))``."""
    if prompt_units <= 0 or response_units <= 0:
        return 0.0
    return prompt_units * ANSWER_CARRY * -math.expm1(-response_units / ANSWER_CARRY_UNITS)


def _no_more_than_chance(
    background: Background,
    prompt: str,
    task: frozenset[str],
    mine: PromptContent,
    response: frozenset[str] | set[str],
    matched: dict[int, float],
) -> dict[str, Any] | None:
    """Round 7: what was found when ``response`` shares some of ``mine``'s units, but no more
    than chance alone would put in a text of its length, else None. Refused outright when the
    shared units are at most ``expected_by_chance``; when they exceed it by at most
    ``MAX_CHANCE_EXCESS``, judged as a response that shares nothing (another prompt's similarity
    ``MIN_HOME_SIMILARITY`` or more refuses it)."""
    if len(background.units) < MIN_CHANCE_BACKGROUND:
        return None
    shared = sum(not variants.isdisjoint(response) for variants, _ in mine.units)
    expected = expected_by_chance(mine, len(response) / _mean_units(background))
    if shared > expected + MAX_CHANCE_EXCESS:
        return None
    found = {"own_prompt_shared": shared, "expected_by_chance": round(expected, 2)}
    if shared <= expected:
        return found
    best = _best_other_similarity(background, prompt, task, matched)
    if best < MIN_HOME_SIMILARITY:
        return None
    return {**found, "other_prompt_similarity": round(best, 2)}


def _best_other_similarity(
    background: Background, prompt: str, task: frozenset[str], matched: dict[int, float]
) -> float:
    """The highest similarity (matched weight over the square root of the prompt's weight) of a
    background prompt other than ``prompt`` (and with other task units than ``task``)."""
    own_index = background.index.get(prompt)
    weights, prompt_units = background.weights, background.units
    best = 0.0
    for i, w in matched.items():
        if i != own_index:
            similarity = w / math.sqrt(weights[i])
            if similarity > best and prompt_units[i] != task:
                best = similarity
    return best


def expected_by_chance(mine: PromptContent, draws: float) -> float:
    """How many of ``mine``'s units ``draws`` prompts of the background, drawn at random, would
    hold between them: a unit is in a prompt at its document frequency (``exp(-weight)``, the
    weight being ``log((n + 1) / (df + 0.5))``), and a response of ``m`` distinct units holds as
    many as ``m / mean units of a prompt`` prompts. Summed with ``math.fsum`` over the units in
    their (sorted) order: the same float in every process."""
    if draws <= 0:
        return 0.0
    return math.fsum(1.0 - (1.0 - math.exp(-w)) ** draws for _, w in mine.units)


def _mean_units(background: Background) -> float:
    """The mean number of task units of a background prompt (made once per background object,
    kept beside it: a frozen dataclass, as its other caches)."""
    found = background.__dict__.get("_mean_units")
    if found is None:
        found = max(1.0, math.fsum(len(u) for u in background.units) / max(1, len(background.units)))
        object.__setattr__(background, "_mean_units", found)
    return float(found)


_MIN_DETECT_LETTERS = 20
"""A response with fewer letters in its first 400 characters is not detected (langdetect guesses)."""


def cross_lingual(prompt: str, response: str) -> bool:
    """Whether ``response`` is written in a language other than English that ``prompt`` names:
    the prompt's English words cannot be expected in it."""
    named = _named_languages(prompt)
    if not named:
        return False
    head = response[:2000]
    if sum(map(str.isalpha, head[:400])) < _MIN_DETECT_LETTERS:
        return False
    lowered = head.lower()
    found = obvious_language(lowered) or detect_language(lowered)
    if found is None:
        return False
    return found.split("-")[0] in named


@lru_cache(maxsize=4096)
def _named_languages(prompt: str) -> frozenset[str]:
    """The base codes of the languages other than English that ``prompt`` allows (with their
    close neighbours), when it names one; else empty."""
    named = {_NAMES[n] for n in _NAME_RE.findall(prompt.casefold())} - {"en"}
    if not named:
        return frozenset()
    out: set[str] = set()
    for code in named:
        out |= {c.split("-")[0] for c in _family(code)}
    return frozenset(out)
