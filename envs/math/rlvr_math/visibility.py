"""What a reader of the rendered answer sees: nothing hidden, struck out or negated counts.

A policy can write a value the grader reads but a reader does not: ``\\phantom{3}`` takes the
space of a 3 and shows nothing, ``\\color{white}{3}`` is white on white, ``~~3~~``,
``\\sout{3}``, ``\\cancel{3}``, ``<del>3</del>`` are crossed out, ``\\neq 3`` and ``\\not= 3`` say
the answer is *not* 3. Each construct is decided on what it shows:

* ``\\phantom``, ``\\hphantom``, ``\\vphantom`` show nothing: they are removed, so a box holding
  only a phantom is no answer (``visible``);
* an invisible colour (white, transparent, ``#fff``, ``[rgb]{1,1,1}``, ``[gray]{1}``, CSS
  ``display: none`` / ``visibility: hidden`` / ``opacity: 0``), inside the answer or opened
  just before it, is refused; a visible colour (``\\textcolor{red}{3}``) is only formatting and
  is removed;
* strike-out (``~~..~~``, ``\\sout``, ``\\st``, ``\\cancel``, ``\\bcancel``, ``\\xcancel``,
  ``\\cancelto``, ``\\xout``, ``\\strike``, ``<s>``, ``<del>``, ``<strike>``, the combining
  overlays U+0334-U+0338), inside the answer or around it, is refused;
* a negated relation inside the answer (``\\neq``, ``\\ne``, ``\\not``, ``≠``, ``\\notin``,
  ``!=``, ...) that the gold answer does not have, or a negation right before the answer
  ("is not \\boxed{3}", "≠ \\boxed{3}", "不是 \\boxed{3}"), is refused.
"""

from __future__ import annotations

import re

from rlvr_envs.concealment import INVISIBLE_COLOUR, STRIKE_COMMANDS, STRUCK_CHARS, hidden_before
from rlvr_envs.extract import balanced_group
from rlvr_envs.tail_overprint import overprinted, unseen_tex_colour
from rlvr_envs.tail_placement import unplaced_around, without_code_spans
from rlvr_math.languages import NEGATIONS

_PHANTOM = re.compile(r"\\[hv]?phantom\s*(?=\{)")
_INVISIBLE = re.compile(
    r"\\(?:color|textcolor|mathcolor|colorbox|fcolorbox|pagecolor)\s*(?:\{\s*"
    + INVISIBLE_COLOUR
    + r"\s*\}|"
    + r"(?=\[)"
    + INVISIBLE_COLOUR
    + ")"
    + r"|\\transparent\s*\{\s*0(?:\.0*)?\s*\}|\\(?:hidden|invisible)\b"
    + r"|(?:display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*0(?:\.0*)?(?![.\d])"
    + r"|color\s*:\s*(?:white|#fff\b|#ffffff|transparent)|font-size\s*:\s*0(?:\.0*)?(?![.\d]))"
    # An HTML element hidden by its attribute (<div hidden>, aria-hidden is not: it still shows),
    # a box scaled to nothing, text the colour of the box behind it.
    + r"|<[A-Za-z][^<>]*?(?<![-\w])hidden(?![-\w])[^<>]*>"
    # A colour attribute (<font color="#ffffff">) and elements a page never shows (<template>).
    + r"|<[A-Za-z][^<>]*?(?<![-\w])color\s*=\s*[\"']?\s*(?:white|#fff\b|#ffffff|transparent)[^<>]*>"
    + r"|<\s*(?:template|noscript|script|style|title)(?:\s[^<>]*)?>"
    + r"|\\(?:scalebox|resizebox)\s*\{\s*0(?:\.0*)?\s*(?:pt|em|ex|cm|mm|in)?\s*\}"
    + r"|\\(?:colorbox|fcolorbox)\s*\{\s*([A-Za-z#0-9]+)\s*\}\s*\{\s*\\(?:color|textcolor)\s*\{\s*\1\s*\}"
    + r"|<!--",
    re.IGNORECASE,
)
_COLOUR_SWITCH = re.compile(r"\\(?:color|mathcolor)\s*(?:\[[^\]]*\])?\s*\{[^{}]*\}")
_COLOUR_WRAP = re.compile(r"\\(?:textcolor|colorbox)\s*(?:\[[^\]]*\])?\s*\{[^{}]*\}\s*(?=\{)")
_STRIKE = re.compile(
    r"~~(?=\S).*?~~|" + STRIKE_COMMANDS + r"|<\s*(?:s|del|strike)\s*>|" + STRUCK_CHARS.pattern + r"|\\sout\b",
    re.DOTALL,
)
_STRIKE_OPEN_BEFORE = re.compile(
    r"(?:~~|<\s*(?:s|del|strike)\s*>|(?:" + STRIKE_COMMANDS + r")\{)[^~<>{}]{0,40}$", re.IGNORECASE
)
_NEGATED_RELATION = re.compile(
    r"\\(?:not|neq?|neg|lnot|notin|nleq?|ngeq?|nless|ngtr|nsubseteq|nsupseteq|nmid|nparallel|nequiv|ncong|nsim"
    r"|napprox)(?![A-Za-z])|[≠∉¬≢≉]|(?<![\w)}\]!])!=|=/=|<>"
)
_NEGATION_BEFORE = re.compile(
    r"(?:" + NEGATIONS.pattern + r")\s*(?:(?:equal|equals|equal\s+to|to|be)\s*)*[\s$:=(\\\[]*$"
    r"|(?:\\(?:neq?|not\s*=?|notin)|≠|(?<![\w)}\]!])!=)[\s${(\\\[]*$",
    re.IGNORECASE,
)


