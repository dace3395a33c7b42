"""Answers a reader takes as side remarks: a final box inside a note, another value on a short line.

The last box is the final answer (an earlier box was a step), and boxes written together are one
answer (``rlvr_math.extraction``). Two shapes fell between those rules (issue 26, round 8):

* **the last box inside a note** opened after an earlier box: ``\\boxed{4}\\footnote{Actually
  \\boxed{3}}``, ``<aside>``, ``<details>``, a tooltip, a superscript, a link. A reader reads the
  box in the text as the answer and the note as a remark on it (or a correction): the response
  states two answers, and the grader must not pick the one the reader does not. A note is any
  group that does not show its content in line as text: the containers that do (``\\text``,
  ``\\textbf``, ``\\color``, ``<b>``, ``<span>``, ``align``...) are an allow-list, so a command,
  element or environment no list names counts as a note;
* **another value on a short line after the answer**, with a label or markup around it
  (``> Note: may be 4``, ``| answer | 4 |``, ``P.S. 4``, ``\\[4\\]``): the shared reading
  (``rlvr_envs.answer_tail``) refuses a bare value on a line of its own; a line of a few words
  whose one number is another value offers it just the same.

Both are linear in the text read (bounded windows) and never raise on any ``str``.
"""

from __future__ import annotations

import re

from rlvr_math.languages import NEGATIONS
from rlvr_math.normalize import clean, compact, parse_number

MAX_DEPTH = 64
"""Open groups tracked at once (each close is matched against them: bounded work per token)."""
MAX_ENCLOSING = 8
"""Boxes tried, going back, for the one before the final box (others enclose it: ``\\boxed{\\fbox{3}}``)."""

# Containers that show their content in line, as text: a box inside them is in the text, not in a note.
_DISPLAY_COMMANDS = frozenset(
    """text textbf textit textrm textsf texttt textup textnormal textmd textsl emph mathbf mathrm mathit mathsf
    mathtt mathnormal boldsymbol bm pmb underline color textcolor colorbox fcolorbox ensuremath displaystyle
    textstyle mbox hbox makebox fbox boxed framebox parbox bf it rm large Large LARGE huge Huge normalsize centerline
    left right bigl bigr Bigl Bigr""".split()
)
_DISPLAY_ELEMENTS = frozenset(
    """b strong i em u span div p mark center font answer li ol ul blockquote h1 h2 h3 h4 h5 h6 td th tr table
    tbody thead big math mrow mn mi mo mstyle section article main body html""".split()
)
_DISPLAY_ENVIRONMENTS = frozenset(
    """align aligned alignat equation gather gathered array cases dcases center itemize enumerate matrix pmatrix
    bmatrix vmatrix Vmatrix smallmatrix tabular displaymath math flalign multline split subequations solution
    answer flushleft flushright quote minipage""".split()
)
_VOID_ELEMENTS = frozenset("br hr img input meta link wbr source col area base embed param track".split())

_TOKEN = re.compile(
    r"(\\(?:global\s*\\)?setbox\s*\\?\w+\s*=?\s*\\(?:[hv]box|vtop)\s*(?=\{))"  # a box stored, not shown
    r"|\\[{}\\]"  # an escaped brace or a line break: no group
    r"|\\begin\s*\{\s*([A-Za-z]+)\*?\s*\}|\\end\s*\{\s*([A-Za-z]+)\*?\s*\}"
    r"|\\([A-Za-z@]+)\s*(?:<[^<>\n]{0,20}>\s*)?(?:\[[^\]\n]{0,200}\]\s*)*(?=\{)"  # a command whose argument opens next
    # (``\\@gobble``; a beamer overlay ``\\only<2>``)
    r"|([\^_])\s*(?=\{)"  # a superscript or subscript group
    r"|(\{)|(\})"
    r"|<(/?)([A-Za-z][\w-]{0,30})(?:\s[^<>]{0,300})?>"
)


