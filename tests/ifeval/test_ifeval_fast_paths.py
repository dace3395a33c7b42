"""The fast paths of issue 21's third pass decide exactly as the plain code they replace.

Each rewritten checker is compared with the plain form of its check (the reference's loop over
the whole sentence list or token list, kept here as the slow reference) on the labelled
responses of ../shared/data, thousands of random strings over the characters that matter
(terminators, quotes, newlines, bullets, CJK, Thai, emoji, lone surrogates) and long runs that
reach the block-wise and numpy paths. The lazy sentence splits are compared with the whole
splits: the rule-based one with the rule chain applied unconditionally, the Punkt one with
``_breaks_after`` on every candidate (``test_ifeval_hostile._reference_sentence_spans``).
"""

from __future__ import annotations

import itertools
import random
import re
import string
import sys
from functools import cache
from typing import Any

import pytest

from rlvr_ifeval import text
from rlvr_ifeval.checkers_ifbench import _char_trigrams, trigram_overlap
from rlvr_ifeval.scoring import build_checker
from tests.helpers.data import read_jsonl
from tests.ifeval.test_ifeval_hostile import UNITS, _fill, _reference_sentence_spans

ALPHABETS = (
    ".?! \n)\"a'(]}*:@;\u2028\x1c\u3000A1-",
    "ab A. ?!\n\"'.,-*",
    "Mr.St Dr.comeiorg0 1.9 \n?!\"”'.AZaz<prd><stop>Ph.D. Inc.Co.",
    "我们。！？ วันนี้ 😀🎉 a.\n-",
    "*- \n\t\ra\u2028\x1c.b",
)


def _random_texts(alphabet: str, count: int, seed: int, longest: int = 40) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, longest))) for _ in range(count)]


@cache
def _samples() -> tuple[str, ...]:
    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl") + read_jsonl("ifbench_responses_labeled.jsonl")
    samples = [r["response"] for r in rows]
    for seed, alphabet in enumerate(ALPHABETS):
        samples += _random_texts(alphabet, 2500, seed=100 + seed)
        samples += _random_texts(alphabet, 40, seed=200 + seed, longest=3000)
    samples += [_fill(unit, 9_000) for unit in UNITS.values()]
    samples += ["", " ", "\n", ".", "a", "a.", "a. b", "a b\n\nb a", "\ud800 x. \udfff"]
    return tuple(samples)


# -- the rule-based splitter ------------------------------------------------------------------
def _reference_rule_sentences(value: str) -> list[str]:
    """IFEval's ``split_into_sentences``: every rule applied, no condition checked first."""
    starters = (
        r"(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He\s|She\s|It\s|They\s|Their\s|Our\s|We\s|But\s|However\s"
        r"|That\s|This\s|Wherever)"
    )
    value = (" " + value + "  ").replace("\n", " ")
    value = re.sub(r"(Mr|St|Mrs|Ms|Dr)[.]", r"\1<prd>", value)
    value = re.sub(r"[.](com|net|org|io|gov|edu|me)", r"<prd>\1", value)
    value = re.sub(r"([0-9])[.]([0-9])", r"\1<prd>\2", value)
    value = re.sub(r"\.{2,}", lambda m: "<prd>" * len(m.group(0)) + "<stop>", value)
    value = value.replace("Ph.D.", "Ph<prd>D<prd>")
    value = re.sub(r"\s([A-Za-z])[.] ", r" \1<prd> ", value)
    value = re.sub(r"([A-Z][.][A-Z][.](?:[A-Z][.])?) " + starters, r"\1<stop> \2", value)
    value = re.sub(r"([A-Za-z])[.]([A-Za-z])[.]([A-Za-z])[.]", r"\1<prd>\2<prd>\3<prd>", value)
    value = re.sub(r"([A-Za-z])[.]([A-Za-z])[.]", r"\1<prd>\2<prd>", value)
    value = re.sub(r" (Inc|Ltd|Jr|Sr|Co)[.] " + starters, r" \1<stop> \2", value)
    value = re.sub(r" (Inc|Ltd|Jr|Sr|Co)[.]", r" \1<prd>", value)
    value = re.sub(r" ([A-Za-z])[.]", r" \1<prd>", value)
    value = value.replace(".”", "”.").replace('."', '".').replace('!"', '"!').replace('?"', '"?')
    value = value.replace(".", ".<stop>").replace("?", "?<stop>").replace("!", "!<stop>")
    value = value.replace("<prd>", ".")
    sentences = [s.strip() for s in value.split("<stop>")]
    if sentences and not sentences[-1]:
        sentences = sentences[:-1]
    return sentences


