"""The ``lean_check`` tool of Lean episodes: compile a candidate proof before answering.

Each call runs the family's static policy on the candidate (what the final answer's verification
runs first) and, when a Lean backend is configured, Lean itself on the same file the verifier
would check. The model reads:

- with the **file backend**: Lean's own messages on the candidate's lines (errors, warnings,
  ``unsolved goals`` with the goal state), positions counted from the candidate's first line, and
  the result of the kernel audit (which axioms, whether the theorem has the task's statement);
- with the **REPL or kimina backends**: the verdict and the first error with its position;
- **without a backend**: the static layer's findings, and a line saying Lean did not run.

Nothing hidden comes back: a Lean task has no gold proof in ``Task.answer`` (only the header and
statement the prompt shows), and the internal names the verifier adds (``_rlvr_ref_…``,
``_rlvr_check_…``, ``_rlvr_example_…``) are replaced by a description. Lean runs out of process
with a budget of ``min(proof_timeout_s, the call's budget)`` (its process group killed past it),
so a call returns within its budget. The episode's reward is still the final answer's verdict.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from typing import Any

from rlvr_envs import Reason, Verdict
from rlvr_envs.episodes import ToolContext, ToolError
from rlvr_lean.backends import assemble_file, audit_nonce, judge_whole_file, restrict
from rlvr_lean.file_backend import FileBackend, output_flood, parse_json_lines
from rlvr_lean.protocol import KiminaResult, Message, ProtocolError
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import LeanVerifier, static_check

__all__ = ["LeanCheckSession", "LeanCheckTool", "lean_check_tool", "render_messages", "scrub"]

_INTERNAL = re.compile(r"@?(?:_root_\.)?_rlvr_(?:ref|check|example)_\w*")
_MARGIN_S = 0.5  # left of the call's budget for starting the process and reading its output
_MAX_MESSAGES = 20
_MAX_MESSAGE_CHARS = 1500  # one huge message (an echoed 200 KB identifier) must not hide the others


def scrub(text: str) -> str:
    """``text`` with the verifier's internal constant names replaced by what they stand for."""
    return _INTERNAL.sub("(the task's statement)", text)


def render_messages(messages: tuple[Message, ...], line_offset: int) -> list[str]:
    """One entry per Lean message, its line counted from the candidate's first line."""
    out = []
    for m in messages[:_MAX_MESSAGES]:
        where = f"line {m.pos.line - line_offset}, column {m.pos.column}" if m.pos else "no position"
        data = scrub(m.data.rstrip())
        if len(data) > _MAX_MESSAGE_CHARS:
            data = f"{data[:_MAX_MESSAGE_CHARS]}…[{len(data) - _MAX_MESSAGE_CHARS} more chars]"
        out.append(f"{m.severity} at {where}:\n{data}")
    if len(messages) > _MAX_MESSAGES:
        out.append(f"... and {len(messages) - _MAX_MESSAGES} more messages")
    return out


def _describe(verdict: Verdict) -> str:
    details = verdict.details if isinstance(verdict.details, Mapping) else {}
    parts = [str(verdict.reason.value)]
    if details.get("rule"):
        parts.append(f"rule `{details['rule']}`")
    pos = details.get("pos")
    if isinstance(pos, Mapping) and pos.get("line") is not None:
        parts.append(f"line {pos['line']}, column {pos.get('column', 0)}")
    elif details.get("line") is not None:
        parts.append(f"line {details['line']}")
    text = ", ".join(parts)
    for key in ("error", "message", "found"):
        if details.get(key):
            text += f": {details[key]}"
            break
    if details.get("not_allowed"):
        text += f" (axioms not allowed: {', '.join(map(str, details['not_allowed']))})"
    return scrub(text)


def _summary(verdict: Verdict, *, brief: bool = False) -> str:
    """``brief``: the reason and rule only (Lean's own messages follow)."""
    if verdict.passed:
        return "The proof checks: Lean reports no error and the kernel audit passes."
    if brief and isinstance(verdict.details, Mapping) and verdict.details.get("rule") == "lean_error":
        return "The proof does not check yet: Lean reports errors."
    return f"The proof does not check yet ({_describe(verdict)})."


