"""What a reader can read in the words after a final answer (shared by ``rlvr_envs.answer_tail``).

Two allow-lists and one normalisation, so that a hedge cannot hide in a language or a layout no
lexicon reads:

* ``unread_language``: letters of no covered alphabet, or words that no ONE covered language's
  vocabulary (its function words, English's common words of a solution) mostly covers, beside
  names, closing words ("QED", "Good luck") and the task's own words, are a tail nobody can vouch for;
* ``UNREAD_SIGN``: symbols no language reads after an answer (emoji, check and cross marks, Braille);
* ``readable``: the text as a reader sees its words (TeX spaces, HTML entities and tags, markdown
  emphasis, spaced-out and look-alike letters undone), before any lexicon reads it.

Linear in the text's length; never raises on any ``str``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable

# Letters a lexicon covers: Latin (with the letters of the covered languages), Greek, Russian and
# Ukrainian Cyrillic, Hebrew, Arabic with Persian's letters, Devanagari, Bengali, CJK, kana, Hangul.
_READ_LETTERS = re.compile(
    "[A-Za-z\u00c0-\u00ff\u0102-\u0107\u010c-\u0111\u0116-\u011b\u011e\u011f\u0130\u0131\u0139\u013a"
    "\u013d\u013e\u0141-\u0144\u0147\u0148\u0150-\u0155\u0158-\u0165\u016e-\u0171\u0179-\u017e"
    "\u01a0\u01a1\u01af\u01b0\u0218-\u021b\u1ea0-\u1ef9\u0370-\u03ff\u1f00-\u1fff\u0401\u0404\u0406\u0407"
    "\u0410-\u044f\u0451\u0454\u0456\u0457\u0490\u0491\u05d0-\u05ea\u0621-\u064a\u0671\u067e\u0686\u0698"
    "\u06a9\u06af\u06cc\u0900-\u097f\u0980-\u09ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f\u00aa\u00ba]"
)
# Chinese characters written in Cantonese only ("唔" not, "嘅" of, "咗" done, "冇" have not): Chinese letters
# of a language no lexicon covers.
_UNREAD_HAN = re.compile("[唔嘅咗啲冇佢嚟哋喺啱嘢咩嘞]")
LETTER_RUN = re.compile(r"[^\W\d_]+")
_LATEX_ENVIRONMENT = re.compile(r"\\(?:begin|end)\s*\{[^{}]{0,40}\}")
LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
# Chat-template tokens and markup say nothing about the answer ("<|im_start|>user", "</answer>").
MARKUP = re.compile(r"<\|[^|<>]{0,40}\|>|</?[A-Za-z][^<>]{0,80}>")
# Words of each covered language that reading a tail relies on: its function words (closed classes) and, for
# English, the common words of a worked solution. A clause after the answer is read only when these cover
# enough of its words in ONE language: one function word ("por", "i", "er") cannot vouch for a clause of
# words no list knows. Languages sharing a line share a reading (Scandinavian "er"/"är").
_VOCABULARY_TEXT = {
    "en": """a an the is are was were be been being am it its this that these those which who whom whose what as so
    since because for of to in on at by with from and or but nor not no we our us i my me you your he she they their
    them there here then than thus hence therefore total answer answers final result results value values correct
    right exactly only units unit each per all both one two three four five six seven eight nine ten eleven twelve
    first second third half into onto over under between about after before through out up down off again also just
    now still very more most less least much many some any every other another such same own has have had having do
    does did done doing can could will would shall should may might must get gets got give gives given giving
    make makes made take takes use used using via where when how why if let see note like know hope helps help
    way ways number numbers sum product difference quotient remainder equal equals equation equations solution
    solutions solve solved solving find found check checks checked satisfies satisfy holds hold works work true
    indeed clearly simply follows following above below previous next last case cases step steps method
    problem question required desired possible integer integers positive negative real whole point points
    side sides area length width height angle angles degrees measure time times together altogether
    remaining left people person items item money cost costs price dollars cents hours minutes seconds days
    weeks years miles feet inches meters needed need needs means mean option choice
    letter expression simplified form simplest terms exact rounded nearest cent cm km kg square cubic
    equivalently alternatively namely specifically similarly respectively finally accordingly precisely definitely
    certainly obviously surely consequently decimal fraction fractions percent written expressed notation words
    again verify verified confirm confirms confirmed correctly matches match consistent expected hmm well odd even
    fail fails would wrong prime divisible divides factor factors digit digits root roots term terms sequence
    complex rational irrational distinct ordered pair pairs triple triples different such outcome outcomes subset
    subsets lattice triangle triangles square squares vertex vertices edge edges face faces primes divisor divisors
    zero zeros students marbles balls coins cards dice boxes rows columns ones tens hundreds letters colors
    independent dependent regardless inclusive exclusive overall altogether mm ml lb lbs oz ft yd mi mph sec min hr
    hrs units²""",
    "de": """endergebnis null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf
    der die das den dem des ein eine einen einem einer ist sind war und oder aber nicht mit von zu im auf für
    also da weil ergebnis antwort lösung gleich somit daher insgesamt beträgt lautet wir es ich hoffe das hilft in
    dies diese dieser damit wenn dann nach aus bei noch nur wie auch sich hat haben wird werden kann
    probe bestätigt bestätigen überprüft geprüft stimmt richtig passt""",
    "fr": """zéro deux trois quatre cinq six sept huit neuf dix onze douze
    le la les un une est sont et ou mais pas de du des en au aux avec pour donc car réponse résultat
    solution égal égale vaut ainsi alors nous il elle ce qui que cela ceci espère aide aider dans sur par plus
    comme tout tous bien être fait leur sont cette ces vérifie vérifié vérifiée vérification cohérent concorde
    facilement""",
    "es": """cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce
    el los las es son y o pero no con por para del al que como respuesta resultado solución igual
    entonces así tanto una un lo espero esto ayude ayuda este esta estos más muy sin sobre también ser fue ha
    hay todo todos bien decir cual comprueba comprobado comprobación verifica verificado concuerda fácilmente""",
    "it": """il lo gli è e ma non di da per che con risposta risultato soluzione uguale quindi dunque una uno spero
    questo aiuti della delle sono nel alla anche come più cioè""",
    "pt": """os as um uma é são mas não com do da por resposta resultado solução igual então portanto ou seja isto
    espero isso ajude ajuda dos das em no na se mais que como também""",
    "nl": """het een zijn en maar niet met voor dus antwoord uitkomst gelijk de is""",
    "pl": """jest są i lub ale nie z do na że odpowiedź wynik równa się więc""",
    "tr": """bir ve veya ama değil ile için bu cevap sonuç eşittir yani""",
    "id": """adalah dan atau tetapi tidak dengan untuk yang ini itu jawaban jawapan ialah hasil jadi sama""",
    "vi": """là và hoặc nhưng không với của cho này đáp án kết quả bằng vậy""",
    "sw": """ni na au lakini si kwa ya wa la jibu sawa""",
    "tl": """ay at o ngunit hindi sa ng ang mga sagot""",
    "fi": """on ja tai mutta ei se vastaus tulos""",
    "cs": """je a nebo ale ne se odpověď výsledek""",
    "ro": """este și sau dar nu cu pentru răspunsul rezultatul""",
    "nordic": """är och eller men inte med för svaret er og ikke svar resultatet""",
    "hu": """az és vagy de nem egy válasz eredmény""",
    "ru": """что это как так потому поскольку ответ равно равен равна или также итак значит тогда есть получаем
    поэтому всего число результат надеюсь поможет помогло он она они мы вы все был была было будет может для при
    только же""",
    "uk": """що або також відповідь дорівнює тому отже всього число результат""",
    "hi": """है हैं था थी थे का की के को में से पर और या यह वह इस उस एक कि तो भी नहीं उत्तर होगा होता होती हो गया
    जो कुल बराबर अतः इसलिए लिए साथ परिणाम""",
    "ar": """هو هي في من على إلى أن إن ما لا هذا هذه ذلك التي الذي و أو ثم الإجابة الجواب يساوي النتيجة إذن""",
    "fa": """است و در به از که این آن را با پاسخ برابر یا هم جواب نتیجه پس""",
    "he": """זה זו הוא היא של את על עם כי לא גם או אבל התשובה תשובה שווה ולכן לכן כלומר כך יש אין הם אנחנו כל
    מספר סך הכול התוצאה""",
    "bn": """এবং বা কিন্তু না উত্তর হল হলো হয় এটি এই যে তাই সুতরাং সমান মোট ফলাফল আমরা পাই করে""",
}
_VOCABULARY = {lang: frozenset(text.split()) for lang, text in _VOCABULARY_TEXT.items()}
_FUNCTION_WORDS = frozenset().union(*_VOCABULARY.values())
_LANGUAGES_OF: dict[str, tuple[str, ...]] = {
    word: tuple(lang for lang, vocabulary in _VOCABULARY.items() if word in vocabulary and lang != "en")
    for word in _FUNCTION_WORDS
}
"""word -> the covered languages other than English whose vocabulary holds it (``_best_read`` looks words up
once instead of once per language)."""
# Letters shared by several languages, only some of them covered (Devanagari: Hindi and Nepali, Marathi; the
# Arabic alphabet: Arabic, Persian and more; Hebrew's: Hebrew and Yiddish; Bengali's: Bengali and Assamese): a
# word in them is read only as vocabulary, as in Latin letters.
_SHARED_SCRIPT_WORD = re.compile(
    "[\u0900-\u0963\u0971-\u097f]+|[\u0621-\u065f\u0670-\u06d3]+|[\u0591-\u05f4]{2,}|[\u0980-\u09e3\u09f0-\u09fe]+"
)


# A dotted abbreviation is one word ("q.e.d." -> "qed", "d.h." -> "dh", "e.g." -> "eg", "i. e." -> "ie"): read
# letter by letter, each letter was a word of no language, so "\\boxed{3} (q.e.d.)" was refused (round 11).
_DOTTED = re.compile(r"(?<![\w.])(?:[^\W\d_]\.\s?){1,4}[^\W\d_](?![\w])\.?")


def undotted(text: str) -> str:
    """``text`` with each dotted abbreviation written as one word ("q.e.d." -> "qed")."""
    return _DOTTED.sub(lambda m: re.sub(r"[.\s]", "", m.group(0)), text) if "." in text else text


def unread_language(
    sentence: str,
    known: frozenset[str] = frozenset(),
    stands: Callable[[str], bool] | None = None,
    min_words: int | None = None,
    share: float = 0.4,
) -> str | None:
    """Words in the rest of the answer's sentence that no covered language can vouch for, or None.

    A letter outside the covered alphabets is read at once. Words in letters several languages share
    (Latin, Cyrillic, Devanagari, Arabic) need evidence: at least ``share`` of them must be words of ONE
    covered language (its function words; for English the common words of a solution), names inside the
    sentence (no more of them than such words), or words any language may hold (``known``: lower-cased
    words that stand anyway, the task's own; ``stands``: a test for more such words, a family's units;
    closing words: "QED", "Good luck"). Words of one or two letters count only in English ("de", "ma",
    "da", "er" are words of many languages)."""
    text = undotted(MARKUP.sub(" ", LATEX_COMMAND.sub(" ", _LATEX_ENVIRONMENT.sub(" ", sentence[:400]))))
    words: list[str] = []
    names: set[str] = set()
    for word in LETTER_RUN.findall(text):
        if any(_READ_LETTERS.match(ch) is None for ch in word) or _UNREAD_HAN.search(word):
            if len(word) > 1 or not ("\u0370" <= word <= "\u03ff"):  # one Greek letter is a variable
                return word
        elif (word.isascii() and (len(word) > 1 or word.lower() in _ENGLISH_SHORT)) or (
            len(word) > 1 and _LATIN_OR_CYRILLIC.match(word)
        ):
            if words and len(word) > 2 and word[0].isupper() and word[1:].islower():
                names.add(word.lower())  # "Vienna", "Donau": a name inside the sentence, in no one language
            words.append(word.lower())  # one other letter is a variable ("r/10")
    words += _SHARED_SCRIPT_WORD.findall(text)
    # A clause after a comma, dash or bracket ("\\boxed{3}, ma hubo") and a phrase run on after the value
    # ("\\boxed{3} okerra da", "</answer> hibás") are read from one word: a unit is a word ``stands`` reads.
    if len(words) < (min_words if min_words is not None else 1):
        return None
    neutral = 0
    counted: list[str] = []
    for word in words:
        if word not in _FUNCTION_WORDS and (  # a language's own word is evidence of that language
            word in known
            or word.rstrip("s") in known
            or word in _CLOSING_WORDS
            or (len(word) > 2 and stands is not None and stands(word))
        ):
            neutral += 1
        else:
            counted.append(word)
    if not counted:
        return None
    best = _best_read(counted)
    # Names stand beside the words of a language, never instead of them: up to as many names as words read
    # are left out of the count ("The Danube", "It flows through Vienna, Bratislava and Budapest"; not
    # "pero Dili Ko Sigurado").
    read = best + neutral
    named = min(sum(1 for w in counted if w in names and w not in _FUNCTION_WORDS), read)
    if read > share * (len(words) - named) and read + named >= min(2, len(words)):  # of two words, one is no evidence
        return None
    unread = [w for w in counted if w not in _FUNCTION_WORDS] or counted
    return " ".join(unread[:4])


def _read_anywhere(word: str, known: frozenset[str], stands: Callable[[str], bool] | None, shaped: bool = True) -> bool:
    """Whether one word is a word some covered language reads (its vocabulary, an English derivation, a closing
    word) or one that stands anyway (the task's own, a family's unit)."""
    w = word.casefold()
    return (
        w in _FUNCTION_WORDS
        or w in _CLOSING_WORDS
        or w in _STATES
        or (shaped and _ENGLISH_SHAPE.match(w) is not None)
        or w in known
        or w.rstrip("s") in known
        or (stands is not None and len(w) > 2 and stands(w))
    )


# One word set off from the answer by a comma, dash or bracket that ends its sentence ("\\boxed{3}, forsitan.",
# "\\boxed{3} (fortasse)"): a clause of its own, so it is read as one (", etc.", ", QED", ", respectively" are read).
_SET_OFF_WORD = re.compile(r"[\s$)\]}*_]*[,;(\[\u2013\u2014-]\s*([^\W\d_]+)\s*[)\].!…]*\s*$")
# The writer's own state after the answer ("but I am nuk sigurt", "I'm jo i sigurt"): a clause
# about how sure the writer is must be read word by word; English function words around it vouch for nothing.
_WRITER_STATE = re.compile(
    r"(?<![\w'])(?:i\s+am|i['’]m|i\s+feel|i['’]m\s+feeling)"
    r"\s+((?:[^\W\d_]+[\s,]*){1,4})",
    re.IGNORECASE,
)


_STATES = frozenset(
    "sure certain confident positive convinced glad happy pleased ready satisfied fairly quite pretty".split()
)


def unread_aside(
    sentence: str, known: frozenset[str] = frozenset(), stands: Callable[[str], bool] | None = None
) -> str | None:
    """The one word set off after the answer that no covered language reads (", forsitan."), or the unread words
    of the writer's state ("but I am nuk sigurt"), or None."""
    text = undotted(MARKUP.sub(" ", LATEX_COMMAND.sub(" ", sentence[:400])))
    alone = _SET_OFF_WORD.match(text)
    if alone is not None and not _read_anywhere(alone.group(1), known, stands, shaped=False):
        return alone.group(1)
    state = _WRITER_STATE.search(text)
    if state is not None:
        unread = [w for w in LETTER_RUN.findall(state.group(1)) if len(w) > 1 and not _read_anywhere(w, known, stands)]
        if unread:
            return " ".join(unread[:4])
    return None


