"""numba's word counts (``rlvr_ifeval.prose_jit``) give the Python paths' counts.

``relevance.function_share`` (the function-word count) and ``shuffled_prompt`` /
``interleaved_prompt`` (which words are the prompt's) read ASCII text through the kernels when
they are loaded; their verdicts must be those of ``analysis.prose_words`` / ``joined_words`` and
set lookups exactly (issue 26: speed only, no reward may move). Compared here on the labelled
responses under their own prompts, on random texts over an alphabet of letters, apostrophes,
hyphens, segment characters and common punctuation (words longer than the kernels key, in the
sets and not), and on the rules themselves with the kernels on and off.
"""

from __future__ import annotations

import random

import pytest

from rlvr_ifeval import analysis, prose_jit, relevance, units_jit
from tests.helpers.data import read_jsonl

pytest.importorskip("numba")

LABELLED = ("ifeval_gpt4_responses_labeled.jsonl", "ifbench_responses_labeled.jsonl")
WORDS = tuple(
    (
        "the of and it's don't The THE With with a toy internationalization Internationalization "
        "extraordinarily Rock'n'roll x'yZ ab'Cd supercalifragilistic mother's o'clock zz'z"
    ).split()
)
ALPHABET = "aAzZbkK'-\n|\"{}<>[]`=;  .,!?0123456789_*#\t\r\u2019\u201c\u201d\u2014\u00a0"
KEPT = frozenset({"the", "of", "and", "it's", "with", "a", "o'clock"})
DROP = frozenset({"with", "internationalization", "toy", "supercalifragilistic", "x'y", "mother's", "für"})


@pytest.fixture(scope="module")
def kernel() -> object:
    if not prose_jit.load():
        pytest.skip("numba's kernel could not be loaded here")
    return prose_jit._KERNEL


def _expected(text: str, kept: frozenset[str], drop: frozenset[str]) -> tuple[int, list[int]]:
    return prose_jit._python_counts(text, kept, drop)


def _got(text: str, kept: frozenset[str], drop: frozenset[str]) -> tuple[int, list[int]] | None:
    found = prose_jit.counts(text, kept, drop)
    return None if found is None else (found[0], sorted(found[1]))


def test_the_cleaning_table_is_analysis_own(kernel: object) -> None:
    assert prose_jit._PROSE_TABLE == analysis._PROSE_TABLE


def test_labelled_responses_count_as_the_python_path(kernel: object) -> None:
    rows = [r for name in LABELLED for r in read_jsonl(name)]
    compared = 0
    for row in rows:
        drop = relevance.prompt_words(row["prompt"])
        kept = relevance._function_words_kept(drop)
        got = _got(row["response"], kept, drop)
        if got is not None:
            compared += 1
            assert got == _expected(row["response"], kept, drop), row["response"][:200]
    assert compared > len(rows) // 2  # most are ASCII (with curly quotes): the kernel's


def _random_texts(seed: int, words: tuple[str, ...], alphabet: str, separators: tuple[str, ...]) -> list[str]:
    """2,000 texts of up to 90 pieces: a word, or a few characters of ``alphabet``, each followed
    by a separator."""
    rng = random.Random(seed)
    texts = []
    for _ in range(2000):
        parts = []
        for _ in range(rng.randint(0, 90)):
            if rng.random() < 0.6:
                parts.append(rng.choice(words))
            else:
                parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 5))))
            parts.append(rng.choice(separators))
        texts.append("".join(parts))
    return texts


def test_random_texts_count_as_the_python_path(kernel: object) -> None:
    for text in _random_texts(26, WORDS, ALPHABET, (" ", " ", "\n", "'", " - ", "|", "  ")):
        got = _got(text, KEPT, DROP)
        if got is not None:
            assert got == _expected(text, KEPT, DROP), text


def test_edge_texts(kernel: object) -> None:
    for text in ("", "\n", "'" * 50, "a " * 5, "a " * 6, "A\n" * 40, "x" * 5000, ("word " * 7 + "\n") * 30):
        assert _got(text, KEPT, DROP) == _expected(text, KEPT, DROP), text[:50]
    assert prose_jit.counts("Der Fluß ist lang und breit und tief.", KEPT, DROP) is None  # not ASCII


def test_word_keys_are_exact() -> None:
    assert prose_jit.word_key("a") == 1 and prose_jit.word_key("'") == 27
    assert prose_jit.word_key("z" * 12) is not None and prose_jit.word_key("z" * 13) is None
    assert prose_jit.word_key("für") is None and prose_jit.word_key("") is None
    keys = [prose_jit.word_key(w) for w in ("ab", "ba", "a'", "'a", "b", "aab")]
    assert len(set(keys)) == len(keys)
    # A function word too long to key: no tables, the Python path counts.
    assert prose_jit.tables(frozenset({"a" * 13}), frozenset()) is None


def _rules(rows: list[dict]) -> list[object]:
    analysis.analyse.cache_clear()
    out: list[object] = []
    for r in rows:
        out.append(relevance.function_share(r["response"], relevance.prompt_words(r["prompt"])))
        out.append(relevance.shuffled_prompt(r["response"], r["prompt"]))
        out.append(relevance.interleaved_prompt(r["response"], r["prompt"]))
        out.append(relevance.units(r["response"]))
        out.append(relevance.units(r["prompt"], relevance.TASK_STOP_WORDS_V0, relevance.PREFIX_V0))
    return out