# Characters that render as nothing: "3\u200b4" shows 34, "\u200b3" shows 3.
_ZERO_WIDTH = re.compile("[\u00ad\u200b-\u200d\u2060-\u2064\ufeff]")


def without_zero_width(text: str) -> str:
    """``text`` without the characters that render as nothing (zero-width spaces and joiners, soft hyphens)."""
    return _ZERO_WIDTH.sub("", text)


def _remove_groups(text: str, command: re.Pattern[str]) -> str:
    """Remove each ``\\command{...}`` with its balanced argument."""
    while True:
        match = command.search(text)
        if match is None:
            return text
        group = balanced_group(text, match.end(), window=len(text) + 2)
        if group is None:
            return text[: match.start()]
        text = text[: match.start()] + text[group[1] :]


def visible(text: str) -> str:
    """The answer as a reader sees it: zero-width characters, phantoms and visible colour commands dropped."""
    text = _ZERO_WIDTH.sub("", text)
    if "\\" not in text:
        return text
    if "phantom" in text:
        text = _remove_groups(text, _PHANTOM)
    if "color" in text:
        text = _COLOUR_SWITCH.sub("", _COLOUR_WRAP.sub("", text))
    return text


def concealed(text: str, before: str, after: str, gold: str) -> str | None:
    """Why a reader does not see this answer as stated (a reason for the details), or None.

    ``text`` is the extracted answer (and its raw sentence), ``before`` and ``after`` the few
    characters around it in the completion."""
    if "`" in before or "`" in after[:4_000]:
        before, after = without_code_spans(before, after)  # round 12: markup in a code span is shown, not rendered
    near = before[-80:] + "\x00" + text + "\x00" + after[:40]
    if _INVISIBLE.search(near):
        return "invisible answer (hidden or white-on-white)"
    if "\\" in text:
        colour = unseen_tex_colour(text)
        if colour is not None:  # round 10: a colour is shown only when provably dark enough on a white page
            return f"invisible answer (a colour not provably visible: {colour.group(0)!r})"
        moved = overprinted(text, opened_before=False)
        if moved is not None:
            return f"overprinted or shrunk answer ({moved!r})"
    moved = overprinted(after[:60], opened_before=False) if "\\" in after[:60] else None
    if moved is not None:  # "\\boxed{3}\\hspace{-1cm}8": what follows is printed over the answer
        return f"overprinted answer ({moved!r} right after it)"
    hidden = hidden_before(before)  # the reading every family shares: comments, hidden groups, strikes
    if hidden is not None:
        return f"hidden or struck-out answer: {hidden}"
    unplaced = unplaced_around(before, after) if "<" in before or "<" in after[:80] else None
    if unplaced is not None:  # round 11: an allow-list of tags and CSS, not a list of moves
        return f"hidden or overprinted answer: {unplaced}"
    if _STRIKE.search(text) or _STRIKE_OPEN_BEFORE.search(before[-80:]) or re.match(r"\s*\$*\s*~~", after):
        return "struck-out answer"
    if _NEGATED_RELATION.search(text) and not _NEGATED_RELATION.search(gold):
        return "negated answer"
    if _NEGATION_BEFORE.search(before[-60:]):
        return "negated answer (a negation right before it)"
    return None
