"""Round 13: the answer said again in words or numerals after it is read for the value it says.

"\\boxed{3}, i.e. four.", "\\boxed{3}. That is, four.", "\\boxed{3}. In words: four." were paid: a restatement marker
("i.e.", "that is", "in words", "d.h.", "c'est-à-dire", "es decir", "cioè", "ou seja", "то есть", "即", "つまり",
"즉") excused what followed as the same answer, whatever value its words named. Round 10 read a number word in a
remark in brackets ("(four)"); this reads one after a marker, in the languages the project claims and it, pt, ru,
CJK numerals and Roman numerals: the words must name the answer's own value ("\\boxed{3}, i.e. three." stands).
Only a restatement that is nothing but a number in words is read (a clause with other words is the other readings').

Bounded window; never raises on any ``str``.
"""

from __future__ import annotations

import re
from fractions import Fraction

from rlvr_envs.tail_alternatives import words_value
from rlvr_envs.tail_clauses import keyed_alternative

_WINDOW = 600
_MARKER = re.compile(
    r"(?<![^\W\d_])(?:i\.\s?e\.?|ie|that\s+is(?:\s+to\s+say)?|in\s+words|in\s+other\s+words|namely|written\s+out"
    r"|spelled\s+out|in\s+roman\s+numerals|as\s+a\s+roman\s+numeral|d\.\s?h\.|das\s+heißt|in\s+worten|nämlich"
    r"|c'est-à-dire|c\.-à-d\.|en\s+lettres|es\s+decir|o\s+sea|en\s+palabras|cioè|ossia|in\s+lettere|ou\s+seja"
    r"|isto\s+é|por\s+extenso|то\s+есть|т\.\s?е\.|прописью|словами)(?![^\W\d_])|即|也就是说?|换句话说|換句話說|つまり|すなわち|즉",
    re.IGNORECASE,
)
_LEAD = re.compile(r"[\s,:：，、(（\"“'‘*_$]*")
_CLAUSE = re.compile(r"[^.!?;\n。！？；)）]{1,80}")
_TEXT_GROUP = re.compile(r"\\(?:text|mathrm|textrm|textbf|emph)\s*\{([^{}]{0,80})\}")
_TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)

_WORDS: dict[str, int] = {}
for _row in (
    "null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf",  # de
    "zéro un deux trois quatre cinq six sept huit neuf dix onze douze",  # fr
    "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce",  # es
    "zero uno due tre quattro cinque sei sette otto nove dieci undici dodici",  # it
    "zero um dois três quatro cinco seis sete oito nove dez onze doze",  # pt
    "ноль один два три четыре пять шесть семь восемь девять десять одиннадцать двенадцать",  # ru
    "영 일 이 삼 사 오 육 칠 팔 구 십",  # ko, Sino-Korean
    "공 하나 둘 셋 넷 다섯 여섯 일곱 여덟 아홉 열",  # ko, native (공 for zero)
):
    for _i, _w in enumerate(_row.split()):
        _WORDS.setdefault(_w, _i)
_WORDS.update({"eine": 1, "ein": 1, "une": 1, "una": 1, "uma": 1, "duas": 2, "одна": 1, "две": 2})
for _row in (  # the tens, 20 to 90 (de, fr, es, it, pt, ru): "Actually, it is zwanzig."
    "zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig",
    "vingt trente quarante cinquante soixante soixante-dix quatre-vingt quatre-vingt-dix",
    "veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa",
    "venti trenta quaranta cinquanta sessanta settanta ottanta novanta",
    "vinte trinta quarenta cinquenta sessenta setenta oitenta noventa",
    "двадцать тридцать сорок пятьдесят шестьдесят семьдесят восемьдесят девяносто",
):
    for _i, _w in enumerate(_row.split()):
        _WORDS.setdefault(_w, 10 * (_i + 2))
_WORDS.update({"hundert": 100, "cien": 100, "cento": 100, "cem": 100, "сто": 100})  # not "cent" (English)
_CJK_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2, "兩": 2}
_CJK_NUMERAL = re.compile(r"[零〇一二两兩三四五六七八九]?十?[一二三四五六七八九]?|[零〇]")
_ROMAN = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_CLOSING_COPULA_END = re.compile(r"\s*(?:です|だ|である|입니다|이다)\s*$")
_ROMAN_VALUES = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}


def _cjk_value(text: str) -> int | None:
    """A CJK numeral up to 99 ("三", "十二", "二十三"), or None."""
    if not text or _CJK_NUMERAL.fullmatch(text) is None:
        return None
    if "十" not in text:
        return _CJK_DIGITS.get(text) if len(text) == 1 else None
    tens, _, units = text.partition("十")
    return (_CJK_DIGITS.get(tens, 1) if tens else 1) * 10 + (_CJK_DIGITS.get(units, 0) if units else 0)


