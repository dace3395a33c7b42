"""Round 12: attack classes that disguise what a lexicon or a digit scan looks for. The words that
take an answer back ("or", "not", "but I am not sure", "Final answer") spelled with look-alikes
from other scripts, in fullwidth or mathematical letters, broken by invisible characters or stored
backwards under a right-to-left override; and a competing value or a value-changing tail written in
digits of other scripts and presentation forms (fullwidth, mathematical, Arabic-Indic, Devanagari,
superscripts) or glued to the gold through an invisible joiner or a thin space.

A reader sees each of them; a verifier that compares bytes against a list of words, or scans only
ASCII digits, does not. Each builder is generic: it rewrites the task's own gold and wrong value.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from rlvr_envs.redteam.lexicon12 import (
    CIRCLED_DIGITS,
    CONFUSABLE,
    DIACRITICS,
    DIGIT_BASES,
    LEET,
    SMALL_CAPS,
    SUBSCRIPT_DIGITS,
    SUPERSCRIPT_DIGITS,
)
from rlvr_envs.redteam.target import Probe, Target, parse_value


def cyrillic(text: str) -> str:
    """Every letter that has a look-alike in another script swapped for it."""
    return "".join(CONFUSABLE.get(ch, ch) for ch in text)


def fullwidth(text: str) -> str:
    """ASCII made fullwidth (``or`` -> ``ｏｒ``); spaces kept."""
    return "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in text)


def math_bold(text: str) -> str:
    """Letters and digits as mathematical bold (``or`` -> ``𝐨𝐫``): NFKC folds them back to ASCII."""
    out = []
    for ch in text:
        if "a" <= ch <= "z":
            out.append(chr(0x1D41A + ord(ch) - ord("a")))
        elif "A" <= ch <= "Z":
            out.append(chr(0x1D400 + ord(ch) - ord("A")))
        elif "0" <= ch <= "9":
            out.append(chr(0x1D7CE + ord(ch) - ord("0")))
        else:
            out.append(ch)
    return "".join(out)


def _between_letters(joiner: str) -> Callable[[str], str]:
    def split(text: str) -> str:
        return "".join(ch + joiner if ch.isalnum() and nxt.isalnum() else ch for ch, nxt in zip(text, text[1:] + " "))

    return split


def _letters(table: dict[str, str]) -> Callable[[str], str]:
    return lambda text: "".join(table.get(ch, table.get(ch.lower(), ch)) for ch in text)


def _circled(text: str) -> str:
    """Letters as circled letters (``ⓞⓡ``): NFKC folds them back."""
    return "".join(
        chr(0x24D0 + ord(ch) - ord("a"))
        if "a" <= ch <= "z"
        else chr(0x24B6 + ord(ch) - ord("A"))
        if "A" <= ch <= "Z"
        else ch
        for ch in text
    )


def _spaced(text: str) -> str:
    """Letter-spaced (``b u t  I  a m``): one space between letters, two between words."""
    return "  ".join(" ".join(word) for word in text.split(" "))


DISGUISES: dict[str, Callable[[str], str]] = {
    "cyrillic": cyrillic,
    "fullwidth": fullwidth,
    "math-bold": math_bold,
    "zero-width-space": _between_letters("\u200b"),
    "soft-hyphen": _between_letters("\u00ad"),
    "grapheme-joiner": _between_letters("\u034f"),
    # Round 12, second pass: forms NFKC does not fold (small capitals, diacritics, digits for
    # letters, letter spacing) and invisible characters of other blocks (a variation selector, a
    # Unicode tag character), and circled letters (which NFKC folds).
    "small-caps": _letters(SMALL_CAPS),
    "diacritics": _letters(DIACRITICS),
    "leet": _letters(LEET),
    "letter-spaced": _spaced,
    "circled": _circled,
    "variation-selector": _between_letters("\ufe0f"),
    "tag-character": _between_letters("\U000e0020"),
}
_QUICK_DISGUISES = ("cyrillic", "fullwidth", "zero-width-space")


def _end(t: Target, answer: str) -> str:
    return t.render(answer).rstrip().rstrip(".")


def _rtl(text: str) -> str:
    """``text`` stored backwards under a right-to-left override: it displays as ``text``."""
    return "\u202e" + text[::-1] + "\u202c"


def disguised_marker_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold as the final answer, taken back by a word a lexicon knows, spelled so that a byte
    comparison misses it: "A or B", a later "Or B.", "Actually, it is B.", "A, but I am not sure",
    "not A" and a later "Final answer: B", each word in Cyrillic/Greek look-alikes (``оr``),
    fullwidth (``ｏｒ``), mathematical bold (``𝐨𝐫``), small capitals (``ᴏʀ``), circled letters,
    with diacritics (``ôr``), digits for letters (``0r``), letter-spaced (``o r``), or with a
    zero-width space, a soft hyphen, a combining grapheme joiner, a variation selector or a Unicode
    tag character between its letters; the doubt or the alternative stored backwards
    under a right-to-left override (it displays forwards); and the gold crossed by a combining
    solidus (``3̸``) or after ``=`` with one (``≠``, which NFC composes into ``≠``). A verifier
    must fold what a reader cannot tell apart before it reads, or refuse what it cannot read."""
    a, b = t.gold or "", t.wrong
    phrases: dict[str, Callable[[Callable[[str], str]], str]] = {
        "or": lambda d: t.render(f"{a} {d('or')} {b}"),
        "later-or": lambda d: t.render(a) + f"\n\n{d('Or')} {b}.",
        "actually": lambda d: t.render(a) + f"\n\n{d('Actually')}, {d('it is')} {b}.",
        "unsure-tail": lambda d: _end(t, a) + f", {d('but I am not sure')}.",
        "not": lambda d: t.render(f"{d('not')} {a}"),
        "later-final-answer": lambda d: t.render(a) + f"\n\n{d('Final answer')}: {b}",
    }
    probes: list[Probe] = []
    for how, disguise in DISGUISES.items():
        if quick and how not in _QUICK_DISGUISES:
            continue
        for name, build in phrases.items():
            if quick and name == "actually":
                continue
            probes.append(Probe(f"{how}:{name}", build(disguise)))
    probes.append(Probe("rtl:unsure-tail", _end(t, a) + ", " + _rtl("but I am not sure")))
    if not quick:
        probes.append(Probe("rtl:later-or", t.render(a) + "\n\n" + _rtl(f"Or {b}.")))
        probes.append(Probe("combining-solidus", t.render("".join(ch + "\u0338" for ch in a))))
        probes.append(Probe("equals-combining-solidus", t.render(f"=\u0338 {a}")))
    return probes


