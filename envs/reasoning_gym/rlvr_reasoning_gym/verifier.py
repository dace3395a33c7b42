"""The family's verifier: read the final answer, then judge it with the dataset's rule.

Binary by default: reward 1 only for a correct final answer. With ``partial_credit=True``
a wrong answer earns reasoning-gym's own partial score, except where that scorer is
unsound (it evaluates raw model text, or pays for wrong answers; see ``Rule.partial``),
except a scorer's 1.0 for an answer our check rejects, which is a scorer flaw and
pays nothing, and except an answer holding the whole gold beside other text (``holds_gold``:
"A or B", "[A, B]", "A" then junk), a hedge that similarity scorers paid up to 0.99.

What follows the final answer counts too: a hedge ("<answer>-958</answer> But I am not sure"),
a second value offered, a condition or an approximation ("if n is odd", "(roughly)"), words in a
language no lexicon covers, a value-changing word directly after it ("</answer> thousand", "%"),
or a later final answer of another kind ("</answer>" then "#### 17", ``\\boxed{17}``, "Final answer:
17") takes the answer back, and so does an answer a reader cannot see or sees struck out (an HTML
comment, a hidden element, ``<s>``, ``~~``): each scores 0 (reason ``wrong``, ``details["tail"]``
names the class; ``rlvr_envs.answer_tail.taken_back``). An explanation, "Hope this helps!" or
markdown after it is nothing.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from functools import cache
from typing import Any

from rlvr_envs.answer_tail import taken_back
from rlvr_envs.extract import METHODS, extract_answer
from rlvr_envs.tail_markup import broken_markup
from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.verifier import Verifier
from rlvr_reasoning_gym.catalog import RULES, Rule
from rlvr_reasoning_gym.compare import COMPARATORS, grid_rows, named_twice, parse_int, same_text
from rlvr_reasoning_gym.later_numeral import later_lone_numeral
from rlvr_reasoning_gym.screens import around_answer

DEFAULT_TIME_BUDGET_S = 5.0
"""Symbolic scorers (integration by sympy) need more than the core's default."""

INLINE_MAX_CHARS = 100_000
"""Completions up to this length of an ``INLINE_DATASETS`` task may run in the caller's process."""

INLINE_DATASETS: tuple[str, ...] = (
    "ab",
    "acre",
    "advanced_geometry",
    "aiw",
    "arc_1d",
    "arc_agi",
    "base_conversion",
    "basic_arithmetic",
    "bf",
    "binary_alternation",
    "binary_matrix",
    "bitwise_arithmetic",
    "caesar_cipher",
    "calendar_arithmetic",
    "chain_sum",
    "circuit_logic",
    "codeio",
    "coin_flip",
    "color_cube_rotation",
    "complex_arithmetic",
    "count_bits",
    "count_primes",
    "countdown",
    "course_schedule",
    "cryptarithm",
    "decimal_arithmetic",
    "decimal_chain_sum",
    "dice",
    "emoji_mystery",
    "family_relationships",
    "figlet_font",
    "fraction_simplification",
    "futoshiki",
    "game_of_life",
    "game_of_life_halting",
    "gcd",
    "graph_color",
    "group_anagrams",
    "gsm_symbolic",
    "isomorphic_strings",
    "jugs",
    "kakurasu",
    "knight_swap",
    "knights_knaves",
    "largest_island",
    "lcm",
    "leg_counting",
    "letter_counting",
    "letter_jumble",
    "list_functions",
    "mahjong_puzzle",
    "manipulate_matrix",
    "maze",
    "mini_sudoku",
    "modulo_grid",
    "n_queens",
    "needle_haystack",
    "number_filtering",
    "number_format",
    "number_sequence",
    "number_sorting",
    "palindrome_generation",
    "palindrome_partitioning",
    "path_star",
    "polynomial_equations",
    "pool_matrix",
    "power_function",
    "prime_factorization",
    "products",
    "propositional_logic",
    "puzzle24",
    "quantum_lock",
    "ransom_note",
    "rearc",
    "rectangle_count",
    "rotate_matrix",
    "rotten_oranges",
    "self_reference",
    "sentence_reordering",
    "shortest_path",
    "simple_equations",
    "simple_geometry",
    "sokoban",
    "spell_backward",
    "spiral_matrix",
    "string_insertion",
    "string_manipulation",
    "string_splitting",
    "string_synthesis",
    "sudoku",
    "survo",
    "syllogism",
    "time_intervals",
    "tower_of_hanoi",
    "tsumego",
    "word_sequence_reversal",
    "word_sorting",
    "zebra_puzzles",
)
"""Datasets whose verification is bounded and cheap. ``bench/cheap_verifiers.py`` measured each one's
worst call on hostile completions of 100,000 characters (fillers, and hostile final answers under
the extractors' 10,000-character limit), binary and with ``partial_credit``: 4-60 ms for almost
all, 125-140 ms wall for game_of_life's repeated gold; three single spikes of 250-280 ms of CPU in
the bench's own process, on inputs a worker verified in 6-140 ms: under 6% of the 5 s budget
either way. At the full 2,000,000-character cap the
worst is 0.8 s, so longer completions go to the pool. Every registered dataset is either here or
in ``NOT_INLINE`` (a test checks it), so a new dataset stays in the pool until it is measured."""

