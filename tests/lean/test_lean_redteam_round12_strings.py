"""Issue 26, round 12 (continued): strings and doc comments that Lean and layer 1 read differently.

Layer 1's tokenizer decides what is code, a string or a comment before any rule reads the tokens,
so where it and Lean disagree a completion shows one text to layer 1 and another to Lean: in a
reference file the reference's false theorem to layer 1 and a weaker theorem of the same name to
Lean (``ok`` 1.0 on the 4.35 kernel, default policy); in a statement task, any command hidden from
layer 1. Mended by reading as Lean reads (``rlvr_lean.tokens``) and by refusing a string that
could end at two places (``format_error``).
"""

from __future__ import annotations

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import static_check
from tests.lean.test_lean_redteam_round6 import LEAN, PRELUDE, kernel
from tests.lean.test_lean_redteam_round12 import DEF_THEN_NAMESPACE, _task

# --- strings that Lean and layer 1 read differently -------------------------------------------
# Layer 1 read any `name!"…"` as an interpolated string (`{…}` parts are code); Lean reads one only
# after `s!`/`m!`/`f!` (and keywords such as `throwError`), and a plain string otherwise. A plain
# string whose `{` opens a code part that does not close inside it ends elsewhere read the other
# way: what one reader takes for a string the other takes for commands. Each row passed layer 1
# before (the command after the first quote was hidden from it); now `format_error`.
HIDE = {
    "a reference theorem shown to layer 1, a weaker one to Lean (panic!)": (
        DEF_THEN_NAMESPACE.replace("namespace double\n\n", "").replace("end double\n", ""),
        'panic!"{\ntheorem two_add (n : ℕ) : Nat.add 2 n = n + 2 := "\n'
        'theorem two_add (n : ℕ) : True := trivial\n-- "}"',
    ),
    "a hidden set_option after a name ending in s!": (
        None,
        'def msg : String := xs!"{\n"\nset_option debug.skipKernelTC true\n-- "}"\n' + "{T}h.symm",
    ),
    "a hidden axiom after a name ending in !": (
        None,
        'def msg : String := foo!"{\n"\naxiom cheat : False\n-- "}"\n' + "{T}h.symm",
    ),
}


@pytest.mark.parametrize("name", sorted(HIDE))
def test_a_string_read_two_ways_is_refused(name):
    from tests.lean.test_lean_redteam_round5 import TASK as STATEMENT_TASK
    from tests.lean.test_lean_redteam_round5 import T

    reference, code = HIDE[name]
    if reference is None:
        task, completion = STATEMENT_TASK, code.replace("{T}", T)
    else:
        task = _task(reference)
        completion = reference.replace("(n : ℕ) : ℕ := sorry", f"(n : ℕ) : ℕ := {code}", 1)
        completion = completion.split("theorem two_add (n : ℕ) : Nat.add 2 n = n + 2 := sorry")[0]
    verdict = static_check(task, f"```lean4\n{completion}\n```", LeanPolicy())
    assert not isinstance(verdict, Prepared) and verdict.reason is Reason.FORMAT_ERROR, verdict


@pytest.mark.parametrize(
    "text",
    [
        's!"{x} and {y}"',
        's!"{ "}" ++ toString x}"',
        '"a {b} c"',
        '"{}"',
        'panic! "no braces"',
        'm!"{x}" ++ "{y}"',
        'f!"{(1 : ℕ)}"',
    ],
)
def test_strings_read_one_way_pass(text):
    from tests.lean.test_lean_redteam_round5 import TASK as STATEMENT_TASK
    from tests.lean.test_lean_redteam_round5 import T

    completion = f"def msg := {text}\n{T}h.symm"
    assert isinstance(static_check(STATEMENT_TASK, f"```lean4\n{completion}\n```", LeanPolicy()), Prepared)


# `panic!` as Init elaborates it, for the prelude-only kernel (no Init): the reference's own text.
K_PANIC = (
    PRELUDE
    + """
instance : Inhabited N := Inhabited.mk N.zero
noncomputable def panicWithPosWithDecl {α : Sort u} [Inhabited α] (_ _ : String) (_ _ : Nat) (_ : String) : α :=
  Inhabited.default
noncomputable def f : N := sorry
theorem hard : Eq (N.succ N.zero) N.zero := sorry
"""
)


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_a_string_read_two_ways_paid_on_the_kernel_and_is_refused():
    from rlvr_lean.verifier import LeanVerifier

    # Lean: `panic!` then the plain string up to `:= "`, then `theorem hard : True`; layer 1 before:
    # an interpolated string whose code part held the reference's false `theorem hard` and a string
    cheat = K_PANIC.replace(
        "noncomputable def f : N := sorry\ntheorem hard : Eq (N.succ N.zero) N.zero := sorry",
        'noncomputable def f : N := panic!"{\ntheorem hard : Eq (N.succ N.zero) N.zero := "\n'
        'theorem hard : True := True.intro\n-- "}"',
    )
    verifier = LeanVerifier(backend="file", lean_bin=LEAN)
    try:
        verdict = verifier.verify(Task(id="k12p", prompt="p", answer={"reference": K_PANIC}), f"```lean4\n{cheat}\n```")
        assert verdict.reward == 0.0 and verdict.reason is Reason.FORMAT_ERROR, verdict  # `ok` 1.0 before
    finally:
        verifier.close()


