"""What of the host a sandboxed system Python sees: read-only binds, nothing else.

Shared by the code sandbox (``sandbox.LocalSandbox``) and the python tool's sandbox.
"""

from __future__ import annotations

import os
from pathlib import Path

DIST_PACKAGES = "/usr/lib/python3/dist-packages"
"""Debian's third-party packages for its Python (``apt-get install python3-numpy``)."""


def system_python_mounts(python: str) -> list[str]:
    """Read-only binds for the interpreter and the libraries it loads, nothing else of the host."""
    real = os.path.realpath(python)
    version = Path(real).name.replace("python", "")
    candidates = [
        real,
        f"/usr/lib/python{version}",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
    ]
    present = [path for path in candidates if os.path.exists(path)]
    parents = sorted(
        {str(parent) for path in present for parent in Path(path).parents if str(parent) != "/"},
        key=lambda p: p.count("/"),
    )
    args: list[str] = []
    for parent in parents:
        # bubblewrap would create these 0700 (root only): the sample's uid must traverse them.
        args += ["--perms", "0755", "--dir", parent]
    for path in present:
        args += ["--ro-bind", path, path]
    if real != python:
        args += ["--symlink", real, python]
    return [*args, "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin"]


def package_mounts() -> list[str]:
    """Read-only binds for Debian's dist-packages and the alternatives numpy's BLAS/LAPACK go through."""
    args: list[str] = []
    for path in (DIST_PACKAGES, "/etc/alternatives"):
        if os.path.isdir(path):
            # bubblewrap would make the parent 0700: an unprivileged uid must traverse it.
            args += ["--perms", "0755", "--dir", os.path.dirname(path), "--ro-bind", path, path]
    return args
