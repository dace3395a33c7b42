"""What may follow a number in an answer: units are dropped, magnitudes are read, the rest stays.

``12 cm``, ``\\$5``, ``5 meters``, ``1000元``, ``5个`` are the number with a unit: the unit is
dropped. ``3 thousand``, ``3 dozen``, ``3万``, ``三千`` are other numbers (3000, 36, 30000, 3000):
they are read as such. Before this module a trailing word was dropped unless it was on a short
list of remark words, so ``3 thousand``, ``3 squared``, ``3 halves`` and ``3亿`` all read as 3.
Now a tail is dropped only when every word of it is on an allow-list:

* known units: SI and customary units, time, angles, currency, data, generic "units";
* CJK counters and units after a number (个 人 本 只 元 米 円 個 개 명 ...);
* words the task itself uses (``context_words``): the gold answer's and the prompt's, so
  ``5 apples`` answers "How many apples ..." and ``3 real roots`` answers "How many real
  roots ...". Words that change a value (magnitudes, fractions, operators, negations, hedges,
  number words) never come from the context.

Magnitude words after a plain number are multiplied in (``2.5 million`` = 2500000); CJK
numerals (``3万5千``, ``三千``, ``3億``) are read whole. ``兆`` (10^6 or 10^12 by region) and
plural magnitudes (``3 thousands``) are not read. Whatever is left after the value
(``squared``, ``halves``, an arbitrary word) stays in the answer, where ``unread_tail`` names it
and the verifier refuses it (``rlvr_math.hedging``).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from rlvr_envs.answer_tail import value_word_after as core_value_word_after

_UNITS = """
m meter meters metre metres km kilometer kilometers kilometre kilometres cm centimeter centimeters
centimetre centimetres mm millimeter millimeters millimetre millimetres um micrometer micrometers micron
microns nm nanometer nanometers dm decimeter decimeters mi mile miles yd yard yards ft foot feet in inch
inches au ly lightyear lightyears
sq square cubic cu acre acres hectare hectares ha are
l liter liters litre litres ml milliliter milliliters millilitre millilitres cl dl gal gallon gallons
qt quart quarts pt pint pints cup cups tbsp tablespoon tablespoons tsp teaspoon teaspoons floz cc
g gram grams kg kilogram kilograms mg milligram milligrams t ton tons tonne tonnes lb lbs pound pounds
oz ounce ounces st stone stones ct carat carats
s sec secs second seconds ms millisecond milliseconds min mins minute minutes h hr hrs hour hours
day days wk wks week weeks mo month months yr yrs year years decade decades century centuries
mph kph kmh knot knots rpm bpm fps
deg degree degrees rad radian radians grad arcmin arcsec
celsius fahrenheit kelvin
v volt volts a amp amps ampere amperes w watt watts kw kilowatt kilowatts kwh mw j joule joules
kj cal calorie calories kcal n newton newtons pa pascal pascals kpa atm bar psi hz hertz khz mhz ghz
ohm ohms mol mole moles b bit bits byte bytes kb mb gb tb kib mib gib
usd dollar dollars cent cents eur euro euros gbp pence penny pennies yen jpy yuan rmb cny renminbi
rupee rupees rs inr peso pesos franc francs lira lire won krw ruble rubles rouble roubles baht kuna
pula rand real reais zloty shekel shekels dinar dinars dirham dirhams riyal ringgit bucks
percent percentage percentages pct
unit units
"""
UNITS = frozenset(_UNITS.split())
"""Lower-case unit words dropped after a number (single letters only inside ``\\text{}``)."""

NEUTRAL = frozenset(
    "per total in all altogether overall exactly each left remaining ago later earlier long old high wide deep tall "
    "away apart".split()
)
"""Words that may sit among units without changing the value (``12 cm in total``, ``3 hours ago``)."""

MAGNITUDES: dict[str, int] = {
    "hundred": 100,
    "thousand": 1000,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
    "quadrillion": 10**15,
    "dozen": 12,
    "score": 20,
    "gross": 144,
    "lakh": 10**5,
    "lac": 10**5,
    "crore": 10**7,
    "myriad": 10**4,
}
"""Words read as numbers after a plain number (short scale): ``3 thousand`` is 3000."""

_VALUE_WORDS = """
hundreds thousands millions billions trillions dozens scores lakhs crores grand k
half halves third thirds quarter quarters fourth fourths fifth fifths sixth sixths seventh sevenths
eighth eighths ninth ninths tenth tenths hundredth hundredths thousandth thousandths millionth millionths
squared cubed sqrt plus minus over divided multiplied power powers factorial
th nd rd st percentile permille per_mille
zero one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty sixty
seventy eighty ninety
not no non never except without negative positive
maybe perhaps probably possibly likely unlikely approximately approx about around roughly nearly almost
more less fewer least most wrong incorrect correct right true false guess unverified unsure uncertain
"""
NEVER_UNITS = frozenset(_VALUE_WORDS.split()) | frozenset(MAGNITUDES)
"""Words that change a value: never units, whatever the prompt or the gold answer says."""

# CJK counters and units written after a number (Chinese, Japanese, Korean), longest first.
_CJK_COUNTERS = """
个 個 人 名 位 本 册 冊 只 隻 条 條 张 張 块 塊 元 圆 圓 角 分 米 里 克 吨 噸 升 秒 天 日 周 週 月 年 岁 歲 歳 才 次 遍
回 道 题 題 种 種 件 辆 輛 台 头 頭 匹 棵 朵 枝 支 根 双 雙 对 對 套 份 页 頁 层 層 座 所 间 間 家 场 場 度 瓶 杯
盒 箱 袋 包 桶 碗 盘 盤 节 節 段 行 列 步 粒 颗 顆 片 张 篇 首 幅 部 门 門 架 艘 羽 枚 冊 軒 階 番 点 點 足 つ 円 通り
厘米 毫米 千米 公里 分米 英里 英尺 英寸 千克 公斤 毫克 毫升 公升 分钟 分鐘 小时 小時 星期 个月 個月 ヶ月 か月 カ月
平方米 平方厘米 平方千米 平方公里 平方分米 立方米 立方厘米 立方分米 公顷 公頃 美元 欧元 歐元 日元 英镑 英鎊 港币 港幣
人民币 人民幣 块钱 塊錢 元钱 時間 週間 メートル キロメートル センチメートル ミリメートル センチ キロ グラム キログラム
リットル ミリリットル ドル セント ユーロ パーセント 平方メートル 平方センチメートル 立方センチメートル 度数
개 명 원 권 마리 살 번 장 대 시간 분 초 일 년 개월 달러 센트 미터 킬로미터 센티미터 밀리미터 그램 킬로그램 리터
도 점 쪽 켤레 병 잔 송이 그루 채 척 자루 통 줄 가지 층 칸 퍼센트 주 달 가지
"""
CJK_COUNTERS = tuple(sorted(set(_CJK_COUNTERS.split()), key=len, reverse=True))

CJK_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}  # fmt: skip
CJK_SMALL = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000, "십": 10, "백": 100, "천": 1000}
CJK_LARGE = {"万": 10**4, "萬": 10**4, "만": 10**4, "亿": 10**8, "億": 10**8, "억": 10**8, "조": 10**12}
"""``兆`` is 10^12 in Japanese and traditional usage and 10^6 in modern Chinese: not read (refused)."""

_CJK_NUMERAL_CHARS = "".join(CJK_DIGITS) + "".join(CJK_SMALL) + "".join(CJK_LARGE)
_CJK_NUMERAL = re.compile(rf"(?<![\d.])((?:\d+(?:\.\d+)?|[{_CJK_NUMERAL_CHARS}])+)$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_NUMBER_END = re.compile(r"(?:[\d})\]|%]|\\pi)\s*$")
_PLAIN_NUMBER = re.compile(r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$")
_TAIL_TOKEN = re.compile(
    r"(?:(?<=[\s\d})\]|%])|(?<=\\pi))([A-Za-z][A-Za-z']*(?:/[A-Za-z]+)*\.?)(\^\{?-?\d\}?|[²³])?\s*$"
)
_TAIL_GAP = re.compile(r"(?:\s|/|\\,|\\;|\\ )*$")
_TEXT_TAIL = re.compile(
    r"\\(?:text|textbf|textrm|textnormal|textit|mathrm|mbox|operatorname)\s*\{([^{}]*)\}(\^\{?-?\d\}?|[²³])?\s*$"
)
_WORDS = re.compile(r"[A-Za-z][A-Za-z']*")
_IRREGULAR = {"people": "person", "feet": "foot", "children": "child", "men": "man", "women": "woman",
              "mice": "mouse", "teeth": "tooth", "geese": "goose", "dice": "die"}  # fmt: skip


def _stem(word: str) -> str:
    """A crude singular: enough to match "apple" in a prompt with "apples" in an answer."""
    word = _IRREGULAR.get(word, word)
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 2:
        return word[:-1]
    return word


@lru_cache(maxsize=8192)
def context_words(*texts: str) -> frozenset[str]:
    """Words of the task (prompt, gold answer) that may follow a number as its unit.

    Lower-cased singular stems of the ASCII words, and the CJK runs of the texts (matched as
    substrings, since those scripts have no spaces); value-changing words are left out."""
    words: set[str] = set()
    for text in texts:
        for word in _WORDS.findall(text[:20_000]):
            lower = word.lower()
            if len(lower) >= 2 and lower not in NEVER_UNITS and _stem(lower) not in NEVER_UNITS:
                words.add(_stem(lower))
        for run in re.findall(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+", text[:20_000]):
            if not any(ch in CJK_SMALL or ch in CJK_LARGE or ch == "兆" for ch in run):
                words.add(run)
    return frozenset(words)


def _is_unit(word: str, context: frozenset[str], single_letters: bool) -> bool:
    if "/" in word:  # a compound unit, km/h, m/s: single letters are units there
        return all(_is_unit(part, context, single_letters=True) for part in word.split("/"))
    lower = word.lower().rstrip(".").replace("'", "")
    if not lower or lower in NEVER_UNITS or _stem(lower) in NEVER_UNITS:
        return False
    if len(lower) == 1 and not single_letters:
        return False
    return lower in UNITS or lower in NEUTRAL or _stem(lower) in UNITS or _stem(lower) in context


def is_unit(word: str, context: frozenset[str] = frozenset(), single_letters: bool = False) -> bool:
    """Whether ``word`` may follow a number as its unit: a known unit, a neutral word or the task's own."""
    return _is_unit(word, context, single_letters)


