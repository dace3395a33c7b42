"""Round 15: the Python sandbox's sample uids are its own and a live one is never handed out twice.

Fails on the commit before (e845ec5): the sandbox took 1.9e9 + (pid % 1e6) x 64 + (offset + slot) % 64,
a range that ran into other languages' (1.95e9 + (pid % 1e6) x 64), and the 65th live worker of a
process took the 1st one's uid (one fork bomb then starved both of processes: RLIMIT_NPROC is per uid).
The ranges are read from the modules' own allocators, so a family that moves its range is checked too.
"""

from __future__ import annotations

import os
import queue

import pytest

from rlvr_code import sandbox, sandbox_uids
from rlvr_code.languages import runner
from rlvr_code.tools import python_tool

_PIDS = (0, 1, 999_999)  # the lowest and highest blocks, and a neighbour of the lowest


def _runner_uids(pid: int, monkeypatch: pytest.MonkeyPatch) -> set[int]:
    monkeypatch.setattr(os, "getpid", lambda: pid)
    free = runner._Uids()._free
    uids = set()
    while True:
        try:
            uids.add(free.get_nowait())
        except queue.Empty:
            return uids


def _python_tool_uids(pid: int, monkeypatch: pytest.MonkeyPatch) -> tuple[set[int], range]:
    """The tool's first block for ``pid`` (every uid it gives before its overflow) and its overflow block."""
    monkeypatch.setattr(os, "getpid", lambda: pid)
    monkeypatch.setattr(os, "getuid", lambda: 0)
    monkeypatch.setattr(python_tool, "_live_uids", set())
    first = {python_tool._session_uid() for _ in range(python_tool._UID_BLOCK)}
    overflow_start = python_tool._session_uid()
    assert isinstance(overflow_start, int) and overflow_start not in first
    return {u for u in first if u is not None}, range(overflow_start, overflow_start + python_tool._UID_OVERFLOW)


def _sandbox_uids(pid: int, monkeypatch: pytest.MonkeyPatch) -> set[int]:
    monkeypatch.setattr(os, "getpid", lambda: pid)
    monkeypatch.setattr(sandbox_uids, "_live", set())
    every = sandbox_uids.take(sandbox_uids.SANDBOX_UID_BLOCK + sandbox_uids.SANDBOX_UID_OVERFLOW_BLOCK)
    with pytest.raises(sandbox_uids.NoFreeUid):
        sandbox_uids.take(1)
    return set(every)


def _span(uids: set[int] | range) -> tuple[int, int]:
    return min(uids), max(uids)


def test_every_familys_uid_range_is_disjoint(monkeypatch: pytest.MonkeyPatch) -> None:
    spans: dict[str, list[tuple[int, int]]] = {"runner": [], "tool": [], "tool overflow": [], "sandbox": []}
    per_pid: dict[int, set[int]] = {}
    for pid in _PIDS:
        tool, tool_overflow = _python_tool_uids(pid, monkeypatch)
        ours = _sandbox_uids(pid, monkeypatch)
        assert len(ours) == sandbox_uids.SANDBOX_UID_BLOCK + sandbox_uids.SANDBOX_UID_OVERFLOW_BLOCK
        spans["runner"].append(_span(_runner_uids(pid, monkeypatch)))
        spans["tool"].append(_span(tool))
        spans["tool overflow"].append(_span(tool_overflow))
        primary = {u for u in ours if u >= sandbox_uids.SANDBOX_UID_BASE}
        spans.setdefault("sandbox overflow", []).append(_span(ours - primary))
        spans["sandbox"].append(_span(primary))
        per_pid[pid] = ours
    # Each family's whole range: from its lowest block's first uid to its highest block's last.
    ranges = {name: (min(lo for lo, _ in s), max(hi for _, hi in s)) for name, s in spans.items()}
    names = sorted(ranges)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            (lo_a, hi_a), (lo_b, hi_b) = ranges[a], ranges[b]
            assert hi_a < lo_b or hi_b < lo_a, f"{a} {ranges[a]} overlaps {b} {ranges[b]}"
    assert all(0 < lo and hi < 2**31 - 1 for lo, hi in (ranges["sandbox"], ranges["sandbox overflow"]))
    # Neighbouring processes' blocks do not meet either.
    assert not per_pid[0] & per_pid[1]


def _privileged_sandbox(monkeypatch: pytest.MonkeyPatch, workers: int = 1) -> sandbox.LocalSandbox:
    monkeypatch.setattr(os, "getuid", lambda: 0)  # uids are handed out only as root; no sample runs here
    return sandbox.LocalSandbox(workers, allow_reduced_isolation=True)


def test_the_65th_live_worker_does_not_take_the_1sts_uid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_uids, "_live", set())
    boxes = [_privileged_sandbox(monkeypatch) for _ in range(65)]
    try:
        uids = [box.sample_uid(0) for box in boxes]
        assert uids[64] != uids[0]  # before: (64 + 0) % 64 == 0
        assert len(set(uids)) == 65
        wide = _privileged_sandbox(monkeypatch, workers=40)  # one sandbox of many workers, past the block
        try:
            more = [wide.sample_uid(slot) for slot in range(40)]
            assert len(set(more)) == 40 and not set(more) & set(uids)
        finally:
            wide.close()
    finally:
        for box in boxes:
            box.close()
    assert not sandbox_uids._live  # close() gives each uid back


def test_past_the_last_free_uid_a_sandbox_is_refused_not_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_uids, "_live", set())
    limit = sandbox_uids.SANDBOX_UID_BLOCK + sandbox_uids.SANDBOX_UID_OVERFLOW_BLOCK
    full = _privileged_sandbox(monkeypatch, workers=limit)
    try:
        with pytest.raises(sandbox.SandboxUnavailable, match="no free sample uid"):
            _privileged_sandbox(monkeypatch)
    finally:
        full.close()
    again = _privileged_sandbox(monkeypatch)  # freed: served again
    try:
        assert again.sample_uid(0) is not None
    finally:
        again.close()


def test_a_sandbox_dropped_without_close_gives_its_uids_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_uids, "_live", set())
    box = _privileged_sandbox(monkeypatch, workers=3)
    held = {box.sample_uid(slot) for slot in range(3)}
    assert held <= sandbox_uids._live
    del box  # __del__ closes it
    assert not held & sandbox_uids._live


def test_a_sample_in_a_sandbox_closed_under_it_gets_no_uid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_uids, "_live", set())
    box = _privileged_sandbox(monkeypatch, workers=2)
    box.close()
    with pytest.raises(sandbox.SandboxError, match="closed"):  # a SandboxError: the run's retry loop reads it
        box.sample_uid(1)
