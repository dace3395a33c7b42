"""Red-team probes of issue 30's contest paths, as a policy under RL would try them: file-I/O
tasks (``answer["io"]``), interactive tasks (``answer["interactor"]``) and the per-run CPU budget.

Each probe is a wrong program (or one that cheats a budget): it must never earn reward 1, never
leave a process, directory or cgroup behind, and end within its budget. What a run could see and
keep between cases is checked from inside (the program reports it in its output file).

Serial pass (``tests/conftest.py``): the runner's sample uids.
"""

from __future__ import annotations

import glob
import os
import shutil
import time
from typing import Any

import pytest

from rlvr_code.contests.verifier import ContestVerifier
from rlvr_envs import python_ast
from rlvr_envs.types import Reason, Task
from tests.code.contest_interactive_cases import FILE_CASES, fence, interactive_task
from tests.code.test_code_languages_hostile import leftovers as hostile_leftovers

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

IO = {"input": "input.txt", "output": "output.txt"}
LIMITS = {"wall_s": 20, "cpu_s": 10, "case_s": 8, "memory_mb": 512, "file_mb": 16, "processes": 16}
LIMITS |= {"output_bytes": 1 << 16, "total_memory_mb": 768}


@pytest.fixture(scope="module")
def verifier() -> ContestVerifier:
    return ContestVerifier(timeout_s=12.0, case_timeout_s=2.0)


def leftovers() -> list[str]:
    """The hostile suite's leftovers, and this process's CPU cgroups (``languages.cpu_group``)."""
    from rlvr_code.languages.cpu_group import _cpuacct_parent

    parent = _cpuacct_parent()
    groups = glob.glob(os.path.join(parent, f"rlvr-cpu-{os.getpid()}-*")) if parent else []
    return hostile_leftovers() + groups


def _capture(step: Any, expected: str, wall_s: float, cap: int) -> dict[str, Any]:
    return {"status": "seen", "out": step.out, "exit": step.exit, "cpu_limited": step.cpu_limited}


def _run_io(source: str, cases: list[str]) -> list[dict[str, Any]]:
    """What a Python file-I/O program left in its output file, case by case (run directly)."""
    from rlvr_code.contests.sandboxed import language_spec
    from rlvr_code.languages.runner import FileIO, run_sample

    report = run_sample(
        language_spec("python"),
        source,
        [{"input": text, "output": ""} for text in cases],
        dict(LIMITS),
        judge=_capture,
        io=FileIO("input.txt", "output.txt"),
    )
    return report["tests"]


# --- file-I/O ---------------------------------------------------------------------------------

_LOOK = r"""
import os
seen = {}
for d in ("/", "/box", "/tmp", "/dev/shm", "/dev", "/proc/self/cwd", "/proc/1/root/box"):
    try:
        seen[d] = sorted(os.listdir(d))
    except OSError as e:
        seen[d] = e.errno
marks = {}
for d in ("/tmp", "/dev/shm", "/dev", "/box"):
    marks[d] = os.path.exists(d + "/rlvr-mark")
    try:
        open(d + "/rlvr-mark", "w").write("kept")
    except OSError:
        pass
tricks = {}
for name, op in (
    ("symlink", lambda: os.symlink("/box/input.txt", "/box/output.txt")),
    ("hardlink", lambda: os.link("/box/input.txt", "/box/output.txt")),
    ("unlink", lambda: os.unlink("/box/output.txt")),
    ("rename", lambda: os.rename("/box/input.txt", "/box/output.txt")),
    ("fifo", lambda: os.mkfifo("/box/output.txt")),
    ("mkdir", lambda: os.mkdir("/box/answers")),
    ("write input", lambda: open("/box/input.txt", "a").write("9")),
    ("write source", lambda: open("/box/main.py", "a").write("#")),
):
    try:
        op()
        tricks[name] = "done"
    except OSError as e:
        tricks[name] = e.errno
open("/box/output.txt", "w").write(repr({"seen": seen, "marks": marks, "tricks": tricks}))
"""


