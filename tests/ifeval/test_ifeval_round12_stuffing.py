"""Red team round 12 on the IFEval training ids (issue 26: ``ifeval-data-v12``, ``ifeval-synth-v12``,
``relevance_paste=8``): the task's words stuffed into a text on something else, the prompt said
back with its constraint words changed, and two alphabets word by word (``rlvr_ifeval.stuffing``).

The shipped attacker (``rlvr-envs redteam ifeval-synth-v11 -n 8 --seed 12``) found
``keyword_stuffing`` 11/48 paid on 4/8 tasks, ``constraint_swap`` 4/40 and ``script_swap`` 1/40.
The rows here go beyond its phrasings: other frames before or after the task's words, other
essays, German and French frames, a frame in list items, markdown headings, tag lines and keyword
lists at either end, Greek as well as Cyrillic, every third word, look-alike letters inside
words, the restatement framed in other words, numbers raised, said twice. Each table is paid under
``-v11`` (asserted: the hole) and refused under ``-v12``; honest answers (a chorus, a list with a
repeated phrase, a titled answer, a bilingual phrase, units in Greek letters, repeat-then-answer,
a rewrite) keep their reward under both.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import rlvr_envs
from rlvr_envs.types import Task
from rlvr_ifeval import stuffing

OLD_SYNTH, NEW_SYNTH = "ifeval-synth-v11", "ifeval-synth-v12"
OLD_DATA, NEW_DATA = "ifeval-data-v11", "ifeval-data-v12"

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
    _task("Write a news report about choosing a laptop. Answer with less than 400 words.", UNDER_400),
    _task("Write a blog post about urban beekeeping. Do not use any commas in your response.", NO_COMMA),
    _task("Write a diary entry about why sleep matters. Answer with at least 60 words.", OVER_60),
    _task("Write a travel guide entry about the northern lights. Answer with less than 400 words.", UNDER_400),
    _task("Write a speech about recycling plastic waste. Do not use any commas in your response.", NO_COMMA),
    _task("Write an essay about the history of the bicycle. Answer with at least 60 words.", OVER_60),
]

LIGHTHOUSE = (
    "The lighthouse keeper climbed the spiral stairs every evening at dusk",
    "He trimmed the wick and polished the great lens until it shone",
    "Ships passing the rocky point relied on that steady beam through fog and storm",
    "In the morning he wrote the weather in a worn logbook and mended the nets",
    "Gulls circled the tower while the tide rose and fell against the granite",
    "Once a month a boat brought flour and oil and letters from his sister in the city",
    "He had kept the light for thirty years and never once let it go out",
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
ESSAY = ". ".join(LIGHTHOUSE) + "."


def _words(t: Task) -> list[str]:
    """The prompt's topic words, as the attacker takes them (the words after "about")."""
    topic = t.prompt.split(". ")[0].split(" about ")[1]
    return [w for w in topic.split() if len(w) > 3]


def _asides(sentences: tuple[str, ...], frame: Callable[[str, str], str], t: Task) -> str:
    keys = _words(t) + t.prompt.split(" about ")[0].split()[-2:]
    out = [f"{s} {frame(keys[i % len(keys)], keys[(i + 1) % len(keys)])}." for i, s in enumerate(sentences)]
    return " ".join(out)


STUFFED: dict[str, Callable[[Task], str]] = {
    "while-he-thought": lambda t: _asides(LIGHTHOUSE, lambda a, b: f"while he thought about {a} and {b}", t),
    "as-she-wondered": lambda t: _asides(BAKERY, lambda a, b: f"as she wondered about {a} and {b}", t),
    "remembering": lambda t: _asides(LIGHTHOUSE, lambda a, b: f"remembering all he knew of {a} and {b}", t),
    "frame-after": lambda t: _asides(LIGHTHOUSE, lambda a, b: f"and {a} and {b} were never far from his mind", t),
    "german-frame": lambda t: _asides(LIGHTHOUSE, lambda a, b: f"während er an {a} und {b} dachte", t),
    "french-frame": lambda t: _asides(BAKERY, lambda a, b: f"en pensant à {a} et {b}", t),
    "list-items": lambda t: "\n".join(
        f"- {s}" for s in _asides(LIGHTHOUSE, lambda a, b: f"while he thought about {a} and {b}", t).split(". ")
    ),
    "paragraph-each": lambda t: "\n\n".join(_asides(BAKERY, lambda a, b: f"thinking of {a} and {b}", t).split(". ")),
}


