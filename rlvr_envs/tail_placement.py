"""Round 11: HTML around or next to an answer must be provably in place, or the answer is not read as shown.

Round 10 refused CSS by listing what moves text away (a negative margin, ``left:-9999px``, ``scale(0)``), so every
property the list lacked was paid: ``position:absolute`` with no offset (the element takes no space, and the text
after it is printed over it), ``position:fixed``, ``transform:translateX(-9999px)``, ``clip-path``, ``filter``,
``z-index:-1``, ``float`` with a negative margin, an ``<svg><text x="-999">``, a collapsed ``<details>``. This
module turns the reading around: an element is in place only when its tag is one HTML lays out in the flow (any
name but a short list of graphics, collapsed, annotating or embedding elements), every attribute is one that cannot
move or hide it, and every CSS declaration is on an allow-list with a value that keeps the text where it is and
readable. Anything else is not provably in place:

* an element still open at the answer (the answer is inside it) that is not in place hides the answer;
* an element near the answer (``NEAR_BEFORE`` characters before it, ``NEAR_AFTER`` after) that is not in place may
  be printed over it (``<span style="position:absolute">4</span>\\boxed{3}`` shows a 4 over the 3).

Colours are judged by ``tail_overprint.css_colour_visible`` (round 10). Linear in the region read; runs only when
the region holds a ``<``; never raises on any ``str``.
"""

from __future__ import annotations

import re

from rlvr_envs.tail_overprint import css_colour_visible

NEAR_BEFORE = 200
"""How far before an answer a closed element is read: an absolutely placed one is drawn where it stood."""
NEAR_AFTER = 80
"""How far after an answer a closed element is read."""

# Tags whose content HTML does not lay out as text where it stands: graphics placed by coordinates (svg, canvas,
# MathML's own layout), collapsed or moving boxes (details, dialog, marquee), annotations drawn over other text
# (ruby's rt), embedded documents, form controls, bidi overrides (bdo), and what a page never shows. Every other
# name, a made-up one included (``<answer>``, ``<final>``), HTML lays out inline, in the flow, like a span.
_OUT_OF_FLOW_TAGS = frozenset(
    """svg math canvas details dialog marquee ruby rt rp iframe frame frameset object embed video audio picture
    template select option optgroup datalist textarea input button map area head title script style noscript
    bdo portal slot""".split()
)
_VOID_TAGS = frozenset("br hr wbr img input meta link area base col embed source track param".split())
# Attributes that cannot move, hide or restyle the text (``class`` can: a rule elsewhere says what it does).
_PLAIN_ATTRIBUTES = frozenset("id lang title align href name role aria-label src alt".split())
# CSS properties whose every value leaves text where it stands and readable; the ones with values to check follow.
_PLAIN_CSS = frozenset(
    """font-weight font-style font-family font-variant text-align text-transform white-space word-break
    overflow-wrap word-wrap cursor user-select border border-top border-bottom border-left border-right
    border-color border-style border-width border-radius outline vertical-align direction unicode-bidi""".split()
)
_LENGTH = re.compile(r"^\s*(-)?\s*(\d+(?:\.\d*)?|\.\d+)\s*(px|pt|em|rem|ex|ch|%|cm|mm|in|vw|vh)?\s*$", re.IGNORECASE)
# A tag as HTML writes one: a name right after "<", attributes each after a space; "$0<x$ and $y>2$" is no tag.
_TAG = re.compile(
    r"<(/?)([A-Za-z][\w:-]*)((?:\s+[^\s=<>/\"']+(?:\s*=\s*(?:\"[^\"<>]*\"|'[^'<>]*'|[^\s\"'<>=]+))?)*)\s*/?>"
)
# Attributes HTML writes with no value; any other bare word makes the "tag" prose ("a<b and c>d").
_BOOLEAN_ATTRIBUTES = frozenset("hidden inert open popover nowrap disabled".split())
_ATTRIBUTE = re.compile(r"([^\s=/\"']+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'>]+))?")


