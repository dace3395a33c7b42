"""Rebuild the parser snapshot: ``python -m rlvr_math.build_snapshot`` (a few minutes).

Run it after upgrading latex2sympy2_extended or antlr4 (the test suite says when the shipped
snapshot no longer matches) and commit the file it writes.
"""

from __future__ import annotations

import time

from rlvr_math import parser_snapshot, shape_corpus
from rlvr_math.equivalence import _WARM_UP_SHAPES, _parsed
from rlvr_math.snapshot_writer import dump


def main() -> None:
    """Parse the load-time warm-up shapes and the generic corpus in this process, as answers
    are parsed (boxed, normalised), starting from an empty cache, and write the snapshot."""
    parser_snapshot._loaded = False  # never load the previous file into this process
    shapes = [*_WARM_UP_SHAPES, *shape_corpus.corpus()]
    start = time.perf_counter()
    for index, shape in enumerate(shapes, 1):
        began = time.perf_counter()
        _parsed(f"\\boxed{{{shape}}}")  # never raises; a shape the grammar rejects still built states
        if time.perf_counter() - began > 2:
            print(f"  slow shape ({time.perf_counter() - began:.1f} s): {shape}", flush=True)
        if index % 500 == 0:
            print(f"  {index}/{len(shapes)} shapes parsed, {time.perf_counter() - start:.0f} s", flush=True)
    counts = dump()
    size_kib = parser_snapshot.SNAPSHOT_PATH.stat().st_size // 1024
    print(
        f"wrote {parser_snapshot.SNAPSHOT_PATH} ({size_kib} KiB): {counts}, {len(shapes)} shapes "
        f"in {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