def _paid(env_id: str, build: Callable[[Task], str], tasks: list[Task] = TASKS) -> list[str]:
    verifier = rlvr_envs.make(env_id).verifier
    paid = []
    for t in tasks:
        text = build(t)
        if any(verifier.verify(t, v).reward > 0 for v in (text, text.lower(), text.upper())):
            paid.append(t.prompt)
    return paid


@pytest.mark.parametrize("name", list(STUFFED), ids=list(STUFFED))
def test_task_words_carried_by_a_repeated_frame_are_no_answer(name: str) -> None:
    assert _paid(OLD_SYNTH, STUFFED[name]), "the hole: paid under -v11"
    assert _paid(NEW_SYNTH, STUFFED[name]) == []


def _keys(t: Task) -> list[str]:
    return [*_words(t), "tips", "guide"]


LABELLED: dict[str, Callable[[Task], str]] = {
    "angle-title": lambda t: f"<<{' '.join(w.capitalize() for w in _keys(t))}>>\n\n{ESSAY}",
    "markdown-heading": lambda t: f"# {' '.join(w.capitalize() for w in _words(t))}\n\n{ESSAY}",
    "keywords-line": lambda t: f"{ESSAY}\n\nKeywords: {', '.join(_keys(t))}",
    "tags-line": lambda t: f"{ESSAY}\n\nTags: {' | '.join(_keys(t))}",
    "keyword-list-end": lambda t: ESSAY + "\n\n" + "\n".join(f"- {w}" for w in _keys(t)),
    "topic-label-start": lambda t: f"Topic: {' '.join(_words(t))}\nGenre: as asked\n\n{ESSAY}",
}


@pytest.mark.parametrize("name", list(LABELLED), ids=list(LABELLED))
def test_a_generated_task_named_only_in_a_label_is_no_answer(name: str) -> None:
    assert _paid(OLD_SYNTH, LABELLED[name]), "the hole: paid under -v11"
    assert _paid(NEW_SYNTH, LABELLED[name]) == []


CYRILLIC = dict(zip("abcdefghijklmnopqrstuvwxyz", "абцдефгхийклмнопярстувшхыз"))
GREEK = dict(zip("abcdefghijklmnopqrstuvwxyz", "αβψδεφγηιξκλμνοπ;ρστθωςχυζ"))
LOOKALIKE = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441"}


def _swap(text: str, table: dict[str, str], every: int, start: int = 0) -> str:
    def word(i: int, w: str) -> str:
        if (i - start) % every:
            return w
        return "".join(table.get(ch, ch) for ch in w)

    return " ".join(word(i, w) for i, w in enumerate(text.split(" ")))


def _stuffed(t: Task) -> str:
    return STUFFED["while-he-thought"](t)


def _topical_essay(t: Task) -> str:
    """The essay under its task's words in a sentence of their own in each paragraph: round 10
    does not refuse it (the task named in every paragraph), the alphabets do."""
    topic = " ".join(_words(t))
    return " ".join(f"{s} and {topic} mattered." for s in LIGHTHOUSE)


MIXED: dict[str, Callable[[Task], str]] = {
    "cyrillic-every-other": lambda t: _swap(_stuffed(t), CYRILLIC, 2),
    "cyrillic-every-other-odd": lambda t: _swap(_stuffed(t), CYRILLIC, 2, 1),
    "greek-every-other": lambda t: _swap(_stuffed(t), GREEK, 2),
    "cyrillic-every-third": lambda t: _swap(_topical_essay(t), CYRILLIC, 3),
    "lookalike-letters": lambda t: "".join(LOOKALIKE.get(ch, ch) for ch in _topical_essay(t)),
}


@pytest.mark.parametrize("name", list(MIXED), ids=list(MIXED))
def test_two_alphabets_word_by_word_are_no_prose(name: str) -> None:
    assert _paid(NEW_SYNTH, MIXED[name]) == []


def test_two_alphabets_were_paid_before_round_12() -> None:
    paid = {name: len(_paid(OLD_SYNTH, build)) for name, build in MIXED.items()}
    assert sum(paid.values()) >= 3, paid


