"""Layers 2 and 3 behind one interface, and the kimina-lean-server backend.

The kernel-level audit is the same for every backend. After the proof, in the same environment:

- ``theorem _root_._rlvr_check_… : type_of% @_root_._rlvr_ref_… := @NAME``, where ``_rlvr_ref_…``
  is the task's own statement elaborated *before* any of the completion's code (so a helper
  instance or definition cannot change what it means), both names from the root so that a
  namespace the code leaves open cannot hold look-alikes: the proved constant exists and its
  type is the task's statement (up to definitional unfolding, which the kernel checks); then
  ``#print axioms`` of that check theorem (the axioms of exactly the constant checked). Its name
  carries a nonce the checked code cannot learn (``audit_nonce``) and its line must hold exactly
  one answer about exactly that name: lines the code printed (were ``IO`` ever to run) forge nothing;
- ``#print axioms NAME`` for every audited constant (every constant an ambiguous name prints):
  only ``propext``, ``Classical.choice``, ``Quot.sound`` (plus ``Lean.ofReduceBool`` /
  ``Lean.trustCompiler`` when ``native_decide`` is allowed). ``sorryAx`` is an unfinished
  proof; anything else is a new axiom.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
import urllib.error
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from rlvr_envs import Reason, Verdict
from rlvr_envs.errors import RlvrEnvsError
from rlvr_lean.protocol import (
    CommandResponse,
    Message,
    ProtocolError,
    check_kimina,
    check_response,
    parse_axioms,
    parse_kimina,
)
from rlvr_lean.shape import Prepared

STANDARD_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
NATIVE_AXIOMS = frozenset({"Lean.ofReduceBool", "Lean.trustCompiler"})


class LeanUnavailable(RlvrEnvsError, RuntimeError):
    """The backend cannot run Lean here; the message says what to install."""


@dataclass(frozen=True)
class AuditPlan:
    text: str
    purposes: tuple[tuple[str, str], ...]
    """Per line of ``text``: ("check", name) or ("axioms", name)."""
    check_name: str | None = None
    """The check theorem's name as ``#print axioms`` prints it (no ``_root_.``): its one answer
    is the verdict, and the name carries the nonce the completion cannot know."""


_SECRET: list[bytes] = []


def audit_nonce(prepared: Prepared) -> str:
    """A name part the completion cannot know: a keyed hash (this process's random key) of what is
    sent to Lean. A program that printed a forged ``#print axioms`` answer (``IO`` is refused
    statically; this is the second line) would have to name the check theorem, whose name holds
    this; the same proof gets the same nonce in one process, so a server's cache still hits."""
    if not _SECRET:
        _SECRET.append(secrets.token_bytes(16))
    text = "\0".join((prepared.header, prepared.ref_name or "", prepared.code)).encode("utf-8", "surrogatepass")
    return hmac.new(_SECRET[0], text, hashlib.sha256).hexdigest()[:20]


def audit_plan(prepared: Prepared, nonce: str = "") -> AuditPlan:
    """The audit's Lean lines; ``nonce`` (``audit_nonce``; the backends always pass one) goes into
    the check theorem's name."""
    lines: list[str] = []
    purposes: list[tuple[str, str]] = []
    check_name = None
    if prepared.ref_name and prepared.audit_names:
        main = prepared.audit_names[0]
        # `_root_.`: the code may leave a namespace open, in which its own `_rlvr_ref_…` would
        # otherwise be found first. The check theorem's axioms are those of the very constant
        # `@main` elaborated to, whatever scope or overloads the code left for the name.
        check_name = f"_rlvr_check_{prepared.ref_name.removeprefix('_rlvr_ref_')}" + (f"_{nonce}" if nonce else "")
        check = f"_root_.{check_name}"
        lines.append(f"theorem {check} : type_of% @_root_.{prepared.ref_name} := @{main}")
        purposes.append(("check", main))
        lines.append(f"#print axioms {check}")
        purposes.append(("axioms", check))
    for name in prepared.audit_names:
        lines.append(f"#print axioms {name}")
        purposes.append(("axioms", name))
    return AuditPlan("\n".join(lines) + "\n", tuple(purposes), check_name)


