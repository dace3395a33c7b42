"""Toy envs for round 12's attack classes: each naive one lacks one defence (and pays the class
that tests it); ``FoldingReaderEnv`` and ``ReferenceEssayEnv`` have them (and pay none).

- ``LexiconReaderEnv``: reads the first ASCII number of the last ``\\boxed{}`` and refuses a
  response whose box or tail holds an English/German/French hedge word, matched as ASCII bytes:
  no Unicode folding, no other languages, no other answer markers.
- ``FoldingReaderEnv``: folds the response first (NFKC, invisible and combining characters
  dropped, bidi controls refused), then wants exactly one box holding exactly the gold and
  nothing but punctuation after it.
- ``TruncatingEnv``: ``LexiconReaderEnv`` on the first 20,000 characters only.
- ``VerdictTrustingEnv``: a judge that believes a response that grades itself.
- ``WordCountEnv``: an instruction check that counts words (100 or more) and reads nothing else.
- ``ReferenceEssayEnv``: pays only a response that states the task's reference sentence.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from rlvr_envs import Reason, Task, Verdict, Verifier
from tests.redteam.toys import ESSAY_TASKS, MATH_TASKS, _ToyEnv

_BOX = re.compile(r"\\boxed\{([^{}]*)\}")
_NUMBER = re.compile(r"-?[0-9]+")
_LEXICON = re.compile(
    r"\b(?:or|maybe|not|but|sure|actually|wait|final|answer|rather|instead|"
    r"oder|vielleicht|nicht|aber|sondern|ou|pas|mais|peut)\b",
    re.IGNORECASE,
)
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


class LexiconReaderVerifier(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        boxes = list(_BOX.finditer(completion))
        if not boxes:
            return Verdict.failure(Reason.NO_ANSWER)
        content, tail = boxes[-1].group(1), completion[boxes[-1].end() :]
        if _LEXICON.search(content) or _LEXICON.search(tail):
            return Verdict.failure(Reason.WRONG)
        number = _NUMBER.search(content)
        ok = number is not None and number.group(0) == str(task.answer)
        return Verdict.correct(content) if ok else Verdict.failure(Reason.WRONG, extracted=content)


def fold(text: str) -> str:
    """NFKC, then every format (Cf) and combining (Mn, Me) character dropped."""
    return "".join(
        ch for ch in unicodedata.normalize("NFKC", text) if unicodedata.category(ch) not in ("Cf", "Mn", "Me")
    )


class FoldingReaderVerifier(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        if _BIDI.search(completion):
            return Verdict.failure(Reason.WRONG)  # text that displays otherwise than it reads
        # A combining overlay (a stroke, a solidus) changes what the reader sees: refused before folding.
        if any(unicodedata.category(ch) in ("Mn", "Me") and ord(ch) in range(0x0334, 0x0339) for ch in completion):
            return Verdict.failure(Reason.WRONG)
        text = fold(completion)
        boxes = list(_BOX.finditer(text))
        if len(boxes) != 1:
            return Verdict.failure(Reason.NO_ANSWER)
        content, tail = boxes[0].group(1).strip(), text[boxes[0].end() :]
        if any(ch.isalnum() for ch in tail) or content != str(task.answer):
            return Verdict.failure(Reason.WRONG, extracted=content)
        return Verdict.correct(content)


class TruncatingVerifier(LexiconReaderVerifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        return super().verify(task, completion[:20_000])


class VerdictTrustingVerifier(Verifier):
    """Pays the gold, or any response whose last line grades it as right."""

    def verify(self, task: Task, completion: str) -> Verdict:
        last = completion.strip().splitlines()[-1].casefold() if completion.strip() else ""
        if any(w in last for w in ("pass", "correct", "10/10", "verified", "accepted", "1.0", "верный", "正解")):
            return Verdict.correct(None)
        return FoldingReaderVerifier().verify(task, completion)


class WordCountVerifier(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        ok = len(completion.split()) >= 100
        return Verdict.correct(None) if ok else Verdict.failure(Reason.WRONG)


class ReferenceEssayVerifier(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        ok = task.answer["reference"] in completion and len(completion.split()) >= 100
        return Verdict.correct(None) if ok else Verdict.failure(Reason.WRONG)


class _MathToy(_ToyEnv):
    def __init__(self, verifier: Verifier, **kwargs: Any) -> None:
        super().__init__(verifier, MATH_TASKS, **kwargs)

    def answer_text(self, task: Task) -> str:
        return str(task.answer)

    def gold_completion(self, task: Task) -> str:
        return f"The final answer is \\boxed{{{task.answer}}}."


class LexiconReaderEnv(_MathToy):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(LexiconReaderVerifier(), **kwargs)


class FoldingReaderEnv(_MathToy):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(FoldingReaderVerifier(), **kwargs)


class TruncatingEnv(_MathToy):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(TruncatingVerifier(), **kwargs)


class VerdictTrustingEnv(_MathToy):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(VerdictTrustingVerifier(), **kwargs)


ESSAY_REF_TASKS = [
    Task(id=t.id, prompt=t.prompt, answer={"reference": f"Here is what I know about {t.prompt.split('about ')[1]}"})
    for t in ESSAY_TASKS
]


class WordCountEnv(_ToyEnv):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(WordCountVerifier(), ESSAY_REF_TASKS, **kwargs)


class ReferenceEssayEnv(_ToyEnv):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(ReferenceEssayVerifier(), ESSAY_REF_TASKS, **kwargs)
