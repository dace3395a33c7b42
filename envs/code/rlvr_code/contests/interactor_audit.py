"""Asking an interactor, once per task, what it does with contestants no program should be paid for.

Red team round 14: special judges are audited (``checker_audit``), interactors were not. An
interactive task is only as sound as its interactor, and a policy searches the interactor:

* a **constant contestant** the interactor accepts on every case pays every policy that finds it:
  one that says nothing, one that prints ``0``, ``1``, ``-1``, ``YES`` or ``NO`` (or the first
  case's expected output) and reads whatever it is told (the host reads it: no clock) (an interactor that
  forgets to check the final answer, accepts at the end of its input, or reads the wrong file). The
  task is refused. Each probe is played on the first case; one accepted there is played on the
  others (one more run); a one-case task is kept only where the probe printed that case's own
  expected output, as ``checker_audit`` keeps one hidden answer;
* an interactor that **fails** (crashes: an exit status outside accept and reject) on a contestant
  printing nothing and on one printing garbage alike, where the task's reference does not show its
  failures to be the output's (``io_tasks._output_to_blame``), turns every wrong program into a
  ``verifier_error``, which a trainer leaves out and a policy learns to prefer over a 0. It is
  broken: the task is refused.

A refused task is a bad task (``verifier_error``) for every sample, the first included, the right
program's too. The audit's own failure (no sandbox, the interactor not compiling, a probe out of
time on a loaded machine) refuses nothing: the samples report what they meet, as before. Cached per
task (its fingerprint): one ``probe_interactor`` call of nine short probes on the first case, a second
only for a probe the first case accepted.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from rlvr_code.contests.checker_audit import CONSTANTS
from rlvr_code.contests.checkers import tokens

_SAYS = (
    "import sys\nsys.stdout.write({said!r})\nsys.stdout.flush()\n"
    # Then it exits, and the host listens for it (``probe_interactor``: whatever the interactor
    # writes afterwards lands, as it would for a contestant reading exactly what it needs, until
    # the interactor ends). Event-driven, no timing: round 14's probe listened itself until 0.3 s
    # of silence, so an interactor slower than that to write (its start-up on a loaded machine)
    # met a closed pipe (SIGPIPE, a rejection) and the audit missed one accepting anything.
)
EXIT_AT_ONCE = "import sys\nsys.exit(0)\n"
GARBAGE = (
    "import sys\nsys.stdout.write('hello world ?! x\\n')\nsys.stdout.flush()\n",
    "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\x00 ~~\\n')\nsys.stdout.flush()\n",
)
"""Contestants printing what no interactor's protocol expects (words, invalid UTF-8)."""
_CRASH = "exited with status"
"""How ``judge_interaction`` words an interactor's own exit outside accept and reject: a crash.
Its budget or memory running out is not counted (the machine's load can cause that)."""


def _constants(cases: list[dict[str, str]]) -> list[tuple[str, str, str]]:
    """``(what it does, what it prints, source)`` of the constant contestants."""
    said = [c for c in CONSTANTS if c]
    first = str(cases[0].get("output", ""))
    if tokens(first) and len(first) <= 10_000 and first not in said:
        said.append(first if first.endswith("\n") else first + "\n")
    return [
        ("exits at once", "", EXIT_AT_ONCE),
        *((f"prints {text[:40]!r}", text, _SAYS.format(said=text)) for text in said),
    ]


def _accepted(entries: Any) -> bool:
    return isinstance(entries, list) and bool(entries) and all(e.get("status") == "passed" for e in entries)


def _crashed(entries: Any) -> bool:
    return isinstance(entries, str) and _CRASH in entries


def _probe_limits(limits: dict[str, Any]) -> dict[str, Any]:
    """The task's limits, each probe's case cut to 5 s: a probe ends in a fraction of a second
    unless the interactor hangs, and a hung one concludes nothing."""
    case_s = min(5.0, float(limits.get("case_s") or limits["cpu_s"]))
    return {**limits, "case_s": case_s, "cpu_s": min(float(limits["cpu_s"]), case_s)}


def audit_interactor(
    interactor: Any, cases: list[dict[str, str]], limits: dict[str, Any], blame: Any
) -> tuple[str | None, bool]:
    """``(why no sample of an interactive task can be judged by interactor, or None; whether the
    audit concluded)`` (the module's rules). ``blame()``: whether the interactor's failures are the
    output's (``io_tasks._output_to_blame``). Not concluded: no sandbox, a compile error."""
    from rlvr_code.contests.interactors import interactor_language
    from rlvr_code.contests.sandboxed import PYTHON
    from rlvr_code.languages.interactive import InteractorBudget, probe_interactor
    from rlvr_code.sandbox import SandboxError

    if not cases:
        return None, True
    judge = interactor_language(interactor.language, interactor.protocol, interactor.args)
    budget = InteractorBudget(cpu_s=interactor.timeout_s, memory_mb=interactor.memory_mb)
    probe_limits = _probe_limits(limits)
    constants = _constants(cases)
    sources = [source for _, _, source in constants] + list(GARBAGE)
    try:
        first = probe_interactor(
            judge, interactor.source, [(PYTHON, s, cases[:1]) for s in sources], probe_limits, budget
        )
        silent, garbage = first[:1], first[len(constants) :]
        if any(_crashed(r) for r in silent) and all(_crashed(r) for r in garbage) and not blame():
            return (
                "the interactor failed on a contestant printing nothing and on one printing garbage alike, and no "
                "reference shows its failures to be the output's: every wrong program would be a verifier_error "
                "(which a policy prefers to a 0): the interactor is broken"
            ), True
        one_answer = tokens(str(cases[0].get("output", ""))) if len(cases) == 1 else None
        # A one-case task is kept where the probe printed that case's own expected output (as
        # ``checker_audit`` keeps one hidden answer); any other constant it accepts is refused.
        accepted = [
            (what, source)
            for (what, said, source), entries in zip(constants, first)
            if _accepted(entries) and not (one_answer and tokens(said) == one_answer)
        ]
        if not accepted:
            return None, True
        if len(cases) == 1:
            what = accepted[0][0]
            return (
                f"the interactor accepts a contestant that {what} on its one case: a program doing so would pass",
                True,
            )
        rest = probe_interactor(
            judge, interactor.source, [(PYTHON, s, cases[1:]) for _, s in accepted], probe_limits, budget
        )
    except (SandboxError, OSError):  # InteractorFailed too (no compile), or no pipes: the samples report it
        return None, False
    for (what, _), entries in zip(accepted, rest):
        if _accepted(entries) and isinstance(entries, list) and len(entries) == len(cases) - 1:
            return (
                f"the interactor accepts a contestant that {what} on every case: a program doing so whatever "
                "it is told would pass"
            ), True
    return None, True


_audits: OrderedDict[str, str | None] = OrderedDict()
_audits_lock = threading.Lock()


def interactor_refusal(
    key: str, interactor: Any, cases: list[dict[str, str]], limits: dict[str, Any], blame: Any
) -> str | None:
    """``audit_interactor``'s refusal, once per ``key`` (the task's fingerprint); an audit that did
    not conclude (no sandbox, a compile error) refuses nothing and is asked again next time."""
    with _audits_lock:
        if key in _audits:
            return _audits[key]
    found, concluded = audit_interactor(interactor, cases, limits, blame)
    if not concluded:
        return None
    with _audits_lock:
        _audits[key] = found
        while len(_audits) > 4096:
            _audits.popitem(last=False)
    return found


__all__ = ["EXIT_AT_ONCE", "GARBAGE", "audit_interactor", "interactor_refusal"]
