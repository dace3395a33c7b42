"""Reading the final answer of a completion (and of a gold solution) for the math family.

The core extractor (``rlvr_envs.extract``) decides *where* the final answer is. This module
only refines what it returns, in three ways that keep "only the final answer counts":

* several boxes written together as one answer (``\\boxed{1}, \\boxed{2}``, ``\\boxed{(3,3)}
  \\text{ and } \\boxed{(1,1)}``) form one solution set. A set is never equal to one of its
  members, so writing many candidates still scores 0;
* a "The final answer is ..." sentence written *after* the last box wins over that box;
* an "answer is" phrase is trimmed to its math: ``$14{,}916$. I hope it is correct`` reads
  ``14{,}916``.

``fallback`` decides what a completion that marks no answer gives: nothing (``"none"``), the
whole completion when it is short and only math (``"bare"``, the verifier's default), or the
last math in free text as math-verify finds it (``"latex"``, ``"latex+expr"``; lenient).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rlvr_envs.extract import METHODS, after_reasoning, answer_is, balanced_group, extract_answer, phrase_start

MAX_BOXES = 20
CONTEXT_CHARS = 80
AFTER_CHARS = 400
_BOX_COMMANDS = ("\\boxed", "\\fbox")
_GAP_FILLER = re.compile(
    r"^(?:\s|[,;.$]|\\[()\[\],;!: ]|\\q?quad|\\text\{[^{}]{0,30}\}|\\(?:and|text)|[A-Za-z_0-9(){}=^]){0,60}$"
)
_INLINE_TAG = re.compile(
    r"</?(?:span|b|i|em|strong|u|mark|font|small|big|sup|sub|a|abbr|code|ins|q|cite|bdi|bdo|data|time)\b[^<>]{0,200}>",
    re.IGNORECASE,
)
_BLOCK_TAG = re.compile(r"</?[A-Za-z][\w-]{0,30}\b[^<>]{0,200}>")
_GAP_JOINER = re.compile(r",|;|\band\b|\bor\b")
_ANNOUNCES_ANSWER = re.compile(r"answer|final|therefore|thus|hence|\bso\b|result", re.IGNORECASE)
_MATH_SPAN = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
_SENTENCE_END = re.compile(r"\$?\.(?:\s|$)|[。！？]")  # round 13: "答えは3です。検算：1+2=3。" ends at "。"
_COPULA = re.compile(r"\b(?:is|are|equals)\b\s*")
_LATEX_COMMAND = re.compile(r"\\(?:begin|end)\{\w+\*?\}|\\[A-Za-z]+")
_UNIT_AFTER_NUMBER = re.compile(r"\d\}?\$?\s+[A-Za-z']+\.?\s*$")
_PROSE_WORD = re.compile(r"(?:^|\s)[A-Za-z']{2,}(?=\s|$|[.,;:!?])")
_WORD = re.compile(r"[A-Za-z]{4,}")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_CLAUSE_END = re.compile(
    r"[,;:(\n]|\b(?:because|since|as|which|so|and|but|for|where|when|while|given|hence|thus|therefore|that|if)\b",
    re.IGNORECASE,
)

_MARKDOWN_BOLD = re.compile(r"^\*\*\s*(.+?)\s*\*\*$", re.DOTALL)

FALLBACKS = ("none", "bare", "latex", "latex+expr")


@dataclass(frozen=True)
class Answer:
    """An extracted answer: its text, how it was found, and whether it is a set of boxes."""

    text: str
    method: str
    is_set: bool = False
    raw: str = ""
    """What the answer was read from before trimming (an "answer is" sentence), for the hedge check."""
    before: str = ""
    """Up to ``CONTEXT_CHARS`` of the completion just before the answer (a negation, an opened strike-out)."""
    after: str = ""
    """Up to ``AFTER_CHARS`` of the completion just after the answer (a hedge, an alternative)."""
    end: int = -1
    """Where the answer ends in the response (the text after the reasoning); -1 when not known."""


def box_at(text: str, start: int) -> tuple[str, int] | None:
    """Content and end of the box whose command starts at ``start``."""
    for cmd in _BOX_COMMANDS:
        if text.startswith(cmd, start):
            j = start + len(cmd)
            while j < len(text) and text[j] == " ":
                j += 1
            if j < len(text) and text[j] == "{":
                return balanced_group(text, j, window=10_000)
    return None


def _last_box_start(text: str, end: int) -> int:
    return max(text.rfind(cmd, 0, end) for cmd in _BOX_COMMANDS)


def _joins(gap: str) -> bool:
    """Whether the text between two boxes makes them one answer ("1, 2", "(a) and (b)").

    The gap is read as a reader sees it: an inline HTML tag shows nothing (``\\boxed{4}<span
    title="x">\\boxed{3}`` shows two boxes side by side), a block tag breaks the paragraph, and so
    does a strike-out (``<s>\\boxed{4}</s> \\boxed{3}`` corrects a step)."""
    if "<" in gap:
        gap = _BLOCK_TAG.sub("\n\n", _INLINE_TAG.sub("", gap))
    if "\n\n" in gap or len(gap) > 60 or _ANNOUNCES_ANSWER.search(gap):
        return False  # "\boxed{3}, so the final answer is \boxed{5}": 3 was a step, not a part
    if not _LATEX_COMMAND.sub("", gap).strip(" \t\n$()[]{}+-=.,;\\"):
        return True  # nothing but punctuation and spacing between them
    return bool(_GAP_FILLER.match(gap) and _GAP_JOINER.search(gap))


def boxed_answers(text: str) -> tuple[list[str], int, int] | None:
    """The last box plus the boxes joined to it as one answer, in order, where they end and start."""
    start = _last_box_start(text, len(text))
    if start < 0:
        return None
    found = box_at(text, start)
    if found is None:
        return None
    contents, end = [found[0].strip()], found[1]
    while len(contents) < MAX_BOXES:
        previous = _last_box_start(text, start)
        if previous < 0:
            break
        box = box_at(text, previous)
        if box is None or box[1] > start:
            break
        gap = text[box[1] : start]
        if not _joins(gap):
            break
        contents.insert(0, box[0].strip())
        start = previous
    return contents, end, start


def trim_phrase(phrase: str) -> str:
    """Reduce an "answer is" phrase to its math.

    ``$14{,}916$. I hope it is correct`` gives ``14{,}916``; ``The largest $n$ is 34`` gives
    ``34``; a sentence with exactly one number (``Sphere 3 hours ago``) gives that number.
    """
    cut = _SENTENCE_END.search(phrase)
    if cut is not None and cut.start() > 0:
        phrase = phrase[: cut.start()]
    phrase = phrase.replace('\\"', '"').strip().strip('"').strip()
    spans = [next(g for g in m.groups() if g is not None).strip() for m in _MATH_SPAN.finditer(phrase)]
    if len(spans) == 1 and phrase.startswith("$") and phrase.endswith("$"):
        return spans[0]
    if _has_words(phrase):
        copulas = list(_COPULA.finditer(phrase))
        if copulas:
            phrase = phrase[copulas[-1].end() :].strip()
        if _has_words(phrase):
            plain = _MATH_SPAN.sub(lambda m: m.group(0) if "=" not in m.group(0) else " ", phrase)
            numbers = list(_NUMBER.finditer(plain))
            if len(numbers) == 1:
                # The number and the words after it up to the clause's end: "3 thousand" is 3000,
                # "3 squared" is refused, "3 because ..." is 3 (rlvr_math.units reads the tail).
                rest = _CLAUSE_END.split(plain[numbers[0].end() :], maxsplit=1)[0]
                return (numbers[0].group(0) + rest.replace("$", " ")).strip()
    return phrase.replace("$", " ").strip()


def _has_words(text: str) -> bool:
    """Whether text has English words outside LaTeX commands (so it is prose, not math)."""
    return bool(_WORD.search(_LATEX_COMMAND.sub(" ", _MATH_SPAN.sub(" ", text))))


def final_answer(completion: str, methods: Sequence[str] = METHODS, fallback: str = "none") -> Answer | None:
    """The final answer of a completion, or None when it gives none.

    Only the text after the reasoning counts (``rlvr_envs.extract.after_reasoning``): an answer
    written only inside ``<think>`` is no answer, nor is anything after an unclosed ``<think>``.
    """
    visible = after_reasoning(completion)
    if visible is None:
        return None
    located = _locate(visible, methods, fallback)
    if located is None:
        return None
    answer, start, end = located
    if start < 0:
        return answer
    return replace(
        answer, before=visible[max(0, start - CONTEXT_CHARS) : start], after=visible[end : end + AFTER_CHARS], end=end
    )


def _locate(completion: str, methods: Sequence[str], fallback: str) -> tuple[Answer, int, int] | None:
    """The final answer and where it stands in the completion (-1 when that is not known)."""
    found = extract_answer(completion, methods)
    if found is not None and found.method == "answer_tag":
        tag_start = completion.rfind("<answer>")
        tag_end = completion.find("</answer>", tag_start)
        tag_end = tag_end + len("</answer>") if tag_end >= 0 else len(completion)
        if "\\boxed" in found.text:
            boxes = boxed_answers(found.text)
            if boxes is not None and len(boxes[0]) > 1:
                return Answer(", ".join(boxes[0]), "answer_tag", is_set=True), tag_start, tag_end
        content_start = tag_start + len("<answer>")
        region = completion[content_start : max(content_start, tag_end - len("</answer>"))]
        tag_box = boxed_answers(region)
        if tag_box is not None and len(tag_box[0]) == 1 and tag_box[0][0] == found.text:
            # "<answer>\\boxed{3} ribu</answer>": what follows the box inside the tag follows the answer.
            tagged = Answer(found.text, "answer_tag", raw=region.strip())
            return tagged, content_start + tag_box[2], content_start + tag_box[1]
        # "<answer>The answer is 3.</answer>", "<answer>Answer: 3</answer>", "<answer>**3**</answer>":
        # the tag holds a sentence or markdown around the answer; read it like one outside a tag,
        # and keep the whole tag for the hedge check.
        inner = answer_is(found.text)
        text = trim_phrase(inner) if inner is not None else _MARKDOWN_BOLD.sub(r"\1", found.text).strip()
        return (Answer(text, found.method, raw=found.text), tag_start, tag_end) if text else None
    if found is not None and found.method == "boxed":
        boxes = boxed_answers(completion)
        if boxes is not None:
            contents, end, start = boxes
            if "answer_is" in methods:
                later = answer_is(completion[end:])
                trimmed = trim_phrase(later) if later is not None else ""
                # Only a later phrase that states math counts ("the answer is right" does not).
                if trimmed and _is_bare_math(trimmed):
                    sentence = _first_sentence(later or "")
                    start, stop = _span(completion, sentence, end)
                    # The hedge check reads from the box on: "\boxed{332}. Other possible answer:
                    # 331" offers two answers, "\boxed{3}, so the final answer is 5" corrects one.
                    raw = completion[end:stop] if stop > end else sentence
                    return Answer(trimmed, "answer_is", raw=raw), start, stop
            if len(contents) > 1:
                return Answer(", ".join(contents), "boxed", is_set=True), start, end
            return Answer(contents[0], "boxed"), start, end
    if found is not None:
        phrase = found.method in ("answer_is", "hashes")
        text = trim_phrase(found.text) if phrase else found.text
        raw = _first_sentence(found.text) if phrase else found.text
        # round 13: the phrase's own place, not the last place its words recur ("The answer is 3. Check: 4 = 3."
        # read "3" inside the check, and the check as the text before the answer)
        line = phrase_start(completion, found.method) if phrase and raw else -1
        at = completion.find(raw, line) if line >= 0 else -1
        span = (at, at + len(raw)) if at >= 0 else _span(completion, raw, 0)
        return (Answer(text, found.method, raw=raw), *span) if text else None
    answer = _fallback(completion, fallback)
    return (answer, -1, -1) if answer is not None else None


def _span(completion: str, raw: str, start: int) -> tuple[int, int]:
    """Where the last occurrence of ``raw`` stands in the completion (at or after ``start``)."""
    at = completion.rfind(raw, start) if raw else -1
    return (at, at + len(raw)) if at >= 0 else (-1, -1)


def _first_sentence(phrase: str) -> str:
    """An "answer is" phrase up to its sentence end: what a hedge in it would qualify."""
    cut = _SENTENCE_END.search(phrase)
    return phrase[: cut.start()] if cut is not None and cut.start() > 0 else phrase


def _fallback(completion: str, fallback: str) -> Answer | None:
    if fallback == "none":
        return None
    stripped = completion.strip()
    # A short completion that is nothing but math ("42", "$\\frac{1}{2}$") is its own answer.
    marked = any(m in stripped for m in ("\\boxed", "\\fbox", "<answer>", "####"))
    if 0 < len(stripped) <= 300 and not marked and _is_bare_math(stripped):
        return Answer(stripped, "bare")
    if fallback == "bare":
        return None
    return _math_verify_extraction(stripped[-4000:], with_expressions=fallback == "latex+expr")


def _is_bare_math(text: str) -> bool:
    """No prose: at most one word, and only as a unit after a number ("10 units", "28 pct")."""
    words = _PROSE_WORD.findall(_LATEX_COMMAND.sub(" ", text))
    return not words or (len(words) == 1 and _UNIT_AFTER_NUMBER.search(text) is not None)


def _math_verify_extraction(text: str, with_expressions: bool) -> Answer | None:
    """math-verify's own search for the last math in free text (lenient graders' behaviour),
    walked by ``lenient`` with our faster LaTeX parser (the same answer; see its tests)."""
    from rlvr_math.lenient import first_candidate_if_any_converts

    try:
        found = first_candidate_if_any_converts(text, with_expressions)
    except Exception:
        return None
    if found is None or not found.strip():
        return None
    return Answer(found.strip(), "math_verify", is_set=" and " in found)


def _math_verify_parse_extraction(text: str, with_expressions: bool) -> Answer | None:
    """The same through math-verify's ``parse`` itself: the reference ``lenient`` is tested against."""
    import logging

    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse

    logging.getLogger("math_verify").setLevel(logging.ERROR)
    configs: list = [LatexExtractionConfig()]
    if with_expressions:
        configs.append(ExprExtractionConfig())
    try:
        parsed = parse(text, configs, parsing_timeout=None)
    except Exception:
        return None
    if len(parsed) < 2 or not isinstance(parsed[-1], str) or not parsed[-1].strip():
        return None
    return Answer(parsed[-1].strip(), "math_verify", is_set=" and " in parsed[-1])


