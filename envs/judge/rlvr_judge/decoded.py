"""What a judge model could read in a response that a reader of its plain text cannot.

A judge model reads more than the letters on the screen: it decodes base64 and hex, reads rot13 and
reversed text, sees Unicode tag characters (an invisible copy of ASCII) and looks through
look-alike letters. A note to the grader written in any of these reaches the model while every
plain-text rule reads noise. ``decoded_views`` returns each such reading of a text, so the screen
(``rlvr_judge.screen``) can run its rules over them too:

* hidden channels, which render as nothing: Unicode tag characters (U+E0000-U+E007F) outside an
  emoji flag sequence, and runs of variation selectors (U+FE00-U+FE0F, U+E0100-U+E01EF) that smuggle
  bytes (``hidden=True``: no honest text carries either);
* binary-to-text encodings of a run: base64 (standard and URL-safe, wrapped or not), base32, hex
  (plain, ``\\x``-escaped, ``0x``-listed, byte-spaced), 8-bit binary, URL percent-encoding, HTML
  character references, Morse; a run is read only when it decodes to mostly printable UTF-8 with
  letters in it (a hash, a key or a colour in hex decodes to noise and is left alone);
* transforms of the whole text: rot13, reversed, each word reversed, look-alike Cyrillic and Greek
  letters folded to Latin, combining marks removed, bidi controls removed.

Each view is decoded once more (base64 of rot13 text, hex of base64), up to ``MAX_DEPTH`` levels
and ``MAX_VIEWS`` views. Linear in the text; never raises on any ``str``.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re
import string
import unicodedata
import urllib.parse
from dataclasses import dataclass

from rlvr_judge.containers import container_matches
from rlvr_judge.unseen_markup import unseen_parts

MAX_DEPTH = 2
MAX_VIEWS = 96
MAX_VIEW_CHARS = 40_000
MIN_PAYLOAD_CHARS = 12
"""Shorter runs are words, numbers and identifiers more often than payloads."""
PRINTABLE_SHARE = 0.9
"""A decoded run counts as text when this share of its characters is printable."""


@dataclass(frozen=True)
class View:
    """One reading of the text: ``how`` it was decoded, the decoded ``text``, how many characters of
    the source text the decoded ``span`` covers, and whether the channel is ``hidden`` (renders as nothing)."""

    how: str
    text: str
    span: int = 0
    hidden: bool = False


_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_FLAG_TAGS = re.compile("[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,8}\U000e007f")
_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,}")
_COMBINING = re.compile("[\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

# One run, or lines of 16+ characters wrapped the way encoders wrap them (64 or 76 a line).
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/_-]{16,}[ \t]*\r?\n[ \t]*)*[A-Za-z0-9+/_-]{12,}={0,2}")  # 12: MIN_PAYLOAD_CHARS
_BASE32 = re.compile(r"(?:[A-Z2-7]{8}\s?){2,}[A-Z2-7]*=*|(?:[a-z2-7]{8}\s?){2,}[a-z2-7]*=*")
# Ascii85 / base85: a run of 20+ printable characters with no space and several signs in it.
_BASE85 = re.compile(
    r"<~[!-u\s]{10,}~>|(?<!\S)(?=\S*[!-/:-@\[-`{-~]\S*[!-/:-@\[-`{-~]\S*[!-/:-@\[-`{-~])[!-~]{20,}(?!\S)"
)
_HEX = re.compile(
    r"(?:\\x[0-9A-Fa-f]{2}){6,}"
    r"|(?:0x[0-9A-Fa-f]{2}[\s,]*){6,}"
    r"|(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2}[\s:-]?){6,}(?![0-9A-Za-z])"
)
_BINARY = re.compile(r"(?<![01])(?:[01]{8}\s?){4,}")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
# Code-point escapes: \u004E, \U0000004E, \u{4E}, U+004E, \116 (octal), &#...; is HTML's.
_ESCAPE = re.compile(r"\\u\{[0-9A-Fa-f]{1,6}\}|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}|\bU\+[0-9A-Fa-f]{4,6}|\\[0-7]{3}")
# Words joined by a separator instead of a space ("note_to_the_grader", "Note+to+the+grader", "NoteToTheGrader").
_SEPARATOR = re.compile(r"(?<=[^\W\d_])[_+.\-/|*~=:](?=[^\W\d_])")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# Single letters chained by one sign ("N.o.t.e", "g-r-a-d-e-r"): one word.
_LETTER_CHAIN = re.compile(r"(?<!\w)\w(?:([._\-*~+|])\w)(?:\1\w)*(?!\w)")
_CHAIN_SIGN = re.compile(r"[._\-*~+|]")
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z]{2,10});")
_MORSE_RUN = re.compile(r"(?:[.\-\u2013\u2014\u00b7\u2022_]{1,7}[ \t/|]+){3,}[.\-\u2013\u2014\u00b7\u2022_]{1,7}")
_CHUNK = re.compile(r"\S+")

_MORSE = {
    ".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h", "..": "i",
    ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p", "--.-": "q", ".-.": "r",
    "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x", "-.--": "y", "--..": "z",
    "-----": "0", ".----": "1", "..---": "2", "...--": "3", "....-": "4", ".....": "5", "-....": "6",
    "--...": "7", "---..": "8", "----.": "9", ".-.-.-": ".", "--..--": ",", "---...": ":", "..--..": "?",
}  # fmt: skip

# Letters drawn like Latin ones that NFKC leaves alone (our list): Cyrillic and Greek look-alikes,
# small capitals, the letter emoji (regional indicators, negative circled and squared letters) and
# Braille's letters.
_LOOKALIKE = str.maketrans(
    "аеорсухіјѕԁһӏԛԝАВЕКМНОРСТХІЈЅԌαοινρκυτχΑΒΕΖΗΙΚΜΝΟΡΤΥΧϲϳ"
    + "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘǫʀꜱᴛᴜᴠᴡʏᴢ"
    + "".join(chr(base + i) for base in (0x1F1E6, 0x1F150, 0x1F170) for i in range(26))
    + "⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚⠅⠇⠍⠝⠕⠏⠟⠗⠎⠞⠥⠧⠺⠭⠽⠵",
    "aeopcyxijsdhlqwABEKMHOPCTXIJSGaoivpkutxABEZHIKMNOPTYXcj"
    + "abcdefghijklmnopqrstuvwyz"
    + string.ascii_lowercase * 4,
)


def lookalike_folded(text: str) -> str:
    """``text`` with the look-alike letters above read as the Latin ones they are drawn like."""
    return text.translate(_LOOKALIKE)


# Upside-down letters (the text is then also read backwards).
_FLIPPED = str.maketrans(
    "ɐqɔpǝɟƃɥᴉɾʞꞁɯuodbɹsʇnʌʍxʎz∀ᗺƆᗡƎℲ⅁HIſꓘ˥WNOԀΌᴚS⊥∩ΛMX⅄Z", string.ascii_lowercase + string.ascii_uppercase
)
_ATBASH = str.maketrans(
    string.ascii_lowercase + string.ascii_uppercase, string.ascii_lowercase[::-1] + string.ascii_uppercase[::-1]
)
_NATO = {
    w: w[0] for w in "alfa alpha bravo charlie delta echo foxtrot golf hotel india juliett juliet kilo lima mike "
    "november oscar papa quebec romeo sierra tango uniform victor whiskey xray x-ray yankee zulu".split()
}  # fmt: skip
_NATO_RUN = re.compile(r"(?:\b(?:" + "|".join(_NATO) + r")\b[\s,/|-]*){4,}", re.IGNORECASE)
# One letter a line ("N\no\nt\ne"): lines holding at most one character, four or more in a row.
_VERTICAL = re.compile(r"(?:^[ \t]*\S?[ \t]*\n){3,}[ \t]*\S?[ \t]*$", re.MULTILINE)
SHIFT_CHARS = 1_000
"""Every Caesar shift (and Atbash) is read only in texts this short: 25 readings of a long text cost."""


def _printable_text(raw: bytes) -> str | None:
    """``raw`` as text when it is UTF-8 with almost only printable characters and some letters."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text:
        return None
    printable = sum(1 for ch in text if ch.isprintable() or ch in "\n\r\t")
    letters = sum(1 for ch in text if ch.isalpha())
    if printable < PRINTABLE_SHARE * len(text) or letters < 3 or letters < 0.3 * len(text):
        return None
    return text