def _forged(error: str) -> Verdict:
    return Verdict.failure(
        Reason.SANDBOX_VIOLATION, details={"layer": "audit", "rule": "forged_output", "error": error[:500]}
    )


def judge_audit(
    plan: AuditPlan, messages: tuple[Message, ...], *, allow_native: bool, line_offset: int = 0
) -> Verdict | None:
    """Layer 3 from the messages of the audit lines (``line_offset`` lines before them)."""
    allowed = STANDARD_AXIOMS | (NATIVE_AXIOMS if allow_native else frozenset())
    by_line: dict[int, list[Message]] = {}
    for m in messages:
        line = (m.pos.line if m.pos else 1) - line_offset
        by_line.setdefault(line, []).append(m)
    stray = [
        m for line, ms in by_line.items() if not 1 <= line <= len(plan.purposes) for m in ms if m.severity == "error"
    ]
    if stray:  # the code left something open that swallowed the audit (an unclosed term, a section)
        return Verdict.failure(
            Reason.WRONG, details={"layer": "audit", "rule": "lean_error", "error": stray[0].data[:500]}
        )
    for index, (purpose, name) in enumerate(plan.purposes, start=1):
        here = by_line.get(index, [])
        errors = [m for m in here if m.severity == "error"]
        if purpose == "check" and errors:
            text = errors[0].data
            if "unknown" in text.lower() and name in text:
                return Verdict.failure(
                    Reason.WRONG,
                    details={
                        "layer": "audit",
                        "rule": "missing_constant",
                        "error": f"no constant `{name}` was defined",
                    },
                )
            return Verdict.failure(
                Reason.SANDBOX_VIOLATION,
                details={
                    "layer": "audit",
                    "rule": "statement_mismatch",
                    "error": f"`{name}` does not have the task's statement: {text[:500]}",
                },
            )
        if purpose == "axioms":
            if errors:
                return Verdict.failure(
                    Reason.WRONG,
                    details={"layer": "audit", "rule": "missing_constant", "error": errors[0].data[:500], "name": name},
                )
            found = parse_axioms(tuple(here))
            if not found:
                return Verdict.failure(
                    Reason.VERIFIER_ERROR,
                    details={"layer": "audit", "error": f"`#print axioms {name}` gave no answer"},
                )
            if plan.check_name is not None and name == f"_root_.{plan.check_name}":
                # The verdict's own line: exactly one answer, about exactly the check theorem
                # (its name holds the nonce). Anything else there was printed by something else.
                # (A trace option left on adds trace messages here: only answers are counted.)
                answers = [m for m in here if parse_axioms((m,))]
                if len(answers) != 1 or {n.removeprefix("_root_.") for n in found} != {plan.check_name}:
                    return _forged(
                        f"the check theorem's `#print axioms` line has {len(answers)} answers: {sorted(found)}"
                    )
            # An ambiguous name prints one answer per constant it may mean: every one counts.
            axioms = tuple(sorted({a for names in found.values() for a in names}))
            if "sorryAx" in axioms:
                return Verdict.failure(
                    Reason.WRONG, details={"layer": "audit", "rule": "sorry", "name": name, "axioms": list(axioms)}
                )
            extra = sorted(set(axioms) - allowed)
            if extra:
                return Verdict.failure(
                    Reason.SANDBOX_VIOLATION,
                    details={
                        "layer": "audit",
                        "rule": "axioms",
                        "name": name,
                        "axioms": list(axioms),
                        "not_allowed": extra,
                    },
                )
    return None


