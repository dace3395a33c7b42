"""The hostile battery in C, C++ and JavaScript: every program scores 0, the verifier keeps
working, and nothing is left behind (no process of a sample uid, no directory, no cgroup)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import tempfile
import time

import pytest

from rlvr_code.languages.runner import sample_dir_prefix
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Reason, Task
from tests.code.languages_cases import SOLUTIONS, fenced_in
from tests.code.languages_hostile import HOSTILE

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

CASES = [{"input": "1 2\n", "output": "3\n"}, {"input": "10 20\n", "output": "30\n"}]
TASK = Task(id="a_plus_b", prompt="a+b", answer={"format": "stdio", "language": "c", "cases": CASES})


def _our_uids() -> range:
    """The sample uids this process hands out (``runner._Uids``): another test run on the same
    machine (a second checkout, a helper's run) uses its own 64, and its samples are its own."""
    base = 1_950_000_000 + (os.getpid() % 1_000_000) * 64
    return range(base, base + 64)


@pytest.fixture(scope="module")
def verifier() -> CodeVerifier:
    return CodeVerifier(timeout_s=8.0, case_timeout_s=2.0)


@pytest.fixture(scope="module")
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server.getsockname()[1]
    server.close()


def leftovers() -> list[str]:
    ours = _our_uids()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                uid = os.stat(f"/proc/{entry}").st_uid
            except (FileNotFoundError, ProcessLookupError):
                continue
            # Zombies count: bubblewrap reaps the program (the namespace's pid 1) itself; a zombie
            # left for the machine's init piles up where that init does not reap (Docker's default).
            if uid in ours:
                found.append(f"pid {entry} uid {uid}")
    # This process's sample directories alone (``runner.sample_dir_prefix``): as non-root every
    # sample has our uid, and another xdist worker's live sample is not ours to count.
    found += glob.glob(os.path.join(tempfile.gettempdir(), sample_dir_prefix() + "*"))
    from rlvr_code.memory_bound import parent_cgroup

    parent = parent_cgroup()
    if parent is not None:
        found += glob.glob(os.path.join(parent[0], f"rlvr-code-{os.getpid()}-*"))
    return found


def need(language: str) -> None:
    from rlvr_code.languages import LANGUAGES
    from rlvr_code.languages.runner import toolchain_error

    if toolchain_error(LANGUAGES[language]):
        pytest.skip(f"{language} toolchain missing")


BATTERY = [(language, name) for language, programs in HOSTILE.items() for name in programs]


@pytest.mark.parametrize(("language", "name"), BATTERY)
def test_hostile_program_scores_zero(verifier: CodeVerifier, listener: int, language: str, name: str) -> None:
    need(language)
    program = HOSTILE[language][name].replace("{port}", str(listener))
    task = TASK.model_copy(update={"answer": {**TASK.answer, "language": language}})
    # What earlier tests in this process hold (a Python sandbox worker's live cgroup) is not this sample's.
    before = set(leftovers())
    started = time.monotonic()
    verdict = verifier.verify(task, fenced_in(language, program))
    elapsed = time.monotonic() - started
    assert verdict.reward == 0.0, (name, verdict.reason, verdict.details)
    assert verdict.reason not in (Reason.OK, Reason.VERIFIER_ERROR, Reason.COMPILE_ERROR), verdict.details
    # Within the sample's budget plus a compile and the clean-up.
    assert elapsed < 8.0 + 30.0, elapsed
    assert sorted(set(leftovers()) - before) == []
    # The verifier still works after it.
    honest = verifier.verify(task, fenced_in(language, SOLUTIONS[language]["a_plus_b"]))
    assert honest.reward == 1.0, honest.details


def test_listener_is_reachable_from_the_host(listener: int) -> None:
    # The network attack fails because of the sandbox, not because nothing listens.
    with socket.create_connection(("127.0.0.1", listener), timeout=2):
        pass