def _not_negative(value: str) -> bool:
    # "0", "4px", "1em 2px": every length in it at least zero
    parts = value.split()
    return bool(parts) and all((m := _LENGTH.match(p)) is not None and m.group(1) is None for p in parts)


def _readable_size(value: str) -> bool:
    found = _LENGTH.match(value)
    if found is None:
        return value.strip().lower() in ("small", "medium", "large", "x-large", "xx-large", "larger", "inherit")
    if found.group(1):
        return False
    size = float(found.group(2))
    unit = (found.group(3) or "px").lower()
    return size * {"px": 1.0, "pt": 1.33, "em": 16.0, "rem": 16.0, "ex": 8.0, "ch": 8.0, "%": 0.16}.get(unit, 0.0) >= 6


_SPACINGS = ("line-height", "letter-spacing", "word-spacing", "text-indent")


def _declaration_out_of_place(prop: str, value: str) -> bool:
    """Whether one CSS declaration may move, hide, clip or overlay the text (anything not on the allow-list)."""
    value = re.sub(r"!\s*important", "", value, flags=re.IGNORECASE).strip().lower()
    if prop in _PLAIN_CSS:
        return "var(" in value or "url(" in value
    if prop == "color":
        return not css_colour_visible(value)
    if prop in ("background", "background-color"):
        return value not in ("white", "#fff", "#ffffff", "transparent", "none", "inherit")
    if prop == "font-size":
        return not _readable_size(value)
    if prop in _SPACINGS or prop.startswith(("margin", "padding")):
        return not (value in ("normal", "auto", "inherit") or _not_negative(value))
    if prop in ("width", "height", "min-width", "min-height", "max-width", "max-height"):
        return False  # overflow stays visible (``overflow`` is checked on its own), so the text still shows
    if prop == "overflow" or prop.startswith("overflow-"):
        return value != "visible"
    if prop == "display":
        return value not in ("inline", "block", "inline-block", "flex", "inline-flex", "grid", "contents", "table-cell")
    if prop == "position":
        return value not in ("static", "relative")  # relative with no offset stays; an offset is not allowed
    if prop == "visibility":
        return value != "visible"
    if prop == "opacity":
        try:
            return float(value) < 0.5
        except ValueError:
            return True
    if prop == "text-decoration" or prop == "text-decoration-line":
        return "line-through" in value or "var(" in value
    return True  # transform, clip, clip-path, filter, z-index, float, inset, top, left, mask, custom properties...


def out_of_place(tag: str, attributes: str) -> str | None:
    """Why an element with this tag and attribute text may not show its text where it stands, or None."""
    name = tag.lower()
    if name in _OUT_OF_FLOW_TAGS:
        return f"<{name}>"
    for attribute in _ATTRIBUTE.finditer(attributes):
        key = attribute.group(1).lower()
        raw = (attribute.group(2) or "").strip("\"'")
        if key == "style":
            for declaration in raw.split(";"):
                prop, sep, value = declaration.partition(":")
                prop = prop.strip().lower()
                if not prop and not value.strip():
                    continue
                if not sep or _declaration_out_of_place(prop, value):
                    return f"{prop}:{value.strip()}"[:60]
        elif key == "color" and name == "font":
            if not css_colour_visible(raw):
                return f"color={raw}"[:60]
        elif key == "size" and name == "font":
            if not re.fullmatch(r"\s*[+-]?[1-7]\s*", raw) or raw.strip().startswith("-"):
                return f"size={raw}"[:60]
        elif key == "face" and name == "font":
            continue
        elif key not in _PLAIN_ATTRIBUTES:
            return f"{key}=" if attribute.group(2) is not None else key
    return None


def _prose(name: str, attributes: str, text: str) -> bool:
    """Whether a tag-shaped run is prose: a bare word HTML never writes as an attribute, or a name no page lays out
    with no attribute value and never closed in ``text``."""
    for attribute in _ATTRIBUTE.finditer(attributes):
        if attribute.group(2) is None and attribute.group(1).lower() not in _BOOLEAN_ATTRIBUTES:
            return True
    if name not in _OUT_OF_FLOW_TAGS or "=" in attributes:
        return False
    return re.search(r"</\s*" + re.escape(name) + r"\s*>", text, re.IGNORECASE) is None


