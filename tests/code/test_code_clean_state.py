"""The warm judge's clean-state check, with its fast paths (issue 19, round 2).

``CleanState`` skips comparing a module namespace whose dict version tag has not moved, reads
signal handlers without the enum wrapping and compares the environment's bytes; each must give
exactly the answers of the full comparison. The end-to-end cases (a patched module, a handler,
an environment variable left by the tests replace the judge) are in ``test_code_warm_judge.py``;
these check the pieces in this process, where every kind of write can be made by hand.
"""

from __future__ import annotations

import os
import signal
import sys
import types

import pytest

from rlvr_code._sandbox_warm import CleanState, version_tag_reader

KNOWN_LAYOUT = sys.implementation.name == "cpython" and sys.version_info[:2] in ((3, 11), (3, 12))


def _state(tags: bool) -> CleanState:
    state = CleanState.__new__(CleanState)  # only the parts under test, not a whole snapshot
    state.tag = version_tag_reader() if tags else None
    return state


@pytest.mark.skipif(not KNOWN_LAYOUT, reason="the version tag is read only on CPython 3.11/3.12")
def test_the_version_tag_is_trusted_here():
    assert version_tag_reader() is not None


@pytest.mark.parametrize("tags", [True, False])
def test_a_namespace_check_sees_every_write_and_forgives_a_restored_one(tags):
    module = types.ModuleType("_rlvr_probe_module")
    module.value = kept = object()
    state = _state(tags)
    record = state._record(module)
    assert (record[2] is not None) == (tags and state.tag is not None)
    assert CleanState._unchanged(record)
    writes = [
        lambda: setattr(module, "value", object()),
        lambda: setattr(module, "extra", 1),
        lambda: delattr(module, "value"),
        lambda: vars(module).update(value=[]),
        lambda: vars(module).clear(),
        lambda: exec("global value\nvalue = 2", vars(module)),
    ]
    for write in writes:
        snapshot = dict(vars(module))
        write()
        assert not CleanState._unchanged(record), write
        vars(module).clear()
        vars(module).update(snapshot)
        # Back to the same objects: unchanged, as the full comparison says.
        assert CleanState._unchanged(record)
        assert CleanState._unchanged(record)
    module.value = kept  # the same object again: no difference
    assert CleanState._unchanged(record)


def test_a_class_standing_in_for_a_module_is_compared_in_full():
    class Standin:  # like ``typing.io`` in Python 3.11: ``vars`` is a mapping proxy
        attribute = 1

    record = _state(True)._record(Standin)
    assert record[2] is None
    assert CleanState._unchanged(record)
    Standin.attribute = 2
    assert not CleanState._unchanged(record)


def test_signal_handlers_read_raw_compare_as_the_enum_values():
    numbers = sorted(signal.valid_signals())
    expected = []
    for number in numbers:
        try:
            expected.append(signal.getsignal(number))
        except (OSError, ValueError):
            expected.append(None)
    before = CleanState._signals(signal)
    assert before == expected
    previous = signal.signal(signal.SIGUSR2, lambda *_: None)
    try:
        assert CleanState._signals(signal) != before
    finally:
        signal.signal(signal.SIGUSR2, previous)
    assert CleanState._signals(signal) == before


def test_the_environment_check_sees_a_set_and_a_removed_variable():
    before = CleanState._environ()
    os.environ["_RLVR_CLEAN_STATE_PROBE"] = "1"
    try:
        assert CleanState._environ() != before
    finally:
        del os.environ["_RLVR_CLEAN_STATE_PROBE"]
    assert CleanState._environ() == before
    key = next(iter(os.environ), None)
    if key is not None:
        value = os.environ[key]
        os.environ[key] = value + "x"
        try:
            assert CleanState._environ() != before
        finally:
            os.environ[key] = value
        assert CleanState._environ() == before
