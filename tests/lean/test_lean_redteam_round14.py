"""Issue 26, round 14: a ``#`` word is a command wherever it stands when a keyword may begin it.

Round 13 judged a ``#`` word where a command may begin and let it be Mathlib's card notation (``#s``)
after a symbol or a word that takes a term (``exact``, ``calc``, ``:=``, ``(``, ``[``). But Lean's
tokenizer takes no notice of where a word stands: it reads the longest keyword of its token table
that begins the word, and ``#`` alone only when none does (measured on the 4.35 test kernel below:
``:= #printN.zero_add`` and ``(#printN.zero_add`` are a parse error and then ``#print N.zero_add``,
run). So ``exact #testx`` (Plausible's ``#test``, split by round 13's reading and then let through as
a term), ``≤ #leansearchx`` and a library command this layer does not list glued to a word
(``exact #foox``: ``#foo x`` where a library has ``#foo``) reached Lean. Every ``#`` command of Lean
and its libraries is ``#`` and a lowercase word, so a ``#`` word that begins with two lowercase ASCII
letters may be a keyword and is a command start at any position; ``#s``, ``#A``, ``#s₁``, ``#α``
cannot begin one and stay card notation where a term is left half-written.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rlvr_envs import Verdict
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import static_check
from tests.lean.test_lean_redteam_round5 import TASK, T
from tests.lean.test_lean_redteam_round6 import K_SIG, LEAN

# Where a term is left half-written (each passed layer 1 before round 14), x the glued word.
TERM_PLACES = {
    "after exact": T + "by\n  exact {}",
    "after :=": T + "{}",
    "after (": T + "h.trans ({})",
    "in a simp list": T + "by simp [h, {}]",
    "after ≤": T + "by\n  have : 1 ≤ {} := le_refl _\n  exact h.symm",
    "after calc": T + "by\n  calc {} = 1 := rfl",
    "after fun =>": T + "by\n  exact (fun _ => {}) 0",
    "in an anonymous constructor": T + "by\n  exact ⟨h, {}⟩",
    "after <|": T + "by\n  exact id <| {}",
    "after using": T + "by\n  simpa using {}",
    "after show": T + "by\n  show {}\n  exact h.symm",
    "after from": T + "by\n  have := from {}\n  exact h.symm",
}
GLUED_WORDS = {
    "a listed keyword glued (#test)": "#testx",
    "a listed keyword glued (#sample, a digit)": "#sample0",
    "a listed keyword glued (#leansearch)": "#leansearchx",
    "a read-only keyword glued (#check)": "#checkx",
    "an unknown library keyword glued": "#foox",
    "an unknown word with an underscore": "#frob_lemma",
    "an unknown word, dotted": "#norm_castx.y",
    "an unknown word, two letters": "#zz",
    "an unknown word with a Latin-1 letter": "#mkü",
}


@pytest.mark.parametrize("word", sorted(GLUED_WORDS))
@pytest.mark.parametrize("place", sorted(TERM_PLACES))
def test_a_word_a_keyword_may_begin_is_a_command_where_a_term_is_expected(place, word):
    code = TERM_PLACES[place].format(GLUED_WORDS[word])
    verdict = static_check(TASK, f"```lean4\n{code}\n```", LeanPolicy())
    assert isinstance(verdict, Verdict), (place, word)
    assert verdict.details.get("rule") == "hash_command", (place, word, verdict.details)


# Mathlib's card notation (Finset.card, Cardinal.mk): no keyword can begin these, wherever they stand.
CARD_NOTATION = ["#s", "#t", "#A", "#S", "#s'", "#s₁", "#α", "#G.edgeFinset", "#s.filter"]


@pytest.mark.parametrize("word", CARD_NOTATION)
@pytest.mark.parametrize("place", sorted(TERM_PLACES))
def test_card_notation_stays_a_term(place, word):
    code = TERM_PLACES[place].format(word)
    assert isinstance(static_check(TASK, code, LeanPolicy()), Prepared), (place, word)


@pytest.mark.parametrize(
    "code",
    [
        T + "by\n  have : #(s ∪ t) ≤ #s + #t := card_union_le s t\n  exact h.symm",
        T + "by\n  have : #{x ∈ s | x = a} ≤ #s := card_filter_le s _\n  exact h.symm",
        T + "by\n  have : #[1, 2].size = 2 := rfl\n  exact h.symm",  # an array literal
        T + "by\n  have : #(univ : Finset (Fin 2)) = 2 := rfl\n  exact h.symm",  # how `#univ` is written now
        T + "h.symm #check Nat.succ",  # a read-only command: Lean runs it, harmless
        T + "h.symm\n#print axioms Nat.succ",
    ],
    ids=["union", "filter", "array", "univ in brackets", "read-only mid-line", "print axioms"],
)
def test_other_honest_hash_uses_pass(code):
    assert isinstance(static_check(TASK, code, LeanPolicy()), Prepared), code


@pytest.mark.lean
@pytest.mark.live
@pytest.mark.skipif(LEAN is None, reason="no Lean test kernel")
def test_on_the_kernel_a_keyword_glued_where_a_term_is_expected_runs_as_a_command(tmp_path):
    prelude = (Path(__file__).parent / "fixtures" / "Prelude.lean").read_text()
    for body in ("#printN.zero_add", "(#printN.zero_add)"):
        source = tmp_path / "t.lean"
        source.write_text(f"{prelude}\n{K_SIG} := {body}\n")
        run = subprocess.run([str(LEAN), str(source)], capture_output=True, text=True, timeout=60)
        out = run.stdout + run.stderr
        # the term ends at the keyword (a parse error), then `#print N.zero_add` runs and prints
        assert "unexpected token '#print'" in out and "theorem N.zero_add" in out, (body, out[-2000:])
        refused = static_check(TASK, T + body, LeanPolicy())
        assert isinstance(refused, Verdict) and refused.details.get("rule") == "hash_command", body
