"""Round 9's speed work on the training ids gives the verdicts it gave before (issue 26).

* ``task_cache``: a verdict of a task whose details are within the limits is made by setting the
  instance's state as ``Verdict.model_construct`` sets it (field order, fields set, no extra, no
  private state), checked once against ``model_construct`` itself, which stays the fallback;
* ``relevance.constraint_sentence``: kept per sentence, read on prompts' sentences only (never a
  response's: a per-text memo would make a benchmark's repeats free);
* ``own_text``: talk to the grader is sought in texts of fewer than ``talk_words`` words, counted
  with a split bounded at ``talk_words`` pieces.

Whole verdicts of the newest training ids are compared on the labelled responses under their own
and other prompts, with salads, refusals, hostile and multilingual texts
(``test_ifeval_verify_speed_equivalence._cases``), with the direct verdicts and without.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from pydantic import ValidationError

from rlvr_envs.types import Reason, Verdict
from rlvr_ifeval import prose_jit, relevance, task_cache
from tests.ifeval.test_ifeval_verify_speed_equivalence import _cases, _newest_training_ids, _rows

_STATE = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _rows()


def _state(verdict: Verdict) -> tuple[Any, ...]:
    return (*(getattr(verdict, name) for name in _STATE), list(verdict.__dict__), verdict.model_dump_json())


@pytest.mark.parametrize("reason", list(Reason))
@pytest.mark.parametrize("reward", [0.0, 0.25, 1.0])
def test_direct_verdict_is_model_construct(reason: Reason, reward: float) -> None:
    assert task_cache._construct_checked()
    details = {"followed": 1, "total": 2, "instructions": [{"instruction_id": "x", "followed": True}]}
    given = task_cache._OK_FIELDS if reason is Reason.OK else task_cache._FAILURE_FIELDS
    if reason is Reason.OK:
        reference = Verdict.model_construct(reward=reward, passed=True, reason=reason, extracted=None, details=details)
    else:
        reference = Verdict.model_construct(
            reward=reward, passed=False, reason=reason, extracted=None, details=details, elapsed_s=0.0
        )
    made = task_cache._direct_verdict(reward, reason is Reason.OK, reason, details, given)
    assert _state(made) == _state(reference)
    assert made == reference and repr(made) == repr(reference)
    with pytest.raises(ValidationError):  # frozen, as the validated verdict
        made.reward = 0.5


def test_direct_verdicts_refused_when_they_differ(monkeypatch) -> None:
    """A pydantic whose ``model_construct`` sets more (here: a private state) turns the direct
    path off: the check compares the state, it does not assume it."""
    original = Verdict.model_construct

    def construct(*args: Any, **kwargs: Any) -> Verdict:
        made = original(*args, **kwargs)
        object.__setattr__(made, "__pydantic_private__", {"_seen": True})
        return made

    monkeypatch.setattr(Verdict, "model_construct", construct)
    assert not task_cache._construct_checked()


def test_whole_verdicts_with_and_without_direct_verdicts(rows, monkeypatch) -> None:
    prose_jit.load()
    verifiers = _newest_training_ids(rows)
    cases = list(_cases(rows, 1))[::3]
    for name, verifier in verifiers.items():
        monkeypatch.setattr(task_cache, "_direct", True)
        fast = [verifier.verify(task, response) for task, response in cases]
        monkeypatch.setattr(task_cache, "_direct", False)
        plain = [verifier.verify(task, response) for task, response in cases]
        assert [_state(v) for v in fast] == [_state(v) for v in plain], name
        assert {v.reason for v in fast} >= {Reason.OK, Reason.WRONG, Reason.NO_ANSWER}, name


def test_constraint_sentences_kept_for_prompts_only(rows, monkeypatch) -> None:
    """The memo holds prompts' sentences (per task, as the other prompt tables): a rule that
    asked it about a response would make a benchmark's repeats free and grow it per response."""
    asked: list[str] = []
    cached = relevance.constraint_sentence

    def recording(sentence: str, *args: Any) -> bool:
        asked.append(sentence)
        return cached(sentence, *args)

    monkeypatch.setattr(relevance, "constraint_sentence", recording)
    relevance._task_units.cache_clear()
    verifiers = _newest_training_ids(rows)
    asked.clear()  # (the backgrounds' prompts, read when they were built)
    prompts = {row["prompt"] for row in rows}
    for task, response in list(_cases(rows, 1))[::7]:
        prompts.add(task.prompt)
        for verifier in verifiers.values():
            verifier.verify(task, response)
    assert asked
    joined = "\x00".join(prompts)
    assert all(sentence in joined for sentence in asked)
    unwrapped = cached.__wrapped__
    assert all(cached(sentence) == unwrapped(sentence) for sentence in set(asked))


_SPACES = [" ", "  ", "\n", "\t", "\u3000", "\u2003", "\u00a0", "\x1c", "\u2028"]


def test_bounded_word_count_reads_as_the_whole_count() -> None:
    rng = random.Random(26)
    for _ in range(3000):
        pieces = [rng.choice(["a", "word", "漢字", "ü", "x.y"]) for _ in range(rng.randrange(0, 120))]
        text = "".join(p + rng.choice(_SPACES) * rng.randrange(1, 3) for p in pieces)
        if rng.random() < 0.5:
            text = rng.choice(_SPACES) + text
        bound = rng.choice([0, 1, 2, 5, 79, 80, 81, 200])
        assert (len(text.split(maxsplit=bound)) < bound) == (len(text.split()) < bound)
