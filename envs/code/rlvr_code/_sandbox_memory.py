"""The solution zygote's side of the per-sample memory bound (``memory_bound`` on the host).

Part of the solution harness (sent after ``_sandbox_wire`` and before ``_sandbox_solution``).
The host bind-mounts the worker's memory cgroup into the sandbox; the zygote opens the files it
needs and unmounts it again (a sample never sees it: it could only read it). Once warm, the
zygote moves itself in (what it allocated until then stays charged where it was), so every
sample process is born inside and its whole process tree stays there: moving each sample in
after its fork cost an RCU grace period per sample (8 ms a sample on the loaded development
machine, and it holds up every fork on the machine meanwhile). Each sample process raises its
own ``oom_score_adj`` to 1000 right after the fork, so at the bound the kernel kills a process
of the sample, never the zygote. The zygote watches the cgroup's OOM kills (an eventfd on
``memory.oom_control`` under cgroup v1; ``memory.events``, which signals a change as an
exceptional condition, under v2) and stops the whole sample at the first one.
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

    def enter(self) -> bool:
        """Move the calling process (the zygote, once warm) in; whether it worked."""
        try:
            os.write(self.procs, b"0")
            return True
        except OSError:
            return False


def prefer_as_victim() -> None:
    """In a sample process right after the fork: the first the kernel kills at the bound."""
    fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    try:
        os.write(fd, b"1000")
    finally:
        os.close(fd)


def open_cgroup(config: dict | None, unmount) -> SampleCgroup | None:
    """The worker's cgroup from the sandbox config, or None (none given, or unusable here);
    ``unmount(path)`` takes the bind mount away once its files are open."""
    if not config:
        return None
    try:
        group = SampleCgroup(str(config["path"]), int(config["version"]))
    except (OSError, KeyError, ValueError, TypeError):
        group = None
    if config.get("mounted"):
        # Its files are open: out of the samples' sight (the mount is the sandbox's own).
        try:
            unmount(str(config["mounted"]))
            os.rmdir(str(config["mounted"]))
        except OSError:
            pass
    return group
