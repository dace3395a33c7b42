"""``ifeval-synth``: base prompts with 1..N compatible verifiable instructions attached.

This is how instruction-following RL data is usually built (IFEval's instruction set on
top of ordinary writing prompts). Each instruction has a kind weight (1 easy surface
constraint, 2 counting, 3 whole-response form); a level asks for that many instructions, and
higher levels admit the heavier kinds. Instructions that cannot hold together (all capitals
and all lowercase, JSON output and a title line, ...) are never combined.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rlvr_envs import ProceduralEnv, Task
from rlvr_envs.errors import ConfigurationError
from rlvr_envs.formats import PromptFormat
from rlvr_envs.types import Difficulty
from rlvr_ifeval.checkers_classic import LANGUAGES
from rlvr_ifeval.contrast import Background
from rlvr_ifeval.formats import OWN_FORMATS, VERBATIM_FORMAT
from rlvr_ifeval.relevance import (
    MIN_RESPONSE_WORDS,
    MIN_SHARE,
    MIN_TASK_UNITS,
    ROUND_11_PASTE,
    reading_round,
)
from rlvr_ifeval.verifier import DEFAULT_MIN_WORDS, IFEvalVerifier

FORMS = (
    "a short essay",
    "a blog post",
    "a letter to a friend",
    "a product description",
    "a short story",
    "a speech",
    "a review",
    "a cover letter",
    "a summary",
    "a set of tips",
    "a travel guide entry",
    "a news report",
    "a diary entry",
    "an explanation for a ten-year-old",
    "a persuasive op-ed",
)
TOPICS = (
    "learning a second language",
    "the history of the bicycle",
    "urban gardening",
    "remote work",
    "the water cycle",
    "a day at the beach",
    "saving money as a student",
    "the first moon landing",
    "why sleep matters",
    "a new coffee shop in town",
    "climate adaptation in coastal cities",
    "the life of honeybees",
    "choosing a laptop",
    "public libraries",
    "a rainy afternoon",
    "volunteering at an animal shelter",
    "the invention of printing",
    "learning to cook",
    "electric cars",
    "a mountain hike",
    "board games with family",
    "the ocean's deepest places",
    "time management",
    "a favourite childhood memory",
    "how vaccines work",
    "street food",
    "the importance of bridges",
    "starting a podcast",
    "birdwatching",
    "the northern lights",
)
KEYWORDS = (
    "river",
    "lantern",
    "harvest",
    "compass",
    "velvet",
    "thunder",
    "orchard",
    "signal",
    "mosaic",
    "anchor",
    "meadow",
    "puzzle",
    "copper",
    "whistle",
    "horizon",
    "pepper",
    "glacier",
    "ribbon",
)
END_PHRASES = ("Is there anything else I can help with?", "Any other questions?", "Let me know if you have more.")


@dataclass(frozen=True)
class Spec:
    """One instruction the generator can attach: kind weight, minimum level, argument sampler."""

    instruction_id: str
    weight: int
    min_level: int
    sample: Callable[[random.Random, dict[str, Any]], tuple[dict[str, Any], str]]


def _relation(rng: random.Random) -> str:
    return rng.choice(("less than", "at least"))


def _keywords(rng: random.Random, used: dict[str, Any], k: int) -> list[str]:
    pool = [w for w in KEYWORDS if w not in used.setdefault("words", set())]
    picked = rng.sample(pool, k)
    used["words"].update(picked)
    return picked


def _no_args(description: str) -> Callable[[random.Random, dict[str, Any]], tuple[dict[str, Any], str]]:
    return lambda rng, used: ({}, description)


def _words(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    relation = _relation(rng)
    n = rng.choice((150, 200, 300, 400)) if relation == "less than" else rng.choice((50, 80, 120, 200))
    return {"num_words": n, "relation": relation}, f"Answer with {relation} {n} words."


def _sentences(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    relation = _relation(rng)
    n = rng.randint(8, 15) if relation == "less than" else rng.randint(3, 6)
    return {"num_sentences": n, "relation": relation}, f"Your response should contain {relation} {n} sentences."


def _existence(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    words = _keywords(rng, used, 2)
    return {"keywords": words}, f"Include keywords {words} in the response."


def _forbidden(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    words = _keywords(rng, used, 2)
    return {"forbidden_words": words}, f"Do not include keywords {words} in the response."


def _frequency(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    (word,) = _keywords(rng, used, 1)
    n = rng.randint(2, 4)
    args = {"keyword": word, "frequency": n, "relation": "at least"}
    return args, f"In your response, the word {word} should appear at least {n} times."


def _letter(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    if rng.random() < 0.5:
        letter, relation, n = rng.choice("etaoinsr"), "at least", rng.randint(10, 30)
    else:
        letter, relation, n = rng.choice("qzxj"), "less than", rng.randint(3, 6)
    args = {"letter": letter, "let_frequency": n, "let_relation": relation}
    return args, f"In your response, the letter {letter} should appear {relation} {n} times."


def _bullets(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    n = rng.randint(2, 6)
    return {"num_bullets": n}, (
        f"Your answer must contain exactly {n} bullet points. Use the markdown bullet points such as:\n"
        "* This is point 1.\n* This is point 2"
    )


def _highlights(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    n = rng.randint(1, 4)
    return {"num_highlights": n}, (
        f"Highlight at least {n} sections in your answer with markdown, i.e. *highlighted section*."
    )


def _placeholders(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    n = rng.randint(1, 4)
    return {"num_placeholders": n}, (
        f"The response must contain at least {n} placeholders represented by square brackets, such as [address]."
    )


def _paragraphs(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    n = rng.randint(2, 5)
    return {"num_paragraphs": n}, (
        f"There should be {n} paragraphs. Paragraphs are separated with the markdown divider: ***"
    )


def _nth_paragraph(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    n = rng.randint(2, 5)
    nth = rng.randint(1, n)
    (word,) = _keywords(rng, used, 1)
    args = {"num_paragraphs": n, "nth_paragraph": nth, "first_word": word}
    return args, (
        f"There should be {n} paragraphs. Paragraphs and only paragraphs are separated with each other by two "
        f"new lines as if it was '\\n\\n' in python. Paragraph {nth} must start with word {word}."
    )


def _sections(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    splitter, n = rng.choice(("SECTION", "PART")), rng.randint(2, 4)
    return {"section_spliter": splitter, "num_sections": n}, (
        f"Your response must have {n} sections. Mark the beginning of each section with {splitter} X, such as:\n"
        f"{splitter} 1\n[content of section 1]\n{splitter} 2\n[content of section 2]"
    )


def _postscript(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    marker = rng.choice(("P.S.", "P.P.S"))
    return {"postscript_marker": marker}, (
        f"At the end of your response, please explicitly add a postscript starting with {marker}"
    )


def _end_phrase(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    phrase = rng.choice(END_PHRASES)
    return {"end_phrase": phrase}, (
        f"Finish your response with this exact phrase {phrase} No other words should follow this phrase."
    )


def _capital_words(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    n = rng.randint(2, 8)
    args = {"capital_frequency": n, "capital_relation": "at least"}
    return args, f"In your response, words with all capital letters should appear at least {n} times."


def _language(rng: random.Random, used: dict[str, Any]) -> tuple[dict[str, Any], str]:
    code = rng.choice(("fr", "de", "es", "it", "pt", "pl"))
    return {"language": code}, (
        f"Your ENTIRE response should be in {LANGUAGES[code]} language, no other language is allowed."
    )


SPECS: tuple[Spec, ...] = (
    Spec("punctuation:no_comma", 1, 1, _no_args("In your entire response, refrain from the use of any commas.")),
    Spec(
        "detectable_format:title",
        1,
        1,
        _no_args("Your answer must contain a title, wrapped in double angular brackets, such as <<poem of joy>>."),
    ),
    Spec("startend:quotation", 1, 1, _no_args("Wrap your entire response with double quotation marks.")),
    Spec("keywords:existence", 1, 1, _existence),
    Spec("keywords:forbidden_words", 1, 1, _forbidden),
    Spec("detectable_content:postscript", 1, 1, _postscript),
    Spec("startend:end_checker", 1, 1, _end_phrase),
    Spec("detectable_content:number_placeholders", 1, 1, _placeholders),
    Spec("length_constraints:number_words", 2, 1, _words),
    Spec("detectable_format:number_highlighted_sections", 2, 1, _highlights),
    Spec("detectable_format:number_bullet_lists", 2, 2, _bullets),
    Spec("keywords:frequency", 2, 2, _frequency),
    Spec("keywords:letter_frequency", 2, 2, _letter),
    Spec("length_constraints:number_paragraphs", 2, 2, _paragraphs),
    Spec("length_constraints:number_sentences", 2, 2, _sentences),
    Spec("change_case:capital_word_frequency", 2, 3, _capital_words),
    Spec("detectable_format:multiple_sections", 3, 3, _sections),
    Spec("length_constraints:nth_paragraph_first_word", 3, 3, _nth_paragraph),
    Spec(
        "change_case:english_lowercase",
        3,
        3,
        _no_args(
            "Your entire response should be in English, and in all lowercase letters. No capital letters are allowed."
        ),
    ),
    Spec(
        "change_case:english_capital",
        3,
        4,
        _no_args("Your entire response should be in English, and in all capital letters."),
    ),
    Spec(
        "combination:two_responses",
        3,
        4,
        _no_args(
            "Give two different responses. Responses and only responses should be separated by 6 asterisk "
            "symbols: ******."
        ),
    ),
    Spec(
        "detectable_format:json_format",
        3,
        4,
        _no_args("Entire output should be wrapped in JSON format. You can use markdown ticks such as ```."),
    ),
    Spec("language:response_language", 3, 4, _language),
)
_BY_ID = {s.instruction_id: s for s in SPECS}

# Pairs that cannot both be followed (or only by a degenerate response).
_CASE = ("change_case:english_lowercase", "change_case:english_capital", "change_case:capital_word_frequency")
_LAYOUT = (
    "length_constraints:number_paragraphs",
    "length_constraints:nth_paragraph_first_word",
    "detectable_format:multiple_sections",
    "combination:two_responses",
)
_CONFLICTS: set[frozenset[str]] = {
    frozenset(p)
    for p in [
        (_CASE[0], _CASE[1]),
        (_CASE[0], _CASE[2]),
        (_CASE[1], _CASE[2]),
        (_CASE[0], "detectable_content:postscript"),
        (_CASE[0], "detectable_format:multiple_sections"),
        (_CASE[1], "detectable_format:multiple_sections"),
        ("startend:quotation", "detectable_format:title"),
        ("startend:quotation", "combination:two_responses"),
        ("startend:end_checker", "detectable_content:postscript"),
        ("startend:end_checker", "combination:two_responses"),
        ("detectable_content:postscript", "combination:two_responses"),
        ("length_constraints:number_paragraphs", "length_constraints:number_sentences"),
        *[(a, b) for i, a in enumerate(_LAYOUT) for b in _LAYOUT[i + 1 :]],
    ]
}
# Whole-response forms combine only with instructions that do not shape the text.
_EXCLUSIVE = {
    "detectable_format:json_format": {"keywords:existence", "keywords:forbidden_words"},
    "language:response_language": {
        "punctuation:no_comma",
        "detectable_format:title",
        "length_constraints:number_words",
        "detectable_format:number_highlighted_sections",
        "detectable_format:number_bullet_lists",
        "length_constraints:number_paragraphs",
        "startend:quotation",
        "detectable_content:number_placeholders",
    },
}


def compatible(a: str, b: str) -> bool:
    if a == b or frozenset((a, b)) in _CONFLICTS:
        return False
    for exclusive, allowed in _EXCLUSIVE.items():
        if (a == exclusive and b not in allowed) or (b == exclusive and a not in allowed):
            return False
    return True


class IFEvalSynthEnv(ProceduralEnv):
    """Procedural instruction-following prompts: ``level`` instructions on a base prompt.

    Args:
        base_prompts: your own base prompts; by default prompts are generated from built-in
            forms and topics.
        level: 1..5, the number of instructions attached (heavier kinds unlock with level).
        partial_credit, loose, guard, min_words, guard_words, guard_rules, relevance, relevance_judge,
            relevance_min_units, relevance_min_words, relevance_min_share, relevance_background,
            relevance_language, relevance_genre, relevance_outrank, relevance_paste: see ``IFEvalVerifier``
            (the registered ids choose ``relevance``; see the README).
    """

    family = "ifeval"
    max_level: ClassVar[int | None] = 5
    default_prompt_format = VERBATIM_FORMAT.name
    prompt_formats: ClassVar[Mapping[str, PromptFormat]] = OWN_FORMATS
    public_metadata_keys = ("instruction_id_list",)

    def __init__(
        self,
        *,
        base_prompts: Sequence[str] | None = None,
        partial_credit: bool = False,
        loose: bool = False,
        guard: bool = True,
        min_words: int = DEFAULT_MIN_WORDS,
        guard_words: str = "scripts",
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
        prompt_format: Any = None,
        **kwargs: Any,
    ) -> None:
        for name in ("data", "path"):
            if name in kwargs:
                raise ConfigurationError(
                    f"ifeval-synth generates its tasks and takes no {name}=; pass base_prompts=[...] for your own "
                    "prompts, or use ifeval-data with data= for rows with instructions"
                )
        fmt = self.resolve_format(prompt_format or self.default_prompt_format)
        if base_prompts is not None:
            base_prompts = [p for p in base_prompts if isinstance(p, str) and p.strip()]
            if not base_prompts:
                raise ValueError("base_prompts must hold at least one non-empty string")
        self.base_prompts = tuple(base_prompts) if base_prompts else None
        verifier = IFEvalVerifier(
            partial_credit=partial_credit,
            loose=loose,
            guard=guard,
            min_words=min_words,
            guard_words=guard_words,
            guard_rules=guard_rules,
            prompt_format=fmt.name,
            relevance=relevance,
            relevance_judge=relevance_judge,
            relevance_min_units=relevance_min_units,
            relevance_min_words=relevance_min_words,
            relevance_min_share=relevance_min_share,
            relevance_background=relevance_background,
            relevance_language=relevance_language,
            relevance_genre=relevance_genre,
            relevance_outrank=relevance_outrank,
            relevance_paste=relevance_paste,
        )
        super().__init__(verifier, prompt_format=fmt, **kwargs)
        if relevance == "contrast" and verifier.relevance_background is None:
            # The prompts a paste could come from: the base prompts, or one per built-in topic.
            prompts = self.base_prompts or tuple(f"Write about {topic}." for topic in TOPICS)
            with reading_round(verifier.relevance_paste >= ROUND_11_PASTE):  # the id's own reading
                verifier.relevance_background = Background.build((p, ()) for p in prompts)

    def _base_prompt(self, rng: random.Random) -> str:
        if self.base_prompts:
            return rng.choice(self.base_prompts)
        return f"Write {rng.choice(FORMS)} about {rng.choice(TOPICS)}."

    @staticmethod
    def _pick(rng: random.Random, level: int) -> list[Spec]:
        """``level`` mutually compatible instructions (greedy draws, restarted when stuck)."""
        candidates = [
            s for s in SPECS if s.min_level <= level and len(_EXCLUSIVE.get(s.instruction_id, SPECS)) + 1 >= level
        ]
        chosen: list[Spec] = []
        for _ in range(100):
            chosen = []
            while len(chosen) < level:
                options = [s for s in candidates if all(compatible(s.instruction_id, c.instruction_id) for c in chosen)]
                if not options:
                    break
                chosen.append(rng.choices(options, weights=[s.weight for s in options])[0])
            if len(chosen) == level:
                break
        return chosen

    def generate(self, rng: random.Random) -> Task:
        level = self.level or 1
        base = self._base_prompt(rng)
        chosen = self._pick(rng, level)
        used: dict[str, Any] = {}
        ids, kwargs, descriptions = [], [], []
        for spec in chosen:
            args, description = spec.sample(rng, used)
            ids.append(spec.instruction_id)
            kwargs.append(args)
            descriptions.append(description)
        prompt = base
        for description in descriptions:
            # Multi-line instructions (examples of a layout) get lines of their own.
            joiner = "\n" if "\n" in description or "\n" in prompt.rsplit(".", 1)[-1] else " "
            prompt += joiner + description
        weight = sum(_BY_ID[i].weight for i in ids)
        return Task(
            id=f"L{level}",
            prompt=prompt,
            answer={"instruction_id_list": ids, "kwargs": kwargs},
            metadata={"base_prompt": base, "instruction_id_list": ids},
            difficulty=Difficulty(level=level, config={"n_instructions": len(ids), "kind_weight": weight}),
        )

    def gold_completion(self, task: Task) -> str | None:
        return None

    def hedged_completion(self, task: Task, n_candidates: int = 50) -> str | None:
        return None
