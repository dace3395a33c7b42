"""Agreement with the reference checkers on the shared peer data (labels are the upstream authors')."""

from __future__ import annotations

import pytest

from rlvr_ifeval.base import InstructionError
from rlvr_ifeval.scoring import build_checker, evaluate
from tests.helpers.data import read_jsonl

MIN_AGREEMENT = 0.995

# Every known disagreement, with the reason; README.md lists the same cases.
KNOWN_UNIT_DISAGREEMENTS: set[tuple[str, str]] = set()
KNOWN_LABELLED_DISAGREEMENTS = {
    # letter="!": the third-party run used older IFEval code that replaced a non-letter with a
    # random letter; current code (and this package) counts the "!" characters.
    ("ifeval_gpt4_responses_labeled.jsonl", "strict", "1129", "keywords:letter_frequency"),
    # A CSV answer spread over 9 lines: no loose variant is a single line, yet the authors' run
    # labels it followed; their checker version differed from the one published.
    ("ifbench_responses_labeled.jsonl", "loose", "268", "words:vowel"),
}


def _unit_rows(name: str) -> list[dict]:
    return [r for r in read_jsonl(name) if r["in_registry"]]


@pytest.mark.parametrize("name", ["ifeval_unit_cases.jsonl", "ifbench_unit_cases.jsonl"])
def test_reference_unit_tests_agree(name: str) -> None:
    rows = _unit_rows(name)
    disagreements = []
    for row in rows:
        if row["expected_exception"]:
            with pytest.raises(InstructionError):
                build_checker(row["instruction_id"], row["kwargs"])
            continue
        got = build_checker(row["instruction_id"], row["kwargs"]).check(row["response"])
        if got != row["expected"]:
            disagreements.append((row["instruction_id"], row["response"][:60]))
    assert len(rows) > 80
    assert set(disagreements) == KNOWN_UNIT_DISAGREEMENTS, disagreements


@pytest.mark.parametrize("name", ["ifeval_gpt4_responses_labeled.jsonl", "ifbench_responses_labeled.jsonl"])
@pytest.mark.parametrize("mode", ["strict", "loose"])
def test_labelled_responses_agree(name: str, mode: str) -> None:
    total = agree = 0
    disagreements = set()
    for row in read_jsonl(name):
        results = evaluate(row["instruction_id_list"], row["kwargs"], row["response"], loose=mode == "loose")
        for result, label in zip(results, row[f"reference_{mode}"], strict=True):
            total += 1
            if result.followed == label:
                agree += 1
            else:
                disagreements.add((name, mode, str(row["key"]), result.instruction_id))
    assert total > 300
    assert agree / total >= MIN_AGREEMENT, sorted(disagreements)
    known = {d for d in KNOWN_LABELLED_DISAGREEMENTS if d[:2] == (name, mode)}
    assert disagreements == known


def test_prompt_level_accuracy_matches_reference_labels() -> None:
    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl")
    ours = sum(all(r.followed for r in evaluate(x["instruction_id_list"], x["kwargs"], x["response"])) for x in rows)
    reference = sum(x["reference_strict_all"] for x in rows)
    assert abs(ours - reference) <= 1  # the single letter="!" case above
