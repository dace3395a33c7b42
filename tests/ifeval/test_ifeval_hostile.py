"""Hostile responses: every checker runs in linear time, and the linear rewrites of the reference's
backtracking regular expressions decide exactly as the reference patterns do (issue 21).

The timing test measures CPU time (``time.process_time``) of each check, so a loaded machine
slows it only a little, and judges growth: a check on 1 MB may cost at most a linear multiple of
the same check on 100 kB (plus a small constant). The quadratic patterns this replaces took
seconds on 100 kB.
"""

from __future__ import annotations

import itertools
import random
import re
import time
from functools import cache
from typing import Any

import pytest

from rlvr_ifeval.base import REGISTRY, InstructionError
from rlvr_ifeval.checkers_classic import Placeholders
from rlvr_ifeval.checkers_ifevalg import RepeatPhraseWithOneChange
from rlvr_ifeval.scoring import build_checker
from tests.helpers.data import read_jsonl

BIG = 1_000_000
SMALL = 100_000
# Runs of the characters the checkers' patterns are built from, and mixtures of them.
UNITS = {
    "newlines": "\n",
    "spaces": " ",
    "stars": "*",
    "hashes": "#",
    "dashes": "-",
    "periods": ".",
    "bangs": "!",
    "one long word": "a",
    "chinese": "我们明天去公园然后去书店",
    "thai": "วันนี้อากาศดีมาก",
    "star newline": "*\n",
    "newline star": "\n* ",
    "newline dash": "\n- ",
    "blank lines": "\n\n\n ",
    "crlf": "\r\n",
    "words": "a ",
    "sentences": "Word. ",
    "ellipses": "...",
    "space period": " .",
    "open titles": "<<",
    "open brackets": "[",
    "quotes": '"',
    "quote space": '" ',
    "dividers": "***",
    "questions": "Question 1\n\n",
    "mixed": 'a *b* - c\n\n# d. e, f! <<g>> [h] "i" ',
}


def _fill(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


DEFAULTS: dict[str, Any] = {
    "relation": "at least",
    "let_relation": "at least",
    "capital_relation": "at least",
    "prompt_to_repeat": "Write about rivers and lakes.",
    "phrase": "The quick brown fox jumps",
    "keyword": "the",
    "keyword1": "the",
    "keyword2": "and",
    "first_word": "the",
    "last_word": "end",
    "letter": "a",
    "n_start": 0,
    "n_end": 5,
    "n": 1,
    "m": 1,
    "end_phrase": "Is there anything else?",
    "postscript_marker": "P.S.",
    "section_spliter": "SECTION",
    "options": "yes or no",
    "sep": "-",
}


@cache
def _kwargs_from_data() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for name in ("ifeval_input_data.jsonl", "ifbench_test.jsonl"):
        for row in read_jsonl(name):
            for instruction, kwargs in zip(row["instruction_id_list"], row["kwargs"]):
                found.setdefault(instruction, {k: v for k, v in (kwargs or {}).items() if v is not None})
    return found


def _checker(instruction_id: str):
    kwargs = _kwargs_from_data().get(instruction_id)
    if kwargs is not None:
        try:
            return build_checker(instruction_id, kwargs)
        except InstructionError:
            pass
    cls = REGISTRY[instruction_id]
    made: dict[str, Any] = {}
    for param in cls.params:
        if param.name in DEFAULTS:
            made[param.name] = DEFAULTS[param.name]
        elif param.choices:
            made[param.name] = param.choices[0]
        elif param.kind == "strs":
            made[param.name] = ["the"]
        elif param.kind == "str":
            made[param.name] = "the"
        else:
            made[param.name] = 0.5 if param.kind == "number" else 3
    return build_checker(instruction_id, made)


def _units_for(checker) -> dict[str, str]:
    """The shared units plus runs of the checker's own strings (keywords, phrases, markers)."""
    units = dict(UNITS)
    for name, value in checker.kwargs.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item.strip():
                word = item.split()[0]
                units[f"{name} word runs"] = word + " "
    return units


def _cpu(checker, response: str) -> float:
    start = time.process_time()
    try:
        checker.check(response)
    except Exception:  # correctness is not under test here; the scoring layer catches these
        pass
    return time.process_time() - start


LINEAR_FACTOR = 10 * 2.5  # 10x the input; slack for caches, allocation and a loaded machine
# Under this much CPU on 1 MB a checker is fast whatever its shape; below it the 100 kB side is a few
# ms, where scheduler noise decides the ratio (CI: copy:repeat_phrase 3.4 ms -> 95 ms, 14 -> 150 ms here).
FLOOR_S = 0.2
# Half IFEvalVerifier's 5 s budget. The slowest checkers take ~1 s of CPU on a megabyte here (quiet); at
# 1.5 s the cap failed CI once (count:pronouns 1.59 s, since made to skip sentences that hold no pronoun).
CAP_S = 2.5


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["classic", "ifbench", "ifbench_more", "ifevalg"])
def test_every_checker_is_linear_on_pathological_megabyte_inputs(suite: str) -> None:
    from rlvr_ifeval.language import warm_up

    warm_up()  # loading language detection is not the checkers' cost
    module = f"rlvr_ifeval.checkers_{suite}"
    ids = [i for i, cls in REGISTRY.items() if cls.__module__ == module]
    assert ids
    slow = []
    for instruction_id in ids:
        checker = _checker(instruction_id)
        for name, unit in _units_for(checker).items():
            response = _fill(unit, BIG)
            big = _cpu(checker, response)
            if big <= FLOOR_S:
                continue
            small = _cpu(checker, _fill(unit, SMALL))
            if big <= max(LINEAR_FACTOR * small, FLOOR_S) and big <= CAP_S:
                continue
            # More looks at both sizes before calling it super-linear: CPU time still grows on a
            # loaded machine (shared caches, frequency), so each size keeps its best of three.
            for _ in range(2):
                big = min(big, _cpu(checker, response))
                small = min(small, _cpu(checker, _fill(unit, SMALL)))
                if big <= max(LINEAR_FACTOR * small, FLOOR_S) and big <= CAP_S:
                    break
            else:
                slow.append((instruction_id, name, round(small, 4), round(big, 4)))
    assert not slow, f"(instruction, input, CPU s on 100 kB, CPU s on 1 MB): {slow}"


