"""A sample's CPU seconds as the kernel counts them: a cgroup holding every process of its runs.

Polling each process's clock (``step.tree_cpu_s``) misses what a process spent once it is gone
and nobody waited for it: with SIGCHLD ignored the kernel reaps children itself and adds their
CPU to no one's ``cutime`` (thirty children of 0.1 s each passed a 1 s budget that way). A
cgroup's CPU counter keeps what every process it ever held spent. Under cgroup v2 the sample's
memory cgroup has one already (``cpu.stat``: ``usage_usec``); under v1 the sample gets a
``cpuacct`` cgroup of its own (``cpuacct.usage``, in ns) under this process's cgroup in that
hierarchy. Without either (not root, no such hierarchy) the polled clocks alone remain.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

from rlvr_code.memory_bound import MemoryCgroup, _host_dir, _mounts, _sweep

_PREFIX = "rlvr-cpu-"
_counter = itertools.count()


@dataclass(frozen=True)
class CpuGroup:
    """A cgroup whose CPU counter covers a sample's processes; ``owned``: made (and removed) here,
    its processes added at their start (``procs``), not through the memory cgroup."""

    path: str
    version: int
    owned: bool

    @property
    def procs(self) -> str:
        return os.path.join(self.path, "cgroup.procs")

    def usage_s(self) -> float | None:
        """CPU seconds its processes have spent so far (None where it cannot be read)."""
        try:
            if self.version == 1:
                with open(os.path.join(self.path, "cpuacct.usage"), encoding="ascii") as fh:
                    return int(fh.read()) / 1e9
            with open(os.path.join(self.path, "cpu.stat"), encoding="ascii") as fh:
                for line in fh:
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        return int(value) / 1e6
        except (OSError, ValueError):
            pass
        return None

    def remove(self) -> None:
        """Remove the directory, if made here (an exiting process may hold it for a moment)."""
        if self.owned:
            MemoryCgroup(self.path, self.version).remove()


def create(memory: MemoryCgroup | None) -> CpuGroup | None:
    """The sample's CPU cgroup: its memory cgroup under v2, a fresh ``cpuacct`` one under v1."""
    if memory is not None and memory.version == 2 and os.path.exists(os.path.join(memory.path, "cpu.stat")):
        return CpuGroup(memory.path, 2, owned=False)
    parent = _cpuacct_parent()
    if parent is None:
        return None
    _sweep(parent, _PREFIX)
    path = os.path.join(parent, f"{_PREFIX}{os.getpid()}-{next(_counter)}")
    try:
        os.mkdir(path)
    except OSError:
        return None
    return CpuGroup(path, 1, owned=True)


def _cpuacct_parent() -> str | None:
    if os.getuid() != 0:
        return None
    own = None
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as fh:
            for line in fh:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if "cpuacct" in controllers.split(","):
                    own = path
    except (OSError, ValueError):
        return None
    if own is None:
        return None
    for root, point, kind, options in _mounts():
        if kind == "cgroup" and "cpuacct" in options.split(","):
            where = _host_dir(root, point, own)
            if where and os.access(os.path.join(where, "cgroup.procs"), os.W_OK):
                return where
    return None
