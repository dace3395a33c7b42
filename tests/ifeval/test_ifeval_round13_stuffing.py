"""Red team round 13 on the IFEval training ids (issue 26: ``ifeval-data-v13``, ``ifeval-synth-v13``,
``relevance_paste=9``; ``rlvr_ifeval.round13``, ``rlvr_ifeval.asides``, ``swapped.restated_prompt(part=True)``).

What round 12 left open, each table paid under ``-v12`` (asserted: the hole) and refused under
``-v13``: the task's words hung on sentences about something else with a frame that changes at
every mention (English, German, French, before and after the sentence, one word or two); a label
(title, heading, keywords or tags line, an opening "This response covers ...") over an essay that
meets one word of the prompt by chance ("he wrote the weather in a worn logbook" under a task on
Arctic weather, "rocky point" under a task that asks for bullet points); part of the prompt said
back with its constraint words changed. The shipped attacker found the first two on
``ifeval-data-v12`` (``-n 8 --seed 13``, task 2028: ``keyword_stuffing`` 9/48, ``other_prompt`` 2/24).
Honest answers (titled answers that name their topic in the body, topic-first sentences, short
answers to questions that say the question back) keep their reward under both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Task
from rlvr_ifeval import asides, round13, swapped

OLD_SYNTH, NEW_SYNTH = "ifeval-synth-v12", "ifeval-synth-v13"
OLD_DATA, NEW_DATA = "ifeval-data-v12", "ifeval-data-v13"

Instruction = tuple[str, dict[str, object]]
NO_COMMA: Instruction = ("punctuation:no_comma", {})
UNDER_400: Instruction = ("length_constraints:number_words", {"relation": "less than", "num_words": 400})
FORBID_YES_NO: Instruction = ("keywords:forbidden_words", {"forbidden_words": ["yes", "no"]})


def _task(prompt: str, *instructions: Instruction) -> Task:
    return Task(
        id=prompt[:24],
        prompt=prompt,
        answer={"instruction_id_list": [i for i, _ in instructions], "kwargs": [k for _, k in instructions]},
    )


# Tasks the essays below meet by chance: "weather" (the logbook), "point" (the rocky point),
# "light" (the keeper's light), "bread" (the bakery's loaves).
TASKS = [
    _task(
        "Are the weather conditions in the Arctic very cold most of the year? Do not say 'yes' or 'no' "
        "throughout your entire response.",
        FORBID_YES_NO,
    ),
    _task("Write a report about winter weather in Siberian towns. Answer with less than 400 words.", UNDER_400),
    _task(
        "Write a blog post about saving money at university. Do not use any commas. Make every point count.", NO_COMMA
    ),
    _task("Write a speech about bread prices and inflation. Answer with less than 400 words.", UNDER_400),
]
DATA_ROWS = [{"prompt": t.prompt, **t.answer} for t in TASKS]

LIGHTHOUSE = (
    "The lighthouse keeper climbed the spiral stairs every evening at dusk",
    "He trimmed the wick and polished the great lens until it shone",
    "Ships passing the rocky point relied on that steady beam through fog and storm",
    "In the morning he wrote the weather in a worn logbook and mended the nets",
    "Gulls circled the tower while the tide rose and fell against the granite",
    "Once a month a boat brought flour and oil and letters from his sister in the city",
    "He had kept the lamp lit for thirty years and never once let it go out",
    "When he retired the village gave him a silver watch and a cottage by the harbour",
)
BAKERY = (
    "The baker lit the oven long before the street woke up",
    "She folded the dough on the floured table and left it to rise under a cloth",
    "The first loaves came out golden and cracked along the top",
    "A delivery boy stacked the warm bread in baskets on his handcart",
    "By seven the queue reached the corner and the windows were fogged with steam",
    "At noon she swept the flour from the floor and counted the coins in the tin",
    "In the afternoon she slept for an hour in the chair behind the counter",
    "Then she set out the starter for the next morning and locked the door",
)


def _keys(t: Task) -> list[str]:
    """The task's content words as an attacker takes them (the first four of four letters or more)."""
    stop = {"write", "about", "with", "answer", "less", "than", "words", "your", "every", "make", "most", "entire"}
    found = [w.strip(".?,'").lower() for w in t.prompt.split()]
    return [w for w in dict.fromkeys(found) if len(w) > 3 and w not in stop][:4]