def test_a_file_io_run_sees_only_its_own_files_and_keeps_nothing_for_the_next_case() -> None:
    before = set(leftovers())
    tests = _run_io(_LOOK, ["1 2\n", "3 4\n"])
    reports: list[Any] = [python_ast.literal_eval(t["out"].decode()) for t in tests]
    for report in reports:
        assert report["seen"]["/box"] == ["input.txt", "main.py", "output.txt"], report
        assert report["seen"]["/tmp"] == [] and report["seen"]["/dev/shm"] == [], report
        assert all(value != "done" for value in report["tricks"].values()), report["tricks"]
    # What case 0 wrote anywhere it could is gone in case 1: no state crosses cases.
    assert not any(reports[1]["marks"].values()), reports[1]["marks"]
    assert sorted(set(leftovers()) - before) == []


def test_a_process_left_running_cannot_rewrite_the_output_after_the_run() -> None:
    # A daemon that would write after the program's exit, racing the read-back: it dies with the
    # program (its pid namespace), so the output is what the program itself wrote.
    source = (
        "import os, time\nopen('output.txt', 'w').write('A\\n')\nif os.fork() == 0:\n    os.setsid()\n"
        "    if os.fork() == 0:\n        time.sleep(0.3)\n        open('/box/output.txt', 'w').write('B\\n')\n"
        "    os._exit(0)\n"
    )
    before = set(leftovers())
    (test,) = _run_io(source, ["1 2\n"])
    time.sleep(0.5)
    assert test["out"] == b"A\n", test
    assert sorted(set(leftovers()) - before) == []


WRONG_FILE_IO = {
    "the right sum on stdout, a wrong one in the file": "a, b = map(int, open('input.txt').read().split())\n"
    "print(a + b)\nopen('output.txt', 'w').write(str(a - b))\n",
    "echo the input back": "import shutil\nshutil.copyfile('input.txt', 'output.txt')\n",
    "output.txt made read-only, then nothing": "import os\nos.chmod('output.txt', 0)\n",
    "huge sparse output file": "f = open('output.txt', 'w')\nf.truncate(1 << 40)\n",
    "output at the file-size limit": "f = open('output.txt', 'w')\nf.seek((16 << 20) - 2)\nf.write('3\\n')\n",
    "output as a memory map of /proc/self/fd": "import os\nos.symlink('/proc/self/fd/1', '/tmp/o')\n"
    "open('output.txt', 'w').write(os.readlink('/tmp/o'))\n",
    "flood stdout, nothing in the file": "import sys\nwhile True:\n    sys.stdout.write('3\\n42\\n' * 1000)\n",
}


@pytest.mark.parametrize("checker", [None, {"type": "tokens"}])
@pytest.mark.parametrize("name", sorted(WRONG_FILE_IO))
def test_wrong_file_io_programs_score_zero(verifier: ContestVerifier, name: str, checker: Any) -> None:
    answer = {"format": "stdio", "language": "python", "cases": FILE_CASES, "io": IO}
    task = Task(id="sum", prompt="a+b", answer=answer if checker is None else {**answer, "checker": checker})
    before = set(leftovers())
    started = time.monotonic()
    verdict = verifier.verify(task, fence("python", WRONG_FILE_IO[name]))
    assert verdict.reward == 0.0 and verdict.reason is not Reason.VERIFIER_ERROR, verdict.details
    assert time.monotonic() - started < 12.0 + 10.0
    assert sorted(set(leftovers()) - before) == []


# --- interactive ----------------------------------------------------------------------------------

