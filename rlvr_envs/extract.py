"""Answer extraction shared by every family, by training and by evaluation.

One extractor for both is deliberate: a reward computed with one parser and an accuracy
reported with another is a classic silent bug in RLVR pipelines.

Every function here is linear in the completion length and never raises on any ``str``.
Only the *final* answer counts: the last ``<answer>`` block, the last ``\\boxed{}``, the last
``####`` line, the last "answer is" phrase. An unbalanced last ``\\boxed{`` is no answer; we do
not fall back to an earlier box, because that would reward writing several candidates.

Reasoning is not an answer. When a completion has a ``<think>`` block (in any prompt format,
not only ``r1``), only the text after the last ``</think>`` is read; a ``</think>`` without an
opening tag (chat templates that put ``<think>`` in the prompt) ends the reasoning the same way,
and a ``<think>`` that is never closed means the completion ended while reasoning: no answer.
``after_reasoning`` is that rule on its own, for families that read the response themselves.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

METHODS: tuple[str, ...] = ("answer_tag", "boxed", "hashes", "answer_is")
"""Extraction methods, in the order ``extract_answer`` tries them by default."""

MAX_ANSWER_CHARS = 10_000
"""Longest answer we read; a longer span is treated as no answer (it is never a real one)."""

_BOX_COMMANDS = ("\\boxed", "\\fbox")
# Reasoning blocks go by many tag names (``<think>``, ``<thinking>``, ``<reasoning>``, ``<thought>``,
# ``<scratchpad>``, ``<reflection>``, ``<inner_monologue>``, ``<think_step>``, OpenThoughts'
# ``<|begin_of_thought|>``): a tag whose name *is about thinking* opens one, whatever the exact
# spelling, so a policy cannot move its answer into a block a reader skips by renaming the tag.
# The name is matched by its stem (an allow-list of what is an answer would refuse ``<answer>``-less
# formats), attributes allowed (``<thinking mode="x">``).
_THINK_NAME = (
    r"(?:[a-z]{1,20}[_-]){0,3}(?:think|thought|reason|reflect|scratch|monolog|ponder|deliberat|contemplat|brainstorm"
    r"|analy[sz]|rationale|cot\b|chain[_-]of[_-]thought)[a-z_-]*"
)
_THINK_OPEN = re.compile(r"<\s*" + _THINK_NAME + r"(?:\s[^<>]{0,200})?>|<\|begin_of_thought\|>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"<\s*/\s*" + _THINK_NAME + r"\s*>|<\|end_of_thought\|>", re.IGNORECASE)
# "The answer is: 18" (MetaMath), "**Answer:** 3", "**Final Answer: 18**", "Answer: **3**", and the
# Chinese/Japanese "答案是 3", "答案：3", "答えは 3", and Korean "정답은 3" (round 13: "정답은 3입니다." was read as
# no answer while "答えは3です。" was). Markdown bold around the marker or the answer
# is formatting, never part of the answer (``answer_is`` strips it).
_ANSWER_IS = re.compile(
    r"(?:final\s+answer(?:\s*\*\*)?\s*(?:is\s*:?|:)|the\s+answer\s+is\s*:?|answer(?:\s*\*\*)?\s*:"
    r"|答案\s*(?:是|为|為|:|：)|答え\s*(?:は|:|：)|(?<![가-힣])(?:최종\s*)?(?:정답|해답|대답|답)\s*(?:은|는|:|：))\s*",
    re.IGNORECASE,
)
_BOLD = re.compile(r"^(?:\*\*|__)\s*|\s*(?:\*\*|__)$")


@dataclass(frozen=True)
class Extraction:
    """What was read from a completion and how."""

    text: str
    method: str
    after: str = field(default="", compare=False, repr=False)
    """The text after the final answer (after its closing tag, box or line): what
    ``rlvr_envs.answer_tail`` reads for hedges and value-changing words. Not compared: two
    extractions of the same answer are equal whatever follows them."""


def after_reasoning(text: str) -> str | None:
    """The response part of a completion: the text after the last closing think tag (``</think>``,
    ``</thinking>``, ``</reasoning>`` ... any name ``_THINK_NAME`` reads as thinking), the whole
    text when it has no think tags, or None when a think block is never closed (also when blocks
    nest and an outer one stays open: more opening tags than closing ones, with no lone closing
    tag first, which is a chat template's block opened in the prompt)."""
    if "<" not in text:
        return text
    last_close = None
    closes = 0
    first_close = len(text)
    for match in _THINK_CLOSE.finditer(text):
        last_close = match
        closes += 1
        first_close = min(first_close, match.start())
    rest = text[last_close.end() :] if last_close is not None else text
    if _THINK_OPEN.search(rest):
        return None  # reasoning (re)opened and never closed: the completion ends mid-thought
    opens = sum(1 for _ in _THINK_OPEN.finditer(text, 0, last_close.start())) if last_close is not None else 0
    prompt_opened = last_close is not None and _THINK_OPEN.search(text, 0, first_close) is None
    if opens > closes - (1 if prompt_opened else 0):
        return None  # nested blocks, an outer one never closed: what follows is still reasoning
    return rest


def balanced_group(text: str, open_index: int, window: int = MAX_ANSWER_CHARS + 2) -> tuple[str, int] | None:
    """The content of the brace group opening at ``open_index`` and the index just after it,
    or None if it does not close within ``window`` characters (escaped braces do not nest)."""
    depth = 0
    limit = min(len(text), open_index + window)
    i = open_index
    while i < limit:
        ch = text[i]
        if ch == "\\" and i + 1 < limit and text[i + 1] in "{}":
            i += 2  # an escaped brace (\{ or \}) does not nest
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[open_index + 1 : i], i + 1
        i += 1
    return None


def last_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` or ``\\fbox{...}`` (nested braces allowed)."""
    found = _boxed_span(text)
    return found[0] if found is not None else None


def _boxed_span(text: str) -> tuple[str, int] | None:
    """``last_boxed`` and the index just after the box."""
    start = max(text.rfind(cmd) for cmd in _BOX_COMMANDS)
    if start < 0:
        return None
    cmd = next(c for c in _BOX_COMMANDS if text.startswith(c, start))
    i = j = start + len(cmd)
    while j < len(text) and text[j] == " ":
        j += 1
    if j < len(text) and text[j] == "{":
        group = balanced_group(text, j)
        return (group[0].strip(), group[1]) if group is not None else None
    if j > i:  # "\boxed 5": the command applied to a single token
        token = re.match(r"[^\s$]+", text[j : j + MAX_ANSWER_CHARS])
        return (token.group(0), j + token.end()) if token else None
    return None


def answer_tag(text: str, tag: str = "answer") -> str | None:
    """Content of the last complete ``<tag>...</tag>`` block."""
    found = _tag_span(text, tag)
    return found[0] if found is not None else None


def _tag_span(text: str, tag: str = "answer") -> tuple[str, int] | None:
    """``answer_tag`` and the index just after its closing tag."""
    open_tag, close_tag = f"<{tag}>", f"</{tag}>"
    start = text.rfind(open_tag)
    if start < 0:
        return None
    end = text.find(close_tag, start)
    if end < 0:
        return None
    content = text[start + len(open_tag) : end]
    return (content.strip(), end + len(close_tag)) if len(content) <= MAX_ANSWER_CHARS else None


def hashes_answer(text: str) -> str | None:
    """The text after the last ``####`` marker (GSM8K style), up to the end of its line."""
    start = text.rfind("####")
    if start < 0:
        return None
    line = text[start + 4 :].split("\n", 1)[0].strip()
    return line[:MAX_ANSWER_CHARS] or None


def answer_is(text: str) -> str | None:
    """The phrase after the last "The answer is" / "Final answer:" / "Answer:"."""
    last = None
    for match in _ANSWER_IS.finditer(text):
        last = match
    if last is None:
        return None
    rest = text[last.end() :].split("\n", 1)[0].strip()
    rest = _BOLD.sub("", rest).strip()
    rest = rest.rstrip(".。").strip()
    rest = _BOLD.sub("", rest).strip().strip("$").strip()
    if rest.startswith("\\(") and rest.endswith("\\)"):
        rest = rest[2:-2].strip()
    rest = rest.rstrip(".").strip()
    return rest[:MAX_ANSWER_CHARS] or None


def phrase_start(text: str, method: str) -> int:
    """Where the answer a line method (``hashes``, ``answer_is``) read starts in ``text``: just after its last
    marker; -1 for other methods or none."""
    if method == "hashes":
        at = text.rfind("####")
        return at + 4 if at >= 0 else -1
    last = -1
    if method == "answer_is":
        for match in _ANSWER_IS.finditer(text):
            last = match.end()
    return last


_EXTRACTORS = {"answer_tag": answer_tag, "boxed": last_boxed, "hashes": hashes_answer, "answer_is": answer_is}


def _after(text: str, method: str) -> str:
    """The text after the answer ``method`` found: after the closing tag or box; for the line
    methods (``hashes``, ``answer_is``), which read to the end of their line, the lines after."""
    if method == "answer_tag":
        tag = _tag_span(text)
        return text[tag[1] :] if tag is not None else ""
    if method == "boxed":
        box = _boxed_span(text)
        return text[box[1] :] if box is not None else ""
    marker = text.rfind("####") if method == "hashes" else -1
    if method == "answer_is":
        for match in _ANSWER_IS.finditer(text):
            marker = match.end()
    newline = text.find("\n", max(marker, 0))
    return text[newline:] if marker >= 0 and newline >= 0 else ""


def extract_answer(text: object, methods: Sequence[str] = METHODS, *, skip_reasoning: bool = True) -> Extraction | None:
    """Read the final answer from a completion, trying ``methods`` in order.

    A boxed answer inside an ``<answer>`` block is unwrapped, so R1-style completions that
    box their answer read the same as plain ones. With ``skip_reasoning`` (the default) only
    the text after the reasoning counts (``after_reasoning``). Returns None when nothing is
    found; never raises for any input (non-strings read as no answer).
    """
    if not isinstance(text, str) or not text:
        return None
    if skip_reasoning:
        visible = after_reasoning(text)
        if visible is None:
            return None
        text = visible
    unknown = [m for m in methods if m not in _EXTRACTORS]
    if unknown:
        raise ValueError(f"unknown extraction method(s) {unknown}; choose from {list(METHODS)}")
    for method in methods:
        found = _EXTRACTORS[method](text)
        if found is None:
            continue
        after = _after(text, method)
        if method == "answer_tag":
            inner = _boxed_span(found)
            if inner is not None:
                # "<answer>\boxed{3} thousand</answer>": what follows the box inside the tag follows the answer.
                found, after = inner[0], found[inner[1] :] + after
        if found:
            return Extraction(found, method, after)
    return None
