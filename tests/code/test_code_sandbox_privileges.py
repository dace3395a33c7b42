"""What a sample process holds when its first line runs: the rlimits it was given, no capability
in any set, no new privileges, its own uid and process group.

``become_solution`` applies an rlimit plan and capset arguments the zygote prepared before the
fork (issue 30: built in the sample process they cost it ~50 page copies); these tests pin what
the sample ends up with, whatever the limits asked for.
"""

from __future__ import annotations

import os
import shutil

import pytest

from rlvr_code.sandbox import LocalSandbox
from rlvr_code.verifier import CodeVerifier
from tests.code.helpers_code import asserts_task, fenced

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

TASK = asserts_task(["assert state() == 'ok'"], names=("state",))


def program(limits: dict[str, tuple[int, int]]) -> str:
    return fenced(
        "import os, resource\n"
        "def state():\n"
        "    status = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)\n"
        "    for name in ('CapInh', 'CapPrm', 'CapEff', 'CapAmb'):\n"
        "        assert int(status[name], 16) == 0, (name, status[name])\n"
        "    assert status['NoNewPrivs'].strip() == '1'\n"
        "    assert os.getpgid(0) == os.getpid()\n"
        f"    for name, wanted in {limits!r}.items():\n"
        "        got = resource.getrlimit(getattr(resource, name))\n"
        "        assert got == tuple(wanted), (name, got, wanted)\n"
        "    return 'ok'\n"
    )


@pytest.fixture(scope="module")
def box():
    sandbox = LocalSandbox(workers=1, memory_cgroup=True)
    yield sandbox
    sandbox.close()


@pytest.mark.parametrize(
    ("memory_mb", "processes", "file_mb", "open_files", "timeout_s"),
    [(1024, 16, 16, 64, 5.0), (700, 9, 3, 40, 7.0)],
)
def test_the_sample_holds_exactly_its_limits_and_no_privilege(
    box, memory_mb, processes, file_mb, open_files, timeout_s
):
    verifier = CodeVerifier(
        timeout_s=timeout_s, memory_mb=memory_mb, processes=processes, file_mb=file_mb, open_files=open_files
    )
    verifier.sandbox = lambda: box
    cpu = int(verifier.limits(timeout_s)["cpu_s"]) + 1
    limits = {
        "RLIMIT_CPU": (cpu, cpu + 1),
        "RLIMIT_FSIZE": (file_mb << 20, file_mb << 20),
        "RLIMIT_NOFILE": (open_files, open_files),
        "RLIMIT_NPROC": (processes, processes),
        "RLIMIT_CORE": (0, 0),
    }
    assert verifier.verify(TASK, fenced("def state():\n    return 'ok'\n")).passed  # the worker is up
    if all(worker.memory is not None for worker in box._all):
        limits["RLIMIT_AS"] = (memory_mb << 20, memory_mb << 20)  # lowered only without a cgroup
    verdict = verifier.verify(TASK, program(limits))
    assert verdict.passed, verdict.details
    # And a sample that checks for what it must not have fails: the checks can fail.
    assert not verifier.verify(TASK, program({**limits, "RLIMIT_NOFILE": (open_files + 1, open_files + 1)})).passed


def test_the_sample_runs_as_its_own_uid_when_the_host_is_root(box):
    if os.getuid() != 0:
        pytest.skip("the separate sample uid is used when the host runs as root")
    verifier = CodeVerifier(timeout_s=5.0)
    verifier.sandbox = lambda: box
    check = fenced(
        "import os\ndef state():\n    ids = {*os.getresuid(), *os.getresgid()}\n    return 'ok' if min(ids) >= 1_900_000_000 and os.getgroups() == [] else ids\n"
    )
    assert verifier.verify(TASK, check).passed
