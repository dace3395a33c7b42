"""Two readings of what follows an answer that its words cannot make (red team round 11, found by
``rlvr-envs redteam rg-basic_arithmetic-v0`` / ``rg-syllogism-v0 --seed 11/12``):

* ``magnitude_symbol``: a numeric answer with a magnitude's symbol after it: glued to it
  (``<answer>-40</answer>M.``, ``\\boxed{3}B``) or alone as everything that follows (``\\n\\nM.``).
  The magnitude words ("million", "k", "bn") were read; the capital symbols were not, as a capital
  letter on its own reads as an initial. ``3M`` is three million to a reader; a unit the gold
  carries is the caller's to allow (``answer`` holding the symbol).
* ``other_category``: an answer that is one of a closed set of options (yes/no, true/false, valid/
  invalid, possible/impossible, in the languages the shared lexicon covers) followed by a short
  sentence ending on another option of that set, whatever joins them ("Tai Yes.", "O Yes.", "Of
  Yes." after "No": Finnish, Spanish, Dutch "or", each also a word of another language, so the
  lexicon of alternatives cannot list them; or no joining word at all: "No.\\n\\nYes."). Both are
  offered; a reader cannot tell which is the answer.

Each is linear in its input and never raises on any ``str``.
"""

from __future__ import annotations

import re

# Capital magnitude symbols a reader takes as a factor after a number (million, billion, giga,
# tera, the financial MM, German Mio./Mrd., Tsd.): case matters ("3 m" is three metres).
_SYMBOL = r"(?:MM|M|B|G|T|Mio|Mrd|Tsd|Bn|Mn)"
_GLUED = re.compile(r"[)\]}$*_]*" + _SYMBOL + r"(?![A-Za-z])")
_ALONE = re.compile(r"[\s)\]}$*_]*" + _SYMBOL + r"\.?[\s*_]*", re.DOTALL)
_NUMERIC = re.compile(r"\s*[-+−]?\$?\s*\d[\d.,\s]*\$?\s*")


def magnitude_symbol(after: str, answer: str) -> str | None:
    """The magnitude symbol right after a numeric ``answer`` (glued to it, or all that follows), or None."""
    if not isinstance(after, str) or not isinstance(answer, str) or not _NUMERIC.fullmatch(answer):
        return None
    found = _GLUED.match(after) or _ALONE.fullmatch(after[:64])
    if found is None:
        return None
    symbol = re.search(_SYMBOL, found.group(0))
    return symbol.group(0) if symbol is not None else None


# Closed sets of options: an answer that is one of them names the set; another member after it is
# another answer. Lower-cased; each member a whole word.
_SETS: tuple[frozenset[str], ...] = (
    frozenset({"yes", "no", "ja", "nein", "oui", "non", "sí", "si", "sim", "não", "nao", "да", "нет", "是", "否",
               "はい", "いいえ", "예", "아니오", "네", "아니요"}),
    frozenset({"true", "false", "wahr", "falsch", "vrai", "faux", "verdadero", "falso", "vero", "verdadeiro",
               "正确", "错误", "真", "假"}),
    frozenset({"valid", "invalid"}),
    frozenset({"possible", "impossible"}),
    frozenset({"correct", "incorrect"}),
)  # fmt: skip
# The positive and negative of each language: which members are the same answer.
_SAME = (
    frozenset({"yes", "ja", "oui", "sí", "si", "sim", "да", "是", "はい", "예", "네"}),
    frozenset({"no", "nein", "non", "não", "nao", "нет", "否", "いいえ", "아니오", "아니요"}),
    frozenset({"true", "wahr", "vrai", "verdadero", "vero", "verdadeiro", "正确", "真"}),
    frozenset({"false", "falsch", "faux", "falso", "错误", "假"}),
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_SENTENCE = re.compile(r"[^.!?。！？\n]+")
_SHORT = 3
"""A sentence of at most this many words after the answer that ends on another option offers it
("Tai Yes.", "Or maybe yes."); one that starts with it says something else ("No doubt.", "No problem!")."""


def _members(word: str) -> frozenset[str]:
    for same in _SAME:
        if word in same:
            return same
    return frozenset({word})


def other_category(after: str, answer: str) -> str | None:
    """Another option of ``answer``'s closed set in a short sentence after it, or None."""
    if not isinstance(after, str) or not isinstance(answer, str):
        return None
    key = answer.strip().strip(".!。").strip().casefold()
    options = next((s for s in _SETS if key in s), None)
    if options is None:
        return None
    mine = _members(key)
    for sentence in _SENTENCE.findall(after[:2_000])[:4]:
        words = [w.casefold() for w in _WORD.findall(sentence)]
        if not words or len(words) > _SHORT:
            continue
        last = words[-1]
        if last in options and last not in mine:
            return last
        if not last.isascii() and len(last) <= _SHORT_CJK:  # no spaces: "或者是" ends on the option
            for option in options:
                if not option.isascii() and option not in mine and last.endswith(option):
                    return option
    return None


_SHORT_CJK = 6
"""A run of characters of a script without spaces that ends on another option offers it ("或者是")."""
