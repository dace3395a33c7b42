"""Relevance measured against other prompts: is a response an answer to a *different* task?

The overlap rule of ``rlvr_ifeval.relevance`` asks whether a response uses its task's words; it
cannot ask much (real answers paraphrase: 32 of 493 labelled-good answers share no unit with
their task), so an answer written for another prompt and pasted under this one passes wherever
it shares a word or the task has few. What such a paste does have is a better home: it shares
the *rare* words of the prompt it was written for. This module keeps, per env, a **background**
of prompts (the env's own data, or a generator's topics) and, for a response, finds the
background prompt whose task units it covers best, each unit weighted by its inverse document
frequency over the background (words every prompt has weigh little, a name or a topic word
much). The response is **answering another prompt** when that prompt's matched weight is large
(``MIN_RARE_UNITS`` of the rarest units' weight or more), covers a good share of that prompt
(``MIN_OTHER_COVER``) and is more than ``1 / MAX_OWN_RATIO`` times the weight it matches of its
own task. A near-duplicate prompt (same task units) is never "another" prompt.

Calibrated on the labelled responses (the README has the numbers): with the labelled prompts as
the background, no labelled-good answer is refused; pasted answers whose home prompt is in the
background are. A paste whose home is not in the background (generic text, another data set's
answer) is left to the overlap rule.

Round 4 (``Background.outrank``, ``outranked``): the other prompt is also sought by similarity
(matched weight over the square root of the prompt's weight): picked by weight alone, a long
answer's best match is a large prompt it shares common words with, and the small prompt it was
written for, which it covers far better, is never compared.

Round 5 (``Background.paste``: ``rlvr_ifeval.pasted``): a response that shares no content unit
with its whole prompt while another background prompt matches it well is refused too.

Everything about the background is computed once (``Background.build``: units, weights, an
inverted index); a response costs one pass over its units' postings.

Every verdict is the same in every process: units are sets of strings, whose iteration order
follows Python's per-process string hashing (``PYTHONHASHSEED``; a pool's spawned workers each
have their own), so no float is summed in set order (``math.fsum``, or the units walked sorted)
and no choice between candidates of equal weight is left to a dict's insertion order (a paste
tied between its home and a large prompt was paid in about half of all processes).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from rlvr_ifeval import contrast_jit, pasted, prose_jit, reading
from rlvr_ifeval.base import Checker

MAX_BACKGROUND = 5000
"""Prompts kept in a background (a larger data set is sampled evenly): the index stays small to
pickle to the pool's workers and quick to build at ``make``."""
MIN_RARE_UNITS = 1.6
"""The other prompt's matched weight must reach this many times the rarest unit's weight (about
two rare words a paste brings from its home prompt; labelled-good answers: none refused)."""
MIN_OTHER_COVER = 0.3
"""... and this share of that prompt's whole weight."""
MAX_OWN_RATIO = 0.3
"""... and the weight matched of the response's own task must be under this share of it."""

# Round 4 (``outrank``: ``ifeval-data-v4``, ``ifeval-synth-v5``): the best other prompt by cosine.
MIN_OUTRANK_SIMILARITY = 3.5
"""The other prompt's matched weight over the square root of its whole weight (a cosine without
the response's norm, which is the same for every prompt) must reach this: about three or four
rare units of a prompt of ordinary size ..."""
MIN_OUTRANK_COVER = 0.35
"""... the response must hold this share of that prompt's weight (a long answer meets a large
prompt's common words by chance, a small share of it) ..."""
MIN_OUTRANK_RATIO = 6.0
"""... and it must be this many times the response's similarity to its own task. Calibrated on
the labelled responses (none refused); one step closer refuses one labelled-good answer each
(similarity 3.0, cover 0.25, ratio 4)."""


def _no_checkers(prompt: str) -> tuple[Checker, ...]:
    return ()