# English words the list does not hold, by their derivation ("arrangements", "combinations", "independent",
# "rearranging"): endings no covered or uncovered language's hedge words share in plain ASCII.
_ENGLISH_SHAPE = re.compile(
    r"[a-z]{3,}(?:tions?|sions?|ments?|ness|ities|ity|ences?|ances?|ents?|ants?|ous|ives?|ables?|ibles?|ically"
    r"|ized?|ings?|ated|ates)$"
)


def _best_read(words: list[str]) -> int:
    """``max(_read_in(words, vocabulary, language))`` over the covered languages, each word looked up once."""
    english = _VOCABULARY["en"]
    best = sum(1 for w in words if w in english or _ENGLISH_SHAPE.match(w))
    longer: dict[str, int] = {}
    short: dict[str, int] = {}
    for w in words:
        tally = longer if len(w) > 2 else short
        for language in _LANGUAGES_OF.get(w, ()):
            tally[language] = tally.get(language, 0) + 1
    for language, count in longer.items():
        best = max(best, count + short.get(language, 0))
    return best


def _read_in(words: list[str], vocabulary: frozenset[str], language: str) -> int:
    """How many of ``words`` one language reads. A word of one or two letters ("da", "er", "de") is a word of
    many languages: it counts only for English or beside a longer word of the same language ("la respuesta")."""
    if language == "en":
        return sum(1 for w in words if w in vocabulary or _ENGLISH_SHAPE.match(w))
    longer = sum(1 for w in words if len(w) > 2 and w in vocabulary)
    return longer + sum(1 for w in words if len(w) <= 2 and w in vocabulary) if longer else 0


