"""Which reasoning-gym datasets are registered and how each one's answers are judged.

Pure data: importing this module must not import reasoning_gym (registration reads it).
``RULES`` maps every registered dataset to a ``Rule``; ``EXCLUDED`` lists the datasets of
reasoning-gym 0.1.25 left out and why. A test checks that the two together cover exactly
reasoning-gym's own registry, so an upgrade that adds or drops a dataset is noticed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RG_VERSION = "0.1.25"


@dataclass(frozen=True)
class Rule:
    """How to judge one dataset.

    ``kind`` names a comparison in ``compare.COMPARATORS`` (our own, against the gold
    answer), or ``"scorer"``: reasoning-gym's scorer decides, but only an answer whose
    whole text matches ``shape`` (a regex, full match) ever reaches it, and only a score of
    exactly 1.0 counts. Scorers judge datasets with many right answers (puzzles, proofs).
    """

    kind: str
    options: dict[str, Any] = field(default_factory=dict)
    shape: str | None = None
    gold_key: str | None = None
    """Metadata key holding a reference solution when the dataset stores ``answer=None``."""
    partial: bool = True
    """False when the dataset's partial-credit scorer must never see raw model text."""
    note: str = ""


NUMBER = r"[+-]?(?:\d[\d,]*)?(?:\.\d+)?(?:[eE][+-]?\d+)?"
ARITHMETIC = r"(?!.*\*\*)(?!.*//)[\d\s+\-*/×÷()]{1,200}"
_EXPONENT = r"(?:\d{1,3}|\(\s*-?\d{1,3}(?:\s*/\s*\d{1,3})?\s*\))"
SYMPY_EXPR = (
    # Every power has a small literal exponent and is not itself raised: 9**9**9 never reaches sympy.
    rf"(?!.*__)(?!.*\*\*(?!\s*{_EXPONENT}(?![\d.])(?!\s*\*\*)))"
    r"(?:[ \d.+\-*/(),]|\b(?:sin|cos|tan|cot|sec|csc|asin|acos|atan|sinh|cosh|tanh|exp|log|ln|sqrt|pi|E|C|"
    r"[a-zA-Z])\b){1,8000}"
)
_HANOI_MOVE = r"Move disk \d+ from Peg \d+ to Peg \d+"
_HANOI = rf"{_HANOI_MOVE}(?:[ \t]*\n\s*+{_HANOI_MOVE})*"
# Shapes are matched against hostile text: no nested quantifiers that can backtrack (a test
# feeds every shape long near-misses), hence the possessive "\s*+" where two runs meet.
JSON_LIST = r"\[[\s\S]*\]"
JSON_OBJECT = r"\{[\s\S]*\}"

_INTEGER = Rule("integer")
_DECIMAL = Rule("decimal")
_TEXT = Rule("text")
_TEXT_CI = Rule("text", {"case": False, "period": True})  # "Bob." is the answer "bob"
_BOOL = Rule("bool")
_TOKENS = Rule("tokens")
_GRID = Rule("grid")