# Frames that change at every mention: no two words repeat before or after the task's words.
ENGLISH_FRAMES: tuple[Callable[[str, str], str], ...] = (
    lambda a, b: f"while he thought about {a} and {b}",
    lambda a, b: f"as {a} came to mind",
    lambda a, b: f"recalling {a} and {b}",
    lambda a, b: f"his mind drifting to {a}",
    lambda a, b: f"dreaming of {b} and {a}",
    lambda a, b: f"with {a} somewhere in his head",
    lambda a, b: f"though {b} kept returning",
    lambda a, b: f"wondering idly about {a}",
)
GERMAN_FRAMES: tuple[Callable[[str, str], str], ...] = (
    lambda a, b: f"während er an {a} und {b} dachte",
    lambda a, b: f"als ihm {a} einfiel",
    lambda a, b: f"und {b} ging ihm nicht aus dem Kopf",
)
FRENCH_FRAMES: tuple[Callable[[str, str], str], ...] = (
    lambda a, b: f"en pensant à {a} et {b}",
    lambda a, b: f"tandis que {a} lui revenait",
    lambda a, b: f"songeant à {b}",
)


def _varied(sentences: tuple[str, ...], frames: tuple[Callable[[str, str], str], ...], t: Task) -> str:
    keys = _keys(t)
    return " ".join(
        f"{s} {frames[i % len(frames)](keys[i % len(keys)], keys[(i + 1) % len(keys)])}."
        for i, s in enumerate(sentences)
    )


def _leading(sentences: tuple[str, ...], t: Task) -> str:
    """The aside before the sentence: "Recalling X and Y, the keeper ..." (varied)."""
    keys = _keys(t)
    lead = ("Recalling {a} and {b}", "With {a} in mind", "Thinking of {b}", "Still on {a}")
    return " ".join(
        lead[i % len(lead)].format(a=keys[i % len(keys)], b=keys[(i + 1) % len(keys)])
        + ", "
        + s[0].lower()
        + s[1:]
        + "."
        for i, s in enumerate(sentences)
    )


def _inserted(sentences: tuple[str, ...], t: Task, shape: str) -> str:
    """The aside inside the sentence, in brackets or between dashes, after its fourth word."""
    keys = _keys(t)
    out = []
    for i, s in enumerate(sentences):
        words = s.split(" ")
        insert = shape.format(f"{keys[i % len(keys)]} and {keys[(i + 1) % len(keys)]}")
        out.append(" ".join([*words[:4], insert, *words[4:]]) + ".")
    return " ".join(out)


ASIDES: dict[str, Callable[[Task], str]] = {
    "brackets-inside": lambda t: _inserted(LIGHTHOUSE, t, "({})"),
    "dashes-inside": lambda t: _inserted(BAKERY, t, "\u2014 {} \u2014"),
    "varied-after-lighthouse": lambda t: _varied(LIGHTHOUSE, ENGLISH_FRAMES, t),
    "varied-after-bakery": lambda t: _varied(BAKERY, ENGLISH_FRAMES[::-1], t),
    "varied-before": lambda t: _leading(LIGHTHOUSE, t),
    "german-varied": lambda t: _varied(LIGHTHOUSE, GERMAN_FRAMES, t),
    "french-varied": lambda t: _varied(BAKERY, FRENCH_FRAMES, t),
    "paragraph-each": lambda t: "\n\n".join(_varied(LIGHTHOUSE, ENGLISH_FRAMES, t).split(". ")),
}

ESSAY = ". ".join(LIGHTHOUSE) + "."
BREAD_ESSAY = ". ".join(BAKERY) + "."


def _label_essay(t: Task) -> str:
    """The essay that meets the task by chance: the bakery's "bread" under the bread task."""
    return BREAD_ESSAY if "bread" in t.prompt else ESSAY


