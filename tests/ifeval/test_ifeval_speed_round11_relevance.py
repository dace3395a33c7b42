"""Round 11's speed work on the relevance gate gives the verdicts it gave before (issue 26).

``restated.talk_probes``: a window's key words (up to an apostrophe) are probed in each sentence
by substring search before ``may_talk`` splits it into words (a sentence ``may_talk`` accepts
always holds one). Compared with the path it replaced (``restated.ROUND_11`` off, as
``bench/_ifeval_speed_off.without_speed_round11_relevance`` sets it): the probes on the labelled
responses and request talk in several languages and apostrophes, the spans, and whole verdicts of the newest training ids on the labelled responses under
their own and other prompts, with salads, refusals, hostile and multilingual texts
(``test_ifeval_verify_speed_equivalence._cases``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from rlvr_ifeval import prose_jit, restated
from tests.ifeval.test_ifeval_verify_speed_equivalence import _cases, _newest_training_ids, _rows


@contextlib.contextmanager
def _round_10() -> Iterator[None]:
    saved = restated.ROUND_11
    restated.ROUND_11 = False
    try:
        yield
    finally:
        restated.ROUND_11 = saved


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _rows()


# Request talk with the apostrophes, cases and languages that ``may_talk`` reads: curly
# apostrophes (read as "'"), a key word that is all apostrophe-piece ("j'espère"), pairs.
TALK = [
    "Here’s the essay you asked for. It is about rivers.",
    "HERE'S WHAT YOU WANTED! Rivers run. I’ve written it gladly.",
    "Voilà ! J’espère que cela vous plaît. Les rivières coulent.",
    "Aquí tienes el texto. Espero que esto te guste.",
    "Hier ist der Text, wie gewünscht. Flüsse fließen.",
    "Вот текст, как вы просили. Реки текут.",
    "I hope this helps; let me know if anything else is needed\nRivers: they run.",
    "as requested — the following is my answer: rivers…",
    "'tis here you go. y'all asked. You'd like more? Sure thing!",
]


def test_talk_probes_hold_every_talking_sentence(rows) -> None:
    windows = [row["response"][: restated.HEAD_CHARS].lower() for row in rows] + [t.lower() for t in TALK]
    checked = 0
    for window in windows:
        probes = restated.talk_probes(window)
        assert (probes is not None) == restated.may_talk(window)
        if probes is None:
            continue
        for match in restated._SENTENCE.finditer(window):
            sentence = match.group()
            if restated.may_talk(sentence):
                checked += 1
                assert any(probe in sentence for probe in probes), (sentence, probes)
    assert checked > 100


def test_restated_spans_either_way(rows) -> None:
    cases = [(row["prompt"], row["response"]) for row in rows]
    cases += [("Write an essay about rivers.", text) for text in TALK]
    for prompt, response in cases:
        now = restated.restated_spans(prompt, response)
        with _round_10():
            assert restated.restated_spans(prompt, response) == now


def test_whole_verdicts_either_way(rows) -> None:
    prose_jit.load()
    verifiers = _newest_training_ids(rows)
    cases = list(_cases(rows, 1))[::3]  # (a third of the cases, every class of them: ~17 s at load 9)
    for name, verifier in verifiers.items():
        now = [verifier.verify(task, response) for task, response in cases]
        with _round_10():
            before = [verifier.verify(task, response) for task, response in cases]
        assert [v.model_dump() for v in now] == [v.model_dump() for v in before], name
