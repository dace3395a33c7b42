"""langdetect_exact reproduces langdetect (seed 0): same n-grams, same probabilities, same labels."""

from __future__ import annotations

from typing import Any

import pytest

from rlvr_ifeval import langdetect_exact
from rlvr_ifeval.language import langdetect_language
from tests.helpers.data import read_jsonl

# Texts that stress one rule each: no features, one letter (every trial runs to langdetect's
# 1,000-iteration limit), capitals (skipped n-grams), URLs and e-mail addresses (removed),
# Vietnamese marks, mostly non-Latin text (Latin letters dropped), CJK and kana
# normalisation, a lone surrogate, full-width letters, text past the 10,000-character cut.
EDGE_TEXTS = [
    "",
    " ",
    "12345 !!! ...",
    "A",
    "x",
    "AB CD",
    "etchings",
    "Bonjour tout le monde",
    "see https://example.com/a?b=c and mail me at someone@example.org ABC",
    "Tiếng Việt có dấu rất là đẹp",
    "Привет, как дела? Hello there",
    "日本語のテキストです。カタカナも",
    "한국어 텍스트입니다",
    "\ud800 lone surrogate here",
    "Ｆｕｌｌ ｗｉｄｔｈ ｔｅｘｔ",
    "word " * 2500 + "mot français à la fin",
]


def _shared_texts(step: int) -> list[str]:
    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl") + read_jsonl("ifbench_responses_labeled.jsonl")
    responses = [r["response"] for r in rows[::step]]
    return responses + [t.upper() for t in responses[::2]] + [r["prompt"] for r in rows[:: step * 3]]


def _langdetect_detector(text: str):
    from langdetect import detector_factory

    detector_factory.init_factory()
    detector = detector_factory._factory.create()
    detector.seed = 0
    detector.append(text)
    return detector


def test_stream_emulation_matches_python_random() -> None:
    assert langdetect_exact.self_check()


def test_ngrams_are_langdetects_in_order() -> None:
    from langdetect import detector_factory

    engine = langdetect_exact.engine()
    detector_factory.init_factory()
    grams = list(detector_factory._factory.word_lang_prob_map)  # the profiles' row order
    assert len(grams) == len(engine.profiles)
    for sample in [*_shared_texts(4), *EDGE_TEXTS]:
        detector = _langdetect_detector(sample)
        detector.cleaning_text()
        assert [grams[r] for r in engine.ngram_rows(sample)] == detector._extract_ngrams(), sample[:60]


def test_exact_walk_is_bit_identical_to_langdetect() -> None:
    engine = langdetect_exact.engine()
    for sample in [*_shared_texts(40), *EDGE_TEXTS[:12]]:
        detector = _langdetect_detector(sample)
        try:
            detector.get_probabilities()
        except Exception:  # LangDetectException: no features
            assert engine.probabilities(sample) is None, sample[:60]
            continue
        assert engine.probabilities(sample).tolist() == detector.langprob, sample[:60]


def test_detect_equals_langdetect_detect() -> None:
    engine = langdetect_exact.engine()
    for sample in [*_shared_texts(30), *EDGE_TEXTS]:
        assert engine.detect(sample) == langdetect_language(sample), sample[:60]


@pytest.mark.parametrize("bad", ["\x00" * 50, "\ufffe\uffff" * 100, "😀" * 3000, "a\u0301" * 500])
def test_hostile_text_is_handled(bad: str) -> None:
    assert langdetect_exact.engine().detect(bad) == langdetect_language(bad)


# -- the vectorised walk (langdetect_walk) --------------------------------------------------


def _all_shared_texts() -> list[str]:
    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl") + read_jsonl("ifbench_responses_labeled.jsonl")
    texts = [r["response"] for r in rows] + [r["response"].upper() for r in rows] + [r["prompt"] for r in rows]
    return list(dict.fromkeys(texts))


def _generated_texts(count: int) -> list[str]:
    """Seeded mixtures that make trials long or close: words of several languages and
    scripts, very short texts (trials run to the iteration limit), repeated single words."""
    import random

    rng = random.Random(7)
    words = (
        "the and of house maison das Haus casa dom дом σπίτι บ้าน 家 집 jumba nyumba talo "
        "haus huis hus hús ház kuća dům kotiin 123 ... ! Über ÉCOLE ÇA ß ñ ø å"
    ).split()
    texts = []
    for _ in range(count):
        shape = rng.random()
        if shape < 0.3:
            texts.append("".join(rng.choice("abcdefghijklmnopqrstuvwxyzéüñ ") for _ in range(rng.randint(1, 4))))
        elif shape < 0.5:
            texts.append(" ".join([rng.choice(words)] * rng.randint(1, 30)))
        else:
            texts.append(" ".join(rng.choice(words) for _ in range(rng.randint(2, 120))))
    return texts


def _trials(engine, text: str, exact: bool) -> list[tuple[int, int]]:
    trace: list = []
    engine.probabilities(text, exact=exact, compiled=False, trace=trace)
    return [(steps, pos) for steps, pos, _ in trace]