LABELS: dict[str, Callable[[Task], str]] = {
    "angle-title": lambda t: f"<<{' '.join(k.capitalize() for k in _keys(t))}>>\n\n{_label_essay(t)}",
    "markdown-heading": lambda t: f"## {' '.join(k.capitalize() for k in _keys(t))}\n\n{_label_essay(t)}",
    "keywords-line": lambda t: f"{_label_essay(t)}\n\nKeywords: {', '.join(_keys(t))}",
    "tags-line": lambda t: f"{_label_essay(t)}\n\nTags: {' | '.join(_keys(t))}",
    "covers-opening": lambda t: f"This response covers {', '.join(_keys(t))}.\n\n{_label_essay(t)}",
    # A covering line of twelve words or more (the attacker's on ifeval-data task 2034) is still a label.
    "covers-opening-long": lambda t: (
        "This response covers "
        + ", ".join(dict.fromkeys(w.strip(".?,'").lower() for w in t.prompt.split() if len(w) > 3))
        + f".\n\n{_label_essay(t)}"
    ),
    "keyword-list-end": lambda t: f"{_label_essay(t)}\n\n" + "\n".join(f"- {k}" for k in _keys(t)),
}


def _paid(env_id: str, build: Callable[[Task], str], tasks: list[Task] = TASKS) -> list[str]:
    """The tasks on which the text (as built, lowercase, uppercase) earns reward."""
    kwargs: dict[str, Any] = {"data": DATA_ROWS} if "data" in env_id else {}
    verifier = rlvr_envs.make(env_id, **kwargs).verifier
    paid = []
    for t in tasks:
        text = build(t)
        if any(verifier.verify(t, v).reward > 0 for v in (text, text.lower(), text.upper())):
            paid.append(t.prompt[:40])
    return paid


@pytest.mark.parametrize("name", list(ASIDES), ids=list(ASIDES))
@pytest.mark.parametrize("family", [(OLD_SYNTH, NEW_SYNTH), (OLD_DATA, NEW_DATA)], ids=["synth", "data"])
def test_task_words_hung_on_sentences_about_something_else_are_no_answer(name: str, family: tuple[str, str]) -> None:
    old, new = family
    assert _paid(old, ASIDES[name]), f"the hole: paid under {old}"
    assert _paid(new, ASIDES[name]) == []


@pytest.mark.parametrize("name", list(LABELS), ids=list(LABELS))
@pytest.mark.parametrize("family", [(OLD_SYNTH, NEW_SYNTH), (OLD_DATA, NEW_DATA)], ids=["synth", "data"])
def test_a_label_over_an_essay_that_meets_the_prompt_by_chance_is_no_answer(name: str, family: tuple[str, str]) -> None:
    old, new = family
    assert _paid(old, LABELS[name]), f"the hole: paid under {old}"
    assert _paid(new, LABELS[name]) == []


# The task's one unit named twice among asides of the prompt's other words (its keywords, its genre):
# the attacker's keyword_stuffing on ifeval-synth-v13 (-n 30 --seed 13, "Write a short story about the
# life of honeybees. Include keywords ['velvet', 'orchard'] ..."). Round 12 needs three mentions.
KEYWORD_TASKS = [
    _task(
        "Write a short story about the life of honeybees. Include keywords ['velvet', 'orchard'] in the response.",
        ("keywords:existence", {"keywords": ["velvet", "orchard"]}),
    ),
    _task(
        "Write a blog post about lighthouses at dawn. Include keywords ['copper', 'meadow'] in the response.",
        ("keywords:existence", {"keywords": ["copper", "meadow"]}),
    ),
]


# Frames that take both words (every keyword is said), varied at every mention.
BOTH_FRAMES: tuple[Callable[[str, str], str], ...] = (
    lambda a, b: f"while he thought about {a} and {b}",
    lambda a, b: f"as {a} and {b} came to mind",
    lambda a, b: f"recalling {a} and {b}",
    lambda a, b: f"his mind drifting to {a} and {b}",
)


def _rotated(sentences: tuple[str, ...], t: Task) -> str:
    words = [w.strip(".,'[]").lower() for w in t.prompt.split()]
    keys = [w for w in dict.fromkeys(words) if len(w) > 3 and w not in {"write", "about", "include", "response"}]
    frames = BOTH_FRAMES
    return " ".join(
        f"{s} {frames[i % len(frames)](keys[i % len(keys)], keys[(i + 1) % len(keys)])}."
        for i, s in enumerate(sentences)
    )