def _roman_value(text: str) -> int | None:
    """A Roman numeral of two letters or more ("III", "IV", "XII"; "I" alone is a pronoun, "C" a choice), or None."""
    if len(text) < 2 or _ROMAN.fullmatch(text) is None:
        return None
    total = 0
    for i, letter in enumerate(text):
        value = _ROMAN_VALUES[letter]
        total += -value if i + 1 < len(text) and _ROMAN_VALUES[text[i + 1]] > value else value
    return total


def said_value(words: str) -> Fraction | None:
    """The value ``words`` name when they are nothing but a number in words or numerals, or None."""
    text = _CLOSING_COPULA_END.sub("", _TEXT_GROUP.sub(r" \1 ", words)).strip(" \t*_$\"“”'‘’")
    if not text or any(c.isdigit() for c in text):
        return None
    roman = _roman_value(text)
    if roman is not None:
        return Fraction(roman)
    cjk = _cjk_value(text)
    if cjk is not None:
        return Fraction(cjk)
    tokens = [t.casefold() for t in _TOKEN.findall(text.replace("-", " "))]
    if len(tokens) == 1 and tokens[0] in _WORDS:
        return Fraction(_WORDS[tokens[0]])
    if len(" ".join(tokens)) + 8 < len(text):
        return None  # marks beyond the words ("three + 1"): not a number in words
    return words_value(tokens) if tokens else None


def restated_otherwise(after: str, answer: str) -> str | None:
    """A restatement after the answer ("i.e. four", "That is, four.", "In words: four", "즉 넷") that names another
    value than the answer's, or None. Only an answer that is one plain number is read."""
    if not isinstance(after, str) or not isinstance(answer, str):
        return None
    plain = answer.strip().strip("$ {}").replace("{,}", "").replace(",", "")
    if not re.fullmatch(r"-?\d{1,12}", plain):
        return None
    mine = Fraction(int(plain))
    text = after[:_WINDOW]
    for marker in _MARKER.finditer(text):
        lead = _LEAD.match(text, marker.end())
        start = lead.end() if lead is not None else marker.end()
        clause = _CLAUSE.match(text, start)
        if clause is None:
            continue
        value = said_value(clause.group(0))
        if value is not None and value != mine:
            return f"{marker.group(0)} {clause.group(0).strip()}"
    return None


def without_restatement(after: str, answer: str) -> str:
    """``after`` without a restatement that names the answer's own value ("\\boxed{3}, c'est-à-dire trois.",
    ", i.e. III", "、つまり三です"), so the readings after it see what surrounds it (as ``tail_stance.settled`` drops
    a clause of certainty); unchanged otherwise."""
    if not isinstance(after, str) or not isinstance(answer, str) or _MARKER.search(after[:_WINDOW]) is None:
        return after
    plain = answer.strip().strip("$ {}").replace("{,}", "").replace(",", "")
    if not re.fullmatch(r"-?\d{1,12}", plain):
        return after
    text = after[:_WINDOW]
    for marker in _MARKER.finditer(text):
        lead = _LEAD.match(text, marker.end())
        start = lead.end() if lead is not None else marker.end()
        clause = _CLAUSE.match(text, start)
        if clause is None or said_value(clause.group(0)) != Fraction(int(plain)):
            continue
        head = text[: marker.start()].rstrip(" \t,;:，、\u2014\u2013(（")
        end = clause.end()
        while end < len(text) and text[end] in ")）$*_ \t":
            end += 1
        copula = _CLOSING_COPULA.match(text, end)
        return head + text[copula.end() if copula is not None else end :] + after[_WINDOW:]
    return after


_CLOSING_COPULA = re.compile(r"(?:です|だ|である|입니다|이다)")


