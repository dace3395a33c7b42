"""Round 11: which parts of a response's markup a reader is sure to see, read by an allow-list.

Rounds 6-10 listed the ways an HTML element hides its text (``display:none``, ``font-size:0``,
``opacity:0``, white ``color``...). A list of hiders is never done: ``<font size="0">``, ``clip-path:
inset(100%)``, ``<text opacity="0">`` in an SVG, ``transform:scale(0)``, ``max-height:0;overflow:hidden``,
``text-indent:-9999px``, a ``class`` the page's stylesheet hides (``sr-only``, ``hidden``) each put the
reference beside a wrong visible answer where a judge model reads it and a reader does not. So the
reading is turned around: an element's text counts as seen only when everything the element carries is
known not to hide it (``SAFE_ATTRIBUTES``, ``SAFE_CSS``: weight, style, family, alignment, a readable
colour or size...); anything else (an unknown attribute, a style property, a class) makes its text a part
a reader may not see. Likewise a link's destination (``[The Rhine](https://.../The_Danube)``, ``href``),
which the rendered page does not show, a ``<details>`` body that is folded, and LaTeX's ``comment``
environment and ``\\iffalse ... \\fi``.

Code is shown as written (a fenced block or an inline span renders ``<span style="display:none">`` as
text), so markup inside code is read as visible text: an honest answer to an HTML task is not refused.
Prose is not markup either: "a<b and c>d" (bare words, no ``name=value``) and a ``<`` inside inline
maths are comparisons; a bare word beside a real attribute (``<span hidden foo>``) leaves it a tag.

``unseen_parts(text)`` gives the texts, ``without_unseen(text)`` the text with them blanked; both are
linear in the text and bounded (``MAX_CHARS``, ``MAX_ELEMENTS``), and never raise.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import unquote

from rlvr_envs.tail_overprint import css_colour_visible

MAX_CHARS = 64_000
"""Markup past this is not read (the screen reads no further either)."""
MAX_ELEMENTS = 2_000
"""At most this many element openings are read."""

# Attributes that change nothing about whether the element's own text shows (their values, like
# title or alt, are themselves unseen parts: ``rlvr_judge.decoded``'s containers read those).
SAFE_ATTRIBUTES = frozenset(
    "href src alt title lang dir id name target rel colspan rowspan align valign scope start type reversed cite "
    "datetime abbr headers span summary aria-label aria-describedby role translate tabindex open".split()
)
# Sizes on table parts and images: a cell's width never hides its text (it grows to fit).
_TABLE_ATTRIBUTES = frozenset("width height border cellpadding cellspacing".split())
_TABLE_ELEMENTS = frozenset("table thead tbody tfoot tr td th col colgroup caption img".split())
# CSS properties that cannot take text out of sight (a readable colour and size are checked below).
SAFE_CSS = frozenset(
    "font-weight font-style font-family font-variant text-align text-transform white-space word-break "
    "border border-style border-width border-color border-radius padding padding-left padding-right padding-top "
    "padding-bottom list-style list-style-type".split()
)
# Elements whose contents a rendered page never shows, whatever they carry (MathML's annotation is the
# formula's source, its phantom an empty box of the same size). Not ``head``/``title``: an HTML page
# written as the answer is read as its source, title included.
NEVER_SHOWN = frozenset("script style template noscript iframe object annotation annotation-xml mphantom".split())
# The names a renderer treats as markup (HTML, SVG, MathML). Any other "<name ...>" ("<<Email to boss>>",
# IFEval's title convention) is an unknown element whose text shows inline: only the attributes every
# element obeys (a style, a class, hidden) can hide it.
KNOWN_ELEMENTS = frozenset(
    "a abbr address article aside audio b bdi bdo big blink blockquote body button canvas caption center cite code "
    "col colgroup data dd del details dfn dialog dir div dl dt em fieldset figcaption figure font footer form h1 h2 "
    "h3 h4 h5 h6 head header hgroup html i iframe img input ins kbd label legend li main map mark marquee menu meter "
    "nav nobr noscript object ol optgroup option output p picture pre progress q rp rt ruby s samp script section "
    "select slot small span strike strong style sub summary sup svg table tbody td template textarea tfoot th thead "
    "time title tr tt u ul var video g text tspan textpath foreignobject rect circle path use symbol defs switch "
    "math mi mn mo ms mtext mrow mstyle mspace mpadded mphantom semantics annotation annotation-xml".split()
)
GLOBAL_ATTRIBUTES = frozenset(("style", "class", "hidden"))
_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())

_OPEN = re.compile(r"<([a-zA-Z][\w-]{0,20})((?:\s[^<>]{0,1000})?)/?>")
_ATTRIBUTE = re.compile(r"([^\s\"'<>/=]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'<>]+))?")
# What a tag's attributes look like when it is one ("$a<b$ and $c>d$" is maths, not a <b> element).
_ATTRIBUTES = re.compile(r"(?:\s+[A-Za-z_:][-\w:.]*(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'<>=`]+))?)*\s*/?")
# Inline maths: a "<" in it is a comparison, whatever follows.
_MATH = re.compile(r"(?<![\\$])\$(?!\$)[^$\n]{1,1000}?(?<!\\)\$|\\\([^\n]{1,1000}?\\\)")
# Inline spans stay on their line and are bounded, so unmatched backticks cost linear time.
_CODE = re.compile(
    r"(?ms)^[ \t]{0,3}(`{3,}+|~{3,}+)[^\n]*+\n.*?(?:^[ \t]{0,3}\1[ \t]*$|\Z)|(?<!`)(`++)[^\n]{1,1000}?(?<!`)\2(?!`)"
)
_FONT_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(px|pt|em|rem|%)\s*(?:!\s*important)?\s*", re.IGNORECASE)
# Readable at these sizes and above (8 px is the smallest a browser shows as text by default).
_MIN_SIZE = {"px": 8.0, "pt": 6.0, "em": 0.5, "rem": 0.5, "%": 50.0}
_SIZE_WORDS = frozenset("x-small small medium large x-large xx-large xxx-large smaller larger inherit initial".split())
_DECORATION = re.compile(r"\s*(?:none|underline|overline|underline overline|overline underline)\s*", re.IGNORECASE)
_FONT_ATTRIBUTE_SIZE = re.compile(r"\s*(?:[1-7]|\+[0-6])\s*")
# A markdown link's destination: "[text](url)" / "[text](<url> "title")"; a reference definition line
# (not a footnote's, "[^1]: text", which the page shows).
_LINK_DESTINATION = re.compile(r"\]\(\s*<?([^\s()<>]{1,2000})>?")
_LINK_DEFINITION = re.compile(r"(?m)^[ \t]{0,3}\[(?!\^)[^\]\n]{1,100}\]:[ \t]*<?(\S{1,2000}?)>?(?:[ \t]|$)")
_HREF = re.compile(r"\bhref\s*=\s*(?:\"([^\"]{0,2000})\"|'([^']{0,2000})')", re.IGNORECASE)
_TEX_COMMENT = re.compile(
    r"\\begin\s*\{comment\}(.*?)(?:\\end\s*\{comment\}|\Z)|\\iffalse\b(.*?)(?:\\fi\b|\Z)", re.DOTALL
)
_URL_PUNCTUATION = re.compile(r"[^\w]+|_+")


def _mask_code(text: str) -> str:
    """``text`` with code (fenced blocks, inline spans) replaced by spaces of the same length."""
    return _CODE.sub(lambda m: " " * len(m.group(0)), text)


_BARE = re.compile(r"(?:^|\s)([A-Za-z_:][-\w:.]*)(?=\s|/?$)(?!\s*=)")
# Boolean attributes real markup writes bare: any other bare word means the "<...>" is prose.
_BOOLEAN = frozenset("hidden open reversed disabled checked selected nowrap compact inert".split())


def _prose(attributes: str) -> bool:
    """Whether a would-be tag is words: bare words, none of them one markup writes bare, and no
    ``name=value`` at all ("<b and c>"). One value or one real boolean attribute makes it a tag,
    whatever words ride along (``style=... foo``, ``hidden foo``)."""
    if "=" in attributes:
        return False
    words = [m.group(1).lower() for m in _BARE.finditer(attributes)]
    return bool(words) and not any(w in _BOOLEAN for w in words)


def _css_hides(style: str) -> bool:
    """Whether a ``style`` value may hide the element's text: any property not known to be harmless."""
    for declaration in style.split(";"):
        if not declaration.strip():
            continue
        prop, sep, value = declaration.partition(":")
        prop = prop.strip().lower()
        if not sep:
            return True
        if prop in SAFE_CSS:
            continue
        if prop == "color" and css_colour_visible(value):
            continue
        if prop in ("text-decoration", "text-decoration-line") and _DECORATION.fullmatch(value):
            continue
        if prop == "font-size" and _readable_size(value):
            continue
        return True
    return False


