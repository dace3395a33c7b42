"""The contrast rule's walk of a background's postings, compiled by numba.

``contrast.Background.answers_another`` walks, for a response, the postings of every unit it
shares with the background (``contrast.matched_weights``: a dict of prompt -> matched weight,
~140 prompts of 784 on a labelled response) and then scans that dict twice in Python, for the
best other prompt by weight (``answers_another_prompt``) and by similarity (``outranked``):
~85 us a call, issue 26's speed goal. Here the postings are kept as flat arrays (``Walk``,
made once per background, never pickled), the units as integers numbered in the sorted order
of their strings, and one compiled pass:

* adds each unit's weight to the prompts that have it, the units in sorted order as
  ``matched_weights`` walks them (so every sum is the same float, added in the same order), and
  keeps the prompts in the order the walk first meets them (the dict's insertion order);
* picks the best other prompt by weight with ``answers_another_prompt``'s tie-break, and the
  best similarity of ``outranked`` (a maximum: no order to follow).

What the rules do with those picks stays theirs (``contrast``); the matched dict that the paste
rule (``pasted``) reads is made from the arrays only when it is asked for. The same figures as
the Python path: ``load`` checks the kernel against ``matched_weights`` on a sample, and
``tests/ifeval/test_ifeval_contrast_jit.py`` compares whole verdicts over the labelled responses
under their own and other prompts.
"""

from __future__ import annotations

import math
from collections.abc import ItemsView, Iterator, Mapping
from typing import Any

import numpy as np


def _walk(
    ids: Any,
    offsets: Any,
    flat: Any,
    idf: Any,
    weights: Any,
    roots: Any,
    group: Any,
    own: int,
    task_group: int,
    floor: float,
    outrank_cover: float,
    values: Any,
    order: Any,
) -> tuple[int, int, float, float]:
    """Matched weights of the prompts holding the units ``ids`` (into ``values``, dense, zeros
    on entry; ``order``: the prompts met, first meeting first); returns how many prompts were
    met, the best other prompt by weight (its index, -1 if none reaches ``floor``) and its
    weight, and the best similarity of an outranking candidate (0.0 if none)."""
    ids = np.sort(ids)
    met = 0
    for j in range(ids.shape[0]):
        unit = ids[j]
        w = idf[unit]
        for k in range(offsets[unit], offsets[unit + 1]):
            i = flat[k]
            if values[i] == 0.0:  # weights are positive: 0.0 is "not met yet"
                order[met] = i
                met += 1
            values[i] = values[i] + w
    best = 0.0
    best_i = -1
    similar = 0.0
    for m in range(met):
        i = order[m]
        w = values[i]
        if i == own:
            continue
        if w >= floor and (
            w > best or (w == best and (weights[i] < weights[best_i] or (weights[i] == weights[best_i] and i < best_i)))
        ):
            best = w
            best_i = i
        if w >= outrank_cover * weights[i]:
            similarity = w / roots[i]
            if similarity > similar and group[i] != task_group:
                similar = similarity
    return met, best_i, best, similar


ROUND_12 = True
"""Whether ``Walk.run`` finds the response's unit numbers in C (speed round 12; ``bench/_ifeval_speed_off.py``'s
``without_speed_round12`` turns it off: the same ids, so the same walk)."""