# Words an honest answer is signed off with ("QED.", "Done.", "Good luck!", "Cheers!"): a line of them is read.
_CLOSING_WORDS = frozenset(
    """qed done good luck cheers thanks thank enjoy happy glad end finished complete completed solved
    verified checked correct yes indeed voilà voila tada nice great okay box boxed simplified fertig fin listo
    fine fim bitte merci gracias grazie obrigado obrigada danke vielen dank viel glück beaucoup bonne chance muchas
    buena suerte mille buona fortuna boa sorte спасибо удачи дякую dziękuję powodzenia bedankt succes teşekkürler
    teşekkür ederim şanslar terima kasih semoga berhasil cảm ơn chúc may mắn asante sana salamat kiitos onnea děkuji
    mulțumesc noroc tack lycka takk köszönöm sok sikert
    namely i.e. ie dh cqfd wzbw qef seja decir cioè dire heißt yani yaitu yakni tức есть""".split()
)
_LATIN_OR_CYRILLIC = re.compile(r"^[A-Za-z\u00c0-\u024f\u1e00-\u1eff\u0400-\u04ff]+$")
_ENGLISH_SHORT = frozenset("a an as at be by do go he i if in is it me my no of on or so to up us we".split())


# Formatting that splits a word or a phrase for the reader's eye only: TeX spaces ("not~sure",
# "not\\ sure", "\\quad"), HTML entities and tags ("not&nbsp;sure", "<details>or 4</details>"), markdown
# emphasis ("*not* sure"), letters spaced out ("m a y b e"), and look-alike letters of another script
# inside a Latin word ("mаybe" with a Cyrillic а). ``readable`` undoes them before the lexicon reads.
_TEX_SPACE = re.compile(
    r"~|\\[ ,;:!>]|\\(?:quad|qquad|space|enspace|thinspace|medspace|thickspace)(?![A-Za-z])|\\hspace\*?\{[^{}]{0,20}\}"
)
# A chat template's turn marker and the role after it ("<|im_start|>user"): the next turn, not a sentence.
CHAT_TURN = re.compile(r"<\|[^|<>]{0,40}\|>\s*(?:user|assistant|system|human|model|tool)?", re.IGNORECASE)
_ENTITY = re.compile(r"&(?:#\d{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z]{2,10});")
_EMPHASIS = re.compile(r"(?<=\w)[*`]+(?=\w)|(?<![\w*`])[*`]+(?=\w)|(?<=\w)[*`]+(?![\w*`])")
_SPACED_LETTERS = re.compile(r"(?<![^\s(\[,;:])(?:[^\W\d_] ){2,}[^\W\d_](?![^\s).,;:!?\]])")
_LOOKALIKE = str.maketrans(
    "аеорсухіјѕԁӏһԛԝАВЕКМНОРСТУХІЈЅοαινρτυκχεΑΒΕΗΙΚΜΝΟΡΤΥΧΖ",
    "aeopcyxijsdlhqwABEKMHOPCTYXIJSoaivptukxeABEHIKMNOPTYXZ",
)
# Every word; only one holding a Latin letter is folded. (Round 12: the pattern "[^\W\d_]*[A-Za-z][^\W\d_]*" backtracked
# over each start of a long run of other letters: 20,000 Japanese characters after an answer took 4.2 s.)
_LATIN_WORD_WITH_OTHERS = re.compile(r"[^\W\d_]+")
_ASCII_LETTER = re.compile(r"[A-Za-z]")


