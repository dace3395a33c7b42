"""A toy family used by the core tests: integer addition, exact match on the extracted answer."""

from __future__ import annotations

import os
import random
import time

from rlvr_envs import DatasetEnv, ProceduralEnv, Reason, Task, Verdict, Verifier
from rlvr_envs.answer_tail import taken_back
from rlvr_envs.extract import extract_answer


class AddVerifier(Verifier):
    def __init__(self, methods: tuple[str, ...] = ("answer_tag", "boxed", "hashes", "answer_is")) -> None:
        self.methods = methods

    def verify(self, task: Task, completion: str) -> Verdict:
        found = extract_answer(completion, self.methods)
        if found is None:
            return Verdict.failure(Reason.NO_ANSWER)
        if found.text.strip() == str(task.answer) and taken_back(completion, found) is None:
            return Verdict.correct(found.text)
        return Verdict.failure(Reason.WRONG, extracted=found.text)


class HangingVerifier(Verifier):
    time_budget_s = 0.5

    def verify(self, task: Task, completion: str) -> Verdict:
        if completion == "hang":
            while True:
                time.sleep(0.01)
        if completion == "crash":
            os.kill(os.getpid(), 11)
        if completion == "raise":
            raise RuntimeError("verifier bug")
        return AddVerifier().verify(task, completion)


class ToyAddEnv(ProceduralEnv):
    family = "toy"

    def __init__(self, digits: int = 2, **kwargs) -> None:
        super().__init__(kwargs.pop("verifier", AddVerifier()), **kwargs)
        self.digits = digits

    def generate(self, rng: random.Random) -> Task:
        a, b = (rng.randint(0, 10**self.digits - 1) for _ in range(2))
        return Task(id="add", prompt=f"What is {a} + {b}?", answer=a + b)

    def answer_text(self, task: Task) -> str:
        return str(task.answer)


class ToyListEnv(DatasetEnv):
    family = "toy"

    def __init__(self, n: int = 5, **kwargs) -> None:
        super().__init__(AddVerifier(), **kwargs)
        self.n = n

    def _load_tasks(self):
        return [Task(id=f"t{i}", prompt=f"What is {i} + {i}?", answer=2 * i) for i in range(self.n)]

    def answer_text(self, task: Task) -> str:
        return str(task.answer)


class LoadRecordingVerifier(AddVerifier):
    """Appends its worker's pid to ``path`` whenever it is loaded (unpickled), after a slow
    warm-up: for checking which workers a pool has loaded it in."""

    def __init__(self, path: str, warm_up_s: float = 0.0) -> None:
        super().__init__()
        self.path = path
        self.warm_up_s = warm_up_s

    def __setstate__(self, state: dict) -> None:
        import os
        import time

        self.__dict__.update(state)
        time.sleep(self.warm_up_s)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()}\n")


class SlowPidVerifier(Verifier):
    """Takes ``seconds`` per call and reports which worker process ran it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def verify(self, task: Task, completion: str) -> Verdict:
        time.sleep(self.seconds)
        return Verdict.correct(details={"pid": os.getpid()})