def gold_answer(answer: object) -> Answer | None:
    """The gold answer of a task as an ``Answer`` (solutions with boxes read like completions)."""
    if answer is None or isinstance(answer, bool):
        return None
    if isinstance(answer, (int, float)):
        return Answer(repr(answer) if isinstance(answer, float) else str(answer), "gold")
    if isinstance(answer, (list, tuple)):
        parts = [str(a).strip() for a in answer if str(a).strip()]
        return Answer(", ".join(parts), "gold", is_set=True) if parts else None
    text = str(answer).strip()
    if not text:
        return None
    if "\\boxed" in text or "\\fbox" in text:
        boxes = boxed_answers(text)
        if boxes is not None:
            return Answer(", ".join(boxes[0]), "gold", is_set=len(boxes[0]) > 1)
        start = max(text.rfind("\\boxed{"), text.rfind("\\fbox{"))
        if start >= 0:  # an unclosed box in a gold solution: its content runs to the end
            return Answer(text[text.index("{", start) + 1 :].strip(), "gold")
    if len(text) > 80 and _has_words(text):
        # A worked solution rather than an answer: read it as a lenient grader reads a completion.
        found = final_answer(text, METHODS, fallback="latex+expr")
        if found is not None:
            return Answer(found.text, "gold", is_set=found.is_set)
    spans = [next(g for g in m.groups() if g is not None).strip() for m in _MATH_SPAN.finditer(text)]
    if len(spans) > 1 and not _has_words(_MATH_SPAN.sub(" ", text).replace("and", " ").replace("or", " ")):
        return Answer(", ".join(spans), "gold")
    return Answer(text, "gold")
