"""Is a response written in a language its prompt allows? (issue 26, round 4 of the relevance gate)

A real answer written for another prompt keeps its own language: a Kannada, Korean or Swahili
answer pasted under an English prompt satisfies that prompt's format-only instructions (no
commas, fewer than 300 words) and shares no word with it, so neither the overlap rule nor the
contrast rule can see it. Its language can: an answer is written in the prompt's language, in
a language the prompt names ("Explain in French", "translate this into English") or in one an
instruction asks for.

* **Allowed languages** (computed once per prompt): the languages langdetect finds in the
  prompt, per line and in the whole, where they have 40 letters or more (a quoted sentence in
  another language counts), English where a quarter of the prompt's words are English function
  words (langdetect calls "Write a haiku." Swahili), every
  language the prompt names (English names and endonyms), and English where an instruction
  asks for English case. Not judged: prompts that speak of another, a different or any
  language or of translation without naming the target, and tasks with an instruction that
  fixes the response's language (``language:response_language``, ``count:words_japanese``:
  their checker decides).
* **Scripts first** (no detection): a response whose letters are mostly in a script none of
  the allowed languages is written in (Devanagari under an English prompt) is in another
  language. ASCII text under a Latin-script prompt never pays for more.
* **Then languages in the same script**: a response of ``MIN_DETECT_WORDS`` words or more is
  detected (lowercased: langdetect's profiles are case-sensitive and call capitalised English
  German) and refused when the language found is neither allowed nor a close neighbour that
  langdetect confuses with an allowed one (``_NEIGHBOURS``). Plain English prose takes
  ``language.obvious_language``'s shortcut; only text that is not obviously English pays for
  the full detection.

Calibrated on the labelled responses (the README has the numbers): no labelled-good answer is
refused.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import islice
from typing import Any

from rlvr_ifeval.base import Checker
from rlvr_ifeval.language import detect_language, obvious_language
from rlvr_ifeval.text import STOPWORDS

MIN_SCRIPT_LETTERS = 20
"""A response with fewer letters outside the allowed scripts is not judged by script."""
MIN_SCRIPT_SHARE = 0.5
"""... and those letters must be this share of its letters (names, quotes, loanwords are fewer)."""
MIN_DETECT_WORDS = 10
"""Detection of a language in the same script needs this many words that start with a
lowercase letter: langdetect calls "yes" Turkish, "Oreo Panda Zebra" Portuguese and a list of
capitals ("Reykjavík, Helsinki, Oslo") Slovenian; names and all-capital text are not prose."""
MAX_LANGUAGE_CHARS = 2000
"""Detection reads this much of a response: a language shows in its first paragraphs."""

# Scripts by their Unicode blocks; a language's script is where its letters are.
_SCRIPTS: dict[str, str] = {
    "cyrillic": "\u0400-\u052f",
    "greek": "\u0370-\u03ff\u1f00-\u1fff",
    "armenian": "\u0530-\u058f",
    "hebrew": "\u0590-\u05ff",
    "arabic": "\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff",
    "devanagari": "\u0900-\u097f",
    "bengali": "\u0980-\u09ff",
    "gurmukhi": "\u0a00-\u0a7f",
    "gujarati": "\u0a80-\u0aff",
    "oriya": "\u0b00-\u0b7f",
    "tamil": "\u0b80-\u0bff",
    "telugu": "\u0c00-\u0c7f",
    "kannada": "\u0c80-\u0cff",
    "malayalam": "\u0d00-\u0d7f",
    "sinhala": "\u0d80-\u0dff",
    "thai": "\u0e00-\u0e7f",
    "lao": "\u0e80-\u0eff",
    "georgian": "\u10a0-\u10ff",
    "hangul": "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f",
    "kana": "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f",
    "han": "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff",
    "ethiopic": "\u1200-\u137f",
    "khmer": "\u1780-\u17ff",
    "myanmar": "\u1000-\u109f",
}
_SCRIPT_NAMES = tuple(_SCRIPTS)
_SCRIPT_RES = tuple((name, re.compile(f"[{chars}]")) for name, chars in _SCRIPTS.items())
# One pass over a text: each match is a run of one script's letters (its group says which).
_SCRIPT_RUN_RE = re.compile("|".join(f"([{chars}]+)" for chars in _SCRIPTS.values()))
# Any character of a non-Latin script: most responses have none (an English answer's curly quotes
# and dashes are punctuation) and skip the per-script count.
_NON_LATIN_RE = re.compile("[\u0370-\u1dff\u2c00-\ud7ff\uf900-\ufdff\ufe70-\uffef]")
_PROSE_WORD_RE = re.compile(r"[^\W\d_A-Z\u00c0-\u00de][^\W\d_]+[,.;:!?]?")
"""A word of prose: letters, the first lowercase, maybe a punctuation mark after it."""
_LATIN_RE = re.compile("[A-Za-z\u00c0-\u024f\u1e00-\u1eff]")

# langdetect's codes (and a few more) -> the scripts their text is written in.
_LANGUAGE_SCRIPTS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("ru", "uk", "bg", "mk", "sr", "be", "kk", "mn", "ky", "tg"), frozenset({"cyrillic"})),
    "el": frozenset({"greek"}),
    "hy": frozenset({"armenian"}),
    **dict.fromkeys(("he", "yi"), frozenset({"hebrew"})),
    **dict.fromkeys(("ar", "fa", "ur", "ps", "ug"), frozenset({"arabic"})),
    **dict.fromkeys(("hi", "mr", "ne", "sa"), frozenset({"devanagari"})),
    **dict.fromkeys(("bn", "as"), frozenset({"bengali"})),
    "pa": frozenset({"gurmukhi"}),
    "gu": frozenset({"gujarati"}),
    "or": frozenset({"oriya"}),
    "ta": frozenset({"tamil"}),
    "te": frozenset({"telugu"}),
    "kn": frozenset({"kannada"}),
    "ml": frozenset({"malayalam"}),
    "si": frozenset({"sinhala"}),
    "th": frozenset({"thai"}),
    "lo": frozenset({"lao"}),
    "ka": frozenset({"georgian"}),
    "ko": frozenset({"hangul", "han"}),
    "ja": frozenset({"kana", "han"}),
    **dict.fromkeys(("zh", "zh-cn", "zh-tw"), frozenset({"han"})),
    "am": frozenset({"ethiopic"}),
    "km": frozenset({"khmer"}),
    "my": frozenset({"myanmar"}),
}
_LATIN = frozenset({"latin"})


def scripts_of(language: str) -> frozenset[str]:
    """The scripts ``language`` (an ISO code) is written in (Latin unless listed)."""
    return _LANGUAGE_SCRIPTS.get(language, _LATIN)


# Languages a prompt may name, as the ISO codes langdetect returns: English names and
# endonyms (lowercase, accents kept: the prompt is matched casefolded).
_NAMES: dict[str, str] = {
    "english": "en", "german": "de", "deutsch": "de", "french": "fr", "français": "fr", "francais": "fr",
    "spanish": "es", "español": "es", "espanol": "es", "castilian": "es", "italian": "it", "italiano": "it",
    "portuguese": "pt", "português": "pt", "portugues": "pt", "brazilian": "pt", "dutch": "nl",
    "nederlands": "nl", "flemish": "nl", "swedish": "sv", "svenska": "sv", "danish": "da", "dansk": "da",
    "norwegian": "no", "norsk": "no", "finnish": "fi", "suomi": "fi", "estonian": "et", "latvian": "lv",
    "lithuanian": "lt", "polish": "pl", "polski": "pl", "czech": "cs", "slovak": "sk", "slovenian": "sl",
    "slovene": "sl", "croatian": "hr", "serbian": "sr", "bosnian": "hr", "hungarian": "hu", "magyar": "hu",
    "romanian": "ro", "albanian": "sq", "turkish": "tr", "türkçe": "tr", "vietnamese": "vi",
    "tiếng việt": "vi", "indonesian": "id", "bahasa": "id", "malay": "id", "tagalog": "tl", "filipino": "tl",
    "swahili": "sw", "kiswahili": "sw", "somali": "so", "afrikaans": "af", "catalan": "ca", "català": "ca",
    "welsh": "cy", "irish": "ga", "gaelic": "ga", "basque": "eu", "galician": "gl", "icelandic": "is",
    "latin": "la", "esperanto": "eo", "hausa": "ha", "yoruba": "yo", "zulu": "zu", "xhosa": "xh",
    "russian": "ru", "русский": "ru", "ukrainian": "uk", "українська": "uk", "bulgarian": "bg",
    "macedonian": "mk", "belarusian": "be", "kazakh": "kk", "mongolian": "mn", "greek": "el",
    "ελληνικά": "el", "armenian": "hy", "hebrew": "he", "עברית": "he", "yiddish": "yi", "arabic": "ar",
    "العربية": "ar", "persian": "fa", "farsi": "fa", "فارسی": "fa", "urdu": "ur", "pashto": "ps",
    "hindi": "hi", "हिन्दी": "hi", "हिंदी": "hi", "marathi": "mr", "मराठी": "mr", "nepali": "ne",
    "नेपाली": "ne", "sanskrit": "sa", "bengali": "bn", "bangla": "bn", "বাংলা": "bn", "punjabi": "pa",
    "panjabi": "pa", "ਪੰਜਾਬੀ": "pa", "gujarati": "gu", "ગુજરાતી": "gu", "oriya": "or", "odia": "or",
    "tamil": "ta", "தமிழ்": "ta", "telugu": "te", "తెలుగు": "te", "kannada": "kn", "ಕನ್ನಡ": "kn",
    "malayalam": "ml", "മലയാളം": "ml", "sinhala": "si", "sinhalese": "si", "thai": "th", "ภาษาไทย": "th",
    "ไทย": "th", "lao": "lo", "georgian": "ka", "korean": "ko", "한국어": "ko", "japanese": "ja",
    "日本語": "ja", "chinese": "zh", "mandarin": "zh", "cantonese": "zh", "中文": "zh", "汉语": "zh",
    "漢語": "zh", "amharic": "am", "khmer": "km", "burmese": "my",
}  # fmt: skip
_NAME_RE = re.compile(
    r"(?<![^\W\d_])(?:" + "|".join(re.escape(n) for n in sorted(_NAMES, key=len, reverse=True)) + r")(?![^\W\d_])"
)
# A prompt that leaves the language open ("in a different language", "translate it") allows any.
_OPEN_RE = re.compile(
    r"\b(?:another|other|different|any|foreign|second|native|multiple|several|many|two|three)\s+languages?\b"
    r"|\btranslat|\blingual\b|\bbilingual|\bmultilingual|\bpolyglot|\blanguages\b"
)
# langdetect's codes it confuses with each other on short or plain text: never a refusal.
_NEIGHBOURS: tuple[frozenset[str], ...] = (
    frozenset({"zh", "zh-cn", "zh-tw", "ja", "ko"}),
    frozenset({"hi", "mr", "ne", "sa"}),
    frozenset({"ar", "fa", "ur", "ps"}),
    frozenset({"ru", "uk", "bg", "mk", "sr", "be"}),
    frozenset({"es", "ca", "gl", "pt", "it"}),
    frozenset({"hr", "sr", "bs", "sl", "sk", "cs"}),
    frozenset({"no", "da", "sv"}),
    frozenset({"nl", "af"}),
    frozenset({"id", "ms", "tl"}),
)
# Instructions that fix the response's language: their checkers decide.
_FIXED_LANGUAGE_IDS = frozenset({"language:response_language", "count:words_japanese"})
_ENGLISH_IDS = frozenset({"change_case:english_capital", "change_case:english_lowercase"})
_MIN_DETECT_LETTERS = 40
"""A prompt, or a line of it, is detected when it has this many letters (fewer: langdetect guesses)."""
_MIN_ENGLISH_SHARE = 0.25
_ASCII_WORD_RE = re.compile(r"[a-z]+(?:'[a-z]+)?")


def _base(code: str) -> str:
    return "zh" if code.startswith("zh") else code


def _family(code: str) -> frozenset[str]:
    code = _base(code)
    for group in _NEIGHBOURS:
        if code in group:
            return group
    return frozenset({code})


@lru_cache(maxsize=4096)
def allowed_languages(prompt: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The languages (ISO codes, close neighbours included) and scripts a response to
    ``prompt`` may be written in; None when the prompt leaves the language open or has no letters."""
    folded = prompt.casefold()
    if _OPEN_RE.search(folded):
        return None
    languages: set[str] = set()
    for name in _NAME_RE.findall(folded):
        languages.add(_NAMES[name])
    for part in (prompt, *prompt.splitlines()):
        if sum(c.isalpha() for c in part) >= _MIN_DETECT_LETTERS:
            found = detect_language(part.lower())
            if found is not None:
                languages.add(_base(found))
    # langdetect calls short English prompts Swahili or Finnish ("Write a haiku.", "Tell me a
    # joke."): English function words are evidence enough that English is allowed.
    words = _ASCII_WORD_RE.findall(folded)
    if len(words) >= 3 and sum(w in STOPWORDS for w in words) >= _MIN_ENGLISH_SHARE * len(words):
        languages.add("en")
    scripts: set[str] = set()
    for name, pattern in _SCRIPT_RES:
        if len(pattern.findall(prompt)) >= 2:  # a quoted word in a script allows that script
            scripts.add(name)
    if _LATIN_RE.search(prompt):
        scripts.add("latin")
    if not scripts:
        return None  # no letters (a formula, an emoji): nothing to compare with
    widened: set[str] = set()
    for code in languages:
        widened |= _family(code)
        scripts |= scripts_of(code)
    return frozenset(widened), frozenset(scripts)