def test_the_rules_are_the_same_with_and_without_the_kernels(kernel: object, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [r for name in LABELLED for r in read_jsonl(name)][::3]
    # Pasted: the prompt's words in order and shuffled, between filler (the rules' positives).
    words = relevance._prompt_word_list(rows[0]["prompt"])
    rng = random.Random(3)
    filler = "people time year way day thing world life hand part child eye".split()
    salads = [" ".join(w for p in words for w in (p, rng.choice(filler), rng.choice(filler))) * 2]
    salads.append(" ".join(rng.sample(list(words) * 8, len(words) * 8)))
    rows += [{"prompt": rows[0]["prompt"], "response": s} for s in salads]
    on = _rules(rows)
    assert on[-1] is not None or on[-2] is not None or on[-4] is not None or on[-5] is not None
    monkeypatch.setattr(prose_jit, "_KERNEL", None)
    monkeypatch.setattr(prose_jit, "_FLAGS", None)
    monkeypatch.setattr(prose_jit, "_UNITS", None)
    monkeypatch.setattr(prose_jit, "_started", True)  # no background load during the comparison
    assert _rules(rows) == on


def _expected_flags(text: str, vocabulary: frozenset[str]) -> bytes:
    return bytes(map(vocabulary.__contains__, analysis.joined_words(text)))


def test_vocabulary_flags_of_labelled_responses(kernel: object) -> None:
    compared = 0
    for row in (r for name in LABELLED for r in read_jsonl(name)):
        vocabulary = relevance._prompt_vocabulary(row["prompt"])[0]
        got = prose_jit.vocabulary_flags(row["response"], vocabulary)
        if got is not None:
            compared += 1
            assert got == _expected_flags(row["response"], vocabulary), row["response"][:200]
    assert compared > 500


def test_vocabulary_flags_of_random_texts(kernel: object) -> None:
    vocabulary = frozenset({"the", "dont", "internationalization", "oped", "supercalifragilistic", "with", "its"})
    words = (*WORDS, "op-ed", "op‐ed", "don’t")
    for text in _random_texts(30, words, ALPHABET + "‐‑", (" ", "\n", "'", " - ", "-", "|")):
        got = prose_jit.vocabulary_flags(text, vocabulary)
        if got is not None:
            assert got == _expected_flags(text, vocabulary), text
    assert prose_jit.vocabulary_flags("Der Fluß ist lang.", vocabulary) is None


DROPS: tuple[tuple[frozenset[str], int], ...] = (
    (relevance.STOP_WORDS, relevance.PREFIX),
    (relevance.TASK_STOP_WORDS, relevance.PREFIX),  # (holds words of 13 letters)
    (relevance.TASK_STOP_WORDS_V0, relevance.PREFIX_V0),
    (frozenset(), relevance.PREFIX),
)


def _python_units(text: str, drop: frozenset[str], prefix: int, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    with monkeypatch.context() as patch:
        patch.setattr(prose_jit, "_UNITS", None)
        return relevance.units(text, drop, prefix)


def test_units_kernel_constants_are_the_gates(kernel: object) -> None:
    assert units_jit.MIN_WORD == relevance.MIN_WORD
    assert units_jit._LETTERS_TABLE == relevance._ASCII_WORD_TABLE
    assert prose_jit.units_kernel() is not None


def test_units_of_labelled_texts_are_the_python_paths(kernel: object, monkeypatch: pytest.MonkeyPatch) -> None:
    units = prose_jit.units_kernel()
    compared = 0
    for row in (r for name in LABELLED for r in read_jsonl(name)):
        for text in (row["response"], row["prompt"]):
            view = analysis.ascii_view(text)
            if view is None:
                continue
            for drop, prefix in DROPS:
                compared += 1
                assert units_jit.ascii_units(units, view, drop, prefix) == _python_units(
                    text, drop, prefix, monkeypatch
                ), text[:200]
    assert compared > 4000


def test_units_of_random_texts_are_the_python_paths(kernel: object, monkeypatch: pytest.MonkeyPatch) -> None:
    units = prose_jit.units_kernel()
    words = (*WORDS, "ab", "abc", "ABCDEF", "abcdefg", "Gardening", "garden", "characteristically", "z" * 13)
    drop = frozenset({"the", "their", "characteristically", "internationalization", "abcdefg", "z" * 13})
    rng = random.Random(31)
    for _ in range(2000):
        parts = [
            rng.choice(words) if rng.random() < 0.6 else "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 4)))
            for _ in range(rng.randint(0, 60))
        ]
        text = (" " if rng.random() < 0.5 else "").join(parts)
        view = analysis.ascii_view(text)
        if view is None:
            continue
        for prefix in (relevance.PREFIX_V0, relevance.PREFIX):
            assert units_jit.ascii_units(units, view, drop, prefix) == _python_units(text, drop, prefix, monkeypatch), (
                text
            )