def _fold_lookalikes(word: re.Match[str]) -> str:
    text = word.group(0)
    return text.translate(_LOOKALIKE) if not text.isascii() and _ASCII_LETTER.search(text) else text


def readable(text: str) -> str:
    """``text`` as a reader sees its words: TeX spaces and HTML entities as spaces, tags and markdown
    emphasis removed, letters spaced out joined, look-alike letters inside Latin words made Latin."""
    if not text:
        return text
    text = _TEX_SPACE.sub(" ", text)
    if "&" in text:
        text = html.unescape(_ENTITY.sub(lambda m: html.unescape(m.group(0)), text)).replace("\xa0", " ")
    if "<" in text:
        text = MARKUP.sub(" ", CHAT_TURN.sub(" ", text))
    if "*" in text or "`" in text:
        text = _EMPHASIS.sub("", text)
    text = _SPACED_LETTERS.sub(lambda m: m.group(0).replace(" ", ""), text)
    if not text.isascii():  # composed as a reader sees it ("re\u0301ponse" is "réponse"), then look-alikes undone
        text = unicodedata.normalize("NFC", text)
        text = _LATIN_WORD_WITH_OTHERS.sub(_fold_lookalikes, text).translate(_QUESTION_MARKS)
    return text


# Question marks of other scripts and forms ("‽", "¿", Arabic "؟", Armenian "՞", "⁇"): a question as "?" is.
_QUESTION_MARKS = str.maketrans(
    dict.fromkeys("\u203d\u2047\u2048\u2049\u00bf\u061f\u055e\ufe16\ufe56\u2e2e\u037e", "?")
)