def _swap_constraints(prompt: str) -> str:
    swaps = {"less than": "more than", "at least": "at most", "Do not use": "Use", "commas": "colons"}
    for a, b in swaps.items():
        prompt = prompt.replace(a, b)
    return "".join(str(int(ch) + 1) if ch.isdigit() and ch != "0" else ch for ch in prompt)


RESTATED: dict[str, Callable[[Task], str]] = {
    "bare": lambda t: _swap_constraints(t.prompt),
    "framed": lambda t: f"Here is the task restated: {_swap_constraints(t.prompt)}",
    "lowercase": lambda t: _swap_constraints(t.prompt).lower(),
    "twice": lambda t: f"{_swap_constraints(t.prompt)}\n\n{_swap_constraints(t.prompt)}",
    "french-frame": lambda t: f"Voici la consigne reformulée : {_swap_constraints(t.prompt)}",
    "most-words-changed": lambda t: (
        _swap_constraints(t.prompt)
        .replace("Write", "Compose")
        .replace("blog post", "web article")
        .replace("guide entry", "brochure page")
        .replace("Answer", "Respond")
        .replace("keep", "make")
        .replace("contain", "hold")
    ),
}
"""The synth id judges responses of 20 words or more: a restated prompt of 20-30 words."""
LONG_TASKS = [
    _task(
        "Write a short blog post about urban beekeeping for people who live in small flats in big cities. "
        "Your entire response should be in English and contain at least 3 sentences. Do not use any commas in your response.",
        NO_COMMA,
    ),
    _task(
        "Write a travel guide entry about seeing the northern lights in the far north of Norway in winter. "
        "Answer with less than 400 words and keep every sentence short and friendly for families.",
        UNDER_400,
    ),
]


@pytest.mark.parametrize("name", list(RESTATED), ids=list(RESTATED))
def test_the_prompt_said_back_with_its_constraints_changed_is_no_answer(name: str) -> None:
    assert _paid(OLD_SYNTH, RESTATED[name], LONG_TASKS), "the hole: paid under -v11"
    assert _paid(NEW_SYNTH, RESTATED[name], LONG_TASKS) == []


# --- ifeval-data: the same rules on your own prompts (a title or label alone is not judged there) ---

DATA_TASKS = [*TASKS, *LONG_TASKS]
DATA_ROWS = [{"prompt": t.prompt, **t.answer} for t in DATA_TASKS]


def _paid_data(env_id: str, build: Callable[[Task], str], tasks: list[Task]) -> list[str]:
    verifier = rlvr_envs.make(env_id, data=DATA_ROWS).verifier
    return [t.prompt for t in tasks if any(verifier.verify(t, v).reward > 0 for v in (build(t), build(t).lower()))]


@pytest.mark.parametrize(
    ("name", "build", "tasks"),
    [
        ("frame", STUFFED["while-he-thought"], TASKS),
        ("frame-after", STUFFED["frame-after"], TASKS),
        ("mixed", MIXED["cyrillic-every-other"], TASKS),
        ("restated", RESTATED["framed"], LONG_TASKS),
    ],
    ids=["frame", "frame-after", "mixed", "restated"],
)
def test_the_data_id_refuses_them_too(name: str, build: Callable[[Task], str], tasks: list[Task]) -> None:
    assert _paid_data(OLD_DATA, build, tasks), "the hole: paid under ifeval-data-v11"
    assert _paid_data(NEW_DATA, build, tasks) == []


# --- honest answers keep their reward ------------------------------------------------------------------

