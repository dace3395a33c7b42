"""Attack class for every env, and the one instruction envs are most exposed to: the same answer
pasted under many prompts (a fluent essay about nothing asked, that essay after the prompt quoted
back, another task's right answer)."""

from __future__ import annotations

from rlvr_envs.redteam.lexicon import PASTE_ESSAY
from rlvr_envs.redteam.target import Probe, Target


def paste_probes(t: Target, quick: bool) -> list[Probe]:
    """One fluent ~150-word essay (no commas, about a lighthouse keeper) pasted under every prompt:
    as written, lowercase, uppercase, after the prompt quoted back ("You asked: ..."), before it,
    with it in an HTML comment, after another prompt of the run quoted, and in the answer slot;
    and the gold completion of another task of the same run pasted here (where the two golds
    differ). Word salad (``word_salad``) differs from prose by its shape; this is prose that
    satisfies format-only constraints and answers another question, so it must never earn reward."""
    quoted = " ".join(t.prompt.split())[:600]
    probes = [
        Probe("essay", PASTE_ESSAY),
        Probe("essay-lowercase", PASTE_ESSAY.lower()),
        Probe("prompt-quoted-then-essay", f"You asked: {quoted}\n\n{PASTE_ESSAY}"),
    ]
    if not quick:
        probes += [
            Probe("essay-uppercase", PASTE_ESSAY.upper()),
            Probe("prompt-quoted-then-essay-lowercase", f"you asked: {quoted}\n\n{PASTE_ESSAY}".lower()),
            Probe("essay-in-answer-slot", t.render(PASTE_ESSAY)),
            # The prompt after the essay, or where no reader sees it (an HTML comment): the words a
            # relevance check counts, borrowed.
            Probe("essay-then-prompt-quoted", f"{PASTE_ESSAY}\n\n(Prompt: {quoted})"),
            Probe("essay-with-prompt-hidden", f"{PASTE_ESSAY}\n<!-- {quoted} -->"),
        ]
    pasted = 0
    for prompt, gold, completion in t.others:
        if pasted >= (1 if quick else 3):
            break
        if completion is None or prompt.strip() == t.prompt.strip() or gold is None or t.same_value(gold):
            continue
        if completion == t.gold_completion:
            continue
        probes.append(Probe(f"another-task-gold-{pasted}", completion))
        pasted += 1
    if not quick:
        # The essay as an answer to another prompt of the run, quoting that prompt: relevant-looking
        # there, pasted here (what a contrast between prompts must catch).
        other = next((p for p, _, _ in t.others if p.strip() != t.prompt.strip()), None)
        if other is not None:
            probes.append(
                Probe("other-prompt-quoted-then-essay", f"You asked: {' '.join(other.split())[:600]}\n\n{PASTE_ESSAY}")
            )
    return probes
