"""Real data: HumanEval and MBPP canonical solutions pass, broken ones fail, verl's stdio cases agree."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest

from rlvr_code.envs import humaneval_task, mbpp_task, task_from_row
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Reason
from tests.code.helpers_code import fenced, humaneval_rows, mbpp_rows
from tests.helpers.data import read_jsonl

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")

# MBPP 123 (amicable numbers below 10000) takes tens of seconds: it runs in bench/code_sandbox.py --mbpp.
MBPP_SAMPLE = [1, 2, 3, 17, 40, 88, 126, 172, 367, 533, 600, 653, 700, 802, 902, 927, 974]


@pytest.fixture(scope="module")
def verifier() -> CodeVerifier:
    return CodeVerifier(timeout_s=20.0, workers=2)


def verify_all(verifier, pairs):
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(lambda pair: verifier.verify(*pair), pairs))


def test_every_humaneval_canonical_solution_passes(verifier):
    rows = humaneval_rows()
    assert len(rows) == 164
    tasks = [humaneval_task(row) for row in rows]
    verdicts = verify_all(verifier, [(t, fenced(t.answer["canonical_solution"])) for t in tasks])
    failed = [(t.id, v.reason.value, v.details) for t, v in zip(tasks, verdicts) if not v.passed]
    assert failed == []


def test_humaneval_body_only_completion_continues_the_prompt(verifier):
    row = humaneval_rows()[2]
    assert verifier.verify(humaneval_task(row), row["canonical_solution"]).passed


def test_humaneval_helpers_from_the_prompt_stay_trusted(verifier):
    # HumanEval/32's test calls poly() from the prompt: a solution redefining poly() to return 0
    # must not make any root look right.
    row = next(r for r in humaneval_rows() if r["task_id"] == "HumanEval/32")
    cheat = "def poly(xs, x):\n    return 0\n\ndef find_zero(xs):\n    return 12345.0\n"
    verdict = verifier.verify(humaneval_task(row), fenced(row["prompt"] + "    pass\n" + cheat))
    assert verdict.reward == 0.0 and verdict.reason is Reason.WRONG


@pytest.mark.parametrize("mutation", ["return None", "off by one"])
def test_broken_humaneval_solutions_fail(verifier, mutation):
    rows = humaneval_rows()[:40]
    tasks = [humaneval_task(row) for row in rows]
    if mutation == "return None":
        programs = [row["prompt"] + "    return None\n" for row in rows]
    else:
        programs = [
            row["prompt"] + row["canonical_solution"] + f"\n_orig = {row['entry_point']}\n"
            f"def {row['entry_point']}(*a, **k):\n    r = _orig(*a, **k)\n"
            "    return r + 1 if type(r) in (int, float) else (not r if type(r) is bool else [r])\n"
            for row in rows
        ]
    verdicts = verify_all(verifier, [(t, fenced(p)) for t, p in zip(tasks, programs)])
    passed = [t.id for t, v in zip(tasks, verdicts) if v.passed]
    # HumanEval/4x tests that happen to accept None or a perturbed value would show up here.
    assert passed == []


def test_mbpp_sample_canonical_solutions_pass(verifier):
    by_id = {row["task_id"]: row for row in mbpp_rows()}
    assert len(by_id) == 974
    tasks = [mbpp_task(by_id[i]) for i in MBPP_SAMPLE]
    verdicts = verify_all(verifier, [(t, fenced(t.answer["canonical_solution"])) for t in tasks])
    failed = [(t.id, v.details) for t, v in zip(tasks, verdicts) if not v.passed]
    assert failed == []


def test_mbpp_setup_code_runs_after_the_solution_defines_node(verifier):
    # Tasks 367 and 927 build trees in test_setup_code from the Node class the solution defines.
    row = next(r for r in mbpp_rows() if r["task_id"] == 927)
    assert "Node(" in row["test_setup_code"]
    task = mbpp_task(row)
    assert verifier.verify(task, fenced(row["code"])).passed
    wrong = row["code"] + "\ndef max_height(node):\n    return 0\n"
    assert verifier.verify(task, fenced(wrong)).reason is Reason.WRONG


def test_mbpp_partial_credit_counts_tests():
    row = next(r for r in mbpp_rows() if r["task_id"] == 2)
    task = mbpp_task(row)
    half = "def similar_elements(a, b):\n    r = tuple(sorted(set(a) & set(b)))\n    return r if r != (3, 4) else ()\n"
    all_or_nothing = CodeVerifier(timeout_s=10).verify(task, fenced(half))
    partial = CodeVerifier(timeout_s=10, partial_credit=True).verify(task, fenced(half))
    assert all_or_nothing.reward == 0.0 and not all_or_nothing.passed
    assert partial.reward == pytest.approx(2 / 3) and not partial.passed
    statuses = [t["status"] for t in partial.details["tests"]]
    assert statuses == ["passed", "failed", "passed"]
    assert partial.details["first_error"].startswith("assert similar_elements((1, 2, 3, 4)")


PEER_CASES = read_jsonl("code_peer_cases.jsonl")


@pytest.mark.parametrize(
    "index", range(len(PEER_CASES)), ids=[c["test_function"] + f"-{i}" for i, c in enumerate(PEER_CASES)]
)
def test_verl_stdio_cases_get_their_expected_verdicts(index):
    case = PEER_CASES[index]
    # verl's rows carry no problem statement; a row without one is refused (issue 20), so name one.
    task = task_from_row({**case, "code": None, "id": f"peer-{index}", "prompt": case["note"]}, index)
    timeout = float(case.get("timeout_s") or 10.0)
    verifier = CodeVerifier(timeout_s=timeout, case_timeout_s=min(timeout, 3.0), partial_credit=True)
    verdict = verifier.verify(task, fenced(case["code"]))
    assert verdict.passed is case["expected_all_pass"], verdict.details
    statuses = [t["status"] for t in verdict.details.get("tests", [])]
    if case["language"] != "python":
        assert verdict.reason is Reason.FORMAT_ERROR  # verl reports a compile error; we run Python only
        return
    if "expected_per_case" in case:
        expected = {True: "passed", False: "failed", -2: "error", -3: "timeout"}
        assert statuses == [expected[e] for e in case["expected_per_case"]]
    if case.get("expected_pass_fraction") == 0.9:
        # verl's scorer reports 0.9 for this row; per case, exactly the 4th (deliberately mislabelled) fails.
        assert statuses == ["passed"] * 3 + ["failed"] + ["passed"] * 7
        assert verdict.reward == pytest.approx(10 / 11)
