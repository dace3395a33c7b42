"""The training ids' gate, round 3 of issue 26 (``relevance="contrast"``: ``ifeval-data-v3``,
``ifeval-synth-v4``): a response that answers *another* prompt of the env better than its own
is refused (IDF-weighted task units against a background of the env's prompts), and the
prompt's words walked in order between filler are a salad. Round 4 (``ifeval-data-v4``,
``ifeval-synth-v5``) adds the response-language rule (tests/ifeval/test_ifeval_response_language.py).
Round 5 (``ifeval-data-v5``, ``ifeval-synth-v6``) adds the pasted-answer rule
(tests/ifeval/test_ifeval_pasted.py), round 6 (``ifeval-data-v6``, ``ifeval-synth-v7``) its
chance and far-home rules. The ids' flags are read from their registered kwargs, and
the newest id is the one ``ifeval-data`` resolves to.

Measured on the whole verdict (guard and gate together, what a trainer is paid), against the
previous ids in the same run; ``pytest -s`` prints the figures the README quotes.
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Sequence
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Reason, Task
from rlvr_ifeval import contrast, relevance
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import read_jsonl, shared_path
from tests.ifeval.test_ifeval_relevance import GENERIC, JA_ESSAY, JA_PROMPT, TH_ESSAY, TH_PROMPT, ZH_ESSAY, ZH_PROMPT

LABELLED = ("ifeval_gpt4_responses_labeled.jsonl", "ifbench_responses_labeled.jsonl")
NEWEST = rlvr_envs.registry.resolve("ifeval-data").id
NEWEST_SYNTH = rlvr_envs.registry.resolve("ifeval-synth").id


def flags(env_id: str) -> dict[str, Any]:
    """The verifier options an id is registered with (what ``make`` passes on)."""
    kwargs = dict(rlvr_envs.registry.resolve(env_id).kwargs)
    kwargs.pop("env_name", None)
    return kwargs


def _task(i: int, row: dict[str, Any]) -> Task:
    return Task(id=str(i), prompt=row["prompt"], answer={k: row[k] for k in ("instruction_id_list", "kwargs")})


@pytest.fixture(scope="module")
def labelled() -> tuple[list[dict[str, Any]], list[Task], dict[str, IFEvalVerifier]]:
    rows: list[dict[str, Any]] = []
    for name in LABELLED:
        rows.extend(read_jsonl(name))
    tasks = [_task(i, r) for i, r in enumerate(rows)]
    # The background an env over these rows builds: its own prompts.
    background = contrast.Background.build(
        (r["prompt"], build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows
    )
    verifiers = {
        "guard only (v1 rules)": IFEvalVerifier(guard_rules="v1"),
        "ifeval-data-v2": IFEvalVerifier(relevance="overlap", guard_rules="v1"),
        "ifeval-data-v3": IFEvalVerifier(relevance="contrast", relevance_background=background),
        **{
            env_id: IFEvalVerifier(relevance_background=background, **flags(env_id))
            for env_id in dict.fromkeys(
                (
                    "ifeval-data-v4",
                    "ifeval-data-v5",
                    "ifeval-data-v6",
                    "ifeval-data-v7",
                    "ifeval-data-v8",
                    "ifeval-data-v9",
                    NEWEST,
                )
            )
        },
    }
    return rows, tasks, verifiers


def test_the_new_gate_rejects_at_most_one_percent_of_labelled_good_responses(labelled) -> None:
    rows, tasks, verifiers = labelled
    good = [i for i, r in enumerate(rows) if r["reference_strict_all"]]
    lost = {
        name: {rows[i]["key"] for i in good if v.verify(tasks[i], rows[i]["response"]).reward != 1}
        for name, v in verifiers.items()
    }
    base = lost["guard only (v1 rules)"]
    added = {name: sorted(map(str, keys - base)) for name, keys in lost.items()}
    print(f"\nlabelled-good ({len(good)}) lost beyond the guard's: {added}")
    assert len(good) == 493
    assert len(added["ifeval-data-v3"]) <= 0.01 * len(good)
    assert len(added["ifeval-data-v4"]) <= 0.01 * len(good)
    # Round 5: the French answer to "Explain in French ..." (an English prompt) is no longer held
    # to the prompt's English words, and the pasted-answer rule refuses no labelled-good answer:
    # 3 of 493 (0.6%) beyond the guard's, where v4 refused 4.
    assert set(added["ifeval-data-v5"]) < set(added["ifeval-data-v4"])
    assert len(added[NEWEST]) <= 0.01 * len(good)
    # Round 6 (ifeval-data-v6: the chance and far-home rules) refuses no labelled-good answer more.
    assert set(added["ifeval-data-v6"]) == set(added["ifeval-data-v5"])
    # Round 7 (ifeval-data-v7: no more than chance, an answer's expected words) neither.
    assert set(added["ifeval-data-v7"]) == set(added["ifeval-data-v6"])
    # Round 8 (ifeval-data-v8: the response's own text, instructions as read, long forms) neither.
    assert set(added["ifeval-data-v8"]) == set(added["ifeval-data-v7"])
    # Round 9 (ifeval-data-v9: the request said back in other words, "a letter to ...") neither.
    assert set(added["ifeval-data-v9"]) == set(added["ifeval-data-v8"])
    # Round 10 (ifeval-data-v10: the task named in one place, then left) neither.
    assert set(added[NEWEST]) == set(added["ifeval-data-v9"])


def _paste_scores(rows: list[dict[str, Any]], tasks: list[Task], verifier: IFEvalVerifier) -> tuple[int, int, int]:
    """Each labelled-good response under 30 other labelled prompts: pairs, pairs paid, and the
    most prompts one response was paid on."""
    rng = random.Random(0)
    pairs = paid = worst = 0
    for r in rows:
        if not r["reference_strict_all"]:
            continue
        mine = 0
        for j in rng.sample(range(len(rows)), 30):
            if rows[j]["prompt"] == r["prompt"]:
                continue
            pairs += 1
            mine += verifier.verify(tasks[j], r["response"]).reward > 0
        paid += mine
        worst = max(worst, mine)
    return pairs, paid, worst


def test_a_real_answer_pasted_under_other_prompts_is_paid_less_often(labelled) -> None:
    rows, tasks, verifiers = labelled
    scores = {name: _paste_scores(rows, tasks, v) for name, v in verifiers.items()}
    for name, (pairs, paid, worst) in scores.items():
        print(f"\npastes, {name}: paid on {paid}/{pairs} ({paid / pairs:.2%}); one response on at most {worst} of 30")
    old, new = scores["ifeval-data-v2"], scores["ifeval-data-v3"]
    assert new[0] == old[0] > 14_000
    # Measured 2.77% (v2: 4.51%; no gate: 8.88%); lexical evidence cannot do much better at a
    # 1% false-rejection budget (see the README): bounded, not claimed to be zero.
    assert new[1] < 0.7 * old[1] and new[1] / new[0] < 0.03
    # Round 4 (ifeval-data-v4): a real answer in another language than its new prompt allows,
    # prose under a request for verse, a few words under a request for an essay or a story, and
    # an answer another prompt is far more similar to are refused too. Measured 270 pairs
    # (1.83%), at most 7 of 30 prompts for one response (v3: 408, 2.76%, 9 of 30).
    v4 = scores["ifeval-data-v4"]
    assert v4[0] == new[0] and v4[1] < 0.7 * new[1] and v4[2] < new[2]
    # Round 5 (ifeval-data-v5): an answer that shares no content word with its whole prompt, or
    # only a small weight of it, while another prompt matches it well is refused. Measured 204
    # pairs (1.38%), at most 6 of 30 prompts for one response (v4: 270, 1.83%, 7 of 30).
    v5 = scores["ifeval-data-v5"]
    assert v5[0] == v4[0] and v5[1] < 0.8 * v4[1] and v5[2] < v4[2]
    # Round 6 (ifeval-data-v6): an answer that shares nothing with a prompt whose words a text of
    # its length would meet by chance, or a little of it while another prompt is five times as
    # similar, is refused. Measured 190 pairs (1.29%; v5: 204, 1.38%).
    v6 = scores["ifeval-data-v6"]
    assert v6[0] == v5[0] and v6[1] <= v5[1] - 10 and v6[2] <= v5[2]
    # Round 7 (ifeval-data-v7): an answer sharing no more of its prompt than chance gives, or
    # none of a prompt whose words an answer of its size would carry, is refused. Measured 170
    # pairs (1.15%; v6: 190, 1.29%).
    v7 = scores["ifeval-data-v7"]
    assert v7[0] == v6[0] and v7[1] <= v6[1] - 15
    assert scores[NEWEST][1] <= v7[1]


def test_a_paste_from_outside_the_background_is_left_to_the_overlap_rule() -> None:
    """The contrast rule knows only its background: IFBench answers under IFEval prompts with an
    IFEval-only background meet no better home (measured, printed; not a claim of zero)."""
    ifeval = read_jsonl("ifeval_gpt4_responses_labeled.jsonl")
    ifbench = [r for r in read_jsonl("ifbench_responses_labeled.jsonl") if r["reference_strict_all"]]
    background = contrast.Background.build(
        (r["prompt"], build_checkers(r["instruction_id_list"], r["kwargs"])) for r in ifeval
    )
    v2 = IFEvalVerifier(relevance="overlap", guard_rules="v1")
    v3 = IFEvalVerifier(relevance="contrast", relevance_background=background)
    v4 = IFEvalVerifier(relevance_background=background, **flags("ifeval-data-v4"))
    newest = IFEvalVerifier(relevance_background=background, **flags(NEWEST))
    rng = random.Random(1)
    paid = {"v2": 0, "v3": 0, "v4": 0, "newest": 0}
    pairs = 0
    for r in ifbench:
        for j in rng.sample(range(len(ifeval)), 30):
            task = _task(j, ifeval[j])
            pairs += 1
            paid["v2"] += v2.verify(task, r["response"]).reward > 0
            paid["v3"] += v3.verify(task, r["response"]).reward > 0
            paid["v4"] += v4.verify(task, r["response"]).reward > 0
            paid["newest"] += newest.verify(task, r["response"]).reward > 0
    # Measured v4 60, v5 58 of 2,310: round 5's pasted-answer rule needs the paste's home in the
    # background too; v6 44: its chance rule needs none.
    print(f"\nIFBench answers under IFEval prompts ({pairs} pairs), paid: {paid}")
    assert paid["newest"] <= paid["v4"] - 10 and paid["v4"] <= paid["v3"] <= paid["v2"]


# A background of generated prompts: one topic each, written the way users write them.
TOPICS = (
    "the migration of monarch butterflies across north america",
    "sourdough bread fermentation and wild yeast starters",
    "the history of the byzantine empire under justinian",
    "quantum entanglement experiments with photons",
    "maintaining a saltwater coral reef aquarium",
    "the economics of electric vehicle battery recycling",
    "training a border collie for sheepdog trials",
    "medieval castle siege warfare and trebuchets",
    "volcanic eruptions on iceland and aviation disruption",
    "the architecture of gothic cathedrals in france",
)
ANSWERS = {
    0: (
        "Every autumn millions of monarch butterflies leave Canada and the northern United States and fly "
        "thousands of kilometres to the fir forests of central Mexico. The migration spans several generations: "
        "the butterflies that arrive in Mexico are the great-grandchildren of those that left in spring. They "
        "navigate with a time-compensated sun compass in their antennae and brains, and they cluster by the "
        "millions on oyamel firs through the winter. Milkweed loss along the route and logging in the "
        "overwintering forests have cut their numbers, which is why volunteers now plant milkweed in gardens "
        "from Texas to Ontario and count the butterflies as they pass."
    ),
    1: (
        "A sourdough starter is a living culture of wild yeast and lactic acid bacteria that you keep in a jar "
        "of flour and water. Fed every day, it ferments the flour: the yeast makes the gas that raises the bread "
        "and the bacteria make the acids that give it its sour taste and help it keep. Fermentation is slow, so "
        "a loaf is mixed in the morning, folded a few times, shaped in the evening and proofed overnight in the "
        "fridge. A warmer kitchen ferments faster and a cooler one slower, and the starter smells of yoghurt "
        "and apples when it is healthy and ready to bake with."
    ),
}


def _generated(topic: int) -> Task:
    prompt = f"Write a detailed essay about {TOPICS[topic]}. Do not use any commas in your response."
    return Task(id=str(topic), prompt=prompt, answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]})


def test_an_answer_to_another_generated_prompt_is_refused_and_its_own_is_paid() -> None:
    tasks = [_generated(t) for t in range(len(TOPICS))]
    background = contrast.Background.build((t.prompt, ()) for t in tasks)
    verifier = IFEvalVerifier(relevance="contrast", relevance_background=background)
    overlap = IFEvalVerifier(relevance="overlap")
    for home, answer in ANSWERS.items():
        answer = answer.replace(",", "")
        assert verifier.verify(tasks[home], answer).reward == 1.0
        for other, task in enumerate(tasks):
            if other == home:
                continue
            verdict = verifier.verify(task, answer)
            assert verdict.reward == 0 and verdict.reason is Reason.WRONG, (home, other)
            assert verdict.details["rejected"] == relevance.OFF_TOPIC
        # Under "the history of the byzantine empire" the overlap rule alone is satisfied by
        # generic shared words or does not judge; the contrast rule names the better home.
        found = relevance.off_topic(tasks[2].prompt, answer, (), background=background)
        assert found is not None
    # A near-duplicate prompt (same topic, other instructions) is not "another" prompt.
    twin = Task(
        id="twin",
        prompt=f"Please write an essay on {TOPICS[0]} in lowercase letters only.",
        answer={"instruction_id_list": ["change_case:english_lowercase"], "kwargs": [{}]},
    )
    assert verifier.verify(twin, ANSWERS[0].lower()).reward == 1.0
    assert overlap.verify(twin, ANSWERS[0].lower()).reward == 1.0


def test_a_background_needs_two_prompts_with_units_and_is_bounded() -> None:
    assert contrast.Background.build([]) is None
    assert contrast.Background.build([("Write a poem.", ())]) is None
    many = contrast.Background.build(((f"Write about topic{i} and subject{i}.", ()) for i in range(300)), limit=50)
    assert many is not None and len(many.prompts) == 50
    with pytest.raises(Exception, match="relevance_background"):
        IFEvalVerifier(relevance="contrast", relevance_background=42)


def _interleaved(prompt: str, every: int, rng: random.Random, jitter: bool) -> str:
    """The prompt's words in order, one every ``every`` words (± 1 with jitter), generic filler
    between, lowercase, no commas: the salad that satisfies format-only instructions."""
    words = ["".join(c for c in w if c.isalnum()) for w in prompt.lower().split()]
    words = [w for w in words if w] or ["word"]
    out: list[str] = []
    k = 0
    while len(out) < 350:
        gap = every + (rng.choice((-1, 0, 1)) if jitter else 0)
        out.extend(rng.choice(GENERIC) for _ in range(max(1, gap) - 1))
        out.append(words[k % len(words)])
        k += 1
    return " ".join(out)


@pytest.fixture(scope="module")
def envs() -> tuple[Any, Any, Any, Any, list[Task]]:
    data = str(shared_path("ifeval_input_data.jsonl"))
    synth: Any = rlvr_envs.make("ifeval-synth", level=1, seed=0)
    generator = random.Random(5)
    return (
        rlvr_envs.make("ifeval-data", data=data),
        rlvr_envs.make("ifeval-data-v2", data=data),
        synth,
        rlvr_envs.make("ifeval-synth-v3", level=1, seed=0),
        [synth.generate(generator) for _ in range(300)],
    )


@pytest.mark.parametrize(
    ("every", "jitter"), [(2, False), (3, False), (3, True), (4, False), (4, True), (5, True), (6, False)]
)
def test_the_prompt_walked_in_order_between_filler_scores_on_no_task(every: int, jitter: bool, envs) -> None:
    new, old, synth, synth_old, synth_tasks = envs
    rng = random.Random(every * 10 + jitter)
    wins = {"data-v2": 0, "data-v3": 0, "synth-v3": 0, "synth-v4": 0}
    for task in new.tasks:
        salad = _interleaved(task.prompt, every, rng, jitter)
        wins["data-v2"] += old.verifier.verify(task, salad).reward > 0
        wins["data-v3"] += new.verifier.verify(task, salad).reward > 0
    for task in synth_tasks:
        salad = _interleaved(task.prompt, every, rng, jitter)
        wins["synth-v3"] += synth_old.verifier.verify(task, salad).reward > 0
        wins["synth-v4"] += synth.verifier.verify(task, salad).reward > 0
    print(f"\nprompt interleaved every {every} words (jitter {jitter}): {wins}")
    assert wins["data-v3"] == 0 and wins["synth-v4"] == 0


def test_the_interleaved_rule_refuses_no_labelled_response() -> None:
    rows: list[dict[str, Any]] = []
    for name in LABELLED:
        rows.extend(read_jsonl(name))
    found = [r["key"] for r in rows if relevance.interleaved_prompt(r["response"], r["prompt"])]
    assert found == []


# Real answers in languages with and without spaces: paid by the new gate with a background.
KO_PROMPT = "도시 옥상 텃밭과 지역 공동체 퇴비 만들기에 대한 블로그 글을 써 주세요. 주민들이 채소를 기르는 장점을 설명해 주세요."
KO_ESSAY = (
    "도시의 옥상 텃밭은 지역 공동체를 더 가깝게 만듭니다. 주민들은 옥상에서 채소를 기르고 부엌에서 나온 음식물 "
    "쓰레기로 퇴비를 만듭니다. 아이들은 채소가 어떻게 자라는지 배우고 이웃들은 함께 일할 기회를 얻습니다. 토마토와 "
    "고추는 작은 화분에서도 잘 자랍니다. 구청은 사용하지 않는 옥상을 개방하고 물과 교육을 제공할 수 있습니다. "
) * 2
DE_PROMPT = "Schreibe einen Blogbeitrag über Dachgärten in der Stadt und gemeinschaftliche Kompostierung."
DE_ESSAY = (
    "Dachgärten verändern unsere Städte. Auf den flachen Dächern der Wohnhäuser ziehen die Bewohner Tomaten und "
    "Kräuter, und aus den Küchenabfällen entsteht in der gemeinschaftlichen Kompostierung wertvolle Erde für die "
    "Beete. Die Kinder lernen dabei, wie das Gemüse wächst, und die Nachbarn arbeiten zusammen, statt sich nur im "
    "Treppenhaus zu grüßen. Im Sommer kühlen die Gärten die Dächer, und das Regenwasser wird gesammelt, bevor es in "
    "die Kanalisation fließt. Die Stadt kann ungenutzte Dächer öffnen und den Bewohnern Wasser und Kurse anbieten. "
    "So wird aus einem grauen Dach ein Ort, an dem die Gemeinschaft wächst und der Kompost die Kreisläufe schließt."
)
FR_PROMPT = "Écris un article de blog sur les jardins sur les toits en ville et le compostage collectif."
FR_ESSAY = (
    "Les jardins sur les toits transforment nos villes. Sur les toits plats des immeubles, les habitants cultivent "
    "des tomates et des herbes, et le compostage collectif transforme les déchets de cuisine en terre riche pour "
    "les bacs. Les enfants apprennent comment poussent les légumes et les voisins travaillent ensemble au lieu de "
    "se croiser dans l'escalier. En été, les jardins rafraîchissent les toits et l'eau de pluie est récupérée avant "
    "de partir dans les égouts. La ville peut ouvrir les toits inutilisés et offrir de l'eau et des cours aux "
    "habitants. Ainsi un toit gris devient un lieu où la communauté grandit et où le compost ferme la boucle."
)
ES_PROMPT = "Escribe una entrada de blog sobre los huertos en las azoteas de la ciudad y el compostaje comunitario."
ES_ESSAY = (
    "Los huertos en las azoteas están cambiando nuestras ciudades. En las azoteas planas de los edificios los "
    "vecinos cultivan tomates y hierbas y el compostaje comunitario convierte los restos de la cocina en tierra "
    "fértil para las jardineras. Los niños aprenden cómo crecen las verduras y los vecinos trabajan juntos en lugar "
    "de cruzarse solo en la escalera. En verano los huertos refrescan los tejados y el agua de lluvia se recoge "
    "antes de que llegue a las alcantarillas. La ciudad puede abrir las azoteas que no se usan y ofrecer agua y "
    "cursos a los vecinos. Así una azotea gris se convierte en un lugar donde la comunidad crece."
)
MULTILINGUAL = {
    "zh": (ZH_PROMPT, ZH_ESSAY),
    "ja": (JA_PROMPT, JA_ESSAY),
    "th": (TH_PROMPT, TH_ESSAY),
    "ko": (KO_PROMPT, KO_ESSAY),
    "de": (DE_PROMPT, DE_ESSAY),
    "fr": (FR_PROMPT, FR_ESSAY),
    "es": (ES_PROMPT, ES_ESSAY),
}


def _placeholder_task(prompt: str) -> Task:
    ids = ["detectable_content:number_placeholders"]
    return Task(id=prompt[:8], prompt=prompt, answer={"instruction_id_list": ids, "kwargs": [{"num_placeholders": 0}]})


@pytest.mark.parametrize("with_language", [False, True])
@pytest.mark.parametrize("language", sorted(MULTILINGUAL))
def test_real_answers_in_seven_languages_are_paid_and_pasted_ones_are_not(language: str, with_language: bool) -> None:
    prompts: Sequence[str] = [p for p, _ in MULTILINGUAL.values()] + [_generated(t).prompt for t in range(4)]
    background = contrast.Background.build((p, ()) for p in prompts)
    verifier = IFEvalVerifier(relevance="contrast", relevance_background=background, relevance_language=with_language)
    prompt, essay = MULTILINGUAL[language]
    verdict = verifier.verify(_placeholder_task(prompt), essay)
    assert verdict.reward == 1.0, (language, verdict.details)
    # Pasted under an English prompt on another topic it is refused (no overlap, or a better home).
    pasted = verifier.verify(_placeholder_task(_generated(2).prompt), essay)
    assert pasted.reward == 0, language
    if with_language:  # round 4: the language rule refuses it first, without a background
        alone = IFEvalVerifier(relevance="contrast", relevance_language=True)
        found = alone.verify(_placeholder_task(_generated(2).prompt), essay).details.get("relevance", {})
        assert "response_language" in found or "response_script_letters" in found, (language, found)


def test_hostile_responses_never_raise_under_the_new_gate_and_guard() -> None:
    """Huge, binary, lone surrogates, a flood of the background's rarest words, and the prompt
    itself interleaved a million times: a verdict, never an exception (the rules read at most
    ``MAX_RELEVANCE_CHARS``; the refusal rule at most ``MAX_REFUSAL_CHARS``)."""
    tasks = [_generated(t) for t in range(len(TOPICS))]
    background = contrast.Background.build((t.prompt, ()) for t in tasks)
    assert background is not None
    verifier = IFEvalVerifier(relevance="contrast", relevance_background=background)
    rare = " ".join(sorted(background.idf, key=background.idf.__getitem__, reverse=True)[:50])
    flood = " ".join(tasks[0].prompt.lower().replace(",", "").split()) + " people "
    for response in (
        "\x00" * 10_000,
        "ก" * 200_000,
        "a" * 2_000_000,
        "😀 " * 50_000,
        "\ud800 lone surrogate " * 100,
        (rare + " ") * 2_000,
        flood * 40_000,
        "我不知道" * 100_000,
    ):
        verdict = verifier.verify(tasks[1], response)
        assert verdict.reward in (0.0, 1.0)


def test_the_envs_build_their_background_from_their_own_prompts_or_take_yours() -> None:
    rows = [
        {"prompt": _generated(t).prompt, "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}
        for t in range(len(TOPICS))
    ]
    env: Any = rlvr_envs.make("ifeval-data", data=rows)
    assert env.env_id == NEWEST == "ifeval-data-v15" and env.verifier.relevance_background is not None
    assert set(env.verifier.relevance_background.prompts) == {r["prompt"] for r in rows}
    answer = ANSWERS[1].replace(",", "")
    by_prompt = {t.prompt: t for t in env.tasks}
    assert env.verify(by_prompt[rows[1]["prompt"]], answer).reward == 1.0
    assert env.verify(by_prompt[rows[5]["prompt"]], answer).reward == 0.0
    # Your own background replaces it (here: one without the answer's home prompt).
    mine = [r["prompt"] for r in rows if r is not rows[1]]
    own: Any = rlvr_envs.make("ifeval-data", data=rows[2:], relevance_background=mine)
    assert set(own.verifier.relevance_background.prompts) == set(mine)
    synth: Any = rlvr_envs.make("ifeval-synth", base_prompts=[r["prompt"] for r in rows])
    assert synth.env_id == NEWEST_SYNTH == "ifeval-synth-v15" and len(
        synth.verifier.relevance_background.prompts
    ) == len(rows)


def _units_reference(text: str, drop: frozenset[str]) -> set[str]:
    """``relevance.units`` as a per-word loop (how it was written before round 3)."""
    if text.isascii():
        words = text.encode("ascii").translate(relevance._ASCII_WORD_TABLE).decode("ascii").lower().split()
        return {w[:6] for w in words if len(w) >= 3 and w not in drop}
    found = {w[:6] for w in map(relevance._fold, relevance._WORD_RE.findall(text)) if len(w) >= 3 and w not in drop}
    for run in relevance._NO_SPACE_RUN_RE.findall(text):
        found.update(relevance._bigrams(run))
    return found


def test_the_fast_paths_give_the_words_a_per_word_loop_gives() -> None:
    """The gate lowers words in one call and dedupes before filtering (speed, round 3): the
    same words and units as a per-word loop, on labelled text and on random text full of
    case-changing characters (İ, ß, ẞ, ǅ, final sigma, ligatures)."""
    rng = random.Random(3)
    alphabet = "aAzZ'’-İıßẞﬁÀÿЀӿ ǅǄ\n|\"  .,ΣσςKk的了日本ภาษา"
    texts = [r["response"] for r in read_jsonl("ifbench_responses_labeled.jsonl")]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300))) for _ in range(500)]
    for text in texts:
        found = relevance._LATIN_CYRILLIC_WORD_RE.findall(text)
        assert relevance._lowered(found) == [w.lower() for w in found]
        for drop in (relevance.STOP_WORDS, relevance.TASK_STOP_WORDS, frozenset()):
            assert relevance.units(text, drop) == _units_reference(text, drop)


def test_outranking_refuses_no_labelled_answer_and_its_twin_is_not_pickled(labelled) -> None:
    """Round 4's similarity rule (``contrast.outranked``): of the labelled-good responses under
    their own prompt only IFBench 240 is outranked (a palindrome list under "translate this
    Chinese text", which the overlap rule refuses already); the outranking twin of a background
    is made once and stays out of its pickle (the pool ships the background to every worker)."""
    rows, _, verifiers = labelled
    background = verifiers["ifeval-data-v4"].relevance_background
    outranked = []
    for r in (r for r in rows if r["reference_strict_all"]):
        checkers = build_checkers(r["instruction_id_list"], r["kwargs"])
        task = relevance.task_units(r["prompt"], tuple(checkers)).units
        found = relevance.units(r["response"][: relevance.MAX_RELEVANCE_CHARS])
        if contrast.outranked(background, r["prompt"], task, found) is not None:
            outranked.append(r["key"])
    assert outranked == ["240"]
    twin = background.outranking()
    assert twin.outrank and not background.outrank and background.outranking() is twin
    assert twin.outranking() is twin
    restored = pickle.loads(pickle.dumps(background))
    assert "_outranking" not in restored.__dict__ and restored.prompts == background.prompts
