"""Reading a judge response's final answer: what each ``answer_view`` shows the judge.

Split out of ``rlvr_judge.verifier`` (which re-exports these names) so the verifier stays about
judging: these functions only read text, they never call a judge. ``v0`` cuts the answer (kept so
old results reproduce); ``v1``-``v3`` show the whole final answer and what follows it, and ``v2``/``v3``
the sentence that leads into it.
"""

from __future__ import annotations

import re

from rlvr_judge.final_labels import last_label

FINAL_ANSWER_CHARS = 2_000
"""``answer_view="v0"`` only (``judge-ref-v0``, ``judge-v0``): the final answer was cut to this."""
_INERT_TAIL = re.compile(r"[\s.。,，;:：!$*_)\]}\\]*")
"""Text after the answer that cannot change it: closing punctuation and LaTeX delimiters only."""
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)


def strip_reasoning(completion: str) -> str | None:
    """The response without reasoning: what follows the last ``</think>``; None if a think block never closes."""
    _head, sep, tail = completion.rpartition("</think>")
    if sep:
        return tail.strip()
    if _THINK_OPEN.search(completion):
        return None
    return completion.strip()


def final_answer(response: str) -> tuple[str, str]:
    """(text, how) ``answer_view="v0"`` showed: the marked final answer cut to 2,000 characters, else
    the response's last 2,000 (kept for ``judge-ref-v0``; ``final_answer_and_after`` replaces it)."""
    from rlvr_envs.extract import extract_answer

    found = extract_answer(response)
    if found is not None and found.text.strip():
        return found.text.strip()[:FINAL_ANSWER_CHARS], found.method
    return response[-FINAL_ANSWER_CHARS:].strip(), "whole response"


def _answer_end(text: str, method: str) -> int | None:
    """Where the final answer ``extract_answer`` read with ``method`` ends in ``text`` (None: unknown)."""
    from rlvr_envs.extract import answer_is, balanced_group

    if method == "answer_tag":
        start = text.rfind("<answer>")
        end = text.find("</answer>", start) if start >= 0 else -1
        return end + len("</answer>") if end >= 0 else None
    if method == "boxed":
        start = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
        if start < 0:
            return None
        j = start + len("\\boxed")  # both commands have 6 characters
        while j < len(text) and text[j] == " ":
            j += 1
        if j < len(text) and text[j] == "{":
            group = balanced_group(text, j)
            return group[1] if group is not None else None
        token = re.match(r"[^\s$]+", text[j:])
        return j + token.end() if token else None
    if method == "hashes":
        start = text.rfind("####")
        end = text.find("\n", start) if start >= 0 else -1
        return None if start < 0 else (len(text) if end < 0 else end)
    if method == "answer_is":
        # The answer is the rest of the last marker's line: the last line holding a marker with an answer.
        end = len(text)
        while end > 0:
            start = text.rfind("\n", 0, end) + 1
            if answer_is(text[start:end]) is not None:
                return end
            end = start - 1
        return None
    return None


def final_answer_and_after(response: str) -> tuple[str, str, str]:
    """(answer, after, how): the whole marked final answer and everything the response wrote after it,
    or the whole response when nothing is marked. Nothing is cut: the caller refuses what is too long.

    Text after the answer can change it ("if that is wrong, it is 41", a second box outside the answer
    tag), so the judge sees it; only a tail of closing punctuation and LaTeX delimiters is left out."""
    from rlvr_envs.extract import extract_answer

    found = extract_answer(response)
    if found is None or not found.text.strip():
        return response.strip(), "", "whole response"
    end = _answer_end(response, found.method)
    after = response.strip() if end is None else response[end:].strip()  # unknown end: show everything
    if _INERT_TAIL.fullmatch(after):
        after = ""
    return found.text.strip(), after, found.method


_SENTENCE_BREAK = re.compile(r"\n|[。！？]|[.!?](?=\s)")


def _answer_start(text: str, method: str, answer: str = "") -> int | None:
    """Where the marker of the final answer ``extract_answer`` read with ``method`` starts (the
    last one, as ``_answer_end`` finds its end); for ``answer_is``, the start of its line."""
    if method == "answer_tag":
        start = text.rfind("<answer>")
    elif method == "boxed":
        start = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    elif method == "hashes":
        start = text.rfind("####")
    elif method == "answer_is":
        end = _answer_end(text, method)
        line = -1 if end is None else text.rfind("\n", 0, end) + 1
        at = -1 if end is None or not answer else text.rfind(answer, line, end)
        start = at if at >= 0 else line
    else:
        return None
    return start if start >= 0 else None


def final_sentence_and_after(response: str) -> tuple[str, str, str]:
    """(answer, shown, how) for ``answer_view="v2"``: what ``final_answer_and_after`` shows, with the
    sentence that gives the answer before it ("It is either 41 or 42", "If n is odd, 41; otherwise 42",
    "\\boxed{41} or 42"): what is written beside the final answer can change it as much as what follows."""
    answer, after, how = final_answer_and_after(response)
    start = _answer_start(response, how, answer)
    lead = ""
    if start is not None:
        breaks = [m.end() for m in _SENTENCE_BREAK.finditer(response, 0, start)]
        # Less the markup that opens the answer itself ("$\\boxed", "**" around it, "\\(").
        lead = response[breaks[-1] if breaks else 0 : start].rstrip(" \t$*_([{\\").strip()
    head = f"{lead} {answer}" if lead else answer
    return answer, (f"{head}\n\n{after}" if after else head), how


def final_reading(response: str) -> tuple[str, str, str, str, int | None]:
    """(answer, after, shown, how, start) for ``answer_view="v3"`` (``judge-ref-v6``): as ``"v2"``, with a
    final answer labelled in any claimed language read as the core reads an English one, the last label
    being the answer (``rlvr_judge.final_labels``); ``how`` is ``"label"`` when such a label was read."""
    answer, after, how = final_answer_and_after(response)
    label = last_label(response, answer if how == "whole response" else after, how)
    if label is None:
        return answer, after, final_sentence_and_after(response)[1], how, _answer_start(response, how, answer)
    rest = response[label.end :].strip()
    rest = "" if _INERT_TAIL.fullmatch(rest) else rest
    line = response[label.start : label.end].strip()
    return label.value, rest, (f"{line}\n\n{rest}" if rest else line), "label", label.start