# Looks everywhere it can for the hidden number (the interactor's files, its command line, its
# stdin, other processes), then tries each candidate with a query: '=' would give it away.
SNOOP = r"""
import os, re, sys
found = set()
def grab(path):
    try:
        with open(path, "rb") as fh:
            found.update(int(x) for x in re.findall(rb"\d{1,7}", fh.read(1 << 16)))
    except (OSError, ValueError):
        pass
for top in ("/box", "/tmp", "/dev/shm", "/proc/self/fd"):
    for root, dirs, files in os.walk(top):
        for f in files:
            grab(os.path.join(root, f))
for pid in os.listdir("/proc"):
    if pid.isdigit() and pid != str(os.getpid()):
        for leaf in ("cmdline", "environ", "fd/0", "fd/3", "root/box/case-answer.txt", "root/box/case-input.txt"):
            grab(f"/proc/{pid}/{leaf}")
for name in ("case-input.txt", "case-answer.txt", "case-log.txt"):
    grab("/box/" + name)
    grab("/" + name)
candidates = sorted(x for x in found if 1 <= x <= 10**6)[:24] or [1]
for x in candidates:
    print("?", x, flush=True)
    if input().strip() == "=":
        print("!", x, flush=True)
        sys.exit(0)
print("!", candidates[0], flush=True)
"""

WRONG_CONTESTANTS = {
    "snoop for the hidden number": SNOOP,
    # Reopens its own pipes through /proc: a writer to its stdin (so it never sees EOF) and a
    # reader of its stdout (to swallow its own queries); the interactor hears nothing.
    "reopen its pipes through /proc": "import os, time\nw = os.open('/proc/self/fd/0', os.O_WRONLY)\n"
    "r = os.open('/proc/self/fd/1', os.O_RDONLY | os.O_NONBLOCK)\nos.write(w, b'=\\n')\nprint('! 1', flush=True)\n"
    "time.sleep(0.05)\ntry:\n    os.read(r, 100)\nexcept BlockingIOError:\n    pass\n",
    # Deadlock: both wait for the other. The interactor's wall clock ends first (it started first),
    # its pipe closes, and this contestant exits 0 at once on that EOF, before its own deadline:
    # the deadlock is still the contestant's (a timeout), never the interactor's failure.
    "exit 0 at once when the interactor is killed": "import os, sys\nsys.stdin.buffer.read()\nos._exit(0)\n",
    # One endless line: a sound interactor's readline held it all and ran out of memory (its
    # failure) until the contestant's output to the interactor had its cap.
    "one endless line to the interactor": "import os\nos.write(1, b'? ')\nb = b'1' * (1 << 20)\nwhile True:\n"
    "    os.write(1, b)\n",
    "close both pipes, then exit 0": "import os\nos.close(0)\nos.close(1)\n",
    "attach to every process": "import ctypes, os\nlibc = ctypes.CDLL(None)\nfor pid in os.listdir('/proc'):\n"
    "    if pid.isdigit():\n        libc.ptrace(16, int(pid), 0, 0)\nprint('! 1', flush=True)\n",
    "signal every process group, then answer": "import os, signal\nfor s in (signal.SIGSTOP, signal.SIGKILL):\n"
    "    for pid in range(2, 400):\n        try:\n            os.kill(-pid, s)\n        except OSError:\n"
    "            pass\nprint('! 1', flush=True)\n",
}


@pytest.mark.parametrize("name", sorted(WRONG_CONTESTANTS))
def test_wrong_contestants_score_zero_and_never_a_verifier_error(verifier: ContestVerifier, name: str) -> None:
    task = Task(id="guess", prompt="guess", answer=interactive_task("python", "python"))
    before = set(leftovers())
    started = time.monotonic()
    verdict = verifier.verify(task, fence("python", WRONG_CONTESTANTS[name]))
    assert verdict.reward == 0.0, verdict.details
    # The interactor is sound: how the contestant ended never makes it the interactor's failure.
    assert verdict.reason in (Reason.WRONG, Reason.TIMEOUT, Reason.RUNTIME_ERROR), verdict.details
    assert time.monotonic() - started < 12.0 + 10.0
    assert sorted(set(leftovers()) - before) == []


