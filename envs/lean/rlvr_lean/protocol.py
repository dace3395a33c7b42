"""The Lean REPL's JSON protocol and kimina-lean-server's ``/verify`` responses, as types.

Requests (leanprover-community/repl): ``{"cmd": text, "env": id?}``, ``{"tactic": t, "proofState": n}``,
``{"pickleTo": path, "env": id}``, ``{"unpickleEnvFrom": path}``, one JSON object per request,
requests separated by a blank line. Responses: a command's ``{"env", "messages", "sorries",
"tactics", "infotree"}``; a tactic's ``{"proofState", "goals", "proofStatus"}``; or a REPL-level
``{"message": "..."}`` error (unknown environment, a Lean error in tactic mode).

kimina-lean-server wraps the same command response per snippet:
``{"results": [{"custom_id", "error", "response": {...command response..., "time"}}]}``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs import Reason, Verdict
from rlvr_envs.errors import RlvrEnvsError


class ProtocolError(RlvrEnvsError, ValueError):
    """A response that is not what the protocol allows (not JSON, wrong shapes)."""


@dataclass(frozen=True)
class Pos:
    line: int
    column: int


@dataclass(frozen=True)
class Message:
    severity: str
    pos: Pos | None
    end_pos: Pos | None
    data: str


@dataclass(frozen=True)
class Sorry:
    pos: Pos | None
    end_pos: Pos | None
    goal: str
    proof_state: int | None


@dataclass(frozen=True)
class CommandResponse:
    env: int | None
    messages: tuple[Message, ...] = ()
    sorries: tuple[Sorry, ...] = ()
    tactics: tuple[dict[str, Any], ...] = ()
    infotree: Any = None
    time: float | None = None

    @property
    def errors(self) -> tuple[Message, ...]:
        return tuple(m for m in self.messages if m.severity == "error")


@dataclass(frozen=True)
class TacticResponse:
    proof_state: int | None
    goals: tuple[str, ...]
    proof_status: str | None = None
    messages: tuple[Message, ...] = ()
    sorries: tuple[Sorry, ...] = ()


@dataclass(frozen=True)
class ReplError:
    """A request the REPL refused: ``{"message": ...}``."""

    message: str


Response = CommandResponse | TacticResponse | ReplError


def _pos(value: Any) -> Pos | None:
    if value is None:
        return None
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("line"), int)
        or not isinstance(value.get("column"), int)
    ):
        raise ProtocolError(f"bad position {value!r}")
    return Pos(value["line"], value["column"])


def _messages(value: Any) -> tuple[Message, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ProtocolError("messages must be a list")
    out = []
    for m in value:
        if not isinstance(m, dict) or m.get("severity") not in ("error", "warning", "info", "information"):
            raise ProtocolError(f"bad message {str(m)[:200]}")
        out.append(Message(m["severity"], _pos(m.get("pos")), _pos(m.get("endPos")), str(m.get("data", ""))))
    return tuple(out)


def _sorries(value: Any) -> tuple[Sorry, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ProtocolError("sorries must be a list")
    return tuple(
        Sorry(_pos(s.get("pos")), _pos(s.get("endPos")), str(s.get("goal", "")), s.get("proofState")) for s in value
    )


def parse_response(obj: Any) -> Response:
    """One REPL response object as a typed value; ``ProtocolError`` for anything else."""
    if not isinstance(obj, dict):
        raise ProtocolError(f"a response must be a JSON object, got {type(obj).__name__}")
    if "proofStatus" in obj or ("goals" in obj and "proofState" in obj and "env" not in obj):
        goals = obj.get("goals") or []
        if not isinstance(goals, list):
            raise ProtocolError("goals must be a list")
        return TacticResponse(
            obj.get("proofState"),
            tuple(str(g) for g in goals),
            obj.get("proofStatus"),
            _messages(obj.get("messages")),
            _sorries(obj.get("sorries")),
        )
    if "message" in obj and "env" not in obj:
        return ReplError(str(obj["message"]))
    env = obj.get("env")
    if env is not None and not isinstance(env, int):
        raise ProtocolError(f"env must be an integer, got {env!r}")
    tactics = obj.get("tactics") or []
    if not isinstance(tactics, list):
        raise ProtocolError("tactics must be a list")
    time = obj.get("time")
    return CommandResponse(
        env=env,
        messages=_messages(obj.get("messages")),
        sorries=_sorries(obj.get("sorries")),
        tactics=tuple(tactics),
        infotree=obj.get("infotree"),
        time=float(time) if isinstance(time, (int, float)) else None,
    )


def split_stream(text: str) -> list[Any]:
    """The JSON objects of a REPL stream (requests or responses), separated by blank lines."""
    out = []
    for chunk in re.split(r"\n\s*\n", text):
        if chunk.strip():
            try:
                out.append(json.loads(chunk, strict=False))  # the REPL accepts raw newlines in strings
            except json.JSONDecodeError as exc:
                raise ProtocolError(f"not JSON: {chunk[:120]!r}: {exc.msg}") from exc
    return out


@dataclass(frozen=True)
class KiminaResult:
    custom_id: str
    error: str | None
    response: CommandResponse | None
    extra: dict[str, Any] = field(default_factory=dict)


def parse_kimina(obj: Any) -> list[KiminaResult]:
    """The results of a kimina-lean-server ``/verify`` reply (``{"results": [...]}``)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("results"), list):
        raise ProtocolError("a /verify reply must be an object with a 'results' list")
    out = []
    for r in obj["results"]:
        if not isinstance(r, dict):
            raise ProtocolError("each result must be an object")
        resp = r.get("response")
        parsed = None
        if resp is not None:
            value = parse_response(resp)
            if not isinstance(value, CommandResponse):
                raise ProtocolError(f"a /verify response must be a command response, got {type(value).__name__}")
            parsed = value
        error = r.get("error")
        out.append(
            KiminaResult(str(r.get("custom_id", r.get("id", ""))), None if error is None else str(error), parsed)
        )
    return out