def _opened(gap: str) -> list[str]:
    """The groups opened in ``gap`` and still open at its end, outermost first (a name each:
    ``footnote``, ``^``, ``<aside``, ``env:remark``, ``""`` for a bare brace group)."""
    stack: list[str] = []
    pending: str | None = None
    for token in _TOKEN.finditer(gap):
        if len(stack) >= MAX_DEPTH:
            break  # nested deeper than any answer's markup: what is open so far decides
        stored, begin, end, command, script, brace, close, slash, element = token.groups()
        if stored is not None:
            pending = "setbox"
            continue
        if begin is not None:
            stack.append("env:" + begin)
        elif end is not None:
            if ("env:" + end) in stack:
                del stack[len(stack) - 1 - stack[::-1].index("env:" + end) :]
        elif command is not None or script is not None:
            pending = command if command is not None else script
            continue
        elif brace is not None:
            stack.append(pending if pending is not None else "")
        elif close is not None:
            if stack and not stack[-1].startswith(("env:", "<")):
                name = stack.pop()
                if gap.startswith("{", token.end()):
                    pending = name  # the command's next argument ("\\pdftooltip{x}{...}")
                    continue
        elif element is not None:
            tag = "<" + element.lower()
            if slash:
                if tag in stack:
                    del stack[len(stack) - 1 - stack[::-1].index(tag) :]
            elif element.lower() not in _VOID_ELEMENTS and not token.group(0).endswith("/>"):
                stack.append(tag)
        pending = None
    return stack


def _is_note(name: str) -> bool:
    if name == "":
        return False
    if name.startswith("env:"):
        return name[4:] not in _DISPLAY_ENVIRONMENTS
    if name.startswith("<"):
        return name[1:] not in _DISPLAY_ELEMENTS
    return name not in _DISPLAY_COMMANDS


def note_around(gap: str) -> str | None:
    """The note (a command, element or environment that does not show its content as text) opened
    in ``gap`` and still open at its end, or None."""
    for name in _opened(gap):
        if _is_note(name):
            return name.removeprefix("env:").lstrip("<") if name not in "^_" else "superscript"
    if gap.count("```") % 2 or gap.count("~~~") % 2:
        return "code block"  # a fence still open: the box is shown as its source text, not as an answer
    if _OPEN_ATTRIBUTE.search(gap[-400:]) is not None:
        return "attribute"  # inside a tag's attribute (``<img alt="``): no reader sees it as text
    return None


_OPEN_ATTRIBUTE = re.compile(r"<[A-Za-z][\w-]{0,30}\s[^<>]*$")


def _box_start(text: str, end: int) -> int:
    return max(text.rfind("\\boxed", 0, end), text.rfind("\\fbox", 0, end))


def answer_in_note(response: str, answer_end: int, answer_text: str) -> str | None:
    """``\\boxed{4}\\footnote{Actually \\boxed{3}}``: the final box sits in a note opened after an
    earlier box that says something else. ``answer_end`` is where the final box ends in ``response``."""
    from rlvr_math.extraction import box_at

    start = _box_start(response, answer_end)
    if start <= 0:
        return None
    previous, box = _box_start(response, start), None
    for _ in range(MAX_ENCLOSING):
        if previous < 0:
            return _after_stated_answer(response[:start], answer_text)
        box = box_at(response, previous)
        if box is not None and box[1] <= start:
            break
        previous = _box_start(response, previous)  # a box around the final one ("\\boxed{\\fbox{3}}")
    if box is None or box[1] > start:
        return None
    note = note_around(response[box[1] : start])
    if note is None:
        return None
    if compact(clean(box[0].strip())) == compact(clean(answer_text.strip())):
        return None  # the note restates the answer
    return f"the final box is inside a note ({note}) after another answer ({box[0].strip()[:40]!r})"


# Where a response states its answer in words or a ``####`` line (read before a box that follows).
_LEADING_NUMBER = re.compile(
    r"[\s*:：$]*(?:(?:is|equals|=|是|为|為|は)[\s*:：$]*)?([-+]?\d+(?:[.,]\d+)*(?:/\d+)?)(?![\d/])", re.IGNORECASE
)
MAX_STATED_SCAN = 200_000
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_STATED_MARKERS = ("final answer", "the answer is", "answer:", "answer :", "answer：", "####", "答案", "答え")


