"""One reading of a response per verdict (issue 26, speed round 15).

The gate's rules each read the text they judge into units (``relevance_units.units``): the
overlap and contrast rules the head, the label rules (round 12's ``label_only``, round 13's
``label_by_chance``) the same middle third, the detached rule every paragraph, the own-text rules
what is left, round 14's and round 15's rules the head again. On the 835 labelled rows a ``-v14``
verdict asked for units about 5 times, and 18% of those asks were for a text already read in the
same verdict with the same stop words and prefix (315 of the 733 repeats: the label rules).

``verifier.verify`` opens a ``Reading`` for each verdict and closes it when the verdict is made;
while one is open, ``units`` keeps what it read there, keyed by (text, stop words, prefix), and a
second ask for the same reading gets a copy of the first (a set the caller may change).
``values`` keeps other readings the same way: ``stuffing.hook_reading`` (asked by rounds 12-14)
and the contrast rule's compiled walk (``contrast.walked`` hands it to round 15's rule). Nothing
outlives the verdict: a worker's memory does not grow with the texts it has seen, and no verdict
reads what an earlier response left. Outside a verdict (the rules called on their own, the tests)
nothing is kept and every call reads afresh.

Measured (row-paired, 835 labelled rows): the units repeats alone saved about what keying and
copying cost (1.00x, as round 14's process-wide memo did at 1.01x); the reading pays where later
rules ask for what an earlier one read (the head's units and the walk: round 15's rule).

The units of a text are a function of the text, the stop words and the prefix alone (the compiled
and the Python path give the same sets: ``tests/ifeval/test_ifeval_speed_round10_units.py``), so
what a rule gets from the reading is what it would have read itself.
"""

from __future__ import annotations

from collections.abc import Hashable
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any

ROUND_15 = True
"""Whether ``verify`` opens a reading (``bench/_ifeval_speed_off.without_speed_round15`` turns
it off to time the rules as round 14 left them; the verdicts are the same either way)."""

MAX_KEPT = 256
"""At most this many readings are kept in one verdict (a verdict asks for about 5, a hostile one
with thousands of paragraphs for more: those are read afresh past the bound, as before)."""


@dataclass(frozen=True)
class Reading:
    """What one verdict has read of its response: units by (text, stop words, prefix), and the
    values of ``values``."""

    units: dict[tuple[str, frozenset[str], int], set[str]] = field(default_factory=dict)
    values: dict[Hashable, Any] = field(default_factory=dict)
    """Other per-verdict readings, each keyed by its function's name and arguments (the late hooks'
    ``stuffing.hook_reading``: rounds 12, 13 and 14 each asked for it)."""


_CURRENT: ContextVar[Reading | None] = ContextVar("rlvr_ifeval_reading", default=None)


def open_reading() -> Token[Reading | None]:
    """Open a reading for the verdict about to be made (``close_reading`` with the token after)."""
    return _CURRENT.set(Reading())


def close_reading(token: Token[Reading | None]) -> None:
    _CURRENT.reset(token)


def current() -> Reading | None:
    """The open verdict's reading, or None outside a verdict."""
    return _CURRENT.get()
