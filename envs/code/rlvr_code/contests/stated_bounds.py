"""The error bound a problem statement states, in the languages contest sets are written in.

Contest sets ship no checkers: a float problem is found by its statement ("your answer is accepted
if its absolute or relative error does not exceed 10^{-6}"). Round 13 read English only, so a
statement in Chinese (绝对误差或相对误差不超过 10^{-6}), Japanese (誤差), Korean (오차), Russian
(погрешность), Spanish, French, German or Portuguese got an exact comparison and an honest float
answer (0.3333333 for 0.33333333) lost (red team round 14).

The reading, sentence by sentence (``。``, ``.``, ``!``, ``?`` and blank lines end one):

* a sentence states a bound when it holds an **error word** (error, tolerance, 误差, 誤差, 容差,
  오차, погрешность, ошибка, erreur, Fehler, Abweichung, Toleranz, erro, tolerancia...) or a
  **difference word** (within, differ, 相差, 差, 차이, отличается, diferencia, différence,
  Differenz...) and a **bound**: ``10^{-6}``, ``10^-6``, ``10⁻⁶``, ``1e-6``, ``2·10^{-7}``,
  ``0.000001`` (``0,000001``), a positive number below 1;
* what is not a bound: a number followed by a unit of time or memory ("10^{-3} seconds"), an error
  word about time or memory ("timing error", "时间误差", "Runtime Error"), a guarantee about the
  input ("it is guaranteed that points differ by at least 10^{-3}": a lower bound on data), a
  lower bound ("at least", 至少, 以上, 이상, не менее, al menos, au moins, mindestens);
* the kind, from the sentence's words: "absolute" (absolu*, 绝对, 絶対, 절대, абсолютн*) without
  "relative" (relativ*, 相对, 相対, 상대, относительн*) bounds the absolute error alone; "relative",
  with or without "absolute", bounds either (judges compute the relative error as
  ``|a - b| / max(1, |b|)``, the absolute one below 1); an error word with neither bounds either
  (testlib's float checkers, which such statements describe); a difference word with neither
  ("within 10^-6 of the correct answer", "相差不超过 10^{-6}") bounds the absolute difference.

The first sentence stating a bound decides; a statement stating none gets none (exact tokens).

Round 15 (the contest ``-v5`` ids; ``reading="v4"`` keeps round 14's):

* a **precision word** states a bound as an error word does ("with a precision of 10^{-6}",
  "с точностью до 10^{-6}", 精度, 精确到, 정밀도, précision, Genauigkeit, precisión, precisão): such
  a statement got an exact comparison and an honest float answer lost; a number type's precision
  ("double precision", "floating-point precision") is none;
* the bound must be **about the answer**: the sentence speaks of what is judged (the answer, the
  output, printing, a result, being accepted, correct, allowed or checked: ``_ABOUT_ANSWERS``, in
  each language) or names the error's kind (absolute, relative), or the error is its subject
  ("Tolerance: 1e-6.", "The error must not exceed 1e-6.", "误差不超过 10^{-6}。": ``_HEADING``);
  and the error word is not owned by
  something else (a possessive before it, "the king's tolerance", "whose error", "their
  precision"; "of"/"for" and a noun after it that is not the answer, "the tolerance of the
  townsfolk"). A story's tolerance ("the townsfolk's tolerance for noise is 0.5") was read as a
  bound on the answer, and an answer off by 0.4 passed.
"""

from __future__ import annotations

