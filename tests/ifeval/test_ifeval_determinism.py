"""The training ids give the same verdict on the same (task, response) in every process and in
any call order.

Units are sets of strings, and a set's iteration order follows Python's per-process string
hashing (``PYTHONHASHSEED``; every spawned pool worker has its own). A verdict that hangs on it is
irreproducible: a re-scored pass@k differs, two workers disagree. Found so: the labelled answer
written for "a weird poem ... to my friend Steve" (key 3345), pasted under "Write a very short
poem about the beauty of a rose" (key 3595), matched its home and a large prompt with exactly
the same weight; the contrast rule took whichever the walk met first and paid the paste in about
half of all processes (``ifeval-data-v3`` to ``-v5``: 270 or 271, 204 or 205 pastes paid).
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from rlvr_envs.types import Task
from rlvr_ifeval import contrast
from rlvr_ifeval.relevance import MAX_RELEVANCE_CHARS, PREFIX, units
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import read_jsonl
from tests.ifeval.test_ifeval_contrast import flags
from tests.test_determinism_families import run_under_hash_seeds

LABELLED = ("ifeval_gpt4_responses_labeled.jsonl", "ifbench_responses_labeled.jsonl")
IDS = ("ifeval-data-v3", "ifeval-data-v5", "ifeval-synth-v6")
TIED_PASTE = ("ifeval_gpt4_responses_labeled.jsonl", 3345, 3595)
"""(file, response key, prompt key): the paste tied between its home and a large prompt."""
SEEDS = ("0", "3")
"""Two hash seeds under which the old code's verdicts on ``TIED_PASTE`` differed (0: refused, 3:
paid); any other pair of seeds finds it with probability about one half."""


def _load() -> tuple[list[tuple[str, dict[str, Any]]], list[Task], contrast.Background]:
    rows = [(name, row) for name in LABELLED for row in read_jsonl(name)]
    tasks = [
        Task(id=str(i), prompt=r["prompt"], answer={k: r[k] for k in ("instruction_id_list", "kwargs")})
        for i, (_, r) in enumerate(rows)
    ]
    background = contrast.Background.build(
        (r["prompt"], build_checkers(r["instruction_id_list"], r["kwargs"])) for _, r in rows
    )
    assert background is not None
    return rows, tasks, background


def _pairs(rows: list[tuple[str, dict[str, Any]]]) -> list[tuple[int, int]]:
    """(response row, task row): every labelled response under its own prompt, every 12th
    labelled-good one under 30 other prompts (as the contrast test pastes them), and the tie."""
    rng = random.Random(0)
    pairs = [(i, i) for i in range(len(rows))]
    good = [i for i, (_, r) in enumerate(rows) if r["reference_strict_all"]]
    for i in good[::12]:
        pairs += [(i, j) for j in rng.sample(range(len(rows)), 30) if rows[j][1]["prompt"] != rows[i][1]["prompt"]]
    where = {(name, r["key"]): i for i, (name, r) in enumerate(rows)}
    name, response_key, prompt_key = TIED_PASTE
    pairs.append((where[(name, response_key)], where[(name, prompt_key)]))
    return pairs


def _name(row: tuple[str, dict[str, Any]]) -> str:
    """A labelled row's name: its file's stem (the two files' keys overlap) and its key."""
    return f"{row[0].split('_')[0]}:{row[1]['key']}"


def _verdicts(
    verifiers: dict[str, IFEvalVerifier],
    rows: list[tuple[str, dict[str, Any]]],
    tasks: list[Task],
    pairs: list[tuple[int, int]],
) -> dict[str, list[Any]]:
    out = {}
    for env_id, verifier in verifiers.items():
        for i, j in pairs:
            result = verifier.verify(tasks[j], rows[i][1]["response"])
            out[f"{env_id} {_name(rows[i])}->{_name(rows[j])}"] = [result.reward, str(result.reason)]
    return out


def child() -> None:
    """Run in a fresh process (``SEEDS``): prints the verdicts and a digest of every float the
    contrast rules compare (the background's weights, each labelled response's matched weights)."""
    rows, tasks, background = _load()
    digest = hashlib.sha256(repr(background.weights).encode())
    for _, row in rows:
        found = units(row["response"][:MAX_RELEVANCE_CHARS], prefix=PREFIX)
        digest.update(repr(sorted(contrast.matched_weights(background, found).items())).encode())
    verifiers = {env_id: IFEvalVerifier(relevance_background=background, **flags(env_id)) for env_id in IDS}
    verdicts = _verdicts(verifiers, rows, tasks, _pairs(rows))
    print(json.dumps({"digest": digest.hexdigest(), "verdicts": verdicts}, sort_keys=True))


@pytest.mark.slow
def test_verdicts_are_the_same_under_every_string_hash_seed() -> None:
    read_jsonl(LABELLED[0])  # skips with the reason when the peer data is absent
    code = "from tests.ifeval.test_ifeval_determinism import child; child()"
    outputs = [json.loads(out) for out in run_under_hash_seeds(dict.fromkeys(SEEDS, code), timeout=300).values()]
    first, second = outputs
    assert len(first["verdicts"]) > 3 * 2000
    differing = sorted(k for k, v in first["verdicts"].items() if second["verdicts"].get(k) != v)
    assert differing == []
    assert first["verdicts"].keys() == second["verdicts"].keys()
    assert first["digest"] == second["digest"]
    # The tie is refused: the paste covers its home prompt (0.37 of it), not the large one.
    assert first["verdicts"]["ifeval-data-v5 ifeval:3345->ifeval:3595"] == [0.0, "wrong"]


@pytest.mark.slow
def test_verdicts_do_not_depend_on_the_order_of_calls() -> None:
    """A verifier's memos (task tables, prompt content, the background's variants) must not
    carry one verdict into another: the same pairs forwards, backwards on the same verifiers,
    and shuffled on fresh ones give the same verdicts."""
    rows, tasks, background = _load()
    pairs = _pairs(rows)[::6]
    make = lambda: {env_id: IFEvalVerifier(relevance_background=background, **flags(env_id)) for env_id in IDS[1:]}  # noqa: E731
    verifiers = make()
    forwards = _verdicts(verifiers, rows, tasks, pairs)
    backwards = _verdicts(verifiers, rows, tasks, pairs[::-1])
    shuffled_pairs = list(pairs)
    random.Random(1).shuffle(shuffled_pairs)
    shuffled = _verdicts(make(), rows, tasks, shuffled_pairs)
    assert len(forwards) > 500
    assert forwards == backwards == shuffled
    assert sum(v[0] == 0.0 for v in forwards.values()) > 30  # refusals are among them


def _tied_background() -> contrast.Background:
    """Three prompts: the response's own (task unit "rose"), its small home (two rare units) and
    a large prompt (two other rare units of the same weight and many more)."""
    prompts = ("a rose poem", "a poem for steve about kangaroos", "a long museum essay")
    own = frozenset({"rose"})
    home = frozenset({"steve", "kangar"})
    large = frozenset({"marvel", "unfold", *(f"topic{k}" for k in range(20))})
    idf = {u: 6.0 for u in own | home | large}
    return contrast.Background(
        prompts=prompts,
        units=(own, home, large),
        weights=(6.0, 12.0, 132.0),
        idf=idf,
        postings={u: tuple(i for i, s in enumerate((own, home, large)) if u in s) for u in idf},
        unseen=7.0,
        index={p: i for i, p in enumerate(prompts)},
    )


def test_equal_matched_weights_pick_the_prompt_covered_most_in_any_order() -> None:
    background = _tied_background()
    response = frozenset({"steve", "kangar", "marvel", "unfold", "hop", "ponder"})
    found = [
        contrast.answers_another_prompt(background, "a rose poem", frozenset({"rose"}), response, matched)
        for matched in ({1: 12.0, 2: 12.0}, {2: 12.0, 1: 12.0})
    ]
    assert found[0] == found[1] == {"other_prompt_weight": 12.0, "other_prompt_cover": 1.0, "own_task_weight": 0}
    assert contrast.matched_weights(background, response) == {1: 12.0, 2: 12.0}
    # Covered equally (same weight, same total): the first prompt, whatever the order met.
    twin = _tied_background()
    object.__setattr__(twin, "weights", (6.0, 12.0, 12.0))
    picks = [
        contrast.answers_another_prompt(twin, "a rose poem", frozenset({"rose"}), response, matched)
        for matched in ({1: 12.0, 2: 12.0}, {2: 12.0, 1: 12.0})
    ]
    assert picks[0] == picks[1] is not None


def test_weights_are_summed_in_no_set_order() -> None:
    """The same units in any iteration order weigh the same float (``math.fsum``)."""
    background = _tied_background()
    idf = dict(background.idf)
    idf.update({"a": 0.1, "b": 0.2, "c": 0.3, "d": 1e16, "e": -1e16})
    object.__setattr__(background, "idf", idf)
    orders = [("a", "b", "c", "d", "e"), ("d", "e", "a", "b", "c"), ("c", "d", "a", "e", "b")]
    assert {background.weight(order) for order in orders} == {0.6}
    assert len({sum(idf[u] for u in order) for order in orders}) > 1  # what a plain sum gives
