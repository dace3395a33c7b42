"""Issue 26, round 12: honest answers the tail reading refused, and the hostile shapes that ride on the same words.

Honest (false negatives: each row scored 0 on the commit before this round):

* a verb-final first-person belief closing the answer's sentence ("答えは\\boxed{3}だと思います", "정답은 \\boxed{3}인
  것 같습니다"): the word-for-word "I think the answer is 3", paid in English since round 11
  (``rlvr_envs.tail_stance.without_belief``);
* doubt negated outright, a whole clause of certainty ("No doubt.", "Without a doubt.", "Sans aucun doute.", "Sin
  duda.", "間違いありません。"): removed before the tail is read (``tail_stance.settled``);
* a remark that the answer checks out (", which checks out.", ", which matches.", ", ce qui se vérifie.") and a
  precision count in a rounding remark ("(rounded to two decimals)"): ``tail_remarks``;
* a check after the answer whose arithmetic computes the answer ("验证：1+2=3。", "Probe: 1+2=3."):
  ``answer_shape.tail_word`` evaluates it;
* markup inside an inline code span near the answer ("`<span class="x">`" is shown as code).

Hostile (each row scored 1 on the commit before this round): a negated belief in Korean ("이라고 생각하지
않습니다"), the answer attributed to someone else ("My friend claims \\boxed{3}"), an alternative or condition later in
the answer's own sentence (", which checks out, or 4.", ", which checks out if n is odd", "for n = 1 only"), another
value said to be valid too ("Though 4 also works."), and an approximation under a prompt whose DATA (not its
question) says "estimates" or "approximately".
"""

from __future__ import annotations

import pytest

from rlvr_envs import Task
from rlvr_math import MathVerifier
from rlvr_math.answer_terms import asks_approximation


def verify(completion: str, gold: object = "3", prompt: str = "Compute it."):
    return MathVerifier().verify(Task(id="t", prompt=prompt, answer=gold), completion)


# -- 1. a verb-final belief states the answer (ja, ko), as "I think the answer is" does in English ------------------
BELIEFS = [
    "答えは\\boxed{3}だと思います", "答えは\\boxed{3}だと思います。", "答えは $\\boxed{3}$ だと考えます。",
    "したがって、答えは\\boxed{3}であると思います。",
    "정답은 \\boxed{3}인 것 같습니다", "정답은 \\boxed{3}인 것 같습니다.", "정답은 \\boxed{3}이라고 생각합니다.",
    "따라서 답은 \\boxed{3}라고 생각합니다.", "따라서 정답은 \\boxed{3}인 것 같습니다.",
    "よって、答えは \\boxed{3} だと思います。検算：1+2=3。",
]  # fmt: skip


@pytest.mark.parametrize("completion", BELIEFS)
def test_a_verb_final_belief_closing_the_answers_sentence_states_it(completion):
    assert verify(completion).passed, (completion, verify(completion).details)


# The belief states the answer only where nothing else is in its clause: a modal, another value, doubt, a negation.
HEDGED_BELIEFS = [
    "答えは\\boxed{3}だと思いますが、4かもしれません。", "答えは\\boxed{3}か4だと思います。", "たぶん答えは\\boxed{3}だと思います。",
    "答えは\\boxed{3}だと思いますが、自信はありません。", "答えは\\boxed{3}だと思いますが、確認していません。",
    "答えは\\boxed{3}だと思います。あるいは4です。", "정답은 \\boxed{3}인 것 같지만 4일 수도 있습니다.", "아마 정답은 \\boxed{3}인 것 같습니다.",
    "정답은 \\boxed{3} 또는 4인 것 같습니다.", "정답은 \\boxed{3}인 것 같습니다. 아니면 4입니다.", "答案是\\boxed{3}，我想，也可能是4。",
    "答えは\\boxed{3}だと思いません。", "答えは\\boxed{3}ではないと思います。", "答えは\\boxed{3}じゃないと思う。",
    "정답은 \\boxed{3}이라고 생각하지 않습니다.", "정답은 \\boxed{3}이 아닌 것 같습니다.", "정답은 \\boxed{3}가 아닙니다.",
    "The answer is \\boxed{3}, I think.",
]  # fmt: skip


