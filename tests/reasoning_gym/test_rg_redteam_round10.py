"""Issue 26, round 10 on reasoning_gym: one name given two values.

A fuzz of every rg id (3 tasks each, the gold rewritten 15-25 ways: case, spacing, extra tokens,
partial, reordered, sorted or doubled lists, sets, numeric tolerance, the gold repeated or offered
with another value) against the datasets' own ``score_answer`` found us looser than a dataset only
where the two say the same thing ("True"/"TRUE", "5.0" for 5, double spaces in a grid, 1e-06 for a
root of 0.0 that the scorer pays 0.99999). It found two multiple-answer holes that both we and
the scorer paid, since a mapping is read last-wins:

* cryptarithm: "V=9,D=4,...,V=8" (the letter V offered 9 first, then the gold's 8) scored 1;
* graph_color: {"0": 2, "0": 1, ...} (vertex 0 coloured twice) scored 1.

``compare.named_twice`` refuses an answer that gives one name two values (``A=1 ... A=2``, a JSON
object or Python dict literal with a key twice) unless the gold itself does.
"""

from __future__ import annotations

import json
from functools import cache

import pytest

import rlvr_envs
from rlvr_reasoning_gym.compare import named_twice


@cache
def _env(name: str) -> rlvr_envs.Env:
    return rlvr_envs.make(f"rg-{name}", isolation="inline")


def _verify(name: str, seed: int, answer_of) -> tuple[bool, bool]:
    env = _env(name)
    task = env.sample(1, seed=seed)[0]
    gold = env.answer_text(task)
    assert gold is not None
    honest = env.verify(task, env.prompt_format.render_answer(gold)).passed
    return honest, env.verify(task, env.prompt_format.render_answer(answer_of(gold))).passed


def _other_digit(value: str) -> str:
    return str((int(value) + 1) % 10)


def _crypt_first(gold: str) -> str:
    key, value = gold.split(",")[-1].split("=")
    return f"{key}={_other_digit(value)},{gold}"


def _crypt_middle(gold: str) -> str:
    parts = gold.split(",")
    key, value = parts[0].split("=")
    return ", ".join([*parts[1:3], f"{key} = {_other_digit(value)}", *parts[:1], *parts[3:]])


def _colour_first(gold: str) -> str:
    colours = json.loads(gold)
    key = next(iter(colours))
    return "{" + f"{json.dumps(key)}: {colours[key] % 3 + 1}, " + gold.strip()[1:]


def _colour_python(gold: str) -> str:
    colours = json.loads(gold)
    key = next(iter(colours))
    body = ", ".join(f"'{k}': {v}" for k, v in colours.items())
    return "{" + f"'{key}': {colours[key] % 3 + 1}, " + body + "}"


HOSTILE = [
    ("cryptarithm", _crypt_first),
    ("cryptarithm", _crypt_middle),
    ("graph_color", _colour_first),
    ("graph_color", _colour_python),
]


@pytest.mark.parametrize(("name", "answer_of"), HOSTILE, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("seed", [1, 2])
def test_one_name_with_two_values_is_not_paid(name, answer_of, seed):
    honest, hostile = _verify(name, seed, answer_of)
    assert honest and not hostile


@pytest.mark.parametrize(
    ("text", "twice"),
    [
        ("A=1, B=2, A=3", True),
        ("A = 1,B=2,A=1", True),  # the same value twice is still two answers' shape; no gold has it
        ('{"0": 1, "1": 2, "0": 2}', True),
        ("{'a': 1, 'b': {'c': 1, 'c': 2}}", True),
        ('[{"x": 1}, {"x": 2}]', False),  # one key in each of two objects
        ("A=1, B=2, C=3", False),
        ('{"0": 1, "1": 2}', False),
        ("x == 3 and x == 4", False),  # comparisons, not assignments
        ('"x: a=1, a=2"', True),  # a gold like this is exempt in ``judge``: see the next test
        ("-5*X**7/8 + 7*X**3 + C", False),
        ("{" * 5000, False),  # never raises
        ("", False),
    ],
)
def test_named_twice_reads_assignments_and_object_keys(text, twice):
    assert named_twice(text) is twice


def test_a_gold_that_names_a_key_twice_is_still_paid():
    from rlvr_envs.types import Task
    from rlvr_reasoning_gym.catalog import RULES
    from rlvr_reasoning_gym.verifier import judge

    payload = {"dataset": "codeio", "answer": '"x: a=1, a=2"', "metadata": {}}
    task = Task(id="t", prompt="p", answer=payload)
    assert judge(RULES["codeio"], "codeio", '"x: a=1, a=2"', payload, task)
    assert not judge(RULES["codeio"], "codeio", '"x: a=1, a=3"', payload, task)
