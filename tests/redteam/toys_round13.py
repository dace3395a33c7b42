"""Toy envs for round 13's attack classes: a naive one lacks the defence (and pays the class);
``LayoutReaderEnv`` has them (and pays none).

- ``BoxFirstNumberEnv``: reads the first number of the last ``\\boxed{}`` (a flat one: no braces
  inside) and nothing else: no tail, no other lines, no markup around the box, and none of the
  core's screens (``WithoutCoreScreens``: the core may refuse forged chat turns for every env).
- ``LayoutReaderEnv``: folds the response (NFKC, invisible and combining characters dropped) and
  wants exactly ``The final answer is \\boxed{X}.`` with X the gold or the same plain number
  (``6/2`` or ``3.0`` for 3: it pays those honest restatements, refuses words and numerals).
  Anything else in the response (markup, entities, turn markers, a second line) is refused:
  an allow-list of one layout, not a list of attacks.
"""

from __future__ import annotations

import re
from typing import Any

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.redteam.target import parse_value
from tests.redteam.toys import WithoutCoreScreens
from tests.redteam.toys_round12 import _MathToy, fold

_FLAT_BOX = re.compile(r"\\boxed\{([^{}]*)\}")
_NUMBER = re.compile(r"-?[0-9]+")
_LAYOUT = re.compile(r"The final answer is \\boxed\{([^{}\n]*)\}\.")


class BoxFirstNumberVerifier(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        boxes = _FLAT_BOX.findall(completion)
        number = _NUMBER.search(boxes[-1]) if boxes else None
        if number is None:
            return Verdict.failure(Reason.NO_ANSWER)
        ok = number.group(0) == str(task.answer)
        return Verdict.correct(number.group(0)) if ok else Verdict.failure(Reason.WRONG, extracted=number.group(0))


class LayoutReaderVerifier(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        m = _LAYOUT.fullmatch(fold(completion).strip())
        if m is None:
            return Verdict.failure(Reason.FORMAT_ERROR)
        content = m.group(1).strip()
        value = parse_value(content)
        ok = content == str(task.answer) or (value is not None and value == parse_value(str(task.answer)))
        return Verdict.correct(content) if ok else Verdict.failure(Reason.WRONG, extracted=content)


class BoxFirstNumberEnv(WithoutCoreScreens, _MathToy):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(BoxFirstNumberVerifier(), **kwargs)


class LayoutReaderEnv(_MathToy):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(LayoutReaderVerifier(), **kwargs)