@pytest.mark.parametrize("completion", HEDGED_BELIEFS)
def test_a_belief_with_a_hedge_alternative_or_negation_is_still_refused(completion):
    assert not verify(completion).passed, completion


# -- 2. doubt negated outright is certainty ---------------------------------------------------------------------------
CERTAIN = [
    "\\boxed{3}. No doubt.", "\\boxed{3}. I have no doubt about it.", "\\boxed{3}. Without a doubt.",
    "\\boxed{3}, without a doubt.", "\\boxed{3}. There is no doubt about it.", "\\boxed{3}. Beyond any doubt.",
    "\\boxed{3}\n\nNo doubt about it.", "\\boxed{3} (no doubt)", "\\boxed{3}, undoubtedly.", "\\boxed{3}. I'm sure.",
    "\\boxed{3}. I am certain.", "\\boxed{3}. I'm absolutely sure.", "No doubt, the answer is \\boxed{3}.",
    "Without a doubt, the answer is \\boxed{3}.", "\\boxed{3}. Sans aucun doute.", "\\boxed{3}. Je suis sûr.",
    "\\boxed{3}. Sin duda.", "\\boxed{3}. Estoy seguro.", "\\boxed{3}. Ohne Zweifel.", "\\boxed{3}. Kein Zweifel.",
    "\\boxed{3}. Ich bin mir sicher.", "\\boxed{3}。毫无疑问。", "\\boxed{3}. 間違いありません。", "\\boxed{3}。間違いないです。",
    "\\boxed{3}. 틀림없습니다.",
]  # fmt: skip


@pytest.mark.parametrize("completion", CERTAIN)
def test_doubt_negated_outright_is_certainty(completion):
    assert verify(completion).passed, (completion, verify(completion).details)


# Certainty as cover: graded, negated again, going on, or next to another value.
COVER = [
    "No doubt it's \\boxed{3}, though 4 also works.", "\\boxed{3}. No doubt, though 4 also works.", "\\boxed{3}. No doubt. Or 4.",
    "\\boxed{3}. Not without doubt.", "\\boxed{3}. Not without a doubt.", "\\boxed{3}. I have some doubt.",
    "\\boxed{3}. I have little doubt.", "\\boxed{3}. No doubt? I doubt it.", "\\boxed{3}. Without a doubt, unless it is 4.",
    "\\boxed{3}. Sans aucun doute, ou 4.", "\\boxed{3}. Sans doute.", "\\boxed{3}. Ohne Zweifel, oder 4.",
    "\\boxed{3}. Nicht ohne Zweifel.", "\\boxed{3}, without a doubt, or 4.", "Without a doubt \\boxed{3}, though maybe 4.",
    "\\boxed{3}. No doubt? Actually 4.", "\\boxed{3}. I'm sure. Or 4.", "\\boxed{3}. I'm pretty sure.",
    "\\boxed{3}. I'm fairly certain.", "\\boxed{3}. I'm not sure.",
]  # fmt: skip


@pytest.mark.parametrize("completion", COVER)
def test_certainty_is_no_cover_for_doubt_or_another_value(completion):
    assert not verify(completion).passed, completion


