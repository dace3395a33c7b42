"""Does the answer markup balance around the final answer? (round 14, issue 26)

The extractors close an answer at its first closing delimiter: ``\\boxed{A} B}`` reads as ``A``
with the tail `` B}``, ``<answer>A</answer>B</answer>`` as ``A`` with ``B</answer>``, and
``\\boxed{\\boxed{A} B}`` as the inner ``A``. A reader of balanced markup sees something else:
the stray closer ends the answer, so what the markup encloses is ``A} B`` (two values), the outer
box holds ``\\boxed{A} B``, an answer tag opened before the one read and never closed holds
everything after it. A policy learns to close the gold early and keep writing inside what is
still the answer; the tail readers (``rlvr_envs.answer_tail``) judge words, not delimiters, so a
bare value there ("B}") passed.

``broken_markup`` reads the delimiters only, the way the extractor does (an escaped ``\\{``/``\\}``
does not nest, as in ``extract.balanced_group``), and names what does not balance when the span
the markup really encloses holds something besides the answer read:

* a closing brace after the box with no opener anywhere (``\\boxed{A} B}``);
* a box command (``\\boxed``, ``\\fbox``, ``\\framebox``, ``\\colorbox``, ``\\fcolorbox``) around
  the box or answer tag read, closed or not, holding more than it (``\\boxed{\\boxed{A} B}``, at any
  depth; ``\\fbox{B <answer>A</answer>}``);
* an answer closing tag after the answer with no opener (``<answer>A</answer>B</answer>``, in any
  case or spacing: ``</ANSWER>``, ``< / answer >``);
* an answer tag opened before the answer and holding more than it (``<answer>B<answer>A</answer>``,
  ``<answer><answer>A</answer> B</answer>``, ``<ANSWER>B <answer>A</answer>``), or reopened after
  it and holding something (``<answer>A</answer><Answer>B``);
* another answer tag inside the answer read, with text on both sides of it
  (``<answer>A</ANSWER> B</answer>``).

Delimiters are read as a reader sees them: a full-width brace (``｝``) closes like ``}``, and an answer
tag counts in full-width or small brackets (``＜/answer＞``), with a JSON-escaped solidus (``<\\/answer>``),
as HTML entities (``&lt;/answer&gt;``) or with an invisible character in its name (``</ans\u200bwer>``).

Markup that does not balance but encloses nothing more is left alone: ``\\boxed{5}}``,
``\\boxed{\\boxed{5}}``, ``<answer>5</answer></answer>``, ``<answer><answer>5</answer>`` are
typos around one value, and refusing them would cost honest answers. Only the tokens near the
answer are read (``WINDOW`` characters either side), so the cost is bounded on any input; the
scans are regular expressions, linear in that window. Never raises on any ``str``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rlvr_envs.extract import after_reasoning, balanced_group

WINDOW = 100_000
"""Characters read either side of the answer: an honest completion's markup around its answer
lies well within it; a hostile one is not scanned past it (0.2 s of CPU at worst, measured on
2.5 MB of answer tags)."""

_BOX_COMMANDS = ("\\boxed", "\\fbox")
"""The commands the extractor reads an answer from (``rlvr_envs.extract``)."""

# A full-width brace (｛ ｝) is no TeX group, but a reader sees it close what the box opened: it counts.
_BRACE = re.compile("\\\\[{}]|[{}\uff5b\uff5d]")
# What opens a framed group, read backwards from its brace: the frame around the answer is
# the answer, whichever frame command drew it.
_FRAME_BEFORE = re.compile(
    r"\\(?:boxed|fbox|framebox(?:\s*\[[^\[\]{}]{0,20}\]){0,2}|colorbox\s*\{[^{}]{0,40}\}"
    r"|fcolorbox\s*\{[^{}]{0,40}\}\s*\{[^{}]{0,40}\})\s*\Z"
)
# The frame commands ``_FRAME_BEFORE`` reads: a frame around the answer needs one of them before it.
_FRAME_COMMANDS = ("\\boxed", "\\fbox", "\\framebox", "\\colorbox", "\\fcolorbox")
# An answer tag as a reader sees it: any case and spacing, full-width or small brackets and solidus
# (＜/answer＞), a JSON-escaped solidus (<\\/answer>), HTML entities (&lt;/answer&gt;), an invisible format
# character inside the name (</ans\u200bwer>).
_INVISIBLE = "[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]*"
_LT, _GT = r"(?:<|\uff1c|\ufe64|&lt;|&#0*60;|&#x0*3c;)", r"(?:>|\uff1e|\ufe65|&gt;|&#0*62;|&#x0*3e;)"
_TAG_OPENERS = ("<", "\uff1c", "\ufe64", "&")
"""The first character of every ``_LT`` alternative: a window without any of them holds no answer tag."""
_TAG = re.compile(
    _LT
    + r"\s*(\\?[/\uff0f]?)\s*"
    + _INVISIBLE.join("answer")
    + r"(?![\w-])"
    + _INVISIBLE
    + r"\s*(?:[^<>]{0,200}?)"
    + _GT,
    re.IGNORECASE,
)
_EMPTY_MARKUP = re.compile(
    r"<\s*/?\s*[A-Za-z][^<>]{0,200}>"  # a tag shows nothing of its own
    r"|\\(?:q?quad|[,;:! ]|right|left|[bB]igg?[lr]?|displaystyle|textstyle|hfill|hspace\s*\{[^{}]{0,20}\}"
    r"|end\s*\{[^{}]{0,20}\}|\]|\)|(?:boxed|fbox|framebox|colorbox|fcolorbox)(?![A-Za-z]))"  # a frame is no value
)
# Layout around a value is no value: a box's width or position (\\parbox[t]{3cm}, \\makebox[2cm][c]), a colour
# (\\colorbox{yellow}, \\textcolor{red}), a length (\\raisebox{1ex}, \\hspace{1em}), an environment's name
# (\\begin{center}), a size or alignment switch (\\large, \\centering). Only the arguments that are
# parameters go; a content argument ({...} after them) stays and is read.
_LAYOUT = re.compile(
    r"\\(?:parbox(?:\s*\[[^\[\]{}]{0,20}\]){0,3}\s*\{[^{}]{0,40}\}"
    r"|(?:makebox|framebox|mbox|hbox|vbox|fbox|boxed)(?:\s*\[[^\[\]{}]{0,20}\]){0,2}(?![A-Za-z])"
    r"|(?:centering|noindent|par|tiny|scriptsize|footnotesize|small|normalsize|large|Large|LARGE|huge|Huge"
    r"|bfseries|itshape|displaystyle|textstyle|quad|qquad)(?![A-Za-z])"
    r"|(?:raisebox|scalebox|hspace\*?|vspace\*?|color|colorbox|textcolor|begin|end)\s*\{[^{}]{0,40}\}"
    r"|(?:resizebox|fcolorbox|rule)\s*\{[^{}]{0,40}\}\s*\{[^{}]{0,40}\})"
)
# Spacing, math delimiters, sentence punctuation, markdown emphasis and bare braces: no value.
_NOTHING = frozenset(" \t\r\n\u00a0\u00ad\u200b\u200c\u200d\u2060\ufeff$.,;:!)]}{*_~`'\"")


def _holds_something(text: str) -> bool:
    """Whether ``text`` shows anything besides markup, spacing and punctuation."""
    return any(ch not in _NOTHING for ch in _EMPTY_MARKUP.sub(" ", _LAYOUT.sub(" ", _TAG.sub(" ", text))))


@dataclass(frozen=True)
class _Span:
    start: int
    end: int


def broken_markup(completion: str, method: str) -> str | None:
    """What does not balance around the final answer ``method`` read (``"boxed"`` or
    ``"answer_tag"``; other methods read no markup) so that it encloses more than that answer,
    or None. ``completion`` is the whole completion (reasoning is skipped as the extractor does)."""
    if not isinstance(completion, str) or method not in ("boxed", "answer_tag"):
        return None
    response = after_reasoning(completion)
    if not response:
        return None
    if method == "answer_tag":
        tag = _answer_tag(response)
        if tag is None:
            return None
        found = _tag_breach(response, tag, own=True)
        if found is not None:
            return found
        framed = _brace_breach(response, tag, strays=False)  # "\\fbox{B <answer>A</answer>}"
        if framed is not None:
            return framed
        box = _last_box(response, tag.start, tag.end)  # "<answer>\\boxed{A} B}</answer>": the box read
        return _brace_breach(response, box, strays=True) if box is not None else None
    box = _last_box(response, 0, len(response))
    if box is None:
        return None
    return _brace_breach(response, box, strays=True) or _tag_breach(response, box, own=False)


def _answer_tag(text: str) -> _Span | None:
    """The tag ``extract.answer_tag`` reads: the last ``<answer>`` and the first ``</answer>`` after it."""
    start = text.rfind("<answer>")
    end = text.find("</answer>", start) if start >= 0 else -1
    return _Span(start, end + len("</answer>")) if end >= 0 else None


def _last_box(text: str, lo: int, hi: int) -> _Span | None:
    """The last box in ``text[lo:hi]`` the way ``extract`` finds it (from its command to just after
    its closing brace), or None (no box, or one never closed)."""
    start = max(text.rfind(cmd, lo, hi) for cmd in _BOX_COMMANDS)
    if start < 0:
        return None
    cmd = next(c for c in _BOX_COMMANDS if text.startswith(c, start))
    j = start + len(cmd)
    while j < len(text) and text[j] == " ":
        j += 1
    if j >= len(text) or text[j] != "{":
        return None  # "\\boxed 5": no braces to balance
    group = balanced_group(text, j)
    return _Span(start, group[1]) if group is not None else None


def _brace_breach(text: str, answer: _Span, strays: bool) -> str | None:
    """A frame around ``answer`` that holds more than it; with ``strays`` (the answer is a box), a
    closing brace after it with no opener anywhere, something shown between them."""
    start, end = answer.start, answer.end
    lo, hi = max(0, start - WINDOW), min(len(text), end + WINDOW)
    # Proof of absence first (round 15, the speed goal): a frame needs a frame command before the answer,
    # a stray needs a closer after it; most answers have neither, and the brace walk below cost ~20 us each.
    framed = any(text.find(cmd, lo, start) >= 0 for cmd in _FRAME_COMMANDS)
    if not framed and not (strays and (text.find("}", end, hi) >= 0 or text.find("\uff5d", end, hi) >= 0)):
        return None
    stack: list[int] = []
    enclosing: list[int] | None = None
    closes: dict[int, int] = {}
    stray = -1
    for token in _BRACE.finditer(text, lo, hi):
        at = token.start()
        if token.group(0).startswith("\\"):
            continue  # \{ and \} print a brace; they do not group
        if enclosing is None and at >= start:
            enclosing = list(stack)  # the groups open where the answer starts
        if token.group(0) in "{\uff5b":
            stack.append(at)
        elif stack:
            closes[stack.pop()] = at
        elif strays and at >= end:
            stray = at
            break  # the first closer after the box with no opener ends what the box holds
    if enclosing is None:
        enclosing = stack
    # Frames nest: the outermost frame around the box holds all that the inner ones hold.
    outer = next((o for o in enclosing if _FRAME_BEFORE.search(text, max(lo, o - 80), o) is not None), -1)
    if outer >= 0:  # a group of another kind (\\text{...}, {...}) around the answer: its words are the tail's
        close = closes.get(outer, hi)
        if _holds_something(text[outer + 1 : start] + " " + text[end:close]):
            return f"the answer read stands inside a box that holds more: {_quote(text[max(0, outer - 8) : close + 1])}"
    if stray >= 0 and _holds_something(text[end:stray]):
        return f"a closing brace with no opener after the box: it holds {_quote(text[start:stray])}"
    return None


def _tag_breach(text: str, answer: _Span, own: bool) -> str | None:
    """What the answer tags around ``answer`` say against it; ``own``: the span is the answer tag
    itself (its first and last tokens are its own opener and closer)."""
    lo, hi = max(0, answer.start - WINDOW), min(len(text), answer.end + WINDOW)
    if not any(text.find(opener, lo, hi) >= 0 for opener in _TAG_OPENERS):
        return None  # every tag starts with one of them (``_LT``): none in the window, no tag to read
    tokens = [(t.start(), t.end(), t.group(1).strip("\\") != "") for t in _TAG.finditer(text, lo, hi)]
    if not tokens:
        return None
    inside = [t for t in tokens if answer.start <= t[0] and t[1] <= answer.end]
    if own:
        inside = inside[1:-1]
    if inside:
        cuts = [answer.start, *(p for t in inside for p in (t[0], t[1])), answer.end]
        parts = [text[cuts[i] : cuts[i + 1]] for i in range(0, len(cuts), 2)]
        if own:
            parts[0] = parts[0][len("<answer>") :]
            parts[-1] = parts[-1][: len(parts[-1]) - len("</answer>")]
        if sum(_holds_something(p) for p in parts) > 1:
            return f"another answer tag inside the answer: {_quote(text[answer.start : answer.end])}"
    stack: list[tuple[int, int, bool]] = []  # (start, end, opened after the answer)
    for start, end, closing in tokens:
        if end > answer.start:
            break
        if not closing:
            stack.append((start, end, False))
        elif stack:
            stack.pop()
    outermost = stack[0] if stack else None
    outer_close = hi
    # One pass over what follows the answer, each stretch of text between two tags read once (linear).
    seen = False  # something shown between the answer and the current tag
    reopened = 0  # answer tags opened after the answer and still open
    at = answer.end
    for start, end, closing in (t for t in tokens if t[0] >= answer.end):
        stretch = _holds_something(text[at:start])
        if stretch and reopened:
            return f"a second answer tag after the answer: {_quote(text[answer.end : end])}"
        seen = seen or stretch
        at = end
        if not closing:
            stack.append((start, end, True))
            reopened += 1
        elif stack:
            popped = stack.pop()
            reopened -= popped[2]
            if popped is outermost:
                outer_close = start
        elif seen:
            return f"an answer closing tag with no opener after the answer: it holds {_quote(text[answer.start : end])}"
    if reopened and _holds_something(text[at:hi]):
        return f"an answer tag reopened after the answer: {_quote(text[at - 40 : at + 40])}"
    # Answer tags nest: the outermost one opened before the answer holds all that the inner ones hold.
    if outermost is not None:
        held = text[outermost[1] : answer.start] + " " + text[answer.end : outer_close]
        if _holds_something(held):
            return f"an answer tag opened before the answer holds more: {_quote(text[outermost[0] : outer_close])}"
    return None


def _quote(text: str) -> str:
    return repr(text[:80] + ("..." if len(text) > 80 else ""))