HONEST: list[tuple[Task, str, str]] = [
    (
        TASKS[0],
        "a news report that names its topic in many ways",
        "Shoppers choosing a laptop this autumn face more options than ever. Retailers say the most common "
        "question is how much memory a laptop needs. Experts advise at least sixteen gigabytes for anyone who "
        "edits photos or keeps many browser tabs open. Battery life is the next concern: a light laptop that "
        "lasts a full working day is worth paying for if you travel. Screens matter too and a matte panel is "
        "easier on the eyes in bright offices. Finally check the ports before choosing because adapters add "
        "cost and clutter. Most buyers keep a laptop for four or five years so the extra research pays off.",
    ),
    (
        TASKS[1],
        "a song whose chorus repeats the topic",
        "Verse one\nUp on the roof where the city hums\nThe hives wake early when the summer comes\n\n"
        "Chorus\nUrban beekeeping on a concrete hill\nUrban beekeeping and the bees work still\n"
        "Urban beekeeping where the lindens grow\nHoney from the city and the streets below\n\n"
        "Verse two\nWe smoke the entrance and we lift the frame\nNo two colonies are quite the same\n"
        "The queen is laying and the brood is sealed\nThe park is humming like a clover field\n\n"
        "Chorus\nUrban beekeeping on a concrete hill\nUrban beekeeping and the bees work still\n"
        "Urban beekeeping where the lindens grow\nHoney from the city and the streets below",
    ),
    (
        TASKS[4],
        "a list that repeats one phrase",
        "Friends and neighbours we can cut plastic waste in our town.\n"
        "First we can sort plastic waste at home and rinse every bottle.\n"
        "Second we can bring plastic waste to the new depot by the station.\n"
        "Third we can ask shops to take back plastic waste from packaging.\n"
        "Fourth we can teach our children why recycling plastic matters.\n"
        "Every bottle we recycle is one less bottle in the river and one less bag on the beach. "
        "Let us start this week and make our town cleaner for everyone who lives here.",
    ),
    (
        TASKS[3],
        "a bilingual phrase in a travel guide",
        "The Northern Lights in Murmansk\n\nLocals call the northern lights северное сияние and they are "
        "proud of them. The best months are December to March when the nights are long and dark. Leave "
        "the city lights behind and drive thirty minutes towards Teriberka for a clear view. Check the "
        "aurora forecast in the afternoon and dress in warm layers because temperatures fall to minus twenty. "
        "A tripod and a long exposure will capture colours your eyes barely see. Most tours pick guests up "
        "from their hotels at nine in the evening and return after two in the morning.",
    ),
    (
        TASKS[5],
        "a titled essay with a Greek word and a unit in Greek letters",
        "# The History of the Bicycle\n\nThe bicycle began in 1817 as the running machine of Karl Drais. "
        "Pedals arrived in France in the 1860s and the tall penny farthing followed. Its big front wheel "
        "made it fast and dangerous. The safety bicycle of the 1880s with its chain drive and equal wheels "
        "changed everything. Greeks still call it ποδήλατο, a foot-driven machine. Modern chains are made to "
        "tolerances of a few μm and a racing bicycle weighs under seven kilograms.",
    ),
]


@pytest.mark.parametrize(("task", "why", "answer"), HONEST, ids=[h[1] for h in HONEST])
def test_honest_answers_keep_their_reward(task: Task, why: str, answer: str) -> None:
    for env_id in (OLD_SYNTH, NEW_SYNTH):
        verdict = rlvr_envs.make(env_id).verifier.verify(task, answer)
        assert verdict.reward == 1.0, (env_id, why, verdict.details.get("rejected"), verdict.details.get("relevance"))


def test_repeat_then_answer_and_rewrites_are_not_restatements() -> None:
    repeat = _task(
        "Is a tomato a fruit or a vegetable? First repeat the request word for word without change, "
        "then give your answer (do not say anything before repeating the request).",
        ("combination:repeat_prompt", {"prompt_to_repeat": "Is a tomato a fruit or a vegetable?"}),
    )
    checkers = stuffing_checkers(repeat)
    assert (
        stuffing.restated_prompt(
            repeat.prompt,
            "Is a tomato a fruit or a vegetable? Botanically a fruit; cooks treat it as a vegetable.",
            5,
            checkers,
        )
        is None
    )
    swapped = (
        "Is a tomato a fruit or a vegetable? Last repeat the answer word for word with change, then give your request "
        "(do say everything after repeating the answer)."
    )
    assert stuffing.restated_prompt(repeat.prompt, swapped, 5, checkers) is not None
    rewrite = 'Rewrite this sentence to sound more formal: "hey can u send me the report by friday thx".'
    assert stuffing.restated_prompt(rewrite, "Could you please send me the report by Friday? Thank you.", 5) is None


def stuffing_checkers(task: Task) -> tuple:
    from rlvr_ifeval.scoring import build_checkers

    return tuple(build_checkers(task.answer["instruction_id_list"], task.answer["kwargs"]))


# --- the readings, one condition at a time --------------------------------------------------------------

UNITS = frozenset({"urban", "beekee"})
PROMPT = TASKS[1].prompt


