"""Issue 26, round 15: no two live python-tool sessions of one process share a uid.

Fixed (fails on the commit before, 57a8501): each sandbox took the uid ``base + next(counter) % 64``,
so in a process holding more than 64 sessions at once (the episode server, 256 by default; a trainer
running a batch of episodes in lockstep) the 65th took the 1st one's uid while it was still alive.
RLIMIT_NPROC counts per uid: a fork bomb in one rollout's session left another rollout's session no
process to start (and per-uid kernel state, the user keyring, was shared). Now a uid is held while
its session's tree lives: 64 per process as before, then 2,048 more in a range of their own.
"""

from __future__ import annotations

import itertools
import os
import shutil

import pytest

from rlvr_code.tools import python_tool
from rlvr_code.tools.python_tool import PythonProcess

root = pytest.mark.skipif(os.getuid() != 0, reason="sessions get uids of their own only as root")

_FILL = """import os, time
kids = 0
for _ in range(40):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    kids += 1
print(kids)"""
_FORK_ONCE = """import os
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
print("forked")"""


@root
def test_live_sessions_never_share_a_uid():
    held = [python_tool._session_uid() for _ in range(300)]  # before: the 65th was the 1st's
    try:
        assert len(set(held)) == 300
        assert all(isinstance(u, int) and 0 < u < 2**32 - 2 for u in held)
        # clear of the code sandbox's uids (1.9e9 + 64e6) and other languages' (1.95e9 + 64e6)
        assert not any(1_900_000_000 <= u < 2_014_000_000 for u in held if u is not None)
    finally:
        for uid in held:
            python_tool._release_uid(uid)
    again = python_tool._session_uid()
    python_tool._release_uid(again)
    assert again in held and again < 1_864_000_000  # freed ones are reused, the first block first


@root
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")
def test_a_fork_bomb_in_one_session_leaves_another_its_processes(monkeypatch):
    # Every session asks for the same slot first, as the 1st and the 65th of a process did.
    monkeypatch.setattr(python_tool, "_uids", itertools.repeat(0))
    bomb = PythonProcess()
    try:
        other = PythonProcess()
        try:
            output, _, failed = bomb.run(_FILL, 30.0)
            assert not failed and int(output) >= 10, output  # held at its own RLIMIT_NPROC (16)
            output, _, failed = other.run(_FORK_ONCE, 30.0)
            assert (output.strip(), failed) == ("forked", False)  # before: BlockingIOError (EAGAIN)
            assert bomb.uid != other.uid
        finally:
            other.kill()
    finally:
        bomb.kill()
    assert bomb.uid not in python_tool._live_uids and other.uid not in python_tool._live_uids