@dataclass(frozen=True)
class Background:
    """Prompts a response is compared with: their task units, inverse document frequencies and
    an inverted index (unit -> prompts that have it)."""

    prompts: tuple[str, ...]
    units: tuple[frozenset[str], ...]
    weights: tuple[float, ...]
    idf: dict[str, float]
    postings: dict[str, tuple[int, ...]]
    unseen: float
    """The weight of a unit no background prompt has (the rarest)."""
    index: dict[str, int] = field(default_factory=dict)
    outrank: bool = False
    """Also refuse a response that another prompt outranks by cosine (``outranked``)."""
    content: tuple[pasted.PromptContent | None, ...] = ()
    """Per prompt, the content units of the whole prompt without its instructions' string
    arguments, weighted (``pasted.prompt_content``; a background pickled before round 5 has none:
    computed per prompt then)."""
    paste: int = 0
    """Also refuse a response that shares nothing with its prompt while another prompt matches
    it well (``pasted.shares_little_but_has_a_home``): 1 the round-5 rules, 2 with round 6's."""

    @classmethod
    def build(cls, tasks: Iterable[tuple[str, Sequence[Checker]]], limit: int = MAX_BACKGROUND) -> Background | None:
        """A background from ``(prompt, checkers)`` pairs (duplicate prompts once; evenly sampled
        down to ``limit``); None when fewer than two prompts have task units."""
        from rlvr_ifeval.relevance import task_units  # relevance imports this module

        seen: dict[str, Sequence[Checker]] = {}
        for prompt, checkers in tasks:
            if isinstance(prompt, str) and prompt.strip():
                seen.setdefault(prompt, checkers)
        items = list(seen.items())
        if len(items) > limit:
            step = len(items) / limit
            items = [items[int(i * step)] for i in range(limit)]
        prompts: list[str] = []
        units: list[frozenset[str]] = []
        content: list[frozenset[str] | None] = []
        for prompt, checkers in items:
            found = task_units(prompt, tuple(checkers)).units
            if found:
                prompts.append(prompt)
                units.append(found)
                content.append(pasted.content_units(prompt, pasted.literal_units(checkers)))
        if len(prompts) < 2:
            return None
        n = len(prompts)
        df: dict[str, int] = {}
        for found in units:
            for unit in found:
                df[unit] = df.get(unit, 0) + 1
        idf = {unit: math.log((n + 1) / (d + 0.5)) for unit, d in df.items()}
        postings: dict[str, list[int]] = {}
        for i, found in enumerate(units):
            for unit in found:
                postings.setdefault(unit, []).append(i)
        weights = tuple(math.fsum(idf[u] for u in found) for found in units)  # any set order, one value
        unseen = math.log((n + 1) / 0.5)
        return cls(
            prompts=tuple(prompts),
            units=tuple(units),
            weights=weights,
            idf=idf,
            postings={u: tuple(ids) for u, ids in postings.items()},
            unseen=unseen,
            index={p: i for i, p in enumerate(prompts)},
            content=tuple(pasted.prompt_content(found, idf, unseen) for found in content),
        )

    def answers_another(
        self, prompt: str, task: frozenset[str], response: frozenset[str] | set[str]
    ) -> dict[str, Any] | None:
        """``answers_another_prompt`` against this background (what ``relevance`` calls: it
        imports nothing from here at run time, since this module reads its task units), and
        with ``outrank`` ``outranked`` too."""
        kernel = prose_jit.contrast_kernel()
        walk = self.walk() if kernel is not None else None
        if walk is None or not walk.usable:
            matched = matched_weights(self, response)  # one walk of the postings for both rules
            found = answers_another_prompt(self, prompt, task, response, matched)
            if found is None and self.outrank:
                found = outranked(self, prompt, task, response, matched)
            met = bool(matched)
        else:  # the same walk and picks, compiled (``contrast_jit``); the rules' tests stay here
            own_index = self.index.get(prompt)
            order, values, best_i, best, similar = walk.run(
                kernel, response, own_index, task, MIN_RARE_UNITS * self.unseen, MIN_OUTRANK_COVER
            )
            _remember_walk(walk, response, order, values)
            found = _another_prompt(self, task, response, best, best_i)
            if found is None and self.outrank:
                found = _outranking(self, task, response, similar)
            met = len(order) > 0
            matched = None
        if found is None and self.paste and (met or self.paste >= 2):  # round 6 needs no match
            if matched is None:  # (made from the arrays only if the paste rule reads it)
                matched = cast(dict[int, float], contrast_jit.Matched(order, values))
            found = pasted.shares_little_but_has_a_home(self, prompt, task, response, matched)
        return found

    def walk(self) -> contrast_jit.Walk:
        """The postings as the compiled walk reads them (made once, shared with the variants,
        never pickled)."""
        found = self.__dict__.get("_walk")
        if found is None:
            found = contrast_jit.Walk(self.idf, self.postings, self.units, self.weights)
            object.__setattr__(self, "_walk", found)
        return found

    def prompt_content(self, prompt: str, index: int | None) -> pasted.PromptContent | None:
        """The weighted content units of ``prompt`` (``index``: its place in this background):
        made at ``build`` for the background's prompts; for others (a generator's tasks, a
        background pickled before round 5) made from the prompt alone and kept, boundedly."""
        if index is not None and index < len(self.content):
            return self.content[index]
        cache = self.__dict__.get("_content")
        if cache is None:
            cache = {}
            object.__setattr__(self, "_content", cache)
        if prompt in cache:
            return cache[prompt]
        found = pasted.prompt_content(pasted.content_units(prompt), self.idf, self.unseen)
        if len(cache) >= pasted.MAX_CACHED:
            cache.clear()
        cache[prompt] = found
        return found

    def outranking(self) -> Background:
        """This background with ``outrank`` on (made once, kept beside it, never pickled)."""
        return self.variant(outrank=True, paste=self.paste)

    def variant(self, *, outrank: bool, paste: int) -> Background:
        """This background with the rules ``outrank`` and ``paste`` on or off (each variant made
        once, kept beside it, never pickled: the pool ships the background to every worker)."""
        if self.outrank == outrank and self.paste == paste:
            return self
        twins = self.__dict__.get("_variants")
        if twins is None:
            twins = {}
            object.__setattr__(self, "_variants", twins)
        twin = twins.get((outrank, paste))
        if twin is None:
            twin = dataclasses.replace(self, outrank=outrank, paste=paste)
            if "_walk" in self.__dict__:
                object.__setattr__(twin, "_walk", self.__dict__["_walk"])
            twins[(outrank, paste)] = twin
        return twin

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_variants", None)
        state.pop("_content", None)
        state.pop("_outranking", None)
        state.pop("_walk", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.setdefault("content", ())  # pickled before round 5
        state.setdefault("paste", False)
        self.__dict__.update(state)

    def weight(self, units: Iterable[str]) -> float:
        idf, unseen = self.idf, self.unseen
        return math.fsum(idf.get(u, unseen) for u in units)  # exactly rounded: the same in any order


def matched_weights(background: Background, response: frozenset[str] | set[str]) -> dict[int, float]:
    """Background prompt -> the weight of its units ``response`` (its units) has: the same floats,
    in the same order, in every process (the units are walked sorted, ~2% of the walk's cost)."""
    idf, postings = background.idf, background.postings
    matched: dict[int, float] = {}
    for unit in sorted(idf.keys() & response):  # the units some background prompt has (in C)
        w = idf[unit]
        for i in postings[unit]:
            matched[i] = matched.get(i, 0.0) + w
    return matched


def answers_another_prompt(
    background: Background,
    prompt: str,
    task: frozenset[str],
    response: frozenset[str] | set[str],
    matched: dict[int, float] | None = None,
) -> dict[str, Any] | None:
    """What was found when ``response`` (its units) answers a background prompt other than
    ``prompt`` (its task units ``task``) clearly better than its own task, else None.
    ``matched``: ``matched_weights(background, response)`` where already computed."""
    if matched is None:
        matched = matched_weights(background, response)
    if not matched:
        return None
    floor = MIN_RARE_UNITS * background.unseen
    own_index = background.index.get(prompt)
    best, best_i = 0.0, -1
    weights = background.weights
    for i, w in matched.items():
        # Of prompts matched equally, the one the response covers most (then the first): the
        # likelier home, and a choice that does not hang on the order the walk met them in.
        if w >= floor and i != own_index and (w > best or (w == best and (weights[i], i) < (weights[best_i], best_i))):
            best, best_i = w, i
    return _another_prompt(background, task, response, best, best_i)


def _another_prompt(
    background: Background, task: frozenset[str], response: frozenset[str] | set[str], best: float, best_i: int
) -> dict[str, Any] | None:
    """``answers_another_prompt`` once the best other prompt by weight is picked (-1: none)."""
    if best_i < 0:
        return None
    # The best candidate only: a weaker one cannot pass the own-task test where the best fails.
    if background.units[best_i] == task or best < MIN_OTHER_COVER * background.weights[best_i]:
        return None
    own = background.weight(task & response)
    if own >= MAX_OWN_RATIO * best:
        return None
    return {
        "other_prompt_weight": round(best, 2),
        "other_prompt_cover": round(best / background.weights[best_i], 3),
        "own_task_weight": round(own, 2),
    }


def outranked(
    background: Background,
    prompt: str,
    task: frozenset[str],
    response: frozenset[str] | set[str],
    matched: dict[int, float] | None = None,
) -> dict[str, Any] | None:
    """What was found when a background prompt other than ``prompt`` is far more similar to
    ``response`` than its own task (IDF-weighted matched units over the square root of the
    prompt's weight), else None. ``answers_another_prompt`` picks the other prompt by matched
    weight, which favours large prompts; this picks it by similarity, so a small prompt a pasted
    answer was written for outranks them (issue 26 round 4)."""
    if matched is None:
        matched = matched_weights(background, response)
    weights = background.weights
    own_index = background.index.get(prompt)
    best = 0.0
    for i, w in matched.items():
        if i != own_index and w >= MIN_OUTRANK_COVER * weights[i]:
            similarity = w / math.sqrt(weights[i])
            if similarity > best and background.units[i] != task:
                best = similarity
    return _outranking(background, task, response, best)


def _outranking(
    background: Background, task: frozenset[str], response: frozenset[str] | set[str], best: float
) -> dict[str, Any] | None:
    """``outranked`` once the best similarity of another prompt is found."""
    if best < MIN_OUTRANK_SIMILARITY:
        return None
    own_weight = background.weight(task)
    own = background.weight(task & response) / math.sqrt(own_weight) if own_weight else 0.0
    if best < MIN_OUTRANK_RATIO * own:
        return None
    return {"other_prompt_similarity": round(best, 2), "own_task_similarity": round(own, 2)}


def _remember_walk(walk: contrast_jit.Walk, response: frozenset[str] | set[str], order: Any, values: Any) -> None:
    """Keep the walk's arrays in the open verdict's reading (``walked`` hands them on)."""
    found = reading.current()
    if found is not None:
        found.values[("contrast_walk", id(walk))] = (response, order, values)


def walked(background: Background, response: frozenset[str] | set[str]) -> tuple[Any, Any] | None:
    """The compiled walk's arrays for the units ``response``: the prompts met in the order the walk
    meets them and their matched weights (dense, by prompt), as ``contrast_jit.Walk.run`` gives
    them, or None where the walk is not compiled (then ``matched_weights`` is the reading). Within
    a verdict whose contrast rule walked the same units (``Background.answers_another``), its
    arrays are handed on, not walked again (speed round 15): they depend on the units alone, not on
    the prompt the rule left out or its floor. The arrays are shared: read them, never write."""
    kernel = prose_jit.contrast_kernel()
    walk = background.walk() if kernel is not None else None
    if walk is None or not walk.usable:
        return None
    found = reading.current()
    if found is not None:
        kept = found.values.get(("contrast_walk", id(walk)))
        if kept is not None and (kept[0] is response or kept[0] == response):
            return kept[1], kept[2]
    order, values, _, _, _ = walk.run(kernel, response, None, frozenset(), 0.0, 1.0)
    return order, values
