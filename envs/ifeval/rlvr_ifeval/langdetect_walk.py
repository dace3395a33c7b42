"""A vectorised version of langdetect's random walk that stops where langdetect stops.

langdetect multiplies 55 probabilities by one n-gram's factors a step and normalises them every
five steps, stopping at the first such checkpoint where the largest exceeds 0.99999. Replaying
that in its exact floating-point order costs a few numpy calls a checkpoint
(``_Engine._trial``). The decision only depends on the products, which are order-independent
up to rounding, so this walk computes a whole trial in a handful of array operations: the
product of each five-step segment, its logarithm, a cumulative sum over segments, and the
largest probability at every checkpoint from a log-sum-exp.

Rounding cannot change a stop decision that is far from the threshold: the log-space values
and langdetect's products agree to about 1e-12 relative (1e-7 in the worst case of 1,000
steps), while a stop is only taken here when the largest probability is at least ``_MARGIN``
past the threshold at the stop and at least ``_MARGIN`` below it at every checkpoint before.
Otherwise the trial is *borderline* and ``walk`` returns None, and the caller replays it
exactly. The stop step fixes the stream position that feeds the next trial, so equal stop
steps mean equal draws for every later trial.

One more difference needs care: langdetect's products underflow, so a language that falls
below about 1e-300 of the total becomes 0 there for good, while log space keeps it. A
language that falls below 1e-250 and later climbs back above 1e-30 before the stop (it never
does on real text) also makes the trial borderline. Below 1e-30 a language cannot move the
sum by more than rounding does.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

_MARGIN = 1e-9
_LOG_LOW = math.log(1e-250)
_LOG_HIGH = math.log(1e-30)
# Below this weight the five-factor products of a segment could underflow; langdetect's
# weights are (0.5 + 0.05 * gauss) / 10,000, so this never happens for a sane gauss draw.
_MIN_WEIGHT = 1e-6
_FIRST_STREAM_WORDS = 2048


class DrawSource(Protocol):
    """What ``walk`` needs of its draws (``Draws``, or a scripted stand-in in the tests)."""

    def take(self, pos: int, count: int, skip: int = 0) -> tuple[Any, Any]: ...


class Draws:
    """The ``random.choice`` draws langdetect makes on one text, with their profile rows.

    The draws of every trial are the stream words, in order, that rejection sampling accepts
    (``word >> shift < n``) after the trial's ``gauss`` words; they are found for a prefix of
    the stream at once, and the prefix grows on demand.
    """

    def __init__(self, engine: Any, gram_rows: Any, n: int) -> None:
        self.engine = engine
        self.gram_rows = gram_rows
        self.n = n
        self.shift = 32 - n.bit_length()
        self.words = 0
        self.positions: Any = None
        self.rows: Any = None
        self._scan(_FIRST_STREAM_WORDS)

    def _scan(self, words: int) -> None:
        np = self.engine.np
        values = self.engine._words(0, words) >> self.shift
        self.positions = np.flatnonzero(values < self.n)
        self.rows = self.gram_rows[values[self.positions]]
        self.words = words

    def take(self, pos: int, count: int, skip: int = 0) -> tuple[Any, Any]:
        """The profile rows of ``count`` draws, the first ``skip`` draws from stream word ``pos``
        on left out, and the stream position of the word each one consumed."""
        first = int(self.engine.np.searchsorted(self.positions, pos)) + skip
        while first + count > len(self.positions):
            self._scan(2 * self.words)
        return self.engine.profiles[self.rows[first : first + count]], self.positions[first : first + count]


def walk(engine: Any, draws: DrawSource, pos: int, weight: float, guess: int) -> tuple[Any, int, int] | None:
    """One trial from stream word ``pos``: (probabilities, steps taken, stream position after),
    or None when the trial is borderline and must be replayed exactly.

    The probabilities are langdetect's up to rounding (not bit for bit); steps and position
    are langdetect's exactly. ``guess`` is the expected number of steps: the walk covers that
    many at once, then continues in growing chunks.
    """
    if not weight > _MIN_WEIGHT:
        return None
    np = engine.np
    n_langs = engine.n_langs
    # langdetect checks at steps 0, 5, 10, ... and stops at the first checkpoint >= its limit.
    last_checkpoint = -(-engine.iteration_limit // 5)
    converged_sum = 1.0 / (engine.conv_threshold + _MARGIN)
    maybe_converged_sum = 1.0 / (engine.conv_threshold - _MARGIN)
    # A checkpoint can only have converged if every language but the leader is below this
    # (log, relative to the leader); the sums are only computed for such checkpoints.
    runner_up_ceiling = math.log(maybe_converged_sum - 1.0)
    done = 0  # checkpoints computed so far; checkpoint k is after step 5k
    carry = fallen = None
    chunk = min(max(1, -(-guess // 5)), last_checkpoint) + 1
    while True:
        # Checkpoint 0 covers step 0 alone; every later one the five steps after the previous.
        first_step = 0 if done == 0 else 5 * done - 4
        last_step = 5 * (done + chunk - 1)
        rows, positions = draws.take(pos, last_step + 1 - first_step, first_step)
        rows += weight
        if done == 0:
            logs = np.empty((chunk, n_langs))
            logs[0] = rows[0]
            np.multiply.reduce(rows[1:].reshape(-1, 5, n_langs), axis=1, out=logs[1:])
        else:
            logs = np.multiply.reduce(rows.reshape(-1, 5, n_langs), axis=1)
        np.log(logs, out=logs)
        if carry is not None:
            logs[0] += carry
        cumulative = np.cumsum(logs, axis=0)
        cumulative -= cumulative.max(axis=1, keepdims=True)
        stop = None
        # Only the leader (at 0) may be above the ceiling at a converged checkpoint.
        for candidate in np.flatnonzero((cumulative > runner_up_ceiling).sum(axis=1) <= 1).tolist():
            total = float(np.exp(cumulative[candidate]).sum())  # 1 / largest probability
            if total < maybe_converged_sum:
                if total >= converged_sum and done + candidate < last_checkpoint:
                    return None
                stop = candidate
                break
        if stop is None and done + chunk - 1 >= last_checkpoint:
            stop = last_checkpoint - done
        seen = chunk if stop is None else stop + 1
        if fallen is not None or cumulative[:seen].min() < _LOG_LOW + math.log(n_langs):
            # Guard against langdetect's underflow (module docstring).
            sums = np.exp(cumulative[:seen]).sum(axis=1)
            normalised = cumulative[:seen] - np.log(sums)[:, None]
            lowest = np.minimum.accumulate(normalised, axis=0)
            if fallen is not None:
                np.minimum(lowest, fallen, out=lowest)
            if ((lowest < _LOG_LOW) & (normalised > _LOG_HIGH)).any():
                return None
            fallen = lowest[-1]
        if stop is not None:
            terms = np.exp(cumulative[stop])
            step = 5 * (done + stop)
            return terms / terms.sum(), step + 1, int(positions[step - first_step]) + 1
        carry = cumulative[-1]
        done += chunk
        chunk = min(2 * chunk, last_checkpoint + 1 - done)