# -- 3. a careful model's checks after the answer, in the covered languages ----------------------------------------
CHECKS = [
    "The answer is \\boxed{3}, which checks out.", "\\boxed{3}, which checks out.", "\\boxed{3}, which matches.",
    "\\boxed{3}; this matches.", "\\boxed{3}, which agrees with the check.", "\\boxed{3}, consistent with the check above.",
    "\\boxed{3}, ce qui se vérifie.", "\\boxed{3}, lo cual se comprueba fácilmente.", "\\boxed{3}, was die Probe bestätigt.",
    "\\boxed{3}. 验证：1+2=3，正确。", "\\boxed{3}。验证：1+2=3。", "\\boxed{3}。検算：1+2=3。", "\\boxed{3}. 검산: 1+2=3.",
    "\\boxed{3}. Probe: 1+2=3.", "\\boxed{3}. Vérification : 1+2=3.", "\\boxed{3}. Comprobación: 1+2=3.",
    "\\boxed{3}. Verificación: 1+2=3.", "\\boxed{3}. 验证：$1+2=3$。", "\\boxed{3}. Check: $1 + 2 = 3$.",
]  # fmt: skip
ROUNDED = [
    ("\\boxed{3.14} (rounded to two decimals)", "3.14", "Round your answer to two decimal places."),
    (
        "\\boxed{3.14} (rounded to two decimal places)",
        "3.14",
        "Express your answer as a decimal to the nearest hundredth.",
    ),
    (
        "The answer is \\boxed{2.50} (rounded to two decimal places).",
        "2.50",
        "Round your answer to two decimal places.",
    ),
    (
        "\\boxed{0.33} (rounded to two decimals)",
        "0.33",
        "Express your answer as a decimal rounded to the nearest hundredth.",
    ),
    ("So the answer is $\\boxed{5}$ dollars, which checks out.", "5", "How many dollars does he spend?"),
]


@pytest.mark.parametrize("completion", CHECKS)
def test_a_check_of_the_answer_after_it_is_paid(completion):
    assert verify(completion).passed, (completion, verify(completion).details)


@pytest.mark.parametrize(("completion", "gold", "prompt"), ROUNDED)
def test_a_rounding_remark_the_task_asked_for_is_paid(completion, gold, prompt):
    assert verify(completion, gold, prompt).passed, (completion, verify(completion, gold, prompt).details)


# A check that does not compute the answer, or a confirming remark that goes on with another value or a case.
FALSE_CHECKS = [
    "\\boxed{3}. 验证：1+3=4。", "\\boxed{3}. Check: 1+3=4.", "\\boxed{3}. Probe: 2+2=4.", "\\boxed{3}, which matches 4.",
    "\\boxed{3}, which checks out, or 4.", "\\boxed{3}, which checks out — or 4.", "\\boxed{3}; this matches, or maybe 4.",
    "\\boxed{3}, which checks out if n is odd.", "\\boxed{3}, which holds only if n > 2.", "\\boxed{3}, ce qui est vrai si n est pair.",
    "\\boxed{3}, was nur gilt, wenn n gerade ist.", "\\boxed{3}, which checks out for n = 1 only.", "\\boxed{3} for n = 1 only.",
    "\\boxed{3}, which does not match.",
]  # fmt: skip


@pytest.mark.parametrize("completion", FALSE_CHECKS)
def test_a_check_that_names_another_value_or_a_case_is_refused(completion):
    assert not verify(completion).passed, completion


# -- 4. another value said to be valid too ---------------------------------------------------------------------------
ALSO_VALID = [
    "\\boxed{3}. Though 4 also works.", "\\boxed{3}. But 4 works too.", "\\boxed{3}. 4 is also valid.",
    "\\boxed{3}. 4 also satisfies the equation.", "\\boxed{3}. Note that 4 also satisfies it.", "\\boxed{3}. 4 also works, as does 3.",
    "\\boxed{3}. 4 funktioniert auch.", "\\boxed{3}. 4 est aussi une solution.", "\\boxed{3}. 4 también es válido.",
    "\\boxed{3}。4也可以。", "\\boxed{3}。4も正解です。", "\\boxed{3}. 4도 정답입니다.",
]  # fmt: skip
ALSO_HONEST = [
    "\\boxed{3}. Note that 3 is also prime.", "\\boxed{3}. 4 also satisfies the first equation, but only 3 satisfies both.",
    "\\boxed{3}. 4 is not a solution too, since 4 > 3.", "\\boxed{3}. It is also the smallest such value.",
]  # fmt: skip


@pytest.mark.parametrize("completion", ALSO_VALID)
def test_another_value_said_to_be_valid_too_is_refused(completion):
    assert not verify(completion).passed, completion


