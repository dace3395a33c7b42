"""What the runner needs to know about one language: its toolchain, how to build and how to run."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_PUBLIC_CLASS = re.compile(
    r"\bpublic\s+(?:(?:final|abstract|strictfp)\s+)*(?:class|record|enum|interface)\s+([A-Za-z_$][\w$]{0,99})\b"
)
_CLASS = re.compile(r"\b(?:class|record|enum|interface)\s+([A-Za-z_$][\w$]{0,99})\b")
_MAIN = re.compile(r"\bstatic\s+(?:final\s+)?(?:public\s+)?void\s+main\s*\(")


def entry_class(source: str) -> str | None:
    """The class a Java program runs from: the class declaring ``main`` (the last one opened before
    it), else its public top-level type, else None. Judges accept any name (Kattis names the file
    after the class)."""
    code = _COMMENTS.sub(" ", source[:1_000_000])
    main = _MAIN.search(code)
    if main is not None:
        opened = [found.group(1) for found in _CLASS.finditer(code, 0, main.start())]
        if opened:
            return opened[-1]
    public = _PUBLIC_CLASS.search(code)
    return public.group(1) if public is not None else None


def file_class(source: str) -> str | None:
    """The name a Java program's file must bear: its public top-level type's (javac), else None."""
    public = _PUBLIC_CLASS.search(_COMMENTS.sub(" ", source[:1_000_000]))
    return public.group(1) if public is not None else None


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
    named_by_class: bool = False
    """Java: the source file and the class run bear the program's class name (``entry_class``);
    ``source`` and ``run`` name the default, ``Main``."""

    def for_source(self, source: str) -> Language:
        """This language as one program needs it: a Java program's file and class named after its own."""
        if not self.named_by_class:
            return self
        default = self.source.rsplit(".", 1)[0]
        runs, named = entry_class(source) or default, file_class(source) or entry_class(source) or default
        if runs == default and named == default:
            return self
        run = tuple(runs if part == default else part for part in self.run)
        return dataclasses.replace(self, source=f"{named}.java", run=run)


TESTLIB_REJECT = (1, 2, 4, 8)
"""The exit statuses by which a testlib checker or interactor rejects the contestant's output:
wrong answer (1), presentation error (2), extra output (``_dirt``, 4) and the output ending early
(``_unexpected_eof``, 8, with ``ENABLE_UNEXPECTED_EOF``), as DOMjudge maps them (to its 43). Before,
4 and 8 read as the judge's failure: a ``verifier_error`` a program chose by printing a token
more, or nothing."""
