"""Word counts: runs of ``\\w`` characters as the reference counts them, and a count for any
script (``rlvr_ifeval.text`` re-exports both; the checkers and the guard use them)."""

from __future__ import annotations

import re
from functools import lru_cache

from rlvr_ifeval import reading

_WORD_RE = re.compile(r"\w+")


# ASCII text: every character that is not ``\w`` becomes a space, so ``bytes.split`` gives the
# runs of ``\w`` characters (the same words as ``_WORD_RE.findall``, several times faster).
_ASCII_NON_WORD_TO_SPACE = bytes(c if c < 128 and (chr(c).isalnum() or c == ord("_")) else 32 for c in range(256))


@lru_cache(maxsize=128)
def _word_runs(text: str) -> tuple[str, ...]:
    if text.isascii():
        return tuple(text.encode("ascii").translate(_ASCII_NON_WORD_TO_SPACE).decode("ascii").split())
    return tuple(_WORD_RE.findall(text))


# The same characters as letters ("a") and everything else as spaces: a word is a run of "a".
_ASCII_WORD_TO_A = bytes(97 if c < 128 and (chr(c).isalnum() or c == ord("_")) else 32 for c in range(256))


def count_words(text: str) -> int:
    """Words as the reference counts them: runs of ``\\w`` characters."""
    if text.isascii() and reading.ROUND_15:
        # Counted, not made (speed round 15): a word starts where "a" follows a space or opens
        # the text. The gate counts whole heads only to compare with a bound (``detached``,
        # ``genre``, the guard's minimum): a tuple of every word was built for its length.
        flat = text.encode("ascii").translate(_ASCII_WORD_TO_A)
        return flat.count(b" a") + flat.startswith(b"a")
    return len(_word_runs(text))


# Scripts written without spaces between words. Han ideographs and kana: one word a character
# (a Chinese word averages about 1.5 characters, so this errs towards more words, which a guard
# against too-short answers should). Thai, Lao, Khmer, Myanmar: one word per four code points
# (vowel signs and tone marks included; "วันนี้อากาศดีมาก", four words, has 16).
_IDEOGRAPHIC = re.compile(
    "[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]"
)
_SOUTHEAST_ASIAN = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff]")
_NO_SPACE_SCRIPTS = re.compile(_IDEOGRAPHIC.pattern[:-1] + _SOUTHEAST_ASIAN.pattern[1:])
SOUTHEAST_ASIAN_CHARS_PER_WORD = 4


def count_words_any_script(text: str) -> int:
    """Words in any script, for judging length: ``\\w`` runs (as ``count_words``), except that
    text in scripts written without spaces is counted by characters (see above) instead of
    making a whole sentence one word. Not the reference's count: checkers keep ``count_words``."""
    if text.isascii() or _NO_SPACE_SCRIPTS.search(text) is None:  # (one scan, not two, for most texts)
        return count_words(text)
    ideographs = len(_IDEOGRAPHIC.findall(text))
    southeast = len(_SOUTHEAST_ASIAN.findall(text))
    if not ideographs and not southeast:
        return count_words(text)
    rest = _NO_SPACE_SCRIPTS.sub(" ", text)
    return count_words(rest) + ideographs + -(-southeast // SOUTHEAST_ASIAN_CHARS_PER_WORD)


def word_list(text: str) -> list[str]:
    return list(_word_runs(text))
