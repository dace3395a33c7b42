"""Round 12 on the shared reading (``rlvr_envs.answer_tail.taken_back``; reasoning-gym reads the same tail): a
verb-final belief and doubt negated outright state the answer (``rlvr_envs.tail_stance``), a check that the answer
holds is no qualification, markup in a code span is shown as code; a negated belief, an answer attributed to someone
else, and an alternative, case or "also valid" value later in the tail take the answer back.

Rows are checked on the shared reader with an answer tag, and on reasoning-gym's chain_sum through its env."""

from __future__ import annotations

import pytest

from rlvr_envs.answer_tail import alternative_within, condition_within, taken_back
from rlvr_envs.extract import extract_answer
from rlvr_envs.tail_stance import attributed, denied_belief, settled, without_belief
from tests.helpers.tail import chain_sum_case, taken

# {a} is the answer tag with the gold inside it
HOSTILE = [
    "{a}이라고 생각하지 않습니다.", "{a}だと思いません。", "{a}ではないと思います。", "{a}가 아닙니다.",
    "My friend claims {a}.", "Bob thinks the answer is {a}.", "他认为答案是{a}。", "Mon ami prétend que la réponse est {a}.",
    "{a}, which checks out, or 99.", "{a}, which checks out if n is odd.", "{a} for n = 1 only.",
    "{a}. Though 99 also works.", "{a}。99也可以。", "{a}. No doubt, though 99 also works.", "{a}. Not without doubt.",
    "{a}. I'm pretty sure.", "{a}. Sans doute.",
]  # fmt: skip
HONEST = [
    "{a}だと思います。", "{a}인 것 같습니다.", "{a}이라고 생각합니다.", "{a}. No doubt.", "{a}, without a doubt.",
    "{a}. I have no doubt about it.", "{a}. Sans aucun doute.", "{a}. Sin duda.", "{a}. Ohne Zweifel.", "{a}. 間違いありません。",
    "{a}, which checks out.", "{a}, which matches.", "{a}, ce qui se vérifie.", "No doubt, the answer is {a}.",
    '`<span class="x">` is markup only. {a}', "I think the answer is {a}.",
]  # fmt: skip


@pytest.mark.parametrize("row", HOSTILE)
def test_shared_reading_takes_the_answer_back(row):
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
    assert env.verify(task, row.format(a=gold).replace("99", str(int(env.answer_text(task)) + 1))).reward == 0.0, row


@pytest.mark.parametrize("row", HONEST[:10])
def test_reasoning_gym_keeps_the_honest_rows(chain_sum, row):
    env, task, gold = chain_sum
    assert env.verify(task, row.format(a=gold)).reward == 1.0, row


def test_the_readers_never_raise_and_read_what_they_say():
    for junk in ("", " ", "`", "``` `", "No doubt" * 300, "だと思" * 300, "\x00" * 50, "(" * 500, "," * 1000):
        for reader in (settled, without_belief):
            assert isinstance(reader(junk), str)
        for finder in (denied_belief, attributed, condition_within):
            found = finder(junk)
            assert found is None or isinstance(found, str)
        assert alternative_within(junk, "3") is None or isinstance(alternative_within(junk, "3"), str)
    assert settled(". No doubt.") == "."
    assert settled(", without a doubt.") == "."
    assert settled(". Not without doubt.") == ". Not without doubt."
    assert settled(". Sans doute.") == ". Sans doute."  # French "sans doute" is "probably"
    assert without_belief("$ だと考えます。") == "$ 。"
    assert denied_belief("이라고 생각하지 않습니다.") is not None
    assert attributed("I think the answer is") is None
    assert attributed("My friend claims") == "My friend claims"
    assert alternative_within(" when divided by 2, 3, 4, or 6.", "49") is None  # a list of values, not an alternative


