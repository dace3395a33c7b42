"""The ``lean_check`` tool: static findings without Lean, Lean's messages on the test kernel.

The live tests run Lean 4.35's test kernel (prelude-only files, ``tests/lean/fixtures/Prelude.lean``)
through the file backend, as ``test_lean_kernel.py`` does, and skip saying what is missing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_envs import Reason, Task
from rlvr_envs.episodes import ToolContext, ToolError, get_tool
from rlvr_envs.episodes.testing import check_tool
from rlvr_lean.tools import LeanCheckTool, scrub
from tests.lean.test_lean_kernel import LEAN, LOOP, PRELUDE, STATEMENT, TASK
from tests.lean.test_lean_kernel import pytestmark as live  # lean, live, skipped without the kernel


def session(tool, task: Task = TASK, timeout_s: float = 20.0):
    return tool.open(ToolContext(task=task, env_id="lean-v8", call_timeout_s=timeout_s, max_output_chars=4000))


# -- static only (no Lean) ----------------------------------------------------------------------


@pytest.fixture
def static_tool(monkeypatch):
    for var in ("RLVR_LEAN_BIN", "RLVR_KIMINA_URL", "RLVR_LEAN_PROJECT"):
        monkeypatch.delenv(var, raising=False)
    return get_tool("lean_check")


def test_a_tool_made_with_options_keeps_its_own_verifier_over_the_envs(static_tool):
    from rlvr_lean.verifier import LeanVerifier

    env_verifier = LeanVerifier(proof_timeout_s=7.0)
    task = rlvr_envs.make("lean", data=[{"header": "", "statement": "theorem t : True"}]).tasks[0]
    context = ToolContext(task=task, env_id="lean-v8", call_timeout_s=5.0, max_output_chars=4000, verifier=env_verifier)
    assert static_tool.open(context).verifier is env_verifier
    configured = LeanCheckTool(proof_timeout_s=3.0)
    assert configured.open(context).verifier is configured.verifier


def test_the_entry_point_gives_a_static_only_tool_without_a_backend(static_tool):
    assert isinstance(static_tool, LeanCheckTool) and static_tool.verifier.backend is None
    assert "lean_check" in rlvr_envs.episodes.tool_names()


@pytest.mark.parametrize(
    ("proof", "found"),
    [
        ("sorry", "rule `sorry`"),
        ("axiom cheat : False\ntheorem target (n : N) : Eq (N.add N.zero n) n := cheat.elim", "rule `axiom`"),
        ("theorem target (n : N) : Eq n n := rfl", "rule `statement_drift`"),
        ("by native_decide", "rule `native_decide`"),
        ("/- unclosed", "format_error"),
    ],
)
def test_static_only_returns_the_policy_findings(static_tool, proof, found):
    out = session(static_tool).call(proof=proof)
    assert out.startswith("Static check (Lean not run): refused") and found in out, out


def test_static_only_says_lean_did_not_run_on_a_clean_proof(static_tool):
    out = session(static_tool).call(proof="N.zero_add n")
    assert "no problem found" in out and "not compiled" in out


@pytest.mark.parametrize("proof", ["", "x" * 200_000, "证明 ∀ n, n = n 🙂", "```lean4\n", "\x00\ud800"])
def test_hostile_proofs_get_a_string_quickly(static_tool, proof):
    start = time.monotonic()
    out = session(static_tool).call(proof=proof)
    assert isinstance(out, str) and out and time.monotonic() - start < 2


def test_a_task_that_is_not_lean_is_a_tool_error(static_tool):
    with pytest.raises(ToolError):
        session(static_tool, Task(id="m", prompt="1+1?", answer="2")).call(proof="rfl")


def test_internal_names_are_scrubbed():
    text = "type_of% @_rlvr_ref_ab12 vs _rlvr_check_ab12 and _rlvr_example_ff"
    assert "_rlvr_" not in scrub(text) and "the task's statement" in scrub(text)


def test_check_tool_passes(static_tool):
    check_tool(static_tool)


def test_a_static_only_episode(static_tool):
    env = rlvr_envs.make("lean", data=[{"header": PRELUDE, "statement": STATEMENT}], tools=["lean_check"], max_turns=4)
    with env:
        _obs, info = env.reset(options={"index": 0})
        assert [t["function"]["name"] for t in info["tools"]] == ["lean_check"]
        call = {"name": "lean_check", "arguments": {"proof": "by sorry"}}
        _obs, reward, terminated, _, info = env.step(f"<tool_call>{json.dumps(call)}</tool_call>")
        assert (reward, terminated) == (0.0, False)
        assert "rule `sorry`" in info["tool_messages"][0]["content"]
        _obs, reward, terminated, _, info = env.step("```lean4\nN.zero_add n\n```")
        # Without Lean the final answer is not a wrong proof: verifier_error, as single-turn.
        assert terminated and reward == 0.0 and info["verdict"].reason is Reason.VERIFIER_ERROR


# -- live: the Lean 4.35 test kernel -------------------------------------------------------------


@pytest.fixture(scope="module")
def kernel_tool():
    tool = LeanCheckTool(backend="file", lean_bin=LEAN)
    yield tool
    tool.close()


def _live(fn):
    for mark in reversed(live):
        fn = mark(fn)
    return fn


@_live
def test_a_wrong_proof_returns_lean_s_error(kernel_tool):
    out = session(kernel_tool).call(proof="rfl")
    assert out.startswith("The proof does not check yet"), out
    assert "error at line 1" in out and "definitional" in out and "Type mismatch" in out
    assert "_rlvr_" not in out


@_live
def test_a_right_proof_returns_success(kernel_tool):
    assert session(kernel_tool).call(proof="N.zero_add n").startswith("The proof checks")
    assert session(kernel_tool).call(proof=f"{STATEMENT} N.zero_add n").startswith("The proof checks")


@_live
def test_an_unfinished_term_shows_the_error_position_without_internal_names(kernel_tool):
    out = session(kernel_tool).call(proof="N.rec (motive := fun k => Eq (N.add N.zero k) k) rfl")
    assert "error at line" in out and "_rlvr_" not in out, out


@_live
def test_a_loop_is_stopped_at_the_call_s_budget_and_the_next_call_works(kernel_tool):
    s = session(kernel_tool, timeout_s=3.0)
    start = time.monotonic()
    out = s.call(proof=LOOP)
    assert "budget" in out and time.monotonic() - start < 3.0 + 2.0, out
    assert s.call(proof="N.zero_add n").startswith("The proof checks")


@_live
def test_check_tool_passes_on_the_kernel(kernel_tool):
    check_tool(kernel_tool)


@_live
def test_an_episode_with_lean_check_then_the_final_proof_scores_1(monkeypatch):
    # No RLVR_LEAN_BIN: the tool by name checks with the env's own verifier (its file backend).
    for var in ("RLVR_LEAN_BIN", "RLVR_KIMINA_URL", "RLVR_LEAN_PROJECT"):
        monkeypatch.delenv(var, raising=False)
    data = [{"header": PRELUDE, "statement": STATEMENT}]
    env = rlvr_envs.make("lean", data=data, backend="file", lean_bin=LEAN, tools=["lean_check"], max_turns=4)
    with env:
        _obs, info = env.reset(options={"index": 0})
        call = {"name": "lean_check", "arguments": {"proof": "rfl"}}
        _obs, reward, terminated, _, info = env.step(f"<tool_call>{json.dumps(call)}</tool_call>")
        content = info["tool_messages"][0]["content"]
        assert (reward, terminated) == (0.0, False) and "Type mismatch" in content, content
        call["arguments"] = {"proof": "N.zero_add n"}
        _obs, reward, terminated, _, info = env.step(f"<tool_call>{json.dumps(call)}</tool_call>")
        assert info["tool_messages"][0]["content"].startswith("The proof checks")
        _obs, reward, terminated, _, info = env.step("```lean4\nN.zero_add n\n```")
        assert (reward, terminated, info["verdict"].reason) == (1.0, True, Reason.OK)
        assert all("_rlvr_" not in str(m.get("content")) for m in info["messages"])
        env.reset(options={"index": 0})
        _obs, reward, terminated, _, info = env.step("```lean4\nrfl\n```")
        assert (reward, terminated, info["verdict"].reason) == (0.0, True, Reason.WRONG)
    env.env.verifier.close()


@_live
def test_the_readme_episode_example_runs(monkeypatch):
    import re

    root = Path(__file__).resolve().parents[2]
    text = (root / "envs" / "lean" / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Episodes\n") :]
    match = re.search(r"^```python\n(.*?)^```$", section, re.S | re.M)
    assert match is not None
    code = match.group(1).replace('".venv/lean-test-kernel/bin/lean"', repr(LEAN))
    monkeypatch.chdir(root)
    exec(compile(code, "envs/lean/README.md#Episodes", "exec"), {"__name__": "__main__"})


@_live
@pytest.mark.parametrize(
    "proof", ["x" * 200_000, "证明 🙂 ∀", "(" * 5000, "fun x => " * 2000 + "x", "N.zero_add n\n" * 3000, "\x00"]
)
def test_hostile_proofs_on_lean_get_a_bounded_reply_within_the_budget(kernel_tool, proof):
    start = time.monotonic()
    out = session(kernel_tool, timeout_s=5.0).call(proof=proof)
    assert time.monotonic() - start < 5.0 + 1.0
    # past the size cap (round 13) the static layer refuses it, naming the limit, before Lean runs
    expected = "Static check (Lean not run): refused, format_error" if len(proof) > 100_000 else "The proof does not"
    assert out.startswith(expected) and len(out) < 20 * 1600, out[:300]


@_live
def test_the_episode_conformance_kit_passes_on_the_kernel(kernel_tool):
    from rlvr_envs.episodes.testing import check_episode_env

    rows = [{"header": PRELUDE, "statement": STATEMENT}, {"header": PRELUDE, "statement": "theorem t : Not False :="}]
    env = rlvr_envs.make("lean", data=rows, backend="file", lean_bin=LEAN, tools=[kernel_tool], max_turns=4)
    with env:
        report = check_episode_env(env)
    assert report.episodes >= 2
