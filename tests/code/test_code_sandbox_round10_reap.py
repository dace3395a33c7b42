"""Issue 30, round 10: the solution zygote reaps every process of a run before it answers.

Round 10 tried the other order (one ``kill(-1)``, the answer, then the reap), which takes each
killed process's memory teardown off the verdict's path: 1.02-1.19x the throughput on HumanEval,
inside the noise, while a verdict could then arrive with the run's processes still dying (three
children of 600 MB took 0.4 s, and ``test_code_memory_bound`` reads the cgroup's tasks right
after the verdict). These tests pin the order, and that nothing of a run meets the next one.
"""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from rlvr_code import _sandbox_solution_zygote, _sandbox_wire
from tests.code.helpers_code import asserts_task, fenced
from tests.helpers.sandbox import needs_bwrap

LIMITS = {"cpu_s": 5, "memory_mb": 1024, "file_mb": 16, "open_files": 64, "processes": 16}


def serve_one_run(tmp_path, monkeypatch, fresh_mounts: bool) -> tuple[list[str], dict]:
    """Drive a real solution zygote (in this process, its run forked for real) through one run
    that ends at its socket's EOF, then a sync; record the order of reap, answer and drop."""
    events: list[str] = []
    real_kill = os.kill

    def kill(pid: int, sig: int) -> None:
        if pid <= 0:  # never ``kill(-1)`` here: outside a PID namespace it would hit the machine
            events.append("signal")
            return
        real_kill(pid, sig)

    def reap(*args: object, **kwargs: object) -> None:
        events.append("reap")

    def send(fd: int, message: object) -> None:
        if isinstance(message, dict) and "seq" in message:
            events.append("answer")
        _sandbox_wire.send(fd, message)

    monkeypatch.setattr(os, "kill", kill)
    monkeypatch.setattr(_sandbox_solution_zygote, "kill_all_but_me", reap)
    monkeypatch.setattr(_sandbox_solution_zygote, "send", send)
    workdir = tmp_path / "work"
    workdir.mkdir()
    mine, theirs = socket.socketpair()
    zygote = _sandbox_solution_zygote.SolutionZygote(
        {"link_fd": theirs.detach(), "root": str(tmp_path), "pid_namespace": True}
    )
    zygote.fresh_mounts = fresh_mounts  # as inside bubblewrap, without mounting anything here
    monkeypatch.setattr(zygote, "prepare_workdir", lambda uid: None)
    monkeypatch.setattr(zygote, "drop_workdir", lambda: events.append("drop"))
    calls, calls_theirs = socket.socketpair()
    ready_r, ready_w = os.pipe()
    server = threading.Thread(target=zygote.serve)
    server.start()
    try:
        assert _sandbox_wire.recv(mine.fileno(), time.monotonic() + 10)["ready"] is True
        request = {
            "op": "run",
            "seq": "s-1",
            "mode": "serve",
            "program": "def f():\n    return 1\n",
            "limits": LIMITS,
            "wall_s": 10.0,
        }
        _sandbox_wire.send_fds(mine, [calls_theirs.fileno(), ready_w], request)
        calls_theirs.close()
        os.close(ready_w)
        assert _sandbox_wire.recv(calls.fileno(), time.monotonic() + 10) == ["loaded"]
        calls.close()  # EOF: the sample process ends by itself
        outcome = _sandbox_wire.recv(mine.fileno(), time.monotonic() + 10)
        _sandbox_wire.send_fds(mine, [], {"op": "sync", "token": "T"})
        synced = _sandbox_wire.recv(mine.fileno(), time.monotonic() + 10)
        assert synced == {"synced": "T", "retire": None}
    finally:
        mine.close()
        server.join(10)
        os.close(ready_r)
    return events, outcome


@pytest.mark.skipif(os.getuid() != 0, reason="the sample process drops capabilities it must hold first")
@pytest.mark.parametrize("fresh_mounts", [True, False], ids=["tmpfs per run", "wiped in place"])
def test_the_answer_comes_after_the_reap(tmp_path, monkeypatch, fresh_mounts):
    events, outcome = serve_one_run(tmp_path, monkeypatch, fresh_mounts)
    assert outcome["seq"] == "s-1" and outcome["exit"] == 0 and outcome["setup_ok"] is True
    assert "signal" not in events  # every kill goes through the reap (patched here)
    # A tmpfs of its own is unmounted after the answer; a wipe in place comes before it.
    assert events == (["reap", "answer", "drop"] if fresh_mounts else ["reap", "drop", "answer"])


@needs_bwrap
def test_what_a_run_leaves_running_is_gone_before_the_next_run_starts():
    """A sample's processes that outlive its call are never seen by the next sample on the same
    worker, which lists its PID namespace's processes."""
    from rlvr_code.sandbox import LocalSandbox
    from rlvr_code.verifier import CodeVerifier

    leave = (
        "import os, time\n"
        "def f():\n"
        "    for _ in range(3):\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(600)\n"
        "    return 1\n"
    )
    # Besides itself: bubblewrap's init (1) and the zygote (2), nothing of the sample before.
    look = (
        "import os\n"
        "def f():\n"
        "    return sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid())\n"
    )
    box = LocalSandbox(workers=1)
    verifier = CodeVerifier(timeout_s=10.0)
    verifier.sandbox = lambda: box
    try:
        for _ in range(3):
            assert verifier.verify(asserts_task(["assert f() == 1"], names=("f",)), fenced(leave)).passed
            assert verifier.verify(asserts_task(["assert f() == [1, 2]"], names=("f",)), fenced(look)).passed
    finally:
        box.close()