def _strip_text_units(text: str, context: frozenset[str]) -> str:
    """Drop trailing ``\\text{ cm}``-style groups whose every word is a unit (single letters too)."""
    while True:
        match = _TEXT_TAIL.search(text)
        if match is None:
            return text
        inner = match.group(1).strip().strip(".")
        words = _WORDS.findall(inner)
        leftover = _WORDS.sub(" ", inner).replace("/", " ").strip()
        if not words or leftover or not all(_is_unit(w, context, single_letters=True) for w in words):
            return text
        head = text[: match.start()].rstrip()
        if not head or (not _NUMBER_END.search(head) and not _TEXT_TAIL.search(head)):
            return text
        text = head


def _strip_word_units(text: str, context: frozenset[str]) -> str:
    """Drop trailing unit words (``12 km/h``, ``5 square meters``, ``5 apples`` in context)."""
    end = len(text)
    cut = None
    while True:
        match = _TAIL_TOKEN.search(text, 0, end)
        if match is None or not _is_unit(match.group(1), context, single_letters=False):
            break
        end = match.start()
        end -= len(_TAIL_GAP.search(text, 0, end).group(0))  # type: ignore[union-attr]
        cut = end
    if cut is None:
        return text
    head = text[:cut].rstrip()
    return head if head and (_NUMBER_END.search(head) or _read_magnitudes(head) != head) else text


