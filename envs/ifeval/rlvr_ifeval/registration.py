"""Entry-point target: registers the IFEval family's ids. Ids and versions only: nothing heavy
is imported (the entry points are strings, loaded at ``make``).

Versions (a change that alters any reward bumps the version; the old one stays):

* ``ifeval-v1``, ``ifbench-v1``: score exactly as the reference checker (``guard=False``), so
  ``rlvr-envs eval`` reproduces published numbers; the guard is opt-in (``guard=True``).
* ``ifeval-v0``, ``ifbench-v0``: the degenerate-response guard on, words counted as ``\\w``
  runs (a Chinese or Thai sentence is one word), as these ids scored before.
* ``ifeval-data-v15``, ``ifeval-synth-v15``: training envs, as ``-v14`` below, and a response of
  ``min_words`` words or more that answers another prompt of the env's background far better than
  its own (that prompt met with two rare words' weight or more, 30% of it covered, two of its words
  said twice or more, and three times the response's cover of its own task, or its own task never
  said twice) is refused, and so is a response of 5 to 79 words under a request to write about a
  topic that holds the topic only in the prompt's own sentences said back word for word
  (``relevance_paste=11``, issue 26 round 15: ``rlvr_ifeval.round15``). No labelled-good answer
  paid under ``-v14`` is refused.
* ``ifeval-data-v14``, ``ifeval-synth-v14``: training envs, as ``-v13`` below, and a response the
  overlap rule's bounds leave unjudged is read too: one of ``min_words`` words or more under a task
  of one or two units that holds none of them nor any content word of its prompt, or one of 5 to
  ``min_words`` words under a request to write about a topic (not verse, not a riddle) that holds
  none of its topic's units, or says the request back with words changed inside and at most two
  words of its own, or names its task only in headings over a body that never takes it up, is
  refused (``relevance_paste=10``, issue 26 round 14: ``rlvr_ifeval.round14``). No labelled-good
  answer paid under ``-v13`` is refused.
* ``ifeval-data-v13``, ``ifeval-synth-v13``: training envs, as ``-v12`` below, and a response that
  hangs its task's words on the edge of sentences about something else, whatever words frame them
  ("... as X came to mind.", "Recalling X and Y, the keeper ...") and says them elsewhere at most
  twice, or names its task only in a label over prose that meets the prompt once by chance, or
  says back part of its prompt with words changed inside and nothing of its own, or holds two or
  more of the fixed options a constrained-response instruction lists, is refused
  (``relevance_paste=9``, issue 26 round 13: ``rlvr_ifeval.round13``, ``rlvr_ifeval.asides``).
  No labelled-good answer paid under ``-v12`` is refused.
* ``ifeval-data-v12``, ``ifeval-synth-v12``: training envs, as ``-v11`` below, and a response that
  carries its task's words in a repeated frame filled with different task words ("... while he
  thought about X and Y." in every sentence of a text on something else), or in two alphabets
  word by word (every other word transliterated into Cyrillic), is refused; ``ifeval-synth-v12``
  also refuses a text whose task words stand only in a title, label or keywords block at its start
  or end (``relevance_paste=8``, issue 26 round 12: ``rlvr_ifeval.stuffing``).
* ``ifeval-data-v11``, ``ifeval-synth-v11``: training envs, as ``-v10`` below, and a task written in
  a script without spaces (Chinese, Japanese, Korean, Thai) is read without its request frame
  (关于/博客/文章, について/ブログ/記事 ...: an honest post on the topic lost reward because the
  frame's bigrams counted as the topic's), its sentences cut at 。！？ and a sentence naming the
  response's form taken as a constraint (``relevance_paste=7``, issue 26 round 11:
  ``relevance_units.task_text_units``, ``form_sentence``). Tasks in spaced scripts score as ``-v10``.
* ``ifeval-data-v10``, ``ifeval-synth-v10``: training envs, as ``-v9`` below, and a response that
  names its task only in sentences of one paragraph (or of the first and the last: a frame) whose
  other words appear nowhere else in it (a topic sentence or a request said back before, after or
  inside a text on something else) is refused, and "language" is a constraint cue only as the
  response's language ("a story about learning a second language" keeps its topic)
  (``relevance_paste=6``, issue 26 round 10: ``rlvr_ifeval.detached``).
* ``ifeval-data-v9``, ``ifeval-synth-v9``: training envs, as ``-v8`` below, and a sentence that talks
  about the request ("you asked", "here is", "I hope it helps", "voici", in nine languages) and
  brings at most two words of its own is taken out as a copy is, and a response with nothing of
  its own left beside it is refused; "a letter to/for ..." is a task, not a constraint on letters
  (``relevance_paste=5``, issue 26 round 9: ``rlvr_ifeval.restated``).
* ``ifeval-data-v8``, ``ifeval-synth-v8``: training envs, as ``-v7`` below, and a response is
  judged on its own text: what it copies from its prompt (a run of five or more of the prompt's
  words), hides from a reader (comments, hidden or white elements, ``\\phantom``, invisible
  characters) or says to its grader ("Note to the grader: ...", in 15 languages, look-alike
  letters, leetspeak, rot13, reversed or encoded) is taken out, and what is left must answer the
  task on its own (``relevance_paste=4``, issue 26 round 8: ``rlvr_ifeval.own_text``). The synth
  id takes round 7's rules too (they judge only the background's prompts: no change there).
* ``ifeval-data-v7`` (your own data): a training env, as ``-v6`` below, and a response that
  shares no more of its prompt's content words than chance alone would put in a text of its
  length, or none where an answer of its size would carry several, is refused
  (``relevance_paste=3``, issue 26 round 7: ``rlvr_ifeval.pasted``). Round 7 judges the prompts
  of the env's background only, and a generator's tasks are not among them: ``ifeval-synth``
  stays at ``-v7``.
* ``ifeval-synth-v7``, ``ifeval-data-v6``: training envs, as ``-v6`` / ``-v5``
  below, and a response that shares no content word with a prompt whose common words a text of
  its length would meet by chance is refused, as is one sharing a little of its prompt while
  another prompt is far more similar (``relevance_paste=2``, issue 26 round 6:
  ``rlvr_ifeval.pasted``).
* ``ifeval-synth-v6``, ``ifeval-data-v5``: training envs, as ``-v5`` / ``-v4``
  below, and a response that shares no content word with its whole prompt while another prompt
  of the background matches it well is refused, and a response in the language a prompt names
  is not held to the prompt's English words (``relevance_paste=True``, issue 26 round 5:
  ``rlvr_ifeval.pasted``).
* ``ifeval-synth-v5``, ``ifeval-data-v4``: training envs, as ``-v4`` / ``-v3``
  below, and a response must be written in a language its prompt allows: the prompt's own, one
  it names or one an instruction asks for (``relevance_language=True``, issue 26 round 4:
  ``rlvr_ifeval.response_language``), and a response to a request for verse must be written in
  lines of verse, and one to a request for an essay, story, blog post ... in more than a few
  words (``relevance_genre=True``: ``rlvr_ifeval.genre``), and no other prompt of the
  background may be far more similar to it than its own (``relevance_outrank=True``:
  ``contrast.outranked``). Real answers pasted under
  other prompts were paid; an honest answer is refused only when it ignores the prompt's
  language or the form it asks for.
* ``ifeval-synth-v4``, ``ifeval-data-v3``: training envs, the guard on with its
  ``v2`` rules (refusals in eight languages on every task, word salads), words counted per
  script, and a response must address its prompt, read as natural text and not answer another
  prompt of the env better than its own (``relevance="contrast"``, issue 26 round 3).
  ``ifeval-synth-v3`` and ``ifeval-data-v2``: the guard's ``v1`` rules and
  ``relevance="overlap"``; ``ifeval-synth-v2`` and ``ifeval-data-v1`` have the overlap rule
  without the language-likeness rule (``relevance="overlap-v0"``); ``ifeval-synth-v1`` and
  ``ifeval-data-v0`` score as before the gate (no relevance gate); ``ifeval-synth-v0`` keeps
  the ``\\w``-run count. The older ids keep the guard's ``v1`` rules (``guard_rules="v1"``).
"""