# -- the rewritten patterns decide as the reference's patterns do -----------------------------
def _reference_placeholders(response: str) -> int:
    return len(re.findall(r"\[.*?\]", response))


def _reference_bullets(response: str) -> int:
    star = re.findall(r"^\s*\*[^\*].*$", response, flags=re.MULTILINE)
    dash = re.findall(r"^\s*-.*$", response, flags=re.MULTILINE)
    return len(star) + len(dash)


def _reference_title(response: str) -> bool:
    return any(t.lstrip("<").rstrip(">").strip() for t in re.findall(r"<<[^\n]+>>", response))


def _reference_postscript(response: str, marker: str) -> bool:
    body = {"P.S.": r"\s*p\.\s?s\..*$", "P.P.S": r"\s*p\.\s?p\.\s?s.*$"}.get(marker, r"\s*" + marker.lower() + r".*$")
    return re.search(body, response.lower(), flags=re.MULTILINE) is not None


def _reference_repeat_phrase(response: str, phrase: str) -> list[str]:
    words = phrase.split()
    return re.findall(re.escape(words[0]) + " .*? " + re.escape(words[-1]), response)


def _reference_mcq_split(response: str) -> list[str]:
    return re.split(r"\n*(?:Question \d+[\.|\):;]?\s*)", response)


def _reference_sentence_candidates(response: str) -> list[tuple[int, int, Any, Any]]:
    pattern = re.compile(r"[.?!]+(?=([)\";}\]*:@'({\[])|\s+(\S+))")
    return [(m.start(), m.end(), m.group(1), m.group(2)) for m in pattern.finditer(response)]


def _random_texts(alphabet: str, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 24))) for _ in range(count)]


def test_placeholders_bullets_and_titles_count_as_the_reference_patterns() -> None:
    placeholders = build_checker("detectable_content:number_placeholders", {"num_placeholders": 0})
    assert isinstance(placeholders, Placeholders)
    title = build_checker("detectable_format:title", {})
    for response in _random_texts("[]<> \n\t*-a\u3000x", 6000, seed=1):
        assert len(placeholders._placeholder.findall(response)) == _reference_placeholders(response), response
        assert title.check(response) == _reference_title(response), response
    for response in _random_texts("*- \n\t\ra\u2028\x1c", 6000, seed=2):
        for n in range(4):
            bullets = build_checker("detectable_format:number_bullet_lists", {"num_bullets": n})
            assert bullets.check(response) == (_reference_bullets(response) == n), response


def test_postscript_and_repeat_phrase_match_the_reference_patterns() -> None:
    for marker in ("P.S.", "P.P.S", "Note:"):
        checker = build_checker("detectable_content:postscript", {"postscript_marker": marker})
        for response in _random_texts("pP.sS \n\t:noteNOTE", 4000, seed=3):
            assert checker.check(response) == _reference_postscript(response, marker), (marker, response)
    phrase = "a b c"
    checker = build_checker("copy:repeat_phrase", {"phrase": phrase, "small_n": 1})
    assert isinstance(checker, RepeatPhraseWithOneChange)
    for response in _random_texts("abcx \n", 6000, seed=4):
        found = [whole for whole, _, end in checker.pattern.findall(response) if end]
        assert found == _reference_repeat_phrase(response, phrase), response


