"""The form rules (issue 26 round 4, ``ifeval-data-v4`` / ``ifeval-synth-v5``): a prompt that asks
for a poem, song, rap, limerick or haiku is answered in lines of verse, one that asks for an
essay, story, blog post ... in more than a few words; a pasted paragraph of prose or a pasted
tweet is not an answer, whatever format-only instructions it satisfies."""

from __future__ import annotations

from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Reason, Task
from rlvr_ifeval.genre import not_verse, requested_long_form, requested_verse, too_short
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import read_jsonl
from tests.ifeval.test_ifeval_contrast import LABELLED

PROSE = (
    "Lua is a powerful, efficient, lightweight, embeddable scripting language. It is designed to be easy to "
    "embed into applications and to integrate with other languages, and it runs on every platform that has a "
    "standard C compiler. Its tables serve as arrays, dictionaries and objects at once.\n\nLua is used in games, "
    "in network equipment and in text editors, where it lets users extend a program without recompiling it."
)
POEM = (
    "The summer fields were gold and wide,\n"
    "we ran beside the river's side,\n"
    "the barn cats slept, the swallows flew,\n"
    "and every day the sky was new."
)
VERSE_PROMPTS = (
    "Write a song about the summers of my childhood that I spent in the countryside.",
    "Can you write a rap that doesn't include the keywords Yo, check and peace?",
    "Write a funny limerick about a cat who learns to cook.",
    "write a haiku about ireland in the style of basho.",
    "Compose two short poems about the sea, one happy and one sad.",
    "Write me lyrics for a jingle selling toothpaste.",
)
NOT_VERSE_PROMPTS = (
    "How to write a good Chinese poem?",
    "Write an essay about the poem The Raven.",
    "Write a review of the song Bohemian Rhapsody.",
    "Is it true that the first song ever sung in outer space is Happy Birthday?",
    "Give feedback on my poem: roses are red.",
    "Write a song title for my band.",
    "Give me a poem's first line about autumn.",
    "Write a blog post about gardening.",
)


def _task(prompt: str, ids: tuple[str, ...] = ("punctuation:no_comma",)) -> Task:
    return Task(id=prompt[:8], prompt=prompt, answer={"instruction_id_list": list(ids), "kwargs": [{} for _ in ids]})


@pytest.mark.parametrize("prompt", VERSE_PROMPTS)
def test_prose_pasted_under_a_request_for_verse_is_refused_and_verse_is_paid(prompt: str) -> None:
    latest = IFEvalVerifier(relevance="contrast", relevance_genre=True)
    prose, poem = PROSE.replace(",", ""), POEM.replace(",", "")
    verdict = latest.verify(_task(prompt), prose)
    assert verdict.reward == 0 and verdict.reason is Reason.WRONG
    assert verdict.details["relevance"]["verse_requested"]
    assert latest.verify(_task(prompt), poem).reward == 1.0
    # Verse inside a JSON string or quoted inline with slashes is verse too.
    assert not_verse(prompt, '{"poem": "' + poem.replace("\n", "\\n") + '"}', ()) is None
    assert not_verse(prompt, poem.replace("\n", " / "), ()) is None
    as_list = '{"lyrics": [' + ", ".join(f'"{line}"' for line in poem.splitlines()) + "]}"
    assert not_verse(prompt, as_list, ()) is None
    # The ids before round 4 pay the prose (it is under the overlap rule's 80 words).
    assert IFEvalVerifier(relevance="contrast").verify(_task(prompt), prose).reward == 1.0


@pytest.mark.parametrize("prompt", NOT_VERSE_PROMPTS)
def test_prompts_that_do_not_ask_for_verse_are_not_judged(prompt: str) -> None:
    assert requested_verse(prompt) is None
    assert not_verse(prompt, PROSE, ()) is None


def test_instructions_that_remove_line_breaks_are_not_judged() -> None:
    prompt = VERSE_PROMPTS[0]
    for ids in (["format:no_whitespace"], ["detectable_format:sentence_hyphens"]):
        assert not_verse(prompt, "the-summer-fields-were-gold-and-wide", build_checkers(ids, [{}])) is None


def _labelled_refusals(requested: Any, rule: Any) -> tuple[list[dict[str, Any]], list[Any]]:
    """The labelled rows whose prompt ``requested`` finds a request in, and the keys of those
    whose own response ``rule`` refuses."""
    rows: list[dict[str, Any]] = []
    for name in LABELLED:
        rows.extend(read_jsonl(name))
    asked = [r for r in rows if requested(r["prompt"])]
    refused = [
        r["key"]
        for r in asked
        if rule(r["prompt"], r["response"], build_checkers(r["instruction_id_list"], r["kwargs"]))
    ]
    return asked, refused


