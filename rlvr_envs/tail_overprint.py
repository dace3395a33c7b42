"""Round 10: an answer the page does not show where the grader reads it (shared by ``rlvr_envs.concealment``
and math's ``visibility``).

Two mechanisms, each an allow-list of what is provably seen rather than a list of tricks:

* colour: a foreground colour (``\\color``, ``\\textcolor``, ``\\mathcolor``, CSS ``color:``) hides unless it is
  provably dark enough to read on a white page. Names are resolved from a fixed table of xcolor's base colours;
  xcolor mixes (``red!30!blue``, ``white!99!black``) are computed; ``[rgb]``, ``[RGB]``, ``[HTML]``, ``[gray]``,
  ``[cmyk]`` specs, ``#hex`` and ``rgb()``/``rgba()`` are computed. A name set elsewhere (``\\definecolor``,
  ``\\colorlet``), an unknown name or a complement (``-red``) is not provably visible, so it hides.
* overprint: text that moves what follows it back over what precedes it (negative ``\\hspace``, ``\\kern``,
  ``\\mkern``, ``\\mspace``, ``\\hskip``, ``\\!`` runs), a spacing too large to keep both on the page, a box of no
  width (``\\llap``, ``\\rlap``, ``\\clap``, ``\\mathllap``, ``\\makebox[0pt]``, ``\\smash``), a box raised or scaled
  out of sight (``\\raisebox{huge}``, ``\\scalebox{tiny}``, ``\\resizebox{0pt}``), a font too small to read
  (``\\fontsize{2pt}``, ``\\tiny``, ``\\scriptscriptstyle`` as a switch around the answer, CSS ``font-size`` under
  6px) or CSS that moves text off the page (``margin``/``left``/``text-indent`` of -50px or more, ``scale(0)``).

Linear in the text read; never raises on any ``str``.
"""

from __future__ import annotations

import re

# xcolor's base colours (RGB in [0, 1]); any other name is not provably visible.
_NAMED: dict[str, tuple[float, float, float]] = {
    "black": (0.0, 0.0, 0.0), "white": (1.0, 1.0, 1.0), "red": (1.0, 0.0, 0.0), "green": (0.0, 1.0, 0.0),
    "blue": (0.0, 0.0, 1.0), "cyan": (0.0, 1.0, 1.0), "magenta": (1.0, 0.0, 1.0), "yellow": (1.0, 1.0, 0.0),
    "gray": (0.5, 0.5, 0.5), "grey": (0.5, 0.5, 0.5), "darkgray": (0.25, 0.25, 0.25), "lightgray": (0.75, 0.75, 0.75),
    "brown": (0.75, 0.5, 0.25), "lime": (0.75, 1.0, 0.0), "olive": (0.5, 0.5, 0.0), "orange": (1.0, 0.5, 0.0),
    "pink": (1.0, 0.75, 0.75), "purple": (0.75, 0.0, 0.25), "teal": (0.0, 0.5, 0.5), "violet": (0.5, 0.0, 0.5),
    "navy": (0.0, 0.0, 0.5), "maroon": (0.5, 0.0, 0.0), "darkblue": (0.0, 0.0, 0.55), "darkred": (0.55, 0.0, 0.0),
    "darkgreen": (0.0, 0.39, 0.0),
}  # fmt: skip
MAX_LUMINANCE = 0.8
"""Text lighter than this on a white page is not provably read (yellow 0.93 and lightgray 0.75 on the edge: lightgray
stands, yellow and anything whiter hides)."""
_NUM = r"\s*(-?\d+(?:\.\d*)?|-?\.\d+)\s*"