def restrict(resp: CommandResponse, first: int, last: int) -> CommandResponse:
    """The part of a whole-file response that lies on lines ``first..last``."""

    def inside(pos: object) -> bool:
        return pos is not None and first <= pos.line <= last  # type: ignore[attr-defined]

    return CommandResponse(
        env=resp.env,
        messages=tuple(m for m in resp.messages if inside(m.pos)),
        sorries=tuple(s for s in resp.sorries if inside(s.pos)),
        time=resp.time,
    )


class Backend(ABC):
    """Runs layers 2 and 3 for a prepared proof; returns the final verdict."""

    name = ""

    @abstractmethod
    def check(self, prepared: Prepared, *, allow_native: bool, timeout_s: float) -> Verdict: ...

    def check_many(self, items: list[Prepared], *, allow_native: bool, timeout_s: float) -> list[Verdict]:
        return [self.check(p, allow_native=allow_native, timeout_s=timeout_s) for p in items]

    def close(self) -> None:  # noqa: B027 - optional hook: a backend without resources has nothing to release
        """Release processes or connections."""


def _lines(text: str) -> int:
    return text.count("\n")


def assemble_file(prepared: Prepared, nonce: str = "") -> tuple[str, tuple[int, int], int, AuditPlan]:
    """One Lean file for servers that check whole files: header, reference statement, code, audit.

    Returns the file, the 1-based line range of the completion's code, the line offset of the
    audit and the audit plan (``nonce``: see ``audit_plan``)."""
    header = prepared.header if prepared.header.endswith("\n") or not prepared.header else prepared.header + "\n"
    ref = f"{prepared.ref_declaration}\n\n" if prepared.ref_declaration else ""
    before = header + ref
    plan = audit_plan(prepared, nonce)
    code = prepared.code if prepared.code.endswith("\n") else prepared.code + "\n"
    first = _lines(before) + 1
    last = first + _lines(code) - 1
    text = before + code + "\n" + plan.text
    return text, (first, last), last + 1, plan


