"""The request said back is no answer (issue 26, round 9: ``relevance_paste=5``).

Round 8 took copies of the prompt out of a response (runs of five of its words). A policy then
says the request back in its own words: "You would like me to compose a piece regarding <topic>.
Gladly." before an essay on anything, "Here is what you asked about <topic>. I hope it helps." as
the whole answer, the same in French or Spanish. Such a sentence is talk about the request: a
closed vocabulary (``REQUEST_TALK``: "you asked", "as requested", "here is", "I hope it helps",
"vous m'avez demandé", "voici", "aquí tienes", "hier ist" ...) and, past that talk, nothing but
the prompt's own words and words no answer is made of (stop, request, form and function words).

``restated_spans`` finds those sentences; ``own_text`` takes them out (``RESTATED``) and the
relevance rules judge what is left: an essay on something else after it shares nothing with the
prompt, and a response that was nothing but such talk has nothing left. A sentence that talks
about the request and brings its own material ("Here is a haiku about cherry blossoms falling on
Kyoto's river") adds more than ``MAX_NEW_UNITS`` units and stays.

What no lexical rule sees stays for the judge (``relevance="judge"``): a topic sentence without
request talk ("<Topic> is important.") before an essay on something else is how honest answers
open too (a title, then a body in its own words: 15 of 313 long labelled-good answers name their
prompt's words in one sentence only).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise

from rlvr_ifeval.base import Checker
from rlvr_ifeval.relevance import FUNCTION_WORDS, TASK_STOP_WORDS, units

MAX_NEW_UNITS = 2
"""A sentence with request talk is a restatement when it brings at most this many units of its
own (beyond the prompt's, the talk and the word lists): "regarding", "composition"."""
MAX_READ_CHARS = 20_000
"""What ``new_units`` reads of a text."""
HEAD_CHARS = 1_200
TAIL_CHARS = 600
"""Restatements are sought where they frame an answer: its first ``HEAD_CHARS`` and last
``TAIL_CHARS`` characters (one sentence of a long text's middle that names the topic is the
"topic sentence" class, which no lexical rule separates from an honest answer's title)."""

# Talk about the request, the answer or the requester, in the languages the word lists cover. Each
# alternative is a phrase (never a single common word): "here is", not "here".
_TALK = [
    # English
    r"(?:you|u)(?:'ve| have| had)? (?:just )?(?:asked|requested|wanted|wished|needed|wanted|said|told me)",
    r"(?:you|u)(?: would|'d) (?:like|love|want)",
    r"(?:you|u) (?:wanted|wished|needed)|(?:you|u) (?:want|wish|need) me to",
    r"(?:as|like) (?:you )?(?:requested|asked|wished|desired|instructed|specified|promised|ordered)",
    r"your (?:request|prompt|instructions?|brief|question|assignment|task|order|wish)|the (?:request|prompt|brief)",
    r"(?:here|below|above)(?: is|'s| are| you go| goes| it is| they are)(?! to\b)",  # (not a toast)
    r"(?:the )?following (?:is|are)",
    r"i (?:hope|trust) (?:this|that|it) (?:helps?|is|was|works|serves)",
    r"(?:let|tell) me know",
    r"(?:happy|glad|pleased) to (?:help|oblige|assist)",
    r"(?:i|i've|i have|i'll|i will) (?:wrote|written|write|composed|compose|prepared|prepare|put together"
    r"|drafted|crafted|made|done)",
    r"(?:that|this|it) (?:was|is) (?:my|the) (?:answer|response|reply|attempt|take)",
    r"(?:as|per) (?:requested|asked|required|instructed)",
    r"on (?:request|demand)",
    r"(?:gladly|certainly|of course|sure thing|no problem|absolutely|with pleasure)(?=\W*$)",
    r"(?:anything|something) else",
    # French
    r"(?:vous|tu) m'?\s?(?:avez|as) (?:demandé|demande|prié)",
    r"(?:voici|voilà|voila|ci-dessous)",
    r"comme (?:demandé|demande|convenu|souhaité)",
    r"(?:votre|ta) (?:demande|requête|question)",
    r"j'espère que (?:cela|ça|ceci)",
    # Spanish / Portuguese / Italian
    r"me (?:pediste|pidió|ha pedido|has pedido|pediu|pediram|hai chiesto|ha chiesto)",
    r"(?:aquí|aqui) (?:está|tienes|tiene|estão|van|va)",
    r"(?:como|conforme|come) (?:pediste|pediu|solicitaste|solicitado|pedido|richiesto|chiesto)",
    r"(?:tu|su|sua|seu|la tua) (?:solicitud|petición|pedido|solicitação|richiesta)",
    r"espero que (?:esto|isto|te|le)",
    r"ecco",
    # German / Dutch
    r"(?:du hast|sie haben|ihr habt) (?:mich )?(?:\w+ )?(?:gebeten|gefragt|gewünscht|verlangt)",
    r"hier (?:ist|sind|is|zijn|kommt)",
    r"wie (?:gewünscht|gewuenscht|gefordert|verlangt)",
    r"(?:deine|ihre|jouw|uw) (?:anfrage|bitte|vraag|verzoek)",
    r"je (?:vroeg|vroeg me)",
    # Russian
    r"(?:вы|ты) (?:просили|просил|просила|хотели|хотел)",
    r"(?:вот|ниже)",
    r"по (?:вашей|твоей) просьбе",
]
REQUEST_TALK = re.compile(r"(?<!\w)(?:" + "|".join(_TALK) + r")(?!\w)")
"""Phrases that talk about the request, the answer or the requester (not about a topic), matched
on lowercase text (``str.lower`` keeps lengths: spans stay the response's; IGNORECASE would make
each character's test slower)."""

_SENTENCE = re.compile(r"[^.!?;\n。！？]+[.!?;。！？]*")  # a label and what follows it on its line are one
_GENERIC = TASK_STOP_WORDS | FUNCTION_WORDS


@lru_cache(maxsize=4096)
def _prompt_units(prompt: str) -> frozenset[str]:
    return frozenset(units(prompt[:MAX_READ_CHARS]))


def restated_spans(prompt: str, response: str, checkers: Sequence[Checker] = ()) -> list[tuple[int, int]]:
    """The spans of ``response`` (in its first ``HEAD_CHARS`` and last ``TAIL_CHARS`` characters)
    that are sentences talking about the request and adding at most ``MAX_NEW_UNITS`` units of their own (module
    docstring). None where an instruction allows a short answer (a fixed phrase, an option)."""
    if any(c.allows_short_answer() for c in checkers):
        return []
    spans: list[tuple[int, int]] = []
    if len(response) <= HEAD_CHARS + TAIL_CHARS:
        _restated(prompt, response, 0, spans)
    else:
        _restated(prompt, response[:HEAD_CHARS], 0, spans)
        _restated(prompt, response[-TAIL_CHARS:], len(response) - TAIL_CHARS, spans)
    return spans


# A cheap test first: every phrase of ``_TALK`` holds one of these words or word pairs (checked by
# tests/ifeval/test_ifeval_redteam_round9.py over samples of each phrase), found with set lookups
# in C; the talk pattern itself (some forty phrases, ~0.2 us a character) runs only on texts that
# hold one.
_KEY_WORDS = frozenset(
    """
    asked requested wanted wished needed told desired specified promised instructed required ordered hope
    trust gladly certainly absolutely pleasure request prompt brief assignment instruction instructions
    demand here's voici voilà voila ci-dessous demandé demande prié convenu souhaité requête j'espère
    pediste pidió pedido pediu pediram chiesto richiesto solicitaste solicitado solicitud petición
    solicitação richiesta espero ecco aquí aqui gebeten gefragt gewünscht gewuenscht verlangt gefordert
    anfrage vraag verzoek vroeg просили просил просила хотели хотел вот ниже просьбе
    """.split()
)
_PAIRS = (
    ("here below above", "is are you goes it they"),
    ("following", "is are"),
    ("me", "know"),
    ("to", "help oblige assist"),
    ("i i've have i'll will", "wrote written write composed compose prepared prepare put drafted crafted made done"),
    ("my the", "answer response reply attempt take"),
    ("of sure no", "course thing problem"),
    ("anything something", "else"),
    ("would you'd", "like love want"),
    ("want wish need", "me"),
    ("your", "question task order wish"),
    ("you", "said"),
    ("votre ta", "question"),
    ("hier", "ist sind is zijn kommt"),
    ("deine ihre jouw uw", "bitte"),
)
_KEY_PAIRS = frozenset((a, b) for firsts, seconds in _PAIRS for a in firsts.split() for b in seconds.split())
_PUNCTUATION = str.maketrans(
    dict.fromkeys('!"#$%&()*+,./:;<=>?@[\\]^_`{|}~', " ")
    | dict.fromkeys(
        "\u201c\u201d\u2018\u00ab\u00bb\u2014\u2013\u2026\u00a1\u00bf\u3002\uff01\uff1f\u3001\uff0c\uff1a", " "
    )
    | {"\u2019": "'"}
)

_ASCII_PUNCTUATION = bytes(32 if chr(c) in '!"#$%&()*+,./:;<=>?@[\\]^_`{|}~' else c for c in range(256))


def _talk_words(lowered: str) -> list[str]:
    """The words ``may_talk`` reads: punctuation read as spaces, split at whitespace."""
    if lowered.isascii():  # bytes.translate is a table lookup in C, str.translate with a dict is not
        return lowered.encode().translate(_ASCII_PUNCTUATION).decode().split()
    return lowered.translate(_PUNCTUATION).split()


def may_talk(lowered: str) -> bool:
    """Whether lowercase ``lowered`` may hold request talk (a superset of ``REQUEST_TALK``'s hits)."""
    words = _talk_words(lowered)
    return not _KEY_WORDS.isdisjoint(words) or not _KEY_PAIRS.isdisjoint(pairwise(words))


ROUND_11 = True
"""Round 11's sentence probes (``talk_probes``); ``bench/_ifeval_speed_off.py`` turns them off to
time ``may_talk`` read afresh on every sentence, the same spans."""


def talk_probes(lowered: str) -> tuple[str, ...] | None:
    """None when ``may_talk(lowered)`` is False; else strings one of which every part of
    ``lowered`` that ``may_talk`` accepts holds. A sentence's words are a run of its window's
    (``_SENTENCE`` cuts only where these words are cut: at punctuation and line ends), so its key
    words and key pairs are among the window's: a sentence without the text of any (up to an
    apostrophe, which ``’`` may have been in the sentence) cannot talk, and is skipped by a
    substring search in C instead of being split into words (14 sentences a window, 15 us)."""
    words = _talk_words(lowered)
    keys = set(_KEY_WORDS.intersection(words))
    keys.update(a for a, _ in _KEY_PAIRS.intersection(pairwise(words)))
    if not keys:
        return None
    probes = {key.split("'")[0] for key in keys}
    return ("",) if "" in probes else tuple(sorted(probes))  # ("": a key opens with "'", every text holds it)


def _restated(prompt: str, window: str, offset: int, spans: list[tuple[int, int]]) -> None:
    """Adds to ``spans`` the restatements in ``window`` (which starts at ``offset``)."""
    lowered = window.lower()
    if len(lowered) != len(window):  # (a few letters lengthen when lowered: read as is)
        lowered = window
    probes = talk_probes(lowered) if ROUND_11 else ("",) if may_talk(lowered) else None
    if probes is None:
        return
    mine: frozenset[str] | None = None
    for match in _SENTENCE.finditer(lowered):
        sentence = match.group()
        if not any(probe in sentence for probe in probes) or not may_talk(sentence):
            continue
        rest, talk = REQUEST_TALK.subn(" ", sentence)
        if not talk:
            continue
        mine = _prompt_units(prompt) if mine is None else mine
        start, end = match.span()
        found = units(rest, _GENERIC)
        # Talk that names the task frames it, whatever it adds ("a thoughtful, lovingly prepared
        # piece on <topic>"); talk that names nothing of it is a restatement only when it adds little.
        if len(found - mine) <= MAX_NEW_UNITS or not found.isdisjoint(mine):
            spans.append((offset + start, offset + end))


def new_units(prompt: str, text: str) -> frozenset[str]:
    """The units ``text`` brings of its own: not the prompt's, not in the word lists of words no
    answer is made of (stop, request, form and function words), not talk about the request."""
    rest = REQUEST_TALK.sub(" ", text[:MAX_READ_CHARS].lower())
    return frozenset(units(rest, _GENERIC) - _prompt_units(prompt))
