"""A bound on one sample's total memory: a memory cgroup per sandbox worker, or a fallback.

``memory_mb`` is an address-space limit per process and ``processes`` bounds how many a sample
may have, so without more a sample could hold ``processes x memory_mb`` (16 GiB with the
defaults; one held 2.4 GB with three children), enough for the OOM killer to take the trainer.

**With a cgroup** (``MemoryCgroup``): each worker gets a memory cgroup of its own, created
*under this process's own cgroup* (the job runner's, which we never write to), e.g.
``/sys/fs/cgroup/memory/<our cgroup>/rlvr-code-<pid>-<n>``. It is bind-mounted into the
solution sandbox; the warm solution zygote moves itself into it, so each sample process is born
inside with its whole process tree (``_sandbox_memory``; the zygote's own memory was charged
before it moved, and a sample process is always the OOM killer's first choice). The limit is
``total_memory_mb`` (anonymous memory, page cache, the sample's tmpfs files and kernel memory
together). When it is reached the kernel
reclaims, then kills a process of the sample; the zygote hears of it (an eventfd on
``memory.oom_control``, or ``memory.events`` under cgroup v2), stops the whole sample, and the
verdict is ``runtime_error`` with ``details["memory"]``. The next sample starts in the same
cgroup, by then holding only the zygote (one cgroup per worker, no mkdir/rmdir or move per
sample). The
directory is removed with its worker; directories of dead processes are swept when a worker
starts.

* cgroup v1: the ``memory`` controller's hierarchy must be mounted read-write and we must be
  root (these machines: ``mount | grep cgroup``).
* cgroup v2: our own cgroup must have ``memory`` in ``cgroup.subtree_control`` already (a
  delegated subtree whose processes live in a leaf next to it); the limit is ``memory.max``
  with ``memory.swap.max`` 0 (not ``memory.oom.group``: the zygote is in the cgroup too).

**Without one** (non-root, no controller, a read-only hierarchy: ``fallback_limits``): the total
is bounded by the rlimits alone, both lowered: at most ``FALLBACK_PROCESSES`` processes (threads
count) of ``total_memory_mb / FALLBACK_PROCESSES`` address space each, unless the caller's own
limits are lower already.
"""

from __future__ import annotations

import itertools
import os
import re
import threading
from dataclasses import dataclass
from typing import Any

MOUNT_POINT = "/rlvr-memory"
"""Where the worker's cgroup appears inside the solution sandbox."""
FALLBACK_PROCESSES = 4
DEFAULT_TOTAL_MB = 1536
_PREFIX = "rlvr-code-"
_counter = itertools.count()
_lock = threading.Lock()


@dataclass(frozen=True)
class MemoryCgroup:
    """One worker's memory cgroup on the host: ``path`` is its directory, ``version`` 1 or 2."""

    path: str
    version: int

    def sandbox_config(self) -> dict[str, Any]:
        return {"path": MOUNT_POINT, "version": self.version, "mounted": MOUNT_POINT}

    def remove(self) -> None:
        """Remove the directory (its processes are gone or going: retried for a few seconds).

        A process that has exited but is not reaped yet (bubblewrap's namespace init, reaped by
        the host's init) keeps the directory busy; on a loaded machine that took over a second.
        """
        import time

        deadline = time.monotonic() + 5.0
        while True:
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.02)


def _own_cgroup() -> tuple[str | None, str | None]:
    """This process's cgroup path in the v1 memory hierarchy, and in the v2 one."""
    v1 = v2 = None
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as fh:
            for line in fh:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if controllers == "":
                    v2 = path
                elif "memory" in controllers.split(","):
                    v1 = path
    except (OSError, ValueError):
        pass
    return v1, v2


def _mounts() -> list[tuple[str, str, str, str]]:
    """(root within the hierarchy, mount point, filesystem type, super options) of cgroup mounts."""
    found = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as fh:
            for line in fh:
                fields = line.split()
                if " - " not in line or len(fields) < 10:
                    continue
                after = line.split(" - ", 1)[1].split()
                if after[0] in ("cgroup", "cgroup2"):
                    found.append(
                        (fields[3], fields[4].replace("\\040", " "), after[0], after[2] if len(after) > 2 else "")
                    )
    except OSError:
        pass
    return found


