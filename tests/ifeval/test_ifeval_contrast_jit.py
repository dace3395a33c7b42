"""Round 7's speed work on the training ids gives the verdicts of the plain paths (issue 26).

* ``contrast_jit``: the contrast rule's walk of the background's postings and its two picks
  (best other prompt by weight, best similarity), compiled; the plain path is
  ``contrast.matched_weights`` with ``answers_another_prompt`` and ``outranked``.
* ``copies_jit``: where an ASCII response's copies of its prompt start (``guard.strip_copies``),
  read off the response's token bytes through a hash table of the prompt's tokens; the plain
  path flags the tokens and looks up their n-grams as tuples.
* ``guard_jit``: the guard's content weights, distinct ratio and distinct counts of an ASCII
  response's tokens in one compiled pass (``tests/ifeval/test_ifeval_guard_jit.py``: figure by
  figure); the plain path is ``content_weight``, ``distinct_ratio`` and ``set`` over the tokens.
* ``refusals._TRIGGERS``: strings read off the refusal pattern, one of which every match holds;
  a short answer without any skips the pattern (the plain path tries it at every position).

Each is compared with its plain path on the labelled responses under their own prompts and
pasted under other prompts (``test_ifeval_verify_speed_equivalence._cases``: with salads,
refusals, hostile and multilingual texts), as whole verdicts of the newest ``ifeval-data`` id
and of a contrast gate with every rule on, and rule by rule.
"""

from __future__ import annotations

import pickle
import random
import re
from typing import Any

import pytest

from rlvr_ifeval import contrast, contrast_jit, guard, prose_jit, refusals, relevance
from rlvr_ifeval.contrast import Background
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.ifeval.test_ifeval_refusals import CASES as REFUSAL_CASES
from tests.ifeval.test_ifeval_verify_speed_equivalence import _cases, _newest_training_ids, _rows, _verdict


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _rows()


@pytest.fixture(scope="module")
def kernel() -> Any:
    pytest.importorskip("numba", reason="without numba the plain paths are the only ones")
    # With numba, a kernel that fails its check at load is a failure here, not a silent fallback.
    assert prose_jit.load() and prose_jit.contrast_kernel() is not None
    assert None not in prose_jit.copies_kernels()
    return prose_jit.contrast_kernel()


