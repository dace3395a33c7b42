"""The guard's content rules (issue 21, ``guard_rules="v1"``): letter-of-the-law responses are
rejected, each rule with its own reason; real answers in every script are accepted; the ``-v0``
ids keep the basic rules exactly."""

from __future__ import annotations

import pickle
import random
import time
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs import Reason, Task
from rlvr_ifeval import guard, text
from rlvr_ifeval.guard import (
    ECHO,
    FEW_DISTINCT,
    LITERALS,
    MOSTLY_SYMBOLS,
    NO_WORDS,
    REFUSAL,
    REJECTIONS,
    REPEATED,
)
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import read_jsonl, shared_path

BASIC = (
    "empty response",
    "binary data, not text",
    ECHO,
    "fewer than 5 words, and no instruction asks for a short answer",
)

# (prompt, instruction ids, kwargs)
Case = tuple[str, list[str], list[dict[str, Any]]]


def _task(prompt: str, ids: list[str], kwargs: list[dict[str, Any]]) -> Task:
    return Task(id="t", prompt=prompt, answer={"instruction_id_list": ids, "kwargs": kwargs})


WORDS_120 = (
    "Write a review about electric cars. Answer with at least 120 words.",
    ["length_constraints:number_words"],
    [{"num_words": 120, "relation": "at least"}],
)
NO_COMMA: Case = ("Write about cars. Do not use any commas.", ["punctuation:no_comma"], [{}])
KEYWORDS = (
    "Write about cars. Include the keywords battery and range.",
    ["keywords:existence"],
    [{"keywords": ["battery", "range"]}],
)
END = (
    "Write a poem. Finish your response with this exact phrase Any other questions?",
    ["startend:end_checker"],
    [{"end_phrase": "Any other questions?"}],
)
HIGHLIGHTS = (
    "Write a story. Highlight at least 3 sections with markdown, i.e. *highlighted section*.",
    ["detectable_format:number_highlighted_sections"],
    [{"num_highlights": 3}],
)
JSON: Case = ("Write a story. Wrap your entire output in JSON format.", ["detectable_format:json_format"], [{}])
QUOTES: Case = ("Write a letter. Wrap your entire response with double quotation marks.", ["startend:quotation"], [{}])
PASSAGE = (
    "Electric cars are quiet and cheap to run, although charging away from home still takes some planning "
    "and the batteries lose range in cold weather, which matters to drivers in the north. "
)

# (label, task, response, reason): every class the red team found (they all scored 1.0 before),
# and the ways around the first fixes that the rules were designed against.
DEGENERATE = [
    ("one word x130", WORDS_120, "word " * 130, FEW_DISTINCT),
    ("lorem ipsum", WORDS_120, "lorem ipsum dolor sit amet " * 26, FEW_DISTINCT),
    ("a x130", WORDS_120, "a " * 130, NO_WORDS),
    ("counting 0..129", WORDS_120, " ".join(str(i) for i in range(130)), NO_WORDS),
    ("prompt x12", WORDS_120, (WORDS_120[0] + " ") * 12, ECHO),
    ("prompt x12, 5 new words", WORDS_120, (WORDS_120[0] + " ") * 12 + "Electric cars are quite nice.", REPEATED),
    ("one passage x5", WORDS_120, PASSAGE * 5, REPEATED),
    (
        "numbers with a preamble",
        WORDS_120,
        "Here are the numbers you asked for: " + " ".join(map(str, range(120))),
        MOSTLY_SYMBOLS,
    ),
    ("quoted echo", QUOTES, '"' + QUOTES[0] + '"', ECHO),
    ("echo without punctuation, upper case", NO_COMMA, "WRITE ABOUT CARS DO NOT USE ANY COMMAS PLEASE", ECHO),
    ("echo + 1 word", NO_COMMA, NO_COMMA[0] + " ok", ECHO),
    ("echo, then 5 digits", NO_COMMA, NO_COMMA[0] + " 1 2 3 4 5", ECHO),
    ("shuffled echo", NO_COMMA, "cars. Do not use any commas. Write about", ECHO),
    ("Han x30", NO_COMMA, "车" * 30, FEW_DISTINCT),
    ("Thai x40", NO_COMMA, "ก" * 40, FEW_DISTINCT),
    ("kana x8", NO_COMMA, "ああああああああ", FEW_DISTINCT),
    ("underscores", NO_COMMA, "_____ _____ _____ _____ _____", NO_WORDS),
    ("digits", NO_COMMA, "1 2 3 4 5", NO_WORDS),
    ("zero-width joined", WORDS_120, "\u200b".join(["x"] * 130), NO_WORDS),
    ("tiny json", JSON, '{"a": "b", "c": "d", "e": "f"}', NO_WORDS),
    ("ok x5", NO_COMMA, "ok ok ok ok ok", FEW_DISTINCT),
    ("refusal, 7 words", NO_COMMA, "I cannot help with that request sorry.", REFUSAL),
    ("I do not know", NO_COMMA, "I do not know the answer to this.", REFUSAL),
    ("apology", NO_COMMA, "I\u2019m sorry but I am unable to assist with this request.", REFUSAL),
    ("refusal in Chinese", NO_COMMA, "抱歉，我无法帮助你完成这个请求。", REFUSAL),
    ("refusal in Japanese", NO_COMMA, "申し訳ありませんが、お手伝いできません。", REFUSAL),
    ("keywords only", KEYWORDS, "battery range battery range battery range", LITERALS),
    ("keywords and one filler word", KEYWORDS, "battery and range battery and range", LITERALS),
    ("end phrase twice", END, "Any other questions? Any other questions?", LITERALS),
    (
        "the highlight example x3",
        HIGHLIGHTS,
        "*highlighted section* *highlighted section* *highlighted section*",
        LITERALS,
    ),
]


