"""Entry point of the ``lean`` plugin: registers the family's ids with rlvr-envs (nothing imported).

Versions (a change that alters any reward of an honest proof bumps the version; the old one stays
resolvable):

* ``-v9``: issue 26's fourteenth round. A ``#`` word a command keyword may begin (``#`` and two
  lowercase ASCII letters: every Lean and library ``#`` command's shape) is a command start wherever
  it stands, as Lean's tokenizer reads it (on the 4.35 kernel ``:= #printN.zero_add`` runs
  ``#print``): ``exact #testx``, ``exact #foox`` were let through as card notation. Kimina batches
  get what layer 1 left of each proof's budget, as the per-proof backends did. Honest proofs that
  change: Mathlib's card notation of a lowercase name of two or more letters where a term is
  expected (``exact #univ``) now scores 0 (write ``#(univ)``); 0 of the 436 labelled-valid
  proof shapes in the shared cases change.
* ``-v8`` (deprecated): issue 26's thirteenth round. Layer 1 is bounded: a completion holding more than
  ``max_code_chars`` (100,000) characters of Lean beyond the task's own text is ``format_error``
  (rule ``size``, the limit named) before it is read, and layer 1's time comes off the sample's
  ``proof_timeout_s``. A ``#`` word is read as Lean reads it, the longest command keyword that begins
  it (``#exitx`` is ``#exit x``; it reached Lean unseen and stopped the file before the audit:
  ``verifier_error`` on the 4.35 kernel, now ``exit``); a ``#`` word off the read-only list is judged
  wherever a command may begin, mid-line after a finished term too (``h.symm #test p``). Honest proofs
  that change: one past the cap, or with Mathlib's ``#s`` as an argument after a finished term, now
  scores 0 (the longest labelled-valid proof is 2,451 characters); 0 of the 436 labelled-valid
  proof shapes in the shared cases change (0 refused before and after).
* ``-v7`` (deprecated): issue 26's twelfth round. A reference file's theorems are audited by the full names Lean
  gives them: scopes are followed as Lean follows them (``namespace A.B`` then ``end B`` leaves ``A``
  open; a ``mutual`` block's ``end`` closes the block, not the namespace around it); both dropped the
  namespace, so an honest proof of a later theorem was audited under a name that did not exist and
  scored 0 (``missing_constant``; on the 4.35 kernel, 0 before and 1.0 after). A reference helper
  (``allow_reference_helpers``) that Lean's name resolution prefers to what a later reference
  statement names (``def N.add`` inside the reference's ``namespace Demo`` captures ``N.add``; a
  ``def B.double`` captures the field notation ``b.double`` that meant the parent's ``A.double``;
  ``def m`` captures a name the reference leaves auto-bound), and so is a fill's ``where``/``let rec``
  part that does the same (``def two := … where N.add …`` then ``namespace two``: default policy)
  is refused (``helper_shadowing``): it made a false theorem true by ``rfl`` and paid 1.0 on the
  kernel. Layer 1 reads strings and doc comments as Lean does (interpolation only after
  ``s!``/``m!``/``f!``; a string that could end at two places is ``format_error``; ``/--/`` opens a doc
  comment): ``panic!"{…"`` showed a reference's false theorem to layer 1 and a weaker one to Lean (1.0
  on the kernel, default policy). Honest proofs that change: the reference proofs above now pass;
  a string holding a ``{`` that does not close inside it, or a proof naming ``throwError``/``logInfo``/
  ``dbg_trace``, now scores 0; a helper named so that
  a later reference name would resolve to it now scores 0; 0 of the 436 labelled-valid proof
  shapes in the shared cases change (0 refused before and after).
* ``-v6`` (deprecated): issue 26's eleventh round. ``literal_rebinding`` follows the aliases the task's own
  header and statement make (``abbrev O := OfNat`` in the header, then ``instance : O ℕ 5`` in the
  completion) and reads an instance's class from its signature, where ``type_of%``, a library
  instance of a literal class (``instOfNatNat``, ``Int.instNegInt``, ``Zero.toOfNat0``) and a name
  with a literal class as a component (``@OfNat.mk``) count as naming one (each proved ``5 = 0`` by
  ``rfl`` on the 4.35 kernel); a reference file's fill may hold a term only (a command after it on
  the same line, an ``instance`` no helper check saw, changed what a later theorem meant); every
  backend's pass goes through the kernel-replay pay gate (``rlvr_lean.gate``, option ``replay``).
  Honest proofs that change: a named argument after a field access of a parenthesised term
  (``(h).rec (motive := …)``) was read as a tactic option and refused, now passes; an instance whose
  signature writes ``type_of%`` or a library instance of a literal class, or a reference fill with a
  declaration after its term, now scores 0; 0 of the 436 labelled-valid proof shapes in the shared
  cases change.
* ``-v5`` (deprecated): issue 26's tenth round. A completion's declarations are named as Lean names them: in
  the namespaces the task's header leaves open, one scope per component (``namespace Nat.X`` then
  ``end X`` leaves ``Nat`` open; ``end`` reads its name on the next line too), so ``def add`` under a
  header's ``namespace Nat`` is the kernel constant ``Nat.add`` and is refused (it proved ``False``
  with no axiom and scored 1.0 on the 4.35 kernel); the ``scope`` rule counts components the same
  way. A completion may not declare an instance of a class through which Lean elaborates a literal
  (``OfNat``, ``OfScientific``, ``Neg``, ``NatCast``, ``IntCast``, ``AtLeastTwo``, or a name it
  derived from one: ``abbrev O := OfNat``): it rebinds what a literal, option values included,
  means (``5 = 0`` by ``rfl`` on the kernel). Honest proofs that change: one that declares such an
  instance (for any type) now scores 0; helpers inside ``namespace A.B … end B … end A`` now pass
  (the old count refused the second ``end``); 0 of the 436 labelled-valid proof shapes in the
  shared cases change.
* ``-v4`` (deprecated): issue 26's ninth round. An option's *value* is read by allow-list as its name is: a named
  option after a tactic (``simp (maxSteps := V)``, ``decide (kernel := V)``, ``instance (priority :=
  V)``) and ``set_option NAME V`` take literals only (``maxSteps := f 3`` ran code the completion
  defined while the proof elaborated), except options whose value is a tactic (``disch``,
  ``discharger``) or rule-set names (``rule_sets``); a ``-flag`` switch-off is read as an option
  (unless the word before takes a term: ``use -x``) and must be on the list; options are read after
  every tactic word known to take them wherever it stands (``first | decide +x``, ``(decide +x)``).
  A completion may not declare a constant the kernel computes with by name (``Nat.add``, ``Nat.ble``,
  ``String.mk``, ...: under a ``prelude`` header ``def Nat.add (n _ : Nat) : Nat := n`` proved
  ``False`` with no axiom on the 4.35 kernel). The file backend replays every declaration of a file
  that passed through the kernel in a second process (``rlvr_lean.replay``; modules without
  imports in -v4, with imports since -v5; Lean 4.35's C ABI). Honest proofs that change: an option
  valued by anything but a literal (``(maxSteps := 2 * 10^5)``) or a ``-flag`` off the list now
  scores 0 (0 of the 436 labelled-valid proof shapes in the shared cases).
* ``-v3`` (deprecated): issue 26's eighth round. What a completion configures is read by allow-list: a tactic's
  configuration value must be a literal ``{ field := literal }`` over allowed fields (a native
  ``decide`` asked for by an anonymous constructor, ``.mk``, a constant, ``{ c with }`` passed),
  named options and ``+flags`` after a tactic word must be on the same list
  (``rlvr_lean.options.CONFIG_OPTIONS``), ``set_option`` takes only allow-listed options (limits,
  ``pp.*``, ``trace.*``, ``linter.*``, ...; ``compiler.*``, ``bootstrap.*``, ``interpreter.*`` were
  accepted); ``bv_decide``/``bv_check``/``ofReduceNat``, ``extern``/``implemented_by`` outside an
  attribute and unsafe constants by name are refused. The audit's check theorem carries a nonce
  keyed by a per-process secret and its line must hold exactly one answer about exactly that name;
  the file backend sends the file on a pipe. Honest proofs that change: a proof that sets an option
  off the list, passes a configuration other than a literal (``simp (config := cfg)``), or names
  a tactic option or ``+flag`` off the list now scores 0 (0 of the 436 labelled-valid proof shapes
  in the shared cases).
* ``-v2`` (deprecated): issue 26's seventh round. A completion may not name Lean's meta-programming API
  (``Lean.*`` / ``open Lean``, ``Aesop.*``, ``Qq``, the elaborator monads ``TacticM``/``MetaM``/...,
  ``Mathlib.Tactic.*``, ``IO``): meta code it defined ran through an aesop ``tactic`` rule
  (``add_aesop_rules … tactic forge``, ``aesop (add safe tactic forge)``, which are refused too) and
  could add declarations the kernel never checks, and an ``IO`` closure in a tactic's config (a
  ``linarith`` preprocessor) could print a forged audit answer and stop Lean; library variants of
  denied commands spelled with a ``?``/``!`` suffix (Mathlib's ``variable?``) are the command;
  the file backend's verdict on a flood of messages cut before the proof was judged is
  ``runtime_error`` (rule ``output``), not ``verifier_error``, and so is a REPL response past
  64 MiB (it was held whole). Honest proofs that change: a proof
  that names ``Lean.*`` (``open Lean in``, ``Lean.Omega…``), ``Aesop.*`` or ``IO`` now scores 0.
* ``-v1`` (deprecated): issue 26's sixth round. ``#`` commands are accepted by an allowlist of
  those that only read (``#check``, ``#print``, ``#reduce``, ...) where a command may begin, and none that wraps
  the next command (``#guard_msgs (drop all) in`` dropped a bogus proof's errors); the completion
  must leave every ``namespace`` / ``mutual`` it opens closed and close nothing it did not open,
  wherever written (counted by keyword over the whole completion, not by the helpers' first
  words; a ``section`` may stay open: it names nothing); the kernel
  audit names its constants from the root, judges the axioms of the check theorem itself and
  every answer of an ambiguous ``#print axioms``. Honest proofs that change: helpers wrapped in
  ``noncomputable section … end`` and helpers in a ``section`` left open now pass (the old count
  read ``noncomputable`` and refused the first, and refused the second); a proof with another
  ``#`` command at a line start (``#guard_msgs``, ``#time in``) now scores 0.
* ``-v0`` (deprecated): the ids as they were, resolvable for old configs and results. ``-v0``
  to ``-v8`` run the same verifier as ``-v9``: the old rewards included proofs that prove
  nothing, which a policy learns to exploit, so they are not reproduced.
"""

