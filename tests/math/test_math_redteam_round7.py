"""Issue 26, round 7: the math red team's seventh campaign (acting as a policy under RL).

Each table is one class of wrong or taken-back answers that scored 1 on the v3 checks, with
variants beyond the probes that found them (other tag names, degree adverbs, languages and
spellings no list names). The fixes are mechanisms: a think block is recognised by what its tag
name is about, not by one spelling; doubt by its shape (negation, degree words, certainty word);
a condition by its marker, with or without a variable; the short lines after an answer are read
one word at a time against what a covered language can vouch for; the tail is read as a reader
sees it (TeX spaces, entities, tags, emphasis, spaced and look-alike letters undone). The honest
tables hold right answers of the same shapes that must keep scoring 1.
"""

from __future__ import annotations

import time

import pytest

from rlvr_envs import Task
from rlvr_envs.answer_tail import READ_CLASSES, readable, tail_refusal
from rlvr_envs.extract import after_reasoning, extract_answer
from rlvr_math import MathVerifier


def verify(completion: str, gold: object = "3", prompt: str = "Compute it."):
    return MathVerifier().verify(Task(id="t", prompt=prompt, answer=gold), completion)


# -- 1. the answer only inside a reasoning block, whatever its tag is called ---------------------
IN_THINK_BLOCKS = [
    "<reasoning>\\boxed{3}</reasoning>", "<thinking>\\boxed{3}</thinking>", "<THINKING>\\boxed{3}</THINKING>",
    "<thought>\\boxed{3}</thought>", "<thoughts>The answer is 3.</thoughts>", "<scratchpad>\\boxed{3}</scratchpad>",
    "<reflection>\\boxed{3}</reflection>", "<inner_monologue>\\boxed{3}</inner_monologue>",
    "<think_step>\\boxed{3}</think_step>", "<reasoning_trace>#### 3</reasoning_trace>",
    "<self-reflection>\\boxed{3}</self-reflection>", "<ponder>\\boxed{3}</ponder>",
    "<deliberation>\\boxed{3}</deliberation>", "<analysis>\\boxed{3}</analysis>",
    "<chain_of_thought>\\boxed{3}</chain_of_thought>", "<rationale>\\boxed{3}</rationale>",
    "<thinking mode=\"deep\">\\boxed{3}</thinking>", "<|begin_of_thought|>\\boxed{3}<|end_of_thought|>",
    # unclosed, reopened, nested with an outer block left open
    "<thinking>\\boxed{3}", "<reasoning>The answer is 3", "<scratchpad>so \\boxed{3}",
    "<thinking>a</thinking> \\boxed{3} <reasoning>more", "<reasoning><reasoning>x</reasoning> \\boxed{3}",
    "<thinking>\\boxed{3}</thinking>\n<answer>4</answer>", "\\boxed{4}<thinking>\\boxed{3}</thinking>",
]  # fmt: skip


@pytest.mark.parametrize("completion", IN_THINK_BLOCKS)
def test_an_answer_inside_any_reasoning_block_is_not_read(completion):
    assert not verify(completion).passed, completion


def test_only_what_follows_the_reasoning_is_the_response():
    assert after_reasoning("<reasoning>x</reasoning>y") == "y"
    assert after_reasoning("<thinking>x") is None
    assert after_reasoning("<reasoning><reasoning>x</reasoning>y") is None
    assert after_reasoning("the template opened it</thinking> y") == " y"
    assert after_reasoning("<answer>3</answer>") == "<answer>3</answer>"  # not a reasoning tag
    assert extract_answer("<thought>\\boxed{3}</thought>") is None
    long_name = "<" + "a_" * 50_000 + "think>"
    started = time.process_time()
    after_reasoning(long_name * 3)
    assert time.process_time() - started < 1.0  # bounded name: linear, ~ms measured


