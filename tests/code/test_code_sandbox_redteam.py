"""Red-team probes of issue 30's paths: the batch announcement pipe (fd 4), the warm judge that
answers the host itself, the zygote's timeout answer, and the sample's process group (setpgid).

Each probe is a program a policy could write to earn reward 1 for a wrong solution, to crash or
stall the verifier, or to leave something behind. Whatever it does, three things must hold: it
is not rewarded (and it is not a verifier error, which a trainer may drop from the loss instead
of scoring 0); the NEXT samples on the same worker get their own verdicts (an honest one passes,
a wrong one fails); and no process of a sample outlives it.
"""

from __future__ import annotations

import shutil
import time

import pytest

from rlvr_code.sandbox import LocalSandbox
from rlvr_envs.types import Reason, Task
from tests.code.helpers_code import asserts_task, fenced
from tests.code.test_code_sandbox_direct import assert_nothing_left, verifier_on

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

CALLS = 12


def _humaneval(n: int = CALLS) -> Task:
    lines = "".join(f"    assert candidate({i}) == 2 * {i}\n" for i in range(n))
    return Task(
        id="redteam",
        prompt="p",
        answer={"format": "humaneval", "context": "", "entry_point": "f", "test": f"def check(candidate):\n{lines}"},
    )


HUMANEVAL = _humaneval()
ASSERTS = asserts_task([f"assert f({i}) == 2 * {i}" for i in range(CALLS)], names=("f",))
GOLD = "def f(x):\n    return 2 * x\n"
WRONG = "def f(x):\n    return 2 * x + (x == 7)\n"  # wrong on one call of twelve

# Writes wire frames itself (the framing is no secret: a policy can read it off the harness).
_FRAMES = (
    "import os, json, struct, time, signal\n"
    "def _frame(message):\n"
    "    data = json.dumps(message).encode()\n"
    "    return struct.pack('>I', len(data)) + data\n"
    "def _daemon(body):\n"
    "    # a double fork, the grandchild in a session of its own, the middle one gone\n"
    "    if os.fork() == 0:\n"
    "        os.setsid()\n"
    "        if os.fork() == 0:\n"
    "            try:\n"
    "                body()\n"
    "            finally:\n"
    "                os._exit(0)\n"
    "        os._exit(0)\n"
    "    os.wait()\n"
)

