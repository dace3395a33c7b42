"""Round 14: text after the answer written in an encoding is read decoded (H7's ``encoded_alternative``, phrases).

"\\boxed{331} (6f72203433312e)" and "(%6F%72%20%34%33%31)" are "or 431." in hex bytes and URL escapes; "(\\N{DIGIT
FOUR}\\N{DIGIT THREE}\\N{DIGIT ONE})", "\\u0034\\u0033\\u0031" and "\\x34\\x33\\x31" are "431" in Python's escapes.
Round 13 read entities and TeX character codes as what they render; these encodings render as themselves, so the
tail readings saw one unknown word. ``decoded`` rewrites each such run as the text it encodes, where it is text:

* a run of at least three ``%XX`` escapes, decoded as UTF-8;
* a run of at least eight hex digits (an even number), decoded as bytes only when every byte is printable ASCII, one
  is a letter and one a space or an operator (``0x9238``, "deadbeef", a hash decode to no text and stay as written);
* ``\\N{NAME}`` (a Unicode character's name), ``\\uXXXX``, ``\\UXXXXXXXX`` and ``\\xXX`` escapes.

The readings of the tail then see "or 431." and judge it as any text. Bounded (``WINDOW`` characters, a bounded
number of runs); never raises on any ``str``.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote

WINDOW = 20_000
"""Characters of the tail decoded at most (the tail readings read no further)."""
_MAX_RUNS = 64

_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2}){3,}")
_HEX_RUN = re.compile(r"(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2}){4,}(?![0-9A-Za-z])")
_ESCAPE = re.compile(r"\\N\{([A-Za-z0-9 \-]{1,80})\}|\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})|\\x([0-9A-Fa-f]{2})")
_TEXT_SIGN = re.compile(r"[ +\-*/=(),.]")
_LETTER = re.compile(r"[A-Za-z]")


def _hex_text(run: str) -> str | None:
    """The ASCII text a run of hex digits encodes, or None (not all printable, or no space or operator in it)."""
    data = bytes.fromhex(run)
    if any(b < 0x20 or b > 0x7E for b in data):
        return None
    text = data.decode("ascii")
    return text if _TEXT_SIGN.search(text) and _LETTER.search(text) else None


def _escape_text(found: re.Match[str]) -> str:
    name, short, long, byte = found.groups()
    try:
        if name is not None:
            return unicodedata.lookup(name)
        return chr(int(short or long or byte, 16))
    except (KeyError, ValueError, OverflowError):
        return found.group(0)


def decoded(text: str) -> str:
    """``text`` with its encoded runs (URL escapes, hex bytes, Python escapes) written as the text they encode."""
    if not isinstance(text, str):
        return ""
    if "%" not in text and "\\" not in text and _HEX_RUN.search(text, 0, WINDOW) is None:
        return text  # speed: nothing encoded (the common case)
    head, tail = text[:WINDOW], text[WINDOW:]
    if "%" in head:
        head = _PERCENT_RUN.sub(lambda m: unquote(m.group(0), errors="replace"), head, count=_MAX_RUNS)
    head = _HEX_RUN.sub(lambda m: _hex_text(m.group(0)) or m.group(0), head, count=_MAX_RUNS)
    if "\\" in head:
        head = _ESCAPE.sub(_escape_text, head, count=_MAX_RUNS)
    return head + tail