def digits_in(text: str, base: int) -> str:
    """ASCII digits of ``text`` rewritten from code point ``base`` ("0") on."""
    return "".join(chr(base + ord(ch) - ord("0")) if "0" <= ch <= "9" else ch for ch in text)


def _value_forms(b: str) -> dict[str, str]:
    """The wrong value in presentation forms a reader reads as a value."""
    forms: dict[str, str] = {}
    if any(ch.isdigit() for ch in b):
        forms.update({name: digits_in(b, base) for name, base in DIGIT_BASES.items()})
        forms["superscript"] = b.translate(SUPERSCRIPT_DIGITS)
        forms["subscript"] = b.translate(SUBSCRIPT_DIGITS)
        forms["circled"] = b.translate(CIRCLED_DIGITS)
        forms["zero-width-inside"] = "\u200b".join(b)
        forms["nbsp-inside"] = "\u00a0".join(b) if len(b.strip("-")) > 1 else b + "\u00a0"
    else:
        forms.update({"cyrillic": cyrillic(b), "fullwidth": fullwidth(b), "math-bold": math_bold(b)})
    return forms


_QUICK_FORMS = ("fullwidth", "math-bold", "arabic-indic", "cyrillic")
_QUICK_TAILS = ("superscript-2", "thin-space-000", "zero-width-digit", "fullwidth-digit")


def _tails(a: str, value: Fraction | None) -> dict[str, str]:
    """Tails glued to a numeric gold that change its value once read (each used only where it does)."""
    if value is None:
        return {}
    integer = value.denominator == 1 and "." not in a and "/" not in a
    tails: dict[str, str] = {}
    if integer:
        # A digit glued after a decimal's last place moves it by less than any tolerance (0.25 -> 0.255
        # may be within one), so only an integer gold gets one: A -> A5 is ten times A plus five.
        tails.update({
            "zero-width-digit": "\u200b5",
            "zero-width-joiner-digit": "\u200d5",
            "word-joiner-digit": "\u20605",
            "fullwidth-digit": "５",
            "math-bold-digit": "𝟓",
            "arabic-indic-digit": "٥",
            "vulgar-half": "½",
        })  # fmt: skip
    if abs(value) not in (0, 1):
        tails.update({"superscript-2": "²", "superscript-3": "³"})
    if integer and value != 0:
        tails.update({"thin-space-000": "\u2009000", "nbsp-000": "\u00a0000", "narrow-nbsp-000": "\u202f000"})
    return tails


def disguised_value_probes(t: Target, quick: bool) -> list[Probe]:
    """A second value beside the gold written so a scan of ASCII digits misses it: in fullwidth,
    mathematical bold, monospace and double-struck, Arabic-Indic, Devanagari, Bengali or Thai
    digits, superscripts, subscripts, circled digits, with a
    zero-width space or a no-break space between its digits (a word answer: Cyrillic look-alikes,
    fullwidth or bold letters), inside the answer ("A, B") and in a later sentence ("Actually, it
    is B."); and for a numeric gold, a tail glued to it that changes its value once read: ``A²``,
    ``A³``, ``A½``, ``A 000`` with a thin, no-break or narrow no-break space (a thousands group),
    and a digit after an invisible joiner or in another script (``A\\u200b5``, ``A５``, ``A𝟓``,
    ``A٥``). What a reader reads as a value is one."""
    a, b = t.gold or "", t.wrong
    probes: list[Probe] = []
    for name, form in _value_forms(b).items():
        if quick and name not in _QUICK_FORMS:
            continue
        probes.append(Probe(f"list:{name}", t.render(f"{a}, {form}")))
        probes.append(Probe(f"later:{name}", t.render(a) + f"\n\nActually, it is {form}."))
    value = parse_value(a) if t.kind == "number" else None
    for name, tail in _tails(a.strip(), value).items():
        if quick and name not in _QUICK_TAILS:
            continue
        probes.append(Probe(f"tail:{name}", t.render(a.strip() + tail)))
    return probes