from __future__ import annotations

from rlvr_envs import register

LATEST = 9
_DEPRECATED = {
    0: "v0 let `#guard_msgs (drop all) in` hide a bogus proof's errors and let the code steer the kernel "
    "audit's names through a namespace it left open; it now runs the v9 checks: use {id}-v9",
    1: "v1 let a completion define meta code and run it through an aesop `tactic` rule (which can add "
    "declarations the kernel never checks); it now runs the v9 checks: use {id}-v9",
    2: "v2 let a tactic configuration ask for native evaluation without the word `native` and accepted any "
    "`set_option` but debug.*; it now runs the v9 checks: use {id}-v9",
    3: "v3 let an allowed tactic option take any value (code the completion defined ran while the proof "
    "elaborated) and left `-flag`s unread; it now runs the v9 checks: use {id}-v9",
    4: "v4 named a completion's declarations without the namespaces the task's header left open (a kernel "
    "constant such as `Nat.add` could be redefined) and let it rebind what a literal means (an `OfNat` "
    "instance); it now runs the v9 checks: use {id}-v9",
    5: "v5 missed a literal class reached through the task's own alias or without its name (`type_of%`, a "
    "library instance), a declaration after a reference fill's term, and refused `(h).rec (motive := …)`; "
    "it now runs the v9 checks: use {id}-v9",
    6: "v6 audited a reference file's theorems after `namespace A.B … end B` or a `mutual` block under a name "
    "that did not exist (honest proofs scored 0) and let a reference helper capture a name a later statement "
    "writes; it now runs the v9 checks: use {id}-v9",
    7: "v7 read completions of any size before Lean's budget began (a megabyte took seconds) and read a `#` "
    "word glued to what follows (`#exitx`, Lean's `#exit x`) as a word no rule knew; it now runs the v9 "
    "checks: use {id}-v9",
    8: "v8 let a `#` word a command keyword may begin stand where a term is expected (`exact #foox`, an "
    "unlisted library command, and `exact #testx` reached Lean, which runs such a word as a command) and "
    "gave kimina batches the whole proof budget; it now runs the v9 checks: use {id}-v9",
}