class _ScriptOf(dict[str, str]):
    """Character -> the script of ``_SCRIPTS`` it belongs to, worked out on first sight."""

    def __missing__(self, char: str) -> str:
        name = next(name for name, pattern in _SCRIPT_RES if pattern.match(char))
        self[char] = name
        return name


_SCRIPT_OF = _ScriptOf()
_ANY_SCRIPT_RE = re.compile("[" + "".join(_SCRIPTS.values()) + "]")


def _script_counts(text: str) -> tuple[int, dict[str, int]]:
    """Latin letters and the letters of each other script in ``text``. The scripts' blocks are
    disjoint, so the letters of each are counted from one pass that finds them all (the
    alternation of one run pattern a script, ``_script_counts_by_runs``, tried every script at
    every character: ~0.4 ms on 2,000 characters)."""
    latin = len(_LATIN_RE.findall(text))
    return latin, dict(Counter(map(_SCRIPT_OF.__getitem__, _ANY_SCRIPT_RE.findall(text))))


def _script_counts_by_runs(text: str) -> tuple[int, dict[str, int]]:
    """``_script_counts`` as first written, run by run (tests compare the two)."""
    latin = len(_LATIN_RE.findall(text))
    counts: dict[str, int] = {}
    for run in _SCRIPT_RUN_RE.finditer(text):
        name = _SCRIPT_NAMES[run.lastindex - 1]  # type: ignore[operator]  # one group always matches
        counts[name] = counts.get(name, 0) + run.end() - run.start()
    return latin, counts


