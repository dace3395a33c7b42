"""Refusals and non-answers in the languages the project claims, written with or without spaces.

The guard's ``v1`` refusal rule reads English, Chinese, Japanese and Thai sentences, and only on
tasks without a short-answer instruction. IFBench 298 ("pious egoists means what. The output
should not contain any whitespace.") allows a short answer, so "我不知道。" ("I don't know")
was paid; "Idon'tknow" satisfies the same instruction. The ``v2`` rule here:

* reads the response **squashed**: casefolded, everything but letters and digits dropped (so
  "I don't know", "I_don't_know" and "Idon'tknow" are one string), and matches a lexicon of
  refusal and "I don't know" phrases of English, German, French, Spanish, Chinese, Japanese,
  Korean and Thai written the same way;
* calls the response a refusal when what is left after removing every such phrase weighs under
  the guard's word minimum (a character of a script without spaces weighs a word, a Hangul
  syllable ``HANGUL_WEIGHT``, another letter or digit ``LETTER_WEIGHT``): an apology followed
  by an answer is an attempt;
* applies on every task, short-answer ones included, except where the instruction's own
  strings offer such a phrase (IFBench 101: "Answer with one of the following options: I know
  or I don't know");
* reads only responses of at most ``MAX_REFUSAL_CHARS`` characters (a refusal is short; a
  longer text says more than the refusal).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from rlvr_ifeval.base import Checker, strings

MAX_REFUSAL_CHARS = 400
"""Longer responses are not read: a few refusal phrases and fewer than the guard's minimum of
words fit in far less (the rule costs nothing on real answers, most of which are longer)."""
LETTER_WEIGHT = 0.2
"""A Latin, Cyrillic or other letter or digit weighs a fifth of a word (about five a word)."""
HANGUL_WEIGHT = 0.4
"""A Hangul syllable weighs 0.4 of a word (Korean words run two to three syllables)."""

# Squashed phrases: lowercase, accents kept (Spanish "sé" differs from "se"), no spaces or
# apostrophes. Each alternative is a whole refusal, not a word that could open an answer.
_SQUASHED = (
    # English (a cannot-form needs its verb: "icant" alone is in "significant")
    r"i(?:really|honestly)?(?:dont|donot|didnt|didnot)(?:really)?(?:know|haveanyidea|haveanidea|haveananswer"
    r"|understand)",
    r"noidea|(?:im|iam)notsure|idontknow|icantsay|icannotsay|nocomment",
    r"i(?:am|m)(?:so|very|really|truly)?afraid(?:icannot|icant|not)?|(?:i(?:am|m)?(?:so|very|really|truly)?)?sorry"
    r"|iapologi[sz]e|apologies",
    r"i(?:really)?(?:cannot|cant|wont|willnot|amunableto|munableto|amnotableto|mnotableto|mustdeclineto|refuseto)"
    r"(?:help|assist|answer|comply|respond|provide|do|write|complete|fulfill?)",
    r"asanai(?:languagemodel)?|asalanguagemodel|unableto(?:help|assist|comply|answer)",
    # German (ß casefolds to ss)
    r"ichweiss(?:es|das)?nicht|weissichnicht|keineahnung|estutmirleid|tutmirleid|entschuldigung"
    r"|ichkann(?:ihnen|dir|dabei|hier|das|darauf|ihre|deine|frage)*nicht(?:helfen|beantworten|antworten|sagen)"
    r"|alsk(?:i|ünstlicheintelligenz)(?:sprachmodell)?|keineantwort",
    # French
    r"je(?:ne)?saispas|jensaispas|jenesaisrien|(?:je)?(?:suis)?d[ée]sol[ée]e?s?|excusezmoi"
    r"|je(?:ne)?peuxpas(?:vous|te)?(?:aider|r[ée]pondre)?|aucuneid[ée]e|entantquia|jeneconnaispas",
    # Spanish
    r"nosé|nolosé|nosénada|losiento|disculpa|nopuedo(?:ayudar(?:te|le)?|responder|contestar)"
    r"|niidea|notengo(?:ni)?idea|comoia|desconozco|noestoyseguro|noestoysegura",
    # Chinese
    r"我?不知道|我?无法(?:回答|帮助|提供|完成|协助)?|我不能(?:回答|帮助|提供)?|抱歉|对不起|不清楚|不确定|我不会|没有答案",
    # Japanese
    r"わかりません|分かりません|知りません|存じません|申し訳(?:ありません|ございません)?|すみません|ごめんなさい"
    r"|(?:お答え|回答|お手伝い)(?:でき|いたしかね)(?:ません)?|不明です",
    # Korean
    r"잘?모르겠(?:습니다|어요|다)?|몰라요?|죄송(?:합니다|해요)?|미안(?:합니다|해요)|(?:도와|도움을)(?:드릴|줄)수(?:가)?없"
    r"|답변(?:할|드릴|을드릴)수(?:가)?없|알수(?:가)?없(?:습니다|어요)?",
    # Thai
    r"ขอโทษ|ขออภัย|ไม่สามารถ(?:ช่วย|ตอบ|ให้)?|ไม่ทราบ|ไม่รู้|ไม่แน่ใจ",
)
_SQUASHED_RE = re.compile("|".join(f"(?:{p})" for p in _SQUASHED))


def necessary_strings(items: Any) -> frozenset[str] | None:
    """Strings one of which every match of the parsed pattern ``items`` (``re._parser`` data)
    contains, or None when none can be read off it: runs of literal characters, and for an
    alternation the union of its branches' strings (every branch must have some); a part that
    may be absent (``?``, ``*``) gives none. Of several candidates, the one whose shortest string
    is longest (fewest strings on a tie)."""
    from re import _constants as sre  # type: ignore[attr-defined]  # (the parser's own opcodes)

    candidates: list[frozenset[str]] = []
    run: list[str] = []
    for op, arg in items:
        if op is sre.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            candidates.append(frozenset({"".join(run)}))
            run = []
        found: frozenset[str] | None = None
        if op is sre.SUBPATTERN:
            found = necessary_strings(arg[-1].data)
        elif op is sre.BRANCH:
            branches = [necessary_strings(b.data) for b in arg[1]]
            if all(b is not None for b in branches):
                found = frozenset().union(*branches)  # type: ignore[arg-type]  # (none is None here)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and arg[0] >= 1:
            found = necessary_strings(arg[2].data)
        if found:
            candidates.append(found)
    if run:
        candidates.append(frozenset({"".join(run)}))
    candidates = [c for c in candidates if c and all(c)]
    return max(candidates, key=lambda c: (min(map(len, c)), -len(c))) if candidates else None


def _triggers(pattern: re.Pattern[str]) -> tuple[str, ...]:
    from re import _parser  # type: ignore[attr-defined]

    if pattern.flags & re.IGNORECASE:  # literals would match in other cases too
        return ("",)
    found = necessary_strings(_parser.parse(pattern.pattern, pattern.flags).data)
    return ("",) if found is None else tuple(sorted(found))  # ("",): every text passes


_TRIGGERS = _triggers(_SQUASHED_RE)
"""Read off the pattern itself (no list to keep in step): a text without any of them has no match."""
_NO_SPACE_RE = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]"
)
_HANGUL_RE = re.compile("[\uac00-\ud7a3]")


def squash(text: str) -> str:
    """Casefolded, NFC, only letters, digits and combining marks kept (spaces, punctuation,
    apostrophes gone; Thai and Indic vowel signs are marks, not letters)."""
    if text.isascii():  # bytes.translate deletes in C
        return text.encode("ascii").translate(None, _ASCII_NOT_ALNUM).decode("ascii").lower()
    folded = unicodedata.normalize("NFC", text.casefold())
    return "".join(c for c in folded if c.isalnum() or unicodedata.category(c)[0] == "M")


_ASCII_NOT_ALNUM = bytes(c for c in range(128) if not chr(c).isalnum())


def _weight(rest: str) -> float:
    no_space = len(_NO_SPACE_RE.findall(rest))
    hangul = len(_HANGUL_RE.findall(rest))
    return no_space + HANGUL_WEIGHT * hangul + LETTER_WEIGHT * (len(rest) - no_space - hangul)


def refusal(response: str, min_words: int) -> dict[str, Any] | None:
    """What was found when ``response`` is a refusal or "I don't know" and little else, else
    None (``min_words``: the guard's word minimum, at least 1)."""
    if len(response) > MAX_REFUSAL_CHARS:
        return None
    squashed = squash(response)
    if not squashed:
        return None
    if squashed in _WHOLE_NON_ANSWERS or _NOT_APPLICABLE_RE.fullmatch(response):
        return {"refusal_phrases": 1, "words_left": 0.0}
    # Most short answers hold none of the strings every match must contain: the alternation,
    # tried at every position, costs several times the substring tests.
    if not any(t in squashed for t in _TRIGGERS):
        return None
    rest, n = _SQUASHED_RE.subn("", squashed)
    if not n:
        return None
    left = _weight(rest)
    if left >= max(1, min_words):
        return None
    return {"refusal_phrases": n, "words_left": round(left, 1)}


@lru_cache(maxsize=4096)
def _offers_refusal(checkers: tuple[Checker, ...]) -> bool:
    return any(
        _SQUASHED_RE.search(squash(s)) or squash(s) in _WHOLE_NON_ANSWERS
        for c in checkers
        for v in c.kwargs.values()
        for s in strings(v)
        if s.strip()
    )


# Whole responses that say "no answer" (squashed): too short or too common inside words to
# be taken out of a longer text ("tba" is in "batbat"), so matched only as the whole response.
# "N/A" keeps its slash or dots: squashed it is "na", which is sodium.
_WHOLE_NON_ANSWERS = frozenset(
    "idk dunno tbd tba notapplicable noanswer nocomment 不适用 无可奉告 該当なし 해당없음 keineangabe "
    "sansobjet sinrespuesta nosabenoresponde".split()
)
_NOT_APPLICABLE_RE = re.compile(r"\s*n\s*[/.]\s*a\s*\.?\s*", re.IGNORECASE)
_CONTENT_CATEGORIES = frozenset("LNM")


def no_content(response: str) -> bool:
    """Whether a short response has no letter, digit, mark or pictographic symbol: punctuation,
    spaces, control characters and lone surrogates ("...", "—", "?!") answer nothing. Emoji
    (category So) count as content: an instruction may ask for them."""
    if len(response) > MAX_REFUSAL_CHARS:
        return False
    return not any(
        unicodedata.category(c)[0] in _CONTENT_CATEGORIES or unicodedata.category(c) == "So" for c in response
    )


def offers_refusal(checkers: Sequence[Checker]) -> bool:
    """Whether the instruction's own strings hold a refusal phrase (an option "I don't know"):
    then answering with it is following the instruction."""
    return _offers_refusal(tuple(checkers))


# A sentence that says the model will not or cannot answer. The apostrophes are normalised first.
_REFUSAL_RE = re.compile(
    r"\b(?:i|we)(?: am|'m| are|'re)? ?(?:sorry|afraid|apologi[sz]e)\b"
    r"|\b(?:i|we)(?: really)? (?:cannot|can't|can not|won't|will not|am unable to|'m unable to|am not able to"
    r"|'m not able to|am not allowed to|must decline to|refuse to)"
    r" (?:help|assist|answer|comply|respond|provide|do|write|fulfil|fulfill|complete|create|generate|produce"
    r"|give|share|continue|engage|discuss|support)\b"
    r"|\b(?:i|we) (?:do not|don't|did not|didn't|really don't)"
    r" (?:know|have (?:an|the|any) (?:answer|idea|information))\b"
    r"|\bno idea\b|\bas an ai\b|\bunable to (?:help|assist|comply|answer)\b|\bnot able to (?:help|assist|answer)\b"
    r"|我(?:无法|不能|没法|不会)(?:帮|回答|提供|完成|协助|满足)|抱歉|对不起|我不知道|不清楚"
    r"|申し訳(?:ありません|ございません)|(?:お手伝い|お答え|回答)(?:でき|いたしかね)|わかりません|分かりません|存じません"
    r"|ขอโทษ|ขออภัย|ไม่สามารถ(?:ช่วย|ตอบ|ให้)|ไม่ทราบ|ไม่รู้"
)
_SENTENCE_END_RE = re.compile(r"[.!?\n\u3002\uff01\uff1f]+")


# Every alternative of _REFUSAL_RE contains one of these: substring tests are far cheaper than
# trying the alternation at every position of a text without any.
_REFUSAL_TRIGGERS = (
    "sorry", "afraid", "apologi", "cannot", "can't", "can not", "won't", "will not", "unable", "not able",
    "not allowed", "decline", "refuse", "know", "idea", "as an ai", "抱歉", "对不起", "我无法", "我不能",
    "我没法", "我不会", "不清楚", "申し訳", "でき", "いたしかね", "わかりません", "分かりません", "存じません",
    "ขอโทษ", "ขออภัย", "ไม่สามารถ", "ไม่ทราบ", "ไม่รู้",
)  # fmt: skip


def without_refusal_sentences(response: str) -> str | None:
    """``response`` without its refusal sentences; None when it has none (the guard's ``v1``
    refusal rule, ``guard.content_rejection``: English, Chinese, Japanese and Thai sentences)."""
    folded = response.casefold().replace("\u2019", "'").replace("\u2018", "'")
    if not any(t in folded for t in _REFUSAL_TRIGGERS) or not _REFUSAL_RE.search(folded):
        return None
    kept = [s for s in _SENTENCE_END_RE.split(folded) if not _REFUSAL_RE.search(s)]
    return " ".join(kept)
