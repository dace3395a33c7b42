"""Words that must never reach the policy (slurs found in reasoning-gym's word lists).

The list is stored as SHA-256 hashes of lower-case words (``blocklist.sha256``) so that the
repository does not display it; tasks whose prompt or answer contains a listed word are
regenerated from the next seed.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from importlib import resources

_WORD = re.compile(r"[A-Za-z]{3,14}")


@lru_cache(maxsize=1)
def blocked_hashes() -> frozenset[str]:
    text = resources.files(__package__).joinpath("blocklist.sha256").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def word_hash(word: str) -> str:
    return hashlib.sha256(word.lower().encode("utf-8")).hexdigest()


def blocked_words_in(*texts: str) -> list[str]:
    """The listed words found in ``texts`` (whole words, any case)."""
    hashes = blocked_hashes()
    found = []
    seen: set[str] = set()
    for text in texts:
        for word in _WORD.findall(text):
            key = word.lower()
            if key in seen:
                continue
            seen.add(key)
            if word_hash(key) in hashes:
                found.append(key)
    return found


def is_clean(*texts: str) -> bool:
    return not blocked_words_in(*texts)