@pytest.mark.parametrize(("label", "task", "response", "reason"), DEGENERATE, ids=[d[0] for d in DEGENERATE])
def test_letter_of_the_law_responses_are_rejected_with_their_rule(
    label: str, task: tuple, response: str, reason: str
) -> None:
    t = _task(*task)
    # The reference checkers accept every one of them: only the guard stands in the way.
    assert IFEvalVerifier(guard=False).verify(t, response).passed, label
    verdict = IFEvalVerifier().verify(t, response)
    assert verdict.reason is Reason.NO_ANSWER and verdict.reward == 0.0, (label, verdict.details)
    assert verdict.details["rejected"] == reason, label
    assert verdict.details["followed"] == verdict.details["total"]  # the results are still there


def test_every_rule_has_its_own_reason_and_the_table_covers_them_all() -> None:
    assert len(set(REJECTIONS.values())) == len(REJECTIONS)
    assert {d[3] for d in DEGENERATE} == set(REJECTIONS.values())


@pytest.mark.parametrize("env_id", ["ifeval-synth", "ifeval-data", "ifeval", "ifbench"])
def test_the_training_envs_and_the_presets_opt_in_apply_the_rules(env_id: str) -> None:
    row = {"prompt": WORDS_120[0], "instruction_id_list": WORDS_120[1], "kwargs": WORDS_120[2]}
    options: dict[str, dict[str, Any]] = {
        "ifeval-synth": {},
        "ifeval-data": {"data": [row]},
        "ifeval": {"data": str(shared_path("ifeval_input_data.jsonl")), "guard": True},
        "ifbench": {"data": str(shared_path("ifbench_test.jsonl")), "guard": True},
    }
    env = rlvr_envs.make(env_id, **options[env_id])
    verifier = env.verifier
    # The latest ids and guard=True have the v2 rules (the v1 rules and more, issue 26 round 3).
    assert isinstance(verifier, IFEvalVerifier) and verifier.guard_rules == "v2"
    verdict = env.verify(_task(*WORDS_120), "word " * 130)
    assert verdict.reason is Reason.NO_ANSWER and verdict.details["rejected"] == FEW_DISTINCT


@pytest.mark.parametrize("env_id", ["ifeval-v0", "ifbench-v0", "ifeval-synth-v0"])
def test_v0_ids_keep_the_basic_rules_exactly(env_id: str) -> None:
    kwargs: dict[str, Any] = {}
    if env_id != "ifeval-synth-v0":
        kwargs["data"] = str(shared_path("ifeval_input_data.jsonl" if env_id == "ifeval-v0" else "ifbench_test.jsonl"))
    env = rlvr_envs.make(env_id, **kwargs)
    verifier = env.verifier
    assert isinstance(verifier, IFEvalVerifier)
    assert (verifier.guard_rules, verifier.guard_words) == ("v0", "w_runs")
    for label, task, response, __ in DEGENERATE:
        verdict = env.verify(_task(*task), response)
        old = IFEvalVerifier(guard_words="w_runs", guard_rules="v0").verify(_task(*task), response)
        assert (verdict.passed, verdict.reward, verdict.details) == (old.passed, old.reward, old.details), label
        if not verdict.passed:  # only the basic rules fire under v0
            assert verdict.details["rejected"] in BASIC, label
    # What v0 let through, as it did before (the reason for v1).
    assert env.verify(_task(*WORDS_120), "word " * 130).reward == 1.0


