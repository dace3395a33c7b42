"""The IFEval family's verifier: a response checked against the task's instructions.

``IFEvalVerifier`` is what the pool ships to its workers; it holds configuration only. The
degenerate-response guard (``guard=True``) rejects texts that do not attempt the task; with
``guard=False`` the verdict is the reference checker's, which is how the benchmark presets
score by default.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rlvr_envs.errors import ConfigurationError
from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.verifier import Verifier
from rlvr_ifeval import reading, text
from rlvr_ifeval.base import Checker, InstructionError
from rlvr_ifeval.contrast import Background
from rlvr_ifeval.formats import OWN_FORMATS, VERBATIM_FORMAT, resolve_format, user_format  # noqa: F401
from rlvr_ifeval.genre import not_verse, too_short
from rlvr_ifeval.guard import GUARD_RULES, NO_WORDS, REFUSAL, WORD_SALAD, content_rejection
from rlvr_ifeval.own_text import body_on_topic, hidden_removed, nothing_of_its_own, overlap_waived, own_text
from rlvr_ifeval.pasted import cross_lingual
from rlvr_ifeval.reader_view import UNREAD, unread_instructions
from rlvr_ifeval.refusals import no_content, offers_refusal, refusal
from rlvr_ifeval.relevance import (
    MIN_RESPONSE_WORDS,
    MIN_SHARE,
    MIN_TASK_UNITS,
    OFF_TOPIC,
    RELEVANCE_MODES,
    ROUND_11_PASTE,
    off_topic,
    reading_round,
    salad_rejection,
    task_units,
)
from rlvr_ifeval.response_language import wrong_language
from rlvr_ifeval.round13 import ROUND_13_PASTE, round13_text
from rlvr_ifeval.round14 import ROUND_14_PASTE, round14_text
from rlvr_ifeval.round15 import ROUND_15_PASTE, round15_text
from rlvr_ifeval.scoring import instruction_details
from rlvr_ifeval.stuffing import ROUND_12_PASTE, stuffed_text
from rlvr_ifeval.task_cache import TaskCache, TaskPlan
from rlvr_ifeval.task_cache import verdict as task_verdict

_VERBATIM = VERBATIM_FORMAT


GUARD_WORDS = ("scripts", "w_runs")
"""How the guard counts words: ``scripts`` (``text.count_words_any_script``: Chinese, Japanese,
Thai and other scripts written without spaces counted per character) or ``w_runs`` (runs of
``\\w``, which makes a whole Chinese sentence one word: the ``-v0`` ids keep it)."""


DEFAULT_MIN_WORDS = 5
_TASKS = TaskCache()
"""Per-task checkers and verdict plan, shared by every verifier of the process."""
_THINK_RE = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])  # the same set
MAX_CONTROL_FRACTION = 0.005


def _answer_of(tail: str) -> str:
    """The text from the first ``<answer>`` of ``tail`` to the last ``</answer>`` after it, else
    ``tail`` (what ``re.search(r"<answer>(.*)</answer>", tail, re.DOTALL)`` finds). Two string
    searches: that pattern, tried at every ``<answer>``, read the rest of the text from each
    (quadratic: 2.4 s of CPU for 10,000 of them without a closing tag, round 11). Only the first
    can match: a closing tag after a later one is after the first too."""
    start = tail.find("<answer>")
    if start < 0:
        return tail
    end = tail.rfind("</answer>", start + len("<answer>"))
    return tail[start + len("<answer>") : end] if end >= 0 else tail


def canonical_answer(answer: Any) -> str:
    return json.dumps(answer, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _normalise(value: str) -> str:
    # str.split() and the regex \s both split on str.isspace() characters. ASCII text casefolds
    # as it lowers, and lower() has an ASCII fast path that casefold() lacks.
    joined = " ".join(value.split())
    return joined.lower() if joined.isascii() else joined.casefold()


_FIRST_WINDOW = 256


def _normalised_head(response: str, prompts: Sequence[str]) -> tuple[str, bool]:
    """A beginning of ``_normalise(response)`` that settles whether it starts with each prompt,
    and whether it is all of it.

    Normalising works per character and per whitespace run, so normalising the response's first
    characters gives a beginning of the normalised response. It settles a prompt once it is at
    least as long or already differs from it; the window grows until every prompt is settled.
    """
    window = _FIRST_WINDOW
    while True:
        head = _normalise(response[:window])
        if window >= len(response):
            return head, True
        for prompt in prompts:
            if len(prompt) > len(head) and prompt.startswith(head):
                break  # (a loop, not any() over a generator: one frame fewer a verdict)
        else:
            return head, False
        window *= 4


def _control_characters(response: str) -> int:
    if response.isascii():  # bytes.translate deletes in C, far faster than a regex scan
        raw = response.encode("ascii")
        return len(raw) - len(raw.translate(None, _CONTROL_BYTES))
    return len(_CONTROL_RE.findall(response))


@lru_cache(maxsize=4096)
def _normalised_prompts(prompt: str, prompt_format: str) -> tuple[str, ...]:
    """The task prompt as an echo of it would start, longest first (tasks repeat in a batch)."""
    prompts = {_normalise(prompt)}
    fmt = user_format(prompt_format)
    if fmt is not None:
        prompts.add(_normalise(fmt.user_message(prompt)))
    return tuple(sorted(prompts, key=len, reverse=True))


@dataclass(frozen=True)
class _Derived:
    """What the basic rules read from a task and a prompt format, kept in the task's plan
    (``TaskPlan.formats``) instead of looked up on every verdict."""

    prompts: tuple[str, ...]  # ``_normalised_prompts``, the empty one left out
    short_answer: bool  # ``TaskPlan.short_answer``


def _short_answer(derived: _Derived | None, checkers: Sequence[Checker]) -> bool:
    """Whether an instruction allows a short answer (settled in the plan where there is one)."""
    return derived.short_answer if derived is not None else any(c.allows_short_answer() for c in checkers)


def _derived(plan: TaskPlan, prompt: str, prompt_format: str) -> _Derived:
    found = plan.formats.get(prompt_format)
    if found is None:
        prompts = tuple(p for p in _normalised_prompts(prompt, prompt_format) if p)
        found = _Derived(prompts, plan.short_answer)
        plan.formats[prompt_format] = found  # (two threads may both make it: the same value)
    return found


class IFEvalVerifier(Verifier):
    """Checks a response against the task's instructions.

    Args:
        partial_credit: reward the fraction of instructions followed instead of all-or-nothing.
        loose: use the reference's loose mode (response variants) instead of strict.
        guard: reject degenerate responses (empty, binary, a prompt echo, fewer than
            ``min_words`` words where no instruction asks for a short answer) with
            ``no_answer``; False scores exactly as the reference checker does.
        min_words: the guard's word minimum; 0 keeps only the empty/binary/echo checks.
        guard_words: how the guard counts words (``GUARD_WORDS``).
        guard_rules: ``"v1"``: the guard also applies the content rules of ``rlvr_ifeval.guard``
            (copies of the prompt anywhere, floods, numbers, the instruction's own words,
            refusals); ``"v2"``: ``"v1"`` and, on every task, refusals in eight languages
            with or without spaces (``rlvr_ifeval.refusals``) and word salads
            (``relevance.salad_rejection``); ``"v0"``: the basic rules only. Default:
            ``"v0"`` with ``guard_words="w_runs"`` (the ``-v0`` ids), else ``"v2"``.
        prompt_format: name of the env's prompt format; ``r1`` requires a closed ``<think>``.
        relevance: whether a response must address its prompt's task to earn reward
            (``RELEVANCE_MODES``): ``"off"`` (the reference's scoring), ``"overlap"`` (the
            model-free gate of ``rlvr_ifeval.relevance``: the training ids' default) or
            ``"contrast"`` (the overlap gate, the interleaved-prompt rule and the contrast with
            ``relevance_background``: the training ids' default since ``ifeval-data-v3``) or
            ``"judge"`` (a judge model asked through ``rlvr_judge.relevance``; needs the judge
            family and an endpoint). An off-topic response gets reason ``wrong``, reward 0,
            ``details["rejected"]`` = ``relevance.OFF_TOPIC`` and ``details["relevance"]``.
            Asked only when the instruction score is above 0.
        relevance_min_units, relevance_min_words, relevance_min_share: for
            ``relevance="overlap"``: tasks with fewer units and responses with fewer words are not
            judged; a judged response must hold this share of the task's units
            (``relevance.off_topic``).
        relevance_judge: for ``relevance="judge"``: a ``JudgeClient``, or a dict of
            ``JudgeRelevance`` arguments (``base_url``, ``model``, client options); None reads
            ``$RLVR_JUDGE_BASE_URL``/``$RLVR_JUDGE_MODEL``.
        relevance_background: for ``relevance="contrast"``: the prompts a response is compared
            with (a ``contrast.Background``, or ``(prompt, checkers)`` pairs); the envs set it
            to their own data. None: the contrast rule is not applied.
        relevance_language: with a relevance gate (not ``judge``), also refuse a response written
            in a language its prompt does not allow (``rlvr_ifeval.response_language``; the
            training ids since ``ifeval-data-v4`` / ``ifeval-synth-v5``).
        relevance_genre: likewise, refuse a response to a request for verse (a poem, song, rap,
            limerick ...) that is not written in lines of verse, or to a request for a long form (an
            essay, story, blog post ...) that is a few words long (``rlvr_ifeval.genre``; the same ids).
        relevance_outrank: with ``relevance="contrast"``, also refuse a response that another
            background prompt is far more similar to than its own task (``contrast.outranked``;
            the same ids).
        relevance_paste: with ``relevance="contrast"``, also refuse a response that shares no
            content word with its whole prompt while another background prompt matches it well,
            and do not ask the overlap rule about a response written in the language the prompt
            names (``rlvr_ifeval.pasted``; ``ifeval-data-v5`` / ``ifeval-synth-v6``); ``2``: with
            round 6's rules too (``ifeval-data-v6`` / ``ifeval-synth-v7``); ``3``: with round 7's
            (``ifeval-data-v7``); ``4``: with round 8's, the response judged on its own text, less
            what it copied from the prompt, hid or told its grader (``rlvr_ifeval.own_text``;
            ``ifeval-data-v8`` / ``ifeval-synth-v8``); ``5``: with round 9's, the request said back in
            other words taken out too and "a letter to ..." read as a task (``rlvr_ifeval.restated``;
            ``ifeval-data-v9`` / ``ifeval-synth-v9``); ``6``: with round 10's, a response that names
            its task only where nothing else takes it up refused (``rlvr_ifeval.detached``;
            ``ifeval-data-v10`` / ``ifeval-synth-v10``); ``7``: with round 11's, a task written
            without spaces read without its request frame (``relevance.reading_round``;
            ``ifeval-data-v11`` / ``ifeval-synth-v11``).
    """

    # Loading language detection (langdetect's profiles, numba's kernels: 2-5 s) happens when a
    # worker unpickles the verifier (``__setstate__``), which the pool does not budget.
    time_budget_s = 5.0

    # Every checker is linear (tests/ifeval/test_ifeval_hostile.py), so cost follows length alone.
    # ``bench/cheap_verifiers.py`` (IFEval, IFBench, synthetic; every instruction, hostile text)
    # measured the worst call at 100,000 characters at 130-200 ms of CPU, 2.6-3.9% of the 5 s
    # budget (250-490 ms wall on the loaded shared 2-core machine), and at the full 2,000,000-
    # character cap at 2.4-4.4 s wall, up to 87% of it: under ``isolation="auto"`` completions up
    # to 100,000 characters run inline, longer ones go to the pool's hard budget.
    bounded_cheap = True
    inline_max_chars = 100_000

    def __init__(
        self,
        *,
        partial_credit: bool = False,
        loose: bool = False,
        guard: bool = True,
        min_words: int = DEFAULT_MIN_WORDS,
        guard_words: str = "scripts",
        prompt_format: str = _VERBATIM.name,
        guard_rules: str | None = None,
        relevance: str = "off",
        relevance_judge: Any = None,
        relevance_min_units: int = MIN_TASK_UNITS,
        relevance_min_words: int = MIN_RESPONSE_WORDS,
        relevance_min_share: float = MIN_SHARE,
        relevance_background: Any = None,
        relevance_language: bool = False,
        relevance_genre: bool = False,
        relevance_outrank: bool = False,
        relevance_paste: bool | int = False,
    ) -> None:
        if min_words < 0:
            raise ValueError(f"min_words must be non-negative, got {min_words}")
        if guard_words not in GUARD_WORDS:
            raise ValueError(f"guard_words must be one of {GUARD_WORDS}, got {guard_words!r}")
        self.partial_credit = partial_credit
        self.loose = loose
        self.guard = guard
        self.min_words = min_words
        self.guard_words = guard_words
        self.prompt_format = prompt_format
        if guard_rules is None:
            guard_rules = "v0" if guard_words == "w_runs" else "v2"
        if guard_rules not in GUARD_RULES:
            raise ValueError(f"guard_rules must be one of {GUARD_RULES}, got {guard_rules!r}")
        self.guard_rules = guard_rules
        if relevance not in RELEVANCE_MODES:
            raise ValueError(f"relevance must be one of {RELEVANCE_MODES}, got {relevance!r}")
        self.relevance = relevance
        self.relevance_min_units = relevance_min_units
        self.relevance_min_words = relevance_min_words
        if not 0 <= relevance_min_share <= 1:
            raise ValueError(f"relevance_min_share must be in [0, 1], got {relevance_min_share}")
        self.relevance_min_share = relevance_min_share
        self.relevance_judge = _judge_relevance(relevance_judge) if relevance == "judge" else None
        self.relevance_background = _background(relevance_background)
        self.relevance_language = bool(relevance_language)
        self.relevance_genre = bool(relevance_genre)
        self.relevance_outrank = bool(relevance_outrank)
        self.relevance_paste = int(relevance_paste)  # True is 1 (round 5), 2 round 6
        if self.relevance_judge is not None:
            # Judge calls are network-bound and may retry: not a cheap inline check.
            self.bounded_cheap = False
            self.time_budget_s = max(type(self).time_budget_s, self.relevance_judge.budget_s + 5.0)

    def row_state(self) -> dict:
        """The state an exported row carries: all but ``relevance_background``.

        The background is derived from the env's data (541 prompts: ~350 KB of JSON, on every
        row). A server started with the id and its data (``rlvr-envs serve ifeval-data-v3 --arg
        data=...``) rebuilds it; one started without ids checks these rows without the contrast
        rule (the overlap, salad and refusal rules stay)."""
        state = dict(self.__dict__)
        state["relevance_background"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        # Verifiers pickled before guard/guard_words existed keep their old behaviour.
        state.setdefault("guard", True)
        state.setdefault("guard_words", "w_runs")
        state.setdefault("guard_rules", "v0")
        state.setdefault("relevance", "off")
        state.setdefault("relevance_judge", None)
        state.setdefault("relevance_min_units", MIN_TASK_UNITS)
        state.setdefault("relevance_min_words", MIN_RESPONSE_WORDS)
        state.setdefault("relevance_min_share", MIN_SHARE)
        state.setdefault("relevance_background", None)
        state.setdefault("relevance_language", False)
        state.setdefault("relevance_genre", False)
        state.setdefault("relevance_outrank", False)
        state.setdefault("relevance_paste", False)
        self.__dict__.update(state)
        try:
            from rlvr_ifeval.language import warm_up

            warm_up()
        except Exception:  # a broken install shows up in the verdicts, with its reason
            pass

    def count_words(self, value: str) -> int:
        """Words as the guard counts them (``guard_words``)."""
        if self.guard_words == "w_runs":
            return text.count_words(value)
        return text.count_words_any_script(value)

    def response_text(self, completion: str) -> str | None:
        """The part of a completion that is the response (None: required layout missing)."""
        if self.prompt_format == "r1":
            __, sep, tail = completion.rpartition("</think>")
            if not sep:
                return None
            return _answer_of(tail)
        # Reasoning models often lead with a think block even when not asked to; it is not the response.
        think = _THINK_RE.match(completion)  # anchored at the start: sub() would try every position
        return completion[think.end() :] if think else completion

    def degenerate(
        self, task: Task, response: str, checkers: Sequence[Checker], plan: TaskPlan | None = None
    ) -> str | None:
        """Why a response is not an attempt at the task, or None. ``plan``: the task's plan
        (``verify`` passes it: what the rules read from the task alone is kept there)."""
        derived = _derived(plan, task.prompt, self.prompt_format) if plan is not None else None
        why = self._basic_degenerate(task, response, checkers, derived)
        if why is not None or self.guard_rules == "v0" or not self.min_words:
            return why
        v2 = self.guard_rules == "v2"
        # A short answer may be short, not a refusal (unless the instruction offers one).
        if v2 and no_content(response):
            return NO_WORDS
        if v2 and refusal(response, self.min_words) is not None and not offers_refusal(checkers):
            return REFUSAL
        if not _short_answer(derived, checkers):
            # A fixed option or a copy is made of the prompt's own material by design.
            # (called as the reference rules' own is: the tests install it in its place)
            why = content_rejection(task.prompt, self.prompt_format, response, checkers, self.min_words)
        # Under an overlap gate, salads are its to refuse (reason wrong, off-topic, with figures).
        salads_here = self.relevance in ("off", "judge")
        if why is None and v2 and salads_here and salad_rejection(response, checkers, task.prompt) is not None:
            return WORD_SALAD
        return why

    def _basic_degenerate(
        self, task: Task, response: str, checkers: Sequence[Checker], derived: _Derived | None = None
    ) -> str | None:
        """The ``v0`` rules: empty, binary, an echo at the start, too few words."""
        if not response.strip():  # what str.split() drops, strip() strips: nothing else is left
            return "empty response"
        if _control_characters(response) > MAX_CONTROL_FRACTION * len(response):
            return "binary data, not text"
        prompts = (
            derived.prompts
            if derived is not None
            else [p for p in _normalised_prompts(task.prompt, self.prompt_format) if p]
        )
        head, complete = _normalised_head(response, prompts)
        body: str | None = head if complete else None
        for prompt in prompts:
            if head.startswith(prompt):
                body = (head if complete else _normalise(response))[len(prompt) :]
                if self.count_words(body) < max(self.min_words, 1):
                    return "the response only echoes the prompt"
                break
        if self.min_words:
            if body is None and self.count_words(head) >= self.min_words:
                return None  # the beginning alone has enough words
            if self.count_words(_normalise(response) if body is None else body) < self.min_words:
                if not _short_answer(derived, checkers):
                    return f"fewer than {self.min_words} words, and no instruction asks for a short answer"
        return None

    def verify(self, task: Task, completion: str) -> Verdict:
        if not reading.ROUND_15:
            return self._verify(task, completion)
        # One reading of the response for the whole verdict (``rlvr_ifeval.reading``): a text the
        # rules read into units once is not read again; closed when the verdict is made.
        token = reading.open_reading()
        try:
            return self._verify(task, completion)
        finally:
            reading.close_reading(token)

    def _verify(self, task: Task, completion: str) -> Verdict:
        try:
            plan = _TASKS.plan(task, canonical_answer)
        except (InstructionError, ValueError, TypeError) as exc:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"malformed task: {exc}"[:500]})
        checkers = plan.checkers
        if not checkers:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "the task lists no instructions"})
        response = self.response_text(completion)
        if response is None:
            return Verdict.failure(Reason.FORMAT_ERROR, details={"error": "no closing </think> before the response"})
        why = self.degenerate(task, response, checkers, plan) if self.guard else None
        followed, instructions = instruction_details(checkers, response, loose=self.loose)
        total = len(instructions)
        details: dict[str, Any] = {
            "mode": "loose" if self.loose else "strict",
            "followed": followed,
            "total": total,
            "instructions": instructions,
        }
        if why is not None:
            # Rejected, but the per-instruction results are still there to read.
            return task_verdict(plan, Reason.NO_ANSWER, {"rejected": why, **details}, 0.0)
        reward = 1.0 if followed == total else followed / total if self.partial_credit else 0.0
        if reward > 0 and self.relevance_paste >= 4:  # round 8: followed as a reader sees it too
            # round 15: and without what a reader never sees (a keyword only in a comment)
            hidden = hidden_removed if self.relevance_paste >= ROUND_15_PASTE else None
            unread = unread_instructions(checkers, response, self.loose, hidden)
            if unread is not None:
                return task_verdict(plan, Reason.WRONG, {"rejected": UNREAD, **unread, **details}, 0.0)
        if reward > 0 and self.relevance != "off":
            with reading_round(self.relevance_paste >= ROUND_11_PASTE):  # older ids keep their verdicts
                gate = self._relevance(task, response, checkers)
            if isinstance(gate, Verdict):
                return gate
            if gate is not None:
                return task_verdict(plan, Reason.WRONG, {"rejected": OFF_TOPIC, "relevance": gate, **details}, 0.0)
        if followed == total:
            return task_verdict(plan, Reason.OK, details, 1.0)
        return task_verdict(plan, Reason.WRONG, details, reward)

    def _relevance(
        self, task: Task, response: str, checkers: Sequence[Checker], own: bool = False
    ) -> dict[str, Any] | Verdict | None:
        """None when the response addresses the task; what the gate found when it does not; a
        ``verifier_error`` verdict when the judge could not answer (never a reward). ``own``: the
        response is already its own text (``rlvr_ifeval.own_text``)."""
        if self.relevance_judge is None:
            if self.relevance_paste >= 4 and not own:
                # Round 8: what the response copied from its prompt, hid or told its grader is
                # taken out, and what is left must answer the task on its own.
                # Round 9: the request said back in other words too (``rlvr_ifeval.restated``).
                kept = own_text(
                    task.prompt, response, checkers, self.relevance_min_words, restated=self.relevance_paste >= 5
                )
                if kept.removed:
                    left = nothing_of_its_own(kept, task.prompt, checkers, self.min_words, self.count_words)
                    if left is not None:
                        return left
                    # Round 9: a body after the request said back that names some of the task is
                    # judged with the whole response below, not on its own.
                    on_topic = body_on_topic(kept, task.prompt, checkers)
                    judged = None if on_topic else self._relevance(task, kept.text, checkers, own=True)
                    if judged is not None and not overlap_waived(kept, judged):
                        return {**judged, "removed": list(kept.removed)} if isinstance(judged, dict) else judged
            background = self.relevance_background if self.relevance == "contrast" else None
            if background is not None and (self.relevance_outrank or self.relevance_paste):
                background = background.variant(outrank=self.relevance_outrank, paste=self.relevance_paste)
            if self.relevance_language:
                found = wrong_language(task.prompt, response, checkers)
                if found is not None:
                    return found
            if self.relevance_genre:
                found = not_verse(task.prompt, response, checkers) or too_short(
                    task.prompt, response, checkers, round8=self.relevance_paste >= 4, round9=self.relevance_paste >= 5
                )
                if found is not None:
                    return found
            found = off_topic(
                task.prompt,
                response,
                checkers,
                min_units=self.relevance_min_units,
                min_words=self.relevance_min_words,
                min_share=self.relevance_min_share,
                v0=self.relevance == "overlap-v0",
                interleave=self.relevance == "contrast",
                background=background,
                round9=self.relevance_paste >= 5,
                round10=self.relevance_paste >= 6,
            )
            # The overlap rule (its figures: ``needed``) cannot expect the prompt's English words
            # in an answer written in the language the prompt names; asked only when it refuses.
            if (
                found is not None
                and "needed" in found
                and self.relevance_paste
                and cross_lingual(task.prompt, response)
            ):
                return None
            if found is None and not own and self.relevance_paste >= ROUND_12_PASTE:
                # Round 12 (rlvr_ifeval.stuffing): the task's words stuffed into a text on
                # something else (a repeated frame, a label only, two alphabets word by word).
                found = stuffed_text(task.prompt, response, checkers, self.relevance_min_share)
                if found is None and self.relevance_paste >= ROUND_13_PASTE:
                    # Round 13 (rlvr_ifeval.round13): asides, a label over a chance meeting, part
                    # of the prompt said back.
                    found = round13_text(task.prompt, response, checkers, self.relevance_min_share)
                if found is None and self.relevance_paste >= ROUND_14_PASTE:
                    # Round 14 (rlvr_ifeval.round14): what the overlap rule's bounds leave unjudged.
                    found = round14_text(
                        task.prompt,
                        response,
                        checkers,
                        self.relevance_min_share,
                        self.relevance_min_units,
                        self.relevance_min_words,
                    )
                if found is None and self.relevance_paste >= ROUND_15_PASTE:
                    # Round 15 (rlvr_ifeval.round15): an answer to another prompt of the background.
                    found = round15_text(task.prompt, response, checkers, background, self.relevance_min_words)
            return found
        from rlvr_judge.relevance import JudgeError

        task_text = task_units(task.prompt, tuple(checkers)).task_text or task.prompt
        try:
            answer = self.relevance_judge.addresses(task_text, response)
        except JudgeError as exc:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"relevance judge: {exc}"[:500]})
        if answer.addresses:
            return None
        return {"judge": self.relevance_judge.template.key, "rationale": answer.rationale}


def _background(value: Any) -> Background | None:
    """``relevance_background`` as a ``Background`` (None stays None)."""
    if value is None or isinstance(value, Background):
        return value
    if isinstance(value, (list, tuple)):
        pairs = [(p, ()) if isinstance(p, str) else tuple(p) for p in value]
        return Background.build(pairs)
    raise ConfigurationError(
        f"relevance_background must be a contrast.Background or a list of prompts or (prompt, checkers) pairs, "
        f"got {type(value).__name__}"
    )


def _judge_relevance(config: Any) -> Any:
    """A ``rlvr_judge.relevance.JudgeRelevance`` from ``relevance_judge`` (imported only here: a
    family never needs another one installed unless this option asks for it)."""
    try:
        from rlvr_judge.client import JudgeClient
        from rlvr_judge.relevance import JudgeRelevance
    except ImportError as exc:
        raise ConfigurationError(
            "relevance='judge' needs the judge family (pip install -e envs/judge, package rlvr-envs-judge); "
            f"it could not be imported: {exc}"
        ) from None
    if config is None or isinstance(config, (JudgeClient, list, tuple)):
        return JudgeRelevance(config)
    if isinstance(config, dict):
        return JudgeRelevance(**config)
    raise ConfigurationError(
        f"relevance_judge must be a JudgeClient or a dict of base_url/model/client options, got {type(config).__name__}"
    )