RULES: dict[str, Rule] = {
    "ab": _TOKENS,
    "acre": _TEXT_CI,
    "advanced_geometry": Rule(
        "scorer", shape=rf"{NUMBER}°?|\(\s*{NUMBER}\s*,\s*{NUMBER}\s*\)", note="scorer rounds; shape guard stops junk"
    ),
    "aiw": _INTEGER,
    "arc_1d": _TOKENS,
    "arc_agi": _GRID,
    "base_conversion": _TEXT_CI,
    "basic_arithmetic": _DECIMAL,
    "bf": _TEXT,
    "binary_alternation": _INTEGER,
    "binary_matrix": Rule("grid", partial=False, note="scorer eval()s the answer"),
    "bitwise_arithmetic": Rule("scorer", shape=r"[+-]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|\d+)"),
    "caesar_cipher": _TEXT_CI,
    "calendar_arithmetic": Rule("auto", {"case": False, "period": True}),
    "chain_sum": _INTEGER,
    "circuit_logic": _INTEGER,
    "codeio": Rule("literal", {"rel_tol": 1e-9}),
    "coin_flip": Rule("number", {"abs_tol": 1e-4}),
    "color_cube_rotation": _TEXT_CI,
    "complex_arithmetic": Rule("complex", {"abs_tol": 0.005}),
    "count_bits": _INTEGER,
    "count_primes": _INTEGER,
    "countdown": Rule("scorer", shape=ARITHMETIC, note="any expression reaching the target; no powers"),
    "course_schedule": _BOOL,
    "cryptarithm": Rule("scorer", shape=r"[A-Z]\s*=\s*\d(?:\s*,\s*[A-Z]\s*=\s*\d)*"),
    "decimal_arithmetic": Rule("scorer", shape=NUMBER, note="tolerance of one unit in the last asked place"),
    "decimal_chain_sum": _DECIMAL,
    "dice": Rule("fraction", note="a reduced fraction, as asked"),
    "emoji_mystery": Rule("text", {"period": True}),
    "family_relationships": _TEXT_CI,
    "figlet_font": Rule("text", {"case": False, "drop_spaces": True}),
    "fraction_simplification": Rule("fraction"),
    "futoshiki": _GRID,
    "game_of_life": Rule("literal"),
    "game_of_life_halting": Rule("bool", partial=False, note="scorer pays any non-empty answer (bool('False'))"),
    "gcd": _INTEGER,
    "graph_color": Rule("scorer", shape=JSON_OBJECT, gold_key="possible_answer"),
    "group_anagrams": Rule("nested_sets"),
    "gsm_symbolic": Rule("number", partial=False, note="scorer reads the first number and fails negative answers"),
    "intermediate_integration": Rule("scorer", shape=SYMPY_EXPR, note="any antiderivative (+C)"),
    "isomorphic_strings": _BOOL,
    "jugs": Rule("scorer", shape=JSON_LIST),
    "kakurasu": Rule("scorer", shape=r"[01](?:[ \t]+[01])*(?:[ \t]*\n\s*+[01](?:[ \t]+[01])*)*"),
    "knight_swap": Rule("scorer", shape=rf"[Nn]o|{JSON_LIST}"),
    "knights_knaves": Rule("assignment", note="scorer ignored surrounding text"),
    "largest_island": _INTEGER,
    "lcm": _INTEGER,
    "leg_counting": _INTEGER,
    "letter_counting": _INTEGER,
    "letter_jumble": _TEXT_CI,
    "list_functions": Rule("literal"),
    "mahjong_puzzle": _TEXT_CI,
    "manipulate_matrix": _GRID,
    "maze": _INTEGER,
    "mini_sudoku": _GRID,
    "modulo_grid": Rule("char_grid"),
    "n_queens": Rule("grid_any", {"key": "valid_answers"}, partial=False, note="scorer eval()s the answer"),
    "needle_haystack": Rule("text", {"case": False, "drop_spaces": True}),
    "number_filtering": Rule("number_list"),
    "number_format": Rule("scorer", shape=NUMBER),
    "number_sequence": _INTEGER,
    "number_sorting": Rule("number_list", note="scorer accepted every value within 1 of the right one"),
    "palindrome_generation": Rule("scorer", shape=r"[A-Za-z]+"),
    "palindrome_partitioning": Rule("scorer", shape=JSON_LIST),
    "path_star": _TOKENS,
    "polynomial_equations": Rule("number_set", {"abs_tol": 1e-4}),
    "polynomial_multiplication": Rule("scorer", shape=SYMPY_EXPR),
    "pool_matrix": Rule("number_grid", {"rel_tol": 1e-2}),
    "power_function": Rule("scorer", shape=NUMBER, note="three significant figures, as asked"),
    "prime_factorization": Rule("scorer", shape=r"\d+(?:\s*[×x*·]\s*\d+)*"),
    "products": _INTEGER,
    "propositional_logic": Rule("scorer", shape=r"[A-Z ()¬∧∨→↔]{1,300}", gold_key="example_answer"),
    "puzzle24": Rule("scorer", shape=ARITHMETIC),
    "quantum_lock": Rule("scorer", shape=r"[ABC](?:\s*+(?:→|->|,)?\s*+[ABC])*"),
    "ransom_note": _BOOL,
    "rearc": _GRID,
    "rectangle_count": _INTEGER,
    "rotate_matrix": _GRID,
    "rotten_oranges": _INTEGER,
    "rubiks_cube": Rule("scorer", shape=r"(?:[URFDLBMESxyzurfdlb]w?['2]?\s*)+", gold_key="example_correct_answer"),
    "self_reference": _INTEGER,
    "sentence_reordering": Rule("text", {"period": True}),
    "shortest_path": Rule("scorer", shape=r"infeasible|(?:up|down|left|right)(?:\s+(?:up|down|left|right))*"),
    "simple_equations": _DECIMAL,
    "simple_geometry": Rule("number"),
    "simple_integration": Rule("scorer", shape=SYMPY_EXPR, note="any antiderivative (+C)"),
    "sokoban": Rule("scorer", shape=r"[LRUD]+", note="scorer ignored characters that are not moves"),
    "spell_backward": _TEXT_CI,
    "spiral_matrix": Rule("tokens", partial=False, note="scorer eval()s the answer"),
    "string_insertion": Rule("text", partial=False, note="scorer eval()s the answer"),
    "string_manipulation": _TEXT,
    "string_splitting": _TOKENS,
    "string_synthesis": _TOKENS,
    "sudoku": _GRID,
    "survo": Rule("grid", note="scorer read numbers out of any text"),
    "syllogism": _TEXT_CI,
    "time_intervals": Rule(
        "scorer", shape=r"\d+ days?(?:, \d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?|\d{1,3}:\d{2}(?::\d{2}(?:\.\d+)?)?"
    ),
    "tower_of_hanoi": Rule("scorer", shape=_HANOI),
    "tsumego": _TEXT_CI,
    "word_ladder": Rule("scorer", shape=r"[A-Za-z]+(?:\s*,\s*[A-Za-z]+)+"),
    "word_sequence_reversal": Rule("word_list"),
    "word_sorting": Rule("word_list"),
    "zebra_puzzles": _TEXT_CI,
}