# Round 13 (H7's other_notation): a later sentence naming another value in words or numerals ("Actually, it is
# four hundred thirty-one.", "Actually, it is CDXXXI.", "四百三十一", "사백삼십일", "vier") was not read as a value:
# ``numerals_as_digits`` writes each such number in digits for the readings of later sentences, which judge
# values by their digits. Only whole words: a Roman numeral of two letters or more in capitals, a run of English
# number words, one number word of de/fr/es/it/pt/ru, a CJK or Sino-Korean numeral with a multiplier.
_EN_WORD = (
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    r"|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million"
    r"|billion"
)
_EN_RUN = re.compile(r"(?<![\w-])(?:" + _EN_WORD + r")(?:(?:[\s-]+|\s+and\s+)(?:" + _EN_WORD + r"))*(?![\w-])", re.I)
_OTHER_WORD = re.compile(
    r"(?<![^\W\d_])(?:" + "|".join(sorted((w for w in _WORDS if len(w) > 2), key=len, reverse=True)) + r")(?![^\W\d_])",
    re.I,
)
_ROMAN_WORD = re.compile(r"(?<![^\W\d_])[MDCLXVI]{2,15}(?![^\W\d_])")
_CJK_RUN = re.compile(r"[零〇一二两兩三四五六七八九十百千万萬]{2,12}")
_KO_RUN = re.compile(
    r"(?<![가-힣])[영일이삼사오육칠팔구십백천만]{2,12}(?=[^가-힣]|$|입니다|이다|이에요|예요|이야|입니까)"
)
# One numeral standing alone (no CJK letter beside it; a Korean syllable only before the sentence's end or copula,
# where "이" cannot be the demonstrative): "七", "칠".
_CJK_ONE = re.compile(
    r"(?<![\u3040-\u30ff\u4e00-\u9fff])[零〇一二两兩三四五六七八九十](?![\u3040-\u30ff\u4e00-\u9fff])"
)
_KO_ONE = re.compile(r"(?<![가-힣])[영일이삼사오육칠팔구십](?=\s*(?:[.!?。]|$|입니다|이다|이에요|예요|이야))")
_KO_SINGLE = {c: i for i, c in enumerate("영일이삼사오육칠팔구")} | {"십": 10}
_ARTICLES = frozenset("one un une uno una um uma eins ein eine один одна".split())
_CLAUSE_CLOSE = re.compile(r"[\s*_$)]*(?:[.!?;,:。！？\n)]|$)")
_CJK_UNITS = {"十": 10, "百": 100, "千": 1000}
_KO_DIGITS = {c: i for i, c in enumerate("영일이삼사오육칠팔구")}
_KO_UNITS = {"십": 10, "백": 100, "천": 1000}


def _positional(text: str, digits: dict[str, int], units: dict[str, int], myriad: str) -> int | None:
    """A CJK or Sino-Korean numeral with multipliers ("四百三十一", "사백삼십일", "一万二千"), or None."""
    total, section, digit, seen_unit = 0, 0, None, False
    for char in text:
        if char in digits:
            if digit is not None:
                return None  # two digits in a row: not a numeral ("一二")
            digit = digits[char]
        elif char in units:
            section += (1 if digit is None else digit) * units[char]
            digit, seen_unit = None, True
        elif char in myriad:
            total += (section + (digit or 0) or 1) * 10_000
            section, digit, seen_unit = 0, None, True
        else:
            return None
    return total + section + (digit or 0) if seen_unit else None


def numerals_as_digits(text: str) -> str:
    """``text`` with each number written in words or numerals written in digits ("four hundred thirty-one" ->
    "431", "CDXXXI" -> "431", "四百三十一" -> "431"), for the readings that judge a later sentence's value."""
    if not isinstance(text, str) or not text:
        return text if isinstance(text, str) else ""
    text = text[:4_000]

    def pronoun(found: re.Match[str]) -> bool:
        # the word for one is also an article or a pronoun ("one could", "un jour", "ein Baum"): a number only where
        # it closes its clause ("it is one.")
        return found.group(0).casefold() in _ARTICLES and _CLAUSE_CLOSE.match(found.string, found.end()) is None

    def english(found: re.Match[str]) -> str:
        value = words_value(found.group(0).replace("-", " ").split())
        if value is None or value.denominator != 1 or pronoun(found):
            return found.group(0)
        return str(value)

    def single(found: re.Match[str]) -> str:
        word = found.group(0).casefold()
        return str(_WORDS[word]) if word in _WORDS and not pronoun(found) else found.group(0)

    def roman(found: re.Match[str]) -> str:
        value = _roman_value(found.group(0))
        return str(value) if value is not None else found.group(0)

    def cjk(found: re.Match[str]) -> str:
        digits = {**_CJK_DIGITS, "两": 2, "兩": 2}
        value = _positional(found.group(0), digits, {**_CJK_UNITS}, "万萬")
        return str(value) if value is not None else found.group(0)

    def korean(found: re.Match[str]) -> str:
        value = _positional(found.group(0), _KO_DIGITS, _KO_UNITS, "만")
        return str(value) if value is not None else found.group(0)

    if not text.isascii():
        text = _CJK_RUN.sub(cjk, text)
        text = _KO_RUN.sub(korean, text)
        text = _CJK_ONE.sub(lambda m: str(_CJK_DIGITS.get(m.group(0), 10)), text)  # "Actually, it is 七."
        text = _KO_ONE.sub(lambda m: str(_KO_SINGLE[m.group(0)]), text)  # "Actually, it is 칠."
    text = _EN_RUN.sub(english, text)
    text = _OTHER_WORD.sub(single, text)
    return _ROMAN_WORD.sub(roman, text)


def said_otherwise(after: str, answer: str) -> str | None:
    """The answer restated as another value (``restated_otherwise``), or a JSON key after it that offers another
    (``tail_clauses.keyed_alternative``): the two readings of what is said beside the answer, or None."""
    return restated_otherwise(after, answer) or keyed_alternative(after)