def _b64(run: str) -> bytes | None:
    run = re.sub(r"\s+", "", run).rstrip("=")
    if len(run) < MIN_PAYLOAD_CHARS or len(run) % 4 == 1:
        return None
    if not re.search(r"[0-9+/_-]|[a-z][A-Z]|[A-Z][a-z]", run[1:]):
        return None  # one word in one case ("Internationalization" aside): not a payload
    padded = run + "=" * (-len(run) % 4)
    try:
        if "-" in run or "_" in run:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded)
    except (binascii.Error, ValueError):
        return None


def _b32(run: str) -> bytes | None:
    run = re.sub(r"\s+", "", run).rstrip("=")
    if len(run) < 16:
        return None
    try:
        return base64.b32decode(run.upper() + "=" * (-len(run) % 8))
    except (binascii.Error, ValueError):
        return None


def _b85(run: str) -> bytes | None:
    if run.startswith("<~"):
        run = run[2:-2]
    for decode in (base64.a85decode, base64.b85decode):
        try:
            return decode(re.sub(r"\s+", "", run))
        except (ValueError, binascii.Error):
            continue
    return None


def _hex(run: str) -> bytes | None:
    digits = re.sub(r"\\x|0x|[\s,:-]", "", run)
    if len(digits) % 2:
        return None
    try:
        return bytes.fromhex(digits)
    except ValueError:
        return None


