"""Round 11's speed work on the relevance gate gives the verdicts it gave before (issue 26).

* ``relevance_units._run_grams``: a no-space run's bigrams cut at the stop characters and joined
  in C, where ``_bigrams`` stepped through the run in Python (the same set);
* ``restated.talk_probes``: a window's key words (up to an apostrophe) probed in each sentence
  by substring search before ``may_talk`` splits it into words (a sentence ``may_talk`` accepts
  always holds one);
* ``contrast_jit.Walk.run``: a response's unit ids looked up in C (the same ids, in the same
  order).

Each is compared with the path it replaced (the module's ``ROUND_11`` flag off, as
``bench/_ifeval_speed_off.without_speed_round11_relevance`` sets it): the pieces on random text in the
scripts concerned, and whole verdicts of the newest training ids on the labelled responses under
their own and other prompts, with salads, refusals, hostile and multilingual texts
(``test_ifeval_verify_speed_equivalence._cases``).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

import pytest

from rlvr_ifeval import contrast_jit, prose_jit, relevance_units, restated
from tests.ifeval.test_ifeval_round11_cjk_request import HONEST
from tests.ifeval.test_ifeval_verify_speed_equivalence import _cases, _newest_training_ids, _rows


@contextlib.contextmanager
def _round_10() -> Iterator[None]:
    saved = relevance_units.ROUND_11, restated.ROUND_11, contrast_jit.ROUND_11
    relevance_units.ROUND_11 = restated.ROUND_11 = contrast_jit.ROUND_11 = False
    try:
        yield
    finally:
        relevance_units.ROUND_11, restated.ROUND_11, contrast_jit.ROUND_11 = saved


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _rows()


# Characters of the no-space scripts, stop characters and the Thai stop words' among them.
_ALPHABET = (
    "城市园艺博客文章东京都市園芸記事ブログリモートワーク"
    + "".join(sorted(relevance_units._STOP_CHARS))[:40]
    + "".join(relevance_units._THAI_STOP)
    + "การทำสวนในเมือง"
)


def _runs(rng: random.Random, n: int) -> Iterator[str]:
    for _ in range(n):
        yield "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 40)))
    for stop in sorted(relevance_units._STOP_CHARS):
        yield stop
        yield stop * 3
    yield from relevance_units._THAI_STOP


def test_run_grams_are_bigrams() -> None:
    rng = random.Random(11)
    for run in _runs(rng, 3000):
        assert set(relevance_units._run_grams(run)) == set(relevance_units._bigrams(run)), run


def test_units_either_way(rows) -> None:
    texts = [row["response"] for row in rows] + [response for _, response in HONEST] + [p for p, _ in HONEST]
    rng = random.Random(7)
    texts += [" ".join("".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 30))) for _ in range(9))]
    texts += ["mixed English 城市园艺 text and ทำสวน words"]
    for text in texts:
        now = relevance_units.units(text)
        with _round_10():
            assert relevance_units.units(text) == now


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


def test_walk_ids_either_way(rows) -> None:
    kernel = prose_jit.contrast_kernel() if prose_jit.load() else None
    if kernel is None:
        pytest.skip("without numba the contrast walk runs in Python")
    from rlvr_ifeval.contrast import Background

    background = Background.build((row["prompt"], ()) for row in rows)
    assert background is not None
    walk = background.walk()
    for row in rows[::5]:
        response = frozenset(relevance_units.units(row["response"]))
        own = background.index.get(row["prompt"])
        now = walk.run(kernel, response, own, frozenset(), 0.5, 0.35)
        with _round_10():
            before = walk.run(kernel, response, own, frozenset(), 0.5, 0.35)
        assert now[0].tolist() == before[0].tolist()
        assert now[1].tolist() == before[1].tolist()
        assert now[2:] == before[2:]


def test_whole_verdicts_either_way(rows) -> None:
    prose_jit.load()
    verifiers = _newest_training_ids(rows)
    cases = list(_cases(rows, 1))[::2]
    for name, verifier in verifiers.items():
        now = [verifier.verify(task, response) for task, response in cases]
        with _round_10():
            before = [verifier.verify(task, response) for task, response in cases]
        assert [v.model_dump() for v in now] == [v.model_dump() for v in before], name