def test_rule_split_lazily_and_whole_matches_the_unconditional_rule_chain() -> None:
    for sample in _samples():
        want = _reference_rule_sentences(sample)
        assert text.split_sentences_rules(sample) == want, sample[:80]
        assert list(text.iter_rule_sentences(sample)) == want, sample[:80]
        for n in (1, 2, 3, 27):
            assert text.nth_rule_sentence(sample, n) == (want[n - 1] if len(want) >= n else None)
            assert text.rule_sentence_count(sample, n) == min(len(want), n)


# -- Punkt sentences and tokens, lazily -------------------------------------------------------
def test_lazy_punkt_spans_and_tail_windows_are_the_whole_split() -> None:
    rng = random.Random(3)
    for sample in _samples():
        whole = tuple(_reference_sentence_spans(sample))
        assert tuple(text.iter_sentence_spans(sample)) == whole, sample[:80]
        for pos in {0, 1, len(sample) // 2, max(0, len(sample) - 60), len(sample), rng.randrange(len(sample) + 1)}:
            tail = text._spans_after_break(sample, pos)
            assert tuple(tail) == whole[len(whole) - len(tail) :], (pos, sample[:80])
            assert all(a > pos for a, _ in tail)


def test_edge_tokens_and_lazy_tokens_are_the_whole_token_list() -> None:
    units = ("Word. ", " .", "a b. ", '" ', "!", "Hi. " + "a " * 9, '"a" b\n', "'' x\t")
    long = [_fill(unit, 60_000) for unit in units]
    for sample in (*_samples(), *long):
        words = text.word_tokenize(sample)
        assert list(text.iter_word_tokens(sample)) == words, sample[:80]
        for k in (1, 2, 3):
            first, last = text.edge_tokens(sample, k)
            if last is None:
                assert first == words, sample[:80]
            else:
                assert len(words) >= 2 * k and first[:k] == words[:k] and last[-k:] == words[-k:], sample[:80]


# -- character trigrams -----------------------------------------------------------------------
def test_trigram_overlap_counts_as_the_sets_of_tuples() -> None:
    rng = random.Random(4)
    references = [_char_trigrams(r) for r in ("Write about rivers and lakes.", "我们明天", "aaa", "", "\ud800ab")]
    texts = list(_samples()[::7])
    for alphabet in (*ALPHABETS, "ab", "\U0001f600\U0001f389x", "".join(map(chr, range(0x4E00, 0x5000)))):
        for size in (4_095, 4_096, 5_000, 30_000):
            texts.append("".join(rng.choice(alphabet) for _ in range(size)))
    texts.append("".join(chr(rng.randrange(0x20, 0x10FFFF)) for _ in range(20_000)))  # surrogates too
    texts.append(_fill("Write about rivers and lakes. ", 10_000))
    for value in texts:
        grams = _char_trigrams(value)
        for reference in references:
            assert trigram_overlap(value, reference) == (len(grams), len(grams & reference)), value[:40]


# -- checkers rewritten to stop early, against their plain forms ------------------------------
PUNCT_SPACE = string.punctuation + " "


def _drop(value: str) -> str:
    return value.translate(str.maketrans("", "", string.punctuation))


def _plain_emoji(response: str) -> bool:
    from emoji import is_emoji

    sentences = text.split_sentences_rules(response)
    for i, sentence in enumerate(sentences):
        stripped = _drop(sentence).strip()
        if not stripped:
            return False
        last = stripped[-1]
        second = stripped[-2] if len(stripped) > 1 else last
        if is_emoji(last) or is_emoji(second):
            continue
        if i == len(sentences) - 1:
            return False
        following = _drop(sentences[i + 1]).strip()
        if not following or not is_emoji(following[0]):
            return False
    return True


def _plain_alliteration(response: str) -> bool:
    previous = -1
    for sentence in text.split_sentences_rules(response):
        words = [w for w in (w.lstrip(PUNCT_SPACE) for w in sentence.lower().split()) if w]
        score, running = 0, False
        for a, b in itertools.pairwise(words):
            score, running = (score + (1 if running else 2), True) if a[0] == b[0] else (score, False)
        if score <= previous:
            return False
        previous = score
    return True


def _plain_last_first(response: str) -> bool:
    for current, following in itertools.pairwise(text.split_sentences_rules(response)):
        last, first = current.rstrip(PUNCT_SPACE).split(), following.lstrip(PUNCT_SPACE).split()
        if not last or not first or last[-1].lower() != first[0].lower():
            return False
    return True


def _plain_increment(response: str, n: int) -> bool:
    counts = [len(_drop(s).split()) for s in text.split_sentences_rules(response)]
    return bool(counts) and all(b == a + n for a, b in itertools.pairwise(counts))


def _plain_no_bullets_bullets(response: str) -> bool:
    in_prose, sentences, bullets = True, 0, 0
    for line in response.split("\n"):
        if line.strip().startswith("*"):
            in_prose = False
            if sentences < 2:
                return False
            bullets += 1
        elif in_prose:
            found = text.split_sentences_rules(line.strip())
            in_prose = bool(found)
            sentences += len(found)
        else:
            return False
    return bullets >= 2


def _plain_sentence_alphabet(response: str) -> bool:
    sentences = text.split_sentences_rules(response)
    if len(sentences) != 26:
        return False
    return all((w := s.lstrip().split()) and w[0].lower()[0] == chr(97 + i) for i, s in enumerate(sentences))


def _plain_word_reverse(response: str) -> bool:
    value = " ".join(_drop(response.lower().strip()).split()[::-1])
    return "bald eagle" in value and value in text.split_sentences_rules(value)


def _plain_nth_alnum_token(response: str, n: int, m: int, keyword: str) -> bool:
    sentences = text.split_sentences_rules(response)
    if len(sentences) < n:
        return False
    words = [t for t in text.word_tokenize(sentences[n - 1]) if any(c.isalnum() for c in t)]
    return len(words) >= m and words[m - 1].lower() == keyword.strip().lower()


def _plain_nth_token(response: str, n: int, m: int, keyword: str) -> bool:
    sentences = text.split_sentences_rules(response)
    if len(sentences) < n:
        return False
    words = text.word_tokenize(sentences[n - 1])
    return len(words) >= m and words[m - 1] == keyword


def _plain_first_word_sent(response: str, wanted: str) -> bool:
    return all(s.strip() and s.split()[0].strip().lower() == wanted for s in text.split_sentences_rules(response))


def _plain_last_word_sent(response: str, wanted: str) -> bool:
    return all(
        s.strip() and re.sub(r"[^\w\s]", "", s.split()[-1].strip()).lower() == wanted
        for s in text.split_sentences_rules(response)
    )


def _plain_last_word_answer(response: str, wanted: str) -> bool:
    words = response.split()
    return bool(words) and re.sub(r"[^\w\s]", "", words[-1].strip()).lower() == wanted


def _plain_hyphens(response: str) -> bool:
    gold = text.split_sentences_rules(response.replace("-", " "))
    return all(p.strip() == p and p == s for p, s in zip(response.split("-"), gold))


def _plain_composition(response: str, n_sent: int, n_words: int) -> bool:
    parts = re.split(r"\s?\*\*\*\s?", response)
    count = len(parts)
    for index, part in enumerate(parts):
        if not part.strip():
            if index in (0, len(parts) - 1):
                count -= 1
            else:
                return False
        sentences = text.split_sentences_rules(part)
        if len(sentences) != n_sent or any(len(text.word_tokenize(s)) != n_words for s in sentences):
            return False
    return count == 3


def _plain_vowel(response: str) -> bool:
    lines = response.strip().split("\n")
    return len(lines) == 1 and len({c for c in lines[0].lower() if c in "aeiou"}) <= 3


def _plain_paragraph_last_first(response: str) -> bool:
    for paragraph in response.split("\n"):
        words = paragraph.strip().lower().strip(PUNCT_SPACE).split()
        if words and words[0] != words[-1]:
            return False
    return True


def _plain_sentence_words(response: str) -> bool:
    sentences = text.split_sentences_rules(response)
    return len(sentences) == 3 and len({len(s.strip()) for s in sentences}) == 1


def _plain_overlap(response: str, reference: str, percentage: float) -> bool:
    grams, ref = _char_trigrams(response), _char_trigrams(reference)
    return bool(grams) and percentage - 2 <= len(grams & ref) / len(grams) * 100 <= percentage + 2


PLAIN: list[tuple[str, dict[str, Any], Any]] = [
    ("format:emoji", {}, _plain_emoji),
    ("sentence:alliteration_increment", {}, _plain_alliteration),
    ("words:last_first", {}, _plain_last_first),
    ("ratio:sentence_words", {}, _plain_sentence_words),
    ("sentence:increment", {"small_n": 0}, lambda r: _plain_increment(r, 0)),
    ("sentence:increment", {"small_n": 1}, lambda r: _plain_increment(r, 1)),
    ("format:no_bullets_bullets", {}, _plain_no_bullets_bullets),
    ("custom:sentence_alphabet", {}, _plain_sentence_alphabet),
    ("custom:word_reverse", {}, _plain_word_reverse),
    ("format:no_whitespace", {}, lambda r: not any(c.isspace() for c in r)),
    ("words:vowel", {}, _plain_vowel),
    ("words:paragraph_last_first", {}, _plain_paragraph_last_first),
    ("first_word:first_word_sent", {"first_word": "a"}, lambda r: _plain_first_word_sent(r, "a")),
    ("last_word:last_word_sent", {"last_word": "a"}, lambda r: _plain_last_word_sent(r, "a")),
    ("last_word:last_word_sent", {"last_word": "b"}, lambda r: _plain_last_word_sent(r, "b")),
    ("last_word:last_word_answer", {"last_word": "a"}, lambda r: _plain_last_word_answer(r, "a")),
    ("detectable_format:sentence_hyphens", {}, _plain_hyphens),
    ("count:counting_composition", {"n_sent": 1, "n_words": 2}, lambda r: _plain_composition(r, 1, 2)),
    ("ratio:overlap", {"reference_text": "ab A. ab", "percentage": 50}, lambda r: _plain_overlap(r, "ab A. ab", 50)),
]
for _n, _m in ((1, 1), (1, 2), (2, 1), (3, 2)):
    PLAIN.append(
        (
            "words:keywords_specific_position",
            {"keyword": "a", "n": _n, "m": _m},
            lambda r, n=_n, m=_m: _plain_nth_alnum_token(r, n, m, "a"),
        )
    )
    PLAIN.append(
        (
            "keywords:keyword_specific_position",
            {"keyword": ["a"], "n": _n, "m": _m},
            lambda r, n=_n, m=_m: _plain_nth_token(r, n, m, "a"),
        )
    )
for _word in ("we", "a", "A."):
    PLAIN.append(
        (
            "sentence:keyword",
            {"word": _word, "N": 2},
            lambda r, w=_word: (
                (len(s := text.split_sentences_rules(r)) >= 2)
                and re.search(r"\b" + re.escape(w) + r"\b", s[1], re.IGNORECASE) is not None
            ),
        )
    )


def _checker_samples() -> list[str]:
    samples = list(_samples())
    rng = random.Random(9)
    pieces = ["a a. ", "A b. ", "b a! ", "a? ", "😀. ", "😀", "\n", "\n* x", "\n*", " *** ", "-", "a-b", "我们。"]
    pieces += ["bald eagle", "Question 1 ", "a", "b", " ", ".", "Ab", '"a."', "ab A. ab"]
    samples += ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 30))) for _ in range(4000)]
    samples += ["a. " * 26, " ".join(f"{chr(97 + i)}x." for i in range(26)), "a b. a b c. a b c d."]
    samples += ["eagle bald", "x\n* a\n* b", "One. Two.\n* a\n* b", "a-b-c", "a b. *** c d. *** e f."]
    return samples


