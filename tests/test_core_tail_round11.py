"""Round 11 on the shared reading (``rlvr_envs.answer_tail.taken_back``, every family that reads an answer tail):
doubt in a long remark, in the answer's lead-in or in a note after it (``rlvr_envs.tail_doubt``), HTML not
provably in place (``rlvr_envs.tail_placement``), and dotted abbreviations read whole ("(q.e.d.)" stands).

Rows are checked on the shared reader with an answer tag, and on reasoning-gym's chain_sum through its env, so a
family that calls the shared reading cannot drift from it."""

from __future__ import annotations

import pytest

from rlvr_envs.tail_doubt import doubted_before, doubting
from rlvr_envs.tail_placement import out_of_place, unplaced_around
from tests.helpers.tail import chain_sum_case, taken

# {a} is the answer tag with the gold inside it
HOSTILE = [
    "{a} (this is only my rough guess and I have not checked any of it)",
    "{a} (ceci est seulement une estimation grossière que je n'ai pas vérifiée du tout)",
    "{a} — though I might have made an arithmetic slip somewhere along the way.",
    "{a}（这只是粗略的估计，还没有验证）",
    "My rough guess: {a}", "Unverified: {a}", "未验证：{a}", "대략적인 추측: {a}", "Grobe Schätzung: {a}",
    "{a}\n\nNote: I did not verify this.", "{a}\n\n※未確認",
    '<span style="position:absolute">99</span>{a}', '<span style="transform:translateX(-9999px)">{a}</span>',
    '<svg><text x="-999" y="0">{a}</text></svg>', '<details><summary>x</summary>{a}</details>',
    '<span style="filter:opacity(0)">{a}</span>', '<span class="h">{a}</span>',
]  # fmt: skip
HONEST = [
    "{a}", "{a} (q.e.d.)", "{a} (Q.E.D.)", "{a} (c.q.f.d.)", "{a}. Hope this helps!", "Checking: {a}",
    "{a} (we can verify this by adding the numbers again)", "{a}\n\nNo further verification is needed.",
    "<b>{a}</b>", '<span style="color:#333; font-weight:bold">{a}</span>', "If a<b and c>d then {a}",
]  # fmt: skip


@pytest.mark.parametrize("row", HOSTILE)
def test_shared_reading_takes_a_doubted_or_unplaced_answer_back(row):
    assert taken(row.format(a="<answer>12</answer>")) is not None, row


@pytest.mark.parametrize("row", HONEST)
def test_shared_reading_keeps_an_honest_answer(row):
    assert taken(row.format(a="<answer>12</answer>")) is None, row


@pytest.fixture(scope="module")
def chain_sum():
    return chain_sum_case()


@pytest.mark.parametrize("row", HOSTILE[:12])
def test_reasoning_gym_refuses_the_same_rows(chain_sum, row):
    env, task, gold = chain_sum
    assert env.verify(task, gold).reward == 1.0
    assert env.verify(task, row.format(a=gold)).reward == 0.0, row


@pytest.mark.parametrize("row", HONEST[:5])
def test_reasoning_gym_keeps_the_honest_rows(chain_sum, row):
    env, task, gold = chain_sum
    assert env.verify(task, row.format(a=gold)).reward == 1.0, row


def test_the_readers_never_raise_and_read_what_they_say():
    for junk in ("", " ", "<", "<<<>>>", "<span style=", '<a b="c"', "\x00" * 50, "q." * 400, "(" * 500):
        assert doubting(junk) is None or isinstance(doubting(junk), str)
        assert doubted_before(junk) is None or isinstance(doubted_before(junk), str)
        assert unplaced_around(junk, junk) is None or isinstance(unplaced_around(junk, junk), str)
    assert doubting("(a task that asks for an estimate)", frozenset({"estimate"})) is None
    assert doubting("(my estimate)") == "estimate"
    assert out_of_place("span", ' style="color:red;font-weight:bold"') is None
    assert out_of_place("span", ' style="position:static"') is None
    assert out_of_place("span", ' style="position:absolute"') == "position:absolute"
    assert out_of_place("answer", "") is None  # a made-up element is laid out inline, like a span
    assert out_of_place("marquee", "") == "<marquee>"
