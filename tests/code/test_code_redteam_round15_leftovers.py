"""Round 14's leftovers in the code family's mechanisms, mended in round 15.

* The interactor audit's "listens" probes waited for 0.3 s of silence and then exited: an
  interactor slower than that to write (a start-up on a loaded machine, a second of work before its
  next line) met a closed pipe, was killed by SIGPIPE (a rejection), and the audit missed an
  interactor accepting whatever it is told; a contestant reading one line (``input()``) then paid 1.
  The host now reads the interactor's output in the probe's stead until the interactor ends
  (``probe_interactor``), and the probe exits after its text: no clock.
* A sample directory was ``$TMPDIR/rlvr-lang-*`` for every process: a non-root run (one uid for
  every sample) could not tell its own leftovers from another xdist worker's live sample. Each is
  now ``rlvr-lang-{pid}-*`` (``runner.sample_dir_prefix``).

Each test below failed before its fix (the slow interactor's task kept paying ``input()``; the
sample directory had no pid).
"""

from __future__ import annotations

import os

import pytest

from rlvr_code.contests.verifier import ContestVerifier
from tests.code.contest_interactive_cases import INTERACTOR_PY, RIGHT, guess_task
from tests.code.helpers_code import fenced
from tests.helpers.sandbox import needs_bwrap

_HEAD = "import sys, time\nn = int(open(sys.argv[1]).read().split()[0])\n"
# Each interactor waits longer than round 14's 0.3 s of silence (0.6 s: 2x, and the old probe
# missed it at any load, since its clock only runs longer than the sleep) before its first
# write, then takes whatever follows as done.
SLOW_LENIENT = {
    # asks, then accepts the end of the output as "no wrong guess"
    "asks late, accepts the end": (
        _HEAD + "time.sleep(0.6)\nprint('?', flush=True)\nsys.stdin.read()\nsys.exit(0)\n",
        "input()",
    ),
    # tells the answer late, then leaves
    "says late and leaves": (_HEAD + "time.sleep(0.6)\nprint(n, flush=True)\nsys.exit(0)\n", "input()"),
}


def _verifier() -> ContestVerifier:
    # generous clocks (the audit caps each probe at 5 s): a slow start on a loaded machine must not
    # end a probe before the interactor has written (a probe out of time concludes nothing)
    return ContestVerifier(timeout_s=60.0, case_timeout_s=5.0)


@needs_bwrap
@pytest.mark.parametrize("name", list(SLOW_LENIENT))
def test_a_slow_lenient_interactor_is_refused(name: str) -> None:
    interactor, probe = SLOW_LENIENT[name]
    task = guess_task(interactor, task_id=f"r15-slow-{name}")
    verdict = _verifier().verify(task, fenced(probe))
    # before: 1.0 for ``input()`` (the audit's probes had left before the interactor spoke)
    assert (verdict.reward, verdict.reason.value) == (0.0, "verifier_error"), verdict.details
    assert "interactor accepts a contestant" in verdict.details["error"]


@needs_bwrap
def test_the_listen_probe_keeps_a_sound_interactor() -> None:
    # The probe's end of output is an end a sound interactor rejects (not a failure, not an accept).
    task = guess_task(INTERACTOR_PY, task_id="r15-sound")
    verifier = _verifier()
    assert verifier.verify(task, fenced(RIGHT["python"])).reward == 1.0
    for program in ("pass", "print('? 1')", "print('! 1')"):
        verdict = verifier.verify(task, fenced(program))
        assert (verdict.reward, verdict.reason.value) == (0.0, "wrong"), (program, verdict.details)


def test_the_probes_wait_on_no_clock() -> None:
    # The bound is the interactor's end (the host reads its output until then), not a silence.
    from rlvr_code.contests.interactor_audit import _constants

    sources = [source for _, _, source in _constants([{"input": "1\n", "output": "x\n"}])]
    assert len(sources) >= 7 and not any("select" in s or "sleep" in s or "read(0" in s for s in sources)


@needs_bwrap
def test_a_sample_directory_bears_its_process_id() -> None:
    from rlvr_code.contests.sandboxed import PYTHON
    from rlvr_code.languages.runner import prepared, sample_dir_prefix

    limits = {"wall_s": 10.0, "memory_mb": 256, "total_memory_mb": 256}
    with prepared(PYTHON, "print(1)\n", limits) as sample:
        top = os.path.dirname(sample.private)
        assert os.path.basename(top).startswith(f"rlvr-lang-{os.getpid()}-")
        assert os.path.basename(top).startswith(sample_dir_prefix())
    assert not os.path.exists(top)
    assert sample_dir_prefix(12) == "rlvr-lang-12-" and sample_dir_prefix(1) != sample_dir_prefix(12)