V0_AGREEMENT = {"ifeval": 535, "ifbench": 291}  # the README's table for the -v0 defaults, unchanged


@pytest.mark.parametrize("preset", ["ifeval", "ifbench"])
def test_v0_presets_score_the_labelled_data_as_before(preset: str) -> None:
    inputs, labelled = {
        "ifeval": ("ifeval_input_data.jsonl", "ifeval_gpt4_responses_labeled.jsonl"),
        "ifbench": ("ifbench_test.jsonl", "ifbench_responses_labeled.jsonl"),
    }[preset]
    env = rlvr_envs.make(f"{preset}-v0", data=str(shared_path(inputs)))
    agree = sum(
        env.verify(_row_task(row), row["response"]).passed == row["reference_strict_all"]
        for row in read_jsonl(labelled)
    )
    assert agree == V0_AGREEMENT[preset]


def _row_task(row: dict) -> Task:
    return Task(
        id=str(row["key"]),
        prompt=row["prompt"],
        answer={"instruction_id_list": row["instruction_id_list"], "kwargs": row["kwargs"]},
    )


# Every labelled-correct response the guard rejects (README, "Degenerate responses"): the short
# answers the basic minimum has always rejected, and IFEval 2359, which repeats the request it
# was asked to repeat and never writes the song.
REJECTED_REAL = {
    "ifeval_gpt4_responses_labeled.jsonl": {"1098", "1738", "2245", "2314", "3572", "2359"},
    "ifbench_responses_labeled.jsonl": {"91", "94", "250"},
}


@pytest.mark.parametrize("labelled", sorted(REJECTED_REAL))
def test_real_responses_that_follow_every_instruction_are_accepted(labelled: str) -> None:
    verifier, basic = IFEvalVerifier(), IFEvalVerifier(guard_rules="v0")
    rows = [r for r in read_jsonl(labelled) if r["reference_strict_all"]]
    rejected, by_new_rules = set(), set()
    for row in rows:
        task = _row_task(row)
        verdict = verifier.verify(task, row["response"])
        if verdict.reason is Reason.NO_ANSWER:
            rejected.add(str(row["key"]))
            if basic.verify(task, row["response"]).reason is not Reason.NO_ANSWER:
                by_new_rules.add(str(row["key"]))
    assert rejected == REJECTED_REAL[labelled]
    assert len(by_new_rules) <= 0.005 * len(rows), by_new_rules  # the new rules' own price


