"""The IFEval-family environments: rewards, guards, prompt formats, data loading, synth."""

from __future__ import annotations

import itertools
import random
import time

import pytest

import rlvr_envs
from rlvr_envs import Reason, Task
from rlvr_envs.errors import DataError, DataUnavailableError
from rlvr_ifeval.envs import IFEvalEnv, IFEvalVerifier
from rlvr_ifeval.scoring import build_checkers, evaluate
from rlvr_ifeval.synth import SPECS, IFEvalSynthEnv, compatible
from tests.helpers.data import read_jsonl, shared_path


def _task(ids: list[str], kwargs: list[dict], prompt: str = "Write about rivers.") -> Task:
    return Task(id="t", prompt=prompt, answer={"instruction_id_list": ids, "kwargs": kwargs})


TITLE_NO_COMMA = _task(["detectable_format:title", "punctuation:no_comma"], [{}, {}])
GOOD = "<<Rivers>>\nRivers carry water from the hills down to the sea and feed the plains on their way."
HALF = "<<Rivers>>\nRivers carry water, silt and life from the hills down to the sea."


def test_all_followed_scores_one_with_per_instruction_details() -> None:
    verdict = IFEvalVerifier().verify(TITLE_NO_COMMA, GOOD)
    assert verdict.passed and verdict.reward == 1.0 and verdict.reason is Reason.OK
    assert verdict.details["followed"] == verdict.details["total"] == 2
    assert [i["instruction_id"] for i in verdict.details["instructions"]] == TITLE_NO_COMMA.answer[
        "instruction_id_list"
    ]


def test_partial_credit_is_opt_in() -> None:
    strict = IFEvalVerifier().verify(TITLE_NO_COMMA, HALF)
    partial = IFEvalVerifier(partial_credit=True).verify(TITLE_NO_COMMA, HALF)
    assert (strict.reward, strict.passed, strict.reason) == (0.0, False, Reason.WRONG)
    assert (partial.reward, partial.passed) == (0.5, False)
    assert [i["followed"] for i in partial.details["instructions"]] == [True, False]


@pytest.mark.parametrize("completion", ["", "I don't know", "True", "False", "None", "Write about rivers."])
def test_degenerate_completions_score_zero_even_when_constraints_hold(completion: str) -> None:
    task = _task(["punctuation:no_comma"], [{}])
    verdict = IFEvalVerifier().verify(task, completion)
    assert verdict.reward == 0.0 and verdict.reason is Reason.NO_ANSWER


def test_min_words_zero_restores_reference_behaviour() -> None:
    task = _task(["punctuation:no_comma"], [{}])
    assert IFEvalVerifier(min_words=0).verify(task, "True").passed


def test_short_answer_instructions_are_not_guarded() -> None:
    task = _task(["detectable_format:constrained_response"], [{}])
    assert IFEvalVerifier().verify(task, "My answer is yes.").passed
    options = _task(["format:options"], [{"options": "I know or I don't know"}])
    assert IFEvalVerifier().verify(options, "I don't know").passed


def test_prompt_echo_plus_answer_is_judged_on_its_merits() -> None:
    task = _task(
        ["combination:repeat_prompt", "detectable_format:title"], [{"prompt_to_repeat": "Write about rivers."}, {}]
    )
    verifier = IFEvalVerifier()
    assert verifier.verify(task, "Write about rivers.").reason is Reason.NO_ANSWER
    answer = "Write about rivers.\n<<Rivers>>\nRivers shape valleys over millions of years."
    assert verifier.verify(task, answer).passed


def test_r1_format_needs_closed_think_and_scores_only_the_answer() -> None:
    verifier = IFEvalVerifier(prompt_format="r1")
    assert verifier.verify(TITLE_NO_COMMA, GOOD).reason is Reason.FORMAT_ERROR
    thought = "<think>Commas, commas, commas, avoid them.</think>"
    assert verifier.verify(TITLE_NO_COMMA, f"{thought} <answer>{GOOD}</answer>").passed
    assert verifier.verify(TITLE_NO_COMMA, f"{thought}\n{GOOD}").passed


def test_leading_think_block_is_not_part_of_the_response() -> None:
    assert IFEvalVerifier().verify(TITLE_NO_COMMA, "<think>a, b, c</think>\n" + GOOD).passed


@pytest.mark.parametrize(
    "answer",
    [
        {"instruction_id_list": ["no:such"], "kwargs": [{}]},
        {"instruction_id_list": ["length_constraints:number_words"], "kwargs": [{"num_words": 5}]},
        {"instruction_id_list": [], "kwargs": []},
        "not an object",
    ],
)
def test_malformed_tasks_are_verifier_errors_not_crashes(answer: object) -> None:
    task = Task(id="bad", prompt="p", answer=answer)
    verdict = IFEvalVerifier().verify(task, GOOD)
    assert verdict.reason is Reason.VERIFIER_ERROR and verdict.reward == 0.0


