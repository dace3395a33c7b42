"""Round 11: a remark after the answer of any length is read for doubt, not skipped for its length.

Round 10 judged a remark word by word only when it was short (``tail_remarks.MAX_*_WORDS``), and left a longer one
to the hedge lexicon, which matches whole phrases ("not sure", "I think"). A long remark that qualifies the answer
in words the phrases lack was paid: ``\\boxed{3} (this is only my rough guess and I have not checked any of it)``,
``(ceci est seulement une estimation grossière que je n'ai pas vérifiée)``, ``— though I might have made an
arithmetic slip``. Here the unit is the word, not the phrase: a remark set off right after the answer refuses when
ANY of its words is one of doubt (a guess, an estimate, a rough value, a slip), or a check word is negated within a
few words ("not checked", "nicht überprüft", "pas vérifiée", "no he verificado", "没有检查", "確認していません",
"확인하지 않았"), whatever the remark's length, in en, de, fr, es, zh, ja, ko (it, pt too).

What an explanation says about mathematics ("the possible values", "equally likely", "a common mistake is ...",
"approximately 3.14" after an exact answer) is not doubt about the answer: those words are not here. Words are
matched as stems at word starts (Latin scripts) or as substrings (CJK, Hangul). Linear in the text; never raises.
"""

from __future__ import annotations

import re

from rlvr_envs.tail_stance import attributed, settled
from rlvr_envs.tail_words import readable

# Stems that, in a remark right after an answer, can only be doubt about it.
_DOUBT_WORDS = (
    r"guess\w*|estimat\w*|rough(?:ly)?|ballpark|unsure|uncertain\w*|unverified|unchecked|unconfirmed|unproven|untested"
    r"|tentative\w*|provisional\w*|preliminary|doubt\w*|dubious|hunch|gut\s+feeling"
    r"|(?:might|may|could)\s+(?:well\s+)?(?:be\s+(?:wrong|off|incorrect|mistaken|different)|have\s+(?:made|gotten|got|mis\w+|slipped))"
    r"|made\s+(?:an?\s+)?(?:\w+\s+)?(?:mistake|error|slip)|slip\w*|mistaken|miscount\w*|miscalculat\w*"
    # de
    r"|schätz\w*|geschätzt\w*|grob\w*|ungefähr\w*|geraten|unsicher\w*|zweifel\w*|irre\s+mich|geirrt|verrechnet|ohne\s+gewähr|könnte\s+(?:\w+\s+)?falsch"
    # fr
    r"|estimation\w*|grossi[eè]re?\w*|devin\w*|incertain\w*|tromp\w*|à\s+peu\s+près|approximative\w*"
    # es, it, pt
    r"|estimaci\w*|aproximad\w*|adivin\w*|insegur\w*|equivoc\w*|stima\w*|estimativ\w*"
)
# The writer's stance (a modal adverb, a first-person belief): doubt inside a remark set off right after the answer
# or in its lead-in; in a later sentence of its own it may be about something else ("Maybe next time ...").
_STANCE_WORDS = (
    r"perhaps|maybe|probabl[ey]|presumabl[ey]|i\s+suspect"
    r"|(?:not|nicht|pas|no|non)\s+(?:\w+\s+)?(?:sure|certain|confident|sicher|sûre?|segur[oa]|sicur[oa])"
    r"|vermut\w*|vielleicht|wahrscheinlich|möglicherweise|eventuell"
    r"|peut[-\s]être|probablement|hypoth[eè]se|quizás?|tal\s+vez|probablemente"
    r"|suposici\w*|supongo|forse|talvez|provavelmente"
)
# A first-person belief: after the answer it hedges it ("\\boxed{3}, I think."), but leading into it, it is how
# people state an answer ("I think the answer is \\boxed{3}", "Je pense que la réponse est ...", "Creo que ...",
# "I feel confident the answer is ..."): not read in a lead-in (``doubted_before``).
_BELIEF_WORDS = r"i\s+(?:think|believe|suppose|reckon|feel)|je\s+(?:pense|crois|suppose)|creo\s+que"
_NEGATOR = (
    r"not|\w*n't|never|no|without|nicht|nie|noch\s+nicht|kein\w*|ohne|pas|jamais|sans|nunca|sin|todavía\s+no|aún\s+no"
    r"|non|mai|não"
)
_CHECK = (
    r"(?:double[-\s]?)?check\w*|verif\w*|confirm\w*|prov\w*|test\w*|validat\w*|review\w*"
    r"|geprüft|überprüft|nachgerechnet|nachgeprüft|kontrolliert|bestätigt|vérifi\w*|contrôl\w*"
    r"|comprob\w*|revis\w*|controllat\w*"
)
# "No further verification is needed.": a check said to be unneeded is no doubt.
_UNNEEDED = r"(?!\s+(?:is\s+|was\s+|are\s+)?(?:needed|required|necessary|nötig|nécessaire|necesari[oa]))"
_STANCE = re.compile(r"(?<![\w'])(?:" + _STANCE_WORDS + "|" + _BELIEF_WORDS + r")(?![\w'])", re.IGNORECASE)
_STANCE_NO_BELIEF = re.compile(r"(?<![\w'])(?:" + _STANCE_WORDS + r")(?![\w'])", re.IGNORECASE)
_LATIN = re.compile(
    r"(?<![\w'])(?:" + _DOUBT_WORDS + r")(?![\w'])"
    r"|(?<![\w'])(?:" + _NEGATOR + r")(?![\w'])(?:\s+[\w'-]+){0,3}?\s+(?:" + _CHECK + r")(?![\w'])" + _UNNEEDED,
    re.IGNORECASE,
)
# CJK and Hangul: no spaces between words, so substrings; each is doubt or a negated check.
_CJK = re.compile(
    "猜|估计|估算|估的|大概|大约|可能|也许|或许|不确定|不太确定|没有把握|不一定|好像|似乎|粗略|没有检查|没检查|未检查|未经检查"
    "|没有验证|没验证|未验证|未经验证|未核实|没核实|待验证|待检查|待确认|算错|错了"
    "|推測|推定|概算|大まか|大体|だいたい|たぶん|多分|かもしれ|確認して(?:い)?ません|確認していない|未確認|未検証"
    "|検証して(?:い)?(?:ません|ない)|自信(?:が|は)?(?:ない|ありません)|間違って(?:いる|る)?かも|おそらく|恐らく|不確か|と思います|気がします"
    "|추측|대략|아마|확인하지\\s*않|확인\\s*안|미확인|검증하지\\s*않|틀릴\\s*수|틀렸을|확실하지\\s*않|모르겠|것\\s*같|추정|어림"
)