_SORRY_WARNING = re.compile(r"declaration uses '?`?sorry")


def _where(m: Message | Sorry, line_offset: int) -> dict[str, int] | None:
    if m.pos is None:
        return None
    return {"line": m.pos.line - line_offset, "column": m.pos.column}


def check_response(resp: Response, *, line_offset: int = 0, max_error_chars: int = 1000) -> Verdict | None:
    """Layer 2's judgement of one command response: None when it passes (no error, no sorry).

    Errors give ``wrong`` with the first error and its position (lines counted from the
    completion's code when ``line_offset`` says how many lines came before it); any sorry,
    recorded or warned, is rejected.
    """
    if isinstance(resp, ReplError):
        return Verdict.failure(
            Reason.VERIFIER_ERROR, details={"layer": "lean", "error": resp.message[:max_error_chars]}
        )
    if isinstance(resp, TacticResponse):
        return Verdict.failure(Reason.VERIFIER_ERROR, details={"layer": "lean", "error": "expected a command response"})
    errors = resp.errors
    if errors:
        first = errors[0]
        return Verdict.failure(
            Reason.WRONG,
            details={
                "layer": "lean",
                "rule": "lean_error",
                "error": first.data[:max_error_chars],
                "pos": _where(first, line_offset),
                "errors": len(errors),
            },
        )
    warned = [m for m in resp.messages if m.severity == "warning" and _SORRY_WARNING.search(m.data)]
    if resp.sorries or warned:
        where = _where(resp.sorries[0], line_offset) if resp.sorries else _where(warned[0], line_offset)
        return Verdict.failure(
            Reason.WRONG,
            details={"layer": "lean", "rule": "sorry", "error": "the proof contains `sorry`", "pos": where},
        )
    return None


def check_kimina(result: KiminaResult, *, line_offset: int = 0) -> Verdict | None:
    """Layer 2 on a kimina result: a server-side timeout is ``timeout``, other server errors
    ``verifier_error`` (never ``wrong``: the proof was not judged)."""
    if result.error is not None:
        reason = (
            Reason.TIMEOUT
            if "timed out" in result.error.lower() or "timeout" in result.error.lower()
            else Reason.VERIFIER_ERROR
        )
        return Verdict.failure(reason, details={"layer": "lean", "backend": "kimina", "error": result.error[:500]})
    if result.response is None:
        return Verdict.failure(Reason.VERIFIER_ERROR, details={"layer": "lean", "error": "the server sent no response"})
    return check_response(result.response, line_offset=line_offset)


_AXIOMS = re.compile(r"'(?P<name>[^']+)' depends on axioms: \[(?P<axioms>[^\]]*)\]", re.DOTALL)
_NO_AXIOMS = re.compile(r"'(?P<name>[^']+)' does not depend on any axioms")


def parse_axioms(messages: tuple[Message, ...]) -> dict[str, tuple[str, ...]]:
    """``#print axioms`` output by constant: ``{"foo": ("propext", "Quot.sound")}``."""
    out: dict[str, tuple[str, ...]] = {}
    for m in messages:
        if m.severity not in ("info", "information"):
            continue
        for hit in _AXIOMS.finditer(m.data):
            names = tuple(a.strip() for a in hit["axioms"].replace("\n", " ").split(",") if a.strip())
            out[hit["name"]] = names
        for hit in _NO_AXIOMS.finditer(m.data):
            out[hit["name"]] = ()
    return out