def _readable_size(value: str) -> bool:
    if value.strip().lower() in _SIZE_WORDS:
        return True
    size = _FONT_SIZE.fullmatch(value)
    return size is not None and float(size.group(1)) >= _MIN_SIZE[size.group(2).lower()]


def _attributes_hide(element: str, attributes: str) -> bool:
    """Whether the element's attributes may hide its text (anything outside the allow-lists)."""
    known = element in KNOWN_ELEMENTS
    for found in _ATTRIBUTE.finditer(attributes):
        name = found.group(1).lower()
        value = (found.group(2) or "").strip("\"'")
        if name in SAFE_ATTRIBUTES or name.startswith("data-") or (not known and name not in GLOBAL_ATTRIBUTES):
            continue
        if name in _TABLE_ATTRIBUTES and element in _TABLE_ELEMENTS:
            continue
        if name == "style" and not _css_hides(value):
            continue
        if element == "font" and (
            (name == "face")
            or (name == "color" and css_colour_visible(value))
            or (name == "size" and _FONT_ATTRIBUTE_SIZE.fullmatch(value))
        ):
            continue
        return True
    return False


@lru_cache(maxsize=256)
def _tag(name: str) -> re.Pattern[str]:
    return re.compile(r"<(/?)" + re.escape(name) + r"(?=[\s/>])[^<>]{0,1000}>", re.IGNORECASE)


