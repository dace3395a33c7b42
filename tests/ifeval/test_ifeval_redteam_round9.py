"""Red team round 9 on the IFEval training ids (issue 26: ``ifeval-data-v9``, ``ifeval-synth-v9``,
``relevance_paste=5``): constraints satisfied, task ignored, written as a policy would after round 8
took copies of the prompt out:

* **the request said back in other words**: "you wanted ... regarding <topic>", "as requested,
  below is ...", in French, Spanish, German, Italian, Russian, at the start, at the end, as a
  markdown heading or a quote, then an essay on something else (``rlvr_ifeval.restated``);
* **a template that fits any prompt**: the whole response is talk about the request around the
  topic's words ("Here you go ... just as you asked. Hope this helps!"), plus a word or two;
* **"a letter to ..." read as a constraint**: the topic of "Write a letter to a friend about X"
  was never asked for (``relevance.constraint_sentence(round9=True)``);
* **one sentence for a long form round 8 let by**: "a short blog post" ("short" lifted the floor),
  a rubric, a resume, a description, a cover letter under a cap on capital words or on a letter's
  count (a cap on anything was read as a bound on the length): ``genre.too_short(round9=True)``.

Each hostile class pays under ``-v8`` on some tasks (the hole, measured here) and on none under
``-v9``; the honest rows (answers that open or close with request talk, short verse after "Here is
a haiku ...") keep their reward. Labelled-good answers refused beyond the guard: 3 of 493 under both
``-v8`` and ``-v9`` (tests/ifeval/test_ifeval_contrast.py); the whole-set sweep is
``bench/ifeval_probes.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import rlvr_envs
from rlvr_envs.types import Task
from rlvr_ifeval.own_text import RESTATED, own_text
from rlvr_ifeval.relevance import constraint_sentence, task_units
from rlvr_ifeval.restated import restated_spans

OLD, NEW = "ifeval-synth-v8", "ifeval-synth-v9"

ESSAY = (
    "The old ferry left the harbour at dawn with a cargo of timber and three sleepy passengers. "
    "Gulls followed it past the breakwater and the captain sang to himself at the wheel. "
    "By noon the fog had lifted and the island rose out of the sea like the back of a whale. "
    "The passengers ate bread and cheese on the deck and watched the water turn from grey to green. "
    "When the ferry reached the little pier the whole village came down to meet it because the mail "
    "was on board and nobody had heard from the mainland in a week. The captain tied up and lit his "
    "pipe and said the crossing had been the calmest of the year."
)
"""Off-topic for every task below: no commas, 120 words."""

Instruction = tuple[str, dict[str, object]]
NO_COMMA: Instruction = ("punctuation:no_comma", {})
UNDER_400: Instruction = ("length_constraints:number_words", {"relation": "less than", "num_words": 400})
OVER_60: Instruction = ("length_constraints:number_words", {"relation": "at least", "num_words": 60})
LOWER: Instruction = ("change_case:english_lowercase", {})


def _task(prompt: str, *instructions: Instruction) -> Task:
    return Task(
        id=prompt[:24],
        prompt=prompt,
        answer={"instruction_id_list": [i for i, _ in instructions], "kwargs": [k for _, k in instructions]},
    )


TASKS = [
    _task("Write a review about solar panels for homes. Answer with less than 400 words.", UNDER_400),
    _task("Write a blog post about keeping backyard chickens. Your response must not contain commas.", NO_COMMA),
    _task("Write a product description about a folding bicycle. Answer with less than 400 words.", UNDER_400),
    _task("Write a short story about a lost umbrella. Do not use any commas in your response.", NO_COMMA),
    _task("Write an essay about the history of chess. Answer with at least 60 words.", OVER_60),
    _task("Write a speech about volunteering at animal shelters. Answer with less than 400 words.", UNDER_400),
    _task("Write a poem about winter mornings. Your entire response should be in lowercase letters.", LOWER),
    _task("Write a short blog post about a weekend in Lisbon. Answer with less than 300 words.", UNDER_400),
    _task("Write a tweet about a new bakery downtown. Do not use any commas in your response.", NO_COMMA),
    _task("Write a short summary about how tides work. Do not use any commas in your response.", NO_COMMA),
]


def _topic(t: Task) -> str:
    return t.prompt.split(". ")[0].split(" about ")[1]


def _form(t: Task) -> str:
    return t.prompt.split(" about ")[0].removeprefix("Write ").removeprefix("a ").removeprefix("an ")


def _paid(env_id: str, build: Callable[[Task], str], tasks: list[Task] = TASKS) -> list[str]:
    verifier = rlvr_envs.make(env_id).verifier
    paid = []
    for t in tasks:
        text = build(t)
        if any(verifier.verify(t, v).reward > 0 for v in (text, text.lower())):
            paid.append(t.prompt)
    return paid


# --- the request said back in other words, then something else ----------------------------------

RESTATED_ESSAYS: dict[str, Callable[[Task], str]] = {
    "you-wanted": lambda t: f"You wanted a {_form(t)} regarding {_topic(t)}. Here it is.\n\n{ESSAY}",
    "as-requested-below": lambda t: f"As requested below is my take on {_topic(t)}:\n\n{ESSAY}",
    "closing-line": lambda t: f"{ESSAY}\n\n(That was the {_form(t)} on {_topic(t)} you requested.)",
    "both-ends": lambda t: f"Your request: {_topic(t)}.\n\n{ESSAY}\n\nI hope this helps with {_topic(t)}!",
    "padded": lambda t: (
        f"Just as you asked: a thoughtful and lovingly polished {_form(t)} regarding {_topic(t)}.\n\n{ESSAY}"
    ),
    "heading": lambda t: f"## Here is your {_form(t)}: {_topic(t)}\n\n{ESSAY}",
    "quote": lambda t: f"> your brief: {_topic(t)}\n\n{ESSAY}",
    "french": lambda t: f"Vous m'avez demandé un texte sur {_topic(t)}. Voici.\n\n{ESSAY}",
    "spanish": lambda t: f"Me pediste algo sobre {_topic(t)}. Aquí está.\n\n{ESSAY}",
    "german": lambda t: f"Hier ist der Text über {_topic(t)} wie gewünscht.\n\n{ESSAY}",
    "italian": lambda t: f"Ecco il testo su {_topic(t)} come richiesto.\n\n{ESSAY}",
    "russian": lambda t: f"Вот текст про {_topic(t)}, как вы просили.\n\n{ESSAY}",
}


@pytest.mark.parametrize("name", list(RESTATED_ESSAYS), ids=list(RESTATED_ESSAYS))
def test_the_request_said_back_then_something_else_is_no_answer(name: str) -> None:
    assert _paid(NEW, RESTATED_ESSAYS[name]) == []


def test_the_request_said_back_was_paid_before_round_9() -> None:
    paid = {name: len(_paid(OLD, build)) for name, build in RESTATED_ESSAYS.items()}
    assert all(n >= 3 for n in paid.values()), paid


# --- a template that fits any prompt -----------------------------------------------------------------

TEMPLATES: dict[str, Callable[[Task], str]] = {
    "here-you-go": lambda t: f"Here you go: a {_form(t)} about {_topic(t)} just as you asked. Hope this helps!",
    "as-requested": lambda t: f"As requested: {_topic(t)}. Let me know if you need anything else.",
    "done-enjoy": lambda t: f"I have written the {_form(t)} on {_topic(t)} as you wished. Enjoy!",
    "french": lambda t: f"Voici le {_form(t)} sur {_topic(t)} comme demandé. J'espère que cela vous aide.",
    "spanish": lambda t: f"Aquí tienes lo que pediste sobre {_topic(t)}. Espero que te guste.",
    "markdown": lambda t: f"**Your request:** {_topic(t)}\n\n*Done as requested.*",
}


@pytest.mark.parametrize("name", list(TEMPLATES), ids=list(TEMPLATES))
def test_a_template_around_the_topic_is_no_answer(name: str) -> None:
    assert _paid(NEW, TEMPLATES[name]) == []


def test_the_templates_were_paid_before_round_9() -> None:
    # (a template in French or Spanish is refused already: the prompt asks for English)
    paid = {name: len(_paid(OLD, build)) for name, build in TEMPLATES.items() if name not in ("french", "spanish")}
    assert all(n >= 2 for n in paid.values()), paid


# --- "a letter to ..." is a task, not a constraint on letters ---------------------------------------

LETTERS = [
    _task("Write a letter to a friend about time management. Answer with at least 60 words.", OVER_60),
    _task("Write a letter to a friend about astronomy. Answer with less than 400 words.", UNDER_400),
    _task("Write a letter for a child about dinosaurs. Do not use any commas in your response.", NO_COMMA),
]


def test_a_letter_s_topic_is_asked_for() -> None:
    assert len(_paid(OLD, lambda t: ESSAY, LETTERS)) == len(LETTERS)  # the hole: no topic was read
    assert _paid(NEW, lambda t: ESSAY, LETTERS) == []
    for t in LETTERS:
        assert not task_units(t.prompt, (), round9=False).units
        assert task_units(t.prompt, (), round9=True).units


@pytest.mark.parametrize(
    ("sentence", "constraint"),
    [
        ("Write a letter to a friend about gardening.", False),
        ("Draft a letter for the school board about lunches.", False),
        ("Your entire response should be in lowercase letters.", True),
        ("Use at least 300 letters in your answer.", True),
        ("Answer with words of fewer than 6 letters.", True),
        ("Each word must start with a capital letter.", True),
    ],
)
def test_letters_as_characters_stay_a_constraint(sentence: str, constraint: bool) -> None:
    assert constraint_sentence(sentence, round9=True) is constraint


# --- honest answers keep their reward ----------------------------------------------------------------

HONEST: list[tuple[Task, str, str]] = [
    (
        TASKS[0],
        "opens with 'here is' and answers",
        "Here is my review about solar panels for homes. We fitted twelve panels on our south roof last "
        "spring and the electricity bill has fallen by two thirds. The installers took two days and the "
        "inverter hums quietly in the garage. On cloudy weeks output drops a lot so we still buy power in "
        "winter. The panels paid for a third of their price in the first year. I would buy them again.",
    ),
    (
        TASKS[1],
        "closes with 'I hope this helps'",
        "Backyard chickens are easy to keep if you give them a dry coop and a secure run. Four hens lay "
        "about two dozen eggs a week in summer. Feed them layer pellets and kitchen scraps and let them "
        "scratch in the garden for bugs. Lock the coop at dusk because foxes visit every night. "
        "I hope this helps you start your own flock!",
    ),
    (
        _task("Write a haiku about autumn leaves. Do not use any commas in your response.", NO_COMMA),
        "a haiku after 'Here is a haiku about ...'",
        "Here is a haiku about autumn leaves:\n\nred and gold drift down\nthe maple lets go softly\nwind carries them home",
    ),
    (
        LETTERS[0],
        "a letter that names its topic",
        "Dear Sam\n\nYou asked me how I manage my time now that I work from home. I plan each week on Sunday "
        "evening and block two hours every morning for deep work with my phone in another room. Email waits "
        "until after lunch. Time management is mostly saying no to small things so the big ones get done. "
        "Let me know how your new job is going.\n\nBest wishes\nAlex",
    ),
    (
        TASKS[3],
        "a story that says 'as you asked' and tells it",
        "As you asked here is a story. Mara left her red umbrella on the number nine bus. It rode to the "
        "depot and then to the airport where a pilot borrowed it in a storm. The pilot flew to Lisbon and "
        "left it in a café. A waiter gave it to a girl who was walking home in the rain. Years later Mara "
        "saw the same red umbrella in a photo from Lisbon and laughed.",
    ),
]


@pytest.mark.parametrize(("task", "why", "response"), HONEST, ids=[h[1] for h in HONEST])
def test_honest_answers_keep_their_reward(task: Task, why: str, response: str) -> None:
    verdict = rlvr_envs.make(NEW).verifier.verify(task, response)
    assert verdict.reward == 1, (why, verdict.details)


def test_the_pieces_read_what_they_should() -> None:
    prompt = TASKS[0].prompt
    said_back = "You wanted a review regarding solar panels. Here it is."
    assert restated_spans(prompt, said_back)
    kept = own_text(prompt, f"{said_back}\n\n{ESSAY}", restated=True)
    assert RESTATED in kept.removed and "solar" not in kept.text
    # talk that names nothing of the task and brings its own material stays; a toast is no talk
    assert not restated_spans(prompt, "Here is how we cut the electricity bill by two thirds.")
    assert not restated_spans(prompt, "So here's to the panels on our roof.")
    # round 8's reading is unchanged without the flag
    assert RESTATED not in own_text(prompt, f"{said_back}\n\n{ESSAY}").removed


# --- one sentence for a long form round 8 let by ---------------------------------------------------

CAP_CAPITALS: Instruction = (
    "change_case:capital_word_frequency",
    {"capital_frequency": 3, "capital_relation": "less than"},
)
FEW_Z: Instruction = ("keywords:letter_frequency", {"letter": "z", "let_frequency": 3, "let_relation": "less than"})
UNDER_300: Instruction = ("length_constraints:number_words", {"relation": "less than", "num_words": 300})
FORMS = [
    _task("Write a short blog post about a weekend in Porto. Answer with less than 300 words.", UNDER_300),
    _task("Write a brief article about urban foxes. Do not use any commas in your response.", NO_COMMA),
    _task("Create a rubric for grading a science fair poster. Do not use any commas in your response.", NO_COMMA),
    _task("Write a resume for a nurse named Ada Lim. Do not use any commas in your response.", NO_COMMA),
    _task("Write a description of a lighthouse keeper's daily work. Answer with less than 300 words.", UNDER_300),
    _task("Write a cover letter for a barista job. Use fewer than 3 words in all capital letters.", CAP_CAPITALS),
    _task("Write a story about a brave field mouse. The letter z should appear less than 3 times.", FEW_Z),
]
ONE_SENTENCE: dict[str, Callable[[Task], str]] = {
    "claim": lambda t: f"All in all {_topic(t)} matters more than most people think.",
    "two-lines": lambda t: f"{_topic(t).capitalize()} is a subject worth our time.\nThat sums it up.",
    "title-only": lambda t: f"# {_topic(t).title()}\n\nA fresh look.",
}


def _topic_any(t: Task) -> str:
    head = t.prompt.split(". ")[0]
    for cue in (" about ", " for ", " of "):
        if cue in head:
            return head.split(cue, 1)[1]
    return head


@pytest.mark.parametrize("name", list(ONE_SENTENCE), ids=list(ONE_SENTENCE))
def test_a_long_form_is_not_one_sentence_whatever_its_bound(name: str) -> None:
    build = ONE_SENTENCE[name]
    assert _paid(NEW, lambda t: build(Task(id=t.id, prompt=f"x about {_topic_any(t)}. y", answer=None)), FORMS) == []


def test_one_sentence_for_those_forms_was_paid_before_round_9() -> None:
    build = ONE_SENTENCE["claim"]
    paid = _paid(OLD, lambda t: build(Task(id=t.id, prompt=f"x about {_topic_any(t)}. y", answer=None)), FORMS)
    assert len(paid) >= len(FORMS) - 1, paid


SHORT_HONEST: list[tuple[Task, str]] = [
    (
        FORMS[0],
        "Porto in two days: port lodges across the river at Gaia then the tiled church of Santo Ildefonso. "
        "Eat a francesinha and walk the Ribeira at sunset.",
    ),
    (
        _task("Write a one-sentence story about a lost key. Do not use any commas in your response.", NO_COMMA),
        "The key I lost in 1998 turned up in my daughter's sandbox wearing a tiny crown of moss.",
    ),
    (
        _task("Write a tweet about a new bakery downtown. Do not use any commas in your response.", NO_COMMA),
        "Warm sourdough and cardamom buns at the new bakery on Main Street! Doors open at 7 #fresh",
    ),
]


@pytest.mark.parametrize(("task", "response"), SHORT_HONEST, ids=["short-blog-post", "one-sentence-story", "tweet"])
def test_short_forms_answered_briefly_keep_their_reward(task: Task, response: str) -> None:
    verdict = rlvr_envs.make(NEW).verifier.verify(task, response)
    assert verdict.reward == 1, verdict.details


# Every phrase of the talk pattern is found by the cheap test that decides whether the pattern runs
# (restated.may_talk): one sample a phrase, in the order of restated._TALK.
TALK_SAMPLES = [
    "you asked",
    "you'd like",
    "you wanted",
    "as you requested",
    "your request",
    "here is",
    "the following is",
    "i hope this helps",
    "let me know",
    "happy to help",
    "i have written",
    "that was my answer",
    "per instructed",
    "on request",
    "gladly",
    "anything else",
    "vous m'avez demandé",
    "voici",
    "comme demandé",
    "votre demande",
    "j'espère que cela",
    "me pediste",
    "aquí tienes",
    "como pediste",
    "tu solicitud",
    "espero que esto",
    "ecco",
    "du hast mich darum gebeten",
    "hier ist",
    "wie gewünscht",
    "deine anfrage",
    "je vroeg",
    "вы просили",
    "вот",
    "по вашей просьбе",
]


def test_the_cheap_test_finds_every_talk_phrase() -> None:
    from rlvr_ifeval.restated import _TALK, REQUEST_TALK, may_talk

    assert len(TALK_SAMPLES) == len(_TALK)
    for sample, phrase in zip(TALK_SAMPLES, _TALK, strict=True):
        assert REQUEST_TALK.fullmatch(sample), (sample, phrase)
        assert may_talk(f"well, {sample}!"), sample
    assert not may_talk("the ferry left the harbour at dawn with timber")
