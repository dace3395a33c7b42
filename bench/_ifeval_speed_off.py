"""The training ids' speed work switched off, round by round, for ``bench/ifeval_checks.py`` to
time the rules as they were beside the rules as they are, in the same run (the verdicts are the
same: the tests named in each docstring compare them)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def without_speed_round7() -> Iterator[None]:
    """The training ids' rules as round 6 left them: the contrast rule's walk and picks in Python
    (no ``contrast_jit``), the guard's copies found in Python (no ``copies_jit``), the refusal
    pattern tried on every short answer (no filter), the guard's tokens and the echo rule's
    normal form casefolded in a pass of their own. Same verdicts
    (``tests/ifeval/test_ifeval_contrast_jit.py``)."""
    from rlvr_ifeval import guard, prose_jit, refusals, verifier

    def tokens(value: str) -> list[str]:
        folded = value.casefold()
        if not folded.isascii():
            folded = guard.replace_each(folded, guard._PUNCTUATION_CHARS, " ")
        if folded.isascii():
            return folded.encode("ascii").translate(guard._ASCII_TOKEN_TABLE).decode("ascii").split()
        return guard._TOKEN_RE.findall(folded)

    def normalise(value: str) -> str:
        return " ".join(value.split()).casefold()

    saved = prose_jit._CONTRAST, prose_jit._COPIES, prose_jit._started, refusals._TRIGGERS
    saved_tokens = guard.tokens, guard.ascii_token_bytes, verifier._normalise
    prose_jit._CONTRAST, prose_jit._COPIES, prose_jit._started, refusals._TRIGGERS = None, (None, None), True, ("",)
    guard.tokens, verifier._normalise = tokens, normalise
    guard.ascii_token_bytes = lambda value: value.casefold().encode("ascii").translate(guard._ASCII_TOKEN_TABLE)
    try:
        yield
    finally:
        prose_jit._CONTRAST, prose_jit._COPIES, prose_jit._started, refusals._TRIGGERS = saved
        guard.tokens, guard.ascii_token_bytes, verifier._normalise = saved_tokens


@contextlib.contextmanager
def without_speed_round8() -> Iterator[None]:
    """The training ids' rules as round 7 left them: the guard's content weights, distinct
    ratio and distinct counts of an ASCII response in Python passes of their own (no
    ``guard_jit``), the contrast rule's matched dict made for every response the paste rule sees
    (not only when read). Same verdicts (``tests/ifeval/test_ifeval_guard_jit.py``,
    ``tests/ifeval/test_ifeval_contrast_jit.py``)."""
    from rlvr_ifeval import contrast_jit, prose_jit

    saved = prose_jit._GUARD, contrast_jit.Matched
    prose_jit._GUARD, contrast_jit.Matched = None, contrast_jit.matched  # type: ignore[assignment,misc]
    try:
        yield
    finally:
        prose_jit._GUARD, contrast_jit.Matched = saved  # type: ignore[misc]


@contextlib.contextmanager
def without_speed_rounds_7_and_8() -> Iterator[None]:
    with without_speed_round8(), without_speed_round7():
        yield


@contextlib.contextmanager
def without_speed_round9() -> Iterator[None]:
    """The training ids' rules as round 8 left them, where a switch can restore them: verdicts
    made by ``Verdict.model_construct`` (not by setting the state it sets),
    ``relevance.constraint_sentence`` read afresh on every call. (``own_text``'s unchanged-text
    test and bounded word count and ``check_response``'s one blank test per variant are inline:
    they stay on.) Same verdicts (``tests/ifeval/test_ifeval_speed_round9.py``)."""
    from rlvr_ifeval import relevance, task_cache

    saved = task_cache._direct, relevance.constraint_sentence
    task_cache._direct = False
    relevance.constraint_sentence = relevance.constraint_sentence.__wrapped__  # type: ignore[assignment]
    try:
        yield
    finally:
        task_cache._direct, relevance.constraint_sentence = saved


@contextlib.contextmanager
def without_speed_round10() -> Iterator[None]:
    """The training ids' rules as round 9 left them: the guard's copies and counts from two
    kernels over an ASCII response (``copies_jit`` then ``guard_jit.figures``, the whole token list
    split in Python between them) and Python's counts over any other, where round 10 reads one
    compiled pass over the tokens of any response written with spaces (``guard_jit.fused_figures``).
    Same verdicts (``tests/ifeval/test_ifeval_speed_round10_guard.py``)."""
    from rlvr_ifeval import guard_jit

    saved = guard_jit._FUSED, guard_jit._fused_started
    guard_jit._FUSED, guard_jit._fused_started = None, True  # (no background load meanwhile)
    try:
        yield
    finally:
        guard_jit._FUSED, guard_jit._fused_started = saved


@contextlib.contextmanager
def without_speed_round11_relevance() -> Iterator[None]:
    """The relevance rules as round 10 left them: ``may_talk`` read afresh on every sentence of a
    window that may hold request talk (no ``restated.talk_probes``). Same verdicts
    (``tests/ifeval/test_ifeval_speed_round11_relevance.py``)."""
    from rlvr_ifeval import restated

    saved = restated.ROUND_11
    restated.ROUND_11 = False
    try:
        yield
    finally:
        restated.ROUND_11 = saved


@contextlib.contextmanager
def without_speed_round12() -> Iterator[None]:
    """The training ids' rules as round 11 left them: the contrast walk (``contrast_jit.Walk.run``)
    numbers the response's units in a Python comprehension, where round 12 intersects and maps them
    in C. Same verdicts (``tests/ifeval/test_ifeval_speed_round12_walk.py``)."""
    from rlvr_ifeval import contrast_jit

    saved = contrast_jit.ROUND_12
    contrast_jit.ROUND_12 = False
    try:
        yield
    finally:
        contrast_jit.ROUND_12 = saved


@contextlib.contextmanager
def without_speed_round13() -> Iterator[None]:
    """The training ids' rules as round 12 left them: ``stuffing.framed_units`` tokenises every
    response into strings and reads its exits with regexes over the joined tokens (no
    ``frames_jit`` pass), ``mixed_script`` walks the runs of any non-ASCII response (no
    Greek-or-Cyrillic test first) and reads its prompt's alphabets afresh, and each rule that
    tokenises the head makes its kept lines afresh. Same verdicts
    (``tests/ifeval/test_ifeval_speed_round13_frames.py``)."""
    from rlvr_ifeval import stuffing

    saved = stuffing.ROUND_13, stuffing._alphabets_of, stuffing._kept_text
    stuffing.ROUND_13 = False
    stuffing._alphabets_of = stuffing._alphabets_of.__wrapped__  # type: ignore[assignment]
    stuffing._kept_text = stuffing._kept_text.__wrapped__  # type: ignore[assignment]
    try:
        yield
    finally:
        stuffing.ROUND_13, stuffing._alphabets_of, stuffing._kept_text = saved


@contextlib.contextmanager
def without_speed_round14() -> Iterator[None]:
    """The training ids' rules as round 13 left them: ``asides.aside_mentions`` tokenises every
    response it reads into strings and walks its sentences over Python lists (no ``asides_jit``
    pass). Same verdicts (``tests/ifeval/test_ifeval_speed_round14_asides.py``)."""
    from rlvr_ifeval import asides

    saved = asides.ROUND_14
    asides.ROUND_14 = False
    try:
        yield
    finally:
        asides.ROUND_14 = saved


@contextlib.contextmanager
def without_speed_round15() -> Iterator[None]:
    """The training ids' rules as round 14 left them: no reading per verdict
    (``rlvr_ifeval.reading``), so each rule reads the units of a text again where an earlier rule
    of the same verdict read them. Same verdicts and details
    (``tests/ifeval/test_ifeval_speed_round15_reading.py``)."""
    from rlvr_ifeval import reading

    saved = reading.ROUND_15
    reading.ROUND_15 = False
    try:
        yield
    finally:
        reading.ROUND_15 = saved
