"""The math verifier on completions: extraction rules, adversarial input, the time budget."""

from __future__ import annotations

import pickle
import time

import pytest

from rlvr_envs import Reason, Task, VerificationPool
from rlvr_math import MathVerifier
from rlvr_math.envs import MathEnv

TASK = Task(id="t", prompt="What is 6 * 7?", answer="42")


def verify(completion: str, answer: object = "42", **options) -> object:
    return MathVerifier(**options).verify(Task(id="t", prompt="p", answer=answer), completion)


@pytest.mark.parametrize(
    ("completion", "passed", "reason"),
    [
        ("So the result is \\boxed{42}.", True, Reason.OK),
        ("<think>6*7</think> <answer>42</answer>", True, Reason.OK),
        ("<answer>\\boxed{42}</answer>", True, Reason.OK),
        ("Working...\n#### 42", True, Reason.OK),
        ("The answer is 42.", True, Reason.OK),
        ("Final Answer: The final answer is $42$. I hope it is correct.", True, Reason.OK),
        ("42", True, Reason.OK),  # a bare one-line answer (fallback="bare")
        ("\\boxed{41}", False, Reason.WRONG),
        ("I think 42 is plausible but I am not sure", False, Reason.NO_ANSWER),
        ("", False, Reason.NO_ANSWER),
        ("\\boxed{}", False, Reason.NO_ANSWER),
        # only the final answer counts
        ("\\boxed{42} wait, no: \\boxed{41}", False, Reason.WRONG),
        ("First \\boxed{41}.\n\nOn reflection the answer is different.\n\n\\boxed{42}", True, Reason.OK),
        ("\\boxed{41}, \\boxed{42}", False, Reason.WRONG),  # two candidates form a set, not 42
        ("\\boxed{40, 41, 42, 43}", False, Reason.WRONG),
        ("Early guess \\boxed{41}. Final Answer: The final answer is $42$.", True, Reason.OK),
        ("\\boxed{42", False, Reason.NO_ANSWER),  # unbalanced last box: no fallback to earlier ones
    ],
)
def test_extraction_and_final_answer_rules(completion, passed, reason):
    verdict = verify(completion)
    assert verdict.passed is passed, verdict
    assert verdict.reason is reason
    assert verdict.reward == (1.0 if passed else 0.0)


def test_several_boxes_answer_a_set_question():
    gold = "\\{1, 2, 3\\}"
    assert verify("\\boxed{1}, \\boxed{2} and \\boxed{3}", gold).passed
    assert verify("\\boxed{3}, \\boxed{2}, \\boxed{1}", gold).passed
    assert not verify("\\boxed{1}, \\boxed{2}", gold).passed


def test_fallback_modes():
    assert verify("42", fallback="bare").passed
    assert verify("42", fallback="none").reason is Reason.NO_ANSWER
    prose = "We multiply six by seven and get $42$ in the end."
    assert verify(prose).reason is Reason.NO_ANSWER
    assert verify(prose, fallback="latex").passed
    with pytest.raises(ValueError, match="fallback"):
        MathVerifier(fallback="anything")


def test_numeric_gold_types():
    assert verify("\\boxed{42}", answer=42).passed
    assert verify("\\boxed{0.25}", answer=0.25).passed
    assert verify("\\boxed{1, 2}", answer=["1", "2"]).passed
    verdict = verify("\\boxed{1}", answer=None)
    assert verdict.reason is Reason.VERIFIER_ERROR


@pytest.mark.parametrize(
    "completion",
    [
        "\x00\x01\x02 binary \xff\ufffd",
        "\\boxed{" + "{" * 50_000,
        "}" * 50_000 + "\\boxed{42}",
        "\\boxed{\\frac{\\frac{\\frac{1}{2}}{3}}{4}" + "}" * 10,
        "\\boxed{\\begin{pmatrix}1 & 2",
        "<answer></answer>",
        "\\boxed{\\text{}}",
    ],
)
def test_garbage_never_raises(completion):
    verdict = verify(completion)
    assert verdict.reason in (Reason.WRONG, Reason.NO_ANSWER, Reason.FORMAT_ERROR, Reason.OK)


