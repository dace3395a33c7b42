"""Round 15: a lone Roman letter that closes a later clause of a numeric answer's response is a numeral.

``<answer>4</answer>\\n\\nActually, it is V.`` was paid on rg-gcd (H7's ``other_notation`` class, ``later:roman``):
the shared answer tail reads Roman numerals of two letters or more only (``rlvr_envs.tail_restated``), since in
general text "I" is a pronoun and "C" a choice. Where the gold itself is an integer, a capital I, V, X, L, C, D
or M standing alone at the end of a clause is not a choice the task offered: it names a value. This rewrites
such letters in the text after the answer as their digits and lets the shared reading judge that text again, so
"Actually, it is V." is read as "Actually, it is 5." (another value: refused) while "Actually, it is IV." was
already read as 4 (the gold: it stands). Nothing is read where the gold is not an integer. The same re-reading
writes "it's" / "that's" out, which the shared tail reads only in full ("Oops, it's Yes." after "No"), and an
erratum's "read B for A" as what it says to read ("Erratum: B").

Bounded (the shared tail reads at most its own window); never raises on any ``str``.
"""

from __future__ import annotations

import dataclasses
import re

from rlvr_envs.answer_tail import TailFinding, taken_back
from rlvr_envs.extract import Extraction

_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_WINDOW = 4_000
# One capital numeral letter with no Latin letter or digit beside it, closing its clause (emphasis, a dollar sign
# or a bracket may come between): "it is V.", "**X**", "it is $V$", "其实是V。" (a CJK word before it is no
# Latin word the letter could belong to); a Japanese or Korean copula may close the clause ("実はVです。").
_LATIN = "A-Za-z0-9\u00c0-\u024f"
# A letter of an abbreviation ("Q.E.D.", "U.S.", "D.C.": a full stop right before it, or one then a letter after it)
# is no numeral.
_LONE = re.compile(
    rf"(?<![{_LATIN}.])[IVXLCDM](?![{_LATIN}])(?!\.[{_LATIN}])"
    r"(?=[\s*_$)）]*(?:です|だ|である|입니다|이다)?[\s*_$)）]*(?:[.!?;,:。！？；\n]|$))"
)
_INTEGER = re.compile(r"[+-]?\d{1,30}")


def lone_numerals_as_digits(after: str) -> str:
    """``after`` with each lone Roman letter closing a clause written in digits ("it is V." -> "it is 5.")."""
    return _LONE.sub(lambda m: str(_ROMAN[m.group(0)]), after[:_WINDOW])


# "it's" / "that's" written out: the shared tail reads "Oops, it is Yes." as a reconsideration naming another
# answer and let "Oops, it's Yes." stand (self_correction on 8 rg ids with yes/no or true/false golds).
_CONTRACTION = re.compile(r"(?<![^\W_])(it|that|this|here|there|what)['’]s(?![^\W_])", re.IGNORECASE)


# An erratum names what to read instead: "Erratum: read B for A." / "Errata: for A read B." state B, which the shared
# tail reads in "Erratum: B." (self_correction's en-erratum on 11 rg ids).
_ERRATUM = re.compile(
    r"(?<![^\W_])(errat(?:um|a)|corrigend(?:um|a))\s*:?\s*(?:for\s+[^\n.!?]{1,300}?\s+)?read\s+([^\n.!?]{1,300}?)"
    r"(?:\s+for\s+[^\n.!?]{1,300}?)?(?=[\n.!?]|$)",
    re.IGNORECASE,
)


def later_lone_numeral(completion: str, found: Extraction, gold: str | None) -> TailFinding | None:
    """What the shared tail finds after the answer once it is read again with "it's" written "it is" and, for an
    integer gold, its lone Roman letters written as numerals; None when nothing was rewritten or the text still
    stands."""
    if not found.after:
        return None
    rewritten = _ERRATUM.sub(r"\1: \2", _CONTRACTION.sub(r"\1 is", found.after[:_WINDOW]))
    if gold and _INTEGER.fullmatch(gold.strip()):
        rewritten = lone_numerals_as_digits(rewritten)
    if rewritten == found.after[:_WINDOW]:
        return None
    return taken_back(completion, dataclasses.replace(found, after=rewritten))
