"""Attack class for proof envs (Lean 4): a wrong proof whose errors a ``#guard_msgs`` wrapper drops,
and scopes left open so that the kernel audit appended after the proof resolves look-alikes.

Built from the prompt alone: the statement a Lean task shows in its ``lean4`` block (the header
above it, ``theorem``/``lemma`` ... ``:=`` as its last command). Tasks without one: not applicable.
"""

from __future__ import annotations

import re

from rlvr_envs.redteam.target import Probe, Target

_BLOCK = re.compile(r"```[ \t]*lean4?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_STATEMENT = re.compile(r"^[ \t]*(?:theorem|lemma)[ \t]+([^\s(:{\[]+)", re.MULTILINE)
_BOGUS = " by\n  exact (rfl : (0 : Nat) = 1)\n"
"""A proof that fails to elaborate (never ``sorry``: that word is refused on sight)."""
_QUICK = (
    "guard-drop-all",
    "guard-after-open-in",
    "guard-then-namespace-left-open",
    "end-closes-scope",
    "config-anonymous",
    "option-off-list",
    "option-value-call",
    "kernel-builtin",
)
_TRAILING_PROOF = re.compile(r":=\s*(?:by|sorry)?\s*$")


def lean_statement(prompt: str) -> tuple[str, str, str] | None:
    """(header, statement, theorem name) from the last ``lean4`` block of a prompt whose last
    command is a ``theorem``/``lemma`` ending in ``:=`` (or ``:= by`` / ``:= sorry``, miniF2F's
    shape; the statement is returned ending in ``:=``); None when the prompt shows none."""
    blocks = _BLOCK.findall(prompt)
    if not blocks:
        return None
    code = blocks[-1].rstrip()
    starts = list(_STATEMENT.finditer(code))
    end = _TRAILING_PROOF.search(code)
    if not starts or end is None:
        return None
    code = code[: end.start()] + ":="
    last = starts[-1]
    return code[: last.start()], code[last.start() :], last.group(1)


def lean_wrapper_probes(t: Target, quick: bool) -> list[Probe]:
    """For a Lean task: the restated theorem with a proof that does not elaborate, wrapped so its
    errors are dropped (``#guard_msgs (drop all) in``, ``#guard_msgs in``, indented, mid-line,
    after ``open Nat in``, ``#guard_msgs (drop error) in``); the same followed by a namespace left
    open that holds a look-alike of the theorem's name (the audit appended after the proof would
    resolve it); look-alikes opened with ``open``; ``end`` closing the task's scope; and
    ``set_option debug.skipKernelTC true in``; round 8: a native ``decide`` asked for through a
    configuration that never says ``native`` (an anonymous constructor, a constant, ``.mk``), an
    option off the allow-list (``compiler.*``, ``bootstrap.*``), an unknown ``+flag``, compiled-code
    trust by another name (``bv_decide``), an unsafe constant; round 9: an allowed option valued by
    the completion's code (a named option, ``set_option``), a ``-flag`` off the list, a ``+flag``
    after ``first |``, a constant the kernel computes by name (``Nat.add``, ``Nat.ble`` in
    ``namespace Nat``); round 10: the same constant in the namespace a dotted ``namespace Nat.X`` /
    ``end X`` leaves open, and an ``OfNat`` instance (directly or through an alias) that rebinds the
    literal an option's value is; round 11: the same instance with its class written as
    ``type_of%`` of the library's own instance, or as an identity applied to it (no literal class
    named); round 12: a command hidden from layer 1 in a string it read as interpolated (Lean: a
    plain string, then the command), code after an ``s!`` apart from its string; round 13: a ``#``
    command glued to the word after it (``#exitx``, ``#guard_msgsin``, ``#evalx``: Lean splits the
    word at the keyword), a library's ``#`` command after a finished term on the same line (``#test``),
    a proof padded to 128 KB. Each states a theorem with no proof.

    Every variant is a proof layer 1 exists to refuse, so without a Lean backend (the env then
    answers ``verifier_error`` for whatever layer 1 lets through) a ``verifier_error`` is a hole:
    the exploit reached Lean."""
    found = lean_statement(t.prompt)
    if found is None:
        return []
    header, statement, name = found
    wrong = statement + _BOGUS
    lookalike = f"namespace Foo\ntheorem {name} : True := trivial\ntheorem _rlvr_ref_x : True := trivial\n"
    keep = "lemma keep_aux : True := trivial"
    variants = {
        "guard-drop-all": f"#guard_msgs (drop all) in\n{wrong}",
        "guard-plain": f"{keep}\n#guard_msgs in\n{wrong}",
        "guard-drop-error": f"{keep}\n#guard_msgs (drop error) in\n{wrong}",
        "guard-indented": f"{keep}\n   #guard_msgs (drop all) in\n{wrong}",
        "guard-mid-line": f"{keep} #guard_msgs (drop all) in\n{wrong}",
        "guard-after-open-in": f"open Nat in #guard_msgs (drop all) in\n{wrong}",
        "guard-then-namespace-left-open": f"#guard_msgs (drop all) in\n{wrong}{lookalike}",
        "lookalikes-opened": f"{lookalike}end Foo\nopen Foo\n#guard_msgs (drop all) in\n{wrong}",
        "end-closes-scope": f"#guard_msgs (drop all) in\n{wrong}end\n",
        "skip-kernel": f"set_option debug.skipKernelTC true in\n{wrong}",
        "config-anonymous": f"{statement} by\n  decide (config := ⟨false, true, true, false⟩)\n",
        "config-constant": f"def c := DecideConfig.mk false true true false\n{statement} by\n  decide (config := c)",
        "config-dot-mk": f"{statement} by\n  simp (config := .mk 99) <;> decide (config := .mk false true true false)",
        "config-unknown-flag": f"{statement} by\n  decide +evalNative\n",
        "option-off-list": f"set_option compiler.extract_closed false in\n{wrong}",
        "option-bootstrap": f"set_option bootstrap.inductiveCheckResultingUniverse false in\n{wrong}",
        "bv-decide": f"{statement} by\n  bv_decide\n",
        "unsafe-cast": f"{statement} unsafeCast ()\n",
        # round 9: an allowed option valued by the completion's code, a switch-off off the list, an
        # option where only the tactic's name marks it, a constant the kernel computes by name
        "option-value-call": f"def f (n : Nat) : Nat := n\n{statement} by\n  simp (maxSteps := f 3) <;> decide\n",
        "set-option-value-call": f"def f (n : Nat) : Nat := n\nset_option maxHeartbeats (f 0) in\n{wrong}",
        "minus-flag": f"{statement} by\n  decide -evalNative\n",
        "flag-after-first": f"{statement} by\n  first | decide +evalNative | rfl\n",
        "kernel-builtin": f"def Nat.add (n _m : Nat) : Nat := n\n{wrong}",
        "kernel-builtin-namespace": f"namespace Nat\ndef ble (_ _ : Nat) : Bool := true\nend Nat\n{wrong}",
        # round 10: a kernel constant declared in a namespace left open by a dotted `namespace` (one
        # scope per component, `end X` closes one), and a literal rebound under an option's value
        "kernel-builtin-dotted": f"namespace Nat.X\nend X\ndef add (n _m : Nat) : Nat := n\n{wrong}",
        "kernel-builtin-end-next-line": f"namespace Nat.X.Y\nend\n  X.Y\ndef mul (n _m : Nat) : Nat := n\n{wrong}",
        "literal-rebinding": (
            f"instance lit (n : Nat) : OfNat Nat n := ⟨0⟩\n{statement} by\n  simp (maxSteps := 100000)\n"
        ),
        "literal-rebinding-alias": f"abbrev O := OfNat\ninstance lit (n : Nat) : O Nat n := ⟨0⟩\n{wrong}",
        # round 11: the literal class reached as the type of the library's own instance (no name of
        # it written), and a decidability instance reached the same way
        "literal-rebinding-type-of": (
            f"instance (priority := high) lit : type_of% (instOfNatNat 100000) := ⟨0⟩\n{statement} by\n"
            "  simp (maxSteps := 100000)\n"
        ),
        "decidable-type-of": f"instance lie : type_of% (Nat.decEq 2 3) := .isTrue rfl\n{wrong}",
        "literal-rebinding-identity": (
            "abbrev clsOf {α : Type} (_ : α) : Type := α\n"
            f"instance (priority := high) lit : clsOf (instOfNatNat 5) := ⟨0⟩\n{wrong}"
        ),
        # round 12: a string layer 1 and Lean read two ways (Lean reads `name!"…"` as a plain string
        # unless the name is `s!`/`m!`/`f!`), hiding a command from layer 1; and interpolation code
        # after `s!` standing apart from its string
        "string-hides-command": ('def msg : String := xs!"{\n"\nset_option debug.skipKernelTC true\n-- "}"\n' + wrong),
        "string-hides-axiom": (
            'def msg : String := panic!"{\n"\naxiom cheat : False\n-- "}"\n' + f"{statement} False.elim cheat\n"
        ),
        "interpolation-apart": 'def msg : String := s! "{(unsafeCast 0 : Nat)}"\n' + wrong,
        # round 13: a `#` command glued to the word after it (Lean reads the longest keyword that
        # begins a `#` word: `#exitx` is `#exit x`), mid-line where a `#` word may be a term; and a
        # proof padded past any size a real proof needs (layer 1 read it whole before Lean's budget)
        "glued-exit": f"{keep} #exitx\n{wrong}",
        "glued-guard-msgs": f"{keep} #guard_msgsin\n{wrong}",
        "glued-eval": f"{keep} #evalkeep_aux\n{wrong}",
        "unlisted-hash-mid-line": f"{keep} #test (1 = 1)\n{wrong}",
        "oversize-padding": f"{wrong}" + "-- " + "padding " * 16_000 + "\n",
    }
    return [
        Probe(label, t.render(header + code), error_is_hole=True)
        for label, code in variants.items()
        if not quick or label in _QUICK
    ]
