"""Asking a special judge, once per task, what it does with outputs no program should be paid for.

A task judged by a special judge (a testlib checker, a Kattis output validator) is only as sound as
its judge, and a policy searches the judge, not the problem. Three questions, asked once per
checker and cases (two or three checker runs; cached) before any sample of the task is judged:

* ``untrusted``: the cases whose expected output the checker does not accept as an answer (red team
  round 12: a Kattis ``.ans`` "may, but is not necessarily required to, contain the correct
  answer"; printing an empty or dummy one equalled it and skipped the checker).
* a constant the checker accepts on every case (red team round 13): a checker that accepts an empty
  output, ``0``, ``-1``, ``1``, ``YES`` or ``NO``, the answer's shape with any numbers, or the first
  sample's answer whatever the input (a validator that only checks the format, one reading its
  answer from the wrong file, a multiple-answer problem where one answer is always valid) pays
  every policy that finds that constant: the task is refused (``_probes``; a probe the checker
  accepts on the case it is shown is then shown on every case, one batch).
* a checker that fails (crashes: an exit status outside accept and reject) on its own expected
  outputs and on wrong output (red team round 13): a failure on the program's output can then
  never be blamed on the program (``runs._blame_case_by_case`` runs the checker on the expected
  output to tell), so every output that crashes it was a ``verifier_error``, which a trainer leaves
  out of the update and a policy learns to prefer over a 0. Such a checker is broken: the task is
  refused, so every sample of it is the same ``verifier_error`` whatever it prints.

A refusal is reported as a bad task (``verifier_error``) for every sample of the task, the first
sample's included; the audit's own failure to run (no sandbox, a compile error, a checker out of
time on a loaded machine) refuses nothing: the per-sample path reports those as it did.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from rlvr_code.contests.checkers import Checker, tokens

CONSTANTS = ("", "0\n", "1\n", "-1\n", "YES\n", "NO\n")
"""Outputs a policy tries first on any task: nothing, the small numbers, the two verdict words."""
GARBAGE = ("#?~ x\n",)
"""An output no checker should parse as an answer (letters and symbols where numbers or words are
read): what a checker does with it tells a sound one (rejects) from a fragile one (crashes)."""
_CRASH = "exited with status"
"""How ``sandboxed.run_checker`` words a checker's own exit outside accept and reject: a crash. Its
time or memory budget running out is not counted (that can be the machine's load, not the judge)."""


@dataclass(frozen=True)
class Audit:
    untrusted: frozenset[int]
    """Cases whose expected output the checker does not accept as an answer."""
    refusal: str | None = None
    """Why no sample of the task can be judged by this checker, or None."""


def _run(checker: Checker, triples: list[tuple[str, str, str]]) -> dict[str, Any] | None:
    """The checker's report on ``triples`` (``failed`` where it failed on one), or None where it
    could not run at all (no sandbox, a compile error): then nothing is concluded."""
    from rlvr_code.contests.sandboxed import run_checker
    from rlvr_code.sandbox import SandboxError

    try:
        report = run_checker(
            checker.language,
            checker.source,
            triples,
            checker.timeout_s,
            checker.memory_mb,
            total_s=checker.timeout_s * max(1, len(triples)),
            protocol=checker.protocol,
            args=checker.args,
        )
    except SandboxError:
        return None
    return None if report.get("compile_error") else report


def _statuses(report: dict[str, Any] | None, count: int) -> list[str] | None:
    """Each triple's judgement (``accepted``/``rejected``), or None where the run did not judge
    them all."""
    if report is None or report.get("failed"):
        return None
    judged = [t.get("status") for t in report.get("tests") or () if isinstance(t, dict)]
    return [str(s) for s in judged] if len(judged) == count else None


def _crashed(report: dict[str, Any] | None) -> bool:
    return report is not None and _CRASH in str(report.get("failed") or "")


_NUMBER_TOKEN = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _probes(given: list[tuple[str, str]]) -> list[tuple[str, int]]:
    """``(output, case index)`` pairs to show the checker: the common constants on the first case;
    the first expected output with every number made 0, then 1 (a judge checking the answer's shape
    only: two integers, a count then a list); and the first case's expected output on the second
    case (a judge accepting the sample's answer everywhere pays "print the shown example")."""
    probes = [(output, 0) for output in CONSTANTS]
    shape = tokens(given[0][1])
    if any(_NUMBER_TOKEN.fullmatch(t) for t in shape) and len(shape) <= 10_000:
        for digit in ("0", "1"):
            probes.append((" ".join(digit if _NUMBER_TOKEN.fullmatch(t) else t for t in shape) + "\n", 0))
    if len(given) > 1:
        probes.append((given[0][1], 1))
    return probes


def _key(checker: Checker, cases: list[dict[str, str]]) -> str:
    digest = hashlib.sha256(repr((checker.language, checker.protocol, checker.args)).encode())
    digest.update(checker.source.encode("utf-8", "replace"))
    for case in cases:
        for text in (str(case.get("input", "")), str(case.get("output", ""))):
            digest.update(len(text).to_bytes(8, "little") + text.encode("utf-8", "replace"))
    return digest.hexdigest()


_audits: OrderedDict[str, Audit] = OrderedDict()
_audits_lock = threading.Lock()


def audit(checker: Checker, cases: list[dict[str, str]]) -> Audit:
    """The checker's audit on the task's ``cases`` (cached per checker and cases)."""
    key = _key(checker, cases)
    with _audits_lock:
        known = _audits.get(key)
    if known is not None:
        return known
    found = _audit(checker, cases)
    with _audits_lock:
        _audits[key] = found
        while len(_audits) > 1024:
            _audits.popitem(last=False)
    return found


def _audit(checker: Checker, cases: list[dict[str, str]]) -> Audit:
    every = frozenset(range(len(cases)))
    if not cases:
        return Audit(every)
    given = [(str(c.get("input", "")), str(c.get("output", ""))) for c in cases]
    expected = _run(checker, [(i, o, o) for i, o in given])
    judged = _statuses(expected, len(cases))
    untrusted = every if judged is None else frozenset(i for i, s in enumerate(judged) if s != "accepted")
    if expected is None or (judged is None and not _crashed(expected)):
        # It cannot run here, or ran out of time or memory on its own answers (which the machine's
        # load can cause): nothing is concluded, and the samples report what they meet.
        return Audit(untrusted)
    first_input, first_answer = given[0]
    if _crashed(expected) and _crashed(_run(checker, [(first_input, g, first_answer) for g in GARBAGE])):
        return Audit(
            untrusted,
            "the special judge fails on its own expected output and on wrong output alike, so a failure "
            "cannot be blamed on a program's output (each would be a verifier_error, which a policy prefers "
            "to a wrong answer's 0): the checker is broken",
        )
    probes = _probes(given)
    batch = _run(checker, [(given[at][0], output, given[at][1]) for output, at in probes])
    verdicts = _statuses(batch, len(probes))
    if verdicts is None and _crashed(batch):
        # One probe crashed the batch (the checker's first failure ends its run): ask one by one
        # (not after a timeout: a checker hanging on a probe would cost its budget per probe).
        verdicts = [
            (_statuses(_run(checker, [(given[at][0], output, given[at][1])]), 1) or ["failed"])[0]
            for output, at in probes
        ]
    tried: set[str] = set()
    for (output, _at), verdict in zip(probes, verdicts or ()):
        if verdict != "accepted" or output in tried or (len(given) == 1 and tokens(output) == tokens(given[0][1])):
            # Rejected, or the one case's own answer: a one-case task is kept as round 8 keeps one
            # hidden answer. With more cases a constant every case accepts pays a blind program even
            # where it is each case's expected text (``.ans`` files all empty or all ``0``).
            continue
        tried.add(output)
        everywhere = _statuses(_run(checker, [(i, output, o) for i, o in given]), len(given))
        if everywhere is not None and all(s == "accepted" for s in everywhere):
            return Audit(
                untrusted,
                f"the special judge accepts the constant output {output[:60]!r} on every case: a program "
                "printing it whatever the input would pass",
            )
    return Audit(untrusted)


def untrusted_answers(checker: Checker, cases: list[dict[str, str]]) -> frozenset[int]:
    """The cases whose expected output the special judge does not accept as an answer (red team
    round 12). An output equal to the expected one skips the checker only where the checker
    accepts that expected output; a checker that cannot judge them trusts none."""
    return audit(checker, cases).untrusted


def unproven(checker: Checker, cases: list[dict[str, str]]) -> frozenset[int]:
    """The cases where an output the family's line comparison finds equal to the expected one still
    needs the checker's judgement: none for a built-in that trusts it, every case for one comparing
    whitespace (``space_sensitive``), the untrusted answers of a special judge."""
    if checker.trusts_equal_output:
        return frozenset()
    if checker.builtin:
        return frozenset(range(len(cases)))
    return untrusted_answers(checker, cases)


def refusal(checker: Checker, cases: list[dict[str, str]]) -> str | None:
    """Why no sample of the task can be judged by ``checker`` (a special judge), or None."""
    return None if checker.builtin else audit(checker, cases).refusal


def refused_tasks(tasks: Any) -> dict[str, str]:
    """``{task id: why}`` for the tasks whose special judge the audit refuses: a set's checker tasks
    audited up front (each audit is cached, so their first samples then cost nothing more), e.g.
    ``[t for t in env.tasks if t.id not in refused_tasks(env.tasks)]`` before training, where a
    refused task would otherwise cost a ``verifier_error`` sample after sample. Tasks without a
    ``program`` checker, and malformed checkers (the verifier reports those), are not listed.
    ``task_audit.refused_tasks(tasks, verifier)`` lists refused interactors too (round 14)."""
    from rlvr_code.contests.checkers import CheckerSpecError, parse_checker

    found: dict[str, str] = {}
    for task in tasks:
        answer = task.answer if isinstance(task.answer, dict) else {}
        if answer.get("format") != "stdio" or answer.get("checker") is None:
            continue
        try:
            checker = parse_checker(answer["checker"])
        except CheckerSpecError:
            continue
        if checker is None or checker.builtin:
            continue
        cases = [
            {"input": str(c.get("input", "")), "output": str(c.get("output", ""))}
            for c in answer.get("cases") or ()
            if isinstance(c, dict)
        ]
        why = refusal(checker, cases)
        if why is not None:
            found[str(task.id)] = why
    return found