def _close(text: str, name: str, start: int) -> tuple[int, int]:
    """(end of the element's contents, end of its closing tag) for ``<name>`` opened before ``start``;
    an element never closed runs to the end of the text (as a browser reads it)."""
    pattern = _tag(name)
    depth = 1
    for found in pattern.finditer(text, start):
        if found.group(0).endswith("/>"):
            continue
        depth += -1 if found.group(1) else 1
        if depth == 0:
            return found.start(), found.end()
    return len(text), len(text)


def _spans(text: str) -> list[tuple[int, int, str, str]]:
    """(start, end, unseen text, what hides it) of each part of ``text`` a reader may not see."""
    masked = _mask_code(text[:MAX_CHARS])
    spans: list[tuple[int, int, str, str]] = []
    if "<" in masked:
        seen_until = 0
        tags = _MATH.sub(lambda m: " " * len(m.group(0)), masked) if "$" in masked or "\\(" in masked else masked
        for count, found in enumerate(_OPEN.finditer(tags)):
            if count >= MAX_ELEMENTS:
                break
            if found.start() < seen_until:
                continue  # inside an element already counted unseen
            if masked[found.start() - 1 : found.start()] == "<" and masked[found.end() : found.end() + 1] == ">":
                continue  # "<<title>>": a title in double angle brackets (IFEval's convention), not a tag
            name = found.group(1).lower()
            if name in _VOID or found.group(0).endswith("/>") or not _ATTRIBUTES.fullmatch(found.group(2)):
                continue
            if name not in NEVER_SHOWN and name != "details" and _prose(found.group(2)):
                continue  # "a<b and c>d": words, not a <b> element (a bare word hides nothing anyway)
            folded = name == "details" and not re.search(r"\bopen\b", found.group(2), re.IGNORECASE)
            if name not in NEVER_SHOWN and not folded and not _attributes_hide(name, found.group(2)):
                continue
            inner_end, end = _close(masked, name, found.end())
            inner = text[found.end() : inner_end]
            if folded:  # the summary shows; the rest waits for a click
                inner = re.sub(r"(?is)<summary\b.*?</summary\s*>", " ", inner)
            spans.append((found.start(), end, inner, f"<{name}{found.group(2)[:60]}>"))
            seen_until = end
    for pattern in (_LINK_DESTINATION, _LINK_DEFINITION, _HREF):
        # Only the destination itself is blanked: a title or alt text beside it stays for the
        # containers of ``rlvr_judge.decoded`` to read.
        for m in pattern.finditer(masked):
            group = m.lastindex or 1
            spans.append((m.start(group), m.end(group), _url_words(m.group(group) or ""), "a link's destination"))
    if "\\" in masked:
        spans.extend(
            (m.start(), m.end(), m.group(1) or m.group(2) or "", m.group(0)[:9]) for m in _TEX_COMMENT.finditer(masked)
        )
    return spans


def _url_words(url: str) -> str:
    """A link's destination as words ("https://en.wikipedia.org/wiki/The_Danube" -> "... wiki The Danube")."""
    try:
        url = unquote(url)
    except (ValueError, UnicodeError):
        pass
    return _URL_PUNCTUATION.sub(" ", url)


def unseen_parts(text: str) -> list[str]:
    """The texts of ``text`` that a rendered page may not show (see the module's docstring)."""
    if not isinstance(text, str):
        return []
    return [inner for _s, _e, inner, _what in _spans(text) if inner.strip()]


def without_unseen(text: str) -> str:
    """``text`` with the parts a rendered page may not show blanked out (what a reader surely sees)."""
    if not isinstance(text, str):
        return ""
    spans = sorted(_spans(text))
    if not spans:
        return text
    out, at = [], 0
    for start, end, _inner, _what in spans:
        if end <= at:
            continue
        out.append(text[at : max(at, start)])
        out.append(" ")
        at = max(at, end)
    out.append(text[at:])
    return "".join(out)


def unseen_at(text: str, position: int) -> str | None:
    """What hides ``text[position]`` from a reader (an element's opening tag, a link's destination, a
    LaTeX comment), or None when it is in sight as far as the allow-lists can tell."""
    if not isinstance(text, str) or not 0 <= position < min(len(text), MAX_CHARS):
        return None
    for start, end, _inner, what in _spans(text):
        if start <= position < end:
            return what
    return None
