"""The Lean family's verifier: static policy, then the Lean check, then the kernel-level audit.

Task schema (``Task.answer``), either shape:

- statement: ``{"header": "import Mathlib ...", "statement": "theorem foo ... :="}``
- reference file: ``{"reference": "import Mathlib\\n def f ... := sorry\\n theorem t ... := sorry"}``

Either may add ``"allow_native_decide": true`` (the task allows ``native_decide``).

Without a backend (no Lean project, no server) every completion the static layer accepts gets
``verifier_error`` with what to install: never a reward for an unchecked proof, never a 0 that
a trainer would read as a wrong proof.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_lean.backends import Backend, KiminaBackend, LeanUnavailable
from rlvr_lean.gate import PayGate, project_lean
from rlvr_lean.policy import LeanPolicy, Violation
from rlvr_lean.reference import parse_reference, prepare_reference
from rlvr_lean.shape import Prepared, TaskFormatError, extract_lean, parse_statement, prepare_statement
from rlvr_lean.tokens import LexError

BACKENDS = ("auto", "local", "kimina", "file", "none")
NO_BACKEND = (
    "no Lean backend is configured, so this proof cannot be checked: pass lean_project= (a Lean project "
    "with the REPL built; or set RLVR_LEAN_PROJECT) or kimina_url= (a kimina-lean-server; or set "
    "RLVR_KIMINA_URL). `rlvr-envs lean doctor` says what is missing."
)


def task_shape(answer: Any) -> str:
    """``"statement"`` or ``"reference"``; ``TaskFormatError`` for anything else."""
    if isinstance(answer, Mapping):
        if isinstance(answer.get("reference"), str):
            return "reference"
        if isinstance(answer.get("statement"), str):
            return "statement"
    raise TaskFormatError("a Lean task's answer must be {'header', 'statement'} or {'reference'}")


def static_check(task: Task, completion: str, policy: LeanPolicy) -> Prepared | Verdict:
    """Layer 1 alone: the prepared code for Lean, or the verdict that ends verification here."""
    try:
        shape = task_shape(task.answer)
        if task.answer.get("allow_native_decide") and not policy.allow_native_decide:
            policy = dataclasses.replace(policy, allow_native_decide=True)
        if shape == "statement":
            target: Any = parse_statement(str(task.answer.get("header") or ""), task.answer["statement"])
        else:
            target = parse_reference(task.answer["reference"])
    except TaskFormatError as exc:
        return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"task {task.id!r}: {exc}"})
    lean = extract_lean(completion)
    if lean is None:
        return Verdict.failure(Reason.NO_ANSWER)
    # Layer 1 costs time linear in the code's length, spent before Lean's budget starts: bounded by
    # a size (beyond the task's own text, which a completion may echo) rather than read whole.
    own = (
        task.answer["reference"]
        if shape == "reference"
        else str(task.answer.get("header") or "") + task.answer["statement"]
    )
    limit = policy.max_code_chars + len(own)
    if len(lean) > limit:
        return Verdict.failure(
            Reason.FORMAT_ERROR,
            extracted=lean[:2000],
            details={
                "layer": "static",
                "rule": "size",
                "limit": limit,
                "error": f"the Lean code holds {len(lean):,} characters, over the limit of {limit:,} "
                f"(max_code_chars={policy.max_code_chars:,} beyond the task's own {len(own):,}); not read",
            },
        )
    try:
        result = (
            prepare_statement(target, lean, policy) if shape == "statement" else prepare_reference(target, lean, policy)
        )
    except LexError as exc:
        return Verdict.failure(
            Reason.FORMAT_ERROR, extracted=lean[:2000], details={"layer": "static", "error": str(exc)}
        )
    if result is None:
        return Verdict.failure(Reason.NO_ANSWER, extracted=lean[:2000])
    if isinstance(result, Violation):
        return Verdict.failure(result.reason, extracted=lean[:2000], details=result.details())
    return result


class LeanVerifier(Verifier):
    """Scores 1 when the proof passes all three layers.

    Args:
        backend: ``"local"`` (REPL processes in ``lean_project``), ``"kimina"`` (``kimina_url``),
            ``"none"`` (static layer only; everything else is ``verifier_error``) or ``"auto"``
            (kimina when a URL is given, else local when a project is given, else none).
        lean_project, repl_path, repl_command: where the local REPL runs (see ``LocalBackend``).
        kimina_url, kimina_batch_size, kimina_api_key: the server backend.
        lean_bin, lean_path, file_options: the file backend (``"file"``: one sandboxed
            ``lean --json`` per proof, no REPL; ``lean_bin`` or ``RLVR_LEAN_BIN``; ``max_rss_mb``
            bounds each process; ``file_options`` go to ``FileBackend``).
        proof_timeout_s: wall-clock budget of one proof (the REPL is killed and replaced past it).
        header_timeout_s, max_repls, max_uses, max_rss_mb, pickle_dir: the local pool.
        replay: ``"auto"``, ``"require"`` or ``"off"``: the kernel replay every backend's pass goes
            through (``rlvr_lean.gate``; a REPL or kimina pass is checked again by a file backend with
            replay on ``lean_bin``, or the toolchain the project pins, when one is known).
        policy: a ``LeanPolicy``, or its fields as keywords (``allow_native_decide``, ...).
    """

    def __init__(
        self,
        *,
        backend: str = "auto",
        lean_project: str | None = None,
        repl_path: str | None = None,
        repl_command: Sequence[str] | None = None,
        kimina_url: str | None = None,
        kimina_batch_size: int = 8,
        kimina_api_key: str | None = None,
        proof_timeout_s: float = 60.0,
        header_timeout_s: float = 300.0,
        max_repls: int = 2,
        max_uses: int = 200,
        max_rss_mb: float = 12_000,
        pickle_dir: str | None = None,
        lean_bin: str | None = None,
        lean_path: str | None = None,
        file_options: Mapping[str, Any] | None = None,
        replay: str = "auto",
        policy: LeanPolicy | None = None,
        **policy_options: Any,
    ) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        if proof_timeout_s <= 0:
            raise ValueError(f"proof_timeout_s must be positive, got {proof_timeout_s}")
        if policy is not None and policy_options:
            raise TypeError("pass either policy= or its fields, not both")
        self.policy = policy if policy is not None else LeanPolicy(**policy_options)
        kimina_url = kimina_url or os.environ.get("RLVR_KIMINA_URL") or None
        lean_project = lean_project or os.environ.get("RLVR_LEAN_PROJECT") or None
        pickle_dir = pickle_dir or os.environ.get("RLVR_LEAN_PICKLE_DIR") or None
        if backend == "auto":
            backend = "kimina" if kimina_url else ("local" if lean_project or repl_command else "none")
        lean_bin = lean_bin or os.environ.get("RLVR_LEAN_BIN") or None
        if backend == "file" and not lean_bin:
            raise ValueError("backend='file' needs lean_bin= (or RLVR_LEAN_BIN)")
        if backend == "kimina" and not kimina_url:
            raise ValueError("backend='kimina' needs kimina_url= (or RLVR_KIMINA_URL)")
        self.backend_name = backend
        self.replay = replay
        self.options: dict[str, Any] = {
            "lean_project": lean_project,
            "repl_path": repl_path,
            "repl_command": list(repl_command) if repl_command is not None else None,
            "kimina_url": kimina_url,
            "kimina_batch_size": kimina_batch_size,
            "kimina_api_key": kimina_api_key,
            "header_timeout_s": header_timeout_s,
            "max_repls": max_repls,
            "max_uses": max_uses,
            "max_rss_mb": max_rss_mb,
            "pickle_dir": pickle_dir,
            "lean_bin": lean_bin,
            "lean_path": lean_path,
            "file_options": dict(file_options or {}),
        }
        self.proof_timeout_s = proof_timeout_s
        # The pool's hard budget covers a header load and the proof; the proof budget is ours.
        self.time_budget_s = proof_timeout_s * 2 + header_timeout_s
        self._backend: Backend | None = None
        self._gate: PayGate | None = None
        self._replayer: Backend | None = None
        PayGate(backend, replay)  # the mode is checked here, at construction

    # The backend holds processes and sockets: it is made lazily and never pickled.
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_backend"] = None
        state["_gate"] = state["_replayer"] = None
        return state

    @property
    def backend(self) -> Backend | None:
        if self._backend is None and self.backend_name != "none":
            o = self.options
            if self.backend_name == "kimina":
                self._backend = KiminaBackend(
                    o["kimina_url"], batch_size=o["kimina_batch_size"], api_key=o["kimina_api_key"]
                )
            elif self.backend_name == "file":
                from rlvr_lean.file_backend import FileBackend

                options = dict(o["file_options"])
                if self.replay == "off":
                    options["replay"] = False
                self._backend = FileBackend(
                    o["lean_bin"], lean_path=o["lean_path"], max_rss_mb=o["max_rss_mb"], **options
                )
            else:
                from rlvr_lean.repl import LocalBackend

                self._backend = LocalBackend(
                    o["lean_project"],
                    repl_path=o["repl_path"],
                    command=o["repl_command"],
                    max_repls=o["max_repls"],
                    max_uses=o["max_uses"],
                    max_rss_mb=o["max_rss_mb"],
                    header_timeout_s=o["header_timeout_s"],
                    pickle_dir=o["pickle_dir"],
                )
        return self._backend

    @property
    def gate(self) -> PayGate:
        """What every pass of the backend must still satisfy (``rlvr_lean.gate``), made with it."""
        if self._gate is None:
            why_none = "replay='off'" if self.replay == "off" else ""
            if self.backend_name in ("local", "kimina") and self.replay != "off":
                why_none = self._make_replayer()
            elif self.backend_name == "file" and self.replay != "off":
                why_none = "the file backend's Lean has no replay (see details['replay'])"
            self._gate = PayGate(
                self.backend_name, self.replay, replayer=self._replayer, why_none=why_none, policy=self.policy
            )
        return self._gate

    def _make_replayer(self) -> str:
        """A file backend with replay on, for a backend that has none; why there is none otherwise."""
        o = self.options
        lean = o["lean_bin"] or project_lean(o["lean_project"] if self.backend_name == "local" else None)
        if lean is None:
            return (
                f"the {self.backend_name} backend has no kernel replay, and no `lean` is known to replay its "
                "passes (lean_bin= or RLVR_LEAN_BIN; a 4.35 toolchain)"
            )
        from rlvr_lean.file_backend import FileBackend

        options = {k: v for k, v in o["file_options"].items() if k != "replay"}
        try:
            self._replayer = FileBackend(
                lean, lean_path=o["lean_path"], max_rss_mb=o["max_rss_mb"], replay=True, **options
            )
        except LeanUnavailable as exc:
            return f"the {self.backend_name} backend has no kernel replay, and {lean} cannot replay: {exc}"[:300]
        return ""

    def _pay(self, task: Task, completion: str, prepared: Prepared, verdict: Verdict, native: bool) -> Verdict:
        """The backend's verdict through the pay gate (a pass re-checked with replay, or refused)."""
        gate = self.gate
        replayer = gate.replayer
        recheck = (
            # the file backend loads the header's imports itself (the REPL had them loaded): its budget too
            (lambda: replayer.check(prepared, allow_native=native, timeout_s=self.time_budget_s))
            if replayer is not None
            else None
        )

        def strict_check(policy: LeanPolicy) -> Verdict | None:
            again = static_check(task, completion, policy)
            return again if isinstance(again, Verdict) else None

        return self._finish(prepared, gate.finish(verdict, recheck, strict_check))

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
            self._backend = None
        if self._replayer is not None:
            self._replayer.close()
            self._replayer = None
            self._gate = None

    def _allow_native(self, task: Task) -> bool:
        return self.policy.allow_native_decide or bool(
            isinstance(task.answer, Mapping) and task.answer.get("allow_native_decide")
        )

    def _finish(self, prepared: Prepared, verdict: Verdict) -> Verdict:
        return verdict.model_copy(update={"extracted": prepared.extracted[:2000]})

    def verify(self, task: Task, completion: str) -> Verdict:
        if not isinstance(completion, str):
            return Verdict.failure(Reason.FORMAT_ERROR, details={"error": "completion is not a string"})
        started = time.monotonic()
        first = static_check(task, completion, self.policy)
        if isinstance(first, Verdict):
            return first
        backend = self.backend
        if backend is None:
            return Verdict.failure(
                Reason.VERIFIER_ERROR, extracted=first.extracted[:2000], details={"layer": "lean", "error": NO_BACKEND}
            )
        native = self._allow_native(task)
        left = self._left(started, time.monotonic())
        if isinstance(left, Verdict):
            return left
        verdict = backend.check(first, allow_native=native, timeout_s=left)
        return self._pay(task, completion, first, verdict, native)

    def _left(self, started: float, now: float) -> float | Verdict:
        """What is left of ``proof_timeout_s`` for Lean after layer 1 read the completion from
        ``started``: the sample's budget covers both layers, so a slow read shortens Lean's run
        rather than adding to it (and one past the whole budget is a timeout, Lean not run)."""
        left = self.proof_timeout_s - (now - started)
        if left <= 0:
            return Verdict.failure(
                Reason.TIMEOUT,
                details={
                    "layer": "static",
                    "error": f"layer 1 took {now - started:.3g} s of a {self.proof_timeout_s:g} s budget",
                },
            )
        return left

    def verify_many(
        self, tasks: Sequence[Task], completions: Sequence[str], *, workers: int | None = None
    ) -> list[Verdict]:
        """Static layer inline, then Lean for the rest: one batched request per server call, or
        ``max_repls`` proofs at a time on the local pool. Order is kept."""
        out: list[Verdict | None] = [None] * len(tasks)
        todo: list[tuple[int, Prepared, bool]] = []
        texts: dict[int, str] = {}
        read_s: dict[int, float] = {}  # layer 1's time per sample, taken from that sample's Lean budget
        for i, (task, completion) in enumerate(zip(tasks, completions)):
            if not isinstance(completion, str):
                out[i] = Verdict.failure(Reason.FORMAT_ERROR, details={"error": "completion is not a string"})
                continue
            started = time.monotonic()
            first = static_check(task, completion, self.policy)
            if isinstance(first, Verdict):
                out[i] = first
                continue
            left = self._left(started, time.monotonic())
            if isinstance(left, Verdict):
                out[i] = left
            else:
                todo.append((i, first, self._allow_native(task)))
                texts[i] = completion
                read_s[i] = self.proof_timeout_s - left
        backend = self.backend if todo else None
        if todo and backend is None:
            for i, prepared, _ in todo:
                out[i] = Verdict.failure(
                    Reason.VERIFIER_ERROR,
                    extracted=prepared.extracted[:2000],
                    details={"layer": "lean", "error": NO_BACKEND},
                )
        elif todo and backend is not None:
            from concurrent.futures import ThreadPoolExecutor

            checked: dict[int, Verdict] = {}
            _ = self.gate  # made once here, not by the threads below
            with ThreadPoolExecutor(max_workers=workers or self.options["max_repls"]) as pool:
                if isinstance(backend, KiminaBackend):
                    for native in (False, True):
                        group = [(i, p) for i, p, n in todo if n is native]
                        # each proof's budget is what its own layer 1 left (as on the per-proof backends)
                        verdicts = backend.check_many(
                            [p for _, p in group],
                            allow_native=native,
                            timeout_s=self.proof_timeout_s,
                            budgets_s=[self.proof_timeout_s - read_s[i] for i, _ in group],
                        )
                        checked.update((i, v) for (i, _), v in zip(group, verdicts))
                else:
                    futures = [
                        (i, pool.submit(backend.check, p, allow_native=n, timeout_s=self.proof_timeout_s - read_s[i]))
                        for i, p, n in todo
                    ]
                    checked.update((i, fut.result()) for i, fut in futures)
                # every pass through the pay gate (a re-check with replay runs here, in parallel)
                paid = [(i, pool.submit(self._pay, tasks[i], texts[i], p, checked[i], n)) for i, p, n in todo]
                for i, fut in paid:
                    out[i] = fut.result()
        return [v if v is not None else Verdict.failure(Reason.VERIFIER_ERROR) for v in out]