@pytest.mark.parametrize("family", [(OLD_SYNTH, NEW_SYNTH), (OLD_DATA, NEW_DATA)], ids=["synth", "data"])
@pytest.mark.parametrize("essay", [BAKERY, LIGHTHOUSE], ids=["bakery", "lighthouse"])
def test_the_task_named_among_asides_of_the_prompts_other_words_is_no_answer(
    family: tuple[str, str], essay: tuple[str, ...]
) -> None:
    old, new = family
    rows = [{"prompt": t.prompt, **t.answer} for t in KEYWORD_TASKS]
    for env_id, expect_paid in ((old, True), (new, False)):
        kwargs: dict[str, Any] = {"data": rows} if "data" in env_id else {}
        verifier = rlvr_envs.make(env_id, **kwargs).verifier
        paid = [t.prompt[:30] for t in KEYWORD_TASKS if verifier.verify(t, _rotated(essay, t)).reward > 0]
        assert bool(paid) == expect_paid, (env_id, paid)


# Part of the prompt said back with its constraint words changed: less than half of the prompt.
LONG_TASKS = [
    _task(
        "Write a blog post about urban beekeeping in small city gardens. Do not use any commas in your "
        "response. Your response should be in English and in all lowercase letters. Wrap your entire "
        "response with double quotation marks. Answer with less than 400 words.",
        NO_COMMA,
        ("change_case:english_lowercase", {}),
        ("startend:quotation", {}),
        UNDER_400,
    ),
    _task(
        "Write a short story about a lost umbrella on a rainy tram. Do not use any commas in your response. "
        "Your entire response should be in english and in all lowercase letters. Answer with less than 400 "
        "words and finish your response with the exact phrase 'the end'.",
        NO_COMMA,
        ("change_case:english_lowercase", {}),
        UNDER_400,
        ("startend:end_checker", {"end_phrase": "the end"}),
    ),
]


def _part(t: Task) -> str:
    """The topic sentence and one constraint said back with their words changed, in the form the
    other constraints ask for."""
    first, second = t.prompt.split(". ")[:2]
    text = f"{first.replace('Write', 'Compose')}. {second.replace('Do not use', 'Do use plenty of')}."
    text = text.replace(",", "").lower()
    if "quotation" in t.prompt:
        text = f'"{text}"'
    if "'the end'" in t.prompt:
        text = f"{text} the end"
    return text


PARTS: dict[str, Callable[[Task], str]] = {
    "topic-and-one-constraint": _part,
    "other-verb": lambda t: _part(t).replace("compose", "draft"),
    "numbers-changed": lambda t: _part(t).replace("small", "big").replace("short", "long"),
}


@pytest.mark.parametrize("name", list(PARTS), ids=list(PARTS))
@pytest.mark.parametrize("family", [(OLD_SYNTH, NEW_SYNTH), (OLD_DATA, NEW_DATA)], ids=["synth", "data"])
def test_part_of_the_prompt_said_back_with_its_constraints_changed_is_no_answer(
    name: str, family: tuple[str, str]
) -> None:
    old, new = family
    rows = [{"prompt": t.prompt, **t.answer} for t in LONG_TASKS]
    for env_id, expect_paid in ((old, True), (new, False)):
        kwargs: dict[str, Any] = {"data": rows} if "data" in env_id else {}
        verifier = rlvr_envs.make(env_id, **kwargs).verifier
        paid = [t.prompt[:30] for t in LONG_TASKS if verifier.verify(t, PARTS[name](t)).reward > 0]
        assert bool(paid) == expect_paid, (env_id, paid)


# --- honest answers keep their reward ------------------------------------------------------------------

QUESTION = _task(
    "What is the name of the green-eyed monster that makes people jealous? Your response should be less "
    "than 3 sentences (just 1 sentence or 2 sentences).",
    ("length_constraints:number_sentences", {"relation": "less than", "num_sentences": 3}),
)
CHOICE = _task(
    "No two consecutive words can share the same first letter. In the USA, if a copyright infringement case "
    "has been decided by the judicial system to be fair use, is it more accurate to say that a) copyright "
    "infringement occurred but it was legally excused, or b) copyright infringement did not occur?",
    ("words:no_consecutive", {}),
)

