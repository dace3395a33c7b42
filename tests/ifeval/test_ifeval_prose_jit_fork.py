"""A fork while the numba kernels load on their background thread must not leave the child a
lock nobody releases (a pool worker's warm_up would then wait forever)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("numba")

CHILD = textwrap.dedent(
    """
    import os, sys, threading, time
    from rlvr_ifeval import prose_jit

    holding = threading.Event()

    def slow_load():  # stands in for a compile that is still running at the fork
        with prose_jit._LOCK:
            holding.set()
            time.sleep(5)
        return False

    prose_jit.load = slow_load
    prose_jit.start()
    holding.wait(5)
    pid = os.fork()
    if pid == 0:
        got = prose_jit._LOCK.acquire(timeout=2)  # the parent's thread is not here to release it
        os._exit(0 if got and not prose_jit._started and not prose_jit._loaded else 3)
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))
    """
)


def test_a_child_forked_while_the_kernels_load_can_load_them_itself():
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
