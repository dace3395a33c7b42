"""The engine's compiled paths: ``langdetect_exact._Engine`` calls these where numba's
kernels (``langdetect_jit``) are in use; its numpy paths are the fallback and the reference."""

from __future__ import annotations

import math
from typing import Any

from rlvr_ifeval import langdetect_jit

# Texts (ASCII; other scripts with Latin letters dropped; beyond the Basic Multilingual Plane)
# on which the kernels are compared with the numpy paths once per process.
_KERNEL_PROBES = ("Das ist ein Test", "Это тест, not a test", "😀 émoji Text")


def kernels_agree(engine: Any) -> bool:
    """Whether numba's kernels run here and match the numpy paths on a few texts (a broken
    cache or toolchain then costs speed, never a verdict)."""
    try:
        for text in _KERNEL_PROBES:
            rows = engine.ngram_rows(text, compiled=True)
            if rows.tolist() != engine.ngram_rows(text, compiled=False).tolist():
                return False
            if langdetect_jit.TRIALS is not None and len(rows):
                compiled = engine.probabilities(text, compiled=True, early_stop=True)
                reference = engine.probabilities(text, compiled=False, early_stop=True, exact=True)
                if compiled.tolist() != reference.tolist():
                    return False
    except Exception:
        return False
    return True


def gauss_weights(engine: Any, stream: Any) -> tuple[Any, Any]:
    """The step weights ``(alpha + gauss * alpha_width) / base_freq`` of the ``random.gauss``
    pair drawn from words ``p .. p + 3``, for every position ``p`` of ``stream``: the same
    operations as ``_Engine._gauss_pair`` (a test compares every position). The uniforms
    and the products are exact or correctly rounded in numpy as in Python; the logarithm,
    square root, cosine and sine are CPython's ``math`` functions, called per position (tens
    of milliseconds, once per process and whenever the stream grows)."""
    np = engine.np
    uniform = ((stream[:-1] >> 5).astype(np.float64) * 67108864.0 + (stream[1:] >> 6)) * (1.0 / 9007199254740992.0)
    x2pi = (uniform[:-2] * (2.0 * math.pi)).tolist()
    logs = np.array(list(map(math.log, (1.0 - uniform[2:]).tolist())))
    g2rad = np.array(list(map(math.sqrt, (-2.0 * logs).tolist())))
    first = 0.0 + np.array(list(map(math.cos, x2pi))) * g2rad * 1.0
    second = np.array(list(map(math.sin, x2pi))) * g2rad
    weights = tuple((engine.alpha + gauss * engine.alpha_width) / engine.base_freq for gauss in (first, second))
    for table in weights:
        table.setflags(write=False)
    return weights


def ngram_rows(engine: Any, text: str) -> Any:
    """``ngram_rows`` through ``langdetect_jit.NGRAMS``, which also checks for Vietnamese
    marks, collapses spaces and applies the non-Latin rule of ``prepared_text``."""
    np = engine.np
    original = text
    if "http" in text:
        text = engine.url_re.sub(" ", text)
    if "@" in text:
        text = engine.mail_re.sub(" ", text)
    limit = engine.max_text_length
    ascii_only = text.isascii()
    # Code points as 32-bit integers even for ASCII, so that the kernel is compiled for one
    # type only (each type costs about a second the first time). With one point past the
    # cut: a Vietnamese mark there would fold into the last letter kept.
    points = np.frombuffer(text[: limit + 1].encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    out = np.empty(3 * min(len(points), limit), dtype=np.int64)
    tables = (
        engine.bmp_normal,
        engine.bmp_upper,
        engine.ascii_symbol,
        *engine.ascii_rows,
        engine.table_keys,
        engine.table_rows,
        engine.table_mask_u64,
        engine.table_shift_u64,
        out,
    )
    count = langdetect_jit.NGRAMS(points, engine.no_capitals, True, not ascii_only, limit, *tables)
    if count == langdetect_jit.NEEDS_VIETNAMESE:
        text = engine.normalize_vi(text)
        points = np.frombuffer(text[:limit].encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        count = langdetect_jit.NGRAMS(points, engine.no_capitals, True, False, limit, *tables)
    if count == langdetect_jit.BEYOND_TABLES:
        # Characters beyond the Basic Multilingual Plane (emoji, rare scripts): prepared
        # and normalised in Python (memoised per character), n-grams compiled.
        normal, upper = engine._normalised_points(engine.prepared_text(original))
        count = langdetect_jit.NGRAMS(normal, upper, False, False, limit, *tables)
    return out[:count]


def probabilities(engine: Any, gram_rows: Any, early_stop: bool, trace: list | None) -> Any:
    """``probabilities`` through numba's trial loop (``langdetect_jit.TRIALS``): bit for bit
    what the exact numpy replay computes, with the same trials run."""
    np = engine.np
    gram_rows = np.ascontiguousarray(gram_rows, dtype=np.int64)
    shift = 32 - len(gram_rows).bit_length()
    while True:
        # One snapshot: another thread may grow the stream meanwhile.
        stream, first_weights, second_weights = engine.weighted_stream
        total = np.zeros(engine.n_langs)
        steps_and_pos = np.zeros((engine.n_trial, 2), dtype=np.int64)
        trials = langdetect_jit.TRIALS(
            engine.profiles,
            gram_rows,
            stream,
            first_weights,
            second_weights,
            shift,
            engine.n_trial,
            engine.conv_threshold,
            engine.iteration_limit,
            early_stop,
            1e-9,
            np.empty(engine.n_langs),
            total,
            steps_and_pos,
        )
        if trials != langdetect_jit.STREAM_EXHAUSTED:
            break
        engine._grow_stream(len(stream))
    if trace is not None:
        trace.extend((steps, pos, False) for steps, pos in steps_and_pos[:trials].tolist())
    return total