class LeanCheckSession:
    """One episode's ``lean_check``: stateless between calls (each call is one whole check)."""

    def __init__(self, tool: LeanCheckTool, context: ToolContext) -> None:
        self.tool = tool
        self.context = context
        self._closed = False
        # A tool made without options checks as the env does: the env's own verifier (its backend,
        # Lean binary and policy), so make("lean", backend=..., tools=["lean_check"]) needs no more.
        own = context.verifier if tool.defaulted and isinstance(context.verifier, LeanVerifier) else None
        self.verifier: LeanVerifier = own if own is not None else tool.verifier

    def _budget(self) -> float:
        budget = min(self.context.call_timeout_s, self.verifier.proof_timeout_s + _MARGIN_S)
        if self.context.deadline is not None:
            budget = min(budget, self.context.deadline - time.monotonic())
        return budget - _MARGIN_S

    def call(self, proof: str) -> str:
        if self._closed:
            raise ToolError("this lean_check session is closed")
        verifier = self.verifier
        task = self.context.task
        started = time.monotonic()
        first = static_check(task, proof, verifier.policy)
        if isinstance(first, Verdict):
            if first.reason is Reason.VERIFIER_ERROR:
                raise ToolError(scrub(str((first.details or {}).get("error") or "this task cannot be checked")))
            return f"Static check (Lean not run): refused, {_describe(first)}."
        backend = verifier.backend
        if backend is None:
            return (
                "Static check: no problem found. No Lean backend is configured here, so the proof was "
                "not compiled; the final answer is checked by Lean when one is."
            )
        budget = self._budget() - (time.monotonic() - started)  # the call's budget covers layer 1 too
        if budget < 0.5:
            raise ToolError("not enough time is left in this episode to run Lean")
        allow_native = verifier._allow_native(task)
        if isinstance(backend, FileBackend):
            return self._file_check(backend, first, allow_native, budget)
        return _summary(backend.check(first, allow_native=allow_native, timeout_s=budget))

    def _file_check(self, backend: FileBackend, prepared: Prepared, allow_native: bool, budget: float) -> str:
        text, (first, last), audit_offset, plan = assemble_file(prepared, audit_nonce(prepared))
        try:
            out, _err, code, _seconds, cut = backend.run_file(text, timeout_s=budget)
        except OSError as exc:
            raise ToolError(f"Lean could not be started: {exc}") from exc
        if code == "timeout":
            return f"Lean ran past this call's budget of {budget:.3g} s and was stopped."
        if code == "memory":
            return f"Lean went past its memory bound of {backend.max_rss_mb:g} MiB and was stopped."
        try:
            resp = parse_json_lines(out)
        except ProtocolError as exc:
            raise ToolError(f"Lean's output could not be read: {exc}") from exc
        if code not in (0, 1):
            return f"Lean stopped abnormally (exit {code}) before judging the proof."
        verdict = judge_whole_file(KiminaResult("0", None, resp), first, last, audit_offset, plan, allow_native)
        if cut and verdict.reason is Reason.VERIFIER_ERROR:
            verdict = output_flood()  # as the final answer would be judged
        shown = restrict(resp, first, last).messages
        lines = [_summary(verdict, brief=bool(shown))]
        if shown:
            lines.append("Lean's messages (lines counted from the theorem's first line):")
            lines += render_messages(shown, first - 1)
        elif not verdict.passed:
            lines.append("Lean reported no message on your proof's lines.")
        return "\n".join(lines)

    def close(self) -> None:
        self._closed = True


class LeanCheckTool:
    """``lean_check``: compile a candidate Lean proof and read the compiler's messages.

    Args:
        verifier: the ``LeanVerifier`` whose policy and backend the tool uses; else one is made of
            ``options`` (``LeanVerifier``'s keywords: ``backend``, ``lean_bin``, ``kimina_url``,
            ``lean_project``, ``proof_timeout_s``, the policy's fields, ...). With no backend
            named: the file backend on ``lean_bin`` / ``RLVR_LEAN_BIN`` when set, else
            ``LeanVerifier``'s ``auto`` (kimina, then a local REPL project, else static only).
    """

    name = "lean_check"
    description = (
        "Check a candidate Lean 4 proof (the same text you would answer with) with the task's "
        "verifier: returns Lean's messages (errors with their position, unsolved goals) and whether "
        "the proof would be accepted. Without a Lean installation, only the static rules are checked."
    )
    parameters: dict[str, Any] = {  # noqa: RUF012 (the Tool protocol's attribute)
        "type": "object",
        "properties": {
            "proof": {
                "type": "string",
                "description": (
                    "The candidate proof: the proof term or tactic block, or the whole theorem with its proof."
                ),
            }
        },
        "required": ["proof"],
        "additionalProperties": False,
    }

    def __init__(self, verifier: LeanVerifier | None = None, **options: Any) -> None:
        if verifier is not None and options:
            raise TypeError("pass either verifier= or its options, not both")
        # Made with nothing named: a session then uses the env's own verifier when it has one.
        self.defaulted = verifier is None and not options and not os.environ.get("RLVR_LEAN_BIN")
        if verifier is None:
            if "backend" not in options and (options.get("lean_bin") or os.environ.get("RLVR_LEAN_BIN")):
                options["backend"] = "file"
            verifier = LeanVerifier(**options)
        self.verifier = verifier

    def open(self, context: ToolContext) -> LeanCheckSession:
        return LeanCheckSession(self, context)

    def close(self) -> None:
        """Ends the backend's processes (a local REPL pool); the file backend keeps none."""
        self.verifier.close()

    def __repr__(self) -> str:
        return f"LeanCheckTool(backend={self.verifier.backend_name!r})"


def lean_check_tool(**options: Any) -> LeanCheckTool:
    """Entry point of ``rlvr_envs.tools``: ``get_tool("lean_check", **options)``."""
    return LeanCheckTool(**options)
