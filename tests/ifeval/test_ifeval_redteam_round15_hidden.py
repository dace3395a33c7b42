"""Red team round 15 (lead): an instruction met only where a reader never looks (issue 26,
``ifeval-data-v15`` / ``ifeval-synth-v15``).

Round 8 checks the training ids' instructions a second time on the response as a reader sees it
(``reader_view``: invisible characters, look-alike letters); the relevance gate reads the response's
own text without comments or hidden elements (``own_text.visible``). The instructions themselves were
still counted on the text as written: a required keyword said only inside an HTML comment (the
attacker's ``paste_many`` on ``ifeval-data-v14``, key 2169: "talented" and "tianjin" only in a hidden
copy of the prompt) met ``keywords:existence``. ``-v15`` checks them again without what a reader never
sees (``own_text.hidden_removed``): a requirement met only there is not met, a prohibition still reads
the text as written (a comma in a comment breaks "no commas" both ways).
"""

from __future__ import annotations

from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Task
from rlvr_ifeval.own_text import hidden_removed

PROMPT = (
    "Write a short guide to brewing green tea at home. Include the keywords 'kettle' and 'teapot'. "
    "Answer with at least 90 words."
)
IDS = [
    ("keywords:existence", {"keywords": ["kettle", "teapot"]}),
    ("length_constraints:number_words", {"relation": "at least", "num_words": 90}),
]
BODY = (
    "Green tea rewards a gentle hand. Start with fresh cold water and heat it in a {k} until small bubbles "
    "rise but the water does not boil hard, about eighty degrees. Warm the {t} with a splash of hot water and "
    "pour it away, so the leaves meet an even heat. Use one teaspoon of loose leaves for each cup and let them "
    "steep for two minutes, no longer, or the tea turns bitter. Pour every cup at once so the last one is not "
    "stronger than the first. Good leaves can be steeped twice more, each time a little longer, and the second "
    "cup is often the sweetest of the three. Store the leaves in a dark airtight tin away from spices."
)
HONEST = BODY.format(k="kettle", t="teapot")
BARE = BODY.format(k="pot", t="jug")  # the same guide without the required words
CARRIERS = {
    "html comment": BARE + "\n\n<!-- kettle teapot -->",
    "comment mid-text": BARE.replace("Pour every", "<!-- kettle, teapot --> Pour every"),
    "unclosed comment": BARE + "\n<!-- notes: kettle teapot",
    "hidden span": BARE + ' <span style="display:none">kettle teapot</span>',
    "hidden attribute": BARE + " <div hidden>kettle and teapot</div>",
    "white text": BARE + ' <font style="color: #fff">kettle teapot</font>',
    "markdown comment line": BARE + "\n\n[//]: # (kettle teapot)",
    "tex phantom": BARE + " $\\phantom{kettle teapot}$",
    "tex white": BARE + " \\textcolor{white}{kettle teapot}",
    "padding in a comment": (
        "Heat water in a kettle, warm the teapot, steep the leaves two minutes.\n<!-- " + BARE + " -->"
    ),
}


@pytest.fixture(scope="module")
def verifiers() -> dict[str, Any]:
    row = {"prompt": PROMPT, "instruction_id_list": [i for i, _ in IDS], "kwargs": [k for _, k in IDS]}
    return {
        env_id: rlvr_envs.make(env_id, data=[row]).verifier for env_id in ("ifeval-data-v14", "ifeval-data-v15")
    } | {env_id: rlvr_envs.make(env_id).verifier for env_id in ("ifeval-synth-v14", "ifeval-synth-v15")}


def _task() -> Task:
    return Task(
        id="tea", prompt=PROMPT, answer={"instruction_id_list": [i for i, _ in IDS], "kwargs": [k for _, k in IDS]}
    )


@pytest.mark.parametrize("env_id", ["ifeval-data-v15", "ifeval-synth-v15", "ifeval-data-v14", "ifeval-synth-v14"])
def test_the_honest_guide_is_paid(verifiers: dict[str, Any], env_id: str) -> None:
    assert verifiers[env_id].verify(_task(), HONEST).reward == 1.0
    # and with a comment of its own that hides nothing the instructions need
    assert verifiers[env_id].verify(_task(), HONEST + "\n<!-- draft 2 -->").reward == 1.0


@pytest.mark.parametrize("name", sorted(CARRIERS))
def test_a_requirement_met_only_where_no_reader_looks_is_not_met(verifiers: dict[str, Any], name: str) -> None:
    text = CARRIERS[name]
    for env_id in ("ifeval-data-v15", "ifeval-synth-v15"):
        verdict = verifiers[env_id].verify(_task(), text)
        assert verdict.reward == 0.0, (env_id, name)


def test_the_hole_was_there_before() -> None:
    """-v14 paid the plain comment (the attacker's finding): the table tests a real hole."""
    row = {"prompt": PROMPT, "instruction_id_list": [i for i, _ in IDS], "kwargs": [k for _, k in IDS]}
    old = rlvr_envs.make("ifeval-data-v14", data=[row]).verifier
    assert old.verify(_task(), CARRIERS["html comment"]).reward == 1.0


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        ("a <!-- b --> c", "a  c"),
        ("<<Title>>\nbody", "<<Title>>\nbody"),  # an instruction's markup stays
        ("50 % of it", "50 % of it"),  # a percent sign is no comment here
        ("x <b>bold</b> y", "x <b>bold</b> y"),
        ("x <span style='display:none'>no</span> y", "x  y"),
        ("[//]: # (gone)\nkept", "\nkept"),
        ("\\phantom{gone}kept", "kept"),
        ("", ""),
        ("日本語 <!-- 隠す --> です", "日本語  です"),
        # code is shown as written, comments and tags included: fenced (closed or not), ~~~, inline
        ("```html\n<!-- kept -->\n```\n<!-- gone -->", "```html\n<!-- kept -->\n```\n"),
        ("a `<!-- kept -->` b <!-- gone -->", "a `<!-- kept -->` b "),
        ("~~~\n\\phantom{kept}\n~~~ \\phantom{gone}", "~~~\n\\phantom{kept}\n~~~ "),
        ("<!-- gone --> ```\n<!-- kept, never closed", " ```\n<!-- kept, never closed"),
        ("``` `` ` <!-- gone", "``` `` ` <!-- gone"),  # an unclosed fence runs to the end
    ],
)
def test_hidden_removed_keeps_what_a_reader_sees(text: str, seen: str) -> None:
    assert hidden_removed(text) == seen


def test_words_shown_as_code_are_seen(verifiers: dict[str, Any]) -> None:
    """A comment inside a fenced HTML block is displayed as written: its words are the reader's."""
    shown = BARE + "\n\nThe page I use for notes:\n\n```html\n<!-- kettle, teapot -->\n<p>tea</p>\n```"
    assert verifiers["ifeval-data-v15"].verify(_task(), shown).reward == 1.0
    assert hidden_removed(shown) == shown


def test_a_prohibition_still_reads_the_text_as_written(verifiers: dict[str, Any]) -> None:
    task = Task(
        id="commas",
        prompt=PROMPT,
        answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]},
    )
    assert verifiers["ifeval-data-v15"].verify(task, HONEST.replace(",", "") + " <!-- a, b -->").reward == 0.0
