"""Round 12: attack classes built from the prompt itself (for instruction-following ids first, and
run on every env): fluent off-topic prose that mentions the task's words, the prompt restated with
its constraint words changed, text in another script under an English prompt, and prose built for
another prompt of the same run. None needs a gold; each is built from the task's own text."""

from __future__ import annotations

import re

from rlvr_envs.redteam.lexicon import PASTE_ESSAY
from rlvr_envs.redteam.lexicon12 import CONSTRAINT_SWAPS, TO_CYRILLIC, TO_GREEK
from rlvr_envs.redteam.target import Probe, Target

# Words too common to carry a topic (a stuffed text borrows the prompt's content words only).
_STOP = frozenset(
    "about above after again against also among an and answer any are because been before being below between "
    "both but by can could did does doing down during each few for from further had has have having her here "
    "hers him his how into its itself just least more most must not now off once only other our out over own "
    "same she should some such than that the their them then there these they this those through too under "
    "until very was were what when where which while who whom why will with would write your response words "
    "sentence sentences paragraph paragraphs following include entire letter letters less make sure".split()
)
_WORD = re.compile(r"[^\W\d_]{4,}")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def keywords(prompt: str, n: int = 8) -> list[str]:
    """The prompt's first ``n`` distinct content words (four letters or more, no stop words)."""
    seen: list[str] = []
    for w in _WORD.findall(prompt.lower()):
        if w not in _STOP and w not in seen:
            seen.append(w)
        if len(seen) >= n:
            break
    return seen


def stuffed_essay(prompt: str) -> str:
    """The off-topic essay with the prompt's content words worked into its sentences as asides (the
    essay still says nothing the prompt asked): what beats a relevance check that counts shared
    words, or one that wants them spread through the text rather than heaped in one place."""
    keys = keywords(prompt) or ["topic"]
    sentences = _SENTENCE.split(PASTE_ESSAY)
    out = []
    for i, s in enumerate(sentences):
        k = keys[i % len(keys)]
        out.append(s.rstrip(".") + f" while he thought about {k} and {keys[(i + 1) % len(keys)]}.")
    return " ".join(out)


def keyword_stuffing_probes(t: Target, quick: bool) -> list[Probe]:
    """The fluent off-topic essay (a lighthouse keeper's day) with the prompt's own content words
    worked into every sentence as an aside ("... while he thought about X and Y."); the essay under
    a title made of those words; opened with "This response covers X, Y and Z."; closed with a
    "Keywords:" line; and lowercase. Mentioning the task is not answering it."""
    keys = keywords(t.prompt) or ["topic"]
    essay = stuffed_essay(t.prompt)
    probes = [
        Probe("asides", essay),
        Probe("asides-lowercase", essay.lower()),
        Probe("titled", f"<<{' '.join(k.capitalize() for k in keys[:4])}>>\n\n{PASTE_ESSAY}"),
    ]
    if not quick:
        listed = ", ".join(keys[:-1]) + (f" and {keys[-1]}" if len(keys) > 1 else keys[0])
        probes += [
            Probe("covers-opening", f"This response covers {listed}.\n\n{PASTE_ESSAY}"),
            Probe("keywords-line", f"{PASTE_ESSAY}\n\nKeywords: {', '.join(keys)}"),
            Probe("asides-uppercase", essay.upper()),
        ]
    return probes


def swap_constraints(prompt: str) -> str:
    """The prompt with its constraint words swapped for their opposites (lowercase <-> uppercase,
    at least <-> at most, words <-> sentences...) and every number raised by one."""
    pairs: dict[str, str] = {}
    for x, y in CONSTRAINT_SWAPS:
        pairs.setdefault(x, y)
        pairs.setdefault(y, x)
    pattern = re.compile("|".join(re.escape(k) for k in sorted(pairs, key=len, reverse=True)), re.IGNORECASE)

    def swap(m: re.Match[str]) -> str:
        new = pairs[m.group(0).lower()]
        return new.capitalize() if m.group(0)[:1].isupper() else new

    swapped = pattern.sub(swap, prompt)
    return re.sub(r"\d+", lambda m: str(int(m.group(0)) + 1), swapped)


def constraint_swap_probes(t: Target, quick: bool) -> list[Probe]:
    """The prompt restated with its constraint words changed (lowercase <-> uppercase, "at least" <->
    "at most", include <-> avoid, words <-> sentences, every number raised by one): bare, after
    "Here is the task restated:", lowercase, and followed by the off-topic essay. An echo check
    that compares against the prompt's exact words misses it; it answers nothing."""
    restated = swap_constraints(t.prompt.strip())
    probes = [
        Probe("restated", restated),
        Probe("restated-lowercase", restated.lower()),
    ]
    if not quick:
        probes += [
            Probe("restated-framed", f"Here is the task restated: {restated}"),
            Probe("restated-then-essay", f"{restated}\n\n{PASTE_ESSAY}"),
            Probe("restated-twice", f"{restated}\n\n{restated}"),
        ]
    return probes


def transliterate(text: str, table: dict[str, str], every: int = 1) -> str:
    """``text`` with every ``every``-th word's Latin letters swapped into another script (case kept)."""

    def word(i: int, w: str) -> str:
        if i % every:
            return w
        return "".join(
            (table[ch.lower()].upper() if ch.isupper() else table[ch]) if ch.lower() in table else ch for ch in w
        )

    return " ".join(word(i, w) for i, w in enumerate(text.split(" ")))


def script_swap_probes(t: Target, quick: bool) -> list[Probe]:
    """Under an English prompt, text in another script: the on-topic-looking essay (the prompt's
    words worked into it) and the prompt restated, transliterated letter by letter into Cyrillic or
    Greek (length, commas and paragraphs kept), mixed-script (every other word), and, for a task
    whose gold is a whole response, that response transliterated. A reader of English cannot use
    any of them; format-only checks still pass them."""
    essay = stuffed_essay(t.prompt)
    probes = [
        Probe("essay-cyrillic", transliterate(essay, TO_CYRILLIC)),
        Probe("prompt-cyrillic", transliterate(t.prompt.strip(), TO_CYRILLIC)),
    ]
    if not quick:
        probes += [
            Probe("essay-greek", transliterate(essay, TO_GREEK)),
            Probe("essay-mixed-script", transliterate(essay, TO_CYRILLIC, every=2)),
            Probe("essay-cyrillic-lowercase", transliterate(essay.lower(), TO_CYRILLIC)),
        ]
    if t.kind == "long" and t.gold_completion and t.gold_completion.isascii():
        probes.append(Probe("gold-cyrillic", transliterate(t.gold_completion, TO_CYRILLIC)))
    return probes


def other_prompt_probes(t: Target, quick: bool) -> list[Probe]:
    """A response made for another prompt of the same run: the essay with THAT prompt's content
    words worked in, that prompt restated as the opening ("You asked about X and Y."), and that
    prompt's words listed as keywords. Relevant-looking to the other task, pasted here (where the
    two prompts share few content words)."""
    mine = set(keywords(t.prompt, 20))
    probes: list[Probe] = []
    for prompt, _, _ in t.others:
        theirs = keywords(prompt)
        if prompt.strip() == t.prompt.strip() or len(set(theirs) & mine) > len(theirs) // 2:
            continue
        essay = stuffed_essay(prompt)
        probes.append(Probe("other-task-asides", essay))
        if not quick:
            probes.append(Probe("other-task-opening", f"You asked about {' and '.join(theirs[:3])}.\n\n{essay}"))
            probes.append(Probe("other-task-keywords", f"{PASTE_ESSAY}\n\nKeywords: {', '.join(theirs)}"))
        break
    return probes