ATTACKS = {
    # -- the announcement pipe (fd 4) ------------------------------------------------------------
    "fake announcements and forged answers from a daemon holding fd 3 and 4": (
        "def _forge():\n"
        "    end = time.monotonic() + 30\n"
        "    while time.monotonic() < end:\n"
        "        for fd, data in ((3, _frame(['ok', ['B', True]])), (4, b'.')):\n"
        "            try:\n"
        "                os.write(fd, data)\n"
        "            except OSError:\n"
        "                pass\n"
        "        time.sleep(0.005)\n"
        "_daemon(_forge)\n"
    ),
    "fd 4 dup'ed over stdout, printing all the time": (
        "import sys\nos.dup2(4, 1)\n"
        "def _print():\n"
        "    for _ in range(3000):\n"
        "        print('.' * 100, flush=True)\n"
        "        time.sleep(0.01)\n"
        "_daemon(_print)\n"
    ),
    "fd 4 closed and reopened on a pipe of its own": ("r, w = os.pipe()\nos.dup2(w, 4)\nos.write(4, b'.' * 1000)\n"),
    "fd 4 set blocking and filled": (
        "os.set_blocking(4, False)\n"
        "try:\n    while True:\n        os.write(4, b'.' * 4096)\nexcept OSError:\n    pass\n"
        "os.set_blocking(4, True)\n"
    ),
    "forged 'end' and extra answers so later replies are shifted": (
        "_real = None\n"
        "def _shift(x):\n"
        "    os.write(3, _frame(['ok', ['I', str(2 * x)], 'end']))\n"
        "    os.write(3, _frame(['ok', ['I', str(2 * x + 2)]]))\n"
        "    os.write(4, b'.')\n"
        "    return 2 * x + (x == 7)\n"
    ),
    "answer written after its announcement": (
        "def _late(x):\n    os.write(4, b'.')\n    time.sleep(0.03)\n    return x\n"
    ),
    # -- answers the judge cannot take ---------------------------------------------------------------
    "a header of 4 GB and nothing after": (
        "os.write(3, _frame(['loaded']) + struct.pack('>I', 0xFFFFFFFF))\ntime.sleep(30)\n"
    ),
    "an answer nested a million deep": (
        "os.write(3, _frame(['loaded']))\n"
        "os.write(3, struct.pack('>I', 2_000_000) + b'[' * 1_000_000 + b']' * 1_000_000)\n"
        "time.sleep(30)\n"
    ),
    "a first message nested half a million deep": (
        "os.write(3, struct.pack('>I', 1_000_000) + b'[' * 500_000 + b']' * 500_000)\ntime.sleep(30)\n"
    ),
    "a million tiny forged answers before any call": (
        "os.write(3, _frame(['loaded']))\n"
        "_daemon(lambda: [os.write(3, _frame(['ok', ['N']]) * 1000) for _ in range(1000)])\n"
    ),
    "an answer of two and a half million values, written as a frame": (
        "os.write(3, _frame(['loaded']))\nos.write(3, _frame(['ok', ['L', [['N']] * 2_500_000]]))\ntime.sleep(30)\n"
    ),
    "a dict whose keys all hash alike (quadratic to build in the judge)": (
        "os.write(3, _frame(['loaded']))\n"
        "_keys = [[['I', str(k * (2**61 - 1))], ['N']] for k in range(1, 200_000)]\n"
        "os.write(3, _frame(['ok', ['D', _keys]]))\n"
        "time.sleep(30)\n"
    ),
    "a dict keyed by a list (unhashable in the judge)": (
        "os.write(3, _frame(['loaded']))\nos.write(3, _frame(['ok', ['D', [[['L', []], ['N']]]]]))\ntime.sleep(30)\n"
    ),
    "a 15 MB answer per call": ("_big = 'x' * 15_000_000\ndef _huge(x):\n    return _big\n"),
    # -- the process group (setpgid, not setsid) ---------------------------------------------------------
    "a child that calls setsid and sleeps": (
        "if os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\n    os._exit(0)\n"
    ),
    "a child that takes a process group of its own": (
        "if os.fork() == 0:\n    os.setpgid(0, 0)\n    time.sleep(60)\n    os._exit(0)\n"
    ),
    "a child that joins its zygote's process group": (
        "if os.fork() == 0:\n"
        "    try:\n        os.setpgid(0, os.getpgid(os.getppid()))\n    except OSError:\n        pass\n"
        "    time.sleep(60)\n    os._exit(0)\n"
    ),
    "a double-forked daemon that ignores SIGTERM and SIGHUP": (
        "def _stay():\n"
        "    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\n"
        "        signal.signal(sig, signal.SIG_IGN)\n"
        "    time.sleep(60)\n"
        "_daemon(_stay)\n"
    ),
    "a fork bomb held at the process limit": (
        "def _bomb():\n"
        "    while True:\n"
        "        try:\n"
        "            if os.fork() == 0:\n                time.sleep(60)\n                os._exit(0)\n"
        "        except OSError:\n            time.sleep(60)\n"
        "_daemon(_bomb)\n"
    ),
    # -- signals to whatever it can see ---------------------------------------------------------------------
    "SIGSTOP then SIGKILL to every pid it can see, its parent first": (
        "def _hit():\n"
        "    time.sleep(0.05)\n"
        "    pids = [os.getppid()] + [int(p) for p in os.listdir('/proc') if p.isdigit()]\n"
        "    for sig in (signal.SIGSTOP, signal.SIGKILL):\n"
        "        for pid in pids + [-1]:\n"
        "            if pid not in (os.getpid(),):\n"
        "                try:\n                    os.kill(pid, sig)\n                except OSError:\n                    pass\n"
        "_daemon(_hit)\n"
    ),
}


@pytest.fixture(scope="module")
def box():
    sandbox = LocalSandbox()
    yield sandbox
    sandbox.close()