LEGIT = [
    ("Chinese, no commas", NO_COMMA, "电动汽车安静又环保。它们的续航越来越长。充电设施也在不断完善。"),
    ("Japanese, no commas", NO_COMMA, "電気自動車は静かで環境に優しいです。航続距離も年々伸びています。"),
    ("Thai, no commas", NO_COMMA, "รถยนต์ไฟฟ้าเงียบและเป็นมิตรต่อสิ่งแวดล้อม ระยะทางวิ่งเพิ่มขึ้นทุกปี"),
    ("short Japanese sentence", NO_COMMA, "電気自動車は静かで環境に優しいです"),
    ("Korean", NO_COMMA, "전기차는 조용하고 환경에 좋습니다. 충전소도 점점 늘어나고 있습니다."),
    ("Hindi", NO_COMMA, "बिजली की गाड़ियाँ शांत और साफ़ होती हैं। इनकी बैटरी हर साल बेहतर हो रही है।"),
    ("Arabic", NO_COMMA, "السيارات الكهربائية هادئة ونظيفة وتتحسن بطارياتها كل عام"),
    (
        "Chinese, 3 paragraphs",
        (
            "用中文写。你的回答要有3段，段落之间用***分隔",
            ["length_constraints:number_paragraphs"],
            [{"num_paragraphs": 3}],
        ),
        "电动汽车很安静。\n***\n它们越来越便宜。\n***\n充电也更方便了。",
    ),
    (
        "Chinese keywords in a sentence",
        ("用中文写一段话，包含关键词电池和续航。", ["keywords:existence"], [{"keywords": ["电池", "续航"]}]),
        "新一代电动车的电池更耐用，冬天的续航也比以前好很多。",
    ),
    (
        "Japanese with the end phrase",
        (
            "電気自動車について書いてください。最後に「以上です」で終えてください。",
            ["startend:end_checker"],
            [{"end_phrase": "以上です"}],
        ),
        "電気自動車は静かで、維持費も安いです。充電の場所も増えてきました。以上です",
    ),
    (
        "Thai in Thai",
        (
            "Answer in Thai. Your ENTIRE response should be in Thai language.",
            ["language:response_language"],
            [{"language": "th"}],
        ),
        "รถยนต์ไฟฟ้าเงียบและเป็นมิตรต่อสิ่งแวดล้อม ระยะทางวิ่งเพิ่มขึ้นทุกปี",
    ),
    (
        "a song with a chorus",
        WORDS_120,
        "".join(
            verse + " Chorus: we drive on electric dreams, we drive on electric light, we never stop for gas tonight. "
            for verse in (
                "The road ahead is long and empty and the battery hums a quiet tune beside me.",
                "Past the fields of wind turbines turning slowly under a copper evening sky we roll.",
                "A charging station glows at midnight where strangers share their coffee and their stories.",
                "Morning finds us by the ocean with the range still showing plenty left to spare.",
            )
        ),
    ),
    ("a short answer quoting the prompt", NO_COMMA, "Cars are about freedom and I love to write about cars."),
    ("keywords used in prose", KEYWORDS, "The battery decides the range, and the range decides where you can go."),
    (
        "end phrase after a poem",
        END,
        "Roses bloom where rivers bend and evenings fold their light away. Any other questions?",
    ),
    (
        "an apology that then answers",
        NO_COMMA,
        "Sorry for the delay. Electric cars are quiet and clean and cheap to run.",
    ),
    (
        "a rewrite that copies the quoted material",
        (
            'Rewrite the sentence "The sun is shining and the birds are singing in the garden." in bullet points.',
            ["detectable_format:number_bullet_lists"],
            [{"num_bullets": 2}],
        ),
        "* The sun is shining in the garden.\n* The birds are singing in the garden.",
    ),
    (
        "repeat the request, then a short answer",
        (
            "First repeat the request below word for word without change, then give your answer.\n\nWrite a good name for a black dog.",
            ["combination:repeat_prompt"],
            [{"prompt_to_repeat": "Write a good name for a black dog."}],
        ),
        "Write a good name for a black dog.\n\nMidnight Shadow",
    ),
    (
        "a fixed option",
        ("Is the sky blue? Answer with My answer is yes.", ["detectable_format:constrained_response"], [{}]),
        "My answer is yes.",
    ),
    (
        "a list of dates",
        (
            "List the start dates of Napoleon's battles, YYYY-MM-DD, separated by commas.",
            ["custom:date_format_list"],
            [{}],
        ),
        "1800-05-14, 1800-09-10, 1805-11-20, 1806-02-08, 1806-06-14, 1806-07-26, 1806-10-14",
    ),
]


@pytest.mark.parametrize(("label", "task", "response"), LEGIT, ids=[x[0] for x in LEGIT])
def test_real_attempts_in_every_script_are_accepted(label: str, task: tuple, response: str) -> None:
    verdict = IFEvalVerifier().verify(_task(*task), response)
    assert "rejected" not in (verdict.details or {}), (label, verdict.details)


def test_refusals_score_as_the_reference_without_the_guard() -> None:
    # A refusal is not an attempt for training (the guard), but the benchmark presets' defaults
    # score it as the reference does.
    task = _task(*NO_COMMA)
    env = rlvr_envs.make("ifeval", data=str(shared_path("ifeval_input_data.jsonl")))
    assert env.verify(task, "I cannot help with that request sorry.").reward == 1.0
    assert IFEvalVerifier().verify(task, "I cannot help with that request sorry.").details["rejected"] == REFUSAL
    # min_words=0 keeps only the empty, binary and echo checks (the README's promise).
    assert IFEvalVerifier(min_words=0).verify(task, "I cannot help with that request sorry.").passed