def _elements(region: str, text: str) -> tuple[list[tuple[int, str, str]], list[tuple[int, int, str, str]]]:
    """The elements still open at the end of ``region`` (start, tag, attributes) and the ones closed in it
    (start, end, tag, attributes); ``text`` is where a closing tag is looked for."""
    open_: list[tuple[int, str, str]] = []
    closed: list[tuple[int, int, str, str]] = []
    for found in _TAG.finditer(region):
        closing, name, attributes = found.group(1), found.group(2).lower(), found.group(3)
        if not closing and _prose(name, attributes, text):
            continue
        if closing:
            for i in range(len(open_) - 1, -1, -1):
                if open_[i][1] == name:
                    start, _, attrs = open_.pop(i)
                    closed.append((start, found.end(), name, attrs))
                    break
        elif name in _VOID_TAGS or attributes.rstrip().endswith("/"):
            closed.append((found.start(), found.end(), name, attributes.rstrip("/ ")))
        else:
            open_.append((found.start(), name, attributes))
    return open_, closed


# Round 12: markdown shows a code span's text as it is written ("`<span class=\"x\">`" prints the tag, it makes no
# element), so markup inside one is not read. CommonMark's rule: a run of N backticks opens a span that the next run
# of exactly N closes; an unmatched run is literal text. Spans holding the answer itself are left as they are.
_TICKS = re.compile(r"`+")
_CODE_READ = 4_000


def without_code_spans(before: str, after: str) -> tuple[str, str]:
    """``before`` and ``after`` with the inside of every code span lying wholly on one side blanked (same length), in
    the last ``_CODE_READ`` characters of ``before`` and the first of ``after`` (the readers look no further)."""
    if "`" not in before[-_CODE_READ:] and "`" not in after[:_CODE_READ]:
        return before, after
    head, tail = before[:-_CODE_READ], after[_CODE_READ:]
    out = []
    for side in (before[-_CODE_READ:], after[:_CODE_READ]):
        chars = list(side)
        pending: dict[int, int] = {}  # an open run's length -> where its span starts (linear: one pass)
        for run in _TICKS.finditer(side):
            width = len(run.group(0))
            start = pending.pop(width, None)
            if start is None:
                pending[width] = run.end()
            else:
                chars[start : run.start()] = " " * (run.start() - start)
        out.append("".join(chars))
    return head + out[0], out[1] + tail


def unplaced_around(before: str, after: str = "") -> str | None:
    """Why the answer between ``before`` and ``after`` is not provably shown where it stands: an element still open
    at it that is not in place, or one near it (closed, or void) that may be drawn over it; None otherwise."""
    if not isinstance(before, str) or not isinstance(after, str):
        return None
    if "<" in before or "<" in after[:NEAR_AFTER]:
        before, after = without_code_spans(before, after)
    if "<" in before:
        open_, closed = _elements(before, before + after[:2000])
        for _, tag, attributes in open_:
            why = out_of_place(tag, attributes)
            if why is not None:
                return f"inside an element not provably in place ({why})"
        near = len(before) - NEAR_BEFORE
        for _, end, tag, attributes in closed:
            if end >= near and tag not in ("br", "hr", "wbr"):
                why = out_of_place(tag, attributes)
                if why is not None:
                    return f"next to an element not provably in place ({why})"
    head = after[:NEAR_AFTER]
    if "<" in head:
        for found in _TAG.finditer(head):
            if not found.group(1) and not _prose(found.group(2).lower(), found.group(3), after[:2000]):
                why = out_of_place(found.group(2), found.group(3))
                if why is not None and found.group(2).lower() not in ("br", "hr", "wbr"):
                    return f"next to an element not provably in place ({why})"
    return None
