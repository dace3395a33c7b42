"""Round 14 (issue 26): answer markup that does not balance around the final answer (``rlvr_envs.tail_markup``).

The extractors close an answer at its first closer, so ``\\boxed{A} B}`` read as ``A`` and paid on 63 of 104
rg ids and math-500 (round 13's ``broken_markup`` class). Read as balanced markup reads it, the answer's markup
encloses ``A} B``: two values. The probes below go beyond the attacker's ``_BROKEN`` table: other frames
(``\\fbox``, ``\\framebox``, ``\\colorbox``, ``\\fcolorbox``), nesting at depth 3, escaped braces, answer tags
in other case and spacing, reopened before and after, the reasoning skipped first, and labels of other
languages before the box. Each was ``None`` (no module; and through rg each paid 1.0) before this round.
Typos around one value stand: refusing them would cost honest answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from rlvr_envs.extract import extract_answer
from rlvr_envs.tail_markup import broken_markup

A, B = "-958", "17"

BROKEN = {
    # a closing brace with no opener after the box
    "stray-brace": "\\boxed{@A} @B}",
    "stray-brace-expression": "\\boxed{@A} 2*(@A) + 1}",
    "stray-brace-text": "\\boxed{@A} \\text{ or } @B}",
    "stray-brace-next-paragraph": "\\boxed{@A}\n\n@B\n}",
    "stray-brace-after-dollar": "$\\boxed{@A}$ @B}$",
    "stray-brace-after-escaped-group": "\\boxed{@A} \\{@B\\}}",
    "stray-brace-after-escaped-inside": "\\boxed{@A\\}} @B}",
    "stray-brace-german-label": "Die Antwort lautet \\boxed{@A} @B}",
    "stray-brace-chinese-label": "答案是 \\boxed{@A}，@B}",
    "stray-brace-japanese-label": "答えは \\boxed{@A} @B} です。",
    "stray-brace-fbox-read": "\\fbox{@A} @B}",
    "stray-brace-after-reasoning": "<think>We add.</think> The final answer is \\boxed{@A} @B}.",
    # a frame around the box read that holds more
    "nested-after": "\\boxed{\\boxed{@A} @B}",
    "nested-before": "\\boxed{@B \\boxed{@A}}",
    "nested-never-closed": "\\boxed{@B \\boxed{@A}",
    "nested-depth-3": "\\boxed{\\boxed{\\boxed{@A}} @B}",
    "nested-depth-3-middle": "\\boxed{\\boxed{\\boxed{@A} @B}}",
    "frame-fbox": "\\fbox{\\boxed{@A} @B}",
    "frame-framebox-options": "\\framebox[3cm][c]{\\boxed{@A} @B}",
    "frame-colorbox": "\\colorbox{yellow}{\\boxed{@A}, @B}",
    "frame-fcolorbox": "\\fcolorbox{red}{white}{@B \\boxed{@A}}",
    "frame-spaced": "\\boxed {\\boxed{@A} @B}",
    "frame-around-tag": "\\fbox{@B <answer>@A</answer>}",
    "frame-parbox-holding-more": "\\fbox{\\parbox[t]{3cm}{\\boxed{@A} @B}}",
    "frame-coloured-value-beside": "\\colorbox{yellow}{\\textcolor{red}{@B} \\boxed{@A}}",
    "frame-command-value-beside": "\\boxed{\\boxed{@A} \\pi}",
    "box-around-tag": "\\boxed{<answer>@A</answer> @B}",
    # answer tags that do not balance
    "tag-stray-close": "<answer>@A</answer>@B</answer>",
    "tag-stray-close-upper": "<answer>@A</answer> @B</ANSWER>",
    "tag-stray-close-spaced": "<answer>@A</answer> @B< / answer >",
    "tag-stray-close-next-line": "<answer>@A</answer>\n@B\n</answer>",
    "tag-nested": "<answer><answer>@A</answer> @B</answer>",
    "tag-nested-depth-3": "<answer><answer><answer>@A</answer></answer> @B</answer>",
    "tag-opened-before": "<answer>@B<answer>@A</answer>",
    "tag-opened-before-upper": "<ANSWER>@B <answer>@A</answer>",
    "tag-opened-before-attribute": '<answer id="1">@B <answer>@A</answer>',
    "tag-reopened-after": "<answer>@A</answer><Answer>@B",
    "tag-second-other-case": "<answer>@A</answer> <ANSWER>@B</ANSWER>",
    "tag-closed-inside-other-case": "<answer>@A</ANSWER> @B</answer>",
    "tag-r1-stray-close": "<think>I worked it out.</think> <answer>@A</answer> @B</answer>",
    "tag-around-box": "<answer>@B \\boxed{@A}",
    "box-in-tag-stray-brace": "<answer>\\boxed{@A} @B}</answer>",
    "box-in-tag-brace-after-tag": "<answer>\\boxed{@A}</answer> @B}",
    "box-stray-close-tag": "\\boxed{@A} @B</answer>",
    # as a reader sees the closer: full-width, JSON-escaped, an HTML entity, an invisible character inside
    "tag-stray-close-full-width": "<answer>@A</answer> @B\uff1c/answer\uff1e",
    "tag-stray-close-json-escaped": "<answer>@A</answer> @B<\\/answer>",
    "tag-stray-close-entities": "<answer>@A</answer> @B&lt;/answer&gt;",
    "tag-stray-close-zero-width": "<answer>@A</answer> @B</ans\u200bwer>",
    "tag-opened-before-entities": "&lt;answer&gt;@B <answer>@A</answer>",
    "stray-brace-full-width": "\\boxed{@A} @B\uff5d",
    "stray-brace-zero-width-after-box": "\\boxed{@A}\u200b @B}",
}

STANDS = {
    "plain-box": "\\boxed{@A}",
    "sentence": "The final answer is $\\boxed{@A}$.",
    "display": "\\[\\boxed{@A}\\]\n\nThis is the answer.",
    "tag": "<answer>@A</answer>",
    "r1": "<think>I worked it out.</think> <answer>@A</answer>",
    "box-in-tag": "<answer>\\boxed{@A}</answer>",
    "box-unit": "\\boxed{@A} \\text{ cm}",
    "typo-extra-brace": "\\boxed{@A}}",
    "typo-extra-brace-dollar": "$\\boxed{@A}}$.",
    "typo-box-in-box": "\\boxed{\\boxed{@A}}",
    "typo-box-in-box-depth-3": "\\boxed{\\boxed{\\boxed{@A}}}",
    "typo-fbox-around": "\\fbox{\\boxed{@A}}",
    "typo-box-around-tag": "\\boxed{<answer>@A</answer>}",
    # layout inside a frame is no value: a width, a position, a colour, an environment, a size switch
    "frame-parbox-layout": "Final answer:\n\n\\begin{center}\\fbox{\\parbox{3cm}{\\boxed{@A}}}\\end{center}",
    "frame-makebox-layout": "\\fbox{\\makebox[2cm][c]{\\boxed{@A}}}",
    "frame-colours": "\\colorbox{yellow}{\\textcolor{red}{\\boxed{@A}}}",
    "frame-size-switch": "\\boxed{\\large \\boxed{@A}}",
    "frame-raisebox": "\\fbox{\\raisebox{1ex}{\\boxed{@A}}}",
    "typo-tag-closed-twice": "<answer>@A</answer></answer>",
    "typo-tag-opened-twice": "<answer><answer>@A</answer>",
    "bold-group": "\\textbf{\\boxed{@A}}",
    "text-group-with-words": "\\text{so we get \\boxed{@A}}",
    "escaped-set-braces": "\\boxed{\\{1, 2\\}}",
    "json-gold": '\\boxed{{"sum": 27600}}',
    "stray-brace-before-answer": "We had x}} earlier. So \\boxed{@A}.",
    "stray-tag-before-answer": "</answer> oops. <answer>@A</answer>",
    "braces-in-explanation": "\\boxed{@A}\n\nWe used the set $\\{1, 2\\}$ and $f(x) = {x}$.",
    "no-markup": "The answer is @A.",
    "full-width-braces-balanced": "\\boxed{@A}，集合 \uff5b1, 2\uff5d。",
}


def _reading(template: str) -> tuple[str, str | None]:
    completion = template.replace("@A", A).replace("@B", B)
    found = extract_answer(completion)
    return completion, (broken_markup(completion, found.method) if found is not None else None)


@pytest.mark.parametrize("template", [pytest.param(t, id=k) for k, t in BROKEN.items()])
def test_markup_that_does_not_balance_is_named(template):
    completion, why = _reading(template)
    assert extract_answer(completion) is not None, completion  # the extractor reads an answer ...
    assert why is not None, completion  # ... that the markup does not enclose alone


@pytest.mark.parametrize("template", [pytest.param(t, id=k) for k, t in STANDS.items()])
def test_balanced_markup_or_a_typo_around_one_value_stands(template):
    completion, why = _reading(template)
    assert why is None, (completion, why)


@pytest.mark.parametrize("method", ["answer_is", "hashes", "none", ""])
def test_methods_that_read_no_markup_are_left_to_the_tail(method):
    assert broken_markup("\\boxed{3} 4}", method) is None


@pytest.mark.parametrize("value", [None, 3, b"\\boxed{3} 4}", "", "<think>never closed \\boxed{3} 4}"])
def test_never_raises_on_odd_input(value: Any):
    assert broken_markup(value, "boxed") is None


HOSTILE = {  # built when the test runs (megabytes each), not when the module is imported
    "braces": lambda: "{" * 400_000 + "\\boxed{5}" + "}" * 400_000,
    "frames": lambda: "\\boxed{" * 150_000 + "\\boxed{5}" + "}" * 150_000,
    "tags-before": lambda: "<answer>" * 200_000 + "5</answer>" + "</answer>" * 100_000 + "x",
    "tags-after": lambda: "<answer>5</answer>" + "<Answer>" * 200_000 + "x",
    "entities": lambda: "&lt;answer" * 200_000 + "<answer>5</answer>" + "&lt;/answer x" * 50_000,
    "strays": lambda: "\\boxed{5}" + "}" * 400_000 + "x}",
}


@pytest.mark.parametrize("make", [pytest.param(m, id=k) for k, m in HOSTILE.items()])
def test_cost_is_bounded_on_hostile_markup(make: Callable[[], str]):
    text = make()
    # Measured 0.03-0.2 s of CPU per call (the reasoning scan of 2.5 MB included); 10x margin for a loaded machine.
    started = time.process_time()
    for method in ("boxed", "answer_tag"):
        broken_markup(text, method)
    assert time.process_time() - started < 4.0