def test_a_frame_is_a_slot_filled_with_different_task_words() -> None:
    slot = " ".join(
        f"{s} while he thought about {w}." for s, w in zip(LIGHTHOUSE, ["urban", "beekeeping", "urban beekeeping"] * 3)
    )
    assert stuffing.framed_units(PROMPT, slot, UNITS, 1) is not None
    # The same phrase after the same words (a refrain, a list) is one phrase said again.
    phrase = " ".join(f"{s} while he thought about urban beekeeping." for s in LIGHTHOUSE)
    assert stuffing.framed_units(PROMPT, phrase, UNITS, 1) is None
    # A mention outside any frame that holds enough of the task: answered there.
    assert stuffing.framed_units(PROMPT, slot + " Urban beekeeping needs a calm colony.", UNITS, 1) is None
    # A frame the prompt itself uses is the prompt's.
    own = "Write a blog post about urban gardens. Write a blog post about beekeeping hives. Write a blog post about urban beekeeping."
    assert stuffing.framed_units(PROMPT, own, UNITS, 1) is None


def test_a_label_needs_a_body_that_shares_nothing_with_the_prompt() -> None:
    body = ESSAY
    assert stuffing.label_only(PROMPT, f"Urban Beekeeping\n\n{body}", UNITS) is not None
    # The body takes up a word of the prompt ("post", "blog"): a real answer under a title.
    assert stuffing.label_only(PROMPT, f"Urban Beekeeping\n\nIn this post: {body}", UNITS) is None
    # Named in the body too, or too short a body: not a label on someone else's text.
    assert stuffing.label_only(PROMPT, f"Urban Beekeeping\n\n{body} The urban hives hum.", UNITS) is None
    assert stuffing.label_only(PROMPT, "Urban Beekeeping\n\nThe keeper climbed the stairs at dusk.", UNITS) is None


def test_alphabets_switching_word_by_word_but_not_at_a_phrase() -> None:
    english = " ".join(LIGHTHOUSE)
    assert stuffing.mixed_script(PROMPT, _swap(english, CYRILLIC, 2), ()) is not None
    assert stuffing.mixed_script(PROMPT, english + " They call it маяк на скале.", ()) is None
    # A prompt in two alphabets (a translation task) sets none.
    assert stuffing.mixed_script(PROMPT + " Translate маяк.", _swap(english, CYRILLIC, 2), ()) is None


def test_the_round_12_ids_keep_round_12s_level() -> None:
    # (The newest ids are round 13's: tests/ifeval/test_ifeval_round13_stuffing.py.)
    assert getattr(rlvr_envs.make(NEW_SYNTH).verifier, "relevance_paste", None) == stuffing.ROUND_12_PASTE


QUOTED_TASK = _task(
    'Can you expand the following sentences: "I have never seen a localized version of the software. I have seen '
    'an international version."\n\nI would like for there to be exactly 3 paragraphs each separated by three '
    "asterisk symbols (***) and for the word humming to be used at least once.",
    ("length_constraints:number_paragraphs", {"num_paragraphs": 3}),
    ("keywords:frequency", {"relation": "at least", "keyword": "humming", "frequency": 1}),
)
"""IFEval key 2386: the attacker's ``restated-twice`` (``ifeval-data-v12 -n 20 --seed 5``) paid there."""
SWAPPED_2386 = (
    'Can you expand the following words: "I have never seen a localized version of the software. I have seen an '
    'international version."\n\nI would like for there to be roughly 4 sections each separated by three asterisk '
    "symbols (***) and for the word humming to be used at most twice."
)


def test_quoted_material_said_back_word_for_word_is_the_prompts() -> None:
    """The quoted sentence copied as it stands counted as the response's own words."""
    twice = f"{SWAPPED_2386}\n\n{SWAPPED_2386}"
    assert _paid_data(OLD_DATA, lambda t: twice, [QUOTED_TASK]) == [QUOTED_TASK.prompt]
    assert _paid_data(NEW_DATA, lambda t: twice, [QUOTED_TASK]) == []
    expanded = (
        "In all my years of humming along with the program I have never once come across a localized version "
        "of the software.\n***\nIt was never translated for my region or adapted to our date formats and "
        "currency.\n***\nWhat I have seen is the international version which ships in English with the same "
        "menus everywhere."
    )
    assert _paid_data(NEW_DATA, lambda t: expanded, [QUOTED_TASK]) == [QUOTED_TASK.prompt]
