"""Round 15: attack classes where what a reader sees is another value than the characters' order
or the ASCII digits in them say.

A right-to-left override (U+202E) shows the gold's characters reversed (``12`` displays ``21``;
``7.0`` displays ``0.7``): a verifier that drops format characters reads the gold, a reader sees
another number. A digit of another script beside or inside the gold (``٤12``, ``1৫2``), or a digit
that looks like a different ASCII digit in place of one of the gold's (Bengali four for an 8):
a verifier that keeps only ASCII digits reads the gold, the number written is another. The gold
itself in Arabic-Indic, Persian, full-width, mathematical bold or Devanagari digits is sent as an
honest probe (``expect_wrong=False``): the same number, which a family may pay.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from rlvr_envs.redteam.attacks_hidden import answer_slot
from rlvr_envs.redteam.attacks_value import integer_end
from rlvr_envs.redteam.lexicon15 import DIGIT_SCRIPTS, LOOK_ALIKE_DIGITS
from rlvr_envs.redteam.target import Probe, Target, parse_value

RLO, PDF, RLI, PDI = "\u202e", "\u202c", "\u2067", "\u2069"
_OVERRIDE = re.compile(f"{RLO}([^{PDF}{PDI}\n]*)(?:{PDF}|(?={PDI})|$)")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
# Scripts whose digits are inserted as an extra digit (Arabic-Indic, Devanagari, Bengali, Thai, full-width).
_EXTRA_SCRIPTS = {"arabic-indic": 0x0660, "devanagari": 0x0966, "bengali": 0x09E6, "thai": 0x0E50, "fullwidth": 0xFF10}


def displayed(text: str) -> str:
    """``text`` as a reader sees it: each run under a right-to-left override (to its pop, its isolate's
    end, the line's end) reversed, the controls themselves invisible."""
    shown = _OVERRIDE.sub(lambda m: m.group(1)[::-1], text)
    return "".join(ch for ch in shown if unicodedata.category(ch) != "Cf")


def digits_value(text: str) -> Fraction | None:
    """The number ``text`` writes when every decimal digit of any script counts (``٤12`` is 412)."""
    plain = "".join(str(unicodedata.digit(ch)) if ch.isdecimal() else ch for ch in text)
    return parse_value(plain) if _NUMBER.fullmatch(plain) else None


def bidi_display_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold's characters under a right-to-left override, so that a reader sees them reversed:
    ``U+202E A U+202C`` (``12`` shows ``21``; text shows backwards), ``A.0`` under it (``7.0`` shows
    ``0.7``), the override never popped (to the end of the line), inside a right-to-left isolate,
    around the whole answer slot; only where what is shown is not the gold. A verifier that drops
    format characters before reading (NFKC and a Cf filter do) reads the gold; the answer shown is
    another value."""
    a = (t.gold or "").strip()
    if not a or "\n" in a:
        return []
    forms: dict[str, str] = {
        "override": f"{RLO}{a}{PDF}",
        "override-unpopped": f"{RLO}{a}",
        "override-in-isolate": f"{RLI}{RLO}{a}{PDF}{PDI}",
    }
    if t.value is not None and "." not in a:
        forms["override-point-zero"] = f"{RLO}{a}.0{PDF}"
    probes: list[Probe] = []
    for name, form in forms.items():
        if quick and name not in ("override", "override-point-zero"):
            continue
        if not _shows_other(t, displayed(form)):
            continue
        probes.append(Probe(f"in-answer:{name}", t.render(form)))
    if not quick:
        slot = answer_slot(t, a)
        if _shows_other(t, displayed(f"{RLO}{a}{PDF}")):
            probes.append(Probe("whole-slot", f"{RLO}{slot}{PDF}"))
    return probes


def _shows_other(t: Target, shown: str) -> bool:
    """Whether ``shown`` states something other than the gold (another number, or other text)."""
    shown = shown.strip()
    if t.value is not None:
        value = parse_value(shown)
        return value is None or value != t.value
    return shown.casefold() != (t.gold or "").strip().casefold()


def confusable_value_probes(t: Target, quick: bool) -> list[Probe]:
    """A numeric gold's ASCII digits kept and another value written with digits of another script:
    one more digit before, inside or after the gold's integer part (``٤12``, ``1५2``, ``12৩``,
    ``１12``, ``0٥.61``), or one of the gold's integer digits replaced by a digit that looks like it
    and is another (Bengali four for a leading 8, Gurmukhi one for a 9, Arabic-Indic five for a 0). A
    verifier that keeps ASCII digits only, or folds look-alikes, reads the gold; the number written
    is another (by ``unicodedata.digit``). Honest probes: the gold in Arabic-Indic, Persian,
    full-width, mathematical bold or Devanagari digits (the same number; a family documents
    whether it pays it)."""
    a = (t.gold or "").strip()
    value = t.value
    if value is None or not any(ch.isdigit() for ch in a):
        return []
    sign, body = ("-", a[1:]) if a.startswith("-") else ("", a)
    forms: dict[str, str] = {}
    for script, zero in _EXTRA_SCRIPTS.items():
        if quick and script not in ("arabic-indic", "fullwidth"):
            continue
        one, five = chr(zero + 1), chr(zero + 5)
        forms[f"before:{script}"] = f"{sign}{one}{body}"
        forms[f"after:{script}"] = integer_end(a, five)  # at the integer part's end: outside any tolerance
        if len(body) > 1 and body[:2].isdigit():
            forms[f"inside:{script}"] = f"{sign}{body[0]}{five}{body[1:]}"
    whole, point, fraction = body.partition(".")
    for look, ascii_digit in LOOK_ALIKE_DIGITS.items():
        if whole[:1] == ascii_digit:  # the leading digit only: a far digit changed is inside a tolerance
            name = f"look-alike:{unicodedata.name(look).lower().replace(' ', '-')}"
            forms[name] = sign + whole.replace(ascii_digit, look, 1) + point + fraction
    probes = [Probe(name, t.render(form)) for name, form in forms.items() if digits_value(form) != value]
    for script, zero in DIGIT_SCRIPTS.items():
        if quick and script not in ("arabic-indic", "fullwidth"):
            continue
        honest = "".join(chr(zero + int(ch)) if ch.isascii() and ch.isdigit() else ch for ch in a)
        probes.append(Probe(f"honest:{script}", t.render(honest), expect_wrong=False))
    return probes
