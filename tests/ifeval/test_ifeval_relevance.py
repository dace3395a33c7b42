"""The training ids' relevance gate (issue 26): a response must address its prompt's task.

Calibration on the labelled responses (../shared/data), the paste test (a real answer under
other prompts), word salad, scripts without spaces, the options and versions. The figures the
README quotes are printed (``pytest -s``) and bounded here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Reason, Task
from rlvr_ifeval import relevance
from rlvr_ifeval.guard import WORD_SALAD
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import read_jsonl, shared_path

LABELLED = ("ifeval_gpt4_responses_labeled.jsonl", "ifbench_responses_labeled.jsonl")

# Generic vocabulary, lowercase, no commas: the shape of the salad that scored on 78 tasks.
GENERIC = (
    "people time year way day thing man world life hand part child eye woman place work week case point "
    "government company number group problem fact system program question home water room mother area money "
    "story month lot right study book job word business issue side kind head house service friend father power "
    "hour game line end member law car city community name president team minute idea body information back "
    "parent face others level office door health person art war history party result change morning reason "
    "research girl guy moment air teacher force education good new first last long great little own other old"
).split()


def _salad(seed: int, words: int = 350) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(GENERIC) for _ in range(words))


def _rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name in LABELLED:
        rows.extend(read_jsonl(name))
    return rows


def _checkers(row: dict[str, Any]) -> tuple:
    return tuple(build_checkers(row["instruction_id_list"], row["kwargs"]))


@pytest.fixture(scope="module")
def labelled() -> list[dict[str, Any]]:
    return _rows()


def test_the_gate_rejects_at_most_one_percent_of_labelled_good_responses(labelled) -> None:
    good = [r for r in labelled if r["reference_strict_all"]]
    rejected = [r["key"] for r in good if relevance.off_topic(r["prompt"], r["response"], _checkers(r))]
    everything = [r["key"] for r in labelled if relevance.off_topic(r["prompt"], r["response"], _checkers(r))]
    print(f"\nrelevance gate: {len(rejected)}/{len(good)} labelled-good rejected {rejected}; all responses: "
          f"{len(everything)}/{len(labelled)}")  # fmt: skip
    assert len(good) == 493
    assert len(rejected) <= 0.01 * len(good)
    assert len(everything) <= 0.02 * len(labelled)


def test_the_training_verifier_adds_at_most_one_percent_rejections_on_good_responses(labelled) -> None:
    """The whole verdict: guard and gate together, against the guard alone."""
    with_gate = IFEvalVerifier(relevance="overlap")
    without = IFEvalVerifier()
    good = [r for r in labelled if r["reference_strict_all"]]
    lost = []
    for i, r in enumerate(good):
        task = Task(id=str(i), prompt=r["prompt"], answer={k: r[k] for k in ("instruction_id_list", "kwargs")})
        before, after = without.verify(task, r["response"]), with_gate.verify(task, r["response"])
        if before.reward == 1 and after.reward != 1:
            assert after.reason is Reason.WRONG and after.details["rejected"] == relevance.OFF_TOPIC
            assert set(after.details["relevance"]) in (
                {"task_units", "matched", "needed"},
                {"function_share", "min_function_share", "prose_words"},
            )
            lost.append(r["key"])
    assert len(lost) <= 0.01 * len(good), lost


def _paste_rates(labelled: list[dict[str, Any]], v0: bool) -> tuple[float, float, float]:
    """A good response for prompt i, checked against 30 prompts j != i: the share of all pairs
    that pass, the share of pairs the gate judges (enough task units, a long response, no
    short-answer instruction) and the share of those that pass."""
    rng = random.Random(0)
    min_units = relevance.MIN_TASK_UNITS_V0 if v0 else relevance.MIN_TASK_UNITS
    good = [r for r in labelled if r["reference_strict_all"]]
    pairs = judged = passed_judged = passed = 0
    for r in good:
        long_enough = relevance.count_words_any_script(r["response"]) >= relevance.MIN_RESPONSE_WORDS
        for j in rng.sample(range(len(labelled)), 30):
            other = labelled[j]
            if other["prompt"] == r["prompt"]:
                continue
            pairs += 1
            checkers = _checkers(other)
            ok = relevance.off_topic(other["prompt"], r["response"], checkers, min_units=min_units, v0=v0) is None
            passed += ok
            task = relevance.task_units(other["prompt"], checkers, v0)
            short_answer = any(c.allows_short_answer() for c in checkers)
            if len(task.units) >= min_units and long_enough and not short_answer:
                judged += 1
                passed_judged += ok
    return passed / pairs, judged / pairs, passed_judged / judged


def test_a_real_answer_pasted_under_other_prompts_rarely_passes_where_the_gate_judges(labelled) -> None:
    """The gate judges more pairs than ifeval-data-v1's (3 task units, not 4) and lets fewer of
    the judged ones through (6-letter units: "international" no longer meets "interesting");
    short answers and tasks with little topical text stay unjudged (the judge is for those)."""
    before, after = _paste_rates(labelled, v0=True), _paste_rates(labelled, v0=False)
    for name, (passed, judged, passed_judged) in (("v0 (ifeval-data-v1)", before), ("now", after)):
        print(
            f"\npastes, {name}: {passed:.1%} of all pairs pass; {judged:.1%} judged, of which {passed_judged:.1%} pass"
        )
    assert after[1] > before[1] and after[2] < before[2]
    assert after[0] < 0.55 and after[2] < 0.15


def test_generic_word_salad_fails_wherever_the_gate_judges(labelled) -> None:
    for seed in range(3):
        salad = _salad(seed)
        judged = failed = 0
        for r in labelled:
            checkers = _checkers(r)
            task = relevance.task_units(r["prompt"], checkers)
            if len(task.units) < relevance.MIN_TASK_UNITS or any(c.allows_short_answer() for c in checkers):
                continue
            judged += 1
            failed += relevance.off_topic(r["prompt"], salad, checkers) is not None
        print(f"\nsalad {seed}: fails the gate on {failed}/{judged} judged prompts")
        assert failed >= 0.6 * judged


# Salads in several languages and shapes: generic vocabulary in random order, lowercase, no
# commas (the shape that satisfies format-only constraints), with and without the instruction's
# own keywords, in English, German, French and Chinese.
GERMAN = (
    "regierung wasser geschichte familie stadt arbeit schule haus auto kind leben welt jahr zeit land geld frage "
    "problem buch freund mutter vater zimmer musik straße woche morgen abend sprache firma gesundheit"
).split()
FRENCH = (
    "gouvernement eau histoire famille ville travail école maison voiture enfant vie monde année temps pays "
    "argent question problème livre ami mère père chambre musique rue semaine matin soir langue santé"
).split()
CHINESE = list(
    "政府公司水历史家庭城市工作学校房子汽车孩子生活世界时间国家问题书朋友母亲父亲音乐街道早晨语言电脑经济健康"
)


EVEN_FUNCTION = "the a of and to in on with by from at as into over under".split()


def _salads(task: Task, seed: int) -> dict[str, str]:
    rng = random.Random(seed)
    own = [w for k in task.answer["kwargs"] for v in (k or {}).values() for w in (v if isinstance(v, list) else [v])]
    own_words = [w for w in own if isinstance(w, str)] * 5
    prompt = ["".join(c for c in w if c.isalnum()) for w in task.prompt.lower().split()]
    prompt = [w for w in prompt if w] or ["word"]
    return {
        "english": " ".join(rng.choice(GENERIC) for _ in range(350)),
        "english+keywords": " ".join(rng.choice(GENERIC + own_words) for _ in range(350)),
        "german": " ".join(rng.choice(GERMAN) for _ in range(350)),
        "french": " ".join(rng.choice(FRENCH) for _ in range(350)),
        "chinese": "".join(rng.choice(CHINESE) for _ in range(700)),
        # Function words drawn as evenly as the rest (about one word in six).
        "english+function-words": " ".join(rng.choice(GENERIC + EVEN_FUNCTION) for _ in range(350)),
        # Every fourth word one of the prompt's, in the prompt's order.
        "prompt-stuffed": " ".join(
            prompt[(i // 4) % len(prompt)] if i % 4 == 3 else rng.choice(GENERIC) for i in range(350)
        ),
        "prompt-shuffled": " ".join(rng.choice(prompt) for _ in range(350)),
    }


def _salad_wins(env: Any, tasks: Sequence[Task]) -> dict[str, int]:
    wins: dict[str, int] = {}
    for i, task in enumerate(tasks):
        for kind, salad in _salads(task, i).items():
            wins[kind] = wins.get(kind, 0) + (env.verifier.verify(task, salad).reward > 0)
    return wins


def test_word_salads_score_on_no_ifeval_data_task() -> None:
    data = str(shared_path("ifeval_input_data.jsonl"))
    envs = {v: rlvr_envs.make(f"ifeval-data-v{v}", data=data) for v in (0, 1, 2, 3)}
    wins = {v: _salad_wins(env, env.tasks) for v, env in envs.items()}
    print(f"\nsalads scoring on 541 ifeval-data tasks: {wins}")
    assert sum(wins[0].values()) > 100  # the salads do satisfy format-only constraints
    # Known: the prompt's words in its own order every fourth word bring the prompt's short
    # function words at a natural rate (9 tasks of 541; the redteam's stuffing scores 0).
    assert wins[2].pop("prompt-stuffed") <= 9
    assert wins[2] == dict.fromkeys(wins[2], 0)
    # Round 3 (ifeval-data-v3): the interleaved-prompt rule refuses the stuffed salad too.
    assert wins[3] == dict.fromkeys(wins[3], 0)


def test_word_salads_score_on_no_synth_task() -> None:
    wins = {}
    for version in (1, 2, 3, 4):
        env: Any = rlvr_envs.make(f"ifeval-synth-v{version}", level=1, seed=0)
        generator = random.Random(5)
        wins[version] = _salad_wins(env, [env.generate(generator) for _ in range(300)])
    print(f"\nsalads scoring on 300 level-1 synth tasks: {wins}")
    assert sum(wins[1].values()) > 50
    assert wins[3].pop("prompt-stuffed") <= 2  # known, as above
    assert wins[3] == dict.fromkeys(wins[3], 0)
    assert wins[4] == dict.fromkeys(wins[4], 0)  # round 3


def test_the_language_rule_rejects_no_labelled_response(labelled) -> None:
    """Calibration of the language-likeness rule alone: no labelled response (good or not) is
    refused by it; the lowest shares it judged are printed."""
    judged = []
    for r in labelled:
        found = relevance.function_share(r["response"])
        if found is not None:
            judged.append((round(found[0], 3), r["key"]))
            assert relevance.not_language(r["response"], _checkers(r)) is None, r["key"]
    judged.sort(key=lambda x: x[0])
    print(f"\nlanguage rule: judged {len(judged)}/{len(labelled)}; lowest shares {judged[:6]}")
    assert len(judged) > 0.6 * len(labelled)


UNLISTED = {
    "vietnamese": "Chúng tôi có thể có khả năng cải thiện mô hình của mình cho năm sau. Chúng tôi sẽ có thể so "
    "sánh dữ liệu với những năm trước và tìm ra nguyên nhân của các vấn đề. ",
    "finnish": "Kun haistat kukkaa, tapahtuu monia asioita. Ensimmäinen asia on, että sinun nenäsi havaitsee "
    "tuoksumolekyylit ja lähettää viestin aivoihin. ",
    "polish": "Wczoraj poszliśmy z rodziną na długi spacer po parku miejskim. Pogoda była piękna, słońce świeciło "
    "przez cały dzień, a dzieci bawiły się na placu zabaw. ",
}


@pytest.mark.parametrize("language", sorted(UNLISTED))
def test_natural_text_in_a_language_without_a_function_word_list_is_not_refused(language: str) -> None:
    text = UNLISTED[language] * 6
    found = relevance.function_share(text)
    assert (
        found is not None and found[0] < 0.15
    )  # low, as a salad's: the rule asks the language detector before refusing
    assert relevance.not_language(text, ()) is None


@pytest.mark.parametrize("language", ["english", "chinese", "japanese"])
def test_natural_text_passes_the_language_rule(language: str) -> None:
    sample = {"english": ESSAY * 2 + OFF_TOPIC_ESSAY, "chinese": ZH_ESSAY, "japanese": JA_ESSAY}[language]
    assert relevance.function_share(sample) is not None
    assert relevance.not_language(sample, ()) is None


def _task(prompt: str, ids: list[str], kwargs: list[dict[str, Any]] | None = None) -> Task:
    return Task(id="t", prompt=prompt, answer={"instruction_id_list": ids, "kwargs": kwargs or [{} for _ in ids]})


ESSAY = (
    "Urban gardening turns rooftops balconies and vacant lots into places that grow food. Community gardens "
    "in dense neighbourhoods give residents fresh vegetables and a reason to meet their neighbours. Raised "
    "beds and containers make gardening possible where the soil is poor or polluted. Compost from kitchen "
    "scraps feeds the plants and keeps waste out of landfills. City gardeners learn which crops suit small "
    "spaces: herbs tomatoes peppers beans and salad greens thrive in pots. Bees and butterflies follow the "
    "flowers and help pollinate the neighbourhood. Schools use gardens to teach children where food comes "
    "from. Local councils can help by opening unused land offering water access and running workshops on "
    "soil care and planting calendars. The result is a greener city with cooler streets and stronger ties."
)
OFF_TOPIC_ESSAY = (
    "The stock market moved sharply today as investors worried about rising interest rates. Bank shares led "
    "the decline and technology stocks also fell after a week of gains. Analysts think the central bank may "
    "lift rates again at its next meeting and bond yields climbed in response. The dollar strengthened "
    "against most other currencies while gold slipped a little in late trading. Experts advise investors to "
    "stay cautious and to spread their money across different assets with an eye on the long term. Retail "
    "traders who bought at the top are now nursing losses and some are selling to free up cash."
)
PROMPT = (
    "Write a blog post about urban gardening in dense neighbourhoods: rooftop plots, raised beds, compost and "
    "vegetables. Do not use any commas in your response."
)


def test_an_on_topic_answer_passes_and_the_same_length_of_salad_does_not() -> None:
    verifier = IFEvalVerifier(relevance="overlap")
    task = _task(PROMPT, ["punctuation:no_comma"])
    assert verifier.verify(task, ESSAY).reward == 1.0
    # (A salad that happens to hold one of the task's words passes: the gate is lexical.)
    assert not relevance.units(" ".join(GENERIC)) & relevance.task_units(PROMPT, ()).units
    verdict = verifier.verify(task, _salad(0, 150))
    assert verdict.reward == 0 and verdict.reason is Reason.WRONG
    assert verdict.details["rejected"] == relevance.OFF_TOPIC
    assert verdict.details["relevance"]["function_share"] < relevance.MIN_FUNCTION_SHARE
    # Fluent text on another topic passes the language rule and fails the overlap rule.
    off = IFEvalVerifier(relevance="overlap").verify(task, OFF_TOPIC_ESSAY)
    assert off.reward == 0 and off.details["relevance"]["matched"] < off.details["relevance"]["needed"]
    # The overlap rule alone (ifeval-data-v1) judged the salad by overlap.
    old = IFEvalVerifier(relevance="overlap-v0").verify(task, _salad(0, 150))
    assert old.reward == 0 and old.details["relevance"]["matched"] < old.details["relevance"]["needed"]
    # The benchmark scoring (relevance off) pays the salad: the gate is what refuses it.
    assert IFEvalVerifier(guard=False).verify(task, _salad(0, 150)).reward == 1.0
    assert IFEvalVerifier(guard_rules="v1").verify(task, _salad(0, 150)).reward == 1.0
    # The guard's v2 rules (its default since round 3 of issue 26) refuse it without a gate.
    guarded = IFEvalVerifier().verify(task, _salad(0, 150))
    assert guarded.reason is Reason.NO_ANSWER and guarded.details["rejected"] == WORD_SALAD


ZH_PROMPT = "请写一篇关于城市屋顶菜园和社区堆肥的博客文章，介绍居民种植蔬菜的好处。"
ZH_ESSAY = (
    "城市屋顶菜园正在改变我们的社区。居民在屋顶上种植蔬菜，用厨房垃圾做堆肥，既减少了浪费，又让土壤更加肥沃。"
    "社区菜园让邻居们有机会一起劳动，孩子们也能学习蔬菜是怎样长大的。番茄、辣椒和青菜在小小的花盆里也能茁壮成长。"
    "城市管理部门可以开放闲置的屋顶，提供用水和种植培训。这样，城市会更绿色，夏天的街道也会更凉爽，居民之间的联系更加紧密。"
) * 2
ZH_OFF = (
    "股票市场今天大幅波动，投资者担心利率上升。银行板块领跌，科技股也出现回调。分析师认为央行可能继续加息，"
    "债券收益率随之攀升。外汇市场上美元走强，黄金价格小幅下跌。专家建议投资者保持谨慎，分散配置资产，关注长期基本面。"
) * 3
JA_PROMPT = "都市の屋上菜園とコミュニティの堆肥づくりについてブログ記事を書いてください。住民が野菜を育てる利点を説明してください。"
JA_ESSAY = (
    "都市の屋上菜園は地域のつながりを強めます。住民は屋上で野菜を育て、台所の生ごみから堆肥を作ります。"
    "子どもたちは野菜がどのように育つかを学び、近所の人々は一緒に作業する機会を得ます。トマトやピーマンは小さな鉢でもよく育ちます。"
    "自治体は使われていない屋上を開放し、水や講習を提供できます。"
) * 2
TH_PROMPT = "เขียนบทความเกี่ยวกับสวนผักบนดาดฟ้าในเมืองและการทำปุ๋ยหมักของชุมชน อธิบายประโยชน์ของการปลูกผักของผู้อยู่อาศัย"
TH_ESSAY = (
    "สวนผักบนดาดฟ้าในเมืองช่วยให้ชุมชนใกล้ชิดกันมากขึ้น ผู้อยู่อาศัยปลูกผักบนดาดฟ้าและทำปุ๋ยหมักจากเศษอาหารในครัว "
    "เด็กๆ ได้เรียนรู้ว่าผักเติบโตอย่างไร เพื่อนบ้านได้ทำงานร่วมกัน มะเขือเทศและพริกเติบโตได้ดีในกระถางเล็กๆ "
) * 3


@pytest.mark.parametrize(
    ("prompt", "answer", "off"),
    [(ZH_PROMPT, ZH_ESSAY, ZH_OFF), (JA_PROMPT, JA_ESSAY, ZH_OFF), (TH_PROMPT, TH_ESSAY, ZH_OFF)],
    ids=["chinese", "japanese", "thai"],
)
def test_scripts_without_spaces_are_compared_by_character_bigrams(prompt: str, answer: str, off: str) -> None:
    verifier = IFEvalVerifier(relevance="overlap", min_words=0)
    task = _task(prompt, ["detectable_content:number_placeholders"], [{"num_placeholders": 0}])
    assert len(relevance.task_units(prompt, ()).units) >= relevance.MIN_TASK_UNITS
    assert verifier.verify(task, answer).reward == 1.0
    off_verdict = verifier.verify(task, off)
    assert off_verdict.reward == 0 and off_verdict.details["rejected"] == relevance.OFF_TOPIC


def test_units_are_stemming_free_and_ignore_case_and_accents() -> None:
    assert relevance.units("Gardening GARDENS garden") == {"garden"}
    assert relevance.units("Café CAFÉS") == {"cafe", "cafes"}
    assert "war" in relevance.units("a long lasting war")  # German's "war" (was) is no English stop word
    assert relevance.units("the and of to") == set()


def test_constraint_sentences_are_not_the_task() -> None:
    task = relevance.task_units(PROMPT, tuple(build_checkers(["punctuation:no_comma"], [{}])))
    assert "Do not use any commas" not in task.task_text
    assert {"urban", "garden", "roofto", "compos"} <= task.units
    assert not task.units & {"comma", "respon"}
    # The instruction's own keywords are no evidence: a salad carries them anyway.
    checkers = tuple(build_checkers(["keywords:existence"], [{"keywords": ["lantern", "harvest"]}]))
    prompt = "Write a story about a lighthouse keeper on a stormy island. Include the keywords lantern and harvest."
    assert not relevance.task_units(prompt, checkers).units & {"lanter", "harves"}


def test_responses_in_another_language_and_short_answer_tasks_are_not_judged() -> None:
    french = tuple(build_checkers(["language:response_language"], [{"language": "fr"}]))
    assert relevance.task_units(PROMPT, french).units == frozenset()
    short = build_checkers(["detectable_format:constrained_response"], [{}])
    assert relevance.off_topic(PROMPT, OFF_TOPIC_ESSAY, short) is None  # the overlap rule spares it
    assert relevance.off_topic(PROMPT, _salad(0, 200), short) is not None  # a long salad is a salad


@pytest.mark.parametrize(
    ("env_id", "expected"),
    [
        ("ifeval-data-v15", "contrast"),
        ("ifeval-synth-v15", "contrast"),
        ("ifeval-data-v14", "contrast"),
        ("ifeval-synth-v14", "contrast"),
        ("ifeval-data-v13", "contrast"),
        ("ifeval-synth-v13", "contrast"),
        ("ifeval-data-v12", "contrast"),
        ("ifeval-synth-v12", "contrast"),
        ("ifeval-data-v11", "contrast"),
        ("ifeval-synth-v11", "contrast"),
        ("ifeval-data-v10", "contrast"),
        ("ifeval-synth-v10", "contrast"),
        ("ifeval-data-v9", "contrast"),
        ("ifeval-synth-v9", "contrast"),
        ("ifeval-data-v8", "contrast"),
        ("ifeval-synth-v8", "contrast"),
        ("ifeval-data-v7", "contrast"),
        ("ifeval-data-v6", "contrast"),
        ("ifeval-synth-v7", "contrast"),
        ("ifeval-data-v5", "contrast"),
        ("ifeval-synth-v6", "contrast"),
        ("ifeval-data-v4", "contrast"),
        ("ifeval-synth-v5", "contrast"),
        ("ifeval-data-v3", "contrast"),
        ("ifeval-synth-v4", "contrast"),
        ("ifeval-data-v2", "overlap"),
        ("ifeval-synth-v3", "overlap"),
        ("ifeval-data-v1", "overlap-v0"),
        ("ifeval-synth-v2", "overlap-v0"),
        ("ifeval-data-v0", "off"),
        ("ifeval-synth-v1", "off"),
        ("ifeval-v1", "off"),
        ("ifbench-v1", "off"),
    ],
)
def test_training_ids_default_to_the_gate_and_benchmark_ids_score_as_the_reference(env_id: str, expected: str) -> None:
    kwargs: dict[str, Any] = {}
    if not env_id.startswith("ifeval-synth"):
        kwargs["data"] = str(shared_path("ifbench_test.jsonl" if "ifbench" in env_id else "ifeval_input_data.jsonl"))
    env = rlvr_envs.make(env_id, **kwargs)
    assert getattr(env.verifier, "relevance", None) == expected
    assert rlvr_envs.make("ifeval-synth").env_id == "ifeval-synth-v15"
    assert rlvr_envs.make("ifeval-data", data=str(shared_path("ifeval_input_data.jsonl"))).env_id == "ifeval-data-v15"
    # The ids before round 3 keep the guard's v1 rules; the latest have v2.
    latest: tuple[str, ...] = (
        "ifeval-data-v15",
        "ifeval-synth-v15",
        "ifeval-data-v14",
        "ifeval-synth-v14",
        "ifeval-data-v13",
        "ifeval-synth-v13",
        "ifeval-data-v12",
        "ifeval-synth-v12",
        "ifeval-data-v11",
        "ifeval-synth-v11",
        "ifeval-data-v10",
        "ifeval-synth-v10",
        "ifeval-data-v9",
        "ifeval-synth-v9",
        "ifeval-data-v8",
        "ifeval-synth-v8",
        "ifeval-data-v7",
        "ifeval-synth-v7",
        "ifeval-data-v6",
    )
    latest = (*latest, "ifeval-synth-v6", "ifeval-data-v5", "ifeval-synth-v5", "ifeval-data-v4")
    rules = "v2" if env_id in (*latest, "ifeval-synth-v4", "ifeval-data-v3", "ifeval-v1", "ifbench-v1") else "v1"
    assert getattr(env.verifier, "guard_rules", None) == rules
    # Round 4: only the latest training ids refuse a response in a language the prompt does not allow.
    assert getattr(env.verifier, "relevance_language", None) == (env_id in latest)
    assert getattr(env.verifier, "relevance_genre", None) == (env_id in latest)
    assert getattr(env.verifier, "relevance_outrank", None) == (env_id in latest)
    # Round 5 (relevance_paste=1) refuses a response that shares nothing with its prompt; round 6
    # (2) judges it by chance and a far better home; round 7 (3) by what chance or an answer gives;
    # round 8 (4) judges the response's own text (rlvr_ifeval.own_text).
    levels = {
        "ifeval-data-v15": 11,
        "ifeval-synth-v15": 11,
        "ifeval-data-v14": 10,
        "ifeval-synth-v14": 10,
        "ifeval-data-v13": 9,
        "ifeval-synth-v13": 9,
        "ifeval-data-v12": 8,
        "ifeval-synth-v12": 8,
        "ifeval-data-v11": 7,
        "ifeval-synth-v11": 7,
        "ifeval-data-v10": 6,
        "ifeval-synth-v10": 6,
        "ifeval-data-v9": 5,
        "ifeval-synth-v9": 5,
        "ifeval-data-v8": 4,
        "ifeval-synth-v8": 4,
        "ifeval-data-v7": 3,
        "ifeval-synth-v7": 2,
        "ifeval-data-v6": 2,
        "ifeval-synth-v6": 1,
        "ifeval-data-v5": 1,
    }
    level = levels.get(env_id, 0)
    assert getattr(env.verifier, "relevance_paste", None) == level


def test_bad_relevance_options_are_refused() -> None:
    with pytest.raises(ValueError, match="relevance must be one of"):
        IFEvalVerifier(relevance="embeddings")


def test_hostile_responses_cost_little_and_never_raise() -> None:
    verifier = IFEvalVerifier(relevance="overlap")
    task = _task(PROMPT, ["punctuation:no_comma"])
    for response in ("\x00" * 10_000, "ก" * 200_000, "a" * 2_000_000, "😀 " * 50_000, "\ud800 lone surrogate " * 100):
        verdict = verifier.verify(task, response)
        assert verdict.reward in (0.0, 1.0)


SYNTH_ANSWERS = {
    "Write a blog post about the history of the bicycle.": (
        "The bicycle began in 1817 when Karl Drais rode a wooden running machine through Mannheim. Pedals came "
        "in the 1860s and the tall penny farthing followed. The safety bicycle of the 1880s with its chain and "
        "equal wheels made cycling popular and pneumatic tyres made it comfortable. Within decades bicycles "
        "carried workers to factories and gave women a new freedom of movement across towns and villages."
    ),
    "Write a speech about why sleep matters.": (
        "Friends and colleagues tonight I want to talk about sleep. We treat it as wasted time yet sleep is when "
        "the brain files memories and the body repairs muscle. Without enough sleep our mood falls and our "
        "judgement slips. Teenagers need nine hours and adults seven or more. So switch off the screens keep a "
        "steady bedtime and remember that rest is not laziness: sleep matters for every one of us."
    ),
    "Write a travel guide entry about the northern lights.": (
        "The northern lights or aurora borealis glow green and violet above Tromso Abisko and Fairbanks from "
        "September to March. Charged particles from the sun strike the upper atmosphere and the sky shimmers. "
        "Choose a clear dark night far from city lights check the aurora forecast and dress warmly. The best "
        "displays often come near midnight so bring a thermos and patience along with a camera on a tripod."
    ),
}


def test_synth_answers_on_topic_pass_and_pastes_and_salad_do_not() -> None:
    env = rlvr_envs.make("ifeval-synth", level=1, seed=0)
    assert env.env_id == "ifeval-synth-v15"
    tasks = {p: _task(p, ["punctuation:no_comma"]) for p in SYNTH_ANSWERS}
    for prompt, answer in SYNTH_ANSWERS.items():
        assert env.verifier.verify(tasks[prompt], answer).reward == 1.0, prompt
        for other, task in tasks.items():
            if other != prompt:
                pasted = env.verifier.verify(task, answer)
                assert pasted.reward == 0 and pasted.details["rejected"] == relevance.OFF_TOPIC, (prompt, other)
