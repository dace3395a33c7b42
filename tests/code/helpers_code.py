"""Shared bits of the code family's tests: tasks, a verifier, and a leftover-process probe."""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache

from rlvr_code import sandbox_uids
from rlvr_code.languages import runner
from rlvr_envs.types import Task
from tests.helpers.data import read_jsonl

SAMPLE_UID_BASE = 1_900_000_000


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


@cache
def humaneval_rows() -> tuple[dict, ...]:
    return tuple(read_jsonl("humaneval.jsonl"))


@cache
def mbpp_rows() -> tuple[dict, ...]:
    return tuple(read_jsonl("mbpp.jsonl"))


def humaneval_task(index: int = 0) -> Task:
    from rlvr_code.envs import humaneval_task as build

    return build(humaneval_rows()[index])


def asserts_task(tests: list[str], setup: str = "", names: tuple[str, ...] = ()) -> Task:
    return Task(
        id="hostile",
        prompt="hostile",
        answer={"format": "asserts", "tests": tests, "setup": setup, "solution_names": list(names)},
    )


def _status(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as fh:
            return dict(line.split(":\t", 1) for line in fh.read().splitlines() if ":\t" in line)
    except OSError:
        return {}


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ")[:120].decode("utf-8", "replace")
    except OSError:
        return ""


def _belongs_to_another_process_tree(pid: int) -> bool:
    """Whether a sample process was started by some other live Python process than this one.

    Several test runs (or a pool of another user) may verify code on one machine at once: their
    samples are theirs to check. Walks up past the sandbox (sample processes, zygotes, bwrap)
    to the first ordinary process: this process or one of its descendants (a pool worker) makes
    the sample ours; another Python process makes it someone else's; anything else (init, a
    subreaper) means the sample outlived its sandbox, and it counts.
    """
    me = os.getpid()
    seen = set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        status = _status(pid)
        if not status:
            return False
        uid = int(status.get("Uid", "0").split()[0])
        command = _cmdline(pid)
        in_sandbox = uid >= SAMPLE_UID_BASE or command.startswith(("/usr/bin/bwrap", "bwrap", "/usr/bin/python3 -I -S"))
        if not in_sandbox:
            ancestor = pid
            while ancestor > 1:
                if ancestor == me:
                    return False
                ancestor = int(_status(ancestor).get("PPid", "0") or 0)
            return "python" in command
        pid = int(status.get("PPid", "0") or 0)
    return False


# Sample uids name the process that made them: base + (pid % 1,000,000) x step + slot: the Python
# sandbox's from 2.02e9 (64 a process) and, past those, 1.9e9 (48 a process; ``sandbox_uids``), other
# languages' from 1.95e9 (64 a process; ``runner``). Highest base first.
_UID_BASES = (
    (sandbox_uids.SANDBOX_UID_BASE, sandbox_uids.SANDBOX_UID_BLOCK),
    (runner._UID_BASE, 64),
    (sandbox_uids.SANDBOX_UID_OVERFLOW_BASE, sandbox_uids.SANDBOX_UID_OVERFLOW_BLOCK),
)


def _started_by_another_live_process(uid: int) -> bool:
    """Whether a sample uid names a live process that is neither this one nor a descendant (a
    pool worker): another test run's sample, such as a dying other-language sample (its command
    line already gone, its ancestry no longer walkable) of a neighbouring xdist worker. A uid
    naming this process, a descendant or no live process is ours to account for."""
    base, step = next((b, step) for b, step in _UID_BASES if uid >= b)
    creator = (uid - base) // step
    me = os.getpid()
    if creator <= 1 or creator == me % 1_000_000 or not _status(creator):
        return False
    ancestor = creator
    while ancestor > 1:
        if ancestor == me:
            return False
        ancestor = int(_status(ancestor).get("PPid", "0") or 0)
    return True


def sample_processes() -> list[tuple[int, int, str]]:
    """Processes running under a sample uid that this test run started, or that outlived their
    sandbox (there must be none between samples)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        status = _status(int(entry))
        if not status:
            continue
        uid = int(status.get("Uid", "0").split()[0])
        if uid < SAMPLE_UID_BASE or _awaits_the_host_init(status):
            continue
        if _started_by_another_live_process(uid):
            continue
        if not _belongs_to_another_process_tree(int(entry)):
            found.append((int(entry), uid, _cmdline(int(entry))))
    return found


def _awaits_the_host_init(status: dict[str, str]) -> bool:
    """A dead process handed to the machine's init: bubblewrap's pid-namespace init of an
    other-language sample whose outer bubblewrap was killed (or returned) first. It holds no
    memory, files or cgroup; the host init reaps it when it gets to it (seconds later in CI,
    after the next test had looked). A zombie under a zygote still counts: that one is ours to reap."""
    return status.get("State", "").startswith(("Z", "X")) and status.get("PPid", "").strip() == "1"


def local_run(program: str, cases: list[dict[str, str]], timeout: float = 60) -> list[str | None]:
    """A stand-in for the sandbox run of a derivation (the references are the tests' own): one
    subprocess per case, its stdout, or None where it failed."""
    out: list[str | None] = []
    for case in cases:
        done = subprocess.run(
            [sys.executable, "-I", "-c", program], input=case["input"], capture_output=True, text=True, timeout=timeout
        )
        out.append(done.stdout if done.returncode == 0 else None)
    return out


def shown_hidden_task(prefix: str, name: str, shown: str, hidden: list[str], solution: str) -> Task:
    """An MBPP-shaped task: the prompt shows one assert, the others are hidden."""
    return Task(
        id=f"{prefix}-{name}",
        prompt=f"Write {name}. Your code should pass: {shown}",
        answer={
            "format": "asserts",
            "tests": [shown, *hidden],
            "setup": "",
            "solution_names": [name],
            "canonical_solution": solution,
        },
    )


def table_then(task: Task, rule: str) -> str:
    """A program answering the prompt's shown example from a table and ``rule`` (an expression of
    ``args``) otherwise."""
    name = task.answer["solution_names"][0]
    shown = task.answer["tests"][0]
    call, value = shown.removeprefix("assert ").split(" == ", 1)
    args = call.split("(", 1)[1].rsplit(")", 1)[0]
    return f"def {name}(*args):\n    if args == ({args},):\n        return {value}\n    return {rule}\n"