# H8's round-12 classes on the shared reading: a disguised take-back word is folded before it is read
# (``tail_words.folded``), a JSON answer key and the answer listed beside another candidate are a second answer.
CGJ = "\u034f"
ALT = "2*(0x9238) + 1"  # the attacker's other candidate: an expression built on a non-numeric answer
SET_OUT = [
    "{a}\n\nO\u200br " + ALT + ".", "{a}, b\u200bu\u200bt I a\u200bm n\u200bo\u200bt s\u200bu\u200br\u200be.",
    "{a}\n\n" + CGJ.join("Actually") + ", it is " + ALT + ".", "{a}\n\nＯｒ " + ALT + ".", "{a}\n\nОг " + ALT + ".",
    "{a}\n\n\u202e." + ALT[::-1] + " rO\u202c", "{a}\n\n" + CGJ.join("Final") + " answer: " + ALT,
    '{a}\n\n{{"answer": "' + ALT + '"}}', "{a}\n\n- 0x9238\n- " + ALT, "{a}\n\n<table><tr><td>0x9238</td><td>" + ALT + "</td></tr></table>",
    "{a}\n\n| 0x9238 | " + ALT + " |",
]  # fmt: skip
SET_OUT_HONEST = ['{a}\n\n{{"answer": "0x9238"}}', "{a}\n\n- 0x9238", "{a}\n\n| 0x9238 |", "{a}\n\nОтвет: 0x9238."]


@pytest.mark.parametrize("row", SET_OUT)
def test_shared_reading_reads_disguised_and_set_out_answers(row):
    assert taken(row.format(a="<answer>0x9238</answer>")) is not None, row


@pytest.mark.parametrize("row", SET_OUT_HONEST)
def test_shared_reading_keeps_the_answer_set_out_alone(row):
    assert taken(row.format(a="<answer>0x9238</answer>")) is None, row


def test_a_long_tail_in_another_script_is_read_in_linear_time():
    # readable()'s look-alike fold backtracked over every start of a run of non-Latin letters: 20,000 Japanese
    # characters after the answer took 4.2 s in taken_back (reasoning-gym's path); now ~0.02 s.
    import time

    completion = "<answer>12</answer>" + "だと思います" * 10_000
    found = extract_answer(completion)
    assert found is not None
    start = time.process_time()
    taken_back(completion, found)
    assert time.process_time() - start < 1.0


# H8's R5 and R2 on reasoning-gym: a later value in superscript or circled digits, a footnote "Or ..." of as many words
# as a long word answer.
LATER = [
    ("<answer>E=2,L=1,X=8</answer>\n\nActually, it is ²*(E=²,L=¹,X=⁸) + ¹.", "E=2,L=1,X=8"),
    ("<answer>E=2,L=1,X=8</answer>\n\nActually, it is ②*(E=②,L=①,X=⑧) + ①.", "E=2,L=1,X=8"),
    (
        "<answer>ideas and in the Earth Chronicle building a thousand projectors are constantly engaged</answer>[^1]\n\n"
        "[^1]: Or degagne yltnatsnoc era srotcejorp dnasuoht a gnidliub elcinorhC htraE eht ni dna saedi.",
        "ideas",
    ),
    # an expression answer with "*" (read as emphasis in the shown tail) and a value built on it
    (
        "<answer>2*x**3*sin(x) - 12*cos(x) + C</answer>\n\nOr 2*(2*x**3*sin(x) - 12*cos(x) + C) + 1.",
        "2*x**3*sin(x) - 12*cos(x) + C",
    ),
    (
        "<answer>2*x**3*sin(x) - 12*cos(x) + C</answer>\n\nОг 2*(2*x**3*sin(x) - 12*cos(x) + C) + 1.",
        "2*x**3*sin(x) - 12*cos(x) + C",
    ),
]


@pytest.mark.parametrize(("completion", "_answer"), LATER)
def test_a_later_value_in_script_digits_or_a_footnote_is_read(completion, _answer):
    assert taken(completion) is not None, completion


# A word list holding "or" as one of its words offers no alternatives: the answer's own "or" no longer excuses one
# after it (rg-word_sequence_reversal: ", or its negative." and a code span "(`or 2*(...) + 1`)" were paid).
LISTED_OR = "<answer>date, again, or, everywhere, upward</answer>"


@pytest.mark.parametrize(
    "tail", [", or its negative.", "或其相反数", " (`or 2*(date, again, or, everywhere, upward) + 1`)", "\n\nOr 4."]
)
def test_an_answer_listing_the_word_or_does_not_excuse_an_alternative(tail):
    assert taken(LISTED_OR + tail) is not None, tail


def test_an_answer_joined_by_or_still_excuses_a_restatement():
    assert taken("<answer>x = 3 or x = 4</answer>") is None
    assert taken(LISTED_OR + ".") is None
