"""Issue 26, round 13: layer 1 bounded by size and budget, and `#` words read as Lean reads them.

- **Layer 1's cost**: the static reading runs before Lean's budget starts, linear in the code's
  length but at ~2-6 µs of CPU a character: a 1 MB completion of nested parentheses took 5.5 s
  (``bench/lean_layer1_size.py``). A completion is now ``format_error`` (rule ``size``, the limit
  named) past ``max_code_chars`` (100,000) characters beyond the task's own text, before it is read;
  and what layer 1 took comes off the sample's ``proof_timeout_s`` (Lean gets the rest).
- **`#` words split where Lean splits them**: Lean's tokenizer reads a ``#`` word as the longest
  keyword that begins it (``#exitx`` is ``#exit x``, ``#evalé 1`` is ``#eval é 1``, on the 4.35
  kernel); layer 1 read the whole word, a word no rule knew, and mid-line a term (Mathlib's ``#s``),
  so ``#exit``/``#eval``/``#guard_msgs … in`` reached Lean unseen. On the kernel an honest proof
  followed by ``#exitx`` stopped the file before the audit: ``verifier_error``, an infrastructure
  failure from model output (a trainer skips such a sample or stops the run); now ``exit``. And a
  ``#`` word this layer does not list (``#test``, ``#sample``) after a finished term on the same line
  is a command to Lean: judged now wherever a command may begin, mid-line too (``calc #s``,
  ``exact #s``, ``[#s]`` stay Mathlib's card notation).
"""

from __future__ import annotations

import time

import pytest

from rlvr_envs import Reason, Task, Verdict
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.rules import MAX_CODE_CHARS
from rlvr_lean.shape import Prepared
from rlvr_lean.tokens import HASH_CMD, tokenize
from rlvr_lean.verifier import LeanVerifier, static_check
from tests.lean.test_lean_redteam_round5 import TASK, T
from tests.lean.test_lean_redteam_round6 import K_SIG, K_TASK, LEAN, _raw, kernel

REFERENCE = "import Mathlib\n\nnamespace Demo\n\ndef f (n : ℕ) : ℕ := sorry\n\ntheorem t (n : ℕ) : f n = f n := sorry\n\nend Demo\n"
R_TASK = Task(id="r13", prompt="p", answer={"reference": REFERENCE})


def _fill(term: str) -> str:
    return REFERENCE.replace("def f (n : ℕ) : ℕ := sorry", "def f (n : ℕ) : ℕ := n").replace(
        "f n = f n := sorry", "f n = f n := " + term
    )