def _attack_program(prefix: str) -> str:
    # The attack runs at load; ``f`` is wrong on one call, and any helper the prefix defined wraps it.
    body = WRONG
    for helper in ("_shift", "_late"):
        if f"def {helper}(" in prefix:
            body = f"def f(x):\n    {helper}(x)\n    return 2 * x + (x == 7)\n"
    if "def _huge(" in prefix:
        body = "def f(x):\n    return _huge(x)\n"
    return _FRAMES + prefix + body


@pytest.mark.parametrize("task", [HUMANEVAL, ASSERTS], ids=["humaneval", "asserts"])
@pytest.mark.parametrize("how", sorted(ATTACKS))
def test_an_attack_on_the_new_paths_earns_nothing_and_leaves_nothing(box, how, task):
    verifier = verifier_on(box, 3.0)
    began = time.monotonic()
    verdict = verifier.verify(task, fenced(_attack_program(ATTACKS[how])))
    assert verdict.reward == 0.0 and not verdict.passed, verdict
    assert verdict.reason is not Reason.VERIFIER_ERROR, verdict
    # Never the host's own margin (deadline + 20 s) with retries: the sandbox answered itself.
    assert time.monotonic() - began < 3.0 + 3.0 + 10.0
    # The next samples on the same worker: their own verdicts, nothing of the attack's.
    assert verifier.verify(task, fenced(GOLD)).passed
    assert not verifier.verify(task, fenced(WRONG)).passed
    assert verifier.verify(task, fenced(GOLD)).passed
    assert_nothing_left()


@pytest.mark.parametrize("past_grace_s", [-0.3, -0.1, -0.02, 0.0, 0.02, 0.1, 0.3])
def test_a_judge_that_answers_right_at_the_zygotes_timeout_never_answers_the_next_sample(box, past_grace_s):
    # The task's own test keeps the judge busy until about deadline + grace (3 s) + past_grace_s,
    # then passes: the judge's answer and the zygote's timeout race for the same sample. Whichever
    # wins, the host hears one answer for it; a second would be read as the next sample's.
    wall = 1.0
    stalls = asserts_task(
        ["assert f() == 1", f"import time\ntime.sleep({wall + 3.0 + past_grace_s})"],
        names=("f",),
    )
    verifier = verifier_on(box, wall)
    one = asserts_task(["assert f() == 1"], names=("f",))
    verifier.verify(stalls, fenced("def f():\n    return 1\n"))  # either verdict: it raced
    # Had the racing sample answered twice, its "passed" would be read as this wrong one's.
    assert not verifier.verify(one, fenced("def f():\n    return 2\n")).passed
    assert verifier.verify(one, fenced("def f():\n    return 1\n")).passed
    assert not verifier.verify(one, fenced("def f():\n    return 2\n")).passed
    assert box.stats["infrastructure_retries"] == 0
    assert_nothing_left()


def test_answers_arriving_at_the_deadline_are_read_as_without_batching():
    # Each call takes a fifth of the budget: the batch's last answers come at and past the
    # deadline, taken from the socket as they would be call by call; the wrong one never passes.
    with LocalSandbox() as batched, LocalSandbox(batch_asserts=False) as single:
        for program in (GOLD, WRONG):
            slow = f"import time\n{program}_f = f\ndef f(x):\n    time.sleep(0.2)\n    return _f(x)\n"
            for sandbox in (batched, single):
                verdict = verifier_on(sandbox, 2.0).verify(HUMANEVAL, fenced(slow))
                assert not verdict.passed and verdict.reason is Reason.TIMEOUT, verdict
            for sandbox in (batched, single):
                assert verifier_on(sandbox, 5.0).verify(HUMANEVAL, fenced(program)).passed is (program == GOLD)
    assert_nothing_left()


