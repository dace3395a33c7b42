"""Red team round 15 on the IFEval training ids (issue 26: ``ifeval-data-v15``, ``ifeval-synth-v15``,
``relevance_paste=11``; ``rlvr_ifeval.round15``): an answer written for another prompt of the env's
data, pasted under this one.

Issue 26: "the same response pasted under a thousand prompts must not score on them". The response
of labelled row j under the prompt of row i (i != j, all 696,390 pairs of the 835 rows, their prompts
the background) was still paid 5,862 times by ``ifeval-data-v14``: a paste that meets a few of its
new task's words by chance passes the overlap rule, and the contrast rule tests only the heaviest
other prompt it meets. The tables go beyond the data's own pairs: an answer written for one prompt
(rooftop beekeeping, a bicycle repair, goat's cheese, a volcano) pasted under a request about a
vegetable garden in the same language (English, German, French, Spanish), with the new task's words
added once each in the middle of sentences, as a clause, at the end, or one of them twice. Each
hostile row is paid under ``-v14`` (asserted: the hole) and refused under ``-v15``; the answers under
their own prompts, and an honest garden guide that mentions bees and a rooftop, are paid under both.
And a short response under a request to write about a topic that holds the topic only in the
request said back word for word (``echoed_topic_only``), in four languages and five frames.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Task
from rlvr_ifeval import round15
from tests.helpers.data import read_jsonl
from tests.ifeval.calibration_rows import flags, labelled_rows

OLD = "ifeval-data-v14"
NEW = "ifeval-data-v15"
AT_LEAST_80 = ("length_constraints:number_words", {"relation": "at least", "num_words": 80})


def _task(prompt: str) -> Task:
    return Task(
        id=prompt[:24], prompt=prompt, answer={"instruction_id_list": [AT_LEAST_80[0]], "kwargs": [AT_LEAST_80[1]]}
    )


# Prompts and the answers written for them (the pastes' homes), in four languages.
HOMES = {
    "en": (
        "Write a blog post about urban beekeeping on city rooftops. Answer with at least 80 words.",
        "Urban beekeeping has spread across city rooftops in the last decade. A rooftop hive needs shelter from the "
        "wind and a source of water close by. The bees forage on street trees, balcony flowers and parks, and "
        "rooftop honey often tastes of linden and clover. Beekeepers inspect each hive every week in spring to check "
        "the queen and the brood. Neighbours worry about stings, but rooftop bees fly high above the street and "
        "rarely bother anyone. A single rooftop hive can give twenty kilos of honey in a good year, and the bees "
        "pollinate the gardens of the whole block.",
    ),
    "de": (
        "Schreibe einen Blogbeitrag über die Reparatur eines Fahrrads in der eigenen Werkstatt. Antworte mit "
        "mindestens 80 Wörtern.",
        "Die Reparatur eines Fahrrads beginnt in der Werkstatt mit einem sauberen Arbeitsplatz. Zuerst prüft man die "
        "Kette, denn eine trockene Kette verschleißt schnell und macht Geräusche. Dann kommen die Bremsen an die "
        "Reihe: Die Bremsbeläge müssen gleichmäßig am Rahmen anliegen. Ein platter Reifen ist die häufigste "
        "Reparatur, und mit Flickzeug und einer Pumpe ist der Schlauch in zehn Minuten wieder dicht. In der "
        "Werkstatt sollte man das Fahrrad in einen Montageständer hängen, damit die Kette und die Bremsen frei "
        "laufen. Nach der Reparatur fährt man eine kurze Runde und prüft die Bremsen noch einmal.",
    ),
    "fr": (
        "Écris un article de blog sur la fabrication du fromage de chèvre à la ferme. Réponds avec au moins 80 mots.",
        "La fabrication du fromage de chèvre commence à la ferme chaque matin avec la traite. Le lait encore tiède "
        "est versé dans une cuve, puis on ajoute la présure pour le faire cailler. Le caillé repose une journée "
        "avant d'être moulé à la louche dans de petits moules percés. Le fromage s'égoutte, on le sale, puis il "
        "part au séchoir où il prend sa croûte. À la ferme, les chèvres broutent dans les prés et leur lait change "
        "de goût avec les saisons. Un bon fromage de chèvre affiné trois semaines devient ferme et garde une note "
        "de noisette, et les clients de la ferme le réservent longtemps à l'avance pour les fêtes de fin d'année.",
    ),
    "es": (
        "Escribe una entrada de blog sobre la erupción de un volcán en una isla. Responde con al menos 80 palabras.",
        "La erupción del volcán comenzó de noche y la isla despertó bajo una lluvia de ceniza. La lava bajó por la "
        "ladera hacia el mar y cortó la carretera de la costa. Los vecinos de la isla fueron evacuados en barcos "
        "mientras el volcán lanzaba columnas de gas y ceniza. Los científicos midieron los temblores y la "
        "temperatura de la lava durante semanas. Cuando la erupción terminó, la ceniza cubría los tejados y los "
        "campos de la isla, y la lava había creado una nueva playa negra donde antes había acantilados.",
    ),
}
# The prompts the answers are pasted under, and two of their task words the paste adds.
TARGETS = {
    "en": (
        "Write a guide about planning a vegetable garden: soil, seeds, watering, compost and the harvest. Answer "
        "with at least 80 words.",
        ("soil", "harvest"),
        "with {0} and {1} in mind",
    ),
    "de": (
        "Schreibe einen Ratgeber über die Planung eines Gemüsegartens: Boden, Samen, Bewässerung, Kompost und "
        "Ernte. Antworte mit mindestens 80 Wörtern.",
        ("Boden", "Ernte"),
        "mit {0} und {1} im Kopf",
    ),
    "fr": (
        "Écris un guide sur la planification d'un potager : le sol, les graines, l'arrosage, le compost et la "
        "récolte. Réponds avec au moins 80 mots.",
        ("sol", "récolte"),
        "en pensant au {0} et à la {1}",
    ),
    "es": (
        "Escribe una guía sobre la planificación de un huerto: el suelo, las semillas, el riego, el compost y la "
        "cosecha. Responde con al menos 80 palabras.",
        ("suelo", "cosecha"),
        "pensando en el {0} y la {1}",
    ),
}
HONEST_GARDEN = (
    "Planning a vegetable garden starts with the soil. Test the soil in early spring and work compost into every "
    "bed. Choose seeds that suit your climate and sow them in rows you can reach without stepping on the soil. "
    "Watering matters most in the first weeks: water the seeds gently every morning. Plant a few flowers between "
    "the rows so the bees from a neighbour's rooftop hive visit and pollinate the beans and squash. Keep adding "
    "compost through the summer, and the harvest will come in waves from July until the first frost. After the "
    "harvest, cover the soil with leaves and plan next year's beds."
)


def _inserted(text: str, sentence: int, words: str) -> str:
    """``words`` put in the middle of the text's ``sentence``-th sentence (no edge, no frame)."""
    sentences = text.split(". ")
    split = sentences[sentence].split()
    split.insert(len(split) // 2, words)
    sentences[sentence] = " ".join(split)
    return ". ".join(sentences)


def _pastes(lang: str) -> Iterator[tuple[str, str]]:
    essay = HOMES[lang][1]
    _, (first, second), clause = TARGETS[lang]
    yield "two-words-mid-sentence", _inserted(_inserted(essay, 1, first), 3, second)
    yield "a-clause", _inserted(essay, 2, clause.format(first, second))


PASTES = {f"{lang}-{name}": text for lang in HOMES for name, text in _pastes(lang)}
PASTES["en-one-word-twice"] = _inserted(_inserted(HOMES["en"][1], 1, "soil"), 4, "soil")
PASTES["en-a-last-sentence"] = HOMES["en"][1] + " Soil and harvest matter too."
PASTES["de-a-last-sentence"] = HOMES["de"][1] + " Boden und Ernte zählen auch."


@pytest.fixture(scope="module")
def verifiers() -> dict[str, Any]:
    """Both ids over IFEval's 541 prompts and the tables' (the background an env over them builds)."""
    prompts = [p for p, _ in HOMES.values()] + [p for p, _, _ in TARGETS.values()]
    tasks = [_task(p) for p in prompts]
    rows = [*read_jsonl("ifeval_input_data.jsonl"), *({"prompt": t.prompt, **t.answer} for t in tasks)]
    return {i: rlvr_envs.make(i, data=rows).verifier for i in (OLD, NEW)}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_an_answer_to_another_prompt_with_task_words_added_is_no_answer(verifiers: dict[str, Any], name: str) -> None:
    task = _task(TARGETS[name[:2]][0])
    assert verifiers[OLD].verify(task, PASTES[name]).reward == 1.0  # the hole
    verdict = verifiers[NEW].verify(task, PASTES[name])
    assert verdict.reward == 0.0
    assert "answered_elsewhere" in verdict.details["relevance"]


@pytest.mark.parametrize("lang", sorted(HOMES))
def test_each_answer_under_its_own_prompt_keeps_its_reward(verifiers: dict[str, Any], lang: str) -> None:
    task = _task(HOMES[lang][0])
    assert [v.verify(task, HOMES[lang][1]).reward for v in verifiers.values()] == [1.0, 1.0]


def test_an_answer_that_mentions_another_prompts_topic_keeps_its_reward(verifiers: dict[str, Any]) -> None:
    task = _task(TARGETS["en"][0])
    assert [v.verify(task, HONEST_GARDEN).reward for v in verifiers.values()] == [1.0, 1.0]


PAIRS_PER_ROW = 4


def test_answers_pasted_between_the_labelled_rows_pay_less() -> None:
    """The response of row j under the prompt of row i (i != j; 4 seeded j for every i, responses of
    80 words or more: the rule reads no shorter one): every pair ``-v15`` pays ``-v14`` pays, and
    ``-v15`` pays fewer (every pair of the 835 rows: the README)."""
    from rlvr_ifeval import contrast
    from rlvr_ifeval.scoring import build_checkers
    from rlvr_ifeval.verifier import IFEvalVerifier

    rows = labelled_rows()
    background = contrast.Background.build(
        (r["prompt"], build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows
    )
    tasks = [
        Task(id=str(i), prompt=r["prompt"], answer={k: r[k] for k in ("instruction_id_list", "kwargs")})
        for i, r in enumerate(rows)
    ]
    rng = random.Random(15)
    pairs = [
        (i, j)
        for i in range(len(rows))
        for j in rng.sample(range(len(rows)), PAIRS_PER_ROW)
        if rows[i]["prompt"] != rows[j]["prompt"] and len(rows[j]["response"].split()) >= 80
    ]
    paid = []
    for env_id in (OLD, NEW):
        verifier = IFEvalVerifier(relevance_background=background, **flags(env_id))
        paid.append({(i, j) for i, j in pairs if verifier.verify(tasks[i], rows[j]["response"]).reward > 0})
    print(f"\npastes paid of {len(pairs)}: -v14 {len(paid[0])}, -v15 {len(paid[1])}")
    assert paid[1] <= paid[0]
    assert len(paid[0]) - len(paid[1]) >= 3


# The request said back word for word, then anything (the attacker's ``constraint_swap`` on
# ``ifeval-synth-v14 -n 30 --seed 15``: "Here is the task restated: Write a summary about volunteering
# at an animal shelter. Hide at most 2 paragraphs in your answer without markdo notwn, i.e. *hideed
# section*."), in four languages and five frames.
HIGHLIGHTS = ("detectable_format:number_highlighted_sections", {"num_highlights": 2})
ECHO_TASKS = {
    "en": "Write a summary about volunteering at an animal shelter. Highlight at least 2 sections in your answer with "
    "markdown, i.e. *highlighted section*.",
    "de": "Schreibe eine Zusammenfassung über ehrenamtliche Arbeit im Tierheim. Hebe mindestens 2 Abschnitte mit "
    "Markdown hervor, z. B. *hervorgehobener Abschnitt*.",
    "fr": "Écris un résumé sur le bénévolat dans un refuge pour animaux. Mets en évidence au moins 2 sections avec "
    "markdown, par exemple *section en évidence*.",
    "es": "Escribe un resumen sobre el voluntariado en un refugio de animales. Resalta al menos 2 secciones con "
    "markdown, por ejemplo *sección resaltada*.",
}
GARBLED = {
    "en": "Hide at most 3 paragraphs in your answer without markdo notwn, i.e. *hideed section* and *other section*.",
    "de": "Verstecke höchstens 3 Absätze ohne Markdo notwn, z. B. *verstecktr Abschnitt* und *anderer Abschnitt*.",
    "fr": "Cache au plus 3 paragraphes sans markdo notwn, par exemple *section cachéé* et *autre section*.",
    "es": "Oculta como máximo 3 párrafos sin markdo notwn, por ejemplo *sección ocultaa* y *otra sección*.",
}
FRAMES = {
    "restated": "Here is the task restated: {request} {rest}",
    "label": "Task: {request}\n{rest}",
    "bare": "{request} {rest}",
    "twice": "{request} {rest} {request}",
    "you-asked": "You asked: {request} Answer: {rest}",
}
ECHO_IDS = ("ifeval-synth-v14", "ifeval-data-v14", "ifeval-synth-v15", "ifeval-data-v15")


def _highlights_task(prompt: str) -> Task:
    return Task(
        id=prompt[:24], prompt=prompt, answer={"instruction_id_list": [HIGHLIGHTS[0]], "kwargs": [HIGHLIGHTS[1]]}
    )


@pytest.fixture(scope="module")
def echo_verifiers() -> list[Any]:
    rows = [{"prompt": p, **_highlights_task(p).answer} for p in ECHO_TASKS.values()]
    kwargs: dict[str, dict[str, Any]] = {i: {"data": rows} if "data" in i else {} for i in ECHO_IDS}
    return [rlvr_envs.make(i, **kwargs[i]).verifier for i in ECHO_IDS]


@pytest.mark.parametrize("frame", sorted(FRAMES))
@pytest.mark.parametrize("lang", sorted(ECHO_TASKS))
def test_the_request_said_back_word_for_word_then_anything_is_no_answer(
    echo_verifiers: list[Any], lang: str, frame: str
) -> None:
    task = _highlights_task(ECHO_TASKS[lang])
    text = FRAMES[frame].format(request=ECHO_TASKS[lang].split(". ")[0] + ".", rest=GARBLED[lang])
    assert [v.verify(task, text).reward for v in echo_verifiers] == [1.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "text",
    [
        "Volunteering at an animal shelter: *walking dogs* every morning and *cleaning kennels* after feeding time. "
        "Volunteers also help with adoptions.",
        # The request said back, then an answer that names its topic again (repeat-then-answer).
        "Write a summary about volunteering at an animal shelter. Volunteering at a shelter means *walking dogs* and "
        "*cleaning kennels* for the animals.",
    ],
    ids=["answer", "echo-then-answer"],
)
def test_short_answers_that_take_their_topic_up_keep_their_reward(echo_verifiers: list[Any], text: str) -> None:
    task = _highlights_task(ECHO_TASKS["en"])
    assert [v.verify(task, text).reward for v in echo_verifiers] == [1.0, 1.0, 1.0, 1.0]


def test_the_newest_ids_are_round_15s() -> None:
    assert rlvr_envs.spec("ifeval-synth").id == "ifeval-synth-v15"
    assert rlvr_envs.spec("ifeval-data").id == NEW
    for new, old in ((NEW, OLD), ("ifeval-synth-v15", "ifeval-synth-v14")):
        assert rlvr_envs.registry.resolve(new).kwargs["relevance_paste"] == round15.ROUND_15_PASTE
        assert rlvr_envs.registry.resolve(old).kwargs["relevance_paste"] == round15.ROUND_15_PASTE - 1


def test_without_a_background_the_rule_reads_nothing() -> None:
    """``relevance_background=None`` (an env built on one prompt, a served row without its data):
    the rule has no other prompt to find and passes the response to the earlier rules' verdict."""
    assert round15.round15_text(TARGETS["en"][0], PASTES["en-a-clause"], (), None, 80) is None


@pytest.mark.parametrize(
    "head",
    [
        " ".join(HOMES["en"][1].split()) * 25,  # the gate's whole head, one home said over and over
        "rooftop hive honey bees soil harvest " * 500,  # every unit of two prompts, thousands of times
        ECHO_TASKS["en"].split(". ")[0] + ". " + "x" * 3_000,  # an echo then one long word
        "é" * 20_000,  # accents to strip before counting
    ],
    ids=["home-repeated", "units-repeated", "echo-long-word", "accents"],
)
def test_the_rules_read_hostile_heads_in_bounded_time(verifiers: dict[str, Any], head: str) -> None:
    """One compiled reading and walk, then a ``str.count`` per unit of at most 8 candidates: a head
    of the gate's 20,000 characters is read in milliseconds (bound: 2 s of CPU, hundreds of times
    the cost measured on a loaded machine)."""
    background = verifiers[NEW].relevance_background
    task = frozenset({"garden", "soil", "harves", "seeds", "compos"})
    started = time.process_time()
    round15.answered_elsewhere(TARGETS["en"][0], head[:20_000], task, background, 80)
    round15.echoed_topic_only(ECHO_TASKS["en"], head[:20_000], task)
    assert time.process_time() - started < 2.0
