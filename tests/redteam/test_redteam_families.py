"""``rlvr-envs redteam --quick`` over every registered family: no wrong answer may earn reward.

One id per family (plus the user-data ids that differ in how they read answers), made offline
from ../shared/data or generated; the judge family through the scripted stand-in judge. A family
with a hole that is not fixed yet is an xfail (strict: the day it is fixed the mark must go),
with the hole named.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.redteam import run_redteam
from tests.helpers.data import shared_path

Maker = Callable[..., rlvr_envs.Env]


def _ids(name: str, **kwargs: Any) -> Maker:
    return lambda **extra: rlvr_envs.make(name, **kwargs, **extra)


def _data(name: str, filename: str, **kwargs: Any) -> Maker:
    return lambda **extra: rlvr_envs.make(name, data=str(shared_path(filename)), **kwargs, **extra)


def _judge(**extra: Any) -> rlvr_envs.Env:
    from tests.judge.conformance import scripted_server

    options = {"base_url": scripted_server().base_url, "model": "scripted-stand-in", "cache": ":memory:"}
    return rlvr_envs.make("judge-ref", **options, **extra)


FAMILIES: dict[str, tuple[str, Maker, bool]] = {
    # case -> (family, maker, the maker takes max_turns for feedback mining)
    "math-arith": ("math", _ids("math-arith"), True),
    "math-500": ("math", _data("math-500", "math500.jsonl", limit=20), True),
    "rg-chain_sum": ("rg", _ids("rg-chain_sum", size=8), False),
    "rg-word_sorting": ("rg", _ids("rg-word_sorting", size=8), False),
    "ifeval-synth": ("ifeval", _ids("ifeval-synth"), True),
    "ifeval-data": ("ifeval", _data("ifeval-data", "ifeval_input_data.jsonl", limit=40), True),
    "code-humaneval": ("code", _data("code-humaneval", "humaneval.jsonl", limit=8), True),
    "code-mbpp": ("code", _data("code-mbpp", "mbpp.jsonl", limit=8), True),
    "lean": ("lean", _data("lean", "lean_cases.jsonl", id_key="id", limit=20), True),
    "judge-ref": ("judge", _judge, True),
}

_WRAPPED = (
    "'The answer is $\\boxed{A}\\%$.' for a gold A under a prompt naming no percent: math's documented "
    "percent='either' reads A% as A (round 14: every other wrap and the shared tail's '\\%' are refused)"
)

_SCALE = (
    "'\\boxed{A} percent' / '\\boxed{A percent}': math's documented percent='either' reads the percent word as "
    "a unit of A (round 15's scale_swap; per mille, '‱', k, lakh, тыс., 千 are refused); owner H1"
)
_CLASH = (
    "'XXV, that is \\boxed{15}', 'CCCLXXXIV — \\boxed{284}', '\\boxed{15} = twenty-five': another value in "
    "another notation restated as the answer before or after it (round 15's notation_clash); shared tail, owner H1"
)

KNOWN_HOLES: dict[str, dict[str, str]] = {
    # case -> {class: what still earns reward}: each an xfail (strict: the day it is fixed the
    # mark must go); the other classes must report 0 meanwhile. (ifeval-synth's grader_note and
    # paste_many: mended in round 8, ifeval-synth-v8: rlvr_ifeval.own_text.)
    # Round 12's sweep found holes here in rg-chain_sum, rg-word_sorting (disguised_marker) and
    # ifeval-synth (keyword_stuffing): mended the same day (fe7ce76, ifeval-synth-v12).
    # Round 13's sweep (handed to the owners in /tmp/h13/findings.md): a sign or scale around the
    # answer slot and a tail closed by a stray "}" are paid. Each mark goes the day its hole is
    # mended (strict: an XPASS fails).
    # Round 15 (H1): math's self_correction (a copula closing the value's clause, Greek and seven more languages) and
    # math-500's notation_clash are mended (rlvr_envs.tail_slot, tail_lexicon.CLOSING_COPULAS); math-arith's
    # notation_clash stays for a gold 0 or 1: a lone letter ('\boxed{0} = I') is a variable to the math reading.
    "math-arith": {
        "wrapped_slot": _WRAPPED,
        "scale_swap": _SCALE,
        "notation_clash": _CLASH,
    },
    "math-500": {
        "wrapped_slot": _WRAPPED,
        "scale_swap": _SCALE,
    },
    # Round 14: math-500's broken_markup (H4's rlvr_envs.tail_markup in the math verifier), rg-chain_sum's
    # wrapped_slot ('$\\boxed{A}\\%$': the shared tail reads TeX's '\\%' as the percent sign), two_branch and
    # encoded_alternative everywhere (rlvr_envs.tail_cases, rlvr_envs.tail_encoded) mended.
    # Round 14: rg-word_sorting's broken_markup ('\\boxed{A} B}') mended: markup that does not balance around
    # the answer is refused (rlvr_envs.tail_markup in the rg verifier; the sweep over 104 rg ids: 67 -> 0).
    # Mended the same day: role_marker (rlvr_envs.chat_markers in Env.verify, the code family's
    # extraction.turn_marker, the plain-text dialogue in the math/rg tail and judge-ref's screen) and
    # before_slot and split_answer (the shared answer tail reads the clause that leads into the slot,
    # and a table or a lone "or" line after it).
    # Round 15's sweep (eight classes, -n 4 over every latest id; /tmp/h15/findings.md): the rg holes (bidi_display
    # on 82 ids, self_correction 44, scale_swap 34, notation_clash 27) are mended in rg's own screens
    # (rlvr_reasoning_gym.screens, later_numeral); math's, in the shared answer tail, are H1's (marks above).
}
"""case -> {class: why it still fails}."""

FAST = ("math-arith",)
"""In `make test-fast` (each case starts the verification pool: ~5-10 s on a loaded machine)."""


def test_every_registered_family_is_attacked():
    families = {s.family for s in rlvr_envs.registry.latest() if not s.family.startswith("toy")}
    assert families <= {family for family, _, _ in FAMILIES.values()}


def _marks(case: str) -> list[Any]:
    return [] if case in FAST else [pytest.mark.slow]


_REPORTS: dict[str, Any] = {}


def _quick_report(case: str) -> Any:
    """The quick pass on ``case`` (once per worker: the known-hole tests read the same report)."""
    if case not in _REPORTS:
        _, maker, multi = FAMILIES[case]
        multi_turn = (lambda: maker(max_turns=3)) if multi else None
        _REPORTS[case] = run_redteam(maker(), quick=True, n=3, seed=0, multi_turn=multi_turn)
    return _REPORTS[case]


@pytest.mark.parametrize("case", [pytest.param(c, marks=_marks(c), id=c) for c in FAMILIES])
def test_quick_redteam_finds_no_hole(case):
    report = _quick_report(case)
    known = KNOWN_HOLES.get(case, {})
    found = {
        c.name: [f"{o.variant}: {o.example()['completion'][:120]!r}" for o in c.holes[:2]]
        for c in report.classes
        if c.name not in known
    }
    assert report.raised == 0, report.summary_text()
    assert not any(found.values()), {k: v for k, v in found.items() if v}
    # The attack really ran: the classes that fit this family applied to its tasks.
    ran = {c.name for c in report.classes if c.applicable}
    assert {"empty", "word_salad", "echo_prompt", "huge", "binary", "grader_note", "paste_many"} <= ran
    assert ("lean_wrapper" in ran) == (FAMILIES[case][0] == "lean")  # read from the prompt's statement
    if report.gold:
        assert report.gold_summary()["rewarded"] == len(report.gold)


@pytest.mark.parametrize(
    ("case", "name"),
    [
        pytest.param(case, name, marks=[*_marks(case), pytest.mark.xfail(reason=why, strict=True)], id=f"{case}-{name}")
        for case, classes in KNOWN_HOLES.items()
        for name, why in classes.items()
    ],
)
def test_known_hole_of_a_family(case, name):
    """Documents a hole the quick pass still finds; XPASS (a failure) the day it is mended."""
    result = _quick_report(case).result(name)
    assert result.applicable and not result.holes, [o.variant for o in result.holes[:3]]


_SHORT_SALAD = (
    "a 12- or 40-word salad pays 1 on a few tasks (e.g. a commaless riddle): found by the round-6 "
    "attacker's short variants (issue 26)"
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [
        # ifeval-synth-v8 refuses them (round 8: a long form is not one sentence, H5).
        pytest.param("ifeval-synth"),
        pytest.param("ifeval-data", marks=pytest.mark.xfail(reason=_SHORT_SALAD, strict=True)),
    ],
)
def test_ifeval_training_ids_refuse_every_word_salad_variant(case):
    """The full word-salad class (keyword-stuffed, the prompt's words shuffled, paragraphs...) on
    more tasks than the quick pass: the IFEval relevance check of issue 26."""
    _, maker, _ = FAMILIES[case]
    report = run_redteam(maker(), n=12, seed=1, classes=["word_salad"])
    salad = report.result("word_salad")
    assert salad.tasks == 12 and not salad.holes, dict(Counter(o.variant for o in salad.holes))


def test_mining_finds_the_leak_in_feedback_that_quotes_hidden_asserts():
    """The code env's multi-turn feedback before issue 26 quoted the first failing (hidden) assert;
    a lookup table of what it quoted reached reward 1. The same loop against it must find that."""
    pytest.importorskip("rlvr_code")
    from rlvr_code.envs import MbppEnv

    class QuotingFeedback(MbppEnv):
        def feedback(self, task, verdict):
            details = verdict.details if isinstance(verdict.details, dict) else {}
            tests = [t for t in details.get("tests") or [] if t.get("status") != "passed"]
            return f"Failed: {tests[0]['name']}" if tests else "Failed."

    path = str(shared_path("mbpp.jsonl"))
    report = run_redteam(
        QuotingFeedback(data=path, limit=8),
        n=2,
        classes=["feedback_mining"],
        multi_turn=lambda: QuotingFeedback(data=path, limit=8, max_turns=4),
        episode_tasks=2,
    )
    mining = report.result("feedback_mining")
    assert mining.holes and all("hidden" in o.variant for o in mining.holes)
