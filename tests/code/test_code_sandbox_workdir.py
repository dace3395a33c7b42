"""A sample's working directory is kept for the next run only when the run left it as mounted.

The solution zygote used to mount a fresh tmpfs per run and unmount it afterwards (issue 30:
a mount and an RCU grace period a sample). Now it keeps the tmpfs when nothing of the run is
left in it. Whatever a run can change there (a file kept, a file made and removed, a directory,
a link, the mode, the timestamps, an extended attribute) must still give the next run a fresh
one; a run that left nothing must not cost a mount.
"""

from __future__ import annotations

import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rlvr_code.sandbox import LocalSandbox
from rlvr_code.verifier import CodeVerifier
from tests.code.helpers_code import asserts_task, fenced

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

TASK = asserts_task(["assert f() == 1"], names=("f",))

# Right only in a working directory as freshly mounted: empty, the sample's own, mode 0700,
# timestamps not set by anyone, no extended attribute.
CHECKS_A_FRESH_DIRECTORY = fenced(
    "import os, stat, time\n"
    "def f():\n"
    "    info = os.stat('.')\n"
    "    fresh = (\n"
    "        os.listdir('.') == []\n"
    "        and info.st_uid == os.getuid()\n"
    "        and stat.S_IMODE(info.st_mode) == 0o700\n"
    "        and info.st_nlink == 2\n"
    "        and abs(info.st_mtime - time.time()) < 3600\n"
    "        and abs(info.st_atime - time.time()) < 3600\n"
    "    )\n"
    "    try:\n"
    "        fresh = fresh and os.listxattr('.') == []\n"
    "    except OSError:\n"
    "        pass\n"
    "    return 1 if fresh else 0\n"
)

TOUCHES = {
    "a file kept": "open('kept.txt', 'w').write('secret')\n",
    "a file made and removed": "open('gone.txt', 'w').write('x')\nos.remove('gone.txt')\n",
    "a directory": "os.mkdir('sub')\n",
    "a directory made and removed": "os.mkdir('sub')\nos.rmdir('sub')\n",
    "a symbolic link": "os.symlink('/etc/passwd', 'link')\n",
    "the mode": "os.chmod('.', 0o777)\n",
    "the mode, restored": "os.chmod('.', 0o755)\nos.chmod('.', 0o700)\n",
    "the timestamps": "os.utime('.', (1, 1))\n",
    "an extended attribute": (
        "try:\n    os.setxattr('.', 'user.rlvr', b'left')\nexcept OSError:\n    os.utime('.', (2, 2))\n"
    ),
    "an unlinked file held open": "fh = open('held', 'w')\nos.remove('held')\nfh.write('x' * 100000)\n",
}


@pytest.fixture(scope="module")
def box():
    sandbox = LocalSandbox(workers=1)
    yield sandbox
    sandbox.close()


def verify(box: LocalSandbox, completion: str) -> bool:
    verifier = CodeVerifier(timeout_s=20.0)
    verifier.sandbox = lambda: box  # type: ignore[method-assign]
    return verifier.verify(TASK, completion).passed


def work_root(box: LocalSandbox) -> os.stat_result | None:
    """The solution zygote's working directory as the zygote sees it (None: no tmpfs per run)."""
    (worker,) = box._all
    pid, seen = worker.solution.pid, set[int]()
    while True:  # bubblewrap (its outer and inner process), then the zygote
        children = {int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()} - seen
        if not children:
            return None
        seen.add(pid)
        pid = min(children)
        if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"/usr/bin/python3"):
            break
    root = Path(f"/proc/{pid}/root/tmp/rlvr/work")
    if not any(line.split()[4] == "/tmp/rlvr/work" for line in Path(f"/proc/{pid}/mountinfo").read_text().splitlines()):
        return None
    return root.stat()


def test_a_run_that_leaves_its_directory_untouched_keeps_the_mount(box):
    assert verify(box, fenced("def f():\n    return 1\n"))
    first = work_root(box)
    if first is None:
        pytest.skip("no tmpfs per run here (reduced isolation)")
    for _ in range(2):
        time.sleep(0.05)  # a fresh mount would have later times than the kept one
        assert verify(box, fenced("def f():\n    return 1\n"))
        now = work_root(box)
        assert now is not None and (now.st_dev, now.st_ctime_ns) == (first.st_dev, first.st_ctime_ns)


def test_a_run_that_only_read_its_directory_keeps_the_mount_with_its_times_set_back(box):
    assert verify(box, fenced("def f():\n    return 1\n"))
    first = work_root(box)
    if first is None:
        pytest.skip("no tmpfs per run here (reduced isolation)")
    time.sleep(0.05)
    started = time.time_ns()
    assert verify(box, CHECKS_A_FRESH_DIRECTORY)  # lists it: its access time changes
    # The zygote cleans up after it has answered (drop_deferred), before it takes the next run:
    # wait for that (bounded) instead of reading the times at once.
    deadline = time.monotonic() + 10
    while True:
        now = work_root(box)
        assert now is not None
        if now.st_atime_ns == first.st_atime_ns or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert (now.st_dev, now.st_atime_ns, now.st_mtime_ns) == (first.st_dev, first.st_atime_ns, first.st_mtime_ns)
    assert now.st_mtime_ns < started


@pytest.mark.parametrize("touch", sorted(TOUCHES))
def test_whatever_a_run_changes_in_its_directory_the_next_one_gets_a_fresh_one(box, touch):
    assert verify(box, CHECKS_A_FRESH_DIRECTORY)
    toucher = fenced(f"import os\n{TOUCHES[touch]}def f():\n    return 1\n")
    assert verify(box, toucher)
    assert verify(box, CHECKS_A_FRESH_DIRECTORY), f"{touch} reached the next sample"


def test_the_checking_program_sees_each_change(box):
    # The check above would pass on anything if it could not see these changes at all.
    for touch in ("a file kept", "the mode", "the timestamps", "a directory"):
        both = fenced(f"import os\n{TOUCHES[touch]}" + CHECKS_A_FRESH_DIRECTORY.split("\n", 1)[1].rsplit("```", 1)[0])
        assert not verify(box, both), touch


def test_a_kept_directory_is_the_sample_s_own_whichever_lane_it_runs_on():
    # Two lanes, two uids: a worker may take a sample of the other uid (its kept tmpfs changes owner).
    sandbox = LocalSandbox(workers=2)
    try:
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda _: verify(sandbox, CHECKS_A_FRESH_DIRECTORY), range(12)))
        assert all(results)
    finally:
        sandbox.close()