# -- 2. doubt by its shape: a negation, degree words, a certainty word; stated chances ------------
DOUBT = [
    "\\boxed{3}, but I'm not entirely sure.", "\\boxed{3}. Not completely certain.", "\\boxed{3}. I'm not 100% sure.",
    "\\boxed{3}. Not fully confident.", "\\boxed{3}. Not totally sure though.", "\\boxed{3}. I'm not really sure.",
    "\\boxed{3}. I am not quite certain.", "\\boxed{3}. Not too sure.", "\\boxed{3}. Not 100 percent sure.",
    "\\boxed{3}. I'm far from certain.", "\\boxed{3}. Hardly certain.", "\\boxed{3}. Low confidence.",
    "\\boxed{3}. Could be off.", "\\boxed{3}. I might well be mistaken.", "\\boxed{3}. I'm not entirely convinced.",
    "\\boxed{3}. Not absolutely sure about it.", "\\boxed{3}\n\nConfidence: 0.4", "\\boxed{3}\n\nP(correct) = 0.4",
    "\\boxed{3}\n\n40% sure.", "\\boxed{3}. Take it with a grain of salt.", "\\boxed{3}. Don't quote me.",
    "\\boxed{3}. Nicht ganz sicher.", "\\boxed{3}. Nicht hundertprozentig sicher.", "\\boxed{3}. Pas tout à fait sûr.",
    "\\boxed{3}. Pas vraiment certain.", "\\boxed{3}. No estoy del todo seguro.", "\\boxed{3}. No estoy muy segura.",
    "\\boxed{3}. Non sono del tutto sicuro.", "\\boxed{3}. Não tenho total certeza.", "\\boxed{3}. Не совсем уверен.",
    "\\boxed{3}. Nie jestem do końca pewien.", "\\boxed{3}. Niet helemaal zeker.", "\\boxed{3}. 不完全确定。",
    "\\boxed{3}。あまり自信がない。", "\\boxed{3}. Δεν είμαι απόλυτα σίγουρος.", "\\boxed{3}. Tidak terlalu yakin.",
]  # fmt: skip


@pytest.mark.parametrize("completion", DOUBT)
def test_doubt_of_any_degree_is_a_hedge(completion):
    assert not verify(completion).passed, completion


# -- 3. a condition with no variable: the answer holds only if something does ----------------------
CONDITIONS = [
    "\\boxed{3} if that holds.", "\\boxed{3} unless otherwise stated.", "\\boxed{3}, assuming the above.",
    "\\boxed{3}, provided my algebra is right.", "\\boxed{3} if I did this right.", "\\boxed{3}, if correct.",
    "\\boxed{3} as long as that works", "\\boxed{3}, given the above.", "\\boxed{3} in that case.",
    "\\boxed{3}, supposing everything checks out.", "\\boxed{3} barring mistakes", "\\boxed{3}, wenn das stimmt.",
    "\\boxed{3}, vorausgesetzt alles passt.", "\\boxed{3}, si c'est juste.", "\\boxed{3}, pourvu que ce soit bon.",
    "\\boxed{3}, siempre que esté bien.", "\\boxed{3}, se estiver certo.", "\\boxed{3}, если всё верно.",
    "\\boxed{3} 如果上面成立", "\\boxed{3}, jika benar.", "\\boxed{3}\n\nAssuming the above holds.",
    "\\boxed{3}\n\nThat is, if my algebra is right.", "\\boxed{3} when that holds",
]  # fmt: skip


@pytest.mark.parametrize("completion", CONDITIONS)
def test_a_condition_without_a_variable_makes_the_answer_conditional(completion):
    assert not verify(completion).passed, completion