HOSTILE = {
    "power tower": "\\boxed{9^{9^{9^9}}}",
    "huge factorial": "\\boxed{(10^9)!}",
    "unbalanced braces": "\\boxed{" + "{" * 50_000,
    "one megabyte": "step " * 200_000 + "\\boxed{41}",
    "huge exponent": "\\boxed{2^{2^{40}}}",
    "deep nesting": "\\boxed{" + "(" * 3000 + "1" + ")" * 3000 + "}",
}


def test_hostile_completions_are_bounded_inline():
    # A hang guard in this process's CPU time (a loaded machine does not fail it); the latencies
    # are measured by bench/math_hostile.py and bench/math_verify.py --hostile-only.
    for name, completion in HOSTILE.items():
        start = time.process_time()
        verdict = verify(completion)
        used = time.process_time() - start
        assert not verdict.passed, name
        assert used < 10.0, f"{name} took {used:.2f} s of CPU in process"


def test_hostile_completions_through_the_pool_stay_within_budget():
    env = MathEnv(data=[{"problem": "What is 6 * 7?", "answer": "42"}], pool=VerificationPool(workers=2))
    try:
        task = env.tasks[0]
        env.verify_batch([task], ["\\boxed{42}"])  # workers started and warmed outside the timing
        completions = [*HOSTILE.values(), "\\boxed{42}"]
        start = time.perf_counter()
        verdicts = env.verify_batch([task] * len(completions), completions)
        elapsed = time.perf_counter() - start
    finally:
        env.pool.close()
    assert [v.passed for v in verdicts] == [False] * len(HOSTILE) + [True]
    for verdict in verdicts:  # each call is cut at its budget (plus the pool's grace to kill a worker)
        assert verdict.elapsed_s <= env.time_budget_s + 2.0, verdict
    # A hang guard: even one call after another, each bounded by its budget. How much two workers
    # gain is measured by bench/math_verify.py --hostile-only.
    assert elapsed < (env.time_budget_s + 2.0) * len(completions)


def test_verifier_is_small_and_picklable():
    verifier = MathVerifier(rel_tol=1e-4, fallback="latex")
    blob = pickle.dumps(verifier)
    assert len(blob) < 2_000
    restored = pickle.loads(blob)
    assert restored.config == verifier.config and restored.fallback == "latex"
    assert restored.verify(TASK, "\\boxed{42}").passed


def test_invalid_options_are_rejected():
    with pytest.raises(ValueError, match="rel_tol"):
        MathVerifier(rel_tol=2.0)
    with pytest.raises(ValueError, match="time_budget_s"):
        MathVerifier(time_budget_s=0)


@pytest.mark.parametrize(
    ("completion", "passed"),
    [
        ("So $a = \\boxed{3}$, and therefore the final answer is \\boxed{42}.", True),
        ("\\boxed{42}. I am confident the answer is right.", True),
        ("\\boxed{42}. Hmm, checking again, the final answer is $41$.", False),
        ("We get \\boxed{40} apples and \\boxed{2} pears", False),
    ],
)
def test_intermediate_boxes_and_trailing_remarks(completion, passed):
    assert verify(completion).passed is passed


def test_verification_is_thread_safe():
    """math-verify's own timeouts use SIGALRM, which fails off the main thread; ours are off."""
    from concurrent.futures import ThreadPoolExecutor

    cases = [
        ("\\sqrt{2}", "\\boxed{\\frac{2}{\\sqrt{2}}}", True),
        ("(x+1)^2", "\\boxed{x^2+2x+1}", True),
        ("[0, 1)", "\\boxed{(0, 1)}", False),
        ("\\frac{1}{3}", "\\boxed{0.333333}", True),
    ] * 5
    verifier = MathVerifier()
    with ThreadPoolExecutor(4) as pool:
        verdicts = list(pool.map(lambda c: verifier.verify(Task(id="t", prompt="", answer=c[0]), c[1]), cases))
    assert [v.passed for v in verdicts] == [c[2] for c in cases]
    assert all(v.reason is not Reason.VERIFIER_ERROR for v in verdicts)


def test_integer_answers_never_import_sympy():
    import subprocess
    import sys

    code = (
        "import sys, rlvr_envs\n"
        "env = rlvr_envs.make('math-arith', isolation='inline', level=6)\n"
        "for t in env.sample(50, seed=0):\n"
        "    assert env.verify(t, env.gold_completion(t)).passed\n"
        "    assert not env.verify(t, env.hedged_completion(t)).passed\n"
        "print('sympy' in sys.modules, 'math_verify' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False False", out.stdout + out.stderr