def _bits(run: str) -> bytes | None:
    groups = run.split()
    if len(groups) == 1:
        groups = [run[i : i + 8] for i in range(0, len(run), 8)]
    if any(len(g) != 8 for g in groups):
        return None
    return bytes(int(g, 2) for g in groups)


def _morse(run: str) -> str | None:
    out = []
    for word in re.split(r"\s*[/|]\s*|\s{3,}", run.translate(str.maketrans("\u2013\u2014\u00b7\u2022_", "--..-"))):
        letters = [_MORSE.get(code) for code in word.split()]
        if not letters or None in letters:
            return None
        out.append("".join(letter for letter in letters if letter))
    text = " ".join(out)
    return text if sum(ch.isalpha() for ch in text) >= 3 else None


_RUN_DECODERS = (
    ("base64", _BASE64, _b64),
    ("base32", _BASE32, _b32),
    ("hex", _HEX, _hex),
    ("binary", _BINARY, _bits),
    ("base85", _BASE85, _b85),
)


def _hidden(text: str) -> list[View]:
    views = []
    for run in _TAGS.finditer(text):
        chars = _FLAG_TAGS.sub("", run.group(0)) if text[: run.start()].endswith("\U0001f3f4") else run.group(0)
        decoded = "".join(chr(ord(ch) - 0xE0000) for ch in chars if ord(ch) not in (0xE0001, 0xE007F))
        if sum(ch.isalnum() for ch in decoded) >= 2:
            views.append(View("Unicode tag characters", decoded, len(run.group(0)), hidden=True))
    for run in _SELECTORS.finditer(text):
        raw = bytes((ord(ch) - 0xFE00) if ord(ch) < 0x10000 else (ord(ch) - 0xE0100 + 16) for ch in run.group(0))
        decoded = raw.decode("utf-8", errors="replace")
        if sum(ch.isalnum() for ch in decoded) >= 2:
            views.append(View("variation selectors", decoded, len(run.group(0)), hidden=True))
    return views