# Speed (the verifier reads every lead-in): the regexes above run only when a word of the text starts with one of
# the stems they hold or is a word their phrases start with. A superset test: it never decides a refusal itself.
_STEMS = tuple(
    """guess estimat rough unsure uncertain unverified unchecked unconfirmed unproven untested tentative
    provisional preliminary doubt dubious hunch slip mistaken miscount miscalculat perhaps maybe
    schätz geschätzt grob ungefähr geraten unsicher geirrt verrechnet vermut vielleicht wahrscheinlich
    möglicherweise grossi devin incertain tromp aproximad adivin insegur stima suposici supongo forse talvez
    check verif confirm prov test validat review geprüft überprüft kontrolliert vérifi revis""".split()
)
# Words whose first four letters begin words of mathematics ("probability", "hypotenuse", "even", "balls",
# "equivalent", "approach", "continuity", "compute", "zwei"): looked up whole.
_WHOLE = """ballpark probably probable presumably presumable eventuell hypothèse approximative approximatif quizá quizás
    equivocado equivocada equivoqué zweifel zweifelhaft zweifle probablement probablemente provavelmente
    contrôlé contrôlée comprobado comprobada comprobé bestätigt nachgerechnet nachgeprüft controllato controllata"""
# Words the phrases hold that no stem covers: a stance phrase's verb, a slip's "wrong" or "made", a stance's "sure"
# (the negators and modal verbs are everywhere in mathematics: "no", "may", "$i$").
_TRIGGERS = frozenset(
    (
        _WHOLE
        + """ think believe suppose reckon feel suspect feeling irre gewähr falsch près pense crois vez creo
        peut wrong incorrect made gotten off sure certain confident sicher sûr sûre seguro segura sicuro sicura"""
    ).split()
)
_PREFIXES = frozenset(stem[:4] for stem in _STEMS)  # every stem has at least four letters
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def _may_doubt(text: str, reformatted: bool = False) -> bool:
    # set operations on the words (C loops): a word that is a trigger, or whose first four letters begin a stem.
    # ``reformatted``: also true where ``readable`` may join or reveal words (formatting marks, three or more lone
    # letters: "g u e s s"), so the caller reads the text as a reader sees it before deciding.
    low = text.casefold()
    if "n't" in low:
        return True
    words = _WORD.findall(low)
    unique = set(words)
    if not unique.isdisjoint(_TRIGGERS) or not {w[:4] for w in unique}.isdisjoint(_PREFIXES):
        return True
    if not reformatted:
        return False
    if not _FORMAT_MARKS.isdisjoint(text):
        return True
    return sum(len(w) == 1 for w in words) >= 3 and _SPACED.search(text) is not None