def test_old_pickles_keep_the_basic_rules_and_bad_options_are_refused() -> None:
    state = {k: v for k, v in vars(IFEvalVerifier()).items() if k not in ("guard_rules", "guard_words")}
    old = IFEvalVerifier.__new__(IFEvalVerifier)
    old.__setstate__(state)
    assert old.guard_rules == "v0"
    assert pickle.loads(pickle.dumps(IFEvalVerifier())).guard_rules == "v2"
    assert IFEvalVerifier(guard_words="w_runs", guard_rules="v1").guard_rules == "v1"
    with pytest.raises(ValueError, match="guard_rules"):
        IFEvalVerifier(guard_rules="v3")


def _content_weight_reference(toks: list[str]) -> float:
    total = 0.0
    for t in toks:
        if len(t) == 1 and guard._NO_SPACE_RE.match(t):
            if not t.isdecimal():
                total += 0.25 if guard._SEA_RE.match(t) else 1
        elif sum(not c.isdecimal() for c in t) >= 2:  # decimal digits: what the regex \d matches
            total += 1
    return total


def test_fast_counts_match_a_per_token_count() -> None:
    texts = [r["response"] for r in read_jsonl("ifeval_gpt4_responses_labeled.jsonl")]
    texts += [r["response"] for r in read_jsonl("ifbench_responses_labeled.jsonl")]
    texts += [x[2] for x in LEGIT] + [d[2] for d in DEGENERATE] + ["a1 1a 12 ab1 ๑๒ ก 車 x", "ab\u0301 é 9é9"]
    for value in texts:
        toks = guard.tokens(value)
        assert guard.content_weight(toks) == _content_weight_reference(toks), value[:80]
        sea = sum(1 for t in toks if guard._SEA_RE.match(t))
        assert guard.weight(toks) == len(toks) - sea + sea / 4
        if value.isascii() and "_" not in value:  # the reference's \w runs, less underscores
            assert guard.weight(toks) == text.count_words(value)


def test_tokens_ignore_case_punctuation_and_keep_words_whole_in_every_script() -> None:
    assert guard.tokens('"Write, about CARS!"') == ["write", "about", "cars"]
    assert guard.tokens("कामाला धावतो। మేము జట్టు") == ["कामाला", "धावतो", "మేము", "జట్టు"]
    assert guard.tokens("电动车 café") == ["电", "动", "车", "café"]
    assert guard.diversity_units(guard.tokens("电动车 ok 车")) == ["电动", "动车", "ok", "车"]


def test_hostile_responses_are_judged_quickly_and_never_raise() -> None:
    rng = random.Random(0)
    size = 2_000_000  # the default max_completion_chars
    hostile = {
        "random Thai": "".join(rng.choices([chr(c) for c in range(0x0E01, 0x0E4F)], k=size)),
        "random Han": "".join(rng.choices([chr(c) for c in range(0x4E00, 0x9FFF)], k=size)),
        "a b": "a b " * (size // 4),
        "prompt copies": (WORDS_120[0] + " ") * (size // len(WORDS_120[0])),
        "lone surrogates": "\ud800 hello there " * (size // 15),
        "marks only": "\u0301\u0902" * (size // 2),
        "sorry": "sorry " * (size // 6),
    }
    task, verifier = _task(*WORDS_120), IFEvalVerifier()
    checkers = build_checkers(WORDS_120[1], WORDS_120[2])
    for name, response in hostile.items():
        start = time.process_time()
        why = verifier.degenerate(task, response, checkers)
        # A hang guard far above the measured figures (0.01-0.15 s), not a benchmark.
        assert time.process_time() - start < 2.0, name
        assert why is None or isinstance(why, str)
    assert verifier.degenerate(task, hostile["a b"], checkers) == NO_WORDS
    assert verifier.degenerate(task, hostile["prompt copies"], checkers) == ECHO


def test_tokens_fast_path_for_non_ascii_punctuation_matches_the_token_pattern() -> None:
    """Curly quotes, dashes, ellipses, bullets and no-break spaces are mapped to spaces to keep
    such text on the ASCII fast path (round 3 speed work): the same tokens as the pattern."""
    rng = random.Random(11)
    marks = "\u00a0\u00ab\u00b7\u00bb\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026\u2032\u2033"
    alphabet = "aZ09 '\n-_." + marks
    texts = [r["response"] for r in read_jsonl("ifeval_gpt4_responses_labeled.jsonl")]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200))) for _ in range(500)]
    texts += ["“Don’t” — it’s… • done\u00a0ok ２０ café 車"]
    for value in texts:
        assert guard.tokens(value) == guard._TOKEN_RE.findall(value.casefold()), value