def _luminance(rgb: tuple[float, float, float]) -> float:
    r, g, b = rgb
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _mix(expression: str) -> tuple[float, float, float] | None:
    """An xcolor expression ``name!p!name!p...`` as RGB, or None when any part is not a known colour."""
    parts = [p.strip() for p in expression.split("!")]
    if not parts or parts[0].lower() not in _NAMED:
        return None
    colour = _NAMED[parts[0].lower()]
    i = 1
    while i < len(parts):
        try:
            share = float(parts[i]) / 100.0
        except ValueError:
            return None
        if not 0.0 <= share <= 1.0:
            return None
        other_name = parts[i + 1].lower() if i + 1 < len(parts) else "white"
        other = _NAMED.get(other_name)
        if other is None:
            return None
        colour = (
            share * colour[0] + (1 - share) * other[0],
            share * colour[1] + (1 - share) * other[1],
            share * colour[2] + (1 - share) * other[2],
        )
        i += 2
    return colour


def _model(model: str, spec: str) -> tuple[float, float, float] | None:
    """A colour given in an xcolor model (``[rgb]{1,0,0}``) as RGB, or None."""
    model = model.strip().lower()
    values = [v.strip() for v in spec.split(",")]
    try:
        if model == "html" or (model == "" and re.fullmatch(r"#?[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?", spec.strip())):
            h = spec.strip().lstrip("#")
            if len(h) == 3:
                h = "".join(c * 2 for c in h)
            if len(h) != 6:
                return None
            return (int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255)
        numbers = [float(v) for v in values]
    except ValueError:
        return None
    if model == "rgb" and len(numbers) == 3 and all(0 <= n <= 1 for n in numbers):
        return (numbers[0], numbers[1], numbers[2])
    if model == "rgb" and len(numbers) == 3 and all(0 <= n <= 255 for n in numbers):  # CSS rgb(): 0-255
        return (numbers[0] / 255, numbers[1] / 255, numbers[2] / 255)
    if model == "rgb255" and len(numbers) == 3 and all(0 <= n <= 255 for n in numbers):
        return (numbers[0] / 255, numbers[1] / 255, numbers[2] / 255)
    if model == "gray" and len(numbers) == 1 and 0 <= numbers[0] <= 1:
        return (numbers[0], numbers[0], numbers[0])
    if model == "cmyk" and len(numbers) == 4 and all(0 <= n <= 1 for n in numbers):
        c, m, y, k = numbers
        return ((1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k))
    if model == "cmy" and len(numbers) == 3 and all(0 <= n <= 1 for n in numbers):
        return (1 - numbers[0], 1 - numbers[1], 1 - numbers[2])
    return None


def colour_visible(model: str, spec: str) -> bool:
    """Whether a foreground colour (an xcolor ``[model]{spec}`` or a name expression when ``model`` is empty)
    is provably readable on a white page."""
    if model.strip():
        rgb = _model(model, spec)
    else:
        rgb = _mix(spec) if "#" not in spec else _model("", spec)
    return rgb is not None and _luminance(rgb) <= MAX_LUMINANCE


# \color{spec}, \color[model]{spec}, \textcolor..., \mathcolor...: the foreground colour commands.
_TEX_COLOUR = re.compile(r"\\(?:color|textcolor|mathcolor)\s*(?:\[\s*([^\]{}]{0,20})\])?\s*\{([^{}]{0,80})\}")
_CSS_COLOUR = re.compile(r"(?<![-\w])color\s*[:=]\s*[\"']?\s*([^;\"'<>]{1,60})", re.IGNORECASE)
_CSS_RGB = re.compile(r"rgba?\s*\(" + _NUM + "," + _NUM + "," + _NUM + r"(?:," + _NUM + r")?\)", re.IGNORECASE)


def unseen_tex_colour(text: str) -> re.Match[str] | None:
    """The first TeX foreground colour command in ``text`` whose colour is not provably visible, or None."""
    if "color" not in text:
        return None
    for found in _TEX_COLOUR.finditer(text):
        if not colour_visible(found.group(1) or "", found.group(2)):
            return found
    return None


