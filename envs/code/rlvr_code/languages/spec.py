"""What the runner needs to know about one language: its toolchain, how to build and how to run."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    """One compiled or interpreted language other than Python.

    ``compile`` and ``run`` are argv templates run inside the sandbox, in ``/box`` (the sample's
    own directory: read-write while compiling, read-only while running); ``{src}`` is the source
    file's name. ``compile`` is ``None`` for a language that runs its source directly (checked
    once, ``check``, so that a syntax error is still ``compile_error``).
    """

    name: str
    tags: frozenset[str]
    """Fence tags of a completion's code block (```cpp) that mean this language."""
    source: str
    """The source file's name in ``/box`` (Java needs its class's name)."""
    compile: tuple[str, ...] | None
    run: tuple[str, ...]
    package: str
    """The Debian package that brings the toolchain (named when it is missing)."""
    tools: tuple[str, ...]
    """Absolute paths that must exist for the toolchain to run."""
    mounts: tuple[str, ...] = ("/usr/bin", "/usr/lib", "/usr/libexec", "/usr/include", "/usr/share")
    """Host paths bound read-only into the sandbox (nothing else of the host is visible)."""
    run_mounts: tuple[str, ...] | None = None
    """Host paths while running (default: ``mounts``); a native binary needs only the libraries."""
    env: tuple[tuple[str, str], ...] = ()
    address_space: bool = True
    """Whether ``memory_mb`` is an address-space rlimit per process. Runtimes that reserve large
    virtual ranges up front (V8, Go, the JVM) are bounded by the sample's memory cgroup instead."""
    check: tuple[str, ...] | None = None
    """For a language without ``compile``: a syntax check run in its place."""
    extra_processes: int = 0
    """Threads the runtime starts by itself (RLIMIT_NPROC counts threads)."""
    compile_tmpfs_mb: int | None = None
    """Size of ``/tmp`` while compiling, where the toolchain needs more than the sample's."""
