"""Docker backend: the same judge/solution split, one short-lived container per sample.

Use it where bubblewrap is unavailable but a Docker engine is (``pip install docker``)::

    make("code-humaneval", backend="docker", backend_options={"image": "python:3.11-slim"})

Each sample runs in a fresh container with no network, a read-only root, a size-limited
tmpfs, ``no-new-privileges``, a pids limit, a memory limit, and every capability dropped
except the few the solution zygote needs to switch the sample to its own uid and clean up.
Inside, the program forks the solution zygote *before* the judge opens the job file (which is
root-only, 0600), so the solution side never holds the tests, exactly as in the local backend.
The price is a container start per sample (hundreds of milliseconds): the local backend is the
fast path, this one is for hosts where it cannot run.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import tempfile
import threading
from pathlib import Path
from typing import Any

from rlvr_code._sandbox_source import without_comments, without_docstrings
from rlvr_code.sandbox import HARNESS_PARTS, SandboxError, SandboxUnavailable, sandbox_module_source

_HEADER = struct.Struct(">I")
SAMPLE_UID = 1_900_000_000
_PROGRAM = "harness.py"

_ONESHOT = """

def run_oneshot(config: dict) -> None:
    judge_end, solution_end = socket.socketpair()
    if os.fork() == 0:
        judge_end.close()
        run_solution_sandbox({**config, "link_fd": solution_end.detach()})
        os._exit(0)
    solution_end.close()
    # Only now, with the solution zygote forked off, does the job (and its tests) enter memory.
    job_fd = os.open("/job/job", os.O_RDONLY)
    os.dup2(job_fd, 0)
    os.close(job_fd)
    run_judge_sandbox({**config, "link_fd": judge_end.detach()})


run_oneshot(json.loads(sys.argv[1]))
"""


def docker_available() -> tuple[bool, str]:
    """Whether a Docker engine answers here, and if not, why."""
    try:
        import docker
    except ImportError:
        return False, "the docker SDK is not installed (pip install docker)"
    if not hasattr(docker, "from_env"):  # run from the repo root, `docker` is the docker/ folder of Dockerfiles
        return False, "the docker SDK is not installed (pip install docker)"
    try:
        docker.from_env().ping()
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


def oneshot_source() -> str:
    wire = (Path(__file__).parent / "_sandbox_wire.py").read_text(encoding="utf-8")
    # Both roles' modules, in the local backend's order (``HARNESS_PARTS``), without their mains.
    roles = (*HARNESS_PARTS["solution"], *HARNESS_PARTS["judge"])
    parts = [wire, *(sandbox_module_source(part, keep_main=False) for part in roles), _ONESHOT]
    # One command-line argument of at most 128 KiB: without comments and docstrings (same lines).
    return without_docstrings(without_comments("\n\n".join(parts)))


def _frames(data: bytes) -> list[Any]:
    out, offset = [], 0
    while offset + _HEADER.size <= len(data):
        (size,) = _HEADER.unpack_from(data, offset)
        offset += _HEADER.size
        out.append(json.loads(data[offset : offset + size]))
        offset += size
    return out


class DockerSandbox:
    """Runs samples in Docker containers; same ``run(job)`` contract as ``LocalSandbox``.

    Args:
        workers: containers running at once.
        image: an image with Python 3.10+ (the standard library is all the harness needs).
        python: the interpreter inside the image.
        tmpfs_mb, pids: the container's working filesystem size and process limit.
        work_inodes: files and directories the container's ``/tmp`` may hold (tmpfs ``nr_inodes``).
    """

    name = "docker"

    def __init__(
        self,
        workers: int = 1,
        *,
        image: str = "python:3.11-slim",
        python: str = "python3",
        tmpfs_mb: int = 64,
        pids: int = 64,
        work_inodes: int = 10_000,
        client: Any = None,
    ) -> None:
        if client is None:
            ok, why = docker_available()
            if not ok:
                raise SandboxUnavailable(f"the docker backend needs a running Docker engine: {why}")
            import docker

            client = docker.from_env()
        self.client = client
        self.image, self.python, self.tmpfs_mb, self.pids = image, python, tmpfs_mb, pids
        self.work_inodes = work_inodes
        self._slots = threading.Semaphore(workers)
        self._source = oneshot_source()
        self._closed = False
        self.stats = {"samples": 0, "worker_starts": 0, "infrastructure_retries": 0}

    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        if self._closed:
            raise SandboxError("the sandbox is closed")
        limits = job["limits"]
        folder = tempfile.mkdtemp(prefix="rlvr-docker-job-")
        try:
            data = json.dumps({**job, "sample_uid": SAMPLE_UID}).encode()
            path = os.path.join(folder, "job")
            with open(path, "wb") as fh:
                fh.write(_HEADER.pack(len(data)) + data)
            os.chmod(path, 0o600)
            # The program travels as a file beside the job, not as an argument: one exec argument
            # may not exceed 128 KiB on Linux (MAX_ARG_STRLEN) and both roles' harness is close to it.
            with open(os.path.join(folder, _PROGRAM), "w", encoding="utf-8") as fh:
                fh.write(self._source)
            config = json.dumps({"root": "/tmp", "pid_namespace": False})
            with self._slots:
                return self._run_container(folder, config, float(limits["wall_s"]), int(limits["memory_mb"]))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _run_container(self, folder: str, config: str, wall_s: float, memory_mb: int) -> dict[str, Any]:
        container = None
        try:
            container = self.client.containers.run(
                self.image,
                [self.python, "-I", "-S", f"/job/{_PROGRAM}", config],
                detach=True,
                network_disabled=True,
                read_only=True,
                tmpfs={"/tmp": f"size={self.tmpfs_mb}m,nr_inodes={self.work_inodes},mode=0755"},
                mem_limit=f"{memory_mb + 256}m",
                pids_limit=self.pids,
                security_opt=["no-new-privileges"],
                cap_drop=["ALL"],
                cap_add=["SETUID", "SETGID", "KILL", "CHOWN", "DAC_OVERRIDE", "FOWNER"],
                volumes={folder: {"bind": "/job", "mode": "ro"}},
                working_dir="/tmp",
                user="0",
            )
            self.stats["worker_starts"] += 1
            container.wait(timeout=wall_s + 60)
            frames = _frames(container.logs(stdout=True, stderr=False))
        except Exception as exc:
            raise SandboxError(f"docker backend: {type(exc).__name__}: {exc}") from None
        finally:
            if container is not None:
                try:
                    container.remove(force=True)
                except Exception:
                    pass
        results = [f for f in frames if isinstance(f, dict) and "status" in f]
        if not results:
            raise SandboxError(f"docker backend: no result from the container (got {frames[:2]!r})")
        result = results[0]
        if result.get("status") in ("infrastructure", "judge_died") or "judge_error" in result:
            raise SandboxError(f"docker backend: {result}")
        self.stats["samples"] += 1
        return result

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> DockerSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
