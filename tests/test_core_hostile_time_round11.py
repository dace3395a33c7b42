"""Round 11: verifiers read hostile output in linear time (bench/hostile_time.py's offenders).

Each row is a (reader, generator) pair the sweep flagged as superlinear: a pattern tried at every
opener of a text with no closer read to the end from each one. The timing rows bound the CPU time
(``time.process_time``: other agents' load does not count) of one read of a ``SIZE``-character
completion; the old code took 0.7-2.4 s on these at 40,000 characters, the fixed code takes
milliseconds, and the bounds sit >= 5x above the fixed code's worst time measured at load 8 on two
cores. The equivalence rows show the scans give what the patterns gave on ordinary and near-miss
texts (the reference data's solutions, and seeded random texts of openers, closers and words).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("rlvr_code")
pytest.importorskip("rlvr_judge")

from rlvr_code.extraction import extract_code, extract_for
from rlvr_envs.serve.protocol import DEFAULT_SPECIAL_TOKENS, SpecialTokens, response_text
from rlvr_judge import grading_talk as talk
from rlvr_judge.screen import visible
from rlvr_judge.struck import struck_spans

SIZE = 40_000
SERVER_BOUND_S = 0.5
"""The fixed server split takes <= 0.07 s on these rows at load 5; the old one 2.5-9.7 s."""
_PROMPT = "<|im_start|>user\nWhat is 6 x 7?<|im_end|>\n<|im_start|>assistant\n"
_TOKENS = SpecialTokens()  # the server's default special tokens (response_text's own default strips none)
BOUND_S = 0.25


def _repeat(unit: str, size: int = SIZE) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _cpu(read: Callable[[str], object], text: str) -> float:
    start = time.process_time()
    read(text)
    return time.process_time() - start


READERS: dict[str, Callable[[str], object]] = {
    "code extract_code": extract_code,
    "code extract_for python": lambda text: extract_for(text, ["python"]),
    "code extract_for cpp": lambda text: extract_for(text, ["cpp"]),
    "judge screen visible": visible,
    "judge struck spans": struck_spans,
    "judge grading talk": talk.grading_talk,
    "server split, prompt": lambda text: response_text(text + _PROMPT + "42", _PROMPT, _TOKENS),
    "server split, no prompt": lambda text: response_text(_PROMPT + text, None, _TOKENS),
}

# (reader, generator name, completion): the old code's CPU time at 40,000 characters in the comment.
HOSTILE: list[tuple[str, str, str]] = [
    ("code extract_code", "<answer> x n", _repeat("<answer>")),  # 0.96 s
    ("code extract_code", "<answer>a x n", _repeat("<answer>a ")),  # 0.72 s
    ("code extract_code", "``` x n", _repeat("```")),  # 0.93 s
    ("code extract_code", "backticks", _repeat("`")),  # 0.91 s
    ("code extract_code", "backticks then }", _repeat("`", SIZE - 1) + "}"),  # 1.30 s
    ("code extract_for python", "<answer>1\\n x n", _repeat("<answer>1\n")),  # 1.14 s
    ("code extract_for python", "``` x n", _repeat("```")),  # 1.92 s
    ("code extract_for python", "``` a x n", _repeat("```a ")),  # 0.81 s
    ("code extract_for cpp", "``` x n", _repeat("```")),  # 1.09 s
    ("code extract_for cpp", "`` x n", _repeat("``")),  # 0.95 s
    ("judge screen visible", "<s> x n", _repeat("<s>")),  # 2.4 s at 36,000
    ("judge screen visible", "<del> x n", _repeat("<DEL> ")),
    ("judge screen visible", "<strike>a x n", _repeat("<strike>a")),  # 0.68 s
    ("judge struck spans", "< strike > x n", _repeat("< strike >")),
    ("judge struck spans", "<s > and ~~x x n", _repeat("<s >~~x ")),  # 0.41 s
    # Round 10's full-score gate backtracked through every suffix of a digit run: 4.3 s at 10,000
    # digits, 67 s at 40,000 (the screen's cap) for judge-ref and rubric. Rows of 10,000 characters.
    ("judge grading talk", "digits", _repeat("9", 10_000)),  # 4.3 s
    ("judge grading talk", "digits then /", _repeat("0", 9_998) + "/1"),
    ("judge grading talk", "digit runs with of", _repeat("9" * 2000 + " of 8 ", 10_000)),
    ("judge grading talk", "Score: digits", "Score: " + _repeat("9", 10_000)),
    # The server reads up to its 32 MB body, not 40,000 characters: 1,600,000 here, bound SERVER_BOUND_S
    # (the old code at 400,000: 0.17 s of left padding, 0.53 s of trailing </s>; 16x per 4x).
    ("server split, prompt", "left padding <|endoftext|>", "<|endoftext|>" * (40 * SIZE // 13)),
    ("server split, prompt", "left padding <pad><s>", "<pad>" * (40 * SIZE // 5) + "<s>"),
    ("server split, no prompt", "trailing </s>", "42" + "</s>" * (40 * SIZE // 4)),
    ("server split, no prompt", "trailing <pad> and newlines", "42" + "<pad>\n" * (40 * SIZE // 6)),
]


@pytest.mark.parametrize(("reader", "name", "text"), HOSTILE, ids=[f"{r}: {n}" for r, n, _ in HOSTILE])
def test_hostile_reading_is_linear(reader: str, name: str, text: str) -> None:
    read = READERS[reader]
    read(text[:1000])  # imports and compiled patterns outside the timing
    took = min(_cpu(read, text) for _ in range(2))
    bound = SERVER_BOUND_S if reader.startswith("server") else BOUND_S
    assert took < bound, f"{reader} on {name}: {took:.3f} s of CPU for {len(text)} characters"


# -- the scans give what the patterns gave -----------------------------------------------------------

_OLD_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+.\-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_OLD_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
_OLD_STRUCK = re.compile(r"~~(?=\S).*?~~|<\s*(s|del|strike)\s*>.*?<\s*/\s*\1\s*>", re.DOTALL | re.IGNORECASE)
_PYTHON_TAGS = {"", "python", "py", "python3", "py3"}


def _old_extract_code(completion: str) -> str:
    """``extract_code`` as it read with the patterns (round 10)."""
    text = completion.rsplit("</think>", 1)[1] if "</think>" in completion else completion
    blocks = [body for tag, body in _OLD_FENCE.findall(text) if tag.lower() in _PYTHON_TAGS]
    if blocks:
        return blocks[-1].rstrip() + "\n"
    answers = _OLD_ANSWER.findall(text)
    return answers[-1].strip() if answers else text


_PIECES = (
    "```", "```python", "```py3 x", "``` \tcpp", "```C++", "``", "`", "\n", "\n\n", " ", "\t", "x = 1",
    "def f():\n    return 1", "<answer>", "</answer>", "<Answer>", "</think>", "<think>", "word", "~~", "~",
    "<s>", "</s>", "< S >", "< / s >", "<del>", "</DEL>", "<strike>", "</strike >", "<s >", "</ del>", "<", ">",
    "/", "a", "1",
)  # fmt: skip


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 40))) for _ in range(count)]


def _reference_completions() -> list[str]:
    """Each reference solution of HumanEval and MBPP in the layouts models write it."""
    data = Path(__file__).resolve().parents[2] / "shared" / "data"
    import os

    data = Path(os.environ.get("RLVR_TEST_DATA", str(data)))
    out: list[str] = []
    for name, key in (("humaneval.jsonl", "canonical_solution"), ("mbpp.jsonl", "code")):
        path = data / name
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines()[:200]:
            code = str(json.loads(line).get(key) or "")
            out += [
                f"Here it is:\n```python\n{code}\n```\nDone.",
                f"<think>draft\n```python\nx = 0\n```\n</think>\n```py\n{code}```",
                f"```\n{code}\n```\n```cpp\nint main() {{}}\n```",
                f"<answer>\n{code}\n</answer>",
                f"```python {code}",
                code,
            ]
    return out


def test_fence_and_answer_scans_read_as_the_patterns() -> None:
    texts = _random_texts(4000, seed=11) + _reference_completions()
    for text in texts:
        assert extract_code(text) == _old_extract_code(text), text


def test_extract_for_reads_as_the_patterns() -> None:
    from rlvr_code.languages import language_for_tag

    for text in _random_texts(2000, seed=12) + _reference_completions():
        body = text.rsplit("</think>", 1)[1] if "</think>" in text else text
        blocks = [(tag.lower(), b) for tag, b in _OLD_FENCE.findall(body)]
        for accepted in (["python"], ["cpp"], ["python", "cpp"]):
            language, code, problem = extract_for(text, accepted)
            expected = next(
                (
                    (lang, b.rstrip() + "\n")
                    for tag, b in reversed(blocks)
                    if (lang := language_for_tag(tag)) in accepted and (tag or lang == "python")
                ),
                None,
            )
            if expected is not None:
                assert (language, code, problem) == (*expected, None), text
            elif blocks and body.strip():
                assert code == blocks[-1][1] and problem, text


def test_struck_spans_read_as_the_pattern() -> None:
    texts = [*_random_texts(4000, seed=13), "~~ a~~", "~~~~", "~~a~~b~~", "<S>x</s>", "<strike>a</s></strike>"]
    for text in texts:
        assert struck_spans(text) == [m.span() for m in _OLD_STRUCK.finditer(text)], text


def _old_strip_end(tokens: tuple[str, ...], text: str) -> str:
    while True:
        trimmed = text.rstrip()
        if not tokens or not trimmed.endswith(tokens):
            return text
        for token in tokens:
            if trimmed.endswith(token):
                text = trimmed[: -len(token)]
                break


def _old_strip_start(tokens: tuple[str, ...], text: str) -> str:
    while tokens and text.startswith(tokens):
        for token in tokens:
            if text.startswith(token):
                text = text[len(token) :]
                break
    return text


def test_special_token_strips_read_as_the_slicing_loops() -> None:
    rng = random.Random(14)
    pieces = [*DEFAULT_SPECIAL_TOKENS, "<", "s>", "</", " ", "\n", "\t", "\u3000", "\x1c", "42", "a", "<s"]
    token_sets = (
        DEFAULT_SPECIAL_TOKENS,
        ("</s>", "<s>"),
        ("<pad>", "<pad><pad>", " "),
        ("<pad>", "d>", "<p", "s>"),
        (),
    )
    pieces += ["<p", "d>", "ad>", "<pa"]
    for token_set in token_sets:
        tokens = SpecialTokens(token_set)
        ordered = tuple(sorted({t for t in token_set if t}, key=len, reverse=True))
        for _ in range(3000):
            text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
            assert tokens.strip_end(text) == _old_strip_end(ordered, text), (token_set, text)
            assert tokens.strip_start(text) == _old_strip_start(ordered, text), (token_set, text)


def test_full_score_check_reads_as_the_pattern() -> None:
    """``_has_full_score`` (the gate before ``_SELF_SCORE``) says what round 10's pattern said."""
    old_gate = re.compile(
        r"(\d+)[ \t]*(?:/|out[ \t]+of|of|von|sur|de|su|из|中)[ \t]*\1|100[ \t]*%|a[ \t]*\+|full[ \t]+marks|perfect"
        r"|满分|滿分|満点|만점",
        re.IGNORECASE,
    )
    rng = random.Random(15)
    pieces = (
        "Score", "score", "Grade", "评分", "：", ":", " ", "\t", "\n", ". ", "10", "1", "0", "9", "/", " of ", "OF",
        " out of ", "out\tof", "von", " sur ", "su", "de", "из", "中", "100", "%", "A+", "a +", "full marks", "perfect",
        "1.5", ",", "满分", "x", "12", "21", "٣", "١٢",
    )  # fmt: skip
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 14))) for _ in range(6000)]
    for _ in range(3000):  # numbers around an "of": equal, a suffix or prefix of each other, or not
        digits = "".join(rng.choice("0129") for _ in range(rng.randint(1, 7)))
        other = rng.choice((digits, digits[1:], digits + "3", digits[::-1], "9" + digits, digits[:2]))
        sep = rng.choice(("/", " / ", " out of ", " of ", "von", "中", " sur ", "su", "\t/"))
        texts.append(
            f"{rng.choice(('', 'x', '1', 'Score: '))}{digits}{sep}{other}{rng.choice(('', '0', '.5', ' pts'))}"
        )
    found = [talk._has_full_score(text) for text in texts]
    assert found == [old_gate.search(text) is not None for text in texts]
    assert 1000 < sum(found) < len(texts) - 1000  # both answers are exercised