def _rep(unit: str, size: int) -> str:
    return unit * (size // len(unit) + 1)


def _shapes(size: int) -> dict[str, str]:
    """Proof bodies of about ``size`` characters, one per shape that costs layer 1 differently."""
    half = size // 2
    return {
        "one huge term": "by\n  exact " + _rep("(h.trans (le_refl _)) ", size),
        "a long sum": "by\n  have : " + _rep("1 + ", size) + "1 = 1 := by norm_num\n  simp",
        "deep nesting": "by\n  exact " + "(" * half + "h" + ")" * half,
        "a long line comment": "by\n  -- " + "x" * size + "\n  simp",
        "nested block comments": "by\n  /- " + _rep("a /- b -/ ", size) + " -/\n  simp",
        "a long string": 'by\n  have : "' + "a" * size + '" = "a" := rfl\n  simp',
        "many strings": "by\n  have := " + _rep('"ab" ++ ', size) + '"c"\n  simp',
        "unicode identifiers": "by\n  have := " + _rep("αβγδ₁ + ", size) + "0\n  simp",
        "many tactics": "by\n" + _rep("  simp only [Nat.add_zero] at h ⊢\n", size) + "  simp",
        "one line": "by " + _rep("simp; ", size) + "simp",
    }


def _decls(size: int) -> dict[str, str]:
    """Whole completions of about ``size`` characters whose bulk is commands before the theorem."""
    statement = TASK.answer["statement"]
    return {
        "many small declarations": _rep("lemma aux (n : ℕ) : n + 0 = n := by simp\n", size) + T + "h.symm",
        "many opens": _rep("open Nat in\n", size) + statement + " h.symm",
        "many namespaces": _rep("namespace A\nend A\n", size) + T + "h.symm",
    }


OVER = MAX_CODE_CHARS + 20_000


@pytest.mark.parametrize("shape", sorted(_shapes(1000)))
def test_a_statement_completion_past_the_cap_is_refused_naming_the_limit(shape):
    body = _shapes(OVER)[shape]
    verdict = static_check(TASK, T + body, LeanPolicy())
    assert isinstance(verdict, Verdict) and verdict.reason is Reason.FORMAT_ERROR, (shape, verdict)
    assert verdict.details["rule"] == "size" and verdict.details["limit"] < len(T + body)
    assert "max_code_chars" in verdict.details["error"] and f"{verdict.details['limit']:,}" in verdict.details["error"]


@pytest.mark.parametrize("shape", sorted(_decls(1000)))
def test_many_commands_past_the_cap_are_refused(shape):
    verdict = static_check(TASK, _decls(OVER)[shape], LeanPolicy())
    assert isinstance(verdict, Verdict) and verdict.details.get("rule") == "size", (shape, verdict)


@pytest.mark.parametrize("shape", sorted(_shapes(1000)))
def test_a_reference_fill_past_the_cap_is_refused(shape):
    verdict = static_check(R_TASK, _fill(_shapes(OVER)[shape]), LeanPolicy())
    assert isinstance(verdict, Verdict) and verdict.details.get("rule") == "size", (shape, verdict)


def test_the_task_s_own_text_does_not_count_against_the_cap():
    # a header or reference that is itself long may be echoed whole
    long_header = TASK.answer["header"] + "".join(f"open Nat in\n-- {i:06d}\n" for i in range(12_000))
    task = Task(id="long", prompt="p", answer={"header": long_header, "statement": TASK.answer["statement"]})
    assert len(long_header) > MAX_CODE_CHARS
    echoed = long_header + TASK.answer["statement"] + " h.symm"
    assert isinstance(static_check(task, echoed, LeanPolicy()), Prepared)
    long_ref = REFERENCE.replace("namespace Demo\n", "namespace Demo\n" + "-- a comment line\n" * 7_000)
    ref_task = Task(id="longref", prompt="p", answer={"reference": long_ref})
    filled = long_ref.replace("def f (n : ℕ) : ℕ := sorry", "def f (n : ℕ) : ℕ := n").replace(
        "f n = f n := sorry", "f n = f n := rfl"
    )
    assert len(filled) > MAX_CODE_CHARS and isinstance(static_check(ref_task, filled, LeanPolicy()), Prepared)


def test_the_cap_is_an_option_and_honest_proofs_under_it_pass():
    body = _shapes(OVER)["many tactics"]
    assert isinstance(static_check(TASK, T + body, LeanPolicy(max_code_chars=OVER + 1_000)), Prepared)
    under = _shapes(MAX_CODE_CHARS - 2_000)["many tactics"]
    assert len(T + under) < MAX_CODE_CHARS and isinstance(static_check(TASK, T + under, LeanPolicy()), Prepared)
    with pytest.raises(ValueError, match="max_code_chars"):
        LeanPolicy(max_code_chars=0)


@pytest.mark.parametrize("shape", sorted(_shapes(1000)))
def test_a_megabyte_is_refused_without_being_read(shape):
    body = _shapes(1_000_000)[shape]
    started = time.process_time()
    verdict = static_check(TASK, f"```lean4\n{T}{body}\n```", LeanPolicy())
    spent = time.process_time() - started
    assert isinstance(verdict, Verdict) and verdict.details.get("rule") == "size"
    assert spent < 0.5, spent  # ~0.01 s here (extraction only); reading it took 2-5.5 s before


@pytest.mark.parametrize("shape", sorted(_shapes(1000)))
def test_a_completion_just_under_the_cap_is_read_within_a_second_or_so(shape):
    # what the cap bounds: the most layer 1 reads (~0.01-0.6 s of CPU here, linear in every shape)
    body = _shapes(MAX_CODE_CHARS - 5_000)[shape]
    started = time.process_time()
    verdict = static_check(TASK, T + body, LeanPolicy())
    spent = time.process_time() - started
    assert not (isinstance(verdict, Verdict) and verdict.details.get("rule") == "size"), verdict
    assert spent < 3.0, (shape, spent)


# --- layer 1's time comes off the sample's budget ------------------------------------------------


class _Recorder:
    """A backend that records the budget it is given and answers ``wrong``."""

    def __init__(self) -> None:
        self.budgets: list[float] = []

    def check(self, prepared: Prepared, *, allow_native: bool, timeout_s: float) -> Verdict:
        self.budgets.append(timeout_s)
        return Verdict.failure(Reason.WRONG, details={"layer": "lean"})

    def close(self) -> None:
        pass


def _slow_layer_one(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    from rlvr_lean import verifier

    real = verifier.static_check

    def slow(task: Task, completion: str, policy: LeanPolicy) -> Prepared | Verdict:
        time.sleep(seconds)
        return real(task, completion, policy)

    monkeypatch.setattr(verifier, "static_check", slow)


@pytest.mark.parametrize("many", [False, True])
def test_lean_gets_what_layer_one_left_of_the_budget(monkeypatch, many):
    recorder = _Recorder()
    lean = LeanVerifier(backend="none", proof_timeout_s=5.0)
    lean._backend = recorder
    _slow_layer_one(monkeypatch, 0.4)
    verdicts = lean.verify_many([TASK], [T + "h.symm"]) if many else [lean.verify(TASK, T + "h.symm")]
    assert verdicts[0].reason is Reason.WRONG and len(recorder.budgets) == 1
    assert 5.0 - 0.4 - 2.0 < recorder.budgets[0] <= 5.0 - 0.4, recorder.budgets  # before: 5.0, whatever layer 1 took


@pytest.mark.parametrize("many", [False, True])
def test_a_layer_one_past_the_whole_budget_is_a_timeout_and_lean_is_not_run(monkeypatch, many):
    recorder = _Recorder()
    lean = LeanVerifier(backend="none", proof_timeout_s=0.2)
    lean._backend = recorder
    _slow_layer_one(monkeypatch, 0.3)
    verdicts = lean.verify_many([TASK], [T + "h.symm"]) if many else [lean.verify(TASK, T + "h.symm")]
    assert verdicts[0].reason is Reason.TIMEOUT and verdicts[0].details["layer"] == "static", verdicts
    assert recorder.budgets == []


def test_the_lean_check_tool_also_gives_lean_what_layer_one_left(monkeypatch):
    from rlvr_envs.episodes import ToolContext
    from rlvr_lean import tools
    from rlvr_lean.tools import LeanCheckTool

    recorder = _Recorder()
    tool = LeanCheckTool(proof_timeout_s=5.0)
    tool.verifier._backend = recorder
    real = tools.static_check

    def slow(task: Task, completion: str, policy: LeanPolicy) -> Prepared | Verdict:
        time.sleep(0.4)
        return real(task, completion, policy)

    monkeypatch.setattr(tools, "static_check", slow)
    context = ToolContext(task=TASK, env_id="lean-v8", call_timeout_s=4.0, max_output_chars=4000)
    tool.open(context).call(proof="h.symm")
    assert len(recorder.budgets) == 1 and 4.0 - 0.5 - 0.4 - 2.0 < recorder.budgets[0] <= 4.0 - 0.5 - 0.4, (
        recorder.budgets
    )


# --- `#` words, read as Lean's tokenizer reads them ------------------------------------------------

# Each glued word is the command before it to Lean; every one passed layer 1 before round 13.
GLUED = {
    "#exit + a letter, after the proof": (T + "h.symm #exitx", "exit"),
    "#exit + an underscore": (T + "h.symm #exit_", "exit"),
    "#exit + a Latin-1 letter": (T + "h.symm #exité", "exit"),
    "#exit + a digit": (T + "h.symm #exit0", "exit"),
    "#exit after a closing parenthesis": (T + "(h.symm) #exitNow", "exit"),
    "#exit in a tactic block": (T + "by\n  exact h.symm #exitx", "exit"),
    "#exit after a semicolon": (T + "by simp [h]; exact h.symm #exitx", "exit"),
    "#eval + a Greek name": ("def α : Nat := 1\n" + T + "h.symm #evalα", "meta_code"),
    "#eval + a dotted name": (T + "h.symm #evalNat.succ 1", "meta_code"),
    "#eval! glued": (T + "h.symm #eval!x", "meta_code"),
    "#guard_msgs + in": (T + "h.symm #guard_msgsin\ntheorem u : True := trivial", "hash_command"),
    "#exec glued": (T + "h.symm #execx", "meta_code"),
    "#count_heartbeats + in": (T + "h.symm #count_heartbeatsin\ntheorem u : True := trivial", "hash_command"),
    # a command this layer does not list, after a finished term on the same line (Lean ends the term
    # at a command keyword): judged at line starts only before
    "Plausible's #test after the proof": (T + "h.symm #test (1 = 1)", "hash_command"),
    "#sample after a closing parenthesis": (T + "(h.symm) #sample Nat", "hash_command"),
    "#leansearch after a string": (T + 'by\n  have := "q" #leansearch "x"\n  exact h.symm', "hash_command"),
    "a read-only command glued to a name (an unknown word)": (T + "h.symm #checkNat.succ", "hash_command"),
}


@pytest.mark.parametrize("name", sorted(GLUED))
def test_a_command_glued_to_a_word_is_read_as_lean_reads_it(name):
    code, rule = GLUED[name]
    verdict = static_check(TASK, f"```lean4\n{code}\n```", LeanPolicy())
    assert isinstance(verdict, Verdict) and verdict.details.get("rule") == rule, (name, verdict)


HONEST_HASH = {
    "Mathlib's card notation": T + "by\n  have : #s ≤ #t := card_le_card hst\n  exact h.symm",
    "card notation after calc": T + "by\n  calc #s = 1 := rfl",
    "card notation after exact": T + "by\n  exact #s",
    "card notation in a simp list": T + "by simp [#s, h]",
    "a read-only command mid-line": T + "h.symm #check Nat.succ",
    "a read-only command at a line start": "#check Nat.succ\n" + T + "h.symm",
    "#print axioms": T + "h.symm\n#print axioms Nat.succ",
}


@pytest.mark.parametrize("name", sorted(HONEST_HASH))
def test_honest_hash_words_pass(name):
    assert isinstance(static_check(TASK, HONEST_HASH[name], LeanPolicy()), Prepared), name


def test_the_split_takes_the_longest_keyword_and_reads_the_rest_as_the_next_token():
    assert [(t.kind, t.text) for t in tokenize("#guard_msgsin #evalé #exit!x #check_x #s")] == [
        (HASH_CMD, "#guard_msgs"),
        ("ident", "in"),
        (HASH_CMD, "#eval"),
        ("ident", "é"),
        (HASH_CMD, "#exit"),
        ("symbol", "!"),
        ("ident", "x"),
        (HASH_CMD, "#check_x"),  # glued to a read-only command: an unknown word, judged as one
        (HASH_CMD, "#s"),
    ]


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_on_the_kernel_a_glued_exit_stops_the_file_and_layer_one_now_refuses_it():
    from rlvr_lean.file_backend import FileBackend

    backend = FileBackend(LEAN)
    verifier = LeanVerifier(backend="file", lean_bin=LEAN)
    try:
        # the static layer off: Lean reads `#exitx` as `#exit x`, the audit never runs
        reached = backend.check(_raw(f"{K_SIG} := N.zero_add n #exitx\n"), allow_native=False, timeout_s=30)
        assert reached.reason is Reason.VERIFIER_ERROR and "gave no answer" in reached.details["error"], reached
        # through the whole verifier: `verifier_error` before round 13, `exit` now
        refused = verifier.verify(K_TASK, "N.zero_add n #exitx")
        assert refused.reason is Reason.SANDBOX_VIOLATION and refused.details["rule"] == "exit", refused
        # a read-only command mid-line is one to Lean too: harmless, still paid
        assert verifier.verify(K_TASK, "N.zero_add n #print N.zero_add").reward == 1.0
        assert verifier.verify(K_TASK, "N.zero_add n").reward == 1.0
    finally:
        backend.close()
        verifier.close()