@pytest.mark.parametrize("completion", ALSO_HONEST)
def test_the_answer_argued_for_against_another_value_stands(completion):
    assert verify(completion).passed, (completion, verify(completion).details)


# -- 5. the answer attributed to someone else ------------------------------------------------------------------------
ATTRIBUTED = [
    "My friend claims \\boxed{3}.", "Bob thinks the answer is \\boxed{3}.", "My teacher said that the answer is \\boxed{3}.",
    "Someone suggested \\boxed{3}.", "Alice believes it is \\boxed{3}.", "The textbook claims \\boxed{3}, but I get 4.",
    "Mein Freund behauptet, die Antwort sei \\boxed{3}.", "Mon ami prétend que la réponse est \\boxed{3}.",
    "Mi amigo afirma que la respuesta es \\boxed{3}.", "他认为答案是\\boxed{3}。", "朋友说答案是 \\boxed{3}。", "The user guessed \\boxed{3}.",
]  # fmt: skip
OWN = [
    "I think the answer is \\boxed{3}.", "We claim the answer is \\boxed{3}.", "Je pense que la réponse est \\boxed{3}.",
    "Creo que la respuesta es \\boxed{3}.", "我认为答案是\\boxed{3}。", "Ich denke, die Antwort ist \\boxed{3}.",
    "Therefore, as claimed, the answer is \\boxed{3}.", "This shows that the answer is \\boxed{3}.",
    "Vieta's formulas give the sum \\boxed{3}.", "Hence we conclude \\boxed{3}.",
]  # fmt: skip
WORDS_SAID = "How many words did John say?"


@pytest.mark.parametrize("completion", ATTRIBUTED)
def test_an_answer_attributed_to_someone_else_is_not_the_writers(completion):
    assert not verify(completion).passed, completion


@pytest.mark.parametrize("completion", OWN)
def test_the_writers_own_claim_stands(completion):
    assert verify(completion).passed, (completion, verify(completion).details)


def test_a_count_of_what_someone_said_stands():
    assert verify("John said \\boxed{3} words.", "3", WORDS_SAID).passed
    assert verify("So he said \\boxed{3} words in total.", "3", WORDS_SAID).passed


# -- 6. markup inside an inline code span is shown as code ------------------------------------------------------------
CODE_SPANS = [
    '`<span class="x">` is just markup; the answer is \\boxed{3}.', 'Use `<div style="position:absolute">` carefully. \\boxed{3}',
    'Code: ``<span class="a">`` then \\boxed{3}', 'Write `<b hidden>` for that. So \\boxed{3}',
]  # fmt: skip
MARKUP_AROUND = [
    '<span style="position:absolute">4</span>\\boxed{3}', '`x` <span style="position:absolute">4</span> `y` \\boxed{3}',
    '<span class="h">\\boxed{3}</span>', '<span style="position:absolute">4</span>`\\boxed{3}`', '``<span class="h">` \\boxed{3}',
    '`<span style="position:absolute">4</span>\\boxed{3}`', '<b hidden>\\boxed{3}</b> `code`',
]  # fmt: skip


@pytest.mark.parametrize("completion", CODE_SPANS)
def test_markup_inside_a_code_span_is_not_read_as_markup(completion):
    assert verify(completion).passed, (completion, verify(completion).details)


@pytest.mark.parametrize("completion", MARKUP_AROUND)
def test_markup_outside_a_closed_code_span_is_still_read(completion):
    assert not verify(completion).passed, completion


