"""langdetect_exact reproduces langdetect (seed 0): same n-grams, same probabilities, same labels."""

from __future__ import annotations

import pytest
from rlvr_ifeval import langdetect_exact
from rlvr_ifeval.language import langdetect_language

from tests.helpers.data import read_jsonl

# Texts that stress one rule each: no features, one letter (every trial runs to langdetect's
# 1,000-iteration limit), capitals (skipped n-grams), URLs and e-mail addresses (removed),
# Vietnamese marks, mostly non-Latin text (Latin letters dropped), CJK and kana
# normalisation, a lone surrogate, full-width letters, text past the 10,000-character cut.
EDGE_TEXTS = [
    "", " ", "12345 !!! ...", "A", "x", "AB CD", "etchings", "Bonjour tout le monde",
    "see https://example.com/a?b=c and mail me at someone@example.org ABC",
    "Tiếng Việt có dấu rất là đẹp", "Привет, как дела? Hello there", "日本語のテキストです。カタカナも",
    "한국어 텍스트입니다", "\ud800 lone surrogate here", "Ｆｕｌｌ ｗｉｄｔｈ ｔｅｘｔ",
    "word " * 2500 + "mot français à la fin",
]


def _shared_texts(step: int) -> list[str]:
    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl") + read_jsonl("ifbench_responses_labeled.jsonl")
    responses = [r["response"] for r in rows[::step]]
    return responses + [t.upper() for t in responses[::2]] + [r["prompt"] for r in rows[::step * 3]]


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
    engine = langdetect_exact.engine()
    grams = list(engine.table)
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