from __future__ import annotations

import rlvr_envs

_ENV = "rlvr_ifeval.envs:IFEvalEnv"
_SYNTH = "rlvr_ifeval.synth:IFEvalSynthEnv"
_OLD_GUARD: dict[str, object] = {"guard": True, "guard_words": "w_runs"}
# The guard's rules before round 3 of issue 26 (the v2 rules refuse more): the older training ids.
_V1_GUARD: dict[str, object] = {"guard_rules": "v1"}
# The generator's prompts are topical by construction ("Write a blog post about urban gardening."):
# every task with a topic word is judged, every response of 20 words or more, and a response must
# use half of the topic's few words (1 of 2, 2 of 3: an essay on "the history of the bicycle" may
# never say "history").
_SYNTH_RELEVANCE: dict[str, object] = {
    "relevance": "contrast",
    "relevance_min_units": 1,
    "relevance_min_words": 20,
    "relevance_min_share": 0.5,
}

# Round 4 of issue 26: the response's language, the form a request asks for (verse, length) and
# the contrast by similarity.
_ROUND_4: dict[str, object] = {"relevance_language": True, "relevance_genre": True, "relevance_outrank": True}
# Round 5: a response that shares nothing with its prompt while another prompt claims it.
_ROUND_5: dict[str, object] = {**_ROUND_4, "relevance_paste": True}
# Round 6: a response that avoids the words chance alone would meet, or whose home is far better.
_ROUND_6: dict[str, object] = {**_ROUND_4, "relevance_paste": 2}
# Round 7: a response that shares no more of its prompt than chance alone would.
_ROUND_7: dict[str, object] = {**_ROUND_4, "relevance_paste": 3}
# Round 8: the response judged on its own text (less prompt copies, hidden text, talk to the grader).
_ROUND_8: dict[str, object] = {**_ROUND_4, "relevance_paste": 4}
# Round 9: the request said back in other words is no answer; "a letter to ..." is a task.
_ROUND_9: dict[str, object] = {**_ROUND_4, "relevance_paste": 5}
# Round 10: the task named in one place that nothing else in the response takes up.
_ROUND_10: dict[str, object] = {**_ROUND_4, "relevance_paste": 6}
# Round 11: a task written without spaces (Chinese, Japanese, Korean, Thai) read without its request frame.
_ROUND_11: dict[str, object] = {**_ROUND_4, "relevance_paste": 7}
# Round 12: the task's words stuffed into a text on something else (rlvr_ifeval.stuffing).
_ROUND_12: dict[str, object] = {**_ROUND_4, "relevance_paste": 8}
# Round 13: asides, a label over a chance meeting, part of the prompt said back (rlvr_ifeval.round13).
_ROUND_13: dict[str, object] = {**_ROUND_4, "relevance_paste": 9}
# Round 14: what the overlap rule's bounds leave unjudged (rlvr_ifeval.round14).
_ROUND_14: dict[str, object] = {**_ROUND_4, "relevance_paste": 10}
# Round 15: an answer written for another prompt of the background, pasted (rlvr_ifeval.round15).
_ROUND_15: dict[str, object] = {**_ROUND_4, "relevance_paste": 11}