EXCLUDED: dict[str, str] = {
    "boxnet": "stores answer=None and no reference plan, so no gold completion can be checked; its scorer "
    "pays a floor of 0.05 for any parseable JSON",
    "rush_hour": "stores answer=None and no reference solution (only the minimum move count), so no gold "
    "completion can be checked",
    "composite": "a mixture, not a dataset: offered as rg-composite over the registered datasets instead",
}

HACKABLE: dict[str, str] = {
    "propositional_logic": "asks for any conclusion the premises entail, and reasoning-gym's scorer calls only "
    "atoms and tautologies trivial: a premise copied back (or the premises joined by ∧) pays 1.0, on 60% of "
    "tasks for premise 1 alone (400 tasks, seed 1; tests/reasoning_gym/test_rg_hackable.py); 37% of the stored "
    "example answers are such restatements themselves, so no rule can refuse them without failing its own golds",
}
"""Registered datasets whose reward a policy can earn without solving the task (measured). Each
stays available as ``rg-<name>-v0`` (documented), but is left out of ``rg-composite``'s default
mix: a mixture that pays for copying the prompt teaches copying."""

LEVELS: dict[str, tuple[int, ...]] = {
    "caesar_cipher": (0, 1),  # 2, 3: rotation outside the validated 1..25
    "game_of_life": (0, 1, 2),  # 3: answers of ~20k characters
    "jugs": (0, 1),  # 2, 3: the generator searches for minutes and fails
    "knight_swap": (),  # every level: min_nodes below the validated 6
    "manipulate_matrix": (0, 1, 2, 4),  # 3: answers over 10k characters
    "modulo_grid": (0, 2, 3, 4, 5),  # 1: max_target 0 fails validation
    "rubiks_cube": (0,),  # 1-3: no reference solution beyond 3x3 cubes; 4: cube_size 7 fails validation
    "sokoban": tuple(range(13)),  # 13: the generator stalls
    "survo": (0, 1),  # 2, 3: max_empty above the validated 9
    "zebra_puzzles": (0, 1, 2, 3, 4),  # 5: the generator stalls
}
"""Where reasoning-gym's curriculum is partly unusable: the 0-based curriculum levels we
expose, in order (our level n is the n-th entry; empty means no levels). Cut are levels whose
config fails the dataset's own validation, whose generator stalls, or whose answers are too
long to read back (see README). Datasets not listed expose every curriculum level."""

DATASETS: tuple[str, ...] = tuple(sorted(RULES))
"""Registered reasoning-gym datasets (each becomes ``rg-<name>-v0``)."""