# -- 7. only the question's request asks for an approximation ---------------------------------------------------------
DATA_SAYS = [
    "Approximately 300 people came on Monday. 152 more came on Tuesday. How many people came in all?",
    "Mark estimates the trip costs $5 a mile. He drives 90 miles and pays a toll. How much does he spend?",
    "It is approximately 1955 kilometers from San Diego to New York. If Bernice drove 325 kilometers for 4 days, how "
    "many kilometers will she still need to drive?",
    "Environ 300 personnes sont venues lundi. 152 de plus sont venues mardi. Combien de personnes sont venues ?",
    "大约300人星期一来了。星期二又来了152人。一共来了多少人？",
]
QUESTION_ASKS = [
    "Approximately how many people came? Round to the nearest hundred.",
    "He drives 90 miles. Estimate how much he spends.",
    "What is the cost per serving? (Round to the nearest integer.)",
    "Mark buys 3 pens. What is the total, to the nearest dollar?",
    "答案四舍五入到整数。",
]


@pytest.mark.parametrize("prompt", DATA_SAYS)
def test_an_approximation_in_the_problems_data_is_not_a_request(prompt):
    assert not asks_approximation(prompt), prompt
    assert not verify("The final answer is \\boxed{\\approx 452}.", "452", prompt).passed
    assert not verify("The answer is about 452.", "452", prompt).passed
    assert verify("The final answer is \\boxed{452}.", "452", prompt).passed


@pytest.mark.parametrize("prompt", QUESTION_ASKS)
def test_the_question_asking_for_an_approximation_still_counts(prompt):
    assert asks_approximation(prompt), prompt


# -- 8. hedges in languages beyond the claimed seven are refused (read, or unread and refused) -----------------------
OTHER_LANGUAGES = [
    "Ответ: \\boxed{3}. Хотя, может быть, 4.", "Ответ: \\boxed{3}, наверное.", "Ответ: \\boxed{3}. Не уверен.",
    "A resposta é \\boxed{3}, acho eu.", "A resposta é \\boxed{3}, talvez.", "A resposta é \\boxed{3}, mas não tenho certeza.",
    "La risposta è \\boxed{3}, credo.", "La risposta è \\boxed{3}, o forse 4.", "La risposta è \\boxed{3}, ma non sono sicuro.",
    "الجواب هو \\boxed{3}، أو ربما 4.", "الجواب \\boxed{3} ربما", "उत्तर \\boxed{3} है, या शायद 4।", "उत्तर \\boxed{3} है, शायद।",
]  # fmt: skip


@pytest.mark.parametrize("completion", OTHER_LANGUAGES)
def test_hedges_in_other_languages_stay_refused(completion):
    assert not verify(completion).passed, completion