def test_mcq_split_and_sentence_candidates_match_the_reference_patterns() -> None:
    from rlvr_ifeval import text
    from rlvr_ifeval.checkers_ifbench_more import MultipleChoiceQuestions

    pieces = ["Question 1", "Question 22:", "\n", "\n\n", " ", "x", "Q"]
    rng = random.Random(5)
    for _ in range(3000):
        response = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 10)))
        assert MultipleChoiceQuestions._split.split(response) == _reference_mcq_split(response), response
    for response in _random_texts(".?! \n)\"a'(", 6000, seed=6):
        got = [(m.start(), m.end(), m.group(1), m.group(2)) for m in text._CANDIDATE_RE.finditer(response)]
        assert got == _reference_sentence_candidates(response), response


def _reference_line_indent(response: str) -> bool:
    lines = response.split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            lines.remove(lines[i])
        i += 1
    indents = [len(line) - len(line.lstrip(" ")) for line in lines]
    return all(b > a for a, b in itertools.pairwise(indents))


def test_line_indent_shortcut_decides_as_the_walk() -> None:
    checker = build_checker("format:line_indent", {})
    rng = random.Random(8)
    many_lines = ["".join(rng.choice("\n\n\n a") for _ in range(rng.randrange(20, 120))) for _ in range(3000)]
    for response in _random_texts(" \n\na", 8000, seed=7) + many_lines + ["\n" * 50, " \n" * 40, "a\n a\n  a\n   a"]:
        assert checker.check(response) == _reference_line_indent(response), response


def test_counting_capital_words_skips_only_what_cannot_count() -> None:
    from rlvr_ifeval import text
    from rlvr_ifeval.checkers_ifbench import PRONOUNS

    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl")[::3] + read_jsonl("ifbench_responses_labeled.jsonl")[::3]
    texts = [r["response"] for r in rows] + _random_texts("aA ℝ.!\"'(n't) \n", 3000, seed=9)
    for value in texts:
        expected = sum(map(str.isupper, text.word_tokenize(value)))
        assert text.count_upper_tokens(value, stop_at=10**9) == expected, value[:80]
        assert text.count_upper_tokens(value, stop_at=3) == min(expected, 3)
        pronouns = sum(1 for t in text.word_tokenize(value.lower()) if t in PRONOUNS)
        assert text.count_tokens_in(value.lower(), PRONOUNS, stop_at=10**9) == pronouns


def test_counting_vocabulary_tokens_skips_only_sentences_that_cannot_hold_one() -> None:
    # Pronouns glued to letters by the words Treebank splits ("gimme", "lemme", "itn't") or
    # behind/before non-letters; random texts of such pieces against the full tokenization.
    from rlvr_ifeval import text
    from rlvr_ifeval.checkers_ifbench import PRONOUNS

    pieces = [
        "gimme",
        "lemme",
        "itn't",
        "wanna",
        "'tis",
        "cannot",
        "heit",
        "it-based",
        "i'm",
        "x2",
        "it",
        "Me",
        "me",
        "word",
        " ",
        ". ",
        "\n",
        "'",
        '"',
        "n't",
        "them.",
        "(you)",
        "wit",
        "é",
        "youn't",
    ]
    rng = random.Random(11)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 30))) for _ in range(4000)]
    for value in texts:
        for case in (value, value.lower()):
            expected = sum(1 for t in text.word_tokenize(case) if t in PRONOUNS)
            assert text.count_tokens_in(case, PRONOUNS, stop_at=10**9) == expected, case
            assert text.count_tokens_in(case, PRONOUNS, stop_at=2) == min(expected, 2), case
    assert text.count_tokens_in("gimme lemme", frozenset(), stop_at=5) == 0


def test_dropping_punctuation_is_str_translate() -> None:
    import string

    from rlvr_ifeval.checkers_ifbench import drop_punctuation

    table = str.maketrans("", "", string.punctuation)
    for value in _random_texts(string.punctuation + "aé我 \n\\]^-", 3000, seed=10):
        assert drop_punctuation(value) == value.translate(table), value


def _reference_first_word(response: str, num_paragraphs: int, nth: int, wanted: str) -> bool:
    paragraphs = re.split(r"\n\n", response)
    count = sum(1 for p in paragraphs if p.strip())
    if nth > count:
        return False
    paragraph = paragraphs[nth - 1].strip()
    if not paragraph:
        return False
    word = paragraph.split()[0].strip().lstrip("'").lstrip('"')
    first = []
    for char in word:
        if char in ".,?!'\"":
            break
        first.append(char.lower())
    return count == num_paragraphs and "".join(first) == wanted.lower()