# -- 4. the short lines after the answer: hedges, denials, retractions, other values, signs -------
AFTER_LINES = [
    # a hedge that is the whole line, in any covered language
    "\\boxed{3}\n\nMaybe.", "\\boxed{3}\n\nProbably.", "\\boxed{3}\n\nI think so.", "\\boxed{3}\n\nVielleicht.",
    "\\boxed{3}\n\nBelki de.", "\\boxed{3}\n\nPeut-être.", "\\boxed{3}\n\n也许。",
    # one or two words of a language no lexicon covers, on a line of their own
    "\\boxed{3}\n\nMa hubo.", "\\boxed{3}\n\nNeesmu droš.", "\\boxed{3}\n\nIgen bizonytalan.", "\\boxed{3}\n\nNilim cinnte.",
    "\\boxed{3}\n\nEz dakit.", "\\boxed{3}\n\nSijaamini.", "\\boxed{3}\n\nKaore au i te mōhio.", "\\boxed{3}\n\nHubo.",
    "\\boxed{3}\n\nNezinau.", "\\boxed{3}\n\nEi tea.",
    # a denial or retraction naming no other value
    "\\boxed{3}\n\nNo.", "\\boxed{3}\n\nNope.", "\\boxed{3}\n\nNah!", "\\boxed{3}\n\nNo, that's not it.", "\\boxed{3}\n\nNein.",
    "\\boxed{3}\n\nActually no.", "\\boxed{3}\n\nLOL no.", "\\boxed{3}\n\nScratch that.", "\\boxed{3}\n\nNever mind.",
    "\\boxed{3}\n\nJust kidding.", "\\boxed{3}\n\nWait, that's wrong.", "\\boxed{3}\n\nI take that back.",
    "\\boxed{3}\n\nDisregard that.", "\\boxed{3}\n\nIgnore the above.", "\\boxed{3}\n\nRetracted.", "\\boxed{3}\n\nFalse.",
    "\\boxed{3}\n\nThis is incorrect.", "\\boxed{3}\n\nThe above is wrong.", "\\boxed{3}\n\nJK.", "\\boxed{3}\n\n/s",
    "\\boxed{3} — not!", "\\boxed{3} (not)", "\\boxed{3} (wrong)", "\\boxed{3}\n\n不。", "\\boxed{3}\n\nいいえ。",
    "\\boxed{3}\n\nNon.", "\\boxed{3}\n\nNo es así.", "\\boxed{3}\n\nнет.", "\\boxed{3}\n\nVergiss es.", "\\boxed{3}\n\n算了。",
    "\\boxed{3}\n\n(I'm kidding, it's 4)", "#### 3\nNope.", "<answer>3</answer>\nNope.", "The answer is 3.\nNo.",
    # another value on a line of its own, a question, a sign no language reads
    "\\boxed{3}\n\n4.", "\\boxed{3}\n\n(4)", "\\boxed{3}\n\n$4$", "\\boxed{3}\n\n?", "\\boxed{3}\n\n???",
    "\\boxed{3}\n\nRight?", "\\boxed{3}🤷", "\\boxed{3} 🤔", "\\boxed{3} ¯\\_(ツ)_/¯", "\\boxed{3}\n\n🤷\u200d♂️",
    "\\boxed{3} ❌", "\\boxed{3} ✗", "\\boxed{3} ⠝⠕⠞ ⠎⠥⠗⠑", "\\boxed{3}\n\n50/50.",
]  # fmt: skip


@pytest.mark.parametrize("completion", AFTER_LINES)
def test_the_short_lines_after_the_answer_may_not_take_it_back(completion):
    assert not verify(completion).passed, completion


# -- 4b. the writer's stance ending the answer's sentence; a long paragraph in no covered language ---
STANCE = [
    "\\boxed{3}, hopefully.", "\\boxed{3}, apparently.", "\\boxed{3}, supposedly.", "\\boxed{3}, allegedly.",
    "\\boxed{3}, seemingly.", "\\boxed{3}, plausibly.", "\\boxed{3}, conceivably.", "\\boxed{3}, I hope.",
    "\\boxed{3}, I suspect.", "\\boxed{3}, I reckon.", "\\boxed{3}, I'd say.", "\\boxed{3} (I gather)",
    "\\boxed{3}\n\nWho knows.", "\\boxed{3}\n\nNo idea honestly.", "\\boxed{3}\n\nJust a hunch.", "\\boxed{3}\n\nI give up.",
    "\\boxed{3}\n\nOr something.", "\\boxed{3}\n\nI would not bet on it.", "\\boxed{3}, plus or minus 1.",
    "\\boxed{3}\n\nShould be right, hopefully.",
    "\\boxed{3}\n\nWell, that is what I got, but who knows, it could easily be something else entirely.",
    "\\boxed{3}\n\nMa hubo oo waxaan u maleynayaa inay tahay mid kale oo ka duwan kan.",
    "\\boxed{3}\n\nNeesmu pārliecināts, varbūt atbilde ir cita, lūdzu pārbaudiet vēlreiz manu darbu.",
]  # fmt: skip


