"""math-verify used the way its README shows, wrapped as a ``Verifier`` for side-by-side runs.

Used by ``bench/math_verify.py`` and handy for checking a disagreement by hand. Its
signal-based timeouts are off, as they must be off the main thread; run it through the
verification pool for a hard budget.
"""

from __future__ import annotations

import logging
from typing import Any

from rlvr_envs import Reason, Task, Verdict, Verifier


class MathVerifyPeer(Verifier):
    """``verify(parse(gold), parse(completion))`` with math-verify's own extraction."""

    def __init__(self, precision: int = 6, strict: bool = True, set_relation: bool = False, latex_only: bool = False):
        self.precision, self.strict, self.set_relation, self.latex_only = precision, strict, set_relation, latex_only

    def verify(self, task: Task, completion: str) -> Verdict:
        from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

        logging.getLogger("math_verify").setLevel(logging.ERROR)
        configs: list[Any] = [LatexExtractionConfig()]
        if not self.latex_only:
            configs.append(ExprExtractionConfig())
        gold_text = str(task.answer)
        if not any(marker in gold_text for marker in ("$", "\\boxed", "\\(", "\\[")):
            gold_text = f"${gold_text}$"
        gold = parse(gold_text, configs, parsing_timeout=None)
        pred = parse(completion, configs, parsing_timeout=None)
        equal = verify(
            gold,
            pred,
            float_rounding=self.precision,
            strict=self.strict,
            allow_set_relation_comp=self.set_relation,
            timeout_seconds=None,
        )
        return Verdict.correct() if equal else Verdict.failure(Reason.WRONG)
