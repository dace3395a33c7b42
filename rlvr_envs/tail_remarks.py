"""Round 10: a short remark right after the final answer must be a harmless kind, or it qualifies the answer.

Round 9 read what a remark SAYS (hedges, conditions, "up to sign" in a lexicon per language), so every remark
the lexicon lacked was paid: ``\\boxed{3} (needs checking)``, ``(excluding zero)``, ``（需要检查）``,
``(확인 필요)``, ``, to be verified``. This module turns the reading around for the short ones: a remark set off
right after the answer (in brackets, after a comma, semicolon, colon or dash, or run on with no mark) is read
word by word, and every word must be one that cannot qualify an answer:

* a label or a form of the answer ("final answer", "exact", "in simplest form", "respectively", "QED", the
  answer's own words, number words), in the languages the project claims (en, zh, ja, ko, de, fr, es; it, pt, ru
  labels too);
* a unit or a word of the task (``known``, ``stands``: math passes its units and the prompt's words, so
  "(to the nearest dollar)" on a task that asks for it stands);
* one letter (a variable, a choice).

Anything else in it (``needs``, ``excluding``, ``order``, ``unverified``, ``待验证``) qualifies the answer and is
refused. Longer remarks (an explanation, a relative clause of several words) are left to the lexicon readings and
to ``tail_words.unread_language``; a remark of more words than ``MAX_*_WORDS`` is not judged here.

Linear in the sentence read (at most ``READ_CHARS``); never raises on any ``str``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rlvr_envs.tail_doubt import doubting
from rlvr_envs.tail_words import _FUNCTION_WORDS, LATEX_COMMAND, LETTER_RUN, MARKUP
from rlvr_envs.tail_words import undotted as _undotted

READ_CHARS = 240
MAX_BRACKET_WORDS = 8
"""A bracketed remark of up to this many words is judged word by word (a longer one is an explanation:
MATH-500's "(Note that this is a maximum value, and not a minimum value ...)")."""
MAX_SET_OFF_WORDS = 6
"""A remark after a comma, semicolon, colon or dash of up to this many words to its sentence's end is judged."""
MAX_RUN_ON_WORDS = 4
"""A remark run on after the answer with no mark (``\\boxed{3} excluding zero``) of up to this many words is judged
when its first word is not one a worked solution continues with (a unit, the task's word, "is", "with", "more"), in
English only when it opens with a verb form, and when no word of it names what was counted (a unit, a task word)."""

_HARMLESS_TEXT = """
the a an this that these it its is are was our my final answer answers ans result results value values solution
solutions total exact exactly checked simplified simplest simplify reduced lowest terms form radical standard common
fraction fractions decimal notation interval set in as of units unit square cubic sq qed done boxed ie dh ok correct
verified confirmed indeed respectively altogether overall together sum product number numbers integer integers whole
count ways way choice option letter ordered pair pairs triple tuple coordinates point degrees degree radians radian
percent expression required desired expected claimed shown see above computed obtained asked wanted stated given
which such independent prime perfect positive negative even odd real rational irrational natural
nearest dollars dollar cents cent hours minutes seconds days weeks years miles feet inches meters cm km kg mm ml lb
lbs oz ft yd mi mph sec min hr hrs money cost price people person items item marbles balls coins cards students
cqfd wzbw mod modulo or equivalently namely i e other words rounded to places place decimal significant figures digits
confirming confirms computation calculation showed proved proven derived rotation rotations reflection
reflections symmetry symmetries isomorphism isomorphisms order ordering permutation permutations relabeling
congruence similarity translation translations equivalence conjugation
die der das ist sind endgültige endgültig antwort ergebnis lösung genau exakt vereinfacht gekürzt form einheiten
insgesamt gesamt wie gefordert gesucht richtig also
la le les est réponse finale final résultat solution exacte exactement simplifiée simplifié forme irréductible unités
au total en tout comme demandé correcte
el es respuesta resultado solución exacto exacta exactamente simplificado simplificada forma unidades como pedido
correcto correcta
risposta finale risultato esatto resposta exato ответ окончательный итог
"""
_HARMLESS = frozenset(_HARMLESS_TEXT.split())
_NUMBER_WORDS = {
    w: str(i % 13)
    for words in (
        "zero one two three four five six seven eight nine ten eleven twelve",
        "null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf",  # de
        "zéro un deux trois quatre cinq six sept huit neuf dix onze douze",  # fr
        "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce",  # es
    )
    for i, w in enumerate(words.split())
} | {"une": "1", "ein": "1", "eine": "1", "una": "1"}
_CJK_NUMERALS = {w: str(i) for i, w in enumerate("零一二三四五六七八九十")} | {"〇": "0", "两": "2", "兩": "2"}
"""A number word in a remark restates the answer only when the answer is that number ("\\boxed{3} (three)");
any other is a second value ("(four)")."""
# The same in scripts without spaces: removed as substrings; what is left of a CJK run must be empty.
_HARMLESS_CJK = re.compile(
    "最终答案|最終答案|答案|最终|最終|最后|最後|结果|結果|即|是|的|为|為|精确值|精確值|精确|精確|准确|化简后|化簡後|化简|化簡|最简|最簡"
    "|单位|單位|总共|總共|共计|答え|解答|正確|単位|です|である|合計|値|值|정답|답|최종|결과|단위|입니다|합계|값|은|는|이|가|の|は"
)
_CJK_RUN = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")
_NOT_A_VALUE = re.compile(
    r"(?<![\w'])(?:not|nicht|pas|non|no)\s+(?=[-+$\\\d])|不是(?=[-+$\\\d])|(?<![\w'])(?:not|nicht|non|no)\s+"
    r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?![\w'])",
    re.IGNORECASE,
)
# Round 12: a remark that the answer checks out is no qualification ("\\boxed{3}, which checks out.", ", which
# matches.", ", consistent with the check above.", ", ce qui se vérifie.", ", was die Probe bestätigt.", ", lo cual se
# comprueba fácilmente."); a negated one keeps its negation word, which no list vouches for ("does not match").
_CONFIRMING = re.compile(
    r"(?<![\w'])(?:(?:checks?|checked|checking)\s+out|(?:match(?:es|ed)?|agrees?|agreed|(?:is\s+)?consistent)"
    r"(?:\s+with\s+(?:the\s+|our\s+|my\s+|this\s+|that\s+|all\s+|every\s+)?(?:checks?|results?|computations?"
    r"|calculations?|work|answer|data|conditions?|constraints?|equations?|problem|above|earlier)(?:\s+above)?)?"
    r"|(?:was|wie)\s+(?:die\s+)?probe\s+(?:bestätigt|zeigt)|stimmt(?:\s+überein)?"
    r"|ce\s+qui\s+(?:se\s+vérifie|est\s+cohérent|concorde)(?:\s+(?:facilement|bien))?"
    r"|lo\s+(?:cual|que)\s+(?:se\s+comprueba|concuerda|es\s+consistente)(?:\s+fácilmente)?)(?![\w'])",
    re.IGNORECASE,
)
# "(rounded to two decimals)": a number word counting the digits of a precision is no second value.
_PRECISION = re.compile(
    r"(?<![\w'])(?:one|two|three|four|five|six|zwei|drei|vier|deux|trois|quatre|dos|tres|cuatro)\s+"
    r"(?=(?:decimal|significant|sig\.?\s+fig|places?|digits?|figures?|nachkommastellen|stellen|dezimal|décimal|chiffres"
    r"|decimal|cifras))",
    re.IGNORECASE,
)
_ORDER_PHRASE = re.compile(r"(?<![\w'])in\s+(?:that|this|the\s+given|the\s+same)\s+order(?![\w'])", re.IGNORECASE)
# A run-on remark is judged only when it does not begin as a worked solution's continuation does.
_CONTINUES = frozenset(
    """is are was were be equals equal with without more less fewer than as for of in on at to and so which that
    by per from each when where because since while after before left over total altogether has have had""".split()
)
# An English run-on that acts on the answer opens with a verb form ("excluding", "needs", "unverified", "to be"):
# one that opens with an adjective or a noun names what was counted.
_VERB_LIKE = re.compile(
    r"(?:ing|ed|en)$|^(?:needs?|requires?|pending|subject|awaiting|to|not|un[a-z]+|tentative\w*|except|save|bar|minus|plus)$"
)
_BECAUSE = re.compile(
    r"(since|because|da|weil|denn|car|puisque|porque|ya\s+que|perché|poiché|так\s+как|因为|因為|由于|由於|なぜなら|왜냐하면)"
    r"(?![\w'])|(?:as|for|when|where|which|so|hence|thus|wenn|wobei|quand|lorsque|cuando|donde)(?![\w'])",
    re.IGNORECASE,
)
_OR = re.compile(r"(?:or|oder|ou|o|oppure|или|或者|或|または|또는)(?![\w'])", re.IGNORECASE)
# "(die Donau in German)": the answer glossed in a language; the gloss's names are read as names.
_GLOSS = re.compile(
    r"(?<![\w'])(?:in|auf|en|em)\s+(?:english|german|deutsch|french|français|spanish|español|chinese|japanese|korean"
    r"|italian|portuguese|russian|englisch|anglais|inglés)(?![\w'])",
    re.IGNORECASE,
)
_LEAD = re.compile(r"[\s$)\]}*_]*(?:\\(?:quad|qquad|[,;: ])\s*)*")
_BRACKETS = {"(": ")", "[": "]", "（": "）", "【": "】", "［": "］"}
_SET_OFF = re.compile(r"(?:[,;:，、；：]|[\u2013\u2014]+|\s-{1,2}\s)\s*")


def _unharmful(word: str, known: frozenset[str], stands: Callable[[str], bool] | None) -> bool:
    w = word.casefold()
    if w in _HARMLESS or (w.endswith("s") and w[:-1] in _HARMLESS) or len(w) == 1:
        return True
    if w in _FUNCTION_WORDS:
        # A word every text uses ("be", "for", "now", "needs", "check") is in most prompts: the task's words vouch
        # for its nouns and units, never for these (", to be verified." under a prompt holding "be" and "verified")
        return False
    return w in known or w.rstrip("s") in known or (stands is not None and len(w) > 1 and stands(w))


def _judge(content: str, answer: str, known: frozenset[str], stands: Callable[[str], bool] | None) -> str | None:
    """The words of a remark that can qualify the answer, or None when every word is harmless."""
    text = _ORDER_PHRASE.sub(" ", MARKUP.sub(" ", LATEX_COMMAND.sub(" ", content)))
    text = _PRECISION.sub(" ", _CONFIRMING.sub(" ", text))
    text = _NOT_A_VALUE.sub(" ", text)  # ", not 7": the answer set against a value it is not
    text = _undotted(text)
    # "up to rotation" was judged by ``widened``; "(up to)" alone is a bound
    text = re.sub(r"(?<![\w'])up\s+to(?=\s+[^\W_])", " ", text, flags=re.IGNORECASE)
    glossed = _GLOSS.search(text) is not None
    text = _GLOSS.sub(" ", text)
    own = frozenset(w.casefold() for w in LETTER_RUN.findall(answer))
    bad: list[str] = []
    for word in LETTER_RUN.findall(text):
        if _CJK_RUN.fullmatch(word) is not None or _CJK_RUN.search(word) is not None:
            for run in _CJK_RUN.findall(word):
                left = _HARMLESS_CJK.sub("", run)
                if _CJK_NUMERALS.get(left) == answer.strip().strip("$ {}"):
                    continue  # "（三）": the answer's own number in Chinese or Japanese numerals
                if (
                    left
                    and left not in known
                    and not any(left in k for k in known if len(k) > 1)
                    and not (stands is not None and stands(left))
                ):
                    bad.append(run)
            continue
        value = _NUMBER_WORDS.get(word.casefold())
        if value is not None:
            if value != answer.strip().strip("$ {}"):
                bad.append(word)
        elif glossed and word[:1].isupper() and word[1:].islower():
            continue  # a name in a gloss ("die Donau in German")
        elif word.casefold() not in own and not _unharmful(word, known, stands):
            bad.append(word)
    return " ".join(bad[:4]) if bad else None


def remark_text(sentence: str, rest: str) -> str:
    """What ``qualifying_remark`` reads: the answer's sentence, or with what follows it where the sentence opens a
    bracket its end cut off ("\\boxed{3} (e.g.)": the sentence ends at "e." and the remark read was "e")."""
    lead = _LEAD.match(sentence)
    at = lead.end() if lead is not None else 0
    opener = sentence[at : at + 1]
    if opener in _BRACKETS and _BRACKETS[opener] not in sentence[at + 1 :]:
        return sentence + rest[:READ_CHARS]
    if _ABBREVIATION_CUT.search(sentence) and rest[:1] not in ("", " ", "\n"):
        return sentence + rest[:READ_CHARS]  # ", e.g." cut at "e.": the sentence goes on with no space
    return sentence


# A sentence "ended" by a letter's dot with the next letter right after it ("e.|g."): an abbreviation's dot.
_ABBREVIATION_CUT = re.compile(r"(?<![\w.])[^\W\d_]\.$")


def qualifying_remark(
    sentence: str,
    answer: str = "",
    known: frozenset[str] = frozenset(),
    stands: Callable[[str], bool] | None = None,
) -> str | None:
    """The words of a short remark right after the answer (``sentence`` is the rest of the answer's sentence)
    that are no harmless kind, or None."""
    if not isinstance(sentence, str) or not sentence.strip():
        return None
    text = sentence[:READ_CHARS]
    lead = _LEAD.match(text)
    at = lead.end() if lead is not None else 0
    if at >= len(text):
        return None
    opener = text[at]
    if opener in _BRACKETS:
        close = text.find(_BRACKETS[opener], at + 1)
        content = text[at + 1 : close] if close >= 0 else text[at + 1 :]
        doubt = doubting(content)  # round 11: read at any length, not skipped for it
        if doubt is not None:
            return doubt
        if len(LETTER_RUN.findall(content)) > MAX_BRACKET_WORDS or not content.strip():
            return None
        own = re.escape(answer.strip().strip("$ "))
        if own and re.match(r"\s*\$?\s*" + own + r"\s*\$?\s+(?:if|when|wenn|falls|si|如果|若)(?![\w'])", content):
            return None  # "(3 if you count zero)": the same value under a condition (round 9 reads another value)
        return _judge(content, answer, known, stands)
    set_off = _SET_OFF.match(text, at) or (_SET_OFF.match(" " + text[at:]) if text[at] == "-" else None)
    if set_off is not None:
        content = text[set_off.end() :] if set_off.string is text else set_off.string[set_off.end() :]
        words = LETTER_RUN.findall(MARKUP.sub(" ", LATEX_COMMAND.sub(" ", content)))
        doubt = doubting(content)  # round 11: a reason or a long remark that doubts the answer qualifies it too
        if doubt is not None:
            return doubt
        if not words or len(words) > MAX_SET_OFF_WORDS:
            return None
        opening = content.lstrip(" $*_")
        reason = _BECAUSE.match(opening)
        if reason is not None and (reason.group(1) is not None or re.search(r"[\d$\\=]", content)):
            # ", since opposite sides are congruent": a reason is an explanation; a clause opened by "as", "when",
            # "which" is one when it argues with the mathematics (", when divided by 4 the remainder")
            return None
        if _OR.match(opening) is not None:
            return None  # ", or one half": an "or" after the answer is read by the alternatives (round 9)
        return _judge(content, answer, known, stands)
    content = text[at:]
    words = LETTER_RUN.findall(MARKUP.sub(" ", LATEX_COMMAND.sub(" ", content)))
    named = _named_then_acted_on(words, known, stands)
    if named is not None:
        return named
    if not words or len(words) > MAX_RUN_ON_WORDS:
        return None
    first = words[0].casefold()
    if first in _CONTINUES or _unharmful(first, known, stands):
        return None  # "$ ways to assign ...", "$ is our answer", "$ more than Susan": a solution's own continuation
    if not (first.isascii() and _VERB_LIKE.search(first)):
        # "$ different arrangements": an English run-on that does not act on the answer describes it; "3个",
        # "پاسخ 3 است": a run-on in another script is a unit or grammar, read by the lexicon and unread_language
        return None
    if any(
        _CJK_RUN.match(w) is None and w.casefold() not in _NUMBER_WORDS and len(w) > 2 and _unharmful(w, known, stands)
        for w in words
    ):
        return None  # "$ complex numbers", "$ possible values of $n$": what is counted, named after its count
    return _judge(content, answer, known, stands)


# Round 11: a run-on that names what was counted and then acts on the answer ("\\boxed{3} apples pending review",
# "apples excluding the rotten ones", "apples to be verified"): the unit or task word vouches for itself only. Words
# that act on a value: a need, an exclusion, a pending state, a negation, a doubt.
_ACTS = re.compile(
    r"need\w*|requir\w*|pending|await\w*|subject|exclud\w*|except\w*|barring|minus|plus|assum\w*|suppos\w*"
    r"|presum\w*|not|un(?:\w+ed|certain|sure|proven|known)|tentativ\w*|provisional\w*|approx\w*|rough\w*|estimat\w*"
    r"|guess\w*|maybe|perhaps|probabl\w*|ish|if|unless|roughly|nearly|almost|circa"
)
_TO_ACT = frozenset("be verify check confirm review double".split())


def _named_then_acted_on(words: list[str], known: frozenset[str], stands: Callable[[str], bool] | None) -> str | None:
    at = 0
    while at < min(len(words), 3) and words[at].casefold() not in _CONTINUES and _unharmful(words[at], known, stands):
        at += 1  # the unit or task words that name what was counted
    if at == 0 or at >= len(words):
        return None
    first = words[at].casefold()
    if first == "to":
        return "to " + words[at + 1] if at + 1 < len(words) and words[at + 1].casefold() in _TO_ACT else None
    if _ACTS.fullmatch(first) is not None:
        return " ".join(words[at : at + 3])
    return doubting(" ".join(words[at : at + 12]))