# A handle on an object that stays in the solution, forged without the batch's "end" mark: the
# assert then asks for its length, which is no call of the batch. Were the judge to trust the
# mark, that request would be a "batch diverged", a judge error: the worker killed and the sample
# run again, at the program's command.
_FORGED_HANDLE = (
    _FRAMES + "def f(x):\n    os.write(3, _frame(['ok', ['R', 0]]))\n    time.sleep(30)\n    return [x, x, x]\n"
)
_LEN_TESTS = [f"assert len(f({i})) == 3" for i in range(4)]
_LEN_TASKS = {
    "asserts": asserts_task(_LEN_TESTS, names=("f",)),
    "humaneval": Task(
        id="redteam-len",
        prompt="p",
        answer={
            "format": "humaneval",
            "context": "",
            "entry_point": "f",
            "test": "def check(candidate):\n" + "".join(f"    {t.replace('f(', 'candidate(')}\n" for t in _LEN_TESTS),
        },
    ),
}


@pytest.mark.parametrize("kind", sorted(_LEN_TASKS))
def test_a_forged_handle_inside_a_batch_costs_no_worker_and_no_retry(box, kind):
    task = _LEN_TASKS[kind]
    verifier = verifier_on(box, 2.0)
    assert verifier.verify(task, fenced("def f(x):\n    return [x, x, x]\n")).passed
    before = dict(box.stats)
    verdict = verifier.verify(task, fenced(_FORGED_HANDLE))
    assert not verdict.passed and verdict.reason is not Reason.VERIFIER_ERROR, verdict
    assert box.stats["infrastructure_retries"] == before["infrastructure_retries"]
    assert box.stats["worker_starts"] == before["worker_starts"]
    assert verifier.verify(task, fenced("def f(x):\n    return [x, x, x]\n")).passed
    assert not verifier.verify(task, fenced("def f(x):\n    return [x, x]\n")).passed
    assert_nothing_left()


_STDIO = Task(
    id="redteam-stdio",
    prompt="p",
    answer={"format": "stdio", "cases": [{"input": f"{n}\n", "output": f"{2 * n}\n"} for n in (3, -4, 7)]},
)
_STDIO_ESCAPES = {
    "a setsid daemon that keeps stdout open": (
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(60)\n"
        "    os._exit(0)\n"
    ),
    "a child in a process group of its own that prints late": (
        "import os, time\nif os.fork() == 0:\n    os.setpgid(0, 0)\n    time.sleep(0.3)\n    print(6)\n"
        "    time.sleep(60)\n    os._exit(0)\n"
    ),
}


@pytest.mark.parametrize("how", sorted(_STDIO_ESCAPES))
def test_a_stdio_program_that_leaves_the_group_earns_nothing_and_leaves_nothing(box, how):
    verifier = verifier_on(box, 2.0)
    wrong = _STDIO_ESCAPES[how] + "n = int(input())\nprint(2 * n + (n == 7))\n"
    assert not verifier.verify(_STDIO, fenced(wrong)).passed
    assert_nothing_left()
    assert verifier.verify(_STDIO, fenced("print(2 * int(input()))\n")).passed
    assert not verifier.verify(_STDIO, fenced("print(2 * int(input()) + 1)\n")).passed
    assert_nothing_left()


def test_a_program_that_never_reads_its_socket_is_a_timeout_and_the_worker_goes_on(box):
    # It says it loaded, then reads nothing: the judge's 3 MB request fills the socket and the
    # judge blocks writing it, with no deadline of its own; its zygote answers at deadline + 3 s.
    task = asserts_task(["assert f(list(range(400_000))) == 0"], names=("f",))
    deaf = _FRAMES + "os.write(3, _frame(['loaded']))\ntime.sleep(60)\ndef f(x):\n    return 0\n"
    verifier = verifier_on(box, 1.0)
    assert verifier_on(box, 5.0).verify(task, fenced("def f(x):\n    return 0\n")).passed  # the worker is up
    before = dict(box.stats)
    verdict = verifier.verify(task, fenced(deaf))
    assert verdict.reason is Reason.TIMEOUT, verdict
    assert box.stats["infrastructure_retries"] == before["infrastructure_retries"]
    assert box.stats["worker_starts"] == before["worker_starts"]
    assert verifier_on(box, 5.0).verify(task, fenced("def f(x):\n    return 0\n")).passed
    assert not verifier_on(box, 5.0).verify(task, fenced("def f(x):\n    return 1\n")).passed
    assert_nothing_left()
