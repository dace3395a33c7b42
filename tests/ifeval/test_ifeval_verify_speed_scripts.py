"""``response_language._script_counts`` (one pass over the letters of every script) counts as the
run-by-run alternation it replaced (issue 26's speed work: the same ``wrong_language`` verdicts)."""

from __future__ import annotations

import random
from itertools import pairwise

from rlvr_ifeval import response_language
from rlvr_ifeval.response_language import _SCRIPTS, MAX_LANGUAGE_CHARS, _script_counts, _script_counts_by_runs
from tests.helpers.data import read_jsonl
from tests.ifeval.test_ifeval_verify_speed_equivalence import PROSE

LABELLED = ("ifeval_gpt4_responses_labeled.jsonl", "ifbench_responses_labeled.jsonl")


def _blocks() -> list[tuple[str, int, int]]:
    out = []
    for name, chars in _SCRIPTS.items():
        i = 0
        while i < len(chars):
            out.append((name, ord(chars[i]), ord(chars[i + 2])))
            i += 3
    return out


def test_the_scripts_blocks_are_disjoint() -> None:
    """What makes one pass equal to the runs: no character is in two scripts' blocks."""
    blocks = sorted(_blocks(), key=lambda b: b[1])
    for (_, _, end), (name, start, _) in pairwise(blocks):
        assert start > end, name


def test_labelled_responses_and_prose_count_the_same() -> None:
    texts = [r["response"][:MAX_LANGUAGE_CHARS] for name in LABELLED for r in read_jsonl(name)]
    texts += [*PROSE.values(), "".join(PROSE.values()), ""]
    for text in texts:
        assert _script_counts(text) == _script_counts_by_runs(text), text[:100]


def test_random_texts_over_every_script_count_the_same() -> None:
    rng = random.Random(26)
    blocks = _blocks()
    alphabet = list("abcXYZ éü ,.\n0") + [chr(rng.randint(s, e)) for _, s, e in blocks for _ in range(4)]
    alphabet += [chr(s - 1) for _, s, _ in blocks] + [chr(e + 1) for _, _, e in blocks]  # just outside
    for _ in range(1500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
        assert _script_counts(text) == _script_counts_by_runs(text), text
    assert len(response_language._SCRIPT_OF) <= sum(e - s + 1 for _, s, e in blocks)
