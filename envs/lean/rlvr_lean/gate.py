"""The pay gate every backend's pass goes through: kernel replay, or a policy that needs none.

A pass from layers 2 and 3 means "Lean's elaborator, in this process, accepted the file and the
audit read clean answers". What the kernel replay (``rlvr_lean.replay``) adds is that every
declaration of the file is type-checked by the kernel again in a process that ran none of the
completion's code, so a declaration that reached the environment past the kernel (meta code,
``debug.skipKernelTC``, a REPL whose environment a previous command tampered with, a server that
answers wrongly) is not paid. Only the file backend writes the module it checked, so before
round 11 only its passes had that protection; the REPL and kimina backends paid on their own word.

Now every pass goes through ``PayGate.finish``, whatever the backend (``replay=`` of
``LeanVerifier``):

- ``"auto"`` (default): the file backend replays where its Lean supports it (4.35's C ABI). A
  REPL or kimina pass is checked again by a file backend with replay when a ``lean`` for it is
  known (``lean_bin=`` / ``RLVR_LEAN_BIN``, or the toolchain a local project's ``lean-toolchain``
  names, with ``lean_path=`` for its imports): paid only if that agrees (a refusal, a Lean error
  or a timeout there is the verdict). Without one, or where the re-check cannot run at all (a
  ``verifier_error``: its Lean cannot load the header's imports), it is paid on layer 1's word,
  as the file backend pays where its replay cannot load the imports, and ``details["replay"]``
  says so.
- ``"require"``: a pass whose file was not replayed (no ``lean`` for it, an unsupported Lean,
  imports that could not be loaded) is never paid: ``verifier_error``, rule ``replay_required``
  (an infrastructure failure, not a wrong proof).
- ``"off"``: no replay anywhere.

And in every mode, where no replay ran, the policy cannot be relaxed past what replay backs:
a completion that passed layer 1 only because ``allow_rules`` switched off a rule whose second
line is the replay (``REPLAY_BACKED``: meta code, elaborator attributes, unknown attributes,
unsafe options, ...) is not paid (``verifier_error``, rule ``replay_required``).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from rlvr_envs import Reason, Verdict
from rlvr_lean.backends import Backend
from rlvr_lean.rules import LeanPolicy

MODES = ("auto", "require", "off")
REPLAY_BACKED = frozenset(
    # rules that stop code which could add a declaration the kernel never checked (or change what
    # Lean's elaborator answers): where no replay runs, they are the only line, so they hold
    "meta_code meta_api initialize elab_attribute builtin_attribute init_attribute extension_attribute "
    "unknown_attribute aesop_tactic_rule unsafe_option hash_command tactic_config exit".split()
)
_REPLAYED = re.compile(r"^\d+ constants")


def replayed(verdict: Verdict) -> bool:
    """Whether a passed verdict's file was replayed by the kernel (``details["replay"]``)."""
    return bool(_REPLAYED.match(str((verdict.details or {}).get("replay", ""))))


def project_lean(project: str | None) -> str | None:
    """The ``lean`` of the toolchain a Lean project pins (``lean-toolchain``: ``owner/repo:version``,
    installed by elan under ``~/.elan/toolchains/owner--repo---version``), when it exists."""
    if not project:
        return None
    try:
        with open(os.path.join(project, "lean-toolchain"), encoding="utf-8") as fh:
            pinned = fh.read(200).strip()
    except OSError:
        return None
    folder = pinned.replace("/", "--").replace(":", "---")
    if not folder or os.sep in folder or folder.startswith("."):
        return None
    home = os.environ.get("ELAN_HOME") or os.path.expanduser("~/.elan")
    lean = os.path.join(home, "toolchains", folder, "bin", "lean")
    return lean if os.access(lean, os.X_OK) else None


def _refuse(why: str, backend: str) -> Verdict:
    return Verdict.failure(
        Reason.VERIFIER_ERROR,
        details={"layer": "replay", "rule": "replay_required", "backend": backend, "error": why},
    )


class PayGate:
    """What a backend's pass must still satisfy before it is paid (see the module's text).

    Args:
        backend: the backend whose passes come here (its ``name``).
        mode: ``"auto"``, ``"require"`` or ``"off"``.
        replayer: for a backend without a replay of its own, a file backend with replay on, which
            checks the same file again (None: none available; ``why_none`` says why).
        policy: the verifier's policy (its ``allow_rules`` decide whether the policy gate applies).
    """

    def __init__(
        self,
        backend: str,
        mode: str,
        *,
        replayer: Backend | None = None,
        why_none: str = "",
        policy: LeanPolicy | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"replay must be one of {MODES}, got {mode!r}")
        self.backend, self.mode, self.replayer, self.why_none = backend, mode, replayer, why_none
        policy = policy or LeanPolicy()
        relaxed = policy.allow_rules & REPLAY_BACKED
        # the same policy with every replay-backed rule back on: judged only where no replay ran
        self.strict = dataclasses.replace(policy, allow_rules=policy.allow_rules - REPLAY_BACKED) if relaxed else None

    def finish(
        self,
        verdict: Verdict,
        recheck: Callable[[], Verdict] | None,
        strict_check: Callable[[LeanPolicy], Verdict | None],
    ) -> Verdict:
        """The verdict to pay. ``recheck``: the same file through ``replayer`` (None when there is
        none); ``strict_check(policy)``: layer 1 again under ``policy``, a refusal or None."""
        if not verdict.passed:
            return verdict
        if self.mode != "off" and not replayed(verdict) and recheck is not None:
            second = recheck()
            if second.reason is Reason.VERIFIER_ERROR:
                # the re-check could not run (its Lean cannot load the header's imports: no
                # `lean_path=`; a sandbox failure): as the file backend's own replay skipped over
                # imports it cannot load, the pass stands on layer 1 (below); `require` refuses it
                error = str((second.details or {}).get("error", ""))[:200]
                verdict = verdict.model_copy(
                    update={"details": {**(verdict.details or {}), "replay": f"skipped (the re-check failed: {error})"}}
                )
            elif not second.passed:
                # the file, checked again in a fresh sandboxed Lean and replayed by the kernel, is
                # refused: the first backend's pass is not paid (its environment or its answers lied)
                marked = {**(second.details or {}), "gate": "replay", "first_backend": self.backend}
                return second.model_copy(update={"details": marked})
            else:
                replay = f"{(second.details or {}).get('replay')} (file)"
                verdict = verdict.model_copy(update={"details": {**(verdict.details or {}), "replay": replay}})
        if replayed(verdict):
            return verdict
        why = str((verdict.details or {}).get("replay") or self.why_none or "no kernel replay ran")
        if self.mode == "require":
            return _refuse(f"a kernel replay is required and none ran: {why}", self.backend)
        if self.strict is not None:
            refused = strict_check(self.strict)
            rule = (refused.details or {}).get("rule") if refused is not None else None
            if rule in REPLAY_BACKED:
                return _refuse(
                    f"the policy allows rule `{rule}`, whose second line is the kernel replay, and no replay "
                    f"ran here ({why}): this completion needs it",
                    self.backend,
                )
        details: Mapping[str, Any] = verdict.details or {}
        if "replay" not in details:
            verdict = verdict.model_copy(update={"details": {**details, "replay": f"not run ({why})"[:300]}})
        return verdict
