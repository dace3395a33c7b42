"""The tasks of a set that no sample can be judged on, listed up front (special judges and interactors).

Its own module because it joins the two audits with the interactive runs that blame a failure on
the output (``io_tasks``), which themselves ask ``interactor_audit``: kept in either audit, that
made an import circle.
"""

from __future__ import annotations

import functools
from typing import Any

from rlvr_code.contests import checker_audit
from rlvr_code.contests.interactor_audit import interactor_refusal


def refused_tasks(tasks: Any, verifier: Any = None) -> dict[str, str]:
    """``{task id: why}`` for the tasks whose special judge the audit refuses
    (``checker_audit.refused_tasks``) and, with ``verifier`` (whose limits the interactors' probes
    run under), the interactive tasks whose interactor ``interactor_audit`` refuses (red team round
    14), e.g. ``[t for t in env.tasks if t.id not in refused_tasks(env.tasks, env.verifier)]``
    before training."""
    found: dict[str, str] = {}
    if verifier is not None:
        found.update(refused_interactive_tasks(tasks, verifier))
    found.update(checker_audit.refused_tasks(tasks))
    return found


def refused_interactive_tasks(tasks: Any, verifier: Any) -> dict[str, str]:
    """``{task id: why}`` for the interactive tasks whose interactor the audit refuses, audited up
    front with ``verifier``'s limits (each audit is cached under the key the samples use, so their
    first samples then cost nothing more); ``refused_tasks(tasks, verifier)``.
    Malformed interactors (the verifier reports those) are not listed."""
    from rlvr_code.contests.interactors import InteractorSpecError, parse_interactor
    from rlvr_code.contests.io_tasks import _output_to_blame

    found: dict[str, str] = {}
    for task in tasks:
        answer = task.answer if isinstance(task.answer, dict) else {}
        if answer.get("format") != "stdio" or answer.get("interactor") is None:
            continue
        try:
            interactor = parse_interactor(answer["interactor"])
        except InteractorSpecError:
            continue
        # As ``io_tasks.verify_in_runner`` reads them: the cases' text, the limits without a checker.
        cases = [
            {"input": str(c["input"]), "output": str(c["output"])}
            for c in answer.get("cases") or ()
            if isinstance(c, dict) and "input" in c and "output" in c
        ]
        limits = verifier.task_limits({k: v for k, v in answer.items() if k != "checker"})
        blame = functools.partial(_output_to_blame, task, interactor, cases, limits)
        why = interactor_refusal(task.fingerprint, interactor, cases, limits, blame)
        if why is not None:
            found[str(task.id)] = why
    return found


__all__ = ["refused_interactive_tasks", "refused_tasks"]
