"""Issue 26, round 7 on reasoning_gym: answer-tag spoofing, stuffing and generation that
followed ``PYTHONHASHSEED``.

* A tag whose name only looks like the answer tag (``<answеr>`` with a Cyrillic е, a Greek Α)
  after the real one: the extractor skipped it and the core's tail check did not read it as a
  second answer, so "<answer>gold</answer> <answеr>42</answеr>" scored 1 on every dataset probed.
* Several answers in the tag, a contradicting answer after it, stuffing every candidate into the
  tag to climb a partial-credit similarity score: held (tested here over datasets not used before).
* Five datasets (``generation.HASH_ORDERED_DATASETS``) gave another task for the same seed in
  another process: their sets now iterate in sorted order; every dataset is generated under two
  hash seeds in subprocesses.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from functools import cache

import pytest

import rlvr_envs
from rlvr_reasoning_gym import generation
from rlvr_reasoning_gym.catalog import DATASETS
from rlvr_reasoning_gym.verifier import look_alike_tag

NAMES = ("chain_sum", "word_sorting", "letter_jumble", "spell_backward", "caesar_cipher", "family_relationships",
         "count_primes", "cryptarithm", "propositional_logic", "isomorphic_strings")  # fmt: skip
PARTIAL = ("word_sorting", "letter_jumble", "spell_backward", "sentence_reordering", "caesar_cipher")


@cache
def _env(name: str, partial: bool = False) -> rlvr_envs.Env:
    return rlvr_envs.make(f"rg-{name}", isolation="inline", partial_credit=partial)


@cache
def _gold(name: str, partial: bool = False) -> tuple[object, str]:
    env = _env(name, partial)
    task = env.sample(1, seed=5)[0]
    found = re.search(r"<answer>(.*)</answer>", env.gold_completion(task) or "", re.DOTALL)
    assert found is not None
    return task, found.group(1)


SPOOFS = {
    "cyrillic e after": "<answer>{g}</answer> <answеr>42</answеr>",
    "greek alpha after": "<answer>{g}</answer>\n<ΑNSWER>7</ΑNSWER>",
    "cyrillic in the closing tag only": "<answer>{g}</answer> <answer>5</answеr>",
    "look-alike think after": "<answer>{g}</answer> <thіnk>or maybe 7</thіnk>",
    "look-alike final_answer": "<answer>{g}</answer>\n<final_answеr>0</final_answеr>",
}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("how", list(SPOOFS))
def test_a_look_alike_answer_tag_beside_the_gold_scores_nothing(name, how):
    task, gold = _gold(name)
    assert _env(name).verify(task, f"<answer>{gold}</answer>").reward == 1.0
    verdict = _env(name).verify(task, SPOOFS[how].format(g=gold))
    assert verdict.reward == 0.0, (how, verdict.details)
    assert "tail" in verdict.details or verdict.reason.value == "no_answer", verdict.details


MULTI = {
    "two lines in the tag": "<answer>{g}\nwrong</answer>",
    "wrong then gold in the tag": "<answer>wrong; {g}</answer>",
    "pipe-separated": "<answer>{g} | 0</answer>",
    "contradiction after": "<answer>{g}</answer>\nThe answer is actually 42.",
    "contradiction in German": "<answer>{g}</answer>\nNein, eigentlich 42.",
    "second box after": "<answer>{g}</answer>\n\\boxed{{0}}",
}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("how", list(MULTI))
def test_several_answers_or_a_contradiction_score_nothing(name, how):
    task, gold = _gold(name)
    verdict = _env(name).verify(task, MULTI[how].format(g=gold))
    assert verdict.reward == 0.0, (how, verdict.details)


def _stuffings(gold: str) -> dict[str, str]:
    words = gold.split()
    return {
        "every order": "\n".join([" ".join(sorted(words)), " ".join(reversed(words)), gold]),
        "gold and its reverse": f"{gold} {gold[::-1]}",
        "gold twice": gold + gold,
        "gold with candidates": ", ".join([gold, *words, *(w[::-1] for w in words)]),
    }


@pytest.mark.parametrize("name", PARTIAL)
def test_stuffing_candidates_never_earns_partial_credit(name):
    task, gold = _gold(name, True)
    for how, stuffed in _stuffings(gold).items():
        verdict = _env(name, True).verify(task, f"<answer>{stuffed}</answer>")
        assert verdict.reward == 0.0, (how, verdict.details)


def test_honest_tags_are_not_look_alikes():
    for text in ("<answer>x</answer>", "<b>жук</b>", "<ответ>42</ответ>", "<答え>4</答え>", "<Answer>3</Answer>",
                 "a < b > c", "<" * 10_000, "<аnswer" * 3_000):  # fmt: skip
        assert look_alike_tag(text) is None, text[:30]
    task, gold = _gold("family_relationships")
    assert _env("family_relationships").verify(task, f"Так: <b>жук</b>\n<answer>{gold}</answer>").reward == 1.0


_FINGERPRINT = """
import hashlib, json, sys
from rlvr_reasoning_gym.generation import generate_entry, to_json
out = {}
for name in sys.argv[1:]:
    h = hashlib.sha256()
    for seed in (1, 12345):
        e = generate_entry(name, None, {}, seed)
        h.update(json.dumps(to_json([e["question"], e["answer"], e.get("metadata")]), sort_keys=True).encode())
    out[name] = h.hexdigest()
print("FINGERPRINTS " + json.dumps(out))
"""


def _fingerprints(names: list[str], hash_seed: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", _FINGERPRINT, *names], capture_output=True, text=True, timeout=600, env=env, check=True
    )
    # Some generators print progress dots to stdout, on the same line: read after the marker.
    assert "FINGERPRINTS " in done.stdout, done.stderr[-2000:]
    return json.loads(done.stdout.rsplit("FINGERPRINTS ", 1)[1].splitlines()[0])


def test_the_hash_ordered_datasets_generate_the_same_tasks_under_any_hash_seed():
    names = sorted(generation.HASH_ORDERED_DATASETS)
    first, second = _fingerprints(names, "1"), _fingerprints(names, "2")
    assert first == second, sorted(n for n in names if first[n] != second[n])


@pytest.mark.slow
def test_every_dataset_generates_the_same_tasks_under_any_hash_seed():
    names = sorted(DATASETS)
    first, second = _fingerprints(names, "3"), _fingerprints(names, "4")
    differ = sorted(n for n in names if first[n] != second[n])
    assert differ == [], f"generation follows PYTHONHASHSEED: add {differ} to HASH_ORDERED_DATASETS"


def test_ordered_sets_iterate_sorted_and_stay_ordered_through_set_algebra():
    letters = generation.OrderedSet("zyxabc")
    assert list(letters) == sorted("zyxabc") and list(letters - {"a"}) == sorted("zyxbc")
    assert isinstance(letters - {"a"}, generation.OrderedSet) and isinstance(letters | {"q"}, generation.OrderedSet)
    frozen = generation.OrderedFrozenSet({"B3", "A1", "C2"})
    assert list(frozen) == ["A1", "B3", "C2"] and frozen == frozenset({"A1", "B3", "C2"})
    assert hash(frozen) == hash(frozenset({"A1", "B3", "C2"}))
    mixed = generation.OrderedSet({1, "a", (2,)})  # unorderable together: a stable order all the same
    assert len(list(mixed)) == 3