@pytest.mark.parametrize(("instruction_id", "kwargs", "plain"), PLAIN, ids=lambda v: v if isinstance(v, str) else "")
def test_rewritten_checkers_decide_as_their_plain_forms(instruction_id: str, kwargs: dict, plain: Any) -> None:
    checker = build_checker(instruction_id, kwargs)
    for sample in _checker_samples():
        assert checker.check(sample) == plain(sample), (instruction_id, kwargs, sample[:80])


def test_whitespace_pattern_is_str_isspace_on_every_code_point() -> None:
    pattern = re.compile(r"\s")
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        assert (pattern.match(char) is not None) == char.isspace(), hex(code)


def test_bullet_line_prefilter_finds_the_lines_the_walk_counts() -> None:
    from rlvr_ifeval.checkers_ifbench_more import _BULLET_LINE

    for sample in _checker_samples():
        lines = sum(1 for line in sample.split("\n") if line.strip().startswith("*"))
        assert len(_BULLET_LINE.findall(sample)) == lines, sample[:80]


def _plain_title_case(response: str) -> bool:
    for word in text.word_tokenize(response):
        if not word or not word[0].isalpha():
            continue
        if len(word) == 1:
            if word.islower():
                return False
            continue
        if word[0].islower() and (word[1:].isupper() or word[1:].islower()):
            return False
    return True