def _runs(text: str) -> list[View]:
    views = []
    for how, pattern, decode in _RUN_DECODERS:
        for run in pattern.finditer(text):
            raw = decode(run.group(0).strip())
            decoded = _printable_text(raw) if raw else None
            if decoded is not None:
                views.append(View(how, decoded, len(run.group(0).strip())))
    percent = _PERCENT.findall(text)
    if len(percent) >= 3:
        decoded = urllib.parse.unquote(text, errors="replace")
        views.append(View("URL percent-encoding", decoded, 3 * len(percent)))
    entities = _ENTITY.findall(text)
    if len(entities) >= 3:
        decoded = html.unescape(text)
        views.append(View("HTML character references", decoded, sum(len(e) for e in entities)))
    escapes = _ESCAPE.findall(text)
    if len(escapes) >= 3:
        decoded = _ESCAPE.sub(_unescape, text)
        views.append(View("code-point escapes", decoded, sum(len(e) for e in escapes)))
    for run in _MORSE_RUN.finditer(text):
        decoded_morse = _morse(run.group(0))
        if decoded_morse is not None:
            views.append(View("Morse code", decoded_morse, len(run.group(0))))
    return views


def _unescape(found: re.Match[str]) -> str:
    code = found.group(0)
    try:
        value = int(code[1:], 8) if code[1].isdigit() else int(code.strip("\\uU{}+"), 16)
        return chr(value)
    except (ValueError, OverflowError):
        return code


def _rot47(text: str) -> str:
    return "".join(chr(33 + (ord(c) + 14) % 94) if 33 <= ord(c) <= 126 else c for c in text)


def _nato(found: re.Match[str]) -> str:
    words = re.split(r"\s*[/|,]\s*|\s{2,}", found.group(0).strip())
    letters = ("".join(_NATO.get(w.lower(), "") for w in re.findall(r"[A-Za-z-]+", word)) for word in words)
    return " ".join(letters) + " "


def _vertical(found: re.Match[str]) -> str:
    return "".join(line.strip() or " " for line in found.group(0).split("\n")) + "\n"


def _shift(text: str, k: int) -> str:
    low, up = string.ascii_lowercase, string.ascii_uppercase
    return text.translate(str.maketrans(low + up, low[k:] + low[:k] + up[k:] + up[:k]))


def _transforms(text: str, *, nested_only: bool = False) -> list[View]:
    """The whole text read another way: what a model might read as it; ``span`` is the whole text.
    ``nested_only``: only the readings that are read again (``_NESTED``), in the same order."""
    out = []
    n = len(text)
    rot = codecs.encode(text, "rot13")
    if rot != text:
        out.append(View("rot13", rot, n))
    out.append(View("reversed text", text[::-1], n))
    if nested_only:
        return out
    out.append(View("words reversed", _CHUNK.sub(lambda m: m.group(0)[::-1], text), n))
    folded = text.translate(_LOOKALIKE)
    if folded != text:
        out.append(View("look-alike letters", folded, n))
    flipped = text.translate(_FLIPPED)
    if flipped != text:
        out.append(View("upside-down letters", flipped[::-1], n))
    joined = _CAMEL.sub(" ", _SEPARATOR.sub(" ", _LETTER_CHAIN.sub(lambda m: _CHAIN_SIGN.sub("", m.group(0)), text)))
    if joined != text:
        out.append(View("separators between words", joined, n))
    out.append(View("word order reversed", " ".join(text.split()[::-1]), n))
    if _NATO_RUN.search(text):
        out.append(View("spelling alphabet", _NATO_RUN.sub(_nato, text), n))
    if "\n" in text and _VERTICAL.search(text):
        out.append(View("one letter a line", _VERTICAL.sub(_vertical, text), n))
    if n <= SHIFT_CHARS:
        out.append(View("Atbash", text.translate(_ATBASH), n))
        out.append(View("rot47", _rot47(text), n))
        out += [View("Caesar shift", _shift(text, k), n) for k in range(1, 26) if k != 13]
    decomposed = unicodedata.normalize("NFD", text)
    if _COMBINING.search(decomposed):
        out.append(View("combining marks", unicodedata.normalize("NFC", _COMBINING.sub("", decomposed)), n))
    if _BIDI.search(text):
        out.append(View("bidi controls", _BIDI.sub("", text), n))
    return out