def test_no_labelled_answer_to_a_verse_request_is_refused() -> None:
    """Calibration: every labelled response under its own prompt. 77 prompts ask for verse; the
    one refused (2359) only repeats its request, which the guard refuses already."""
    asked, refused = _labelled_refusals(requested_verse, not_verse)
    assert len(asked) >= 70 and refused == [2359]
    guarded = IFEvalVerifier(guard_rules="v2")
    row = next(r for r in asked if r["key"] == 2359)
    task = Task(id="2359", prompt=row["prompt"], answer={k: row[k] for k in ("instruction_id_list", "kwargs")})
    assert guarded.verify(task, row["response"]).reward == 0.0


def test_hostile_responses_never_raise() -> None:
    latest = IFEvalVerifier(relevance="contrast", relevance_genre=True)
    task = _task(VERSE_PROMPTS[2])
    for response in ("\n" * 100_000, "a\n" * 500_000, "\\n" * 100_000, " / " * 100_000, "\x00" * 1000, "😀\n" * 1000):
        assert latest.verify(task, response).reward in (0.0, 1.0)


def test_the_latest_ids_apply_the_rule() -> None:
    rows = [{"prompt": VERSE_PROMPTS[2], "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}]
    env: Any = rlvr_envs.make("ifeval-data", data=rows)
    older: Any = rlvr_envs.make("ifeval-data-v3", data=rows)
    assert env.verifier.relevance_genre and not older.verifier.relevance_genre
    assert env.verify(env.tasks[0], PROSE.replace(",", "")).reward == 0.0
    synth: Any = rlvr_envs.make("ifeval-synth")
    assert synth.verifier.relevance_genre


LONG_FORM_PROMPTS = (
    "Write an essay about the history of the printing press.",
    "Write a blog post about urban gardening for beginners.",
    "Write a story about a dragon who is afraid of heights.",
    "Write a proposal for a new community library in my town.",
    "Write a funny screenplay about two cats running a bakery.",
)
BOUNDED_PROMPTS = (
    "Write a short story about a dragon.",
    "Write a one-sentence story about a dragon.",
    "Write a 6-word story about the sea.",
    "Write a title for my essay about the printing press.",
    "Write an essay about bees in less than 30 words.",
    "How do I write a good essay? Give me three tips.",
    "Write a tweet about my new blog post.",
    "Write a story for kids. Keep it under fifty words.",
    "Write a story idea about a robot on Mars.",
    "Write an essay title about the war.",
)
TWEET = "Productive day at the White House as our team engages with global leaders. #Unity"


@pytest.mark.parametrize("prompt", LONG_FORM_PROMPTS)
def test_a_few_words_pasted_under_a_request_for_a_long_form_are_refused(prompt: str) -> None:
    latest = IFEvalVerifier(relevance="contrast", relevance_genre=True)
    verdict = latest.verify(_task(prompt), TWEET)
    assert verdict.reward == 0 and verdict.details["relevance"]["long_form_requested"]
    assert IFEvalVerifier(relevance="contrast").verify(_task(prompt), TWEET).reward == 1.0
    assert too_short(prompt, PROSE, ()) is None  # long enough (whether on topic is the other rules' call)


@pytest.mark.parametrize("prompt", BOUNDED_PROMPTS)
def test_a_bounded_or_other_request_is_not_judged_by_length(prompt: str) -> None:
    assert too_short(prompt, TWEET, ()) is None


def test_an_instruction_that_caps_the_length_lifts_the_rule() -> None:
    prompt = LONG_FORM_PROMPTS[0]
    capped = build_checkers(["length_constraints:number_words"], [{"num_words": 30, "relation": "less than"}])
    assert too_short(prompt, TWEET, capped) is None
    assert too_short(prompt, TWEET, build_checkers(["punctuation:no_comma"], [{}])) is not None


def test_no_labelled_answer_to_a_long_form_request_is_refused() -> None:
    asked, refused = _labelled_refusals(requested_long_form, too_short)
    assert len(asked) >= 70 and refused == []


def test_requests_are_found_in_linear_time_on_hostile_prompts() -> None:
    """The request patterns never backtrack over ways to split a run (their gap and word
    classes share no character): 100 kB prompts of dashes, quotes or repeated words answer."""
    for prompt in ("write" + "-" * 100_000 + "poem", "write " + "' " * 50_000 + "essay", "write a b c d " * 8_000):
        requested_verse(prompt)
        requested_long_form(prompt)
    assert requested_verse("write a b c d " * 8_000 + "write a poem") == "write a poem"
