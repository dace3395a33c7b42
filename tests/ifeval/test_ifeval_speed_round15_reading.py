"""Round 15's reading per verdict gives the answers the rules gave before (issue 26).

``verifier.verify`` opens one ``rlvr_ifeval.reading.Reading`` per verdict: while it is open,
``relevance_units.units`` reads a (text, stop words, prefix) once and hands a copy to any later
ask, and ``stuffing.hook_reading`` (asked by rounds 12, 13 and 14) is made once. Compared with the
rules as round 14 left them (``reading.ROUND_15`` off, as
``bench/_ifeval_speed_off.without_speed_round15`` sets it): units of a table of texts (ASCII,
curly quotes, CJK, Thai, Korean, accented, empty, binary, huge, many paragraphs) read inside and
outside a reading, a caller that changes its copy, and whole verdicts (reward, reason and
details) of the newest training ids over the labelled rows under their own and other prompts,
salads, hostile and multilingual texts.
"""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from rlvr_ifeval import contrast, prose_jit, reading, relevance, relevance_units, stuffing, text_words
from rlvr_ifeval.relevance_units import PREFIX, PREFIX_V0, STOP_WORDS, TASK_STOP_WORDS, units
from rlvr_ifeval.scoring import build_checkers
from tests.ifeval.test_ifeval_verify_speed_equivalence import _cases, _newest_training_ids, _rows


@contextlib.contextmanager
def _round_14() -> Iterator[None]:
    saved = reading.ROUND_15
    reading.ROUND_15 = False
    try:
        yield
    finally:
        reading.ROUND_15 = saved


@contextlib.contextmanager
def _open() -> Iterator[reading.Reading]:
    token = reading.open_reading()
    try:
        found = reading.current()
        assert found is not None
        yield found
    finally:
        reading.close_reading(token)


TEXTS: tuple[tuple[str, str], ...] = (
    ("ascii", "The lighthouse keeper wrote about the weather in a worn logbook every evening."),
    ("curly quotes", "\u201cGardening\u201d isn\u2019t hard \u2014 urban gardens thrive on balconies."),
    ("chinese", "城市园艺是一种在城市中种植植物的方式，它让居民亲近自然。"),
    ("japanese", "東京の都市園芸について書きます。ベランダで野菜を育てる人が増えています。"),
    ("thai", "การทำสวนในเมืองเป็นกิจกรรมที่ได้รับความนิยมมากขึ้นในกรุงเทพ"),
    ("korean", "도시 원예는 베란다에서 채소를 기르는 즐거운 취미입니다"),
    ("accented", "Le jardinage urbain transforme les balcons parisiens en potagers étonnants."),
    ("mixed", "Urban gardening 城市园艺 and balcony tomatoes, café culture, naïve résumé."),
    ("empty", ""),
    ("spaces", " \n\t \n"),
    ("binary", "\x00\x01\x02\x7f\x1b[31m\x00 gardening \x00\ufffd\ufffd"),
    ("digits", "1234 5678 3.14159 2026-12-08"),
    ("huge", "gardening balcony tomatoes neighbourhood compost " * 4_000),
    ("many paragraphs", "\n".join(f"Paragraph {i} speaks of compost and tomatoes." for i in range(600))),
    ("long words", "internationalization counterrevolutionaries " * 40),
)


@pytest.mark.parametrize("name,text", TEXTS, ids=[name for name, _ in TEXTS])
def test_units_inside_a_reading_are_the_units_outside(name: str, text: str) -> None:
    reads = [(STOP_WORDS, PREFIX), (TASK_STOP_WORDS, PREFIX), (frozenset(), PREFIX_V0), (STOP_WORDS, PREFIX)]
    outside = [units(text, drop, prefix) for drop, prefix in reads]
    with _open() as found:
        inside = [units(text, drop, prefix) for drop, prefix in reads]
        again = [units(text, drop, prefix) for drop, prefix in reads]
        assert len(found.units) == 3  # the last read repeats the first: kept once
    assert inside == outside == again, name


def test_a_repeat_is_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    read = relevance_units._read_units

    def counted(text: str, drop: frozenset[str], prefix: int) -> set[str]:
        calls.append(text)
        return read(text, drop, prefix)

    monkeypatch.setattr(relevance_units, "_read_units", counted)
    text = TEXTS[0][1]
    with _open():
        first = units(text)
        second = units(text)
        units(text, TASK_STOP_WORDS)
    assert first == second
    assert calls == [text, text]  # the second ask of the same reading was not read again
    units(text)  # outside a verdict nothing is kept
    assert len(calls) == 3


def test_a_caller_that_changes_its_copy_changes_no_later_read() -> None:
    text = TEXTS[0][1]
    with _open():
        first = units(text)
        expected = set(first)
        second = units(text)
        second.add("zzzzzz")
        second.clear()
        assert units(text) == expected
        assert units(text) is not units(text)


def test_the_reading_is_bounded_and_closed() -> None:
    with _open() as found:
        for i in range(reading.MAX_KEPT + 50):
            units(f"compost {i} tomatoes balcony")
        assert len(found.units) == reading.MAX_KEPT
        assert units("compost 300 tomatoes balcony") == {"compos", "tomato", "balcon"}
    assert reading.current() is None


