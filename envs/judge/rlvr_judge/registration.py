"""Entry point of the ``judge`` plugin: registers the family's ids with rlvr-envs.

The id version follows the judge prompt templates (``rlvr_judge.templates``) and what the judge
is shown. A new template version, or a change in what the judge sees, means a new id version:

* ``judge-ref-v7``, ``judge-v7``: as below, and chat-template markers that only end the response (a decoded
  end of turn, padding: ``<|im_end|>``, ``<|eot_id|>``, ``<|endoftext|>``...) are dropped before it is read
  (``turn_end="strip"``, ``rlvr_envs.chat_markers``); an honest answer so ended was refused.
* ``judge-ref-v6``, ``judge-v6`` (deprecated): as below, and reference mode reads a final answer labelled in every
  claimed language by the core's rule for English ones (``answer_view="v3"``, ``rlvr_judge.final_labels``):
  among labels the last is the answer; after an answer tag, a box or ``####`` a label restating the answer
  is no hedge and one saying something else is refused. "Final answer: 42" then "Réponse finale : 42" was
  refused before (an honest false negative): the first version that pays more honest answers.
* ``judge-ref-v5``, ``judge-v5`` (deprecated): as below, and reference mode shows the judge the sentence that gives
  the final answer before it (template ``ref-v2``, ``answer_view="v2"``): an alternative, a condition or
  a hedge written beside the final answer ("either 41 or \\boxed{42}") was cut away before.
  ``judge-v5`` and ``rubric-v4``: regex criteria read the response as a reader sees it
  (``criteria_view="reader"``: a match hidden or struck out does not meet one; a forbidden word split
  by a zero-width character or spelt with a look-alike letter still breaks one).
* ``judge-ref-v4``, ``judge-v4``, ``rubric-v3`` (deprecated): as below, and the screen (level 3) also refuses talk about
  the response's own grading anywhere (the reference or expected answer, an answer key, the grading
  system, ``"is_correct": true``, a system turn), a note split into pieces, a note alone in more ways
  and languages or beside the prompt pasted back, and in reference mode a retraction after the final
  answer and a look-alike answer tag (<answеr> with a Cyrillic е).
* ``judge-ref-v3``, ``judge-v3``, ``rubric-v2`` (deprecated): as below, and the screen also reads what a judge model
  reads beyond the plain words (a note to the grader hidden, encoded or disguised anywhere; a payload
  in an encoding the task did not ask for; Unicode tag text), refuses imitations of the judge's side
  (a forged verdict, the template's own sentences, fence markers, chat control tokens) and, in
  reference mode, a hedge, an alternative or another final answer after the final answer.
* ``judge-ref-v2``, ``judge-v2``, ``rubric-v1`` (deprecated): as below, and the screen
  (``rlvr_judge.screen``, level 1) refuses empty answers, refusals, prompt pastes, word salads and
  grader-only notes before any judge call.
* ``judge-ref-v1``, ``judge-v1`` (deprecated): reference mode shows the judge the whole final answer
  and everything written after it (template ``ref-v1``); more than ``max_final_chars`` is refused
  (``format_error``), never cut. No screen.
* ``judge-ref-v0``, ``judge-v0`` (deprecated): the final answer alone, cut at 2,000 characters
  (template ``ref-v0``): an alternative after the cut or after the answer tag was never seen.
* ``rubric-v0`` (deprecated): templates ``criterion-v0`` and ``holistic-v0`` (the judge sees the
  whole response), no screen.
"""

from __future__ import annotations

from rlvr_envs import register

_V0_HOLE = (
    "the judge saw only the first 2,000 characters of the final answer and nothing after the answer "
    "tag, so a hedge placed there could score; use {id}-{new}"
)


_NO_SCREEN = (
    "every answer went to the judge, so an empty answer, a refusal, a pasted prompt, a word salad or "
    "a note to the grader alone could be paid by a lenient judge; use {id}-{new}"
)


_LEVEL_2_SCREEN = (
    "the screen let through a wrong answer that claims the reference answer is its own, a JSON or table "
    "'is_correct: true', a note split into pieces or in a language outside its lists, a retraction after the "
    "answer in another language, and a look-alike answer tag; use {id}-{new}"
)


