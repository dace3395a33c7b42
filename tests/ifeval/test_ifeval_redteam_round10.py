"""Red team round 10 on the IFEval training ids (issue 26: ``ifeval-data-v10``, ``ifeval-synth-v10``,
``relevance_paste=6``): the task named in one place, then left (``rlvr_ifeval.detached``).

After round 9 a sentence that names the task ("<topic> is a subject that deserves more attention")
beside a text on something else covered the overlap rule: 48/541 ``ifeval-data`` and 38/300
``ifeval-synth`` tasks paid (``bench/ifeval_probes.py``). The probes here go beyond that sweep's
one phrasing: the naming sentence first, last or in the middle of the paragraph, in a paragraph
of its own, in the first and the last paragraph (a frame), in German, French, Spanish, quoted, bold, as a list item, inside a JSON string, and a
Chinese task with a Chinese text. Each pays under ``-v9`` on most tasks (the hole, measured here)
and on none under ``-v10``; the honest rows (an answer that names its task once and then takes it
up, a titled answer, a greeting, terse verse) keep their reward. Labelled-good answers refused
beyond the guard: the same 3 of 493 under ``-v9`` and ``-v10`` (tests/ifeval/test_ifeval_contrast.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

import rlvr_envs
from rlvr_envs.types import Task
from rlvr_ifeval.detached import MAX_NAMING_SHARE
from rlvr_ifeval.relevance import named_not_answered, task_units

OLD, NEW = "ifeval-synth-v9", "ifeval-synth-v10"

ESSAY_SENTENCES = (
    "The lighthouse keeper climbed the spiral stairs every evening at six to light the great lamp.",
    "He polished the brass rails and wound the clockwork that turned the lens through the night.",
    "Ships passed far out on the dark water and sometimes one of them sounded its horn in greeting.",
    "In the morning he wrote the weather in a thick logbook and made porridge on the iron stove.",
    "Once a month a boat brought flour and oil and letters from his sister who lived in the city.",
    "He had kept the light for thirty years and never once let it go out in a storm.",
    "When he finally retired the village gave him a silver watch and a cottage by the harbour.",
)
ESSAY = " ".join(ESSAY_SENTENCES)
"""Off-topic for every task below: no commas, 130 words."""

Instruction = tuple[str, dict[str, object]]
NO_COMMA: Instruction = ("punctuation:no_comma", {})
UNDER_400: Instruction = ("length_constraints:number_words", {"relation": "less than", "num_words": 400})
OVER_60: Instruction = ("length_constraints:number_words", {"relation": "at least", "num_words": 60})


def _task(prompt: str, *instructions: Instruction) -> Task:
    return Task(
        id=prompt[:24],
        prompt=prompt,
        answer={"instruction_id_list": [i for i, _ in instructions], "kwargs": [k for _, k in instructions]},
    )


TASKS = [
    _task("Write a blog post about urban beekeeping. Do not use any commas in your response.", NO_COMMA),
    _task("Write a review about electric scooters. Answer with less than 400 words.", UNDER_400),
    _task("Write an essay about the history of chess. Answer with at least 60 words.", OVER_60),
    _task("Write a speech about recycling plastic waste. Answer with less than 400 words.", UNDER_400),
    _task("Write a product description about a solar lantern. Do not use any commas in your response.", NO_COMMA),
    _task("Write a diary entry about learning the violin. Answer with at least 60 words.", OVER_60),
]


def _topic(t: Task) -> str:
    return t.prompt.split(". ")[0].split(" about ")[1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _middle(sentence: str) -> str:
    half = len(ESSAY_SENTENCES) // 2
    return " ".join((*ESSAY_SENTENCES[:half], sentence, *ESSAY_SENTENCES[half:]))


def _paid(env_id: str, build: Callable[[Task], str], tasks: list[Task] = TASKS) -> list[str]:
    verifier = rlvr_envs.make(env_id).verifier
    paid = []
    for t in tasks:
        text = build(t)
        if any(verifier.verify(t, v).reward > 0 for v in (text, text.lower())):
            paid.append(t.prompt)
    return paid


# --- the task named in one place, then a text on something else --------------------------------------

NAMED_THEN_LEFT: dict[str, Callable[[Task], str]] = {
    "claim-first": lambda t: f"{_cap(_topic(t))} is a subject that deserves more attention than it gets. {ESSAY}",
    "claim-last": lambda t: f"{ESSAY} In the end {_topic(t)} shaped every part of this.",
    "claim-middle": lambda t: _middle(f"{_cap(_topic(t))} changes everything we thought we knew."),
    "own-paragraph-first": lambda t: f"{_cap(_topic(t))} deserves careful thought.\n\n{ESSAY}",
    "own-paragraph-last": lambda t: f"{ESSAY}\n\nAnd that is the whole truth about {_topic(t)}.",
    "first-and-last": lambda t: (
        f"{_cap(_topic(t))} is worth a moment of your time.\n\n{ESSAY}\n\nThat is why {_topic(t)} matters so much."
    ),
    "german": lambda t: f"Über {_topic(t)} lässt sich sehr viel sagen. {ESSAY}",
    "french": lambda t: f"Le sujet de {_topic(t)} mérite une vraie réflexion. {ESSAY}",
    "spanish": lambda t: f"Sobre {_topic(t)} hay mucho que decir. {ESSAY}",
    "quoted": lambda t: f"\u201c{_cap(_topic(t))} is worth a closer look.\u201d {ESSAY}",
    "bold": lambda t: f"**{_cap(_topic(t))} is the theme of this piece.** {ESSAY}",
    "list": lambda t: "\n".join(f"- {s}" for s in (f"{_cap(_topic(t))} matters to everyone.", *ESSAY_SENTENCES)),
    "json": lambda t: json.dumps({"response": f"{_cap(_topic(t))} matters to all of us. {ESSAY}"}),
}


@pytest.mark.parametrize("name", list(NAMED_THEN_LEFT), ids=list(NAMED_THEN_LEFT))
def test_the_task_named_then_left_is_no_answer(name: str) -> None:
    assert _paid(NEW, NAMED_THEN_LEFT[name]) == []


def test_the_task_named_then_left_was_paid_before_round_10() -> None:
    paid = {name: len(_paid(OLD, build)) for name, build in NAMED_THEN_LEFT.items()}
    assert all(n >= len(TASKS) // 2 for n in paid.values()), paid


CHINESE = _task("写一篇关于城市养蜂的博客文章。", NO_COMMA)
CHINESE_ESSAY = (
    "老灯塔看守人每天傍晚六点爬上螺旋楼梯去点亮那盏大灯。他擦亮铜栏杆并给转动透镜的发条上紧弦。"
    "远处的船只在黑色的海面上驶过有时会鸣笛致意。早上他在厚厚的日志本里记下天气然后在铁炉上煮粥。"
    "每个月有一条小船送来面粉和灯油还有他住在城里的姐姐写来的信。他守了三十年灯从未在暴风雨中让它熄灭。"
)


def test_a_chinese_task_named_then_left_is_no_answer() -> None:
    named = "城市养蜂的博客文章值得每个人认真思考。" + CHINESE_ESSAY
    assert _paid(OLD, lambda t: named, [CHINESE]) == [CHINESE.prompt]
    assert _paid(NEW, lambda t: named, [CHINESE]) == []
    honest = (
        "在这篇博客文章里我想谈谈城市养蜂。城市养蜂越来越受欢迎。在城市的屋顶上养蜂可以帮助花园授粉。养蜂人需要每周检查蜂箱。"
        "城市里的蜜蜂采集公园和阳台上的花蜜。一个蜂箱一年可以产出十几公斤蜂蜜。"
        "开始养蜂之前要了解当地的规定并和邻居沟通。城市养蜂让人们更关心蜜蜂和环境。"
    )
    assert _paid(NEW, lambda t: honest, [CHINESE]) == [CHINESE.prompt]


# --- honest answers keep their reward ----------------------------------------------------------------

HONEST: list[tuple[Task, str, str]] = [
    (
        TASKS[0],
        "names the task first and comes back to it",
        "Urban beekeeping is easier than most people think. A single hive on a flat roof needs an hour "
        "of care a week in summer and almost none in winter. City bees forage on park lime trees and "
        "balcony flowers and often make more honey than country bees. Check the hive for swarm cells in "
        "May and give the colony more room before it leaves. Talk to your neighbours before you start "
        "because a hive by a shared path will worry them. Wear a veil and move slowly and urban "
        "beekeeping will soon feel like the most natural hobby in the world.",
    ),
    (
        TASKS[2],
        "a title line, then an answer in other words",
        "The History of Chess\n\nThe game began in India around the sixth century as chaturanga and "
        "travelled to Persia where it became shatranj. Arab scholars wrote the first books of problems and "
        "the game reached Spain and Italy by the tenth century. In the fifteenth century the queen and the "
        "bishop gained their long moves and the modern game was born. Clubs and cafes in London and Paris "
        "made the game fashionable and the first international tournament was held in 1851. Today "
        "millions of players meet online every day.",
    ),
    (
        TASKS[5],
        "a greeting, then the diary",
        "Dear diary!\n\nToday was my third violin lesson with Mrs Novak. My left hand still aches from holding "
        "the neck and my bow keeps sliding towards the fingerboard. She made me play open strings for "
        "twenty minutes and then a scale of D major that squeaked on every shift. At home I practised in "
        "front of the mirror so I could watch my elbow. The cat left the room after five minutes. Still "
        "I managed the first line of Twinkle Twinkle without a mistake and I felt like a real musician.",
    ),
    (
        TASKS[3],
        "the topic sentence taken up further on",
        "Recycling plastic waste starts at home. Rinse bottles and tubs before they go in the bin so that "
        "the sorting plant can sell them. Most towns take bottles and trays but not film or bags. Plastic "
        "that is sorted well becomes new bottles or fleece jackets or garden furniture. Plastic that is "
        "dirty goes to landfill. So please take a minute to rinse and sort because recycling only works "
        "when each of us does a small part.",
    ),
]


@pytest.mark.parametrize(("task", "why", "answer"), HONEST, ids=[h[1] for h in HONEST])
def test_honest_answers_keep_their_reward(task: Task, why: str, answer: str) -> None:
    verdict = rlvr_envs.make(NEW).verifier.verify(task, answer)
    assert verdict.reward == 1.0, (why, verdict.details.get("relevance"))


# --- the rule's reading, one condition at a time -------------------------------------------------------

UNITS = task_units(TASKS[0].prompt, ()).units
NAMING = "Urban beekeeping deserves careful thought."


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        (f"{NAMING} {ESSAY}", True),
        (f"{NAMING}\n\n{ESSAY}", True),
        (f"{ESSAY}\n\n{NAMING}", True),
        (f"Urban beekeeping\n\n{ESSAY}", False),  # a heading names the task: spared
        (f"Urban beekeeping:\n\n{ESSAY}", False),  # a label
        (f"{NAMING}\n\n{ESSAY}\n\nMore on beekeeping later.", True),  # first and last: a frame
        (f"{ESSAY}\n\n{NAMING}\n\nMore on beekeeping later.", False),  # two paragraphs, not a frame
        (f"{NAMING}\n\nBeekeeping in cities.\n\n{ESSAY}", False),  # the first two paragraphs: taken up
        (f"{NAMING} The keeper took careful notes. {ESSAY}", False),  # its word "careful" comes back
        (ESSAY, False),  # the task not named at all: the overlap rule's question, not this one's
    ],
)
def test_the_rule_reads_paragraphs_headings_and_cohesion(text: str, refused: bool) -> None:
    assert (named_not_answered(text, UNITS, 20) is not None) is refused


def test_a_response_mostly_made_of_its_naming_sentences_is_spared() -> None:
    naming = " ".join(
        f"Urban beekeeping {w} this {x}." for w, x in zip("alpha beta gamma".split(), "one two three".split())
    )
    tail = " ".join(ESSAY_SENTENCES[:1])
    found = named_not_answered(f"{naming} {tail}", UNITS, 20)
    words = len(naming.split()) / len(f"{naming} {tail}".split())
    assert (found is None) is (words > MAX_NAMING_SHARE)


def test_short_responses_and_empty_tasks_are_not_judged() -> None:
    assert named_not_answered(f"{NAMING} {ESSAY_SENTENCES[0]}", UNITS, 80) is None
    assert named_not_answered(f"{NAMING} {ESSAY}", frozenset(), 20) is None
    assert named_not_answered("", UNITS, 0) is None


# --- "language" as a topic, not a constraint ----------------------------------------------------------

LANGUAGE_TASKS = [
    _task("Write a short story about learning a second language. Do not use any commas in your response.", NO_COMMA),
    _task("Write a speech about learning a new language. Answer with less than 400 words.", UNDER_400),
    _task("Write a blog post about why language matters. Answer with at least 60 words.", OVER_60),
    _task("Write an essay about language. Do not use any commas in your response.", NO_COMMA),
]


def test_a_language_topic_is_asked_for() -> None:
    assert len(_paid(OLD, lambda t: ESSAY, LANGUAGE_TASKS)) == len(LANGUAGE_TASKS)  # the hole: no topic read
    assert _paid(NEW, lambda t: ESSAY, LANGUAGE_TASKS) == []
    story = (
        "When Ana moved to Lisbon she could not order a coffee. She learned ten words of Portuguese each "
        "morning on the tram and practised them on the baker who corrected her with a smile. After three "
        "months she understood the radio and after a year she dreamed in her new language. Learning it "
        "had been slow and funny and sometimes lonely but it made the city her home."
    )
    assert _paid(NEW, lambda t: story, LANGUAGE_TASKS[:1]) == [LANGUAGE_TASKS[0].prompt]


@pytest.mark.parametrize(
    ("sentence", "constraint"),
    [
        ("Write a short story about learning a second language.", False),
        ("Write an essay on how children acquire language.", False),
        ("Your ENTIRE response should be in Hindi language, no other language is allowed.", True),
        ("Please reply in the Punjabi language only.", True),
        ("Respond using languages other than English.", True),
    ],
)
def test_language_is_a_cue_only_as_the_response_s(sentence: str, constraint: bool) -> None:
    from rlvr_ifeval.relevance import constraint_sentence

    assert constraint_sentence(sentence, round9=True, round10=True) is constraint
