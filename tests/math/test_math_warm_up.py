"""The verifier's load-time warm-up must not pre-parse the answers it is measured on.

``warm_up`` parses generic answer shapes so that a fresh pool worker has the LaTeX parser's
prediction cache built before its first budgeted call. If those shapes were answers from the
shared data (the benchmark's and the tests' cases), the benchmark would time answers a worker
had already met; this test keeps the two apart.
"""

from __future__ import annotations

import re

import pytest

from rlvr_math import equivalence
from rlvr_math.equivalence import _WARM_UP_PAIRS, _WARM_UP_SHAPES, _WARM_UP_SYMBOLIC
from tests.helpers.data import shared_path

_WARM_UP_STRINGS = [*_WARM_UP_SHAPES, *(a for pair in (*_WARM_UP_PAIRS, *_WARM_UP_SYMBOLIC) for a in pair)]


def _squeezed(value: str) -> str:
    return re.sub(r"\s+", "", value)


def test_no_warm_up_string_occurs_in_the_shared_data() -> None:
    folder = shared_path("math_verify_cases.jsonl").parent
    corpus = []
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.suffix in (".jsonl", ".json", ".txt", ".csv"):
            text = path.read_text(encoding="utf-8", errors="replace")
            # JSON escapes each backslash; compare both spellings.
            corpus.append(_squeezed(text))
            corpus.append(_squeezed(text.replace("\\\\", "\\")))
    assert corpus, f"no data files found in {folder}"
    blob = "\n".join(corpus)
    found = [s for s in _WARM_UP_STRINGS if _squeezed(s) in blob]
    assert not found, f"warm-up strings taken from the shared data: {found}"


@pytest.mark.parametrize("shape", _WARM_UP_SHAPES)
def test_every_warm_up_shape_converts(shape: str) -> None:
    # A shape the parser rejects warms nothing useful (and hides a typo).
    parsed = equivalence._parsed(f"\\boxed{{{shape}}}")
    assert len(parsed) == 2, f"{shape!r} did not convert: {parsed!r}"