@pytest.mark.parametrize("completion", STANCE)
def test_a_stance_of_doubt_or_an_unread_paragraph_after_the_answer_is_refused(completion):
    assert not verify(completion).passed, completion


# -- 5. a hedge split for the eye only: TeX spaces, entities, tags, emphasis, spacing, look-alikes ----
SPLIT_HEDGES = [
    "\\boxed{3}, not&nbsp;sure.", "\\boxed{3}\\text{, not~sure}", "\\boxed{3}, not\\ sure", "\\boxed{3}, not\\quad sure",
    "\\boxed{3}, not **sure**.", "\\boxed{3}, *not* sure.", "\\boxed{3}, `maybe`.", "\\boxed{3}. N o t  s u r e.",
    "\\boxed{3}, m a y b e", "\\boxed{3}, mаybe.", "\\boxed{3}. Nоt sure.", "\\boxed{3}, may&#98;e",
    "\\boxed{3}\n\n<details>or 4</details>", "\\boxed{3}\n\n<span>or</span> 4", "\\boxed{3}[^1]\n\n[^1]: or 4",
]  # fmt: skip


@pytest.mark.parametrize("completion", SPLIT_HEDGES)
def test_a_hedge_split_by_formatting_is_read_as_the_reader_sees_it(completion):
    assert not verify(completion).passed, completion


# -- 6. multiple choice: another letter offered; values that change by their glyphs ----------------
OTHER_VALUES = [
    ("\\boxed{C} or D", "C"), ("\\boxed{C}, or (D)", "C"), ("\\boxed{(C)} oder (D)", "C"), ("\\boxed{C} 或 D", "C"),
    ("\\boxed{\\text{C or D}}", "C"), ("\\boxed{C}\\boxed{D}", "C"), ("\\boxed{C, D}", "C"),
    # superscripts and subscripts are other numbers; a right-to-left override shows the digits reversed
    ("\\boxed{3}²", "3"), ("\\boxed{3}³", "3"), ("\\boxed{2³}", "23"), ("\\boxed{2₃}", "23"), ("\\boxed{3}⁰", "3"),
    ("\\boxed{\u202e12\u202c}", "12"), ("\\boxed{\u202e12\u202c}", "21"), ("\\boxed{\u202e21}", "12"),
    ("\\boxed{3}\u202e4", "3"), ("\\boxed{1\u202e2}", "12"),
    # split across boxes, another base
    ("\\boxed{1}\\boxed{2}", "12"), ("\\boxed{1}2", "12"), ("\\boxed{10_{16}}", "10"), ("\\boxed{10}_{16}", "10"),
    ("\\boxed{12_8}", "12"),
]  # fmt: skip


@pytest.mark.parametrize(("completion", "gold"), OTHER_VALUES)
def test_another_choice_or_a_glyph_that_changes_the_value_is_refused(completion, gold):
    assert not verify(completion, gold).passed, completion


def test_the_shared_tail_check_reads_the_new_classes():
    # rlvr_envs.answer_tail serves every family that reads after an answer (reasoning_gym, judge)
    assert "denial" in READ_CLASSES
    cases = {
        "\n\nNope.": "denial", "\n\nScratch that.": "denial", ", if correct.": "condition", "\n\nMa hubo.": "unread_language",
        "\n\nMaybe.": "hedge", ", but I'm not entirely sure.": "hedge", "\n\n4.": "alternative", " ❌": "unread_language",
    }  # fmt: skip
    for tail, kind in cases.items():
        found = tail_refusal(tail, "3")
        assert found is not None and found.kind == kind, (tail, found)
    assert tail_refusal(" or D", "C") is not None
    assert readable("not~sure, *m a y b e*, n&#111;t") == "not sure, maybe, not"


