"""Entry point of the ``math`` plugin: registers the family's ids with rlvr-envs.

Versions (a change that alters any reward bumps the version; the old one stays resolvable):

* ``-v4``: issue 26's seventh round (``rlvr_envs.answer_tail``, ``rlvr_envs.tail_words``,
  ``rlvr_envs.extract``). Refused now: an answer inside any reasoning block (``<thinking>``,
  ``<reasoning>``, ``<scratchpad>``, ``<|begin_of_thought|>`` ..., unclosed or nested: the tag name is
  read by what it is about); doubt of any degree ("not entirely sure", "nicht ganz sicher", "low
  confidence", "P(correct) = 0.4"); a condition with no variable ("if that holds", "assuming the
  above"); a short line after the answer that is a hedge ("Maybe."), a denial or retraction ("Nope.",
  "Scratch that.", "(wrong)"), another bare value ("4."), a question, a sign no language reads
  (``❌``, ``🤷``) or a word of no covered language ("Ma hubo."); a hedge split by formatting
  ("not~sure", "*not* sure", "m a y b e", look-alike letters); another choice letter offered
  (``\\boxed{C} or D``). Honest answers that change: a right answer followed on its own line by a
  question, an emoji or check mark, or one or two words that are neither a covered language's
  function words nor a closing word ("QED", "Good luck", "Vielen Dank" stand), or given only inside a
  ``<reasoning>``-style block, now scores 0. Every MATH-500 and GSM8K reference solution scores as
  under ``-v3`` (1,816 of 1,819).
* ``-v3``: issue 26's sixth round (``rlvr_math.answer_terms``, ``rlvr_envs.answer_tail``). Refused
  now: the answer's sentence going on in a language no lexicon covers (letters of no covered
  alphabet, or plain words none of which is a covered language's function word) and hedges in
  Swahili, Bengali, Persian, Greek, Hebrew, Tagalog, Finnish, Czech, Slovak, Romanian, Malay,
  Scandinavian and Hungarian; a later sentence opening with an alternative ("\\n\\nOr 4.") or a
  question about another value; a condition after the answer ("if n is odd", "wenn", "如果"); an
  approximation of an exact answer (``\\approx 3``, "about 3", "3 (roughly)", "3-ish") unless the
  task asks for an approximate value or its gold is a rounded decimal; a set or interval for a
  one-value gold (``\\{3\\}``); a prime after the box (``\\boxed{3}'``); answers hidden by an HTML
  ``hidden`` attribute, ``font-size:0``, ``\\scalebox{0}`` or text the colour of its box; a denial a
  word or two after the answer ("είναι λάθος"). Honest answers now paid: a justification that
  restates the value (``The answer is 6, since 2+4=6.``), the number's own ordinal suffix
  (``\\boxed{3}rd``), ``3.000`` as 3000 under a prompt in a language that groups digits with a dot
  (German, Spanish ...), a verb-final copula after the box (``پاسخ \\boxed{3} است``). Honest answers
  now 0: an approximation marker on an exact answer (``\\boxed{\\approx 250}`` for 250 under a prompt
  that does not ask to round), ``\\boxed{3.000}`` for a gold 3 under a German prompt.
* ``-v2``: issue 26's fifth round (``rlvr_math.answer_shape``). A lone word after the box on its
  line is read as inside it (a unit, the task's own word, or refused: ``\\boxed{3} ribu``); a value
  that goes on after its box (``\\boxed{3}000``, ``\\boxed{3} + 1``, ``\\boxed{3}\\pi``) is refused;
  two values joined by a word (``3 \\text{ e } 4``), a unit other than the gold's or the one the
  prompt asks for (``3 m`` for ``3 km``), a final answer that is not the last one stated
  (``\\boxed{3}`` then ``#### 4``) and a response that defines macros score 0; hedges,
  alternatives and denials are read in Arabic, Hindi, Vietnamese, Turkish, Indonesian, Polish,
  Dutch and Ukrainian too; zero-width characters are removed (``3\u200b4`` reads 34). Honest
  answers that change: a word after the box that is not a unit nor the task's (``\\boxed{3}
  apples.`` under a prompt without apples) and any answer in a response with ``\\def`` or
  ``\\newcommand`` that redefines what the answer uses now score 0; ``\\boxed{3\u200b4}`` now
  matches 34, and ``1 234,5``, ``1.234,5`` (1234.5) and ``3'000`` (3000) are read.
* ``-v1``: issue 26's answer checks. A word after the number is dropped only when it is a unit
  (an allow-list, plus the task's own words); magnitude words and CJK numerals are read
  (``3 thousand`` = 3000, ``3万`` = 30000) and other words refused; hedges and alternatives are
  refused in English, German, French, Spanish, Italian, Portuguese, Russian, Chinese, Japanese and
  Korean, inside and right after the answer; hidden (``\\phantom``, white), struck-out and
  negated answers score 0. False positives became 0 (``3 thousand`` for 3, ``\\boxed{3}, but I am
  not sure``); ``3 thousand`` now matches 3000, and a word that is neither a unit nor the task's
  own (``\\boxed{3 \\text{ real roots}}`` under a prompt that never says "roots") now scores 0.
* ``-v0`` to ``-v3`` (deprecated): the ids as they were, resolvable for old configs and
  results. They run the same verifier as ``-v4``: the old rewards were false positives that a policy learns to exploit,
  so they are not reproduced (as the code family keeps its sandbox fixes in every version).
"""