def css_colour_visible(value: str) -> bool:
    """Whether a CSS ``color`` value is provably readable on a white page (names, ``#hex``, ``rgb()``, opaque
    ``rgba()``)."""
    value = re.sub(r"\s*!\s*important\s*$", "", value.strip().lower())
    rgb_call = _CSS_RGB.match(value)
    if rgb_call is not None:
        alpha = rgb_call.group(4)
        if alpha is not None and float(alpha) < 0.9:
            return False
        return colour_visible("rgb", ",".join(rgb_call.group(i) for i in (1, 2, 3)))
    if value.startswith("#"):
        return colour_visible("", value)
    return value in _NAMED and _luminance(_NAMED[value]) <= MAX_LUMINANCE


# -- overprint ----------------------------------------------------------------------------------------------------
_LENGTH = r"\s*(-?)\s*(\d+(?:\.\d*)?|\.\d+)\s*(pt|em|ex|cm|mm|in|mu|px|pc|bp|sp|dd|cc)?"
_SPACING = re.compile(
    r"\\(?:hspace\*?|mspace|hskip|kern|mkern|mskip|moveleft|moveright|hglue)\s*\{?" + _LENGTH,
    re.IGNORECASE,
)
# How many of each unit make a page width (~16 cm): a move beyond it leaves the page.
_PER_PAGE = {"pt": 450.0, "bp": 450.0, "dd": 420.0, "cc": 35.0, "pc": 38.0, "sp": 450.0 * 65536, "em": 45.0,
             "ex": 100.0, "mu": 810.0, "cm": 16.0, "mm": 160.0, "in": 6.3, "px": 600.0}  # fmt: skip
_NO_WIDTH = re.compile(
    r"\\(?:llap|rlap|clap|mathllap|mathrlap|mathclap|smash|hbox\s+to\s*0\s*(?:pt|em|cm|mm|in)?|makebox\s*\[\s*0+(?:\.0*)?"
    r"\s*(?:pt|em|ex|cm|mm|in)?\s*\](?:\s*\[[^\]]{0,4}\])?|raisebox\s*\{" + _LENGTH + r"\}"
    r"|scalebox\s*\{" + _NUM + r"\}|resizebox\*?\s*\{[^{}]{0,20}\}\s*\{[^{}]{0,20}\}"
    r"|fontsize\s*\{" + _NUM + r"(?:pt)?\s*\}|(?:tiny|scriptsize|scriptscriptstyle|Tiny))",
)
_CSS_AWAY = re.compile(
    r"(?:font-size\s*:\s*(\d+(?:\.\d*)?|\.\d+)\s*(px|pt|em|rem|%)?|(?:margin(?:-left|-top)?|left|top|text-indent)"
    r"\s*:\s*-\s*(\d+)|transform\s*:[^;\"'>]*scale\s*\(\s*0(?:\.0*)?\s*\))",
    re.IGNORECASE,
)


SPACING_REACH = 200
"""How far before an answer a spacing is read: a move is about the glyphs around it."""


def _spacing_overprints(found: re.Match[str]) -> bool:
    sign, number, unit = found.group(1), found.group(2), (found.group(3) or "pt").lower()
    try:
        size = float(number)
    except ValueError:
        return False
    if sign == "-" and size > 0:
        return True  # moves what follows back over what precedes
    return size > _PER_PAGE.get(unit, 450.0)  # moves what follows off the page


def _box_hides(found: re.Match[str]) -> str | None:
    text = found.group(0)
    if text.startswith("\\raisebox"):
        size, unit = float(found.group(2) or 0), (found.group(3) or "pt").lower()
        return text if size > _PER_PAGE.get(unit, 450.0) / 10 else None  # raised or sunk beyond ~1.6 cm
    if text.startswith("\\scalebox"):
        return text if abs(float(found.group(4) or 0)) < 0.3 else None
    if text.startswith("\\resizebox"):
        sizes = re.findall(r"\{\s*(-?\d*\.?\d+)\s*(?:pt|em|ex|cm|mm|in|px)?\s*\}", text)
        return text if any(abs(float(s)) < 2 for s in sizes) else None
    if text.startswith("\\fontsize"):
        return text if float(found.group(5) or 0) < 5 else None
    return text