def test_nth_paragraph_first_word_decides_as_the_character_walk() -> None:
    for wanted in ("ab", "σς", "i̇"):
        checker = build_checker(
            "length_constraints:nth_paragraph_first_word",
            {"num_paragraphs": 2, "nth_paragraph": 1, "first_word": wanted},
        )
        for value in _random_texts("abΣσİ.'\" \n\n", 4000, seed=11):
            assert checker.check(value) == _reference_first_word(value, 2, 1, wanted), (wanted, value)


def _reference_sentence_spans(value: str) -> list[tuple[int, int]]:
    """The Punkt-style split with every candidate judged by ``_breaks_after`` and every
    boundary tried for closing quotes: what the split's shortcuts must reproduce."""
    from rlvr_ifeval import text

    spans: list[tuple[int, int]] = []
    start = 0
    for match in text._CANDIDATE_RE.finditer(value):
        if text._breaks_after(value, match.start(), match.group(0), match.group(2), match.group(1)):
            spans.append((start, match.end()))
            start = match.start(2) if match.group(2) is not None else match.end()
    spans.append((start, len(value.rstrip())))
    aligned, shift = [], 0
    for i, (a, b) in enumerate(spans):
        a, shift = a + shift, 0
        if i + 1 < len(spans):
            m = text._REALIGN_RE.match(value, *spans[i + 1])
            if m:
                b, shift = spans[i + 1][0] + len(m.group(0).rstrip()), m.end() - spans[i + 1][0]
        if a < b:
            aligned.append((a, b))
    return aligned


def test_sentence_split_shortcuts_change_no_sentence() -> None:
    from rlvr_ifeval import text

    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl") + read_jsonl("ifbench_responses_labeled.jsonl")
    samples = [r["response"] for r in rows]
    samples += _random_texts(".?! \n)\"a'(]}*:@;\u2028\x1c\u3000A1-", 20000, seed=7)
    samples += [_fill(unit, 200_000) for unit in (" .", ".", "a. ", "Word. ", '." ', ".) ", "? ", "!\n", ". '")]
    for sample in samples:
        assert list(text._sentence_spans(sample)) == _reference_sentence_spans(sample), sample[:80]


def _shortcut_samples(seed: int) -> list[str]:
    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl") + read_jsonl("ifbench_responses_labeled.jsonl")
    samples = [r["response"] for r in rows]
    samples += _random_texts("ab A. ?!\n\"'.,-", 6000, seed=seed)
    samples += ["", ".", "a", "a b", "a. b", "The end. The", "? ! .", "x. y. z. x"]
    samples += [_fill(unit, 100_000) for unit in (" .", "Word. ", "!", "? ", "a b. ", "a ")]
    return samples


def test_checkers_reading_few_tokens_decide_as_on_the_whole_list() -> None:
    # count_unique stops at the first repeat; start_end and words_position tokenize only the
    # sentences at both ends (text.edge_tokens). Each decides as on word_tokenize's whole list.
    import string

    from rlvr_ifeval import text

    unique = build_checker("count:count_unique", {})
    start_end = build_checker("keywords:start_end", {})
    for sample in _shortcut_samples(seed=8):
        words = text.word_tokenize(sample)
        for k in (1, 2, 3):
            first, last = text.edge_tokens(sample, k)
            if last is None:
                assert first == words, sample[:80]
            else:
                assert len(words) >= 2 * k and first[:k] == words[:k] and last[-k:] == words[-k:], sample[:80]
        assert unique.check(sample) == (len(words) == len(set(words))), sample[:80]
        assert start_end.check(sample) == (len(words) >= 2 and words[0].lower() == words[-1].lower()), sample[:80]
        for keyword in ("a", "b", "the", "end"):
            position = build_checker("words:words_position", {"keyword": keyword})
            if len(words) < 2:
                expected = False
            elif words[-1] in string.punctuation:
                expected = len(words) >= 3 and words[1].lower() == words[-3].lower() == keyword
            else:
                expected = words[1].lower() == words[-2].lower() == keyword
            assert position.check(sample) == expected, (keyword, sample[:80])


def test_sentence_ending_checkers_decide_as_the_reference_loops() -> None:
    import itertools

    from rlvr_ifeval import text
    from rlvr_ifeval.checkers_ifbench import _ending_counts, drop_punctuation

    for sample in _shortcut_samples(seed=9):
        sentences = text.split_sentences_rules(sample)
        expected = tuple(sum(1 for s in sentences if s.endswith(end)) for end in ".?!")
        assert _ending_counts(sample) == expected, sample[:80]
        counts = [len(drop_punctuation(s).split()) for s in sentences]
        for n in (0, 1, 2):
            increment = build_checker("sentence:increment", {"small_n": n})
            want = bool(sentences) and all(b == a + n for a, b in itertools.pairwise(counts))
            assert increment.check(sample) == want, (n, sample[:80])