def _host_dir(mount_root: str, mount_point: str, own: str) -> str | None:
    if own == mount_root or own.startswith(mount_root.rstrip("/") + "/"):
        return os.path.join(mount_point, own[len(mount_root.rstrip("/")) :].lstrip("/"))
    return None


def parent_cgroup() -> tuple[str, int] | None:
    """The directory under which worker cgroups can be made here, and its cgroup version."""
    if os.getuid() != 0:
        return None  # v1 files are root's; a delegated v2 subtree as non-root is not handled
    v1, v2 = _own_cgroup()
    for root, point, kind, options in _mounts():
        if kind == "cgroup" and v1 is not None and "memory" in options.split(","):
            where = _host_dir(root, point, v1)
            if where and os.access(os.path.join(where, "memory.limit_in_bytes"), os.W_OK):
                return where, 1
    for root, point, kind, _ in _mounts():
        if kind == "cgroup2" and v2 is not None:
            where = _host_dir(root, point, v2)
            try:
                with open(os.path.join(where or "", "cgroup.subtree_control"), encoding="utf-8") as fh:
                    enabled = "memory" in fh.read().split()
            except OSError:
                enabled = False
            if where and enabled:
                return where, 2
    return None


def _sweep(parent: str, prefix: str = _PREFIX) -> None:
    """Remove worker cgroups left by processes that died without removing them (empty ones only;
    ``prefix``: whose, e.g. ``languages.cpu_group``'s)."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        match = re.fullmatch(rf"{prefix}(\d+)-\d+", name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(match.group(1)), 0)
            continue  # its process lives: its workers are its own
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        try:
            os.rmdir(os.path.join(parent, name))
        except OSError:
            pass


def create(total_mb: int) -> MemoryCgroup | None:
    """A fresh cgroup for one worker, limited to ``total_mb``; None where none can be had."""
    found = parent_cgroup()
    if found is None:
        return None
    parent, version = found
    with _lock:
        _sweep(parent)
        path = os.path.join(parent, f"{_PREFIX}{os.getpid()}-{next(_counter)}")
    limit = str(total_mb << 20)
    try:
        os.mkdir(path)
    except OSError:
        return None
    group = MemoryCgroup(path, version)
    try:
        if version == 1:
            _write(path, "memory.limit_in_bytes", limit)
            if os.path.exists(os.path.join(path, "memory.memsw.limit_in_bytes")):
                _write(path, "memory.memsw.limit_in_bytes", limit)  # no escape into swap
        else:
            _write(path, "memory.max", limit)
            if os.path.exists(os.path.join(path, "memory.swap.max")):
                _write(path, "memory.swap.max", "0")
    except OSError:
        group.remove()
        return None
    return group


def _write(path: str, name: str, value: str) -> None:
    with open(os.path.join(path, name), "w", encoding="ascii") as fh:
        fh.write(value)


def fallback_limits(memory_mb: int, processes: int, total_mb: int) -> tuple[int, int]:
    """(memory_mb, processes) that bound a sample's total by rlimits alone: ``processes x
    memory_mb <= total_mb`` (at most ``FALLBACK_PROCESSES`` processes; lower limits are kept)."""
    processes = max(1, min(processes, FALLBACK_PROCESSES))
    return max(1, min(memory_mb, total_mb // processes)), processes


def bounded_job(job: dict[str, Any], in_cgroup: bool) -> dict[str, Any]:
    """The job as a worker runs it: without a memory cgroup, rlimits alone bound the total."""
    if in_cgroup:
        return job
    limits = job["limits"]
    total = int(limits.get("total_memory_mb") or DEFAULT_TOTAL_MB)
    memory_mb, processes = fallback_limits(int(limits["memory_mb"]), int(limits["processes"]), total)
    return {**job, "limits": {**limits, "memory_mb": memory_mb, "processes": processes}}
