"""Round 11's speed work on the training ids' verdict switched off, for ``bench/ifeval_checks.py
--goal`` to time it beside the rules as they are, in the same run (the verdicts are the same:
``tests/ifeval/test_ifeval_verify_speed_equivalence.py``, ``test_ifeval_task_cache.py`` and
``test_ifeval_speed_round11_guard_reader.py`` compare them)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from typing import Any


@contextlib.contextmanager
def without_speed_round11() -> Iterator[None]:
    """``verify`` as round 10 left it: the per-instruction results made as ``InstructionResult``
    objects (one ``scoring._run`` call each), then turned into dicts and summed; what the basic
    rules read from the task (its prompt as an echo starts it, whether an instruction allows a short
    answer) looked up in memos on every verdict instead of the task's plan; the reader's view of a
    paid response outside ASCII made by round 10's patterns (every word of a text with a Greek or
    Cyrillic letter folded, each run of such letters read again from each letter)."""
    from rlvr_ifeval import reader_view, verifier
    from rlvr_ifeval.scoring import InstructionResult, _run, check_response

    def details(checkers: Sequence[Any], response: str, *, loose: bool = False) -> tuple[int, list[dict]]:
        if loose:
            results = check_response(checkers, response, loose=True)
        else:
            blank = not response.strip()
            results = [InstructionResult(c.instruction_id, *_run(c, response, blank)) for c in checkers]
        return sum(r.followed for r in results), [r.as_dict() for r in results]

    between = re.compile(r"(?<=\w)[\u00ad\u034f\u180e\u200b\u2060-\u2064\ufeff]+(?=\w)")
    mixed = re.compile(r"[^\W\d_]*[A-Za-z][^\W\d_]*")

    def view(response: str) -> str | None:
        if response.isascii():
            return None
        seen = reader_view._INVISIBLE_ANYWHERE.sub("", between.sub("", response))
        if reader_view._OTHERS.search(seen):
            seen = mixed.sub(lambda m: m.group(0).translate(reader_view._LOOKALIKE), seen).replace("\u201a", ",")
            seen = seen.replace("\ufe50", ",")
        return None if seen == response else seen

    saved = verifier.instruction_details, verifier._derived, reader_view.reader_view
    verifier.instruction_details = details
    verifier._derived = lambda plan, prompt, prompt_format: None  # type: ignore[assignment,return-value]
    reader_view.reader_view = view
    try:
        yield
    finally:
        verifier.instruction_details, verifier._derived, reader_view.reader_view = saved
