"""Real protocol traffic: the REPL's own test transcripts and kimina-lean-server's recorded replies.

Every recorded response parses into the response types, and the verdict computed from the
recorded response of each labelled case agrees with its label in ``lean_cases.jsonl``.
"""

from __future__ import annotations

import json

import pytest

from rlvr_envs import Reason
from rlvr_lean.backends import assemble_file, audit_plan, judge_audit, judge_whole_file
from rlvr_lean.protocol import (
    CommandResponse,
    Message,
    Pos,
    ProtocolError,
    ReplError,
    TacticResponse,
    check_kimina,
    check_response,
    parse_axioms,
    parse_kimina,
    parse_response,
    split_stream,
)
from rlvr_lean.shape import Prepared
from tests.helpers.data import read_jsonl, shared_path

TRANSCRIPTS = shared_path("lean_repl_transcripts")
KIMINA = shared_path("kimina_server_match")
CASES = {r["id"]: r for r in read_jsonl("lean_cases.jsonl")}
PAIRS = sorted(p for p in TRANSCRIPTS.rglob("*.in") if p.with_suffix(".expected.out").exists())


def _stream(path):
    return split_stream(path.read_text(encoding="utf-8"))


def test_every_transcript_parses_into_response_types():
    assert len(PAIRS) >= 70
    kinds: dict[str, int] = {}
    for path in PAIRS:
        requests = _stream(path)
        responses = [parse_response(o) for o in _stream(path.with_suffix(".expected.out"))]
        assert len(responses) == len(requests), path.name
        for request, response in zip(requests, responses):
            kinds[type(response).__name__] = kinds.get(type(response).__name__, 0) + 1
            if "cmd" in request and not isinstance(response, ReplError):
                assert isinstance(response, CommandResponse), (path.name, request)
            if "tactic" in request:
                assert isinstance(response, (TacticResponse, ReplError)), (path.name, request)
    assert kinds["CommandResponse"] > 100 and kinds["TacticResponse"] > 10 and kinds["ReplError"] >= 3


def test_recorded_verdicts_match_the_labels():
    checked = {True: 0, False: 0}
    for case_id, row in CASES.items():
        if not case_id.startswith("repl/test/"):
            continue
        rel, index = case_id.removeprefix("repl/test/").split("#")
        responses = _stream(TRANSCRIPTS / rel.replace(".in", ".expected.out"))
        verdict = check_response(parse_response(responses[int(index)]))
        assert (verdict is None) == row["expected"], (case_id, verdict)
        if verdict is not None:
            assert verdict.reward == 0.0 and verdict.details["layer"] == "lean"
            assert verdict.details["rule"] in ("lean_error", "sorry")
        checked[row["expected"]] += 1
    assert checked == {True: 11, False: 45}  # all 56 REPL cases


def test_first_error_and_position_are_reported():
    responses = _stream(TRANSCRIPTS / "incomplete.expected.out")
    verdict = check_response(parse_response(responses[1]))
    assert verdict.reason is Reason.WRONG
    assert verdict.details["pos"] == {"line": 3, "column": 19} and verdict.details["errors"] == 2
    assert verdict.details["error"].startswith("unsolved goals")
    shifted = check_response(parse_response(responses[1]), line_offset=2)
    assert shifted.details["pos"] == {"line": 1, "column": 19}


def test_kimina_recorded_replies_parse_and_give_the_expected_verdicts():
    outputs = sorted((KIMINA / "output").glob("*.json"))
    assert len(outputs) == 102
    seen = {"ok": 0, "timeout": 0}
    for path in outputs:
        results = parse_kimina(json.loads(path.read_text(encoding="utf-8")))
        assert len(results) == 1
        row = CASES.get(f"kimina/{path.stem}")
        verdict = check_kimina(results[0])
        if row is None:
            continue
        if row["expected"] is True:
            assert verdict is None, (path.name, verdict)
            seen["ok"] += 1
        elif row["expected"] is None:
            assert verdict.reason is Reason.TIMEOUT and verdict.reward == 0.0
            seen["timeout"] += 1
    assert seen == {"ok": 98, "timeout": 4}


@pytest.mark.parametrize(
    "bad",
    [
        [],
        "x",
        {"env": "one"},
        {"messages": [{"severity": "fatal"}]},
        {"messages": "no"},
        {"sorries": {}},
        {"messages": [{"severity": "error", "pos": {"line": "x"}}]},
    ],
)
def test_malformed_responses_are_protocol_errors(bad):
    with pytest.raises(ProtocolError):
        parse_response(bad)
    with pytest.raises(ProtocolError):
        parse_kimina({"results": [{"custom_id": "a", "response": bad}]} if isinstance(bad, dict) else bad)


