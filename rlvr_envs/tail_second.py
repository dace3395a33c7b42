"""What takes a final answer back from outside its tail (shared by ``rlvr_envs.answer_tail``, which re-exports these).

* ``redefinition``: a TeX definition anywhere (``\\renewcommand{\\boxed}[1]{odd}``, ``\\def``, ``\\let``, category
  codes): what the reader sees is then not the text extracted;
* ``second_answer``: another final answer after the one read (a box, an answer tag, a ``####`` line, an "answer is"
  phrase, a JSON key, a list or a table) saying something else.

Moved out of ``answer_tail`` in round 14 (that file reached its size limit); same behaviour. Never raises on any
``str``.
"""

from __future__ import annotations

import re

from rlvr_envs.extract import extract_answer
from rlvr_envs.tail_clauses import set_out_beside

MAX_TAIL_CHARS = 20_000
"""Tail read at most; a hedge further than this after the answer is not read (bounds the cost)."""

_DEFINITION = re.compile(
    r"\\(?:[egx]?def|let|futurelet|(?:re)?newcommand|providecommand|DeclareMathOperator|DeclareRobustCommand"
    r"|(?:re)?newenvironment|catcode|csname|uccode|lccode|mathcode|mathchardef|chardef)(?![A-Za-z])"
)
_PLAIN = re.compile(r"[\s$*_`]+")


def redefinition(completion: str) -> str | None:
    """The first TeX definition in ``completion`` (``\\def``, ``\\renewcommand``, ``\\let``, a category
    code), or None. A completion that defines commands renders as something other than its text."""
    if not isinstance(completion, str) or "\\" not in completion:
        return None
    found = _DEFINITION.search(completion)
    return found.group(0) if found is not None else None


def _plain(text: str) -> str:
    return _PLAIN.sub(" ", text).strip().rstrip(".。!").strip().casefold()


def second_answer(after: str, answer: str) -> str | None:
    """Another final answer in ``after`` (the text following the one read) that is not ``answer``
    (the same words, or the same followed by more words, are the same answer), or None."""
    if not isinstance(after, str) or not after.strip():
        return None
    read = _plain(answer if isinstance(answer, str) else "")
    set_out = set_out_beside(after, read, _plain)  # round 12: a JSON key, a list or a table
    if set_out is not None:
        return set_out
    later = extract_answer(after[:MAX_TAIL_CHARS], skip_reasoning=False)
    if later is None:
        return None
    said = _plain(later.text)
    if said == read or (said.startswith(read) and read and not said[len(read)].isalnum()):
        return None
    return later.text