def wrong_language(prompt: str, response: str, checkers: Sequence[Checker]) -> dict[str, Any] | None:
    """What was found when ``response`` is written in a language ``prompt`` does not allow,
    else None (also when it cannot be judged)."""
    ids = {c.instruction_id for c in checkers}
    if ids & _FIXED_LANGUAGE_IDS:
        return None
    allowed = allowed_languages(prompt)
    if allowed is None:
        return None
    languages, scripts = allowed
    if ids & _ENGLISH_IDS:
        languages, scripts = languages | {"en"}, scripts | _LATIN
    head = response[:MAX_LANGUAGE_CHARS]
    if head.isascii() or not _NON_LATIN_RE.search(head):
        if "latin" not in scripts:
            letters = len(_LATIN_RE.findall(head))
            if letters >= MIN_SCRIPT_LETTERS:
                return {"response_script": "latin", "prompt_scripts": sorted(scripts), "letters": letters}
            return None
    else:
        latin, others = _script_counts(head)
        total = latin + sum(others.values())
        foreign = sum(n for name, n in others.items() if name not in scripts)
        if "latin" not in scripts:
            foreign += latin
        if foreign >= MIN_SCRIPT_LETTERS and foreign >= MIN_SCRIPT_SHARE * total:
            return {"response_script_letters": foreign, "letters": total, "prompt_scripts": sorted(scripts)}
        if latin < MIN_SCRIPT_SHARE * total:
            return None  # same script as the prompt, not Latin: the script rule is what is cheap and sure
    # Latin text under a prompt that allows Latin: which language?
    if not languages:
        return None
    found = obvious_language(head)
    if found is not None and _base(found) in languages:
        return None
    if sum(1 for _ in islice(filter(_PROSE_WORD_RE.fullmatch, head.split()), MIN_DETECT_WORDS)) < MIN_DETECT_WORDS:
        return None
    if found is None:
        lowered = head.lower()  # capitalised English is not obvious, lowercased it often is
        found = obvious_language(lowered) or detect_language(lowered)
    if found is None:
        return None
    if _base(found) in languages or not (scripts_of(_base(found)) & scripts):
        return None
    return {"response_language": found, "prompt_languages": sorted(languages)}