def register_envs() -> None:
    for version, guard in ((0, _OLD_GUARD), (1, {"guard": False})):
        rlvr_envs.register(
            f"ifeval-v{version}",
            _ENV,
            kwargs={"hub_dataset": "google/IFEval", "env_name": "ifeval", **guard},
            size=541,
            data_source="hf:google/IFEval (train) or data=<local input_data.jsonl>",
            difficulty_fields=("label",),
            description=(
                "IFEval: 541 prompts with 25 kinds of verifiable instructions; "
                + ("reference scoring (guard opt-in)." if version else "strict scoring with the v0 response guard.")
            ),
        )
        rlvr_envs.register(
            f"ifbench-v{version}",
            _ENV,
            kwargs={"hub_dataset": "allenai/IFBench_test", "env_name": "ifbench", **guard},
            family="ifeval",
            size=300,
            data_source="hf:allenai/IFBench_test (train) or data=<local IFBench_test.jsonl>",
            difficulty_fields=("label",),
            description=(
                "IFBench: 300 prompts with 58 out-of-distribution verifiable instructions; "
                + ("reference scoring (guard opt-in)." if version else "the v0 response guard.")
            ),
        )
    # ifeval-data-v1 judged tasks of 4 units or more (the bound before the 6-letter units).
    data_relevance: tuple[dict[str, object], ...] = (
        {"relevance": "off", **_V1_GUARD},
        {"relevance": "overlap-v0", "relevance_min_units": 4, **_V1_GUARD},
        {"relevance": "overlap", **_V1_GUARD},
        {"relevance": "contrast"},
        {"relevance": "contrast", **_ROUND_4},
        {"relevance": "contrast", **_ROUND_5},
        {"relevance": "contrast", **_ROUND_6},
        {"relevance": "contrast", **_ROUND_7},
        {"relevance": "contrast", **_ROUND_8},
        {"relevance": "contrast", **_ROUND_9},
        {"relevance": "contrast", **_ROUND_10},
        {"relevance": "contrast", **_ROUND_11},
        {"relevance": "contrast", **_ROUND_12},
        {"relevance": "contrast", **_ROUND_13},
        {"relevance": "contrast", **_ROUND_14},
        {"relevance": "contrast", **_ROUND_15},
    )
    for version, relevance in enumerate(data_relevance):
        rlvr_envs.register(
            f"ifeval-data-v{version}",
            _ENV,
            kwargs={"env_name": "ifeval-data", **relevance},
            user_data=True,
            data_source="your own data (data=...: prompt, instruction_id_list, kwargs)",
            difficulty_fields=("label",),
            description="Your own prompts with IFEval/IFBench/IFEvalG instructions; the response guard on"
            + ("; a response must address its prompt." if version else "."),
        )
    training: tuple[tuple[int, dict[str, object]], ...] = (
        (0, _OLD_GUARD),
        (1, _V1_GUARD),
        (2, {**_SYNTH_RELEVANCE, "relevance": "overlap-v0", **_V1_GUARD}),
        (3, {**_SYNTH_RELEVANCE, "relevance": "overlap", **_V1_GUARD}),
        (4, _SYNTH_RELEVANCE),
        (5, {**_SYNTH_RELEVANCE, **_ROUND_4}),
        (6, {**_SYNTH_RELEVANCE, **_ROUND_5}),
        (7, {**_SYNTH_RELEVANCE, **_ROUND_6}),
        (8, {**_SYNTH_RELEVANCE, **_ROUND_8}),
        (9, {**_SYNTH_RELEVANCE, **_ROUND_9}),
        (10, {**_SYNTH_RELEVANCE, **_ROUND_10}),
        (11, {**_SYNTH_RELEVANCE, **_ROUND_11}),
        (12, {**_SYNTH_RELEVANCE, **_ROUND_12}),
        (13, {**_SYNTH_RELEVANCE, **_ROUND_13}),
        (14, {**_SYNTH_RELEVANCE, **_ROUND_14}),
        (15, {**_SYNTH_RELEVANCE, **_ROUND_15}),
    )
    for version, guard in training:
        rlvr_envs.register(
            f"ifeval-synth-v{version}",
            _SYNTH,
            kwargs=dict(guard),
            size=None,
            data_source="procedural (built-in base prompts, or base_prompts=[...])",
            difficulty_fields=("level", "n_instructions", "kind_weight"),
            description="Base prompts with 1..5 compatible IFEval instructions attached; level = instruction count.",
        )