# A sign no language reads after an answer (emoji, check and cross marks, a shrug's ``¯``): other
# symbols of Unicode's classes So/Sk outside the units' own (``°``, ``℃``), letter-like signs (``ℕ``) and
# ASCII; Braille (``⠝⠕⠞``) is read by no lexicon either.
UNREAD_SIGN = re.compile(
    "[\u00a6\u00a8\u00a9\u00ae\u00af\u00b4\u00b8\u02c2-\u02c5\u02d2-\u02df"
    "\u2190-\u21ff\u2300-\u23ff\u2400-\u24ff\u2500-\u27bf\u2800-\u29ff"
    "\u2b00-\u2bff\u3200-\u33ff\U0001f000-\U0001faff\ufe0f\u200d]"
)


# An ASCII face after an answer (";)", ":/", ":-(", ":P", "XD"): a sign no language reads, as an emoji is. The smiles
# that only sign off (":)", ":-)", ":D", "=)") are the allow-list.
_FACE = re.compile(r"(?<!\S)(?:[:;=][-'^o]?[()\[\]/\\|pPdDoO03*$@sSxX]{1,3}|[xX][dD]|[(\\/][-'^]?[:;=])(?![^\s.,!])")
_SMILES = frozenset({":)", ":-)", ":D", ":-D", "=)", "(:", "=D", ":^)"})