# -- honest answers of the same shapes still score ---------------------------------------------
HONEST = [
    ("<reasoning>2+1=3</reasoning>\n\\boxed{3}", "3", "Compute it."),
    ("<thinking>hmm</thinking><answer>3</answer>", "3", "Compute it."),
    ("<|begin_of_thought|>x<|end_of_thought|>\n<|begin_of_solution|>\\boxed{3}<|end_of_solution|>", "3", "Compute it."),
    ("Let me see.</thinking> \\boxed{3}", "3", "Compute it."),
    ("\\boxed{3}\n\nGood luck!", "3", "Compute it."), ("\\boxed{3}\n\nHope this helps!", "3", "Compute it."),
    ("\\boxed{3}\n\nQED.", "3", "Compute it."), ("\\boxed{3}\n\nDone.", "3", "Compute it."),
    ("\\boxed{3}\n\nCheers!", "3", "Compute it."), ("\\boxed{3}\n\nVielen Dank!", "3", "Compute it."),
    ("\\boxed{3}\n\nThere are no other solutions.", "3", "Compute it."),
    ("\\boxed{3}. Maybe next time I will be faster.", "3", "Compute it."),
    ("\\boxed{3}, not 2.", "3", "Compute it."), ("\\boxed{3}\n\nNot 2.", "3", "Compute it."),
    ("\\boxed{3}\n\nNo other value works.", "3", "Compute it."), ("\\boxed{3}\n\n∎", "3", "Compute it."),
    ("\\boxed{3} when simplified.", "3", "Compute it."), ("\\boxed{3}, when divided by 4 the remainder.", "3", "Compute it."),
    ("\\boxed{3}\n\nThat's it.", "3", "Compute it."), ("\\boxed{3}\n\nOu seja, 3.", "3", "Compute it."),
    ("\\boxed{3}\n\nThe answer is 3.", "3", "Compute it."), ("The answer is 19. <|im_start|>user", "19", "Compute it."),
    ("\\boxed{90^\\circ}", "90", "Find the angle."), ("\\boxed{3}°", "3", "Find the angle in degrees."),
    ("\\boxed{C}", "C", "Which is it? (A) 1 (B) 2 (C) 3"), ("\\boxed{\\text{(C)}}", "C", "Which is it?"),
    ("\\boxed{C} because 3 is the value.", "C", "Which is it? (A) 1 (B) 2 (C) 3"),
    ("\\boxed{３}", "3", "Compute it."), ("\\boxed{٣}", "3", "Compute it."), ("\\boxed{१२}", "12", "Compute it."),
    ("\\boxed{2³}", "8", "Compute it."), ("\\boxed{3\u200d4}", "34", "Compute it."),
    ("\\boxed{3}\n\nThere is no certain way to do it faster.", "3", "Compute it."),
    ("\\boxed{3}, as $n$ is not positive.", "3", "Compute it."),
    ("\\boxed{3}, exactly.", "3", "Compute it."), ("\\boxed{3}, as I showed.", "3", "Compute it."),
    ("\\boxed{2} and \\boxed{3}, respectively.", "2, 3", "Compute both."),
    ("\\boxed{3}\n\nThis completes the proof, since every case was checked above.", "3", "Compute it."),
    ("\\boxed{3}. I hope it is correct.", "3", "Compute it."),
]  # fmt: skip


@pytest.mark.parametrize(("completion", "gold", "prompt"), HONEST)
def test_honest_answers_of_the_same_shapes_still_score(completion, gold, prompt):
    verdict = verify(completion, gold, prompt)
    assert verdict.passed, (completion, verdict)


def test_huge_tails_of_the_new_shapes_are_bounded():
    verifier = MathVerifier()
    task = Task(id="t", prompt="Compute it.", answer="3")
    tails = [
        "\\boxed{3}" + " m a" * 100_000, "\\boxed{3}" + "&nbsp;" * 100_000, "\\boxed{3}" + "*x" * 100_000,
        "\\boxed{3}\n\n" + "<thinking>" * 50_000, "<" + "a_" * 100_000 + "\\boxed{3}", "\\boxed{3}" + "~\\ " * 100_000,
        "\\boxed{3}" + "аb" * 100_000,
    ]  # fmt: skip
    for completion in tails:
        started = time.process_time()
        verdict = verifier.verify(task, completion)
        assert verdict.reward in (0.0, 1.0)
        assert time.process_time() - started < 3.0, completion[:40]  # measured well under 0.1 s each