import re

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
_MINUS = "[-−–‐‑]"
_MANTISSA = r"(?:(\d{1,3}(?:[.,]\d{1,6})?)\s*(?:[*×·⋅∙]|\\cdot|\\times|\\!)\s*)?"
_BOUND = re.compile(
    r"(?<![A-Za-z0-9_.,^])(?:"
    # 10^{-6}, 10^-6, 10^(-6), 10**-6, 2·10^{-7}, 2 \cdot 10^{-7}
    + _MANTISSA
    + r"10\s*(?:\^|\*\*)\s*[{(]?\s*"
    + _MINUS
    + r"\s*(\d{1,2})\s*[})]?"
    # 10⁻⁶
    + r"|"
    + _MANTISSA
    + r"10\s*⁻([⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2})"
    # 1e-6, 1E-06, 5e-7
    + r"|(\d{1,3}(?:\.\d{1,6})?)\s*[eE]\s*"
    + _MINUS
    + r"\s*(\d{1,2})(?!\d)"
    # 0.000001, 0,000001 (a comma decimal: de, fr, es, pt, ru)
    + r"|(0[.,]\d{1,16})(?![\d.,]\d)"
    + r")"
)
_UNIT_AFTER = re.compile(
    r"\s*\}?\$?\s*(?:s\b|sec|second|ms\b|milli|minute|mb\b|kb\b|gb\b|mib\b|kib\b|byte|秒|毫秒|초|сек|"
    r"мс\b|секунд|мегаб|Sekunde|segundo|seconde|minuto)",
    re.IGNORECASE,
)
_ERROR_WORD = re.compile(
    r"\berrors?\b|\berror(?:es)?\b|\berros?\b|\berreurs?\b|\bfehlers?\b|\babweichung(?:en)?\b"
    r"|\btoleran(?:ce|cia|z|ça)\b|\btolérance\b|\btolerância\b|погрешност\w*|\bошибк\w*|\bошибок\b"
    r"|\bдопуск\w*|误差|誤差|容差|오차",
    re.IGNORECASE,
)
_DIFFERENCE_WORD = re.compile(
    r"\bwithin\b|\bdiffer\w*|\bdifferenz\w*|\bunterscheid\w*|\bweicht\b|\babweich(?:en|t)\b|\bdiferencia\b|\bdifier\w*"
    r"|\bdiferença\b|\bdifere\w*|\bdifférence\b|\bdiffèr\w*|\bотлича\w*|\bразниц\w*"
    r"|相差|之差|差值|差が|の差|差は|차이",
    re.IGNORECASE,
)
_PRECISION_WORD = re.compile(
    r"\bprecisions?\b|\baccura(?:cy|te)\b|точност\w*|精度|精确|精確|精准|정밀도|정확도|\bprécision\b"
    r"|\bgenauigkeit\b|\bprecisión\b|\bprecisão\b|\bexactitud\b",
    re.IGNORECASE,
)
_NUMBER_TYPE = re.compile(
    r"(?:double|single|float(?:ing)?[\s-]*point|arbitrary|machine|extended|quad(?:ruple)?|infinite|doble|双|倍)"
    r"[\s_-]*(?:de\s)?$",
    re.IGNORECASE,
)
"""A word right before a precision word that makes it a number type's ("double precision")."""
_ABOUT_ANSWERS = re.compile(
    r"\banswers?\b|\boutputs?\b|\bprint\w*|\bresults?\b|\baccept\w*|\bcorrect\w*|\bchecke[rd]\b|\bjudge"
    r"|\bjury\b|\ballowed\b|\bpermitted\b|\btolerated\b|\bconsidered\b|\bverdict"
    r"|答案|输出|輸出|结果|結果|正确|正確|视为|視為|接受|允许|允許|判定|认为|認為|出力|答え|解答|正解|許容|正しい|とみな"
    r"|정답|출력|결과|인정|허용|채점|올바"
    r"|ответ\w*|вывод\w*|выведи\w*|результат\w*|засчит\w*|принима\w*|принят\w*|считает\w*|правильн\w*"
    r"|допуска\w*|допустим\w*|жюри"
    r"|\brespuestas?\b|\bsalida\b|\bresultados?\b|\bimprim\w*|\bacept\w*|\bcorrect[oa]s?\b|\bconsider\w*"
    r"|\bpermit\w*|\btolerad[oa]s?\b|\bréponses?\b|\bsortie\b|\brésultats?\b|\baffich\w*|\bcorrecte?s?\b"
    r"|\btolérée?s?\b|\bautoris\w*|\bantwort\w*|\bausgabe\w*|\bergebnis\w*|\bausgeben\b|\bakzeptiert\b"
    r"|\bkorrekt\w*|\brichtig\w*|\btoleriert\b|\bzulässig\w*|\berlaubt\b|\brespostas?\b|\bsaída\b|\baceit\w*"
    r"|\bcorret[oa]s?\b",
    re.IGNORECASE,
)
"""Words of what a contest judges: a bound in a sentence with none of them (nor "absolute" or
"relative") is a story's ("each villager has a tolerance of 0.5"), not the answer's."""
_OWNED_BEFORE = re.compile(
    # "the king's tolerance", "the villagers' error" (two letters or more: "l'erreur" is an article)
    r"([^\W\d_]{2,})['’]s?\s+(?:[^\W\d_]+\s+){0,2}$"
    # "村民的误差", "村人の誤差", "마을 사람의 오차" (the run of letters before the particle)
    r"|([^\W\d_]+)(?:的|の|의)\s*[^\W\d_]{0,3}\s*$"
    # "villagers whose error", "guests who have a tolerance" (no adjective: "have an absolute
    # error" is the answer's, its kind says so)
    r"|([^\W\d_]+)\s+(?:whose\s+(?:[^\W\d_]+\s+){0,2}|(?:who\s+|that\s+)?ha(?:s|ve|ving|d)\s+(?:(?:a|an|the|some)\s+)?)$"
    # a person's pronoun
    r"|\b(his|her|their|dont|cuy[oa]s?|deren|dessen)\s+(?:[^\W\d_]+\s+){0,2}$",
    re.IGNORECASE,
)
"""An owner right before an error word: "the townsfolk's tolerance", "villagers whose error",
"guests have a tolerance", "their precision", "村民的误差". It is the answer's where the owner is
(``_ANSWER_OWNER``: "the answer's error", "答案的误差", "each answer has an error")."""
_ANSWER_OWNER = re.compile(
    r"answer|output|result|value|solution|printed|checker|judge|jury|problem|task|respuesta|réponse|antwort|ausgabe|resposta|答案|输出|輸出|结果|結果"
    r"|答え|解答|出力|정답|출력|ответ|вывод",
    re.IGNORECASE,
)
_HEADING = re.compile(
    r"[\s\W]*(?:(?:the|a|an|la|le|les|el|los|die|der|das|une?|o|required|allowed|maximum|maximal|max|admissible"
    r"|permitted|acceptable|permissible|erlaubte|zulässige|maximale|максимальн\w*|допустим\w*)\s+){0,2}$",
    re.IGNORECASE,
)
"""What may stand before the error word of a sentence naming no answer: nothing, an article, a
word of allowance ("Tolerance: 1e-6.", "The error must not exceed 1e-6.", "误差不超过 10^{-6}。",
"The required precision is 1e-6."): the error is the sentence's subject, no story's noun's."""
_OWNED_AFTER = re.compile(
    r"\s+(?:of|for|de|del|des|du|der|do|da)\s+(?:(?:the|a|an|each|every|all|any|his|her|their|this|that|la|le|les"
    r"|el|los|las|die|das|den|o|os|as)\s+)?([^\W\d_]+)",
    re.IGNORECASE,
)
"""A noun an error word is "of"/"for": the answer's ("the error of your answer") or a quantity
("of at most", "of 10^{-6}") are the answer's; any other is an owner ("the tolerance of the
townsfolk", "la tolérance des habitants")."""
_NOT_AN_OWNER = re.compile(
    r"(?:your|its|answers?|outputs?|results?|values?|solutions?|printed|computed|at|up|no|not|less|more|under|below"
    r"|most|la|respuesta|réponse|résultat|antwort|ausgabe|resposta|hasta|como|au|plus|moins|bis|höchstens|até|no"
    # what a contest's output is made of: "the error for each query", "of every coordinate"
    r"|quer(?:y|ies)|tests?|cases?|numbers?|coordinates?|lines?|reals?|floats?|queries|outputs?"
    r"|[a-z])$",
    re.IGNORECASE,
)
_GENITIVE_AFTER = re.compile(r"\s+([а-яё]+(?:ого|его|ых|их))\s+([а-яё]+)", re.IGNORECASE)
"""Russian names an error's owner in the genitive after it, no preposition: "допуск каждого
жителя" (the tolerance of each resident); "погрешность вашего ответа" is the answer's."""
_RUSSIAN_ANSWER = re.compile(r"ответ|вывод|результат|значени|числ|координат|выведенн", re.IGNORECASE)
_NOT_ABOUT_ANSWERS = re.compile(
    r"(?:time|timing|clock|memory|runtime|run-time|compile|compilation|时间|時間|内存|記憶|メモリ|시간|메모리"
    r"|времени|памяти|tiempo|memoria|temps|mémoire|zeit|speicher|tempo|memória)[\s_-]?(?:de\s|du\s)?$",
    re.IGNORECASE,
)
"""A word right before an error word that makes it an error of something else (the clock, memory,
a run): "time tolerance", "Runtime Error", "时间误差"."""
_OF_SOMETHING_ELSE = re.compile(
    r"\w{0,24}\s+(?:(?:of|in|de|del|do|da|der|des)\s+)?(?:the\s+|la\s+)?(?:time|timing|memory|clock|temps|tiempo|tempo"
    r"|mémoire|memoria|memória|zeit|speichers?|времени|памяти)\b",
    re.IGNORECASE,
)
"""The same words right after it: "tolérance de temps", "error de tiempo", "погрешность времени"."""
_GUARANTEE = re.compile(r"guarantee|保证|保證|保証|보장|гарантир|garantiza|garanti|garantiert|garantido", re.IGNORECASE)
"""A sentence guaranteeing something about the input states no bound on the answer's error ("it is
guaranteed that no two points differ by less than 10^{-3}")."""
_LOWER_BOUND = re.compile(
    r"at least|no less than|not less than|至少|不小于|不少于|以上|이상|не менее|не меньше|al menos"
    r"|au moins|mindestens|pelo menos",
    re.IGNORECASE,
)
"""Just before the number, or just after it (Japanese, Korean, Chinese): a lower bound ("differ by
at least 10^{-3}", "10^{-3} 以上"), not a bound on the error."""
_LOWER_WINDOW = 16
_ABSOLUTE = re.compile(r"\babsolu\w*|绝对|絶対|絕對|절대|абсолютн\w*", re.IGNORECASE)
_RELATIVE = re.compile(r"\brelativ(?!ely)\w*|相对|相対|相對|상대|относительн\w*", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？]|\n\s*\n")
_WORD_WINDOW = 16
"""How many characters before an error word are read for what it is an error of."""