def unread_face(text: str) -> str | None:
    """An ASCII face after the answer that is not a plain smile, or None."""
    for found in _FACE.finditer(text[:400]):
        if found.group(0) not in _SMILES:
            return found.group(0)
    return None


# Round 12 (H8's ``disguised_marker``): a take-back word spelled so that a byte comparison misses it and a reader does
# not: a combining grapheme joiner (U+034F) or another default-ignorable code point between its letters, fullwidth or
# mathematical-alphanumeric letters ("Ｏｒ", "𝐀𝐜𝐭𝐮𝐚𝐥𝐥𝐲"), text stored backwards under a right-to-left override (it
# displays forwards). ``folded`` gives the text in the order and letters a reader sees, before any reading.
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
# A right-to-left override (or embedding of RTL text) runs to its pop (U+202C), the next override or the line's end.
_OVERRIDE = re.compile("\u202e([^\u202a-\u202e\u2066-\u2069\n]*)(?:\u202c|(?=[\u202a-\u202e\u2066-\u2069\n])|$)")
_WIDE = re.compile("[\uff01-\uff5e\U0001d400-\U0001d7ff\u24b6-\u24e9]")
_SMALL_CAPS = str.maketrans("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ", "abcdefghijklmnoprstuvwyz")


def _narrow(found: re.Match[str]) -> str:
    c = found.group(0)
    folded = unicodedata.normalize("NFKC", c)
    return folded if folded.isascii() and (folded.isalnum() or c >= "\U0001d400" or "\u24b6" <= c <= "\u24e9") else c


def folded(text: str) -> str:
    """``text`` as a reader sees it, character by character: default-ignorable code points removed, a right-to-left
    override's run put in display order, fullwidth, circled, small-capital and mathematical letters and digits as ASCII
    (fullwidth punctuation stays: the CJK readings use it), and a disguised head word of the take-back lexicon (digits
    for letters, diacritics, spaced out) as that word (``disguised_words``)."""
    if not isinstance(text, str):
        return text
    if text.isascii():
        return disguised_words(text)
    if "\u202e" in text:
        text = _OVERRIDE.sub(lambda m: m.group(1)[::-1], text)
    text = _WIDE.sub(_narrow, _IGNORABLE.sub("", text)).translate(_SMALL_CAPS)
    if _MARKED_LETTER.search(text) is not None:
        text = _LATIN_MARKED.sub(_unmarked_head_word, text)
    if _OTHER_SCRIPT_WORD.search(text) is not None:
        text = _LINE.sub(_fold_disguised_line, text)
    return disguised_words(text)