def test_title_case_and_its_lowercase_prefilter_decide_as_the_token_walk() -> None:
    checker = build_checker("format:title_case", {})
    extra = ["A. " * 200, "ĸ", "Aĸ Bª", "ǅ", "ß", "\u0130", "AND THE", "The End"]
    for sample in (*_checker_samples(), *extra):
        assert checker.check(sample) == _plain_title_case(sample), sample[:80]
    for code in range(sys.maxunicode + 1):
        if chr(code).islower():
            assert text.may_have_lowercase(chr(code)) and text.may_have_lowercase("A" * 300 + chr(code)), hex(code)


def test_trigger_search_and_chunk_memos_change_no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    for value in _random_texts(string.punctuation + "ab \u3000我`", 3000, seed=12, longest=600):
        assert text._triggers_in(value) == text._TRIGGERS.intersection(value), value[:80]
    samples = _samples()[::5]
    expected = [text.word_tokenize(sample) for sample in samples]
    text.clear_chunk_memos()
    monkeypatch.setattr(text, "_MEMO_LIMIT", 3)  # the memos are cleared while chunks are looked up
    for sample, tokens in zip(samples, expected):
        assert list(text.iter_word_tokens(sample)) == tokens, sample[:80]
        assert [t for a, b in text._sentence_spans(sample) for t in text._sentence_tokens(sample[a:b])] == tokens
        assert len(text._PLAIN_CHUNKS) <= 3 and len(text._QUOTED_CHUNKS) <= 3
    text.clear_chunk_memos()
