"""One conformance suite for every Lean backend: the same scenarios, the same verdict contract.

- ``file``: the file backend on the real test kernel (Lean 4.35, prelude-only files), real code;
- ``repl``: the local REPL pool against the REPL stand-in (``repl_standin.py``: the REPL's
  protocol, not Lean), its scenarios spelled with the stand-in's markers;
- ``kimina``: the kimina backend against the stand-in HTTP server of ``test_lean_pool.py``.

A scenario a stand-in cannot express is skipped, saying so; each backend's extra behaviour
(header reuse, pickling, batching, retries) keeps its own tests.
"""

from __future__ import annotations

import shutil
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean import test_kernel
from rlvr_lean.backends import KiminaBackend
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.repl import LocalBackend
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import static_check
from tests.lean.test_lean_pool import STANDIN, _Kimina

LEAN = test_kernel.find()
PRELUDE = (Path(__file__).parent / "fixtures" / "Prelude.lean").read_text()
SIG = "theorem target (n : N) : Eq (N.add N.zero n) n"
STANDIN_SIG = "theorem foo (x : Nat) : x = x"
LOOP = (
    "noncomputable def two : N := N.succ (N.succ N.zero)\n"
    "noncomputable def ten : N := N.add (N.mul two (N.mul two two)) two\n"
    "noncomputable def big : N := N.mul (N.mul ten ten) (N.mul ten ten)\n"
    "set_option maxHeartbeats 0 in\nset_option maxRecDepth 1000000000 in\n"
    f"theorem spin : Eq (N.mul big big) (N.mul big (N.succ big)) := rfl\n{SIG} := N.zero_add n\n"
)
# What each backend is given for each scenario; None: the backend's stand-in cannot express it.
SPELLINGS: dict[str, dict[str, str | None]] = {
    "file": {
        "valid": f"{SIG} := N.zero_add n\n",
        "lean_error": f"{SIG} :=\n  N.zero_add True.intro\n",
        "new_axiom": f"axiom cheat : False\n{SIG} := False.rec (fun _ => _) cheat\n",
        "changed_statement": "theorem target (n : N) : Eq n n := rfl\n",
        "missing_theorem": "theorem other : True := True.intro\n",
        "timeout": LOOP,
    },
    "repl": {
        "valid": f"{STANDIN_SIG} := by rfl\n",
        "lean_error": f"{STANDIN_SIG} := by\n  STANDIN_ERROR\n",
        "new_axiom": f"{STANDIN_SIG} := by rfl -- STANDIN_AXIOM\n",
        "changed_statement": f"{STANDIN_SIG} := by rfl -- STANDIN_TYPE_CHANGE\n",
        "missing_theorem": "theorem other (x : Nat) : x = x := by rfl\n",
        "timeout": f"{STANDIN_SIG} := by STANDIN_SLEEP\n",
    },
    "kimina": {
        "valid": f"{STANDIN_SIG} := by rfl\n",
        "lean_error": f"{STANDIN_SIG} := by\n  STANDIN_ERROR\n",
        "new_axiom": f"{STANDIN_SIG} := by rfl -- STANDIN_AXIOM\n",
        "changed_statement": None,  # the HTTP stand-in does not compare types
        "missing_theorem": None,  # nor know which constants exist
        "timeout": f"{STANDIN_SIG} := by rfl -- STANDIN_SLEEP\n",
    },
}
# The contract: (reason, rule) every backend gives, and whether the error's position is reported.
CONTRACT = {
    "valid": (Reason.OK, None),
    "lean_error": (Reason.WRONG, "lean_error"),
    "new_axiom": (Reason.SANDBOX_VIOLATION, "axioms"),
    "changed_statement": (Reason.SANDBOX_VIOLATION, "statement_mismatch"),
    "missing_theorem": (Reason.WRONG, "missing_constant"),
    "timeout": (Reason.TIMEOUT, None),
}


def _task(kind: str) -> Task:
    if kind == "file":
        return Task(id="k", prompt="p", answer={"header": PRELUDE, "statement": f"{SIG} :="})
    return Task(id="foo", prompt="p", answer={"header": "import Mathlib\n\n", "statement": f"{STANDIN_SIG} :="})


def raw(kind: str, code: str) -> Prepared:
    base = static_check(_task(kind), "N.zero_add n" if kind == "file" else "by rfl", LeanPolicy())
    assert isinstance(base, Prepared), base
    return Prepared(base.header, code, base.audit_names, base.ref_declaration, base.ref_name, code)


@pytest.fixture(
    scope="module", params=[pytest.param("file", marks=[pytest.mark.lean, pytest.mark.live]), "kimina", "repl"]
)
def backend(request):
    kind = request.param
    server = None
    if kind == "file":
        if LEAN is None:
            pytest.skip(test_kernel.missing_reason())
        if shutil.which("bwrap") is None:
            pytest.skip("the file backend's sandbox needs bubblewrap")
        from rlvr_lean.file_backend import FileBackend

        made = FileBackend(LEAN)
    elif kind == "repl":
        made = LocalBackend(command=STANDIN, max_repls=1)
    else:
        _Kimina.requests, _Kimina.fail_first = [], 0
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Kimina)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        made = KiminaBackend(f"http://127.0.0.1:{server.server_address[1]}", retries=0)
    yield kind, made
    made.close()
    if server is not None:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("scenario", sorted(CONTRACT))
def test_every_backend_keeps_the_verdict_contract(backend, scenario):
    kind, made = backend
    code = SPELLINGS[kind][scenario]
    if code is None:
        pytest.skip(f"the {kind} stand-in cannot express {scenario}")
    budget = 3.0 if scenario == "timeout" else 30.0
    start = time.monotonic()
    verdict = made.check(raw(kind, code), allow_native=False, timeout_s=budget)
    reason, rule = CONTRACT[scenario]
    assert verdict.reason is reason, verdict
    assert verdict.details.get("rule") == rule, verdict.details
    assert verdict.passed is (reason is Reason.OK) and verdict.reward == (1.0 if reason is Reason.OK else 0.0)
    if scenario == "lean_error":
        assert verdict.details["pos"]["line"] == 2, verdict.details  # lines counted from the completion's code
    if scenario == "timeout":
        assert time.monotonic() - start < budget + 10
        # the backend recovers: the next check on it passes
        assert made.check(raw(kind, SPELLINGS[kind]["valid"] or ""), allow_native=False, timeout_s=30).passed
