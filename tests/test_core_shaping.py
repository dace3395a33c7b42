import pytest

from rlvr_envs import Reason, RewardShaping, Verdict
from rlvr_envs.formats import get_format
from rlvr_envs.shaping import format_reward, overlong_penalty


@pytest.mark.parametrize(
    ("length", "expected"),
    [(0, 0.0), (80, 0.0), (90, -0.5), (100, -1.0), (101, -1.0), (500, -1.0)],
)
def test_overlong_penalty_follows_the_dapo_ramp(length, expected):
    assert overlong_penalty(length, l_max=100, l_cache=20) == pytest.approx(expected)


def test_overlong_penalty_rejects_bad_budgets():
    with pytest.raises(ValueError):
        overlong_penalty(10, l_max=10, l_cache=20)
    with pytest.raises(ValueError):
        RewardShaping(l_max=0)


def test_format_reward_checks_layout():
    assert format_reward("<think>a</think> <answer>1</answer>", "r1") == 1.0
    assert format_reward("<answer>1</answer>", "r1") == 0.0
    assert format_reward("<think>a</think><answer>1</answer> trailing junk", "r1") == 0.0
    assert format_reward("so \\boxed{3}", "plain") == 1.0
    assert format_reward(None, "plain") == 0.0
    with pytest.raises(ValueError, match="unknown prompt format"):
        get_format("nope")


def test_reward_shaping_composes_weights():
    ok, wrong = Verdict.correct("1"), Verdict.failure(Reason.WRONG)
    shaping = RewardShaping(format_weight=0.1, prompt_format="r1", l_max=100, l_cache=20)
    good = "<think>x</think><answer>1</answer>"
    assert shaping(ok, good, length_tokens=10) == pytest.approx(1.1)
    assert shaping(wrong, good, length_tokens=90) == pytest.approx(0.1 - 0.5)
    assert shaping(ok, "1", length_tokens=200) == pytest.approx(0.0)
    assert RewardShaping()(ok, "anything") == 1.0


def test_formats_render_what_they_extract():
    for name in ("plain", "r1", "answer_tag"):
        fmt = get_format(name)
        completion = fmt.render_answer("\\frac{1}{2}")
        assert fmt.extract(completion).text == "\\frac{1}{2}"
        assert fmt.follows_format(completion)
        assert fmt.messages("Q")[-1] == {"role": "user", "content": fmt.user_message("Q")}
    assert get_format("r1").messages("Q")[0]["role"] == "system"