def test_axioms_output_is_read():
    info = (
        Message("info", Pos(1, 0), None, "'foo' depends on axioms: [propext,\n Classical.choice, Quot.sound]"),
        Message("info", Pos(2, 0), None, "'bar' does not depend on any axioms"),
    )
    assert parse_axioms(info) == {"foo": ("propext", "Classical.choice", "Quot.sound"), "bar": ()}


def _prepared(**kw):
    base = {
        "header": "import Mathlib\n",
        "code": "theorem foo : True := trivial\n",
        "audit_names": ("foo",),
        "ref_declaration": "theorem _rlvr_ref_abc : True := sorry",
        "ref_name": "_rlvr_ref_abc",
    }
    base.update(kw)
    return Prepared(**base)


def _axioms(data: str) -> tuple[Message, ...]:
    """The same ``#print axioms`` answer on the check theorem's line (2) and the name's line (3)."""
    return (
        Message("info", Pos(2, 0), None, data.replace("'foo'", "'_rlvr_check_abc'")),
        Message("info", Pos(3, 0), None, data),
    )


def test_audit_judgement():
    plan = audit_plan(_prepared())
    assert plan.text.splitlines() == [
        "theorem _root_._rlvr_check_abc : type_of% @_root_._rlvr_ref_abc := @foo",
        "#print axioms _root_._rlvr_check_abc",
        "#print axioms foo",
    ]
    ok = _axioms("'foo' depends on axioms: [propext, Classical.choice, Quot.sound]")
    assert judge_audit(plan, ok, allow_native=False) is None
    native = _axioms("'foo' depends on axioms: [propext, Lean.ofReduceBool]")
    assert judge_audit(plan, native, allow_native=False).details["rule"] == "axioms"
    assert judge_audit(plan, native, allow_native=True) is None
    cheat = _axioms("'foo' depends on axioms: [cheat]")
    verdict = judge_audit(plan, cheat, allow_native=True)
    assert verdict.reason is Reason.SANDBOX_VIOLATION and verdict.details["not_allowed"] == ["cheat"]
    sorry = _axioms("'foo' depends on axioms: [sorryAx]")
    assert judge_audit(plan, sorry, allow_native=False).reason is Reason.WRONG
    mismatch = (Message("error", Pos(1, 50), None, "type mismatch\n  foo\nhas type ..."), *ok)
    assert judge_audit(plan, mismatch, allow_native=False).details["rule"] == "statement_mismatch"
    missing = (Message("error", Pos(1, 50), None, "unknown identifier 'foo'"),)
    assert judge_audit(plan, missing, allow_native=False).details["rule"] == "missing_constant"
    assert judge_audit(plan, (), allow_native=False).reason is Reason.VERIFIER_ERROR
    swallowed = (Message("error", Pos(0, 0), None, "unexpected token 'theorem'"), *ok)
    assert judge_audit(plan, swallowed, allow_native=False).details["rule"] == "lean_error"


def test_whole_file_attribution_for_servers():
    prepared = _prepared()
    text, (first, last), offset, plan = assemble_file(prepared)
    lines = text.splitlines()
    assert lines[first - 1].startswith("theorem foo") and lines[offset].startswith("theorem _root_._rlvr_check_abc")
    ref_sorry = {
        "severity": "warning",
        "pos": {"line": 2, "column": 8},
        "endPos": None,
        "data": "declaration uses `sorry`",
    }
    axioms = [
        {
            "severity": "info",
            "pos": {"line": offset + line, "column": 0},
            "endPos": None,
            "data": f"'{name}' depends on axioms: [propext]",
        }
        for line, name in ((2, "_rlvr_check_abc"), (3, "foo"))
    ]
    reply = {"results": [{"custom_id": "0", "error": None, "response": {"messages": [ref_sorry, *axioms], "env": 0}}]}
    result = parse_kimina(reply)[0]
    assert judge_whole_file(result, first, last, offset, plan, False).passed
    proof_error = {"severity": "error", "pos": {"line": first, "column": 2}, "endPos": None, "data": "unsolved goals"}
    reply["results"][0]["response"]["messages"].append(proof_error)
    verdict = judge_whole_file(parse_kimina(reply)[0], first, last, offset, plan, False)
    assert verdict.reason is Reason.WRONG and verdict.details["pos"] == {"line": 1, "column": 2}
