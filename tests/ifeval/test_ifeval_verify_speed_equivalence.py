"""The training ids' fast verify path gives the verdicts of the reference rules (issue 26/30).

The guard's content rules and the relevance gate were made cheap (one analysis of a response
shared by the rules, ASCII fast paths, cheap rejects first: ``bench/ifeval_checks.py`` measures
it). Their old, plain implementations are kept in ``ifeval_reference_rules``; here every
verdict of the fast path is compared with the reference's, field for field (reward, reason,
details with their figures), on:

* the labelled responses (IFEval GPT-4, IFBench) under their own prompts and pasted under
  ``OTHER_PROMPTS`` other prompts each (``$IFEVAL_EQUIVALENCE_PROMPTS`` raises it: 30 was run
  once for the issue);
* word salads of several kinds (generic, with the instruction's keywords, German, French,
  Chinese, evenly drawn function words, the prompt's words stuffed or shuffled), refusals,
  the guard tests' degenerate and legitimate responses, hostile texts (floods, runs of one
  character, control characters, apostrophes and hyphens everywhere, the 100,000-character
  cap crossed);
* prose in Chinese, Japanese, Thai, German, French and Korean, alone and mixed with English;

with numba's word counts loaded (``rlvr_ifeval.prose_jit``), under every training configuration
(``contrast`` with the labelled prompts as background, the ``overlap`` gate with guard ``v1``,
``overlap-v0``, guard ``v2`` without a gate, partial credit)
and the newest registered ``ifeval-data`` and ``ifeval-synth`` ids as the registry makes them
(their language, form and contrast rules on top: the fast paths must give the same verdicts
whatever those rules decide before or after them).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Task, Verdict
from rlvr_ifeval import analysis, guard, prose_jit, relevance
from rlvr_ifeval.contrast import Background
from rlvr_ifeval.guard import REJECTIONS, WORD_SALAD
from rlvr_ifeval.relevance import OFF_TOPIC
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import read_jsonl
from tests.ifeval import ifeval_reference_rules
from tests.ifeval.test_ifeval_guard_degenerate import DEGENERATE, LEGIT

OTHER_PROMPTS = int(os.environ.get("IFEVAL_EQUIVALENCE_PROMPTS", "3"))
LABELLED = ("ifeval_gpt4_responses_labeled.jsonl", "ifbench_responses_labeled.jsonl")

GENERIC = (
    "people time year way day thing man world life hand part child eye woman place work week case point "
    "government company number group problem fact system program question home water room mother area money "
    "story month lot right study book job word business issue side kind head house service friend father power"
).split()
FUNCTION = "the a of and to in on with by from at as into over under it is was".split()
RARE_FUNCTION = "nor whom whose hers ours theirs neither either upon shall".split()
GERMAN = "Haus Zeit Jahr Mensch Stadt Wasser Arbeit Leben Weg Kind Schule Freund Buch Geld Land".split()
FRENCH = "maison temps année homme ville eau travail vie chemin enfant école ami livre argent pays".split()
CHINESE = "人时年道事物世界生活手部分孩子眼女地方工作周点政府公司数字组问题系统"
PROSE = {
    "zh": "城市里的小花园越来越受欢迎。人们在阳台上种番茄和辣椒，周末的时候和邻居交换种子。"
    "孩子们也喜欢浇水，看着植物一天天长大。",
    "ja": "都市の小さな庭は年々人気が高まっています。人々はベランダでトマトやピーマンを育て、"
    "週末には近所の人と種を交換します。子どもたちも水やりが好きです。",
    "th": "สวนเล็กๆ ในเมืองได้รับความนิยมมากขึ้นทุกปี ผู้คนปลูกมะเขือเทศบนระเบียง และแลกเปลี่ยนเมล็ดพันธุ์กับเพื่อนบ้านในวันหยุดสุดสัปดาห์",
    "de": "Kleine Gärten in der Stadt werden jedes Jahr beliebter. Die Menschen ziehen Tomaten auf dem "
    "Balkon, und am Wochenende tauschen sie Samen mit den Nachbarn. Die Kinder gießen gern die Pflanzen. ",
    "fr": "Les petits jardins en ville sont de plus en plus populaires. Les gens cultivent des tomates sur "
    "le balcon et échangent des graines avec leurs voisins le week-end. Les enfants aiment arroser. ",
    "ko": "도시의 작은 정원은 해마다 인기가 높아지고 있습니다. 사람들은 발코니에서 토마토를 키우고 "
    "주말에는 이웃과 씨앗을 나눕니다. 아이들도 물 주기를 좋아합니다. ",
}
ASCII_ALPHABET = "aAzZbkK'-\n|\"{}<>[]`=;  .,!?0123456789_*#\t\r"
ALPHABET = ASCII_ALPHABET + "’‐‑İıßẞﬁÀÿЀӿǅǄΣσςK的了日本ภาษา\u0301\u200b\u00a0“”—"
REFUSALS = (
    "I'm sorry, but I can't help with that.",
    "I don't know.",
    "As an AI language model, I cannot answer this question.",
    "抱歉，我无法回答这个问题。",
    "申し訳ありませんが、お答えできません。",
    "죄송합니다. 도와드릴 수 없습니다.",
    "Es tut mir leid, ich kann Ihnen nicht helfen.",
    "Je suis désolé, je ne peux pas vous aider.",
    "ขอโทษ ไม่สามารถช่วยได้",
    "N/A",
    "Idon'tknow",
)


def _rows() -> list[dict[str, Any]]:
    return [row for name in LABELLED for row in read_jsonl(name)]


def _task(key: str, row: dict[str, Any], prompt: str | None = None) -> Task:
    answer = {"instruction_id_list": row["instruction_id_list"], "kwargs": row["kwargs"]}
    return Task(id=key, prompt=row["prompt"] if prompt is None else prompt, answer=answer)


def _salads(task: Task, rng: random.Random) -> Iterator[str]:
    own = [w for k in task.answer["kwargs"] for v in (k or {}).values() for w in (v if isinstance(v, list) else [v])]
    own_words = [w for w in own if isinstance(w, str)] * 5
    prompt = ["".join(c for c in w if c.isalnum()) for w in task.prompt.lower().split()]
    prompt = [w for w in prompt if w] or ["word"]
    yield " ".join(rng.choice(GENERIC) for _ in range(350))
    yield " ".join(rng.choice(GENERIC + own_words) for _ in range(350))
    yield " ".join(rng.choice(GENERIC + FUNCTION) for _ in range(350))
    yield " ".join(rng.choice(GERMAN) for _ in range(300))
    yield " ".join(rng.choice(FRENCH) for _ in range(300))
    yield "".join(rng.choice(CHINESE) for _ in range(700))
    yield " ".join(prompt[(i // 4) % len(prompt)] if i % 4 == 3 else rng.choice(GENERIC) for i in range(350))
    yield " ".join(rng.choice(prompt) for _ in range(350))
    yield (task.prompt + " ") * 6
    # The prompt's words in order, each after a function word and a filler word: natural
    # function words, few of the prompt's words, but a walk through the prompt.
    yield " ".join(f"{rng.choice(RARE_FUNCTION)} {rng.choice(GENERIC)} {prompt[i % len(prompt)]}" for i in range(120))


def _hostile(rng: random.Random, answer: str) -> Iterator[str]:
    yield "word " * 300
    yield "a " * 400
    yield " ".join(str(i) for i in range(300))
    yield "don't it's O'Brien rock'n'roll e-mail well-known DON'T X-RAY " * 40
    yield "\n".join(" | ".join(rng.choice(GENERIC) for _ in range(5)) for _ in range(80))
    yield "the " * 50 + " ".join(rng.choice(GENERIC) for _ in range(200))
    yield answer * (110_000 // max(1, len(answer)) + 1)  # past the rules' 100,000-character cap
    yield answer.replace(" ", "\u00a0")
    yield answer.replace("'", "\u2019").replace('"', "\u201c")
    yield answer.upper()
    yield answer + "\x00\x01" * 3
    yield "\u200b".join(answer.split()[:200])
    yield answer[: len(answer) // 2] + " 😀 " + answer[len(answer) // 2 :]
    # Random text over the characters the word patterns and fast paths treat specially (ASCII
    # only, and with case-changing, no-space and combining characters).
    for alphabet in (ASCII_ALPHABET, ALPHABET):
        yield "".join(rng.choice(alphabet) for _ in range(rng.randint(200, 3000)))


def _multilingual(rng: random.Random, answer: str) -> Iterator[str]:
    for text in PROSE.values():
        yield text * 4
        yield answer + "\n\n" + text * 2
    yield " ".join(rng.choice(list(PROSE.values())) for _ in range(6))


def _cases(rows: list[dict[str, Any]], others: int) -> Iterator[tuple[Task, str]]:
    rng = random.Random(26)
    for i, row in enumerate(rows):
        task = _task(str(i), row)
        yield task, row["response"]
        for j in rng.sample(range(len(rows)), others):
            yield _task(str(j), rows[j]), row["response"]
        if i % 5 == 0:
            for salad in _salads(task, rng):
                yield task, salad
        if i % 20 == 0:
            for text in _hostile(rng, row["response"]):
                yield task, text
            for text in _multilingual(rng, row["response"]):
                yield task, text
        if i % 40 == 0:
            for refusal in REFUSALS:
                yield task, refusal
    guard_tasks = [(case[1], case[2]) for case in DEGENERATE + LEGIT]
    for n, (task_case, response) in enumerate(guard_tasks):
        prompt, ids, kwargs = task_case
        task = Task(id=f"g{n}", prompt=prompt, answer={"instruction_id_list": ids, "kwargs": kwargs})
        yield task, response
        for text in PROSE.values():
            yield task, text * 3


def _verdict(verdict: Verdict) -> tuple[float, str, Any]:
    return verdict.reward, verdict.reason.value, verdict.details


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _rows()


@pytest.fixture(scope="module", autouse=True)
def _compiled_word_counts() -> None:
    """The fast path as a warmed worker runs it: numba's word counts (``prose_jit``, ``units_jit``)
    loaded before the first comparison, not in the background part way through (without numba:
    the Python paths, which ``test_ifeval_prose_jit.py`` compares with the kernels)."""
    prose_jit.load()


def _verifiers(rows: list[dict[str, Any]]) -> dict[str, IFEvalVerifier]:
    background = Background.build((r["prompt"], build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows)
    return {
        "contrast": IFEvalVerifier(relevance="contrast", relevance_background=background),
        "contrast, partial": IFEvalVerifier(relevance="contrast", relevance_background=background, partial_credit=True),
        "overlap, guard v1": IFEvalVerifier(relevance="overlap", guard_rules="v1"),
        "overlap-v0, guard v1": IFEvalVerifier(relevance="overlap-v0", guard_rules="v1"),
        "guard v2, no gate": IFEvalVerifier(),
        **_newest_training_ids(rows),
    }


def _newest_training_ids(rows: list[dict[str, Any]]) -> dict[str, IFEvalVerifier]:
    """The newest registered training ids' verifiers, made by the registry with their own kwargs
    (whatever is newest when the test runs: a new rule's flags are covered without editing
    this): ``ifeval-data`` over the labelled rows (its background is their prompts) and
    ``ifeval-synth`` as registered (its generator's topics)."""
    data = [{k: r[k] for k in ("prompt", "instruction_id_list", "kwargs")} for r in rows]
    made: dict[str, IFEvalVerifier] = {}
    choices: tuple[tuple[str, dict[str, Any]], ...] = (("ifeval-data", {"data": data}), ("ifeval-synth", {}))
    for name, options in choices:
        env_id = rlvr_envs.spec(name).id
        verifier = rlvr_envs.make(env_id, **options).verifier
        assert isinstance(verifier, IFEvalVerifier), env_id
        made[f"newest: {env_id}"] = verifier
    return made


def _share(name: str, cases: list[tuple[Task, str]]) -> list[tuple[Task, str]]:
    """The cases a configuration is compared on: all for ``contrast``, half for the newest
    ``ifeval-data`` id, a quarter for the others (the rules they add are the same functions)."""
    if name == "contrast":
        return cases
    if name.startswith("newest: ifeval-data"):
        return cases[1::2]
    return cases[::4]


def test_the_fast_path_gives_the_reference_rules_verdicts(rows, monkeypatch) -> None:
    cases = list(_cases(rows, OTHER_PROMPTS))
    verifiers = _verifiers(rows)
    plan = [(name, _share(name, cases)) for name in verifiers]
    fast = {name: [_verdict(verifiers[name].verify(t, r)) for t, r in chosen] for name, chosen in plan}
    with monkeypatch.context() as patch:
        ifeval_reference_rules.install(patch)
        reference = {name: [_verdict(verifiers[name].verify(t, r)) for t, r in chosen] for name, chosen in plan}
    rejected = 0
    found: set[str] = set()  # which rules refused something: the guard's reasons, the gate's figures
    for name, chosen in plan:
        for (task, response), ours, theirs in zip(chosen, fast[name], reference[name]):
            assert ours == theirs, (name, task.id, task.prompt[:80], response[:200])
            details = ours[2] or {}
            if "rejected" in details:
                rejected += 1
                found.add(details["rejected"])
                found.update(details.get("relevance") or ())
    print(f"\n{len(cases)} cases, {sum(len(c) for _, c in plan)} verdicts identical; {rejected} rejections")
    print(sorted(found))
    # The comparison exercised every rule: each refused some cases.
    assert rejected > len(cases) // 10
    rules = set(REJECTIONS.values()) | {WORD_SALAD, OFF_TOPIC}
    figures = {"function_share", "novel_share", "interleaved_prompt_steps", "task_units", "other_prompt_weight"}
    assert rules | figures <= found, rules | figures - found


def test_the_fast_paths_read_the_words_the_patterns_read(rows) -> None:
    """Each fast path against its rule's plain reading, on random text over the characters the
    word patterns treat specially and on the labelled responses."""
    rng = random.Random(30)
    texts = [r["response"] for r in rows[::3]]
    for alphabet in (ASCII_ALPHABET, ALPHABET, "ab'AB -\n\u2019x"):
        texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 400))) for _ in range(400)]
    # Words with apostrophes, regular ("don't", "we're") and not ("rock'n'roll", "dogs'", "x'yZ").
    pieces = "don't it's the cat we're I'm O'Neil rock'n'roll 'tis dogs' DON'T x'yZ a b at’least AT key".split()
    separators = (" ", "  ", "\n", " | ", ", ", ". ")
    for _ in range(2000):
        chosen = rng.sample(pieces, rng.randint(1, len(pieces)))
        texts.append("".join(rng.choice(chosen) + rng.choice(separators) for _ in range(rng.randint(0, 30))))
    ref = ifeval_reference_rules
    literal_sets = [
        build_checkers(["keywords:existence"], [{"keywords": words}])
        for words in (["at least", "Don't", "KEY"], ["a b", "’x", "Zz"], ["naïve", "the"])
    ]
    for text in texts:
        for checkers in literal_sets:
            pattern = relevance._literal_pattern(tuple(checkers))
            assert pattern is not None
            assert relevance._without_literals(checkers, pattern, text) == pattern.subn(" ", text), text[:80]
        prose, han = analysis.prose_words(text)
        words, chars = analysis._prose_words_regex(text)
        assert (list(prose), list(han)) == (words, chars), text[:80]
        assert analysis.joined_words(text) == ref._response_words.__wrapped__(text), text[:80]
        assert relevance.units(text) == ref.units(text), text[:80]
        toks = guard.tokens(text)
        assert toks == ref.tokens(text), text[:80]
        assert guard.content_weight(toks) == ref.content_weight(toks), text[:80]
        for drop in (frozenset(), relevance.prompt_words("The history of the garden and about its roses")):
            assert relevance.function_share(text, drop) == ref.function_share(text, drop), text[:80]