def _read_magnitudes(text: str) -> str:
    """``3 thousand`` as ``3000``, ``2.5 million`` as ``2500000``: a plain number times magnitude words."""
    words: list[str] = []
    head = text
    while True:
        match = re.search(r"(?<=[\s\d])([A-Za-z]+)\s*$", head)
        if match is None or match.group(1).lower() not in MAGNITUDES:
            break
        words.append(match.group(1).lower())
        head = head[: match.start()].rstrip()
    if not words:
        return text
    number = head.strip()
    if not _PLAIN_NUMBER.match(number):
        return text
    value = Fraction(number.replace(",", ""))
    for word in words:
        value *= MAGNITUDES[word]
    return _format(value)


def _format(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _strip_cjk_counters(text: str, context: frozenset[str]) -> str:
    stripped = text
    for _ in range(3):
        body = stripped.rstrip()
        found = next((c for c in CJK_COUNTERS if body.endswith(c)), None)
        if found is None:
            run = re.search(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+$", body)
            found = run.group(0) if run is not None and _in_context(run.group(0), context) else None
            if found is not None and any(ch in CJK_SMALL or ch in CJK_LARGE for ch in found):
                found = None
        if found is None:
            break
        head = body[: len(body) - len(found)].rstrip()
        if not head or not (_NUMBER_END.search(head) or head[-1] in _CJK_NUMERAL_CHARS):
            break
        stripped = head
    return stripped


def _in_context(run: str, context: frozenset[str]) -> bool:
    """A CJK tail of at most four characters that the task's own CJK text contains."""
    return len(run) <= 4 and any(run in word for word in context if _CJK.match(word))


def read_cjk_numeral(numeral: str) -> Fraction | None:
    """The value of ``3万5千``, ``三千``, ``二十五``, ``1.5億``, ``3만``; None when it is not one."""
    total = Fraction(0)
    section = Fraction(0)
    current: Fraction | None = None
    last_large = 0
    for token in re.findall(rf"\d+(?:\.\d+)?|[{_CJK_NUMERAL_CHARS}]", numeral):
        if token[0].isdigit():
            if current is not None:
                return None  # two numbers in a row: "3 4"
            current = Fraction(token)
        elif token in CJK_DIGITS:
            # "一九" read digit by digit is a year, not a count: only after a unit or alone
            if current is not None:
                current = current * 10 + CJK_DIGITS[token]
            else:
                current = Fraction(CJK_DIGITS[token])
        elif token in CJK_SMALL:
            section += (current if current is not None else 1) * CJK_SMALL[token]
            current = None
        else:
            large = CJK_LARGE[token]
            section += current if current is not None else 0
            if section == 0:
                return None
            if large > last_large:
                total = (total + section) * large
                last_large = large
            else:
                total += section * large
            section, current = Fraction(0), None
    return total + section + (current or 0)


def _read_cjk_numeral(text: str) -> str:
    match = _CJK_NUMERAL.search(text)
    if match is None or not any(ch in _CJK_NUMERAL_CHARS for ch in match.group(1)):
        return text
    value = read_cjk_numeral(match.group(1))
    if value is None:
        return text
    return text[: match.start()] + _format(value)


def strip_text_units(text: str, context: frozenset[str] = frozenset()) -> str:
    """The first pass, on text still holding its ``\\text{}`` groups (where ``m`` is metres)."""
    if "\\" not in text:
        return text
    return _strip_text_units(text, context)


def read_tail(text: str, context: frozenset[str] = frozenset()) -> str:
    """The answer without its unit tail and with magnitude words and CJK numerals read.

    ``12 km/h`` -> ``12``; ``3 thousand dollars`` -> ``3000``; ``3万元`` -> ``30000``; ``5 apples``
    -> ``5`` when "apples" is a context word; ``3 squared`` stays (``unread_tail`` names it)."""
    if not text or text[-1].isdigit() or text[-1] in "})]%":
        return text
    copula = _COPULA_END.search(text)
    if copula is not None and re.search(r"[\d})\]]\s*$", text[: copula.start()]):
        text = text[: copula.start()].rstrip()  # "6です", "6 입니다": the sentence's verb, not a unit
        if text[-1:].isdigit():
            return text
    if _CJK.search(text):
        text = _read_cjk_numeral(_strip_cjk_counters(text, context))
    if _WORDS.search(text):
        text = _read_magnitudes(_strip_word_units(text, context))
    return text


_VALUE_CHANGING = frozenset(MAGNITUDES) | frozenset(
    """hundreds thousands millions billions trillions dozens lakhs crores grand half halves third thirds
    quarter quarters fourth fourths fifth fifths sixth sixths seventh sevenths eighth eighths ninth ninths
    tenth tenths hundredth hundredths thousandth thousandths millionth millionths squared cubed factorial""".split()
)
_OPERATOR_WORDS = frozenset("times plus minus over divided multiplied".split())
"""Value-changing only with another value after them: ``\\boxed{3} times 2``, not ``\\boxed{3} times``."""
_WORD_AFTER = re.compile(
    r"^[\s$)\]}*]*(?:\\(?:text|mathrm|textrm)\s*\{\s*)?"
    rf"([A-Za-z]+|[{''.join(CJK_SMALL)}{''.join(CJK_LARGE)}兆])"
)


def _english_value_word_after(after: str) -> str | None:
    """An English value word or a CJK numeral right after the final answer, or None."""
    match = _WORD_AFTER.match(after)
    if match is None:
        return None
    word = match.group(1)
    if word.lower() in _OPERATOR_WORDS:
        return word if re.match(r"\s*(?:by\s+|to\s+)?[-$\\(]*\d", after[match.end() :]) else None
    if word.lower() in _VALUE_CHANGING or not word.isascii():
        return word
    return None


def value_word_after(after: str) -> str | None:
    """A word right after the final answer that would change its value (``\\boxed{3} thousand``,
    ``\\boxed{3}万``, ``$\\boxed{3}$ squared``), in any claimed language (``Tausend``, ``mille``,
    ``millones``, ``миллионов``), or a power-of-ten factor (``\\times 10^{3}``, ``× 10³``, ``e3``), or None.

    The multilingual magnitudes and factors are the core's (``rlvr_envs.answer_tail``): refused,
    never dropped; the English words and CJK numerals are math's own, read above."""
    word = _english_value_word_after(after) or core_value_word_after(after, operations=False)
    if word is not None and word.lower() in UNITS:
        return None  # a known unit reads as the unit: "miles" is Spanish for thousands, and English for miles
    return word


_FIRST_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_LIST_WORDS = frozenset("and or und oder et ou y o e u".split())
_FUNCTIONS = frozenset("sin cos tan cot sec csc log ln exp lg arcsin arccos arctan sinh cosh tanh mod".split())
_BARE_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z]")


def unread_tail(cleaned: str) -> str | None:
    """Words after a value that no rule read (``squared`` in ``3 squared``), or None.

    Only a tail after a numeric head (``3``, ``\\frac{1}{2}``, ``2\\sqrt{3}``) and free of digits
    is named: ``3 and 4`` is a list, ``\\sin x`` has no numeric head."""
    match = _FIRST_WORD.search(cleaned)
    if match is None:
        return None
    head, tail = cleaned[: match.start()].strip(), cleaned[match.start() :].strip()
    if not head or not re.search(r"\d", head) or _BARE_LETTER.search(head) or re.search(r"\d", tail):
        return None
    if "=" in head or "," in head or re.search(r"[<>]|\\[lg]e", head):
        return None
    first = _WORDS.match(tail)
    if first is not None and first.group(0).lower() in _LIST_WORDS | _FUNCTIONS:
        return None
    if tail.rstrip(" .。!！") in COPULAS:
        return None  # "答えは6です。": the sentence's copula, nothing about the value
    return tail


# Round 13: Korean's copula in its registers ("3입니다", "3이에요", "3이야", "3이다", "3임"), as Japanese's is read.
_COPULA_END = re.compile(r"\s*(?:です|である|だ|입니다|이다|이에요|예요|이죠|이지요|이야|임)[\s.。!！]*$")

# Copulas that close a verb-final sentence after its answer ("پاسخ \\boxed{3} است", "उत्तर 3 है",
# "答えは3です", "Cevap 3'tür"): they say the answer is, nothing about its value.
COPULAS = frozenset(
    "است هست می‌باشد میباشد है हैं হয় হল হলো ହେଉଛି です だ である 입니다 이다 이에요 예요 이죠 이지요 이야 임"
    " dir dır dur dür tir tır tur tür".split()
)
