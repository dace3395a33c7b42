"""The Docker backend without a Docker engine: its container program runs under bubblewrap.

``test_docker_backend_skips_without_an_engine`` needs a real engine. Everything of the backend
but the engine is tested here: the one-shot program it sends into the container (the judge
and solution sandboxes, the job read from the read-only ``/job`` mount), the framing of the
results on stdout and their parsing, through a stand-in client that gives the command the
container's shape (no network, read-only root with a tmpfs ``/tmp``, ``/job`` read-only, all
capabilities dropped but the six the backend adds back) with bubblewrap.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from rlvr_code.docker_backend import DockerSandbox
from rlvr_code.sandbox import _system_python_mounts
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Reason
from tests.code.helpers_code import asserts_task, fenced

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None or os.getuid() != 0, reason="needs bubblewrap and root, as a container's uid 0 has"
)

_PYTHON = "/usr/bin/python3"


class _Container:
    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self.stdout = b""

    def wait(self, timeout: float) -> None:
        self.stdout, _ = self.process.communicate(timeout=timeout)

    def logs(self, stdout: bool, stderr: bool) -> bytes:
        return self.stdout

    def remove(self, force: bool) -> None:
        if self.process.poll() is None:
            self.process.kill()


class _Containers:
    def __init__(self) -> None:
        self.runs: list[dict] = []

    def run(self, image, command, *, volumes, cap_add, **options) -> _Container:
        self.runs.append({"image": image, "command": command, **options})
        ((folder, mount),) = volumes.items()
        _image_python, *args = command  # the image's interpreter; the host's stands in for it
        argv = [
            "bwrap",
            "--unshare-pid",
            "--unshare-net",
            "--die-with-parent",
            *_system_python_mounts(_PYTHON),
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--tmpfs",
            "/tmp",
            "--ro-bind",
            folder,
            mount["bind"],
            "--chdir",
            "/tmp",
            "--cap-drop",
            "ALL",
        ]
        for cap in cap_add:
            argv += ["--cap-add", f"CAP_{cap}"]
        return _Container(subprocess.Popen([*argv, _PYTHON, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))


class _Client:
    def __init__(self) -> None:
        self.containers = _Containers()


@pytest.fixture
def docker_verifier():
    client = _Client()
    box = DockerSandbox(client=client)
    verifier = CodeVerifier(backend="docker")
    verifier.sandbox = lambda: box
    yield verifier, client
    box.close()


def test_the_container_program_judges_right_wrong_and_cheating_solutions(docker_verifier):
    verifier, client = docker_verifier
    task = asserts_task(["assert f() == 1"], names=("f",))
    assert verifier.verify(task, fenced("def f():\n    return 1\n")).passed
    assert verifier.verify(task, fenced("def f():\n    return 2\n")).reason is Reason.WRONG
    assert not verifier.verify(task, fenced("import sys\nsys.exit(0)\n")).passed
    # Each sample got a container of its own, without network, read-only but for /tmp.
    assert len(client.containers.runs) == 3
    assert all(
        run["network_disabled"] and run["read_only"] and run["cap_drop"] == ["ALL"] for run in client.containers.runs
    )
    # The program is a file on the read-only job mount, not a 120 KB argument (Linux caps one at 128 KiB).
    assert all(max(len(arg) for arg in run["command"]) < 4096 for run in client.containers.runs)