def _after_stated_answer(before: str, answer_text: str) -> str | None:
    """``The answer is 4.\\footnote{\\boxed{3}}``, ``#### 4 <sup>\\boxed{3}</sup>``: with no box before it,
    the final box sits in a note opened after a stated answer of another plain value. The value right
    after the last statement is read first (C-speed regexes); only when it differs from the box's is
    the text from it to the box scanned for an open note, so honest responses ("the answer is
    \\boxed{3}", a statement of the same value) pay no scan."""
    before = before[-MAX_STATED_SCAN:]
    lowered = before.translate(_ASCII_LOWER)  # lower() may change lengths ('İ'): positions must hold
    ends = [at + len(marker) for marker in _STATED_MARKERS if (at := lowered.rfind(marker)) >= 0]
    if not ends:
        return None
    lead = _LEADING_NUMBER.match(before, max(ends))  # "is 4.\\footnote{": the value stated before the note
    value = parse_number(lead.group(1)) if lead is not None else None
    if value is None or lead is None:
        return None
    mine = parse_number(clean(answer_text))
    if mine is not None and mine.value == value.value and mine.percent == value.percent:
        return None
    note = note_around(before[lead.end() :])
    if note is None:
        return None
    return f"the final box is inside a note ({note}) after a stated answer ({lead.group(1)!r})"


# A short line after the answer: a few words (a label, "P.S.", "Note: may be") around one number.
_LINE_NUMBER = re.compile(r"(?<![\w.^_{])[-+−]?\d+(?:[.,]\d+)*(?![\w.]\d|[\w^_])")
_LINE_MARKUP = re.compile(r"\\[\[\]()]|\$+|<[^<>]{0,80}>|\\[A-Za-z]+|[>|*#`~_\-]+")
_LINE_WORD = re.compile(r"[^\W\d_]+")
_CALCULATION = re.compile(r"[=+/×÷·<>≤≥^]|\\(?:times|cdot|div|frac|sqrt|le|ge|neq)|\d\s*[-−*]\s*\d")
_LINE_LEAD = re.compile(r"^[\s>|*#-]+|<[^<>]{0,80}>")  # a quote, table, list or heading mark; a tag
_CODE_LINE = re.compile(r"[;{}]|[A-Za-z]\(|^\s*(?:\[/?\w+\]|```)")
MAX_LINE_WORDS = 4
MAX_LINES = 3


def value_on_short_line(after: str, answer_text: str) -> str | None:
    """Another plain number stated on one of the first short lines after the answer's own line
    (``\\boxed{3}\\n\\n> Note: may be 4``), when the answer is a plain number; or None.

    A line that calculates (``3 + 1 = 4``), has more than a few words (an explanation), or states
    the answer's own value is no other answer; reading stops at the first long line."""
    lines = after[:1_000].split("\n")[1:]
    if not any(ch.isdigit() for line in lines[: MAX_LINES * 4] for ch in line):
        return None  # the common case: no digit on the lines after the answer (cleaning the answer costs more)
    mine = parse_number(clean(answer_text))
    if mine is None or mine.percent:
        return None  # the answer's own line is read by the sentence checks
    read = 0
    for line in lines:
        if not line.strip():
            continue
        read += 1
        if read > MAX_LINES or len(line) > 200 or _CODE_LINE.search(line):
            return None  # an explanation or code ("size(150);" in an [asy] figure) follows: no remark
        if _CALCULATION.search(_LINE_LEAD.sub("", line)):
            continue
        plain = _LINE_MARKUP.sub(" ", line)
        if len(_LINE_WORD.findall(plain)) > MAX_LINE_WORDS:
            return None
        numbers = _LINE_NUMBER.findall(plain)
        if len(numbers) != 1 or NEGATIONS.search(plain):
            continue  # "Not 2.", "nicht 2", "不是2": a value denied is no other answer
        value = parse_number(clean(numbers[0].replace("−", "-")))
        if value is not None and value.value != mine.value:
            return f"another value on a short line after the answer ({line.strip()[:40]!r})"
    return None
