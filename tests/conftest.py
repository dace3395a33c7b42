from __future__ import annotations

import pytest

from tests.helpers.data import SHARED_DATA


@pytest.fixture(scope="session")
def shared_data():
    """Path to ../shared/data (the peer test suites)."""
    return SHARED_DATA
