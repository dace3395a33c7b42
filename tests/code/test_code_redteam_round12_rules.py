"""Red team round 12: code-python's own stdin/stdout rows, and the timed reference driver.

* Round 11 left out contest rows whose 2+ hidden stdin/stdout cases all fit a cheap rule of the
  input that an example contradicts (``contests.input_rules``); ``code-python``'s own stdio rows
  never got the check, so under ``-v7`` a program printing the prompt's example from a table and
  the rule otherwise scored 1 on them. ``code-python-v8`` (``hidden_tests="stdio_rules"``) leaves
  such a row out at ``make`` and its verifier refuses one built by hand (``verifier_error``); rows
  whose rule agrees with the example (the problem is the rule) or fits only some hidden cases stay.
* The timed reference driver (``derived_inputs.batch_driver(timed=True)``) stopped one slow call
  with SIGALRM inside the sandboxed driver (the project rule: no signal.alarm). It now runs the
  calls in a forked child and bounds each from the driver: same results on every reference that
  ends in time, and calls a handler never stopped (stuck in C code, ``os._exit``) now cost only
  their input (before, the whole batch was lost).
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import rlvr_envs
from rlvr_code.derived_inputs import CALL_S, batch_driver, batch_results
from rlvr_envs.types import Reason
from tests.code.contest_interactive_cases import fence
from tests.helpers.sandbox import needs_bwrap


def _row(name: str, shown: tuple[str, str], hidden: list[tuple[str, str]]) -> dict:
    given, expected = shown
    prompt = (
        f"Problem {name}: read the input, print the answer.\n\nExample input:\n{given}\nExample output:\n{expected}\n"
    )
    return {
        "id": name,
        "prompt": prompt,
        "inputs": [given, *[i for i, _ in hidden]],
        "outputs": [expected, *[o for _, o in hidden]],
    }


# (row, the cheat: the example from a table, the rule otherwise)
PAID = [
    (
        _row("plus-one", ("5\n", "8\n"), [("1\n", "2\n"), ("2\n", "3\n"), ("6\n", "7\n")]),
        "n = int(input())\nprint(8 if n == 5 else n + 1)",
    ),
    (
        _row("last-token", ("ab cd\n", "cd ab\n"), [("x y\n", "y\n"), ("p q r\n", "r\n")]),
        "w = input().split()\nprint('cd ab' if w == ['ab', 'cd'] else w[-1])",
    ),
    (
        _row("count-after-first", ("4\n1 1 2 2\n", "2\n"), [("3\n1 2 3\n", "3\n"), ("2\n5 6\n", "2\n")]),
        "n = int(input())\nxs = input().split()\nprint(2 if xs == ['1', '1', '2', '2'] else len(xs))",
    ),
    (
        _row("line-count", ("a\nb\nc\n", "1\n"), [("x\ny\n", "2\n"), ("q\nr\ns\nt\n", "4\n")]),
        "import sys\nlines = sys.stdin.read().split()\nprint(1 if lines == ['a', 'b', 'c'] else len(lines))",
    ),
]
KEPT = [
    _row("the-rule-is-the-problem", ("2 3\n", "5\n"), [("1 5\n", "6\n"), ("4 4\n", "8\n")]),
    _row("rule-fits-some", ("5\n", "8\n"), [("1\n", "2\n"), ("2\n", "9\n")]),
]


def _env(version: str, rows: list[dict]):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlvr_envs.make(f"code-python-{version}", data=rows, timeout_s=10.0)


@needs_bwrap
@pytest.mark.parametrize(("row", "cheat"), PAID, ids=[r[0]["id"] for r in PAID])
def test_a_stdio_row_a_rule_of_the_input_passes_is_left_out(row: dict, cheat: str) -> None:
    old = _env("v7", [row, *KEPT])
    [task] = [t for t in old.tasks if t.id == row["id"]]
    assert old.verifier.verify(task, fence("python", cheat)).reward == 1.0  # before (-v7): paid
    new = _env("v8", [row, *KEPT])
    assert [t.id for t in new.tasks] == [r["id"] for r in KEPT]
    assert any(row["id"] in why and "rule of its input" in why for why in new.skipped), new.skipped
    refused = new.verifier.verify(task, fence("python", cheat))  # a task built by hand: refused
    assert refused.reward == 0.0 and refused.reason is Reason.VERIFIER_ERROR, refused.details


@needs_bwrap
def test_kept_rows_keep_their_rewards() -> None:
    env = _env("v8", KEPT)
    honest = {
        "the-rule-is-the-problem": "a, b = map(int, input().split())\nprint(a + b)",
        "rule-fits-some": "n = int(input())\nprint({5: 8, 1: 2, 2: 9}[n])",
    }
    for task in env.tasks:
        assert env.verifier.verify(task, fence("python", honest[task.id])).reward == 1.0
    assert "code-python-v9" in {s.id for s in rlvr_envs.registry.latest()}


# -- the timed driver ---------------------------------------------------------------------------


def _batch(reference: str, inputs: list[tuple], timed: bool = True, limit_s: float = 8.0) -> list[str | None]:
    program = reference + "\n" + batch_driver("f", timed=timed)
    literal = repr([(args, ()) for args in inputs])
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", program], input=literal, capture_output=True, text=True, timeout=limit_s
        )
    except subprocess.TimeoutExpired:  # the sandbox's end for a run past its limit: no output
        return batch_results(None, len(inputs))
    return batch_results(done.stdout if done.returncode == 0 else None, len(inputs))


def test_the_timed_driver_installs_no_signal_handler_or_timer() -> None:
    driver = batch_driver("f", timed=True)
    assert "signal" not in driver and "setitimer" not in driver and "alarm" not in driver


# (reference, inputs, what each input gives: its result's repr, or None where it is stopped)
STOPPED = [
    (
        "def f(n):\n    while n == 3:\n        pass\n    return n * 2\n",
        [(1,), (3,), (4,)],
        ["2", None, "8"],
    ),
    (  # stuck in C code: no handler ever runs there
        "def f(n):\n    return (3 ** (3 * 10**7)) % 7 if n == 2 else n\n",  # 20 s or more in one C call
        [(1,), (2,), (5,)],
        ["1", None, "5"],
    ),
    (  # the reference ends its own process on one input
        "import os\ndef f(n):\n    if n == 2:\n        os._exit(0)\n    return -n\n",
        [(1,), (2,), (3,)],
        ["-1", None, "-3"],
    ),
    (  # SystemExit and other exceptions: that input only, as before
        "def f(n):\n    if n == 1:\n        raise SystemExit(3)\n    return 1 // (n - 2)\n",
        [(1,), (2,), (3,)],
        [None, None, "1"],
    ),
]


@pytest.mark.parametrize(("reference", "inputs", "want"), STOPPED, ids=["loop", "in-c", "os-exit", "raises"])
def test_a_stopped_call_costs_only_its_input(reference: str, inputs: list[tuple], want: list) -> None:
    assert _batch(reference, inputs) == want


def test_results_are_the_untimed_drivers_where_every_call_ends_in_time() -> None:
    """State carried between calls (a global counter, a cache) is the untimed driver's too: the
    calls run in order in one process while none is stopped."""
    references = [
        "calls = []\ndef f(n):\n    calls.append(n)\n    return (n, len(calls))\n",
        "import functools\n@functools.lru_cache(None)\ndef f(n):\n    return n if n < 2 else f(n - 1) + f(n - 2)\n",
        "def f(n):\n    print('noise', n)\n    return [str(n)] * n + ['\\n']\n",
    ]
    inputs = [(n,) for n in range(30)]
    for reference in references:
        assert _batch(reference, inputs) == _batch(reference, inputs, timed=False)


def test_a_call_past_its_bound_is_stopped_near_it() -> None:
    import time

    started = time.monotonic()
    got = _batch("import time\ndef f(n):\n    time.sleep(30 if n == 1 else 0)\n    return n\n", [(0,), (1,), (2,)])
    assert got == ["0", None, "2"]
    assert time.monotonic() - started < 3.0 + 10 * CALL_S  # not the sleep's 30 s


@needs_bwrap
def test_the_driver_runs_in_the_sandbox() -> None:
    from rlvr_code import derived
    from rlvr_code.verifier import CodeVerifier

    verifier = CodeVerifier(hidden_tests="rules")
    run = derived.sandbox_runner(verifier.limits(verifier.timeout_s))
    program = "def f(n):\n    while n == 2:\n        pass\n    return n + 1\n" + batch_driver("f", timed=True)
    [text] = run(program, [{"input": repr([((n,), ()) for n in (1, 2, 3)]), "output": ""}])
    assert batch_results(text, 3) == ["2", None, "4"]
