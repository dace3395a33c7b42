"""The solution zygote's side of the per-sample memory bound (``memory_bound`` on the host).

Part of the solution harness (sent after ``_sandbox_wire`` and before ``_sandbox_solution``).
The host bind-mounts the worker's memory cgroup into the sandbox; the zygote opens the files it
needs and unmounts it again (a sample never sees it: it could only read it); each sample process writes
itself into ``cgroup.procs`` right after the fork, before it drops root, so the cgroup holds
the sample's whole process tree and nothing else. The zygote watches the cgroup's OOM kills
(an eventfd on ``memory.oom_control`` under cgroup v1; ``memory.events``, which signals a
change as an exceptional condition, under v2) and stops the whole sample at the first one.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import os

# -- end wire imports --


class SampleCgroup:
    """The worker's memory cgroup as the zygote uses it; every file is opened once."""

    def __init__(self, path: str, version: int) -> None:
        self.version = version
        limit_file = "memory.limit_in_bytes" if version == 1 else "memory.max"
        self.limit = os.open(os.path.join(path, limit_file), os.O_WRONLY | os.O_CLOEXEC)
        self.limit_mb: int | None = None
        self.procs = os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
        self.events = os.open(
            os.path.join(path, "memory.oom_control" if version == 1 else "memory.events"), os.O_RDONLY | os.O_CLOEXEC
        )
        self.notify = -1
        if version == 1:
            self.notify = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
            control = os.open(os.path.join(path, "cgroup.event_control"), os.O_WRONLY | os.O_CLOEXEC)
            try:
                os.write(control, f"{self.notify} {self.events}".encode())
            finally:
                os.close(control)
        self.kills()  # readable, or raise here (the zygote then reports no cgroup)

    def kills(self) -> int:
        """OOM kills in the cgroup so far."""
        for line in os.pread(self.events, 4096, 0).splitlines():
            if line.startswith(b"oom_kill "):
                return int(line.split()[1])
        return 0

    def set_limit(self, megabytes: int) -> None:
        if megabytes != self.limit_mb:
            os.pwrite(self.limit, str(megabytes << 20).encode(), 0)
            self.limit_mb = megabytes

    def readable(self) -> list[int]:
        """Descriptors to watch for reading during a run (v1's eventfd)."""
        return [self.notify] if self.notify >= 0 else []

    def exceptional(self) -> list[int]:
        """Descriptors to watch for an exceptional condition during a run (v2's ``memory.events``)."""
        return [self.events] if self.version == 2 else []

    def drain(self) -> None:
        if self.notify >= 0:
            try:
                os.read(self.notify, 8)
            except BlockingIOError:
                pass

    def join(self) -> None:
        """Called by the sample process right after the fork: move it (and its future children) in."""
        os.write(self.procs, b"0")


def open_cgroup(config: dict | None) -> SampleCgroup | None:
    """The worker's cgroup from the sandbox config, or None (none given, or unusable here)."""
    if not config:
        return None
    try:
        group = SampleCgroup(str(config["path"]), int(config["version"]))
    except (OSError, KeyError, ValueError, TypeError):
        return None
    # A sample process must be able to move itself in: try it once with a throwaway child.
    pid = os.fork()
    if pid == 0:
        try:
            group.join()
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return group if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else None