def _value(found: re.Match[str]) -> float | None:
    mantissa, power, mantissa_sup, power_sup, e_mantissa, e_power, decimal = found.groups()
    try:
        if power is not None:
            value = float((mantissa or "1").replace(",", ".")) * 10.0 ** (-int(power))
        elif power_sup is not None:
            value = float((mantissa_sup or "1").replace(",", ".")) * 10.0 ** (-int(power_sup.translate(_SUPERSCRIPT)))
        elif e_power is not None:
            value = float(e_mantissa) * 10.0 ** (-int(e_power))
        else:
            value = float(decimal.replace(",", "."))
    except ValueError:
        return None
    # A bound is a small positive number; 0 or one of 1 and above bounds nothing a checker reads.
    return value if 1e-15 <= value < 1 else None


def _bounds(sentence: str) -> list[tuple[int, float]]:
    """``(position, value)`` of the bounds in ``sentence`` that are not a time, a size or a lower
    bound."""
    found: list[tuple[int, float]] = []
    for count, match in enumerate(_BOUND.finditer(sentence)):
        if count >= 64:  # a sentence of numbers (a table, a hostile statement): the first are read
            break
        value = _value(match)
        if value is None or _UNIT_AFTER.match(sentence, match.end()):
            continue
        near = sentence[max(0, match.start() - _LOWER_WINDOW) : match.start()]
        near += " " + sentence[match.end() : match.end() + 6]
        if not _LOWER_BOUND.search(near):
            found.append((match.start(), value))
    return found


