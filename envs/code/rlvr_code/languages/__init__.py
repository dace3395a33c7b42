"""Languages other than Python: each module describes one toolchain, ``runner`` runs a sample.

``LANGUAGES`` maps a task's ``language`` name to its ``Language``; ``language_for_tag`` maps a
completion's fence tag (```cpp) to the language it means.
"""

from __future__ import annotations

from rlvr_code.languages.c import C
from rlvr_code.languages.cpp import CPP
from rlvr_code.languages.go import GO
from rlvr_code.languages.java import JAVA
from rlvr_code.languages.javascript import JAVASCRIPT
from rlvr_code.languages.rust import RUST
from rlvr_code.languages.spec import Language

PYTHON_NAMES = frozenset({"python", "python3", "py", "py3"})
LANGUAGES: dict[str, Language] = {language.name: language for language in (C, CPP, JAVASCRIPT, GO, RUST, JAVA)}
_ALIASES = {
    "c++": "cpp",
    "cxx": "cpp",
    "js": "javascript",
    "node": "javascript",
    "nodejs": "javascript",
    "golang": "go",
    "rs": "rust",
}


def canonical(name: object) -> str | None:
    """A task's language name as ``python`` or a key of ``LANGUAGES``; None when unknown."""
    text = str(name).strip().lower()
    if text in PYTHON_NAMES:
        return "python"
    text = _ALIASES.get(text, text)
    return text if text in LANGUAGES else None


def language_for_tag(tag: str) -> str | None:
    """The language a fence tag means (``""`` and ``py`` mean Python), or None for other tags."""
    tag = tag.strip().lower()
    if tag in PYTHON_NAMES or tag == "":
        return "python"
    for language in LANGUAGES.values():
        if tag in language.tags:
            return language.name
    return None


__all__ = ["LANGUAGES", "PYTHON_NAMES", "Language", "canonical", "language_for_tag"]
