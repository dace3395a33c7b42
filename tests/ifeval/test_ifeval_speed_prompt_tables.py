"""The relevance gate's per-prompt tables, built once from one word list (issue 26's speed work),
equal their plain definitions.

A generator's prompts are new to each group of completions, so the tables are paid per prompt:
the vocabulary, its trigrams, each word's predecessors and the neighbouring pairs each read the
prompt on their own (about 0.2 ms a prompt); they now share ``relevance._prompt_word_list``, and
``interleaved_prompt`` reads its hits from the vocabulary. The reference rules
(``ifeval_reference_rules``) use these tables as they are, so the plain readings are pinned here,
on every labelled prompt and on prompts made of the characters the word pattern and the joiners
treat specially. The instruction literals' case-blind pattern is compiled only where a text needs
it: ``_without_literals`` without a pattern gives what it gives with one.
"""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from rlvr_ifeval import relevance
from rlvr_ifeval.analysis import JOINERS, LATIN_CYRILLIC_WORD_RE
from rlvr_ifeval.scoring import build_checkers
from tests.helpers.data import read_jsonl
from tests.ifeval.test_ifeval_verify_speed_equivalence import ALPHABET, ASCII_ALPHABET, LABELLED, PROSE

# Words with joiners, Latin letters whose lowercase is longer (İ), Cyrillic, curly apostrophes.
PIECES = "don't rock'n'roll op-ed e‐mail well‑known İstanbul Straße ÀÉÎ Москва О'Нил ocean’s 'tis - -- '".split()


def _plain_words(prompt: str) -> list[str]:
    return [w.lower() for w in LATIN_CYRILLIC_WORD_RE.findall(prompt.translate(JOINERS))]


def _plain_tables(prompt: str) -> tuple[frozenset, frozenset, dict, frozenset]:
    words = _plain_words(prompt)
    before: dict[str, set[str]] = {w: set() for w in words}
    for a, b in pairwise(words):
        before[b].add(a)
    predecessors = {w: frozenset(p) for w, p in before.items()}
    pairs = frozenset((a, b) for b, p in predecessors.items() for a in p)
    return frozenset(words), frozenset(zip(words, words[1:], words[2:], strict=False)), predecessors, pairs


def _prompts() -> list[str]:
    prompts = [row["prompt"] for name in LABELLED for row in read_jsonl(name)]
    rng = random.Random(26)
    for alphabet in (ASCII_ALPHABET, ALPHABET):
        prompts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300))) for _ in range(300)]
    for _ in range(500):
        prompts.append(" ".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40))))
    prompts += [*PROSE.values(), "", " ", "'", "-"]
    return prompts


def test_the_per_prompt_tables_are_their_plain_definitions() -> None:
    for prompt in _prompts():
        vocabulary, trigrams, predecessors, pairs = _plain_tables(prompt)
        assert list(relevance._prompt_word_list(prompt)) == _plain_words(prompt), prompt[:80]
        assert relevance._prompt_vocabulary(prompt) == (vocabulary, trigrams), prompt[:80]
        found = relevance._prompt_predecessors(prompt)
        assert found == predecessors and list(found) == list(predecessors), prompt[:80]
        assert relevance._prompt_pairs(prompt) == pairs, prompt[:80]
        # interleaved_prompt reads the words that have an entry from the vocabulary.
        assert frozenset(predecessors) == relevance._prompt_vocabulary(prompt)[0], prompt[:80]


@pytest.mark.parametrize(
    "keywords",
    [["at least", "Don't", "KEY"], ["naïve", "the"], ["Москва", "city"], ["a"], ["’x", "Zz"]],
)
def test_literals_are_stripped_alike_with_the_pattern_compiled_late(keywords: list[str]) -> None:
    checkers = tuple(build_checkers(["keywords:existence"], [{"keywords": keywords}]))
    pattern = relevance._literal_pattern(checkers)
    rng = random.Random(30)
    texts = [" ".join(rng.choice([*keywords, "word", "The", "AT LEAST", "naive", "москва"]) for _ in range(40))]
    texts += ["".join(rng.choice(ALPHABET) for _ in range(300)) for _ in range(50)]
    texts += [text.replace(" ", "\u00a0") for text in texts[:5]]
    for text in texts:
        late = relevance._without_literals(checkers, None, text)
        if pattern is None:  # a single character is no literal
            assert late == (text, 0)
        else:
            assert late == relevance._without_literals(checkers, pattern, text) == pattern.subn(" ", text)
    assert bool(relevance._literal_strings(checkers)) == (pattern is not None)


def test_the_guard_prompt_vocabulary_is_the_tokens_of_its_grams() -> None:
    """``guard.prompt_profile``'s vocabulary (where a copy may start) is read from the tokens,
    not by walking every n-gram: the same set, for prompts shorter than an n-gram too, and
    under a format that adds text around the prompt."""
    from rlvr_ifeval import guard

    prompts = [*_prompts()[::3], "a", "a b", "Hello", "你好", "!!"]
    for prompt_format in ("verbatim", "plain"):
        for prompt in prompts:
            profile = guard.prompt_profile(prompt, prompt_format)
            assert profile.vocabulary == frozenset(t for gram in profile.grams for t in gram), prompt[:80]
