"""The mark for tests that run code in the bubblewrap sandbox, written once for every test file.

Without ``bwrap`` on PATH these tests skip with a reason naming the package; ``scripts/setup.sh``
installs it (Debian ``bubblewrap``), so CI and a fresh machine made by the README's test command
run them.
"""

from __future__ import annotations

import shutil

import pytest

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None,
    reason="bubblewrap (bwrap) is not installed: scripts/setup.sh installs the Debian package bubblewrap",
)