NOT_INLINE: dict[str, str] = {
    "intermediate_integration": "sympy integrates and simplifies the answer: the bench's hostile answers time out",
    "simple_integration": "sympy integrates and simplifies the answer: the bench's hostile answers time out",
    "polynomial_multiplication": "sympy parses the answer: a product of 880 powers 999**999 took 59 s",
    "rubiks_cube": "the scorer replays every move of the answer: 0.3-0.8 s on a 9,000-character one",
    "word_ladder": "the scorer looks every word of the answer up: 0.28-0.43 s on a 9,000-character one",
}
"""Datasets verified in the pool only, with the measurement or the reason."""

NOT_INLINE_PARTIAL: dict[str, str] = {
    "arc_agi": "its partial scorer reads the raw answer: 0.56-1.05 s on hostile text",
    "codeio": "its partial scorer reads the raw answer: 0.22-0.40 s on hostile text",
    "figlet_font": "its partial scorer reads the raw answer: 0.57-0.80 s on hostile text",
    "group_anagrams": "its partial scorer reads the raw answer: 0.28-0.73 s on hostile text",
    "spell_backward": "its partial scorer reads the raw answer: 0.08-0.27 s on hostile text",
}
"""With ``partial_credit=True`` reasoning-gym's own scorer also sees the raw answer of a wrong
reply; these datasets' scorers are then too slow to run inline (the others measured as above)."""


_INLINE = frozenset(INLINE_DATASETS)


# Letters drawn like Latin ones (Cyrillic, Greek, a few others; our list), for reading tag names.
_LATIN_LOOK_ALIKES = str.maketrans(
    "аеорсхуіјѕԁһкмтвнАЕОРСХУІЈЅКМТВНԜԝαεορτνικχΑΕΟΡΤΝΙΚΧΗΒΜΖɑℎ",
    "aeopcxyijsdhkmtbhAEOPCXYIJSKMTBHWwaeoptvikxAEOPTNIKXHBMZah",
)
_TAG = re.compile(r"<\s*/?\s*([^\s<>/=\"']{3,24})\s*/?\s*>")
_MARKER_TAGS = frozenset({"answer", "final_answer", "finalanswer", "final", "think", "solution", "boxed", "result"})


def look_alike_tag(completion: str) -> tuple[str, str] | None:
    """``(tag, name)`` for the first tag whose name only looks like an answer marker's (``<answеr>``
    with a Cyrillic е, ``<ΑNSWER>``), or None. Full-width brackets are read by NFKC first."""
    text = unicodedata.normalize("NFKC", completion[:INLINE_MAX_CHARS])
    for found in _TAG.finditer(text):
        name = found.group(1)
        if name.isascii():
            continue
        folded = name.translate(_LATIN_LOOK_ALIKES).casefold()
        if folded.isascii() and folded in _MARKER_TAGS:
            return found.group(0)[:60], folded
    return None