# `/--` opens a doc comment whose body Lean reads from after the third character, so `/--/` does
# not close itself: Lean skips everything up to the next `-/` (here hidden in a line comment),
# which layer 1 read as code. A reference command could so be shown to layer 1 and not to Lean.
DOC_HIDDEN = "/--/\ndef k : ℕ := 3\n-- -/\n"


def test_a_doc_comment_is_read_as_lean_reads_it():
    from rlvr_lean.tokens import tokenize

    assert [t.text for t in tokenize(DOC_HIDDEN + "theorem y : True := trivial")] == [
        "theorem",
        "y",
        ":",
        "True",
        ":=",
        "trivial",
    ]
    assert [t.text for t in tokenize("/-- doc -/ def x := 1 /-! mod -/ /---/ /- /--/ -/ y")] == [
        "def",
        "x",
        ":=",
        "1",
        "y",
    ]


def test_a_reference_command_hidden_from_lean_in_a_doc_comment_is_drift():
    reference = "import Mathlib\n\ndef k : ℕ := 3\n\ntheorem k3 : k = 3 := sorry\n"
    completion = reference.replace("def k : ℕ := 3\n", DOC_HIDDEN).replace(":= sorry", ":= rfl")
    verdict = static_check(_task(reference), f"```lean4\n{completion}\n```", LeanPolicy())
    assert not isinstance(verdict, Prepared) and verdict.details["rule"] == "reference_drift", verdict


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_lean_reads_a_doc_comment_up_to_the_next_close():
    from rlvr_lean.file_backend import FileBackend

    text = (
        PRELUDE
        + "\n/--/\ntheorem x : False := sorryAx False Bool.false\n-- -/\ntheorem y : True := True.intro\n#print x\n"
    )
    run = FileBackend(LEAN).run_file(text, timeout_s=30)
    assert "Unknown constant `x`" in run.out, run.out[-2000:]  # `x` was inside Lean's doc comment


# Interpolated strings whose code layer 1 did not read: `s!` apart from its string (Lean reads
# `s! "…{code}…"` as interpolated; layer 1 read a plain string), and the meta-level keywords that
# read one (`throwError "…{code}…"`: which keywords do cannot be known, and proofs never write them).
# Each passed layer 1 before.
INTERPOLATED_CODE = {
    "s! apart from its string": ('def msg : String := s! "{sorry}"\n{T}h.symm', "sorry"),
    "m! on the next line": ('def msg := m!\n  "{(sorry : ℕ)}"\n{T}h.symm', "sorry"),
    "s! and a comment before its string": ('def msg : String := s! /- c -/ "{sorry}"\n{T}h.symm', "sorry"),
    "f! and a line comment before its string": ('def msg := f! -- c\n  "{sorry}"\n{T}h.symm', "sorry"),
    "throwError": ('def fail := throwError "{x}"\n{T}h.symm', "meta_api"),
    "logInfo": ('def note := logInfo "done"\n{T}h.symm', "meta_api"),
    "dbg_trace": ('def t (n : ℕ) : ℕ := dbg_trace "{n}"; n\n{T}h.symm', "meta_api"),
}


@pytest.mark.parametrize("name", sorted(INTERPOLATED_CODE))
def test_code_in_interpolated_strings_is_read(name):
    from tests.lean.test_lean_redteam_round5 import T, assert_refused

    code, rule = INTERPOLATED_CODE[name]
    assert_refused(code.replace("{T}", T), rule)


# Identifier characters: Lean 4.35 reads far fewer than Python's Unicode letters (measured on the test
# kernel over every letter or digit to U+2FFF and the mathematical alphanumerics: the tokenizer now
# agrees on all 7,369). Before, a modifier letter such as Mathlib's postfix `ᶜ` joined the name it
# touched, so `sorryᶜ` (Lean: `sorry`, then `ᶜ`) passed the `sorry` rule.
LEAN_NAME_CHARS = "éß℃℘⅀εϐἀ𝓝𝔸ℝΩ"
NOT_LEAN_NAME_CHARS = "а中ᵀᶜˣʰⁿµªǅ𝟘λ"


@pytest.mark.parametrize("char", list(LEAN_NAME_CHARS + NOT_LEAN_NAME_CHARS))
def test_name_characters_are_lean_s(char):
    from rlvr_lean.tokens import tokenize

    whole = [t.text for t in tokenize(f"x{char}y")] == [f"x{char}y"]
    assert whole is (char in LEAN_NAME_CHARS)


def test_a_postfix_letter_does_not_hide_sorry():
    from tests.lean.test_lean_redteam_round5 import T, assert_refused

    assert_refused(T + "by\n  exact (sorryᶜ)ᶜ", "sorry")


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_lean_reads_the_same_name_characters():
    import json

    from rlvr_lean.file_backend import FileBackend

    chars = LEAN_NAME_CHARS + NOT_LEAN_NAME_CHARS
    head = "prelude\ninductive Nat : Type where\n  | zero : Nat\n"
    text = head + "".join(f"def x{i}{c}y : Nat := Nat.zero\n" for i, c in enumerate(chars))
    run = FileBackend(LEAN).run_file(text, timeout_s=30)
    refused = {json.loads(line)["pos"]["line"] - 4 for line in run.out.splitlines() if '"severity":"error"' in line}
    assert {c for i, c in enumerate(chars) if i not in refused} == set(LEAN_NAME_CHARS), run.out[-2000:]
