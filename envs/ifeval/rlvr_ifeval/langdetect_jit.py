"""langdetect's random walk compiled by numba, when numba is installed.

The loop is langdetect's own (``Detector._detect_block``): at step ``i`` every language's
probability is multiplied by ``weight + p(gram | language)``; after steps 0, 5, 10, ... the
vector is divided by its sum (added left to right, as CPython 3.11's ``sum`` adds floats) and
the walk stops once the largest share passes the threshold or ``i`` reaches the limit. The
same IEEE operations in the same order, without fast-math, so every probability is
bit-identical to langdetect's and to ``_Engine._trial``; only the Python and numpy overhead
per step is gone. Without numba (or on CPython 3.12+, whose ``sum`` rounds differently),
``KERNEL`` is None and the engine uses its numpy paths.
"""

from __future__ import annotations

import sys
from typing import Any


def _walk(profiles: Any, gram_rows: Any, draws: Any, start: int, weight: float, threshold: float, limit: int,
          prob: Any) -> int:
    """Run steps ``start, start + 1, ...`` with ``draws`` (indices into ``gram_rows``),
    updating ``prob`` in place; the index into ``draws`` of the step that stopped the
    trial, or -1 when the draws ran out first (the caller extends them and continues)."""
    n_langs = prob.shape[0]
    for k in range(draws.shape[0]):
        i = start + k
        row = gram_rows[draws[k]]
        for lang in range(n_langs):
            prob[lang] *= weight + profiles[row, lang]
        if i % 5 == 0:
            total = 0.0
            for lang in range(n_langs):
                total += prob[lang]
            largest = 0.0
            for lang in range(n_langs):
                share = prob[lang] / total
                if largest < share:
                    largest = share
                prob[lang] = share
            if largest > threshold or i >= limit:
                return k
    return -1


def _compile() -> Any:
    if sys.version_info >= (3, 12):
        # CPython 3.12's sum() of floats is compensated, so langdetect's normalisation rounds
        # differently there; the numpy replay calls sum() itself and follows it on any version.
        return None
    try:
        import numba
    except ImportError:
        return None
    try:
        # cache=True keeps the machine code next to this file, so pool workers load it
        # instead of compiling again (about a second) where the directory is writable.
        return numba.njit(cache=True, nogil=True, fastmath=False)(_walk)
    except Exception:
        return None


KERNEL = _compile()