def _background(rows: list[dict[str, Any]]) -> Background:
    found = Background.build((r["prompt"], build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows)
    assert found is not None
    return found


def test_whole_verdicts_are_those_of_the_plain_paths(rows, kernel, monkeypatch) -> None:
    cases = list(_cases(rows, 3))
    verifiers = {
        "contrast, every rule": IFEvalVerifier(
            relevance="contrast",
            relevance_background=_background(rows),
            relevance_outrank=True,
            relevance_paste=2,
            relevance_language=True,
            relevance_genre=True,
        ),
        **_newest_training_ids(rows),
    }
    fast = {name: [_verdict(v.verify(t, r)) for t, r in cases] for name, v in verifiers.items()}
    with monkeypatch.context() as patch:
        patch.setattr(prose_jit, "_CONTRAST", None)
        patch.setattr(prose_jit, "_COPIES", (None, None))
        patch.setattr(prose_jit, "_GUARD", None)  # (the guard's counts in Python too: ``guard_jit``)
        patch.setattr(prose_jit, "_started", True)  # (no background load meanwhile)
        patch.setattr(refusals, "_TRIGGERS", ("",))  # every text tries the pattern
        plain = {name: [_verdict(v.verify(t, r)) for t, r in cases] for name, v in verifiers.items()}
    for name in verifiers:
        refused = 0
        for (task, response), ours, theirs in zip(cases, fast[name], plain[name]):
            assert ours == theirs, (name, task.id, task.prompt[:80], response[:200])
            refused += bool(ours[2] and "other_prompt_similarity" in (ours[2].get("relevance") or {}))
        # The comparison reached the rules the kernel feeds: pastes were refused by them (the
        # synth id's background is its generator's topics, not these prompts).
        assert refused > 50 or "synth" in name, (name, refused)


def test_the_walk_gives_the_plain_rules_figures_rule_by_rule(rows, kernel) -> None:
    background = _background(rows)
    rng = random.Random(7)
    walk = background.walk()
    checked = 0
    for row in rows:
        found = frozenset(relevance.units(row["response"]))
        for other in [row, *rng.sample(rows, 3)]:
            prompt = other["prompt"]
            checkers = tuple(build_checkers(other["instruction_id_list"], other["kwargs"]))
            task = relevance.task_units(prompt, checkers).units
            matched = contrast.matched_weights(background, found)
            order, values, best_i, best, similar = walk.run(
                kernel,
                found,
                background.index.get(prompt),
                task,
                contrast.MIN_RARE_UNITS * background.unseen,
                contrast.MIN_OUTRANK_COVER,
            )
            # The same floats in the same insertion order (the paste rule iterates the dict).
            assert list(contrast_jit.matched(order, values).items()) == list(matched.items())
            assert contrast._another_prompt(background, task, found, best, best_i) == (
                contrast.answers_another_prompt(background, prompt, task, found, matched)
            )
            assert contrast._outranking(background, task, found, similar) == (
                contrast.outranked(background, prompt, task, found, matched)
            )
            checked += 1
    assert checked == 4 * len(rows)


def test_the_compiled_copy_search_strips_what_the_plain_one_strips(rows, kernel, monkeypatch) -> None:
    rng = random.Random(11)
    texts = [r["response"] for r in rows if r["response"].isascii()]
    # Copies made on purpose: the prompt itself, its pieces between filler, repeated, shouted.
    for row in rows[::7]:
        prompt = row["prompt"]
        words = prompt.split()
        texts.append(prompt)
        texts.append(" ".join(w if rng.random() < 0.7 else "filler" for w in words) * 2)
        texts.append(prompt.upper() + " and then my own answer to it, which is long enough.")
    texts = [t for t in texts if t.isascii()]
    checked = copied = 0
    for text in texts:
        data = guard.ascii_token_bytes(text)
        toks = data.decode("ascii").split()
        assert toks == guard.tokens(text)
        for other in [*rng.sample(rows, 3), *[r for r in rows if r["response"] == text][:1]]:
            profile = guard.prompt_profile(other["prompt"], "verbatim")
            expected = [other["prompt"][:60]] if rng.random() < 0.2 else []
            fast = guard.strip_copies(toks, profile, expected, data)
            with monkeypatch.context() as patch:
                patch.setattr(prose_jit, "_COPIES", (None, None))
                plain = guard.strip_copies(toks, profile, expected, data)
            assert fast == plain, (other["prompt"][:80], text[:200])
            checked += 1
            copied += fast.copied > 0
    assert checked > 2000 and copied > 100, (checked, copied)


def test_the_walk_is_shared_by_variants_and_never_pickled(rows, kernel) -> None:
    background = _background(rows)
    walk = background.walk()
    twin = background.variant(outrank=True, paste=2)
    assert twin.walk() is walk
    restored = pickle.loads(pickle.dumps(twin))
    assert "_walk" not in restored.__dict__
    assert restored.walk() is not walk and restored.walk().ids == walk.ids


def test_ties_pick_the_prompt_the_plain_scan_picks(kernel) -> None:
    # Equal matched weights: the prompt covered most, then the first (contrast's tie-break).
    assert contrast_jit.check(kernel)
    units = [frozenset({"rose", "poem"}), frozenset({"rose", "garden", "soil"}), frozenset({"rose", "poem", "x"})]
    units += [frozenset({"tax", "law"})] * 3
    background = Background.build([(" ".join(sorted(u)) + f" {i}", ()) for i, u in enumerate(units)])
    assert background is not None
    for response in (frozenset({"rose", "poem"}), frozenset({"rose"}), frozenset({"tax", "law", "rose"})):
        for own in range(len(units)):
            prompt = background.prompts[own]
            task = background.units[own]
            matched = contrast.matched_weights(background, response)
            _, _, best_i, best, _ = background.walk().run(kernel, response, own, task, 0.1, contrast.MIN_OUTRANK_COVER)
            picks = [(w, -background.weights[i], -i) for i, w in matched.items() if i != own and w >= 0.1]
            assert (best_i, best) == ((-max(picks)[2], max(picks)[0]) if picks else (-1, 0.0)), (prompt, response)


def test_necessary_strings_are_read_off_the_pattern() -> None:
    def strings(pattern: str) -> frozenset[str] | None:
        return refusals.necessary_strings(re._parser.parse(pattern).data)  # type: ignore[attr-defined]

    assert strings("abc") == {"abc"}
    assert strings("a(?:bc)?d|xyz") == {"a", "xyz"}  # an optional part gives nothing
    assert strings("(?:foo|bar)+baz?") == {"foo", "bar"}  # (longer than "ba")
    assert strings("x*|abc") is None  # a branch without a string: no filter
    assert strings("d[ée]sol") == {"sol"}
    assert refusals._triggers(re.compile("sorry", re.IGNORECASE)) == ("",)


def test_every_refusal_match_holds_a_trigger(rows) -> None:
    """The filter's promise, on every match of the pattern in the refusal battery (every
    language, spaced and squashed) and in the labelled responses."""
    texts = [text for _, text in REFUSAL_CASES] + [r["response"] for r in rows]
    matches = 0
    for text in texts:
        for match in refusals._SQUASHED_RE.finditer(refusals.squash(text)):
            assert any(t in match.group() for t in refusals._TRIGGERS), match.group()
            matches += 1
    assert matches > len(REFUSAL_CASES)