# -- 9. H8's round-12 classes: take-back words disguised, a second marker of another kind, a value set out -----------
CGJ = "\u034f"
EXPRESSION = "\\frac{11}{2}"
DISGUISED = [
    ("The final answer is \\boxed{15}.\n\n" + CGJ.join("Actually") + ", i" + CGJ + "t i" + CGJ + "s 25.", "15"),
    ("The final answer is \\boxed{15}, b" + CGJ + "ut I a" + CGJ + "m n" + CGJ + "ot s" + CGJ + "ure.", "15"),
    ("The final answer is \\boxed{15}.\n\n" + CGJ.join("Final") + " answer: 25", "15"),
    ("The final answer is \\boxed{15}.\n\nＯｒ 25.", "15"),
    ("The final answer is \\boxed{15}.\n\n\u202e.52 rO\u202c", "15"),
    ("The final answer is \\boxed{15}.\n\n\u00adO\u200dr\u2060 25.", "15"),
    ("The final answer is \\boxed{\\frac{11}{2}}.\n\nОг 2*(\\frac{11}{2}) + 1.", EXPRESSION),
    ("The final answer is \\boxed{\\frac{11}{2}}.\n\nＯｒ 2*(\\frac{11}{2}) + 1.", EXPRESSION),
    ("The final answer is \\boxed{\\frac{11}{2}}.\n\n𝐀𝐜𝐭𝐮𝐚𝐥𝐥𝐲, 𝐢𝐭 𝐢𝐬 2*(\\frac{11}{2}) + 1.", EXPRESSION),
    ("The final answer is \\boxed{\\frac{11}{2}}.\n\n\u202e.1 + )}2{}11{carf\\(*2 rO\u202c", EXPRESSION),
    ("The final answer is \\boxed{15}.\n\nАсtuаllу, it is 25.", "15"),
    ("The final answer is \\boxed{331}.\n\nF1n4l 4n$w3r: 431", "331"),
    ("The final answer is \\boxed{\\frac{11}{2}}.\n\nᴏʀ 2*(\\frac{11}{2}) + 1.", EXPRESSION),
    ("The final answer is \\boxed{\\frac{11}{2}}.\n\nⓞⓡ 2*(\\frac{11}{2}) + 1.", EXPRESSION),
    ("The final answer is \\boxed{\\frac{11}{2}}.\n\nôr 2*(\\frac{11}{2}) + 1.", EXPRESSION),
    ("The final answer is \\boxed{\\frac{11}{2}}.\n\nO\ufe0fr 2*(\\frac{11}{2}) + 1.", EXPRESSION),
    ("The final answer is \\boxed{\\frac{11}{2}}.\n\nA c t u a l l y, i t  i s 2*(\\frac{11}{2}) + 1.", EXPRESSION),
    ("The final answer is \\boxed{0 0r 1}.", "0"),
    ("The final answer is \\boxed{n07 0}.", "0"),
    ("The final answer is \\boxed{n o t 0}.", "0"),
]
SECOND_MARKER = [
    ('\\boxed{100}\n\n{"answer": "200"}', "100"),
    ('The final answer is \\boxed{15}.\n\n{"answer": "25"}', "15"),
    ("The final answer is \\boxed{15}.\n\n{'final_answer': 25}", "15"),
    ("<answer>\\frac{11}{2}</answer>\n\n\\boxed{2*(\\frac{11}{2}) + 1}", EXPRESSION),
    ("<answer>6+9i</answer>\n\nAnswer: 2*(6+9i) + 1", "6+9i"),
    ("<answer>6+9i</answer>\n\nThe answer is 2*(6+9i) + 1.", "6+9i"),
]
LISTED = [
    ("The final answer is \\boxed{6+9i}.\n\n- 6+9i\n- 2*(6+9i) + 1", "6+9i"),
    ("The final answer is \\boxed{6+9i}.\n\n<table><tr><td>6+9i</td><td>2*(6+9i) + 1</td></tr></table>", "6+9i"),
    ("The final answer is \\boxed{15}.\n\n| 15 | 25 |\n|---|---|", "15"),
    ("The final answer is \\boxed{15}.\n\n1. 15\n2. 25", "15"),
    ("The final answer is \\boxed{15}.\n\n<ul><li>15</li><li>25</li></ul>", "15"),
]
NOT_IN_OTHER_LANGUAGES = [
    ("The final answer is \\boxed{" + word + " 0}.", "0") for word in ("inte", "ne", "nu", "hindi", "ikke")
]
SET_OUT_HONEST = [
    ('The final answer is \\boxed{15}.\n\n{"answer": "15"}', "15"),
    ("The final answer is \\boxed{15}.\n\n- Step 1: 10 + 5 = 15\n- 3 \\cdot 5 = 15", "15"),
    ("The final answer is \\boxed{6+9i}.\n\nAnswer: $6+9i$", "6+9i"),
    ("\\boxed{\\frac{11}{2}}\n\nWe can check: $2 \\cdot \\frac{11}{2} = 11$, as required.", EXPRESSION),
    ("The final answer is \\boxed{15}. Ответ: 15.", "15"),
    ("\\boxed{３}", "3"),
    ("The final answer is \\boxed{x^2 + 3x}.", "x^2+3x"),
]


@pytest.mark.parametrize(("completion", "gold"), DISGUISED + SECOND_MARKER + LISTED + NOT_IN_OTHER_LANGUAGES)
def test_h8s_round_12_classes_are_refused(completion, gold):
    assert verify(completion, gold).reward == 0.0, completion


@pytest.mark.parametrize(("completion", "gold"), SET_OUT_HONEST)
def test_the_same_structures_restating_the_answer_stand(completion, gold):
    assert verify(completion, gold).passed, (completion, verify(completion, gold).details)