def _first_word(pattern: re.Pattern[str], sentence: str, owners: bool = False) -> int | None:
    """Where ``pattern``'s first word stands in ``sentence`` that is not an error of time or
    memory (the first few read: each costs a bounded look around it); ``owners`` (round 15): nor
    one owned by something other than the answer (``_OWNED_BEFORE``, ``_OWNED_AFTER``)."""
    for count, m in enumerate(pattern.finditer(sentence)):
        if count >= 32:
            return None
        if _NOT_ABOUT_ANSWERS.search(sentence, max(0, m.start() - _WORD_WINDOW), m.start()):
            continue
        if _OF_SOMETHING_ELSE.match(sentence, m.end()):
            continue
        if owners and _owned_elsewhere(sentence, m):
            continue
        return m.start()
    return None


def _owned_elsewhere(sentence: str, m: re.Match[str]) -> bool:
    before = sentence[max(0, m.start() - 2 * _WORD_WINDOW) : m.start()]
    if _NUMBER_TYPE.search(before):  # "double precision": a number type's
        return True
    owned = _OWNED_BEFORE.search(before)
    if owned is not None:
        # the possessive's, particle's or relative's noun; for "has" the subject may stand further
        # back ("each answer must have an error"): the look covers what stands before the verb
        owner = owned.group(1) or owned.group(2) or before[: owned.start(3) + len(owned.group(3) or "")]
        if owned.group(4) is not None or not _ANSWER_OWNER.search(owner):
            return True
    genitive = _GENITIVE_AFTER.match(sentence, m.end())
    if genitive is not None and not _RUSSIAN_ANSWER.match(genitive.group(2)):
        return True
    after = _OWNED_AFTER.match(sentence, m.end())
    return after is not None and not _NOT_AN_OWNER.match(after.group(1))