_SPACED = re.compile(r"(?<!\S)(?:[^\W\d_] ){2,}[^\W\d_](?!\S)")
_FORMAT_MARKS = frozenset("*&`<")  # marks that can split one word ("r**ough**", "gu&#101;ss", "gu<b></b>ess")


def doubting(text: str, known: frozenset[str] = frozenset(), stance: bool = True, belief: bool = True) -> str | None:
    """The first word of doubt about the answer in ``text`` (a remark right after it), or None. ``known``: lower-cased
    words of the task that vouch for themselves (a task that asks for an estimate is answered with one). ``stance``:
    read the writer's stance too ("maybe", "I think"); off for a later sentence of its own. ``belief``: a first-person
    belief ("I think") counts as stance; off in a lead-in, where it states the answer."""
    if not isinstance(text, str) or not text:
        return None
    if text.isascii() and not _may_doubt(text):
        return None  # the common case: no word of the lexicon's stems or phrases (word lookups, not the regexes)
    stances = (_STANCE if belief else _STANCE_NO_BELIEF).finditer(text) if stance else ()
    for found in (*_LATIN.finditer(text), *stances):
        if found.group(0).casefold() not in known:
            return found.group(0).strip()
    if not text.isascii():
        for found in _CJK.finditer(text):
            if not any(found.group(0) in k for k in known if len(k) > 1):
                return found.group(0).strip()
    return None


LEAD_IN_CHARS = 160
"""How far before an answer its lead-in is read (the start of its sentence or line, or the label line above it)."""
# Where a lead-in starts: a sentence end (not a decimal point or an abbreviation's dot) or a line break.
_LEAD_START = re.compile(r"(?<!\d)[.](?![\d\w])|[!?。！？]|\n")


_BREAKS = str.maketrans(dict.fromkeys(".!?。！？", "\n"))
_LABEL_WORDS = 6
"""A line above the answer of at most this many words is its label."""
_BARE_LEAD = re.compile(r"[\s$*_({\[]*(?:\\(?:boxed|fbox)\s*\{)?[\s$*_({\[]*")


# What the reader sees struck out is not read ("\\sout{an old guess} \\boxed{4}").
_STRUCK = re.compile(
    r"\\(?:sout|st|cancel|bcancel|xcancel|xout|strike|hcancel)\s*\{[^{}]*\}|~~[^~]*~~|<(s|del|strike)>.*?</\1\s*>",
    re.IGNORECASE | re.DOTALL,
)


def doubted_before(before: str, known: frozenset[str] = frozenset()) -> str | None:
    """Doubt in the answer's lead-in (round 11): "My rough guess: \\boxed{3}", "Not verified — \\boxed{3}",
    "未验证：\\boxed{3}", or a label line of its own above it ("Rough estimate:\\n\\boxed{3}"); None otherwise."""
    if not isinstance(before, str) or not before.strip():
        return None
    raw = settled(before[-LEAD_IN_CHARS:])  # round 12: "No doubt, the answer is" states it
    # Speed: what can be read is at most the last two sentences or lines (the lead-in and a label above it); C-level
    # searches find them, and nothing more is done unless a word there could be doubt.
    breaks = raw.translate(_BREAKS)
    pos, found = len(raw), 0
    while found < 2 and pos > 0:  # back over the last two sentences or lines with words, blank lines skipped
        prev = breaks.rfind("\n", 0, pos)
        found += bool(raw[prev + 1 : pos].strip())
        pos = prev
    window = raw[pos + 1 :] if pos > 0 else raw
    other = attributed(window)  # round 12: "My friend claims \boxed{3}": someone else's answer, not the writer's
    if other is not None:
        return other
    if window.isascii() and not (_may_doubt(window, reformatted=True) and _may_doubt(readable(window))):
        return None
    tail = _STRUCK.sub(" ", readable(raw))  # "g u e s s:", "Rough~estimate:", "r**ough**" as a reader sees them
    starts = [m.end() for m in _LEAD_START.finditer(tail)]
    lead = tail[starts[-1] :] if starts else tail
    if _BARE_LEAD.fullmatch(lead) and starts and tail[starts[-1] - 1] == "\n":
        # the answer opens its line: the nearest line above with words is its label when it reads as one (ends in a
        # colon, is a heading or a quote, or is a few words: "Rough estimate:", "### Rough estimate", "> Unverified")
        above = [line for line in tail[: starts[-1]].split("\n") if line.strip()]
        lead = above[-1] if above else ""
        if not (
            lead.rstrip(" \t*_$").endswith((":", "："))
            or lead.lstrip().startswith(("#", ">"))
            or len(lead.split()) <= _LABEL_WORDS
        ):
            return None  # the line above is a sentence of its own, not the answer's label
    return doubting(lead, known, belief=False)