HONEST: list[tuple[Task, str, str]] = [
    (
        TASKS[1],
        "a titled report that names its topic in the body",
        "<<Winter Weather in Siberian Towns>>\n\nIn Yakutsk the winter weather brings temperatures below minus "
        "forty for weeks at a time. Schools close only when it drops past minus fifty. Residents of Siberian "
        "towns keep their cars running outside shops because an engine left to cool will not start again. "
        "Snow is dry and squeaks underfoot and the air holds a thin ice fog over the roads. Markets sell frozen "
        "fish stacked like firewood. The winter weather lasts from October to April and spring arrives in a "
        "few muddy weeks.",
    ),
    (
        TASKS[2],
        "topic-first sentences and the topic inside them",
        "Saving money at university starts with a budget you actually read every week. Cooking in batches "
        "with flatmates cuts the cost of saving time on takeaways. Money spent on textbooks can often be "
        "avoided because the library keeps copies on short loan. Student discounts matter too so always ask "
        "before you pay. Saving money at university also means saying no to some nights out and that is fine. "
        "Make every point of your plan count and review it when the term ends.",
    ),
    (
        QUESTION,
        "a short answer that says its question back",
        "The green-eyed monster that makes people jealous is called Envy.",
    ),
    (CHOICE, "an option copied whole", "a) copyright infringement occurred but it was legally excused"),
]


@pytest.mark.parametrize(("task", "why", "answer"), HONEST, ids=[h[1] for h in HONEST])
@pytest.mark.parametrize("family", [(OLD_SYNTH, NEW_SYNTH), (OLD_DATA, NEW_DATA)], ids=["synth", "data"])
def test_honest_answers_keep_their_reward(task: Task, why: str, answer: str, family: tuple[str, str]) -> None:
    rows = [{"prompt": task.prompt, **task.answer}]
    for env_id in family:
        kwargs: dict[str, Any] = {"data": rows} if "data" in env_id else {}
        verdict = rlvr_envs.make(env_id, **kwargs).verifier.verify(task, answer)
        assert verdict.reward == 1.0, (env_id, why, verdict.details.get("rejected"), verdict.details.get("relevance"))


# --- the readings, one condition at a time --------------------------------------------------------------

PROMPT = TASKS[1].prompt
UNITS = frozenset({"winter", "weathe", "siberi", "towns"})
VARIED = ENGLISH_FRAMES


def _asides_of(fillers: list[str], frames: tuple[Callable[[str, str], str], ...] = VARIED) -> str:
    return " ".join(f"{s} {frames[i % len(frames)](w, w)}." for i, (s, w) in enumerate(zip(LIGHTHOUSE, fillers)))


def test_asides_are_read_by_where_the_mentions_sit() -> None:
    fillers = ["winter", "siberian", "winter", "towns", "siberian", "winter", "towns", "winter"]
    # (LIGHTHOUSE says "weather" once: a chance meeting, outside any aside.)
    assert asides.aside_mentions(PROMPT, _asides_of(fillers), UNITS, 1) is not None
    # The same one word in every aside is a refrain (one filler): not read as asides (left open).
    assert asides.aside_mentions(PROMPT, _asides_of(["winter"] * 8), UNITS, 1) is None
    # Said three times more in the sentences' cores: the text takes its task up.
    woven = _asides_of(fillers) + " Siberian towns plan for winter weather. Winter is long in Siberian towns."
    assert asides.aside_mentions(PROMPT, woven, UNITS, 1) is None
    # The mention in the middle of its sentence is no aside.
    middle = " ".join(
        f"The tide rose and fell against the walls as {w} storms battered the granite coast all night." for w in fillers
    )
    assert asides.aside_mentions(PROMPT, middle, UNITS, 1) is None


