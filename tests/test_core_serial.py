"""The SERIAL list (tests/conftest.py) names tests that exist: a renamed test must not slip into the
parallel pass unnoticed."""

import re
from pathlib import Path

import pytest

from tests.conftest import SERIAL

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("entry", SERIAL)
def test_every_serial_entry_names_a_file_and_test_that_exist(entry):
    path, _, name = entry.partition("::")
    assert (REPO / path).is_file(), path
    name = name.split("[", 1)[0]  # one case of a parametrized test: its function must exist
    if name:
        source = (REPO / path).read_text(encoding="utf-8")
        assert re.search(rf"^(async )?def {re.escape(name)}\(", source, re.M), entry