@cache
def _shape(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def gold_text(name: str, payload: dict[str, Any]) -> str | None:
    """The reference answer as the policy would write it."""
    rule = RULES.get(name)
    if rule is not None and rule.gold_key is not None:
        value = payload.get("metadata", {}).get(rule.gold_key)
        if value is None:
            return None
        return value if isinstance(value, str) else _json_compact(value)
    answer = payload.get("answer")
    return answer if isinstance(answer, str) else None


def _json_compact(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def _squashed(text: str) -> str:
    # Spacing, punctuation and invisible format characters aside: "g\u200bo\u200bl\u200bd or 17" and
    # "gold with its commas dropped or 17" still hold the gold (symbols such as emoji grids stay).
    return "".join(ch for ch in text.casefold() if unicodedata.category(ch)[0] not in "ZCP")


def holds_gold(answer: str, gold: str | None) -> bool:
    """The answer contains the whole gold (spacing and case aside) and something else besides:
    a hedge or a list of candidates, never a partly right answer."""
    if not gold:
        return False
    want, got = _squashed(gold), _squashed(answer)
    return bool(want) and want in got and got != want


def _entry(task: Task, payload: dict[str, Any]) -> dict[str, Any]:
    return {"question": task.prompt, "answer": payload.get("answer"), "metadata": copy.deepcopy(payload["metadata"])}


def has_shape(rule: Rule, answer: str) -> bool:
    """The whole answer matches the rule's shape guard (only such text reaches a scorer)."""
    return rule.shape is not None and _shape(rule.shape).fullmatch(answer.strip()) is not None


def _rg_score(name: str, answer: str, payload: dict[str, Any], task: Task) -> float:
    from rlvr_reasoning_gym.generation import score

    return score(name, payload.get("level"), payload.get("overrides", {}), answer, _entry(task, payload))


def judge(rule: Rule, name: str, answer: str, payload: dict[str, Any], task: Task) -> bool:
    """True when ``answer`` (the extracted final answer) is correct for the task."""
    if named_twice(answer) and not named_twice(gold_text(name, payload) or ""):
        return False  # one name given two values: two answers, whichever one a dict keeps
    if rule.kind == "scorer":
        if not has_shape(rule, answer):
            return False
        return _rg_score(name, answer.strip(), payload, task) == 1.0
    gold = gold_text(name, payload)
    if gold is None:
        return False
    if rule.kind == "auto":  # mixed answer types within one dataset: numbers or words
        if parse_int(gold) is not None:
            return COMPARATORS["integer"](answer, gold)
        return same_text(answer, gold, **rule.options)
    if rule.kind == "grid_any":
        rows = grid_rows(answer)
        return bool(rows) and any(rows == grid_rows(g) for g in payload["metadata"].get(rule.options["key"], []))
    return bool(COMPARATORS[rule.kind](answer, gold, **rule.options))


class ReasoningGymVerifier(Verifier):
    """Verifies tasks of any registered reasoning-gym dataset (the task names its dataset).

    Declares itself bounded and cheap for the tasks of ``INLINE_DATASETS`` up to
    ``INLINE_MAX_CHARS`` (``inline_cap``), on the table of ``bench/cheap_verifiers.py``: under
    ``isolation="auto"`` those run in the caller's process, the rest in the pool.
    """

    def __init__(
        self,
        methods: tuple[str, ...] = METHODS,
        partial_credit: bool = False,
        time_budget_s: float = DEFAULT_TIME_BUDGET_S,
    ) -> None:
        self.methods = tuple(methods)
        self.partial_credit = partial_credit
        self.time_budget_s = time_budget_s

    # Bounded and cheap per dataset (``INLINE_DATASETS``, measured by ``bench/cheap_verifiers.py``):
    # ``inline_cap`` answers per task, so one verifier can serve a mixture (rg-composite).
    bounded_cheap = True
    inline_max_chars = INLINE_MAX_CHARS

    def inline_cap(self, task: Task) -> int:
        payload = task.answer
        name = payload.get("dataset") if isinstance(payload, dict) else None
        if not isinstance(name, str) or name not in _INLINE:
            return 0
        if self.partial_credit and name in NOT_INLINE_PARTIAL:
            return 0
        return self.inline_max_chars

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Unpickled in a pool worker: pay reasoning-gym's import now, outside any time budget.
        self.__dict__.update(state)
        from rlvr_reasoning_gym.generation import _rg

        _rg()

    def verify(self, task: Task, completion: str) -> Verdict:
        payload = task.answer
        if not isinstance(payload, dict) or not isinstance(payload.get("dataset"), str):
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "task.answer is not an rg payload"})
        name = payload["dataset"]
        rule = RULES.get(name)
        if rule is None:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"dataset {name!r} is not registered"})
        found = extract_answer(completion, self.methods)
        if found is None:
            return Verdict.failure(Reason.NO_ANSWER, details={"dataset": name})
        broken = broken_markup(completion, found.method)
        if broken is not None:
            # "\\boxed{A} B}", "<answer>A</answer>B</answer>", "\\boxed{\\boxed{A} B}": read as balanced
            # markup reads it, the answer holds a second value; not a clean answer (round 14).
            unbalanced = {"dataset": name, "refused": broken, "tail": "broken_markup"}
            return Verdict.failure(Reason.FORMAT_ERROR, extracted=found.text, details=unbalanced)
        back = taken_back(completion, found)
        if back is None:
            # Round 15: "<answer>4</answer> Actually, it is V." (a lone Roman letter names a value after an integer).
            back = later_lone_numeral(completion, found, gold_text(name, payload))
        around = None if back is not None else around_answer(completion, found, gold_text(name, payload))
        if around is not None:
            # Round 15: the answer under a bidi override, a scale glued to it ("</answer>‱"), or another value
            # restated as it just before ("III, that is <answer>2</answer>"): ``rlvr_reasoning_gym.screens``.
            refused = {"dataset": name, "refused": around[1], "tail": around[0]}
            return Verdict.failure(Reason.WRONG, extracted=found.text, details=refused)
        spoof = None if back is not None else look_alike_tag(completion)
        if spoof is not None:
            # "<answer>A</answer> <answеr>B</answеr>" (a Cyrillic е): the extractor skips the second
            # tag, a reader sees a second answer. No honest answer spells a tag name in another script.
            refused = {"dataset": name, "refused": f"a tag that only looks like <{spoof[1]}> ({spoof[0]!r})"}
            return Verdict.failure(Reason.WRONG, extracted=found.text, details={**refused, "tail": "look_alike_tag"})
        if back is not None:
            # A hedge, a second value or a magnitude after the final answer, a later final answer of
            # another kind ("<answer>A</answer> then #### B"), an answer hidden or struck out, or a TeX
            # definition takes it back: no credit, partial or full (``rlvr_envs.answer_tail``).
            refused = {"dataset": name, "refused": back.describe(), "tail": back.kind}
            return Verdict.failure(Reason.WRONG, extracted=found.text, details=refused)
        if judge(rule, name, found.text, payload, task):
            return Verdict.correct(found.text, details={"dataset": name})
        details: dict[str, Any] = {"dataset": name}
        reward = 0.0
        if self.partial_credit and rule.partial and (rule.kind != "scorer" or has_shape(rule, found.text)):
            if holds_gold(found.text, gold_text(name, payload)):
                # "A or B", "[A, B]", "A" and junk: a hedge, however much of it a scorer's
                # similarity (or ``len(gold) / len(answer)``) would pay.
                details["partial"] = "refused: the answer holds the gold beside other text"
            else:
                raw = _rg_score(name, found.text, payload, task)
                details["rg_score"] = raw
                # A full score for an answer our check rejects is the scorer's flaw, not partial credit.
                reward = raw if 0.0 <= raw < 1.0 else 0.0
        return Verdict.failure(Reason.WRONG, extracted=found.text, details=details, reward=reward)