def test_hook_reading_inside_a_reading_is_the_hook_reading_outside() -> None:
    checkers = tuple(build_checkers(["punctuation:no_comma"], [{}]))
    prompt = "Write a blog post about urban gardening on small balconies."
    response = "Urban gardening on a balcony starts with light. " * 30
    outside = [stuffing.hook_reading(prompt, response, checkers, share) for share in (0.34, 0.5, 0.34)]
    with _open() as found:
        inside = [stuffing.hook_reading(prompt, response, checkers, share) for share in (0.34, 0.5, 0.34)]
        assert len(found.values) == 2
    assert inside == outside


def test_verify_opens_one_reading_and_closes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _rows()[:40]
    verifier = next(iter(_newest_training_ids(rows).values()))
    seen: list[Any] = []
    read = relevance_units._read_units

    def watched(text: str, drop: frozenset[str], prefix: int) -> set[str]:
        seen.append(reading.current())
        return read(text, drop, prefix)

    monkeypatch.setattr(relevance_units, "_read_units", watched)
    for i, (task, response) in enumerate(list(_cases(rows, 0))[:40]):
        before = len(seen)
        verifier.verify(task, response)
        opened = {id(r) for r in seen[before:]}
        assert None not in seen[before:] and len(opened) <= 1, i
        assert reading.current() is None


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _rows()


WORD_COUNT_TEXTS: tuple[str, ...] = (
    *(text for _, text in TEXTS),
    "a",
    " a",
    "a ",
    "_",
    "__init__ x_y 3.14 don't re-use e-mail\tTAB\x0bVT\x0cFF\r\nCRLF",
    "!!! ??? ...",
    "one,two;three:four(five)[six]{seven}<eight>",
    "\x00word\x00word\x7f",
    "x" * 10_000,
    " ".join(["w"] * 5_000),
)


@pytest.mark.parametrize("number", range(len(WORD_COUNT_TEXTS)))
def test_words_counted_ascii_are_the_words_made(number: int) -> None:
    text = WORD_COUNT_TEXTS[number]
    made = len(text_words._word_runs.__wrapped__(text))
    assert text_words.count_words(text) == made == len(re.findall(r"\w+", text))
    with _round_14():
        assert text_words.count_words(text) == made


def test_words_counted_on_random_ascii_are_the_words_made() -> None:
    rng = random.Random(15)
    alphabet = [chr(c) for c in range(128)]
    for _ in range(3_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))
        assert text_words.count_words(text) == len(re.findall(r"\w+", text)), repr(text)


def test_the_walk_is_handed_on_as_walked(rows) -> None:
    pytest.importorskip("numba", reason="without numba there is no compiled walk to hand on")
    prose_jit.load()
    verifier = _newest_training_ids(rows)[next(k for k in _newest_training_ids(rows) if "ifeval-data" in k)]
    background = verifier.relevance_background
    assert background is not None
    checked = 0
    for row in rows[:60]:
        head = row["response"][: relevance.MAX_RELEVANCE_CHARS]
        task = relevance.task_units(row["prompt"], tuple(build_checkers(row["instruction_id_list"], row["kwargs"])))
        fresh = contrast.walked(background, units(head))
        if fresh is None:
            continue
        with _open():
            found = units(head)
            background.answers_another(row["prompt"], task.units, found)
            handed = contrast.walked(background, units(head))
            assert handed is not None
            other = contrast.walked(background, units(head + " zebra quokka"))
        for a, b in zip(fresh, handed, strict=True):
            assert a.tolist() == b.tolist()
        assert other is not None and other[0] is not handed[0]
        checked += 1
    assert checked > 30


def test_whole_verdicts_either_way(rows) -> None:
    verifiers = _newest_training_ids(rows)
    cases = list(_cases(rows, 1))[1::4]
    for name, verifier in verifiers.items():
        now = [verifier.verify(task, response) for task, response in cases]
        with _round_14():
            before = [verifier.verify(task, response) for task, response in cases]
        assert [v.model_dump() for v in now] == [v.model_dump() for v in before], name


ONE_LINE_LABELS: tuple[str, ...] = (
    "Keywords: laptop, choosing. The harbour was quiet at dusk and the boats rocked gently at anchor.",
    "<<Choosing a Laptop>> The harbour was quiet at dusk and the boats rocked gently at anchor.",
    "The harbour was quiet at dusk and the boats rocked gently at anchor. Tags: laptop choosing",
    "   Keywords: laptop choosing   \r The harbour was quiet at dusk and the boats rocked at anchor.  ",
    "Keywords: laptop\n" + "The harbour was quiet at dusk and the boats rocked gently at anchor. " * 8,
    "",
    "\n\n",
)


def test_label_only_settles_one_line_as_it_did(rows) -> None:
    from rlvr_ifeval.relevance_units import TASK_STOP_WORDS_10

    prompt = "Write a short guide to choosing a laptop for university."
    task = frozenset(units(prompt, TASK_STOP_WORDS_10))
    cases = [(prompt, text, task) for text in ONE_LINE_LABELS]
    for row in rows[:300]:
        checkers = tuple(build_checkers(row["instruction_id_list"], row["kwargs"]))
        own = relevance.task_units(row["prompt"], checkers, round9=True, round10=True).units
        cases.append((row["prompt"], row["response"][: relevance.MAX_RELEVANCE_CHARS], own))
    for prompt_, head, task_ in cases:
        for share in (0.0, stuffing.MIN_LABEL_PROMPT_SHARE):
            now = stuffing.label_only(prompt_, head, task_, share)
            with _round_14():
                before = stuffing.label_only(prompt_, head, task_, share)
            assert now == before, head[:80]
