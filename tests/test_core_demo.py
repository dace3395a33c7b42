from rlvr_envs.demo import main


def test_demo_tour_lists_envs_and_verifies_right_and_wrong_completions(capsys):
    assert main(["--tour-only"]) == 0
    out = capsys.readouterr().out
    assert "environments registered" in out and "math-arith-v4" in out
    lines = {line.split()[0] + " " + line.split()[1]: line for line in out.splitlines() if line.count("  ") > 2}
    assert " ok " in lines["correct answer"] and " wrong " in lines["wrong answer"]
    assert " no_answer " in lines["no answer"]