def _sentences(statement: str) -> list[str]:
    pieces, start = [], 0
    for end in _SENTENCE_END.finditer(statement):
        pieces.append(statement[start : end.end()])
        start = end.end()
    pieces.append(statement[start:])
    return pieces


def stated_bound(statement: str, reading: str = "v5") -> tuple[float, float] | None:
    """``(abs_tol, rel_tol)`` the statement states (the module's reading), or None. ``reading``:
    ``"v5"`` (round 15's, the default) or ``"v4"`` (round 14's: no precision words, no test that
    the bound is the answer's)."""
    if not isinstance(statement, str):
        return None
    v5 = reading != "v4"
    for sentence in _sentences(statement[:200_000]):
        bounds = _bounds(sentence)
        if not bounds or _GUARANTEE.search(sentence):
            continue
        about = not v5 or bool(
            _ABOUT_ANSWERS.search(sentence) or _ABSOLUTE.search(sentence) or _RELATIVE.search(sentence)
        )
        error = _first_word(_ERROR_WORD, sentence, owners=v5)
        if error is None and v5:
            error = _first_word(_PRECISION_WORD, sentence, owners=True)
        anchor = error if error is not None else _first_word(_DIFFERENCE_WORD, sentence, owners=v5)
        if anchor is None:
            continue
        if not about and (anchor > 80 or not _HEADING.match(sentence[:anchor])):
            continue  # a story's number (round 15): no answer named, the error not the subject
        after = [value for at, value in bounds if at > anchor]
        tolerance = after[0] if after else bounds[-1][1]  # Japanese and Korean may put it first
        relative = _RELATIVE.search(sentence) is not None
        if relative or (error is not None and _ABSOLUTE.search(sentence) is None):
            return tolerance, tolerance
        return tolerance, 0.0
    return None


__all__ = ["stated_bound"]