class Walk:
    """A background's postings as arrays: units numbered in sorted order, their weights, the
    prompts holding each (``flat[offsets[u]:offsets[u + 1]]``, ascending as the postings are),
    the prompts' weights and square roots, and a number per distinct unit set (``group``: a
    near-duplicate prompt has its task's)."""

    def __init__(self, idf: dict[str, float], postings: dict[str, tuple[int, ...]], units: Any, weights: Any) -> None:
        ordered = sorted(idf)
        self.ids = {u: n for n, u in enumerate(ordered)}
        self.known = frozenset(ordered)
        self.idf = np.array([idf[u] for u in ordered], dtype=np.float64)
        lengths = [len(postings[u]) for u in ordered]
        self.offsets = np.zeros(len(ordered) + 1, dtype=np.int64)
        self.offsets[1:] = np.cumsum(lengths, dtype=np.int64)
        self.flat = np.array([i for u in ordered for i in postings[u]], dtype=np.int64)
        self.weights = np.array(weights, dtype=np.float64)
        self.roots = np.array([math.sqrt(w) for w in weights], dtype=np.float64)
        self.groups: dict[frozenset[str], int] = {}
        self.group = np.array([self.groups.setdefault(u, len(self.groups)) for u in units], dtype=np.int64)
        # Every weight the walk adds must be positive for 0.0 to mean "not met".
        self.usable = bool(len(self.idf)) and bool((self.idf > 0).all())

    def run(
        self, kernel: Any, response: frozenset[str] | set[str], own: int | None, task: frozenset[str], floor: float,
        outrank_cover: float,
    ) -> tuple[Any, Any, int, float, float]:  # fmt: skip
        """(order of the prompts met, the dense matched weights, best other prompt by weight and
        its weight, best outranking similarity)."""
        if ROUND_12:
            # The units the background knows, by a set intersection in C, and their numbers by a
            # map in C (the walk sorts the ids itself): round 11 looked each unit up in a Python
            # comprehension (3.4% of a verdict's samples, py-spy, ifeval-data-v11). The call:
            # 17-19 -> 14-16 us a verdict (paired, the 835 labelled rows).
            ids = np.fromiter(map(self.ids.__getitem__, self.known.intersection(response)), dtype=np.int64)
        else:
            get = self.ids.get
            ids = np.array([n for u in response if (n := get(u)) is not None], dtype=np.int64)
        values = np.zeros(len(self.weights), dtype=np.float64)
        order = np.empty(len(self.weights), dtype=np.int64)
        met, best_i, best, similar = kernel(
            ids, self.offsets, self.flat, self.idf, self.weights, self.roots, self.group,
            -1 if own is None else own, self.groups.get(task, -1), floor, outrank_cover, values, order,
        )  # fmt: skip
        return order[:met], values, best_i, best, similar


def matched(order: Any, values: Any) -> dict[int, float]:
    """``contrast.matched_weights``' dict from ``Walk.run``'s arrays (the same insertion order)."""
    return dict(zip(order.tolist(), values[order].tolist(), strict=True))


class Matched(Mapping[int, float]):
    """``matched``'s dict, made only when first read: the paste rule reads it on few responses
    (a dict of ~140 prompts cost ~15 us a verdict, made for every response the rule saw)."""

    __slots__ = ("_dict", "_order", "_values")

    def __init__(self, order: Any, values: Any) -> None:
        self._order, self._values = order, values
        self._dict: dict[int, float] | None = None

    def _made(self) -> dict[int, float]:
        if self._dict is None:
            self._dict = matched(self._order, self._values)
        return self._dict

    def __getitem__(self, key: int) -> float:
        return self._made()[key]

    def __iter__(self) -> Iterator[int]:
        return iter(self._made())

    def __len__(self) -> int:
        return len(self._order)

    def items(self) -> ItemsView[int, float]:
        return self._made().items()


def compile_kernel() -> Any:
    """The kernel, compiled or loaded from numba's cache (raises without numba)."""
    import numba

    return numba.njit(cache=True, nogil=True)(_walk)


def check(kernel: Any) -> bool:
    """Whether ``kernel`` gives ``contrast.matched_weights``' dict (its plain walk, repeated here
    to keep the import one way) and the picks of a plain scan, on a small background with ties."""
    units = [frozenset(s.split()) for s in ("rose garden poem", "rose poem", "garden soil", "rose poem", "tax law")]
    postings: dict[str, list[int]] = {}
    for i, found in enumerate(units):
        for unit in found:
            postings.setdefault(unit, []).append(i)
    idf = {u: math.log((len(units) + 1) / (len(ids) + 0.5)) for u, ids in postings.items()}
    weights = [math.fsum(idf[u] for u in found) for found in units]
    walk = Walk(idf, {u: tuple(ids) for u, ids in postings.items()}, units, weights)
    response = frozenset({"rose", "poem", "garden", "tax", "other"})
    plain: dict[int, float] = {}
    for unit in sorted(idf.keys() & response):
        for i in postings[unit]:
            plain[i] = plain.get(i, 0.0) + idf[unit]
    order, values, best_i, best, similar = walk.run(kernel, response, 1, units[1], 0.5, 0.35)
    others = [(i, w) for i, w in plain.items() if i != 1]
    top = max((w, -weights[i], -i) for i, w in others if w >= 0.5)
    similar_plain = max(
        (w / math.sqrt(weights[i]) for i, w in others if w >= 0.35 * weights[i] and units[i] != units[1]), default=0.0
    )
    return (
        list(matched(order, values).items()) == list(plain.items())
        and (best_i, best) == (-top[2], top[0])
        and similar == similar_plain
    )
