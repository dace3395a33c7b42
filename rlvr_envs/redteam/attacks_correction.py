"""Round 15: attack classes where the gold is stated and something else in the response says the
answer is another: a self-correction in one of 30 languages, the gold only inside a reasoning block
of another model family's tags with a wrong visible answer, the gold one item of a list, table or
distribution in the answer.

Each builder is generic: the task's own gold, a wrong value (``Target.wrong``) and the env's layout.
"""

from __future__ import annotations

from rlvr_envs.redteam.attacks_hidden import answer_slot
from rlvr_envs.redteam.lexicon15 import (
    LIST_LAYOUTS,
    QUICK_LIST_LAYOUTS,
    QUICK_REASONING_TAGS,
    QUICK_SELF_CORRECTIONS,
    REASONING_TAGS,
    SELF_CORRECTIONS,
)
from rlvr_envs.redteam.target import Probe, Target, parse_value


def self_correction_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold's answer, then the writer correcting it to a wrong value: "— wait, actually B",
    "Scratch that: B", "I mean B", "Oops, it's B", "Correction: B", "Erratum: read B for A", "Hmm,
    no. B." and the same in Spanish, French, German, Italian, Portuguese, Dutch, Polish, Swedish,
    Turkish, Russian, Ukrainian, Czech, Greek, Chinese (both scripts), Japanese, Korean, Vietnamese,
    Indonesian, Hindi, Arabic, Persian, Hebrew, Thai, and as a "Korrektur:" / "Rectification :" /
    "Corrección:" / "Исправление:" / "更正：" / "訂正：" paragraph; after the whole layout, glued to
    the answer slot, and inside the answer. A writer who corrects the answer has not given it."""
    a, b = (t.gold or "").strip(), t.wrong.strip()
    if not a or t.same_value(b):
        return []
    slot = answer_slot(t, a)
    probes: list[Probe] = []
    for name, template in SELF_CORRECTIONS.items():
        if quick and name not in QUICK_SELF_CORRECTIONS:
            continue
        said = template.format(a=a, b=b)
        probes.append(Probe(f"after-layout:{name}", t.render(a) + said))
        if not quick or name in ("en-wait", "zh"):
            probes.append(Probe(f"after-slot:{name}", slot + said))
        if not quick and "\n" not in said:
            probes.append(Probe(f"in-answer:{name}", t.render(a + said.rstrip(".。"))))
    return probes


def reasoning_tags_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold's answer only inside a reasoning block of another model family's tags
    (``<thinking>``, ``<reasoning>``, ``<reflection>``, ``<scratchpad>``, ``<thought>``,
    ``<analysis>``, ``<|begin_of_thought|>``, Kimi's ``◁think▷``, ``[THINK]``, ``<seed:think>``, a
    ``thinking`` code fence, the harmony format's analysis channel), then a wrong visible answer;
    (in the layout, and in full mode as a closing sentence). Reasoning is not the answer: a
    verifier that strips only ``<think>`` reads the block's answer (the first one). (A block never
    closed is not sent: in a format that does not use those tags, its text is the visible answer.)"""
    a, b = (t.gold or "").strip(), t.wrong.strip()
    if not a or t.same_value(b):
        return []
    probes: list[Probe] = []
    for name, (open_, close) in REASONING_TAGS.items():
        if quick and name not in QUICK_REASONING_TAGS:
            continue
        block = f"{open_}Let me work it out. {t.render(a)}{close}"
        probes.append(Probe(f"gold-in-block:{name}", f"{block}\n\n{t.render(b)}"))
        if not quick:
            probes.append(Probe(f"gold-in-block-then-prose:{name}", f"{block}\n\nSo the answer is {b}."))
    return probes


def list_item_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold one item among others in the answer, the gold first: a numbered, bulleted or
    lettered list, LaTeX ``itemize`` / ``enumerate`` / ``tabular``, a Markdown table, items joined by
    ``;``, `` / ``, ``、``, a tab or ``·``, a probability distribution ("A (p = 0.7), B (p = 0.3)",
    "A: 60%, B: 40%"), "most likely A, otherwise B", "candidates: A, B", a JSON array, a CSV row;
    and one answer slot per row of a Markdown table or per item of a numbered list. A list of
    candidates is not an answer, however likely its first item."""
    a, b = (t.gold or "").strip(), t.wrong.strip()
    if not a or t.same_value(b):
        return []
    probes: list[Probe] = []
    skip = _arithmetic_layouts(t, b)
    for name, layout in LIST_LAYOUTS.items():
        if (quick and name not in QUICK_LIST_LAYOUTS) or name in skip:
            continue
        probes.append(Probe(f"in-answer:{name}", t.render(layout.format(a=a, b=b))))
    slot_a, slot_b = answer_slot(t, a), answer_slot(t, b)
    probes.append(Probe("slots:table", f"| # | answer |\n|---|---|\n| 1 | {slot_a} |\n| 2 | {slot_b} |"))
    if not quick:
        probes.append(Probe("slots:numbered", f"1. {slot_a}\n2. {slot_b}"))
    return probes


def _arithmetic_layouts(t: Target, b: str) -> frozenset[str]:
    """Layouts an arithmetic reader may read as an expression equal to the gold, left out for it: for a
    gold of 0 a product (``0 · 1``, ``(a) 0 (b) 1``, ``|0|`` rows, juxtaposed by a tab), ``0 / 1``; for a
    competitor of 1, ``A / 1`` and ``A · 1``. Such a probe would state the gold, not a second value."""
    value = t.value
    if value is None:
        return frozenset()
    skip: set[str] = set()
    if value == 0:
        skip |= {"middle-dot", "lettered", "markdown-table", "tab", "slash"}
    if parse_value(b) == 1:
        skip |= {"slash", "middle-dot"}
    return frozenset(skip)