def register_envs() -> None:
    for version in range(LATEST + 1):
        _register_version(version)


def _register_version(version: int) -> None:
    def deprecated(name: str) -> str | None:
        return _DEPRECATED[version].format(id=name) if version in _DEPRECATED else None

    register(
        f"lean-v{version}",
        "rlvr_lean.envs:LeanEnv",
        description="Your own Lean 4 tasks: statements (header + theorem) or reference files with sorry",
        data_source="user data (data=...)",
        user_data=True,
        difficulty_fields=("label",),
        deprecated=deprecated("lean"),
    )
    register(
        f"lean-minif2f-v{version}",
        "rlvr_lean.envs:MiniF2FEnv",
        size=244,
        data_source="cat-searcher/minif2f-lean4 (or data=, e.g. DeepSeek-Prover-V1.5 datasets/minif2f.jsonl)",
        difficulty_fields=("label", "config.source", "config.level"),
        description="miniF2F in Lean 4 (valid/test splits of 244): amc, aime, imo, mathd level 1-5",
        deprecated=deprecated("lean-minif2f"),
    )
    register(
        f"lean-workbook-v{version}",
        "rlvr_lean.envs:LeanWorkbookEnv",
        size=None,
        data_source="internlm/Lean-Workbook (or data=)",
        difficulty_fields=("label",),
        description="Lean Workbook: autoformalised competition statements (proved ones by default)",
        deprecated=deprecated("lean-workbook"),
    )