_NESTED = ("rot13", "reversed text")
TRANSFORMS = (
    "rot13", "reversed text", "words reversed", "look-alike letters", "upside-down letters", "combining marks",
    "bidi controls", "separators between words", "Atbash", "Caesar shift", "rot47", "word order reversed",
    "spelling alphabet", "one letter a line",
)  # fmt: skip

# Leetspeak beyond the screen's digits: symbols drawn as letters (longest first).
_LEET_SYMBOLS = (
    ("|\\|", "n"), ("/\\", "a"), ("\\/", "v"), ("|-|", "h"), ("|_|", "u"), ("()", "o"), ("[]", "o"), ("|<", "k"),
    ("|2", "r"), ("|)", "d"), ("€", "e"), ("£", "l"), ("¥", "y"), ("©", "c"), ("®", "r"),
)  # fmt: skip
_LEET_CHARS = str.maketrans("0134578@$+!|(92", "oieastbastilcgz")
_LEET_WORD = re.compile(r"(?<![\w.])(?=[\w@$+!|(]*[A-Za-z@$+!|(])[\w@$+!|(]*[0-9@$+!|(][\w@$+!|(]*")


def hidden_containers(text: str) -> str:
    """The text inside what a rendered page does not show (comments, attributes, link titles, alt
    text), one part a line: a judge model reads it, a reader does not."""
    if not isinstance(text, str):
        return ""
    parts: list[str] = [part for _start, _end, part in container_matches(text[:MAX_VIEW_CHARS])]
    # Round 11: elements whose markup is not known to leave their text in sight, link destinations,
    # folded details, LaTeX comment environments (an allow-list, ``rlvr_judge.unseen_markup``).
    parts.extend(unseen_parts(text[:MAX_VIEW_CHARS]))
    return "\n".join(p for p in parts if p.strip())


def leet(text: str, *, every_digit: bool = False) -> str:
    """``text`` with leetspeak read as letters: symbol groups (``|\\|``, ``/\\``, ``()``) and, in words
    that mix letters with them, digits and signs (``gr@d3r``, ``+h3``, ``7he``); ``every_digit``: in
    every word ("70" for "to" beside "7h3")."""
    if not isinstance(text, str):
        return ""
    for symbol, letter in _LEET_SYMBOLS:
        text = text.replace(symbol, letter)
    if every_digit:
        return text.translate(_LEET_CHARS)
    return _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET_CHARS), text)


def decoded_views(text: str, *, transforms: bool = True) -> list[View]:
    """Every other reading of ``text`` (see the module's docstring), hidden channels first.

    ``transforms=False`` leaves out the whole-text transforms (rot13, reversal, look-alikes...),
    which read any text some other way: for finding encoded runs only."""
    if not isinstance(text, str) or not text:
        return []
    text = text[:MAX_VIEW_CHARS]
    views: list[View] = []
    frontier: list[tuple[str, int, View | None]] = [(text, 0, None)]
    seen = {text}
    while frontier and len(views) < MAX_VIEWS:
        source, depth, parent = frontier.pop(0)
        # Hidden channels are read in the text as written, not in a reversal or rot13 of it.
        found = (_hidden(source) if parent is None or parent.how not in TRANSFORMS else []) + _runs(source)
        if transforms:
            found += _transforms(source, nested_only=depth > 0)
        for view in found:
            decoded = view.text[:MAX_VIEW_CHARS]
            if decoded in seen or len(views) >= MAX_VIEWS:
                continue
            seen.add(decoded)
            if parent is not None:  # a reading of a reading: it covers what its parent covered
                view = View(f"{view.how} inside {parent.how}", decoded, parent.span, view.hidden or parent.hidden)
            else:
                view = View(view.how, decoded, view.span, view.hidden)
            views.append(view)
            # Decoded runs and a reversal or rot13 are read again (base64 of rot13, reversed base64);
            # the other readings of the whole text are not worth a second level.
            if depth + 1 < MAX_DEPTH and (view.how in _NESTED or view.how not in TRANSFORMS):
                frontier.append((decoded, depth + 1, view))
    return views
