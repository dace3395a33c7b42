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

from rlvr_ifeval.base import Checker
from rlvr_ifeval.relevance import FUNCTION_WORDS, TASK_STOP_WORDS, units

MAX_NEW_UNITS = 2
"""A sentence with request talk is a restatement when it brings at most this many units of its
own (beyond the prompt's, the talk and the word lists): "regarding", "composition"."""
MAX_READ_CHARS = 20_000
"""Restatements are sought in the response's first characters only (they open or close a short
answer; a long one is judged by the overlap rules whatever it says at its end)."""

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
REQUEST_TALK = re.compile(r"(?<!\w)(?:" + "|".join(_TALK) + r")(?!\w)", re.IGNORECASE)
"""Phrases that talk about the request, the answer or the requester (not about a topic)."""

_SENTENCE = re.compile(r"[^.!?;\n。！？]+[.!?;。！？]*")  # a label and what follows it on its line are one
_GENERIC = TASK_STOP_WORDS | FUNCTION_WORDS


@lru_cache(maxsize=4096)
def _prompt_units(prompt: str) -> frozenset[str]:
    return frozenset(units(prompt[:MAX_READ_CHARS]))


def restated_spans(prompt: str, response: str, checkers: Sequence[Checker] = ()) -> list[tuple[int, int]]:
    """The spans of ``response`` (its first ``MAX_READ_CHARS`` characters) that are sentences
    talking about the request and adding at most ``MAX_NEW_UNITS`` units of their own (module
    docstring). None where an instruction allows a short answer (a fixed phrase, an option)."""
    head = response[:MAX_READ_CHARS]
    if not REQUEST_TALK.search(head) or any(c.allows_short_answer() for c in checkers):
        return []
    mine = _prompt_units(prompt)
    spans = []
    for match in _SENTENCE.finditer(head):
        sentence = match.group()
        rest, talk = REQUEST_TALK.subn(" ", sentence)
        if not talk:
            continue
        found = units(rest, _GENERIC)
        # Talk that names the task frames it, whatever it adds ("a thoughtful, lovingly prepared
        # piece on <topic>"); talk that names nothing of it is a restatement only when it adds little.
        if len(found - mine) <= MAX_NEW_UNITS or not found.isdisjoint(mine):
            spans.append(match.span())
    return spans


def new_units(prompt: str, text: str) -> frozenset[str]:
    """The units ``text`` brings of its own: not the prompt's, not in the word lists of words no
    answer is made of (stop, request, form and function words), not talk about the request."""
    rest = REQUEST_TALK.sub(" ", text[:MAX_READ_CHARS])
    return frozenset(units(rest, _GENERIC) - _prompt_units(prompt))