def _still_open(region: str, start: int) -> bool:
    rest = region[start:]
    return rest.count("{") > rest.count("}")


_SPACING_WORDS = ("space", "skip", "kern", "move", "hglue")
_BOX_WORDS = ("lap", "smash", "makebox", "raisebox", "scalebox", "resizebox", "hbox", "fontsize", "tiny", "Tiny",
              "scriptsize", "scriptscriptstyle")  # fmt: skip
_SWITCH = re.compile(r"\\(?:fontsize|tiny|Tiny|scriptsize|scriptscriptstyle)")


def _switch_on(region: str, start: int) -> bool:
    # A size switch holds to the end of its group: no more groups closed than opened after it.
    rest = region[start:]
    return rest.count("}") <= rest.count("{")


def overprinted(region: str, opened_before: bool = True) -> str | None:
    """What in ``region`` moves, shrinks or overlaps an answer so the page shows something else there: a
    negative or page-wide spacing, a box of no width, a raised or scaled-away box, a tiny font, CSS that moves or
    shrinks text away.

    With ``opened_before`` (``region`` ends where the answer starts) a spacing counts in the last
    ``SPACING_REACH`` characters, and a box or a size switch only while its group is still open at the end;
    without it (``region`` is the answer itself, or the few characters after it) every one counts."""
    if "\\" in region:
        near = region[-SPACING_REACH:] if opened_before else region
        # Substring tests first (C speed): the regexes run only on text that names one of their commands.
        if any(word in near for word in _SPACING_WORDS):
            for found in _SPACING.finditer(near):
                if _spacing_overprints(found):
                    return found.group(0).strip()
        if "\\!" in near and re.search(r"(?:\\!\s*){4,}", near):
            return "\\!\\!\\!\\!"  # four negative thin spaces move the answer over the glyph before it
        if not any(word in region for word in _BOX_WORDS):
            return _css_away(region, opened_before) if "<" in region else None
        for found in _NO_WIDTH.finditer(region):
            hides = _box_hides(found)
            if hides is None:
                continue
            if opened_before and not (
                _switch_on(region, found.start()) if _SWITCH.match(hides) else _still_open(region, found.end())
            ):
                continue  # a box or a switch closed before the answer: it holds something else
            return hides.strip()
    return _css_away(region, opened_before) if "<" in region else None


def _css_away(region: str, opened_before: bool) -> str | None:
    if "style" in region or "font-size" in region:
        for found in _CSS_AWAY.finditer(region):
            size = found.group(1)
            if size is not None:
                unit = (found.group(2) or "px").lower()
                pixels = float(size) * {"px": 1.0, "pt": 1.33, "em": 16.0, "rem": 16.0, "%": 0.16}[unit]
                if pixels >= 6:
                    continue
            elif found.group(3) is not None and int(found.group(3)) < 50:
                continue
            if opened_before:
                tag = region.rfind("<", 0, found.start())
                name = re.match(r"<\s*([A-Za-z][\w-]*)", region[tag:]) if tag >= 0 else None
                if name is None or re.search(
                    r"</\s*" + re.escape(name.group(1)) + r"\s*>", region[found.end() :], re.I
                ):
                    continue  # the element closed before the answer
            return found.group(0).strip()
    return None


def unseen_css_colour(region: str) -> str | None:
    """An HTML element opened in ``region`` and still open at its end whose CSS colour is not provably visible."""
    if "<" not in region or "color" not in region.lower():
        return None
    for found in _CSS_COLOUR.finditer(region):
        if css_colour_visible(found.group(1)):
            continue
        tag = region.rfind("<", 0, found.start())
        name = re.match(r"<\s*([A-Za-z][\w-]*)[^<>]*$", region[tag : found.start()]) if tag >= 0 else None
        if name is None:
            continue  # not inside a tag: prose saying "color: ..."
        if re.search(r"</\s*" + re.escape(name.group(1)) + r"\s*>", region[found.end() :], re.IGNORECASE) is None:
            return found.group(0).strip()
    return None