_NO_SENTENCE = (
    "reference mode showed the judge the final answer without the sentence giving it, so an alternative, a "
    "condition or a hedge written beside it ('either 41 or \\boxed{{42}}') never reached the judge; use {id}-{new}"
)


_ONE_LANGUAGE = (
    "a final answer labelled in a language the core's extractor does not read ('Réponse finale : 42', "
    "'Ответ: 41') after an English one was no label: the same answer restated in French, German or Spanish "
    "was refused, and another one in Russian reached the judge beside the first; use {id}-{new}"
)


_TURN_END = (
    "an honest answer ending in a decoded end of turn ('<answer>32 °F</answer><|im_end|>', '<|eot_id|>', "
    "'<end_of_turn>', '</s>', padding) was refused as words after the answer; use {id}-{new}"
)


_RAW_CRITERIA = (
    "regex criteria read the raw text: a required word in an HTML comment, a white or hidden element, "
    "\\phantom{{}} or struck out met them, and a forbidden word split by a zero-width character or spelt "
    "with a look-alike letter escaped one; use {id}-{new}"
)


_PLAIN_SCREEN = (
    "the screen read only the plain words: a note to the grader in base64, rot13, Unicode tag characters or "
    "an HTML comment, a forged verdict, or a hedge after the answer reached the judge; use {id}-{new}"
)


def register_envs() -> None:
    unscreened: dict[str, object] = {"screen": False}
    views: tuple[tuple[int, dict[str, object]], ...] = (
        (0, {"answer_view": "v0", **unscreened}),
        (1, unscreened),
        (2, {"screen": 1}),
        (3, {"screen": 2}),
        (4, {}),
        (5, {"answer_view": "v2", "criteria_view": "reader"}),
        (6, {"answer_view": "v3", "criteria_view": "reader"}),
        (7, {"answer_view": "v3", "criteria_view": "reader", "turn_end": "strip"}),
    )
    for version, view in views:
        template = 2 if version >= 5 else min(version, 1)
        holes = {
            **{0: _V0_HOLE, 1: _NO_SCREEN, 2: _PLAIN_SCREEN, 3: _LEVEL_2_SCREEN, 4: _NO_SENTENCE},
            **{5: _ONE_LANGUAGE, 6: _TURN_END},
        }
        hole = holes.get(version)
        register(
            f"judge-ref-v{version}",
            "rlvr_judge.envs:JudgeRefEnv",
            kwargs=view,
            family="judge",
            size=24,
            description="Free-form answer vs a reference answer, equivalence decided by a judge model "
            f"(template ref-v{template}{', screened' if version >= 2 else ''})",
            data_source="built-in 24 QA pairs, or data=; judge: base_url=/model= or $RLVR_JUDGE_BASE_URL",
            deprecated=hole.format(id="judge-ref", new="v7") if hole else None,
        )
        register(
            f"judge-v{version}",
            "rlvr_judge.envs:JudgeEnv",
            kwargs=view,
            family="judge",
            description="Your own prompts with a rubric and/or a reference, graded by a judge model "
            f"(reference mode: template ref-v{template}{', screened' if version >= 2 else ''})",
            data_source="user data (data=...)",
            user_data=True,
            deprecated=hole.format(id="judge", new="v7") if hole else None,
        )
    rubric_views: tuple[tuple[int, dict[str, object]], ...] = (
        (0, unscreened),
        (1, {"screen": 1}),
        (2, {"screen": 2}),
        (3, {}),
        (4, {"criteria_view": "reader"}),
    )
    for version, options in rubric_views:
        register(
            f"rubric-v{version}",
            "rlvr_judge.envs:RubricEnv",
            kwargs=options,
            family="judge",
            size=6,
            description="Responses graded by a weighted rubric: judge, IFEval, math, regex and JSON-schema criteria "
            f"(templates criterion-v0, holistic-v0{', screened' if version else ''})",
            data_source="built-in 6 rubric tasks, or data=; judge: base_url=/model= or $RLVR_JUDGE_BASE_URL",
            deprecated={0: _NO_SCREEN, 1: _PLAIN_SCREEN, 2: _LEVEL_2_SCREEN, 3: _RAW_CRITERIA}[version].format(
                id="rubric", new="v4"
            )
            if version < 4
            else None,
        )