def test_huge_and_binary_completions_are_handled() -> None:
    env = IFEvalEnv(data=[{"key": 1, "prompt": "p", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}])
    task = env.tasks[0]
    assert env.verify(task, "x" * 3_000_000).reason is Reason.FORMAT_ERROR
    assert env.verify(task, "\x00\xff" * 1000).reward == 0.0


def test_dataset_env_loads_shared_ifeval_and_scores_labelled_responses() -> None:
    env = rlvr_envs.make("ifeval", data=str(shared_path("ifeval_input_data.jsonl")), min_words=0)
    assert len(env.tasks) == 541 and env.tasks[0].id == "1000"
    labelled = {str(r["key"]): r for r in read_jsonl("ifeval_gpt4_responses_labeled.jsonl")}
    for task in env.tasks[:40]:
        row = labelled[task.id]
        assert env.verify(task, row["response"]).passed == row["reference_strict_all"] or task.id == "1129"


def test_ifbench_env_size_and_info_hide_the_answer() -> None:
    env = rlvr_envs.make("ifbench", data=str(shared_path("ifbench_test.jsonl")), size=10)
    assert len(env.tasks) == 10
    obs, info = env.reset(seed=0)
    assert env.current_task is not None
    assert obs == env.current_task.prompt
    assert "kwargs" not in str(info["metadata"])


def test_bad_rows_fail_at_make_with_the_row_named() -> None:
    rows = [{"key": 7, "prompt": "p", "instruction_id_list": ["keywords:frequency"], "kwargs": [{"keyword": "x"}]}]
    with pytest.raises(DataError, match="row 1 \\(key 7\\)"):
        IFEvalEnv(data=rows)


def test_preset_without_data_offline_fails_at_make_naming_the_data_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for env_id in ("ifeval", "ifbench", "ifeval-v0"):
        start = time.perf_counter()
        with pytest.raises(DataUnavailableError, match=r"data="):
            rlvr_envs.make(env_id)
        assert time.perf_counter() - start < 1.0
    with pytest.raises(DataUnavailableError, match=r"data="):
        rlvr_envs.make("ifeval-data")


def test_synth_is_seeded_and_levels_set_instruction_count() -> None:
    for level in range(1, 6):
        env = rlvr_envs.make("ifeval-synth", level=level, size=20, seed=3)
        again = IFEvalSynthEnv(level=level, size=20, seed=3)
        assert [t.fingerprint for t in env.tasks] == [t.fingerprint for t in again.tasks]
        for task in env.tasks:
            ids = task.answer["instruction_id_list"]
            assert len(ids) == level and task.difficulty.level == level
            assert all(compatible(a, b) for a, b in itertools.combinations(ids, 2))
            build_checkers(ids, task.answer["kwargs"])
            assert env.get_task(task.id) == task


def test_synth_uses_user_base_prompts() -> None:
    env = IFEvalSynthEnv(base_prompts=["Describe your favourite tool."], level=2)
    assert all(t.prompt.startswith("Describe your favourite tool.") for t in env.sample(5, seed=1))
    with pytest.raises(ValueError, match="base_prompts"):
        IFEvalSynthEnv(base_prompts=["  "])


def test_synth_tasks_are_satisfiable_by_a_written_response() -> None:
    env = IFEvalSynthEnv(level=1, size=200, seed=0)
    task = next(t for t in env.tasks if t.answer["instruction_id_list"] == ["punctuation:no_comma"])
    response = "Rivers carry water from the hills down to the sea and feed the plains on their way."
    assert env.verify(task, response).passed


def test_synth_conflict_table_is_symmetric_and_excludes_known_clashes() -> None:
    ids = [s.instruction_id for s in SPECS]
    for a, b in itertools.product(ids, ids):
        assert compatible(a, b) == compatible(b, a)
    assert not compatible("change_case:english_lowercase", "change_case:english_capital")
    assert not compatible("detectable_format:json_format", "detectable_format:title")
    assert compatible("punctuation:no_comma", "detectable_format:title")


def test_verdicts_from_pool_match_inline() -> None:
    env = IFEvalSynthEnv(level=2, size=4, isolation="pool")  # "auto" would run these here too
    tasks = list(env.tasks)
    completions = [GOOD, HALF, "", "word " * 200]
    pooled = env.verify_batch(tasks, completions)
    assert pooled == [env.verify(t, c) for t, c in zip(tasks, completions)]


def test_evaluate_matches_env_verdict_on_random_subsets() -> None:
    rng = random.Random(0)
    rows = read_jsonl("ifbench_responses_labeled.jsonl")
    verifier = IFEvalVerifier(min_words=0)
    for row in rng.sample(rows, 25):
        task = _task(row["instruction_id_list"], row["kwargs"], row["prompt"])
        verdict = verifier.verify(task, row["response"])
        results = evaluate(row["instruction_id_list"], row["kwargs"], row["response"])
        assert verdict.passed == all(r.followed for r in results)


