"""The math verifier's memos across calls: what they remember never changes a verdict.

The reward server verifies many completions against the same gold and prompt, and many of them
answer alike: ``clean``, ``answers_match`` and the prompt's unit words are remembered across
calls (bounded LRUs, emptied by ``clear_caches``). Each memo must be keyed on everything its
result depends on (a cached answer under one prompt's unit words must not answer for another
prompt's), must give what the uncached function gives, and must leave long inputs uncached.
"""

from __future__ import annotations

import random

import pytest

from rlvr_envs import Task
from rlvr_math import MathVerifier
from rlvr_math.equivalence import (
    CACHED_MATCH_CHARS,
    MatchConfig,
    _answers_match,
    _answers_match_cached,
    answers_match,
)
from rlvr_math.normalize import CACHED_CLEAN_CHARS, _clean, _clean_cached, clean
from rlvr_math.verifier import _task_words, clear_caches

# (gold, prediction, config, gold_is_set, context): every argument the memo is keyed on changes
# the outcome of at least one row, so a key missing any of them gives a wrong cached answer.
KEYED_ROWS = [
    ("5", "5 widgets", MatchConfig(), False, frozenset({"widget"})),
    ("5", "5 widgets", MatchConfig(), False, frozenset()),
    ("0.5", "0.50001", MatchConfig(rel_tol=1e-3), False, frozenset()),
    ("0.5", "0.50001", MatchConfig(), False, frozenset()),
    ("1, 2", "2, 1", MatchConfig(), True, frozenset()),
    ("1, 2", "2, 1", MatchConfig(ordered_lists=True), False, frozenset()),
    ("50", "50\\%", MatchConfig(), False, frozenset()),
    ("50", "50\\%", MatchConfig(percent="strict"), False, frozenset()),
    ("\\frac{1}{2}", "0.5", MatchConfig(), False, frozenset()),
    ("x^2+2x+1", "(x+1)^2", MatchConfig(), False, frozenset()),
    ("x^2+2x+1", "(x+1)^3", MatchConfig(), False, frozenset()),
    ("\\sqrt{2}", "1.41421356", MatchConfig(), False, frozenset()),
]


@pytest.fixture(autouse=True)
def _fresh() -> None:
    clear_caches()


def test_each_argument_is_part_of_the_key() -> None:
    # Uncached answers first, then the same rows through the memo twice (the second time from it).
    expected = [_answers_match(g, p, c, s, False, ctx) for g, p, c, s, ctx in KEYED_ROWS]
    assert len({(g, p) for g, p, *_ in KEYED_ROWS}) < len(KEYED_ROWS)  # pairs repeat under other keys
    for _ in range(2):
        got = [answers_match(g, p, c, gold_is_set=s, context=ctx) for g, p, c, s, ctx in KEYED_ROWS]
        assert got == expected
    assert _answers_match_cached.cache_info().hits >= len(KEYED_ROWS)
    # The rows are chosen so the keys matter: each pair of rows that differs in one argument differs in outcome.
    assert expected[0].equal != expected[1].equal
    assert expected[2].equal != expected[3].equal
    assert expected[4].equal != expected[5].equal
    assert expected[6].equal != expected[7].equal


def test_clean_cached_equals_uncached_on_random_texts() -> None:
    rng = random.Random(7)
    pieces = [
        "3",
        "\\frac12",
        "\\dfrac{1}{2}",
        " ",
        "$",
        "\\text{ cm}",
        "\\%",
        "{,}",
        "000",
        ".",
        "^\\circ",
        "x",
        "\\left(",
        "\\right)",
        "widgets",
        "万",
        "\\!",
        "**",
        "\\{",
        "\\}",
        "\\\\",
        "-",
        "percent",
    ]
    contexts = [frozenset(), frozenset({"widget"}), frozenset({"cm", "apple"})]
    for _ in range(600):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        context = rng.choice(contexts)
        assert clean(text, context) == _clean(text, context) == clean(text, context)


def test_long_inputs_are_not_remembered() -> None:
    long_text = "1" + " " * CACHED_CLEAN_CHARS
    assert clean(long_text) == _clean(long_text)
    assert _clean_cached.cache_info().currsize == 0
    gold, pred = "7", "7" + " " * CACHED_MATCH_CHARS
    assert answers_match(gold, pred) == _answers_match(gold, pred, MatchConfig(), False, False, frozenset())
    assert _answers_match_cached.cache_info().currsize == 0


def test_clear_caches_empties_the_memos() -> None:
    verifier = MathVerifier()
    verifier.verify(Task(id="t", prompt="How many widgets?", answer="5"), "\\boxed{5 widgets}")
    assert _clean_cached.cache_info().currsize and _answers_match_cached.cache_info().currsize
    assert _task_words.cache_info().currsize == 1
    clear_caches()
    assert _clean_cached.cache_info().currsize == _answers_match_cached.cache_info().currsize == 0
    assert _task_words.cache_info().currsize == 0


def test_same_answer_under_two_prompts_keeps_each_prompts_units() -> None:
    # One gold, one completion, two prompts: the prompt's own words are units only under it.
    verifier = MathVerifier()
    completion = "So there are \\boxed{5 widgets}."
    asks = Task(id="a", prompt="How many widgets does Ann have?", answer="5")
    other = Task(id="b", prompt="Find n.", answer="5")
    first = [verifier.verify(task, completion) for task in (asks, other)]
    clear_caches()
    fresh = [verifier.verify(task, completion) for task in (other, asks)][::-1]
    again = [verifier.verify(task, completion) for task in (asks, other, asks)]
    assert [v.reward for v in first] == [v.reward for v in fresh] == [v.reward for v in again[:2]]
    assert [v.details for v in first] == [v.details for v in fresh] == [v.details for v in again[:2]]
    assert again[2].details == first[0].details
    assert first[0].reward == 1.0 and first[1].reward == 0.0


def test_server_rows_verified_again_give_the_same_verdicts() -> None:
    # The server's case: the same rows again and again, right and wrong answers, from the memos.
    verifier = MathVerifier()
    golds = ["\\frac{14}{3}", "(3, \\frac{\\pi}{2})", "p - q", "10\\%", "\\text{Evelyn}", "27", "x \\in [-2, 7]"]
    rows = [
        (Task(id=str(i), prompt=f"Problem {i} in meters?", answer=g), f"So the answer is \\boxed{{{a}}}.")
        for i, g in enumerate(golds)
        for a in (g, "-31337", g + "+1")
    ]
    fresh = []
    for task, completion in rows:
        clear_caches()
        fresh.append(verifier.verify(task, completion))
    for _ in range(2):
        again = [verifier.verify(task, completion) for task, completion in rows]
        assert [(v.reward, v.reason, v.extracted, v.details) for v in again] == [
            (v.reward, v.reason, v.extracted, v.details) for v in fresh
        ]