class KiminaBackend(Backend):
    """kimina-lean-server's HTTP ``/verify``: batches, retries on connection errors and 5xx, timeouts.

    The server checks whole files, so the header, the reference statement, the proof and the
    audit go in one file, and each message is attributed by its line.
    """

    name = "kimina"
    # A reply is read no further than this a proof (the file backend cuts Lean's output at 8 MiB):
    # a proof that floods its messages must not make the verifier hold gigabytes.
    max_reply_bytes_per_proof = 64 * 1024 * 1024

    def __init__(self, url: str, *, batch_size: int = 8, retries: int = 2, api_key: str | None = None) -> None:
        self.url = url.rstrip("/")
        if not self.url.endswith("/verify"):
            self.url += "/verify"
        self.batch_size = batch_size
        self.retries = retries
        self.api_key = api_key

    def _post(self, payload: dict, timeout_s: float) -> dict:
        limit = self.max_reply_bytes_per_proof * max(1, len(payload["codes"]))
        body = json.dumps(payload).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=timeout_s) as reply:
                    data = reply.read(limit + 1)
                if len(data) > limit:
                    raise _ReplyTooLarge(limit)
                return json.loads(data.decode("utf-8"))
            except urllib.error.HTTPError as exc:
                last = exc
                if exc.code < 500:
                    raise LeanUnavailable(
                        f"kimina-lean-server at {self.url} refused the request: HTTP {exc.code}"
                    ) from exc
            except (urllib.error.URLError, OSError, json.JSONDecodeError) as exc:
                last = exc
            time.sleep(min(2.0, 0.25 * 2**attempt))
        raise LeanUnavailable(
            f"kimina-lean-server at {self.url} cannot be reached ({type(last).__name__}: {last}); start it "
            "(https://github.com/project-numina/kimina-lean-server: "
            "`docker run -p 8000:8000 projectnumina/kimina-lean-server`) "
            "or pass lean_backend='local' with a Lean project"
        )

    def check(self, prepared: Prepared, *, allow_native: bool, timeout_s: float) -> Verdict:
        return self.check_many([prepared], allow_native=allow_native, timeout_s=timeout_s)[0]

    def check_many(
        self,
        items: list[Prepared],
        *,
        allow_native: bool,
        timeout_s: float,
        budgets_s: Sequence[float] | None = None,
    ) -> list[Verdict]:
        """``budgets_s``: each proof's own budget (what layer 1 left of ``proof_timeout_s``), else
        ``timeout_s`` for every one. The server takes one timeout (whole seconds) a request, so a batch
        is given the largest of its proofs' budgets, rounded down: no proof runs past the largest
        remaining budget in its batch (before round 14 every batch got the whole ``proof_timeout_s``)."""
        budgets = list(budgets_s) if budgets_s is not None else [timeout_s] * len(items)
        if len(budgets) != len(items):
            raise ValueError(f"{len(items)} proofs but {len(budgets)} budgets")
        out: list[Verdict] = []
        for at in range(0, len(items), self.batch_size):
            batch = items[at : at + self.batch_size]
            batch_s = max(budgets[at : at + self.batch_size])
            files = [assemble_file(p, audit_nonce(p)) for p in batch]
            payload = {
                # "code" is the field of current servers, "proof" of early ones; each ignores the other.
                "codes": [{"custom_id": str(i), "code": f[0], "proof": f[0]} for i, f in enumerate(files)],
                "timeout": int(max(1, batch_s)),
                "infotree_type": None,
                "disable_cache": False,
            }
            try:
                reply = self._post(payload, batch_s * len(batch) + 30)
                results = {r.custom_id: r for r in parse_kimina(reply)}
            except _ReplyTooLarge as exc:
                if len(batch) > 1:  # one proof flooded: each alone (with its own budget), so the others are judged
                    out.extend(
                        v
                        for p, b in zip(batch, budgets[at : at + self.batch_size])
                        for v in self.check_many([p], allow_native=allow_native, timeout_s=b)
                    )
                    continue
                out.append(  # the completion's doing: never a verifier_error
                    Verdict.failure(
                        Reason.RUNTIME_ERROR,
                        details={"layer": "lean", "backend": "kimina", "rule": "output", "error": str(exc)},
                    )
                )
                continue
            except (LeanUnavailable, ProtocolError) as exc:
                out.extend(
                    Verdict.failure(Reason.VERIFIER_ERROR, details={"layer": "lean", "error": str(exc)}) for _ in batch
                )
                continue
            for i, (_text, (first, last), audit_offset, plan) in enumerate(files):
                out.append(judge_whole_file(results.get(str(i)), first, last, audit_offset, plan, allow_native))
        return out


class _ReplyTooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"kimina-lean-server's reply passed {limit:,} bytes and was not read further")


def judge_whole_file(
    result, first: int, last: int, audit_offset: int, plan: AuditPlan, allow_native: bool, *, backend: str = "kimina"
) -> Verdict:
    if result is None:
        return Verdict.failure(
            Reason.VERIFIER_ERROR, details={"layer": "lean", "error": "the server returned no result"}
        )
    verdict = check_kimina(result, line_offset=first - 1) if result.error or result.response is None else None
    if verdict is not None:
        return verdict
    resp = result.response
    outside = [m for m in resp.errors if m.pos is None or m.pos.line < first]
    if outside:
        return Verdict.failure(
            Reason.VERIFIER_ERROR,
            details={
                "layer": "lean",
                "error": f"the task's header or statement fails to elaborate: {outside[0].data[:300]}",
            },
        )
    verdict = check_response(restrict(resp, first, last), line_offset=first - 1)
    if verdict is not None:
        return verdict
    audit = restrict(resp, audit_offset, 10**9)
    verdict = judge_audit(plan, audit.messages, allow_native=allow_native, line_offset=audit_offset)
    return verdict if verdict is not None else Verdict.correct(details={"layer": "audit", "backend": backend})