def test_registered_ids_and_entry_points() -> None:
    resolve = rlvr_envs.registry.resolve
    assert resolve("ifeval").id == "ifeval-v1" and resolve("ifeval").size == 541
    assert resolve("ifbench").id == "ifbench-v1" and resolve("ifbench").size == 300
    assert resolve("ifeval-synth").id == "ifeval-synth-v15" and resolve("ifeval-synth").size is None
    assert resolve("ifeval-data").id == "ifeval-data-v15" and resolve("ifeval-data").user_data
    # The training ids' latest versions require that a response addresses its prompt (issue 26).
    assert resolve("ifeval-synth").kwargs["relevance"] == resolve("ifeval-data").kwargs["relevance"] == "contrast"
    # The ids before round 3 of issue 26 keep the guard's v1 rules.
    for old in ("ifeval-data-v0", "ifeval-data-v1", "ifeval-data-v2", "ifeval-synth-v1", "ifeval-synth-v3"):
        assert resolve(old).kwargs["guard_rules"] == "v1", old
    # The benchmark presets score as the reference by default; v0 kept the guard.
    assert resolve("ifeval").kwargs["guard"] is False and resolve("ifeval-v0").kwargs["guard"] is True
    assert resolve("ifbench-v0").kwargs["guard_words"] == "w_runs"
    from importlib import metadata

    names = {ep.name: ep.value for ep in metadata.entry_points(group="rlvr_envs.envs")}
    assert names["ifeval"] == names["ifbench"] == "rlvr_ifeval.registration:register_envs"


@pytest.mark.parametrize("level", [1, 3, 5])
def test_adversarial_completions_never_score_on_synth_tasks(level: int) -> None:
    from rlvr_envs.testing import adversarial_completions

    env = IFEvalSynthEnv(level=level, partial_credit=True)
    for task in env.sample(40, seed=level):
        for name, completion in adversarial_completions(env, task).items():
            verdict = env.verify(task, completion)
            assert verdict.reward == 0.0 and not verdict.passed, (name, task.prompt)


def _degenerate_by_normalising_everything(verifier: IFEvalVerifier, task: Task, response: str, checkers) -> str | None:
    """The guard written plainly (the whole response normalised first): what the windowed
    version in IFEvalVerifier.degenerate must decide on every input."""
    from rlvr_ifeval.verifier import _CONTROL_RE, MAX_CONTROL_FRACTION, _normalise, _normalised_prompts

    body = _normalise(response)
    if not body:
        return "empty response"
    if _CONTROL_RE.search(response) and len(_CONTROL_RE.findall(response)) > MAX_CONTROL_FRACTION * len(response):
        return "binary data, not text"
    for prompt in _normalised_prompts(task.prompt, verifier.prompt_format):
        if prompt and body.startswith(prompt):
            body = body[len(prompt) :]
            if verifier.count_words(body) < max(verifier.min_words, 1):
                return "the response only echoes the prompt"
            break
    if verifier.min_words and verifier.count_words(body) < verifier.min_words:
        if not any(c.allows_short_answer() for c in checkers):
            return f"fewer than {verifier.min_words} words, and no instruction asks for a short answer"
    return None


def test_degenerate_guard_decides_as_if_it_normalised_the_whole_response() -> None:
    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl")[::7] + read_jsonl("ifbench_responses_labeled.jsonl")[::7]
    rng = random.Random(3)
    cases = []
    for row in rows:
        prompt, response = row["prompt"], row["response"]
        cases += [
            (prompt, response),
            (prompt, prompt + "\n\n" + response),  # an echo, then an answer
            (prompt, prompt.upper() + "   ok"),  # an echo (case and spacing differ) and one word
            (prompt, " " * 5000 + prompt + " yes"),  # whitespace longer than the window
            (prompt, "İstanbul " * rng.randrange(1, 4)),  # casefold splits İ into two \w runs
            (prompt, response[: rng.randrange(0, 40)]),
            (prompt, "\x00\x07" * rng.randrange(1, 30) + response),  # control characters, ASCII
            (prompt, "é\x1b" * rng.randrange(1, 30) + response),  # and not
        ]
    checkers = build_checkers(["punctuation:no_comma"], [{}])
    cases += [("p", "我们明天去公园然后去书店。" * rng.randrange(1, 3)), ("p", "วันนี้อากาศดีมาก " * 2), ("p", "中 " * 300)]
    for min_words, words in itertools.product((0, 5, 50), ("scripts", "w_runs")):
        verifier = IFEvalVerifier(
            min_words=min_words, guard_words=words, guard_rules="v0"
        )  # the old rules, as the reference copy below
        for prompt, response in cases:
            task = Task(id="t", prompt=prompt, answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]})
            expected = _degenerate_by_normalising_everything(verifier, task, response, checkers)
            assert verifier.degenerate(task, response, checkers) == expected, (min_words, response[:80])