from __future__ import annotations

from rlvr_envs import register

LATEST = 4
_DEPRECATED = {
    0: "v0 scored value-changing words after the number ('3 thousand' for 3), hedges and alternatives in "
    "other languages, and struck-out or negated answers as correct; it now runs the v4 checks: use {id}-v4",
    1: "v1 scored a word or value after the box ('\\boxed{{3}} ribu', '\\boxed{{3}}000'), swapped units ('3 m' "
    "for '3 km') and hedges in more languages as correct; it now runs the v4 checks: use {id}-v4",
    2: "v2 scored hedges in languages no lexicon lists, alternatives in a later paragraph, conditions and "
    "approximations of exact answers as correct, and refused '\\boxed{{3}}rd' and 'The answer is 6, since 2+4=6.'; "
    "it now runs the v4 checks: use {id}-v4",
    3: "v3 scored answers inside <thinking>/<reasoning> blocks, 'not entirely sure', conditions without a variable "
    "('if that holds') and a short line taking the answer back ('Nope.', 'Scratch that.', 'Maybe.') as correct; "
    "it now runs the v4 checks: use {id}-v4",
}

ARITH_DISTINCT_TASKS = {
    1: 155,
    2: 672,
    3: 20_000,
    4: 52_020,
    5: 1_288_048,
    6: 1_458,
    7: 6_498,
    8: 9_826_000,
    9: 2_689_600,
}
"""Distinct prompts math-arith can make at each level, counted exhaustively from the generator in
rlvr_math.arith (tests/math/test_math_arith_distinct.py recounts them); ``sample(n)`` warns past them."""


def register_envs() -> None:
    for version in range(LATEST + 1):
        _register_version(version)


def _register_version(version: int) -> None:
    def deprecated(name: str) -> str | None:
        return _DEPRECATED[version].format(id=name) if version in _DEPRECATED else None

    register(
        f"math-v{version}",
        "rlvr_math.envs:MathEnv",
        description="Your own math problems (data= JSONL/JSON/Parquet/CSV path, list of dicts or datasets.Dataset)",
        data_source="user data (data=...)",
        user_data=True,
        deprecated=deprecated("math"),
    )
    register(
        f"math-aime-v{version}",
        "rlvr_math.envs:AimeEnv",
        size=60,
        data_source="HuggingFaceH4/aime_2024 + MathArena/aime_2025 (or path=)",
        difficulty_fields=("label", "config.year", "config.part", "config.problem_number"),
        description="AIME 2024 and 2025, integer answers 0-999",
        deprecated=deprecated("math-aime"),
    )
    register(
        f"math-500-v{version}",
        "rlvr_math.envs:Math500Env",
        size=500,
        data_source="HuggingFaceH4/MATH-500 (or path=)",
        difficulty_fields=("label", "config.level", "config.subject"),
        description="MATH-500: competition math, level 1-5 and subject",
        deprecated=deprecated("math-500"),
    )
    register(
        f"math-gsm8k-v{version}",
        "rlvr_math.envs:Gsm8kEnv",
        size=1319,
        data_source="openai/gsm8k main/test (or path=)",
        description="GSM8K test: grade-school word problems, answer after ####",
        deprecated=deprecated("math-gsm8k"),
    )
    register(
        f"math-arith-v{version}",
        "rlvr_math.arith:ArithEnv",
        size=None,
        distinct_tasks=ARITH_DISTINCT_TASKS,
        data_source="procedural (no download)",
        difficulty_fields=("level", "config.kind", "config.max_operand", "config.terms", "config.ops"),
        description="Integer and fraction arithmetic and linear equations, levels 1-9 (level 1: one-digit +/-)",
        deprecated=deprecated("math-arith"),
    )