def test_walk_stops_where_langdetect_stops_on_every_shared_text() -> None:
    # Same stop step and stream position for all 7 trials of every text means the same draws,
    # hence the same trials; the probabilities then only differ by rounding.
    engine = langdetect_exact.engine()
    texts = [*_all_shared_texts(), *_generated_texts(300), *EDGE_TEXTS]
    walked = trials = 0
    for index, text in enumerate(texts):
        exact_trace: list = []
        exact = engine.probabilities(text, exact=True, compiled=False, trace=exact_trace)
        trace: list = []
        fast = engine.probabilities(text, exact=False, compiled=False, trace=trace)
        if exact is None:
            assert fast is None, text[:60]
            continue
        assert [t[:2] for t in trace] == [t[:2] for t in exact_trace], text[:60]
        assert abs(fast - exact).max() < 1e-9, text[:60]
        walked += sum(t[2] for t in trace)
        trials += len(trace)
        if index % 4 == 0:
            assert engine.detect(text) == engine.detect(text, exact=True), text[:60]
    # The walk, not the exact fallback, decides nearly every trial.
    assert walked > 0.99 * trials


@pytest.mark.parametrize("bad", ["\x00" * 50, "\ufffe\uffff" * 100, "😀" * 3000, "a\u0301" * 500, "Ω" * 10_000])
def test_walk_agrees_on_hostile_text(bad: str) -> None:
    engine = langdetect_exact.engine()
    if engine.probabilities(bad, exact=True, compiled=False) is None:
        assert engine.probabilities(bad, exact=False, compiled=False) is None
        return
    assert _trials(engine, bad, exact=False) == _trials(engine, bad, exact=True)
    assert engine.detect(bad) == langdetect_language(bad)


def test_borderline_trials_are_replayed_exactly(monkeypatch) -> None:
    from rlvr_ifeval import langdetect_walk

    # With an enormous margin every convergence is borderline, so every trial that does not
    # run to the iteration limit (where there is no decision to get wrong) is replayed exactly.
    monkeypatch.setattr(langdetect_walk, "_MARGIN", 0.5)
    engine = langdetect_exact.engine()
    replayed = 0
    for text in _shared_texts(60):
        trace: list = []
        fast = engine.probabilities(text, exact=False, compiled=False, trace=trace)
        assert all(steps == engine.iteration_limit + 1 for steps, _, walked in trace if walked)
        if not any(walked for _, _, walked in trace):
            replayed += 1
            assert fast.tolist() == engine.probabilities(text, exact=True, compiled=False).tolist()
    assert replayed > 10


class _ScriptedDraws:
    """Draws whose profile rows are given per step (columns: langdetect's 55 languages)."""

    def __init__(self, row_of_step) -> None:
        self.row_of_step = row_of_step

    def take(self, pos: int, count: int, skip: int = 0) -> tuple[Any, Any]:
        import numpy as np

        rows = np.array([self.row_of_step(s) for s in range(skip, skip + count)], dtype=float)
        return rows, np.arange(pos + skip, pos + skip + count)


def test_walk_refuses_a_language_that_returns_from_underflow() -> None:
    # Languages 0 and 1 tie for 80 steps while language 2 gets nothing: in langdetect's
    # products language 2 underflows to 0 (about 1e-344 of the total) and stays there, so the
    # tie never resolves and the trial runs to the iteration limit. In log space language 2
    # would climb back once the draws favour it. The walk must see this and defer.
    from rlvr_ifeval import langdetect_walk

    engine = langdetect_exact.engine()

    def row(step: int) -> list[float]:
        values = [0.0] * engine.n_langs
        if step < 80:
            values[0] = values[1] = 1.0
        else:
            values[2] = 1.0
        return values

    draws = _ScriptedDraws(row)
    weight = engine.alpha / engine.base_freq
    _, steps, _ = engine._trial(draws.take, 0, weight, 96)
    assert steps == engine.iteration_limit + 1
    assert langdetect_walk.walk(engine, draws, 0, weight, 96) is None


def test_walk_follows_a_plain_scripted_trial() -> None:
    from rlvr_ifeval import langdetect_walk

    engine = langdetect_exact.engine()

    def row(step: int) -> list[float]:
        values = [0.0] * engine.n_langs
        values[step % 3] = 0.01 + 0.001 * (step % 7)
        values[3] = 0.004
        return values

    draws = _ScriptedDraws(row)
    for weight in (engine.alpha / engine.base_freq, 4.2e-5, 5.9e-5):
        for guess in (1, 16, 96, 400):
            exact_prob, exact_steps, exact_pos = engine._trial(draws.take, 3, weight, guess)
            result = langdetect_walk.walk(engine, draws, 3, weight, guess)
            assert result is not None
            prob, steps, pos = result
            assert (steps, pos) == (exact_steps, exact_pos)
            assert abs(prob - exact_prob).max() < 1e-9
