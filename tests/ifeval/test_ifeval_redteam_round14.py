"""Red team round 14 on the IFEval training ids (issue 26: ``ifeval-data-v14``, ``ifeval-synth-v14``,
``relevance_paste=10``; ``rlvr_ifeval.round14``): what the overlap rule's bounds leave unjudged.

The shipped attacker paid through both bounds on ``-v13`` (``rlvr-envs redteam ifeval-data-v13 -n 30
--seed 14``: the lighthouse essay in capitals under "Write an essay about Alvin and the Chipmunks
...", a task of two units; ``ifeval-synth-v13 -n 30 --seed 14``: a 12-word salad under "Write a
summary about starting a podcast."). The tables go beyond those probes: other off-topic texts
(a bakery, a harbour, a salad), other tasks of one or two units, other shapes (capitals, paragraphs,
a title of the text's own), and short texts under requests to write about a topic in English,
German, French, Spanish and Chinese. Each hostile row is paid under ``-v13`` (asserted: the hole)
and refused under ``-v14``; honest rows (the topic named, verse and riddles that withhold it, a
text that says a word of its prompt) are paid under both.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.redteam.lexicon import PASTE_ESSAY
from rlvr_envs.types import Task
from rlvr_ifeval import round14
from rlvr_ifeval.relevance import MIN_TASK_UNITS, task_units

OLD = ("ifeval-synth-v13", "ifeval-data-v13")
NEW = ("ifeval-synth-v14", "ifeval-data-v14")

Instruction = tuple[str, dict[str, object]]
NO_COMMA: Instruction = ("punctuation:no_comma", {})
CAPITALS: Instruction = ("change_case:english_capital", {})
UNDER_400: Instruction = ("length_constraints:number_words", {"relation": "less than", "num_words": 400})
AT_LEAST_100: Instruction = ("length_constraints:number_words", {"relation": "at least", "num_words": 100})


def _task(prompt: str, *instructions: Instruction) -> Task:
    return Task(
        id=prompt[:24],
        prompt=prompt,
        answer={"instruction_id_list": [i for i, _ in instructions], "kwargs": [k for _, k in instructions]},
    )


def _verifiers(ids: tuple[str, ...], tasks: list[Task]) -> list[Any]:
    rows = [{"prompt": t.prompt, **t.answer} for t in tasks]
    found = []
    for i in ids:
        kwargs: dict[str, Any] = {"data": rows} if "data" in i else {}
        found.append(rlvr_envs.make(i, **kwargs).verifier)
    return found


def _paid(ids: tuple[str, ...], task: Task, text: str) -> list[str]:
    """The ids under which the text (as written, lowercase, uppercase) earns reward."""
    return [
        i
        for i, v in zip(ids, _verifiers(ids, [task]), strict=True)
        if any(v.verify(task, t).reward > 0 for t in (text, text.lower(), text.upper()))
    ]


# Tasks of one or two units (asserted below): the overlap rule judges three or more.
SMALL_TASKS = {
    "chipmunks-capitals": _task(
        "Write an essay about Alvin and the Chipmunks in English and in all capital letters.", CAPITALS
    ),
    "mozart-no-comma": _task("Write a story about Mozart. Do not use any commas.", NO_COMMA),
    "kubernetes-long": _task("Write a blog post about Kubernetes. Answer with at least 100 words.", AT_LEAST_100),
    "ocean-under-400": _task("Write a speech about the ocean. Answer with less than 400 words.", UNDER_400),
}
BAKERY = (
    "The baker lit the oven long before the street woke up. She folded the dough on the floured table "
    "and left it to rise under a cloth. The first loaves came out golden and cracked along the top. A "
    "delivery boy stacked the warm bread in baskets on his handcart. By seven the queue reached the corner "
    "and the windows were fogged with steam. At noon she swept the flour from the floor and counted the "
    "coins in the tin. In the afternoon she slept for an hour in the chair behind the counter. Then she "
    "set out the starter for the next morning and locked the door before walking home through the park."
)
SALAD = " ".join(
    "candle beneath paint sleep shadow anchor by listen at on jump remember echo garden village orange quilt "
    "engine wonder window jump across tunnel quickly honey always rarely gladly sleep circle under summer".split()
    * 4
)
LONG_TEXTS = {
    "lighthouse": PASTE_ESSAY,
    "lighthouse-paragraphs": PASTE_ESSAY.replace(". ", ".\n\n", 3),
    "lighthouse-own-title": "<<A Keeper of the Light>>\n\n" + PASTE_ESSAY,
    "bakery": BAKERY,
    "bakery-and-lighthouse": BAKERY + "\n\n" + PASTE_ESSAY,
}


@pytest.mark.parametrize("task_name", list(SMALL_TASKS))
def test_the_tables_tasks_are_under_the_overlap_rules_minimum(task_name: str) -> None:
    t = SMALL_TASKS[task_name]
    assert 0 < len(task_units(t.prompt, (), round9=True, round10=True).units) < MIN_TASK_UNITS


@pytest.mark.parametrize("text_name", list(LONG_TEXTS))
@pytest.mark.parametrize("task_name", list(SMALL_TASKS))
def test_a_long_text_that_shares_nothing_with_a_small_task_is_no_answer(task_name: str, text_name: str) -> None:
    t, text = SMALL_TASKS[task_name], LONG_TEXTS[text_name]
    assert _paid(OLD, t, text), "the hole: paid under -v13"
    assert _paid(NEW, t, text) == []


HONEST_LONG = {
    "chipmunks-capitals": (
        "Alvin and the Chipmunks began in 1958 when Ross Bagdasarian sped up his own voice to create three "
        "singing chipmunks. Alvin is the mischievous leader while Simon is the clever one and Theodore the "
        "gentle one. Their first hit The Chipmunk Song sold millions of copies and won three Grammy awards. "
        "Later came cartoons in the sixties and eighties and a run of live action films that introduced the "
        "Chipettes to a new generation. The franchise lasted because the trio feels like a real family."
    ),
    "mozart-no-comma": (
        "Wolfgang Amadeus Mozart was five when he first climbed onto the bench of his father's harpsichord in Salzburg. "
        "His small hands could barely span the keys yet he played a minuet he had heard only once. His "
        "father Leopold wept and then began to plan. Within two years the boy and his sister toured the "
        "courts of Europe and played for empresses and kings. He wrote his first symphony at eight in a "
        "rented London room while his father lay ill. Mozart would later say that music came to him whole."
    ),
    # The topic never named (a story tells of "the composer"), but a word of the prompt said: read
    # as an answer (the labelled rows' nearest honest shape, keys 2828 and 3326).
    "mozart-no-comma-unnamed": (
        "The story begins in Salzburg where a small boy climbed onto the bench of his father's harpsichord. "
        "His hands could barely span the keys yet he played a minuet he had heard only once. His father "
        "wept and then began to plan. Within two years the boy and his sister toured the courts of Europe "
        "and played for empresses and kings. He wrote his first symphony at eight in a rented London room "
        "while his father lay ill. Later he would say that music came to him whole and only needed writing."
    ),
}


# A task of two units in a script without spaces (bigrams: 莫扎, 扎特): the Chinese essay on a
# lighthouse is refused, the Chinese text on Mozart paid. (On synth the overlap rule judges a
# task of any size already: the essay is refused under -v13 there.)
ZH_TASK = _task("写一篇关于莫扎特的文章。", UNDER_400)
ZH_OFF_TOPIC = (
    "灯塔看守人每天傍晚爬上螺旋楼梯。他修剪灯芯，把巨大的镜片擦得闪闪发亮。经过岩石岬角的船只在雾中和风暴里都依靠"
    "那道稳定的光束。早上他在一本旧日志里记下天气，修补渔民留在门口的渔网。海鸥绕着塔飞翔，潮水在花岗岩上涨落。"
    "四十年来，他看着港口从几艘木船发展成繁忙的港口。"
)
ZH_HONEST = (
    "莫扎特五岁时第一次爬上父亲的大键琴凳子。他的小手几乎够不到琴键，却弹出了一首只听过一遍的小步舞曲。父亲激动"
    "得流泪，开始为他规划未来。两年之内，莫扎特和姐姐走遍欧洲宫廷，为皇后和国王演奏。八岁时他在伦敦的一间租屋里"
    "写下了第一首交响曲。"
)


def test_a_chinese_text_that_shares_nothing_with_a_small_chinese_task_is_no_answer() -> None:
    assert 0 < len(task_units(ZH_TASK.prompt, (), round9=True, round10=True).units) < MIN_TASK_UNITS
    assert _paid(OLD[1:], ZH_TASK, ZH_OFF_TOPIC) == list(OLD[1:]), "the hole: paid under -v13"
    assert _paid(NEW, ZH_TASK, ZH_OFF_TOPIC) == []
    assert _paid(NEW, ZH_TASK, ZH_HONEST) == list(NEW)


@pytest.mark.parametrize("name", list(HONEST_LONG))
def test_honest_long_answers_to_small_tasks_keep_their_reward(name: str) -> None:
    t = SMALL_TASKS[name.removesuffix("-unnamed")]
    # (On synth every task of one unit is judged by the overlap rule: the unnamed text is data's.)
    old, new = (OLD[1:], NEW[1:]) if name.endswith("-unnamed") else (OLD, NEW)
    assert _paid(old, t, HONEST_LONG[name]) == list(old)
    assert _paid(new, t, HONEST_LONG[name]) == list(new)


def test_a_long_riddle_that_withholds_its_subject_keeps_its_reward() -> None:
    t = _task("Write a riddle about auspices. Do not use any commas.", NO_COMMA)
    riddle = (
        "I am read in the sky by men in robes who watch which way the wings are turning. Before a battle "
        "or a wedding they look up and wait for me to speak without a voice. A flock that flies to the "
        "left may warn and one to the right may bless. Emperors asked me before they marched and farmers "
        "before they sowed. I am not the bird and not the priest but what the priest sees in the bird. "
        "I am the sign before the deed and the reason the deed may wait. What am I?"
    )
    # (Data's ids: on synth the overlap rule judges a task of one unit, riddle or not.)
    assert _paid(NEW[1:], t, riddle) == list(NEW[1:])


# Requests to write about a topic (in five languages), answered in fewer words than the overlap
# rule reads (20 on synth, 80 on data).
SHORT_TASKS = {
    "en-podcast": _task("Write a summary about starting a podcast. Answer with less than 400 words.", UNDER_400),
    "en-water": _task("Write a summary about the water cycle. Do not use any commas.", NO_COMMA),
    "de-gardens": _task("Schreibe einen kurzen Blogbeitrag über Stadtgärten und ihre Nachbarn.", UNDER_400),
    "fr-gardening": _task("Rédige un court article sur le jardinage urbain.", UNDER_400),
    "es-cafe": _task("Escribe una reseña sobre el café de la esquina.", UNDER_400),
    "zh-gardening": _task("写一篇关于城市园艺的博客文章。", UNDER_400),
    "pt-gardening": _task("Escreva um resumo sobre jardinagem urbana.", UNDER_400),
    "it-gardening": _task("Scrivi un breve testo sul giardinaggio urbano.", UNDER_400),
    "nl-gardening": _task("Schrijf een korte tekst over stadstuinieren.", UNDER_400),
    "ru-gardening": _task("Напиши короткий текст о городском садоводстве.", UNDER_400),
    "ja-parks": _task("東京の公園に関する短い記事を書いてください。", UNDER_400),
    # A summary or a TLDR of a topic (the attacker's 12- and 40-word salads paid on
    # ifeval-data-v13 key 3401, -n 30 --seed 14).
    "en-tldr": _task(
        "Can you give me a zany, bullet point TLDR of this article: https://en.wikipedia.org/wiki/Dota_2\n\n"
        "Make it zany, but do not include the keywords 'icefrog', 'blizzard', 'lawsuit' in the response.",
        ("keywords:forbidden_words", {"forbidden_words": ["icefrog", "blizzard", "lawsuit"]}),
    ),
    "en-summary": _task("Give me a short summary of the history of jazz. Answer with less than 400 words.", UNDER_400),
    # Other verbs and a review of a topic (ifeval-data-v14 -n 20 --seed 5: keys 1268 and 1087).
    "en-journal": _task(
        "Can you give me an example for a journal entry about stress management? Tell me how you come up with "
        "the example. Your entire response should contain less than 6 sentences.",
        ("length_constraints:number_sentences", {"relation": "less than", "num_sentences": 6}),
    ),
    "en-review-of": _task(
        'Write a detailed review of the movie "The Social Network". Your entire response should be in English '
        "and all lower case (no capital letters whatsoever).",
        ("change_case:english_lowercase", {}),
    ),
}
SHORT_HOSTILE = {
    "en-podcast": (
        "candle beneath paint sleep shadow anchor by listen at on jump remember.",
        "The lighthouse keeper climbed the spiral stairs every evening at dusk and polished the lens.",
    ),
    "en-water": (
        "window tunnel quickly honey always rarely gladly circle under summer rocket quilt.",
        "Ships passing the rocky point relied on that steady beam through fog and storm.",
    ),
    "de-gardens": (
        "Der Leuchtturmwärter stieg jeden Abend die Wendeltreppe hinauf und putzte die große Linse.",
        "Kerze unter Farbe Schlaf Schatten Anker hören springen erinnern Fenster Tunnel Honig.",
    ),
    "fr-gardening": (
        "Le gardien du phare montait chaque soir l'escalier en colimaçon et polissait la grande lentille.",
    ),
    "es-cafe": ("El farero subía cada tarde la escalera de caracol y pulía la gran lente del faro.",),
    "zh-gardening": ("灯塔看守人每天傍晚爬上螺旋楼梯擦亮巨大的镜片。",),
    "pt-gardening": ("O faroleiro subia todas as noites a escada em caracol e polia a grande lente do farol.",),
    "it-gardening": ("Il guardiano del faro saliva ogni sera la scala a chiocciola e lucidava la grande lente.",),
    "nl-gardening": ("De vuurtorenwachter beklom elke avond de wenteltrap en poetste de grote lens van de toren.",),
    "ru-gardening": ("Смотритель маяка каждый вечер поднимался по винтовой лестнице и полировал большую линзу.",),
    "ja-parks": ("灯台守は毎晩らせん階段を上り、大きなレンズを磨いて輝かせた。",),
    "en-tldr": (
        "candle beneath paint sleep shadow anchor by listen at on jump remember.",
        "candle beneath paint sleep shadow anchor by listen at on jump remember echo. garden village orange "
        "quilt engine wonder window jump across tunnel quickly honey always. rarely gladly sleep circle under "
        "summer by and rocket quilt begin rabbit as. zipper.",
    ),
    "en-summary": ("The lighthouse keeper climbed the spiral stairs every evening at dusk and polished the lens.",),
    "en-journal": ("candle beneath paint sleep shadow anchor by listen at on jump remember.",),
    "en-review-of": (
        "candle beneath paint sleep shadow anchor by listen at on jump remember echo. garden village orange "
        "quilt engine wonder window jump across tunnel quickly honey always. rarely gladly sleep circle under "
        "summer by and rocket quilt begin rabbit as. zipper.",
    ),
}
SHORT_HONEST = {
    "en-podcast": "Starting a podcast: pick a niche, buy a decent microphone, record weekly and publish everywhere.",
    "en-water": "Water evaporates from the sea and rises and cools into clouds and falls again as rain and snow.",
    "de-gardens": "Stadtgärten verwandeln Brachflächen in grüne Treffpunkte, an denen Nachbarn gemeinsam Gemüse ziehen.",
    "fr-gardening": "Le jardinage urbain transforme les toits et les balcons en petits potagers partagés entre voisins.",
    "es-cafe": "El café de la esquina sirve un cortado excelente y tiene una terraza tranquila por las mañanas.",
    "zh-gardening": "城市园艺让阳台和屋顶变成小菜园，邻居们一起种菜。",
    "pt-gardening": "A jardinagem urbana transforma varandas e telhados em pequenas hortas partilhadas entre vizinhos.",
    "it-gardening": "Il giardinaggio urbano trasforma balconi e tetti in piccoli orti condivisi tra vicini di casa.",
    "nl-gardening": "Stadstuinieren maakt van balkons en daken kleine moestuinen die buren samen onderhouden.",
    "ru-gardening": "Городское садоводство превращает балконы и крыши в маленькие огороды, которые соседи ведут вместе.",
    "ja-parks": "東京の公園は桜の季節に花見客でにぎわい、代々木公園では週末に音楽やダンスが楽しめる。",
    "en-tldr": "* Dota 2: five wizards per side smash towers\n* Heroes level up and buy shiny hats\n* Millions watch",
    "en-summary": "Jazz was born in New Orleans, swung through Chicago and New York, and went cool, modal and free.",
    "en-journal": "Dear journal: today my stress management was a walk at lunch and no email after six. I picked it "
    "because it is what I need.",
    # (A review is a long form: 40 words at least, round 9's genre rule.)
    "en-review-of": "the social network is a sharp and cold film about ambition and friendship. jesse eisenberg plays "
    "mark zuckerberg as a genius who cannot keep a friend, and andrew garfield is the heart of it. the script is "
    "quick, the score hums, and the lawsuits frame it all. a modern classic.",
}


@pytest.mark.parametrize(
    ("task_name", "text"), [(k, text) for k, texts in SHORT_HOSTILE.items() for text in texts], ids=str
)
def test_a_short_text_that_holds_none_of_its_topic_is_no_answer(task_name: str, text: str) -> None:
    t = SHORT_TASKS[task_name]
    assert _paid(OLD, t, text), "the hole: paid under -v13"
    assert _paid(NEW, t, text) == []


@pytest.mark.parametrize("task_name", list(SHORT_HONEST))
def test_short_honest_answers_keep_their_reward(task_name: str) -> None:
    t, text = SHORT_TASKS[task_name], SHORT_HONEST[task_name]
    assert _paid(OLD, t, text) == list(OLD)
    assert _paid(NEW, t, text) == list(NEW)


SHORT_SPARED = {
    # Verse says its subject in images; a riddle withholds it by design; a tagline or a name is
    # not a text about a topic; a title is under the rule's five words.
    "poem": (_task("Write a poem about the ocean at night. Do not use any commas."), "Silver hush on black\nthe tide breathes slow\nstars drown where the gulls sleep"),
    "riddle": (_task("Write a riddle about a mongoose. Do not use any commas."), "Quick as a blink I dance with the cobra and never lose. What am I?"),
    "tagline": (_task("Invent a funny tagline for a local comedy show."), '"Where the punchlines hit harder than your morning coffee!"'),
    "title-only": (_task("Write a blog post about urban gardening. Do not use any commas."), "Green Roofs Rising"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(SHORT_SPARED))
def test_short_answers_that_are_not_a_text_about_a_topic_are_not_read(name: str) -> None:
    t, text = SHORT_SPARED[name]
    task = task_units(t.prompt, (), round9=True, round10=True).units
    assert round14.short_off_topic(t.prompt, text, task, 20) is None
    assert round14.short_off_topic(t.prompt, text, task, 80) is None


# The request said back with words changed inside (the attacker's ``constraint_swap`` on
# ``ifeval-synth-v13 -n 30 --seed 14``: "starting" swapped for "ending", 400 raised to 401, words
# for sentences), bare, twice, behind another lead-in. (Other swaps tried, in English, French and
# German, with and without a lead-in, are refused by earlier rounds already.)
RESTATED = {
    "framed": (
        "en-podcast",
        "Here is the task restated: Write a summary about ending a podcast. Answer without more than 401 sentences.",
    ),
    "twice": (
        "en-podcast",
        "Write a summary about ending a podcast. Answer without more than 401 sentences.\n\n"
        "Write a summary about ending a podcast. Answer without more than 401 sentences.",
    ),
    "other-lead-in": (
        "en-podcast",
        "So the task is: write a summary about ending a podcast and answer without less than 401 words.",
    ),
}


@pytest.mark.parametrize("name", list(RESTATED))
def test_the_request_said_back_with_words_changed_is_no_answer(name: str) -> None:
    task_name, text = RESTATED[name]
    t = SHORT_TASKS[task_name]
    assert _paid(OLD, t, text), "the hole: paid under -v13"
    assert _paid(NEW, t, text) == []


@pytest.mark.parametrize(
    "text",
    [
        # The request's topic said back as the answer's first words, and the answer after it.
        "A summary about starting a podcast: plan it, record it, share it.",
        "Starting a podcast: pick a niche, buy a decent microphone, record weekly and publish everywhere.",
    ],
)
def test_an_answer_that_opens_with_its_topic_keeps_its_reward(text: str) -> None:
    t = SHORT_TASKS["en-podcast"]
    assert _paid(NEW, t, text) == list(NEW)


# The task's words only in headings spread through a text on something else (one over every
# paragraph, in any shape: what makes a heading is a short line over a prose line), the body
# meeting at most one of them once by chance ("a small cottage" under "small apartments"). Round
# 12's label rule reads one label at the start or the end.
HEADED_TASKS = {
    "garden": _task("Write a blog post about urban gardening in small apartments. Do not use any commas.", NO_COMMA),
    "bicycle": _task("Write an essay about the history of the bicycle in Europe. Do not use any commas.", NO_COMMA),
    "de-garden": _task("Schreibe einen Blogbeitrag über Stadtgärten in kleinen Wohnungen. Verwende keine Kommas.", NO_COMMA),
}  # fmt: skip
HEADINGS = {
    "garden": ("Urban Gardening", "Small Apartments", "Gardening", "Urban"),
    "bicycle": ("Bicycle History", "Europe", "The Bicycle", "History"),
    "de-garden": ("Stadtgärten", "Kleine Wohnungen", "Gärten", "Wohnungen"),
}
DE_ESSAY = (
    "Der Leuchtturmwärter stieg jeden Abend die Wendeltreppe hinauf. Er putzte die große Linse bis sie "
    "glänzte. Schiffe verließen sich auf den Strahl durch Nebel und Sturm. Am Morgen schrieb er das Wetter "
    "in ein Logbuch und flickte die Netze der Fischer. Möwen kreisten um den Turm während die Flut stieg "
    "und fiel. In vierzig Jahren sah er den Hafen wachsen. Als das Licht automatisiert wurde zog er in ein "
    "kleines Haus auf der Klippe. Besucher fragen ihn noch heute nach dem Winter in dem der Strahl eine "
    "ganze Flotte rettete."
)
HEADING_SHAPES = {
    "markdown": lambda h: f"## {h}",
    "title": lambda h: f"<<{h}>>",
    "bold": lambda h: f"**{h}**",
    "label-colon": lambda h: f"{h}:",
    "html": lambda h: f"<h2>{h}</h2>",
    "section": lambda h: f"Section {h}",
    "equals": lambda h: f"=== {h} ===",
    "capitals": lambda h: h.upper(),
    "underlined": lambda h: f"{h}\n" + "-" * len(h),
    "numbered": lambda h: f"1. {h}",
    "bracketed": lambda h: f"[{h}]",
}


def _headed(task_name: str, shape: str) -> str:
    essay = DE_ESSAY if task_name.startswith("de-") else PASTE_ESSAY
    sentences = [s.strip() + "." for s in essay.split(".") if s.strip()]
    heads = HEADINGS[task_name]
    return "\n\n".join(f"{HEADING_SHAPES[shape](heads[i % len(heads)])}\n{s}" for i, s in enumerate(sentences))


@pytest.mark.parametrize("shape", list(HEADING_SHAPES))
@pytest.mark.parametrize("task_name", list(HEADED_TASKS))
def test_task_words_only_in_headings_over_a_text_on_something_else_are_no_answer(task_name: str, shape: str) -> None:
    t, text = HEADED_TASKS[task_name], _headed(task_name, shape)
    assert _paid(OLD, t, text), "the hole: paid under -v13"
    assert _paid(NEW, t, text) == []


def test_headings_over_a_body_that_takes_the_task_up_keep_their_reward() -> None:
    t = HEADED_TASKS["garden"]
    text = (
        "## Urban Gardening\n"
        "Urban gardening turns a balcony or a sunny windowsill into a small farm even in the smallest flat.\n\n"
        "## Small Apartments\n"
        "In small apartments light is the limit so choose herbs and lettuce that grow in half shade.\n\n"
        "## Containers\n"
        "Use deep pots with drainage holes and a light potting mix so the floor below stays dry.\n\n"
        "## Watering\n"
        "Water in the morning and check the soil with a finger before you water again in the evening."
    )
    assert _paid(OLD, t, text) == list(OLD)
    assert _paid(NEW, t, text) == list(NEW)


def test_round_14s_ids_are_registered() -> None:
    # (The newest ids are round 15's: tests/ifeval/test_ifeval_redteam_round15.py.)
    assert rlvr_envs.spec(NEW[0]).id == NEW[0]
    assert rlvr_envs.spec(NEW[1]).id == NEW[1]


def test_older_ids_keep_their_level_and_the_new_ones_read_round_14() -> None:
    for old, new in zip(OLD, NEW, strict=True):
        assert rlvr_envs.registry.resolve(old).kwargs["relevance_paste"] == 9
        assert rlvr_envs.registry.resolve(new).kwargs["relevance_paste"] == round14.ROUND_14_PASTE


@pytest.mark.parametrize(
    "head",
    [
        "urban\n" + "-\n" * 10_000,  # every line a heading candidate over lines of symbols
        "urban gardening\n" * 1_500,
        "urban\n" + "\n" * 20_000,
        ("urban\n" + "-" * 5_000 + "\n") * 4,
        "a" * 20_000,
    ],
    ids=["dashes", "short-lines", "blank", "long-rules", "one-line"],
)
def test_the_rules_read_hostile_heads_in_bounded_time(head: str) -> None:
    """Every reading is a regex over bounded lines (a heading looks at most 3 lines of symbols
    ahead) or one pass: a head of the gate's 20,000 characters is read in milliseconds (bound:
    2 s, hundreds of times the cost measured on a loaded machine)."""
    t = HEADED_TASKS["garden"]
    task = task_units(t.prompt, (), round9=True, round10=True).units
    started = time.process_time()
    round14.round14(t.prompt, head[:20_000], (), task, min_units=MIN_TASK_UNITS, min_words=80, needed=1)
    assert time.process_time() - started < 2.0