def disguised_words(text: str) -> str:
    """``text`` with tokens that spell a head word of the take-back lexicon in digits for letters ("0r", "F1n4l
    4n$w3r") or spaced out ("o r") read as that word. Only a head word is produced: "x2", "3n", "a b" stay."""
    if not isinstance(text, str) or not text:
        return text
    if _DISGUISE_HINT.search(text) is None:
        return text  # the common case: no letter beside a digit or sign, no two lone letters
    text = _LEET_TOKEN.sub(_leet_head_word, text)
    return _SPACED_PAIR.sub(_joined_head_word, text)


def _joined_head_word(found: re.Match[str]) -> str:
    word = found.group(0).replace(" ", "")
    return word if word.lower() in _HEAD_WORDS else found.group(0)


# The head words of the English take-back lexicon (an alternative, a correction, a later answer, doubt): a disguised
# spelling is folded only onto one of these, the words a take-back needs.
_HEAD_WORDS = frozenset(
    """or either actually final answer but not sure unsure maybe perhaps probably wait correction wrong incorrect
    instead rather oops mistake it is""".split()
)
_LEET = str.maketrans("013457$@", "oleastsa")
_LEET_ALT = str.maketrans("013457$@", "oieastsa")
_LEET_TOKEN = re.compile(r"(?<![\w$@])(?=[\w$@]*[A-Za-z])(?=[\w$@]*[0-9$@])[A-Za-z0-9$@]{2,12}(?![\w$@])")
# A letter beside a digit ("0r", "n07"; "4n$w3r" has one too) or two lone letters: "x$" in TeX is no hint.
_DISGUISE_HINT = re.compile(r"[A-Za-z][0-9]|[0-9][A-Za-z]|(?<![^\W\d_])[A-Za-z] [A-Za-z](?![^\W\d_])")
_SPACED_PAIR = re.compile(r"(?<![^\W\d_])(?:[A-Za-z] ){1,11}[A-Za-z](?![^\W\d_])")


def _leet_head_word(found: re.Match[str]) -> str:
    token = found.group(0)
    for table in (_LEET, _LEET_ALT):
        word = token.translate(table)
        if word.lower() in _HEAD_WORDS:
            return word
    return token


# A Latin word with diacritics whose bare letters are a head word ("ôr", "Áctually"): no covered language writes those
# words with marks, so a reader reads the head word.
_MARKED_LETTER = re.compile("[\u00c0-\u024f\u1e00-\u1eff\u0300-\u036f]")
_LATIN_MARKED = re.compile("[A-Za-z\u00c0-\u024f\u1e00-\u1eff\u0300-\u036f]+")


def _unmarked_head_word(found: re.Match[str]) -> str:
    word = found.group(0)
    if word.isascii():
        return word
    bare = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
    return bare if bare.isascii() and bare.lower() in _HEAD_WORDS else word


# A word wholly of Cyrillic or Greek letters that each look like a Latin one ("Ог" for "Or", "Асtuаllу"): on a line
# whose every such word is made of look-alikes only, a reader reads Latin there. A line with one word of the script's
# own letters ("Ответ", "и") is that language, and stays as written.
_WHOLE_LOOKALIKE = str.maketrans("гпԍѵ", "rnGv")
_OTHER_SCRIPT_WORD = re.compile("[\u0370-\u03ff\u0400-\u052f]+")
_LINE = re.compile("[^\n]+")
_LOOKALIKE_LETTERS = frozenset("аеорсухіјѕԁӏһԛԝАВЕКМНОРСТУХІЈЅοαινρτυκχεΑΒΕΗΙΚΜΝΟΡΤΥΧΖгпԍѵ")


def _fold_disguised_line(line: re.Match[str]) -> str:
    text = line.group(0)
    words = _OTHER_SCRIPT_WORD.findall(text)
    if not words or not all(_LOOKALIKE_LETTERS.issuperset(w) for w in words):
        return text
    return _OTHER_SCRIPT_WORD.sub(lambda w: w.group(0).translate(_LOOKALIKE).translate(_WHOLE_LOOKALIKE), text)