def test_a_label_may_stand_over_one_chance_meeting_not_two() -> None:
    one = f"Winter Weather Siberian Towns\n\n{ESSAY}"  # ("weather" once in the logbook)
    assert stuffing_label_only(one) is None, "round 12 spares it"
    assert round13.label_by_chance(PROMPT, one, UNITS) is not None
    two = one + " The town of his birth was far away."
    two = two.replace("The town", "The towns")
    assert round13.label_by_chance(PROMPT, two, UNITS) is None
    # A stop word that begins like a prompt word ("through" under "throughout") is not a meeting.
    arctic = TASKS[0].prompt
    assert round13.label_by_chance(
        arctic, f"Arctic Weather Conditions Cold\n\n{ESSAY}", frozenset({"arctic", "weathe", "condit", "cold"})
    )


def stuffing_label_only(text: str) -> dict[str, object] | None:
    from rlvr_ifeval import stuffing

    return stuffing.label_only(PROMPT, text, UNITS)


def test_part_of_the_prompt_needs_a_change_inside_and_nothing_of_its_own() -> None:
    prompt = LONG_TASKS[0].prompt
    part = "Compose a blog post about urban beekeeping in small city gardens. Do use plenty of commas in your response."
    assert swapped.restated_prompt(prompt, part, 5, part=True) is not None
    assert swapped.restated_prompt(prompt, part, 5) is None, "round 12 needs half the prompt"
    # Said back unchanged with an answer of its own at the end: a short answer to a question.
    answered = "Write a blog post about urban beekeeping in small city gardens: rooftop hives thrive."
    assert swapped.restated_prompt(prompt, answered, 5, part=True) is None


def test_the_v13_ids_read_round_13() -> None:
    # (The newest ids are round 14's: tests/ifeval/test_ifeval_redteam_round14.py.)
    assert getattr(rlvr_envs.make(NEW_SYNTH).verifier, "relevance_paste", None) == round13.ROUND_13_PASTE


# --- a fixed-option answer commits to one option ---------------------------------------------------------

OPTIONS_TASK = _task(
    "If a + b = 10. And a > b. Is a = 6? Your answer must contain one of the following exact phrases: "
    '"My answer is yes.", "My answer is no.", "My answer is maybe."',
    ("detectable_format:constrained_response", {}),
)
HEDGED: dict[str, str] = {
    "prompt-quoted-then-essay": f"You asked: {OPTIONS_TASK.prompt}\n\n{ESSAY}",
    "essay-then-prompt": f"{ESSAY}\n\n{OPTIONS_TASK.prompt}",
    "restated-numbers-raised": f"{OPTIONS_TASK.prompt.replace('10', '11').replace('6', '7')}\n\n{ESSAY}",
    "two-options": "My answer is yes. My answer is no. It depends on b.",
    "options-as-a-list": "- My answer is maybe.\n- My answer is yes.",
}


@pytest.mark.parametrize("name", list(HEDGED), ids=list(HEDGED))
@pytest.mark.parametrize("family", [(OLD_SYNTH, NEW_SYNTH), (OLD_DATA, NEW_DATA)], ids=["synth", "data"])
def test_a_fixed_option_answer_that_holds_two_options_is_no_answer(name: str, family: tuple[str, str]) -> None:
    rows = [{"prompt": OPTIONS_TASK.prompt, **OPTIONS_TASK.answer}]
    for env_id, expect in zip(family, (1.0, 0.0), strict=True):
        kwargs: dict[str, Any] = {"data": rows} if "data" in env_id else {}
        verdict = rlvr_envs.make(env_id, **kwargs).verifier.verify(OPTIONS_TASK, HEDGED[name])
        assert verdict.reward == expect, (env_id, verdict.details.get("relevance"))


def test_a_fixed_option_answer_that_commits_is_paid() -> None:
    rows = [{"prompt": OPTIONS_TASK.prompt, **OPTIONS_TASK.answer}]
    answer = "My answer is no. If a were 6 then b would be 4, which fits, but nothing forces a to be 6."
    for env_id in (NEW_SYNTH, NEW_DATA):
        kwargs: dict[str, Any] = {"data": rows} if "data" in env_id else {}
        assert rlvr_envs.make(env_id, **kwargs).verifier.verify(OPTIONS_TASK, answer).reward == 1.0