# An interactor written with input(): the contestant's output ending early raises EOFError there,
# which is the contestant's fault (testlib rejects it too), not the interactor's failure.
INPUT_INTERACTOR = (
    "import sys\nn = int(open(sys.argv[1]).read())\nfor _ in range(25):\n    op, x = input().split()\n"
    "    if op == '!':\n        sys.exit(0 if int(x) == n else 1)\n"
    "    print('<' if n < int(x) else '>' if n > int(x) else '=', flush=True)\nsys.exit(1)\n"
)


@pytest.mark.parametrize("contestant", ["import sys\nsys.exit(0)\n", "print('? 5', flush=True)\n"])
def test_a_contestant_whose_output_ends_early_is_rejected_by_an_input_interactor(
    verifier: ContestVerifier, contestant: str
) -> None:
    answer = interactive_task("python", "python")
    answer["interactor"] = {"language": "python", "source": INPUT_INTERACTOR}
    verdict = verifier.verify(Task(id="g", prompt="g", answer=answer), fence("python", contestant))
    assert verdict.reward == 0.0 and verdict.reason is Reason.WRONG, verdict.details
    # The same interactor's own bug is still its failure.
    answer["interactor"] = {"language": "python", "source": "import sys\nint(open(sys.argv[1]).read() + 'x')\n"}
    broken = verifier.verify(Task(id="g", prompt="g", answer=answer), fence("python", contestant))
    assert broken.reason is Reason.VERIFIER_ERROR, broken.details


# --- CPU budget -----------------------------------------------------------------------------------

_SPIN_CHILDREN = r"""
import os, signal, time
{setup}
me = os.getpid()
def busy():  # children of ours that still run (orphans come to us: we are the namespace's init)
    alive = []
    for child in open(f"/proc/self/task/{{me}}/children").read().split():
        try:
            if open(f"/proc/{{child}}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
                alive.append(child)
        except OSError:
            pass
    return alive
for _ in range(30):
    if os.fork() == 0:
        {orphan}
        t = time.process_time()
        while time.process_time() - t < 0.1:
            pass
        os._exit(0)
    while busy():
        time.sleep(0.001)
    {reap}
print(3)
"""
_IGNORE = "signal.signal(signal.SIGCHLD, signal.SIG_IGN)"
_REAP = (
    "try:\n        while os.waitpid(-1, os.WNOHANG)[0]:\n            pass\n    except ChildProcessError:\n        pass"
)
_ORPHAN = "if os.fork():\n            os._exit(0)"

CPU_CHEATS = {
    # children the kernel reaps itself (SIGCHLD ignored): their CPU never reaches anyone's cutime
    "auto-reaped children": _SPIN_CHILDREN.format(setup=_IGNORE, orphan="", reap=""),
    "zombie children": _SPIN_CHILDREN.format(setup="", orphan="", reap=""),
    "reaped children": _SPIN_CHILDREN.format(setup="", orphan="", reap=_REAP),
    # each spinning child orphaned first (its parent gone, it comes to the namespace's init)
    "orphaned grandchildren, auto-reaped": _SPIN_CHILDREN.format(setup=_IGNORE, orphan=_ORPHAN, reap=""),
    "orphaned grandchildren, reaped": _SPIN_CHILDREN.format(setup="", orphan=_ORPHAN, reap=_REAP),
}


@pytest.mark.parametrize("name", sorted(CPU_CHEATS))
def test_cpu_spent_in_children_counts_against_the_budget(name: str) -> None:
    from rlvr_code.contests.sandboxed import language_spec
    from rlvr_code.languages.runner import run_sample

    before = set(leftovers())
    # 3 s of CPU against a 1 s budget: a timeout however the children end.
    report = run_sample(
        language_spec("python"), CPU_CHEATS[name], [{"input": "", "output": "3\n"}], {**LIMITS, "run_cpu_s": 1.0}
    )
    (test,) = report["tests"]
    assert test["status"] == "timeout" and "CPU budget" in test["error"], test
    assert sorted(set(leftovers()) - before) == []
