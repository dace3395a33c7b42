"""Round 12: what the writer says of its OWN answer is read for its sense, not for the words it shares with doubt.

Round 11 paid a first-person belief that leads into an answer ("I think the answer is \\boxed{3}", "Je pense que la
réponse est ...") and refused doubt words anywhere near it. Two honest shapes were refused by that reading:

* a verb-final belief: Japanese and Korean put "I think" AFTER what is thought, so "答えは\\boxed{3}だと思います" and
  "정답은 \\boxed{3}인 것 같습니다" are the word-for-word "I think the answer is 3", not "\\boxed{3}, I think."; it is
  read as the English lead-in is, only where it closes the answer's own sentence (the quotative, the belief verb,
  the sentence's end: nothing else in the clause, so "3か4だと思います", "3だと思いますが、4かもしれません" and a
  modal in the lead-in, "たぶん", are still read by the other readings);
* doubt negated outright: "No doubt.", "Without a doubt.", "I have no doubt about it.", "Sans aucun doute.",
  "Sin duda.", "Ohne Zweifel.", "間違いありません。", "틀림없습니다." say the answer is certain. Only a whole clause
  of certainty counts (set off on both sides: the sentence's or a comma's edges), never one negated again ("Not
  without doubt."), graded ("little doubt", "fairly sure") or going on ("No doubt it's 4"): the clause is removed
  from the tail before the other readings, so whatever surrounds it is read as before.

``denied_belief`` is the other side of the verb-final reading: "정답은 \\boxed{3}이라고 생각하지 않습니다" ("I do not
think the answer is 3") and "答えは\\boxed{3}だと思いません" take the answer back, whatever else is read.

Linear in the text (anchored regexes, bounded windows); never raises on any ``str``.
"""

from __future__ import annotations

import re

# Where a clause of certainty may start and end: the text's start, a sentence end, a set-off mark, a line break.
_EDGE_BEFORE = r"(?:^|(?<=[.!?。！？\n,;:，；：\u2014\u2013(]))"
_EDGE_AFTER = r"(?=\s*(?:[.!。！,;，；\n]|$))"
# Certainty in the languages the project claims (and it, pt): each a whole clause, no grade ("fairly sure" is
# doubt of a degree) and no negation ("not sure"). French "sans doute" means "probably": only "sans AUCUN doute".
_CERTAIN = (
    r"(?:(?:i\s+have|i've\s+got|there\s+is|there's|with)\s+)?no\s+doubt(?:\s+(?:about|of)\s+(?:it|this|that))?"
    r"(?:\s+(?:whatsoever|at\s+all))?"
    r"|without\s+(?:a|any)\s+(?:shadow\s+of\s+(?:a\s+)?)?doubt|beyond\s+(?:a\s+|any\s+|all\s+)?(?:reasonable\s+)?doubt"
    r"|undoubtedly|(?:i\s+am|i'm)\s+(?:absolutely\s+|completely\s+|entirely\s+|totally\s+|100\s*%\s+)?"
    r"(?:sure|certain|confident)(?:\s+(?:of|about)\s+(?:it|this|that))?"
    r"|ohne\s+(?:jeden\s+)?zweifel|kein(?:en)?\s+zweifel|zweifellos|zweifelsohne|(?:da\s+)?bin\s+ich\s+(?:mir\s+)?sicher"
    r"|ich\s+bin\s+(?:mir\s+)?(?:da\s+)?sicher"
    r"|sans\s+aucun\s+doute|(?:il\s+n'y\s+a\s+)?aucun\s+doute(?:\s+là-dessus)?|j'en\s+suis\s+(?:s[uû]r|certain)e?"
    r"|je\s+suis\s+(?:s[uû]r|certain)e?|sin\s+(?:ninguna\s+)?duda(?:\s+alguna)?|no\s+hay\s+(?:ninguna\s+)?duda"
    r"|estoy\s+segur[oa]|senza\s+(?:alcun\s+)?dubbio|sono\s+sicur[oa]|sem\s+(?:nenhuma\s+)?dúvida|tenho\s+certeza"
)
_CERTAIN_CLAUSE = re.compile(
    r"(?<![^\s$})\]])[ \t]*[(（][ \t]*(?:"
    + _CERTAIN
    + r")[ \t]*[)）]"  # "(no doubt)": the brackets go with it
    + "|"
    + _EDGE_BEFORE
    + r"[ \t*_]*(?:"
    + _CERTAIN
    + r")[ \t*_]*"
    + _EDGE_AFTER,
    re.IGNORECASE,
)
# In scripts without spaces the clause is bounded by punctuation (or the text's edges) on both sides.
_CJK_EDGE_BEFORE = r"(?:^|(?<=[.!?。！？\n,;:，；：、\s]))"
_CJK_CERTAIN = re.compile(
    _CJK_EDGE_BEFORE
    + r"(?:毫无疑问|毫無疑問|确定无疑|確定無疑|无疑|無疑|間違いありません|間違いない|間違いないです|確かです|確実です"
    r"|틀림없습니다|틀림없어요|틀림없다|확실합니다|의심의\s*여지가\s*없습니다)" + _EDGE_AFTER
)
# A negation right before a clause of certainty turns it back into doubt ("Not without doubt", "nicht ohne Zweifel").
_NEGATED_BEFORE = re.compile(r"(?:not|never|hardly|nicht|nie|pas|jamais|no|nunca|non|não)[\s,]*$", re.IGNORECASE)

# The verb-final belief closing the answer's sentence, right after the answer (closing math and spacing first):
# ja: (だ|である) と 思います/考えます/信じています; ko: (이)라고 생각합니다/믿습니다, 인/일 것 같습니다.
_CLOSE = r"[\s$)\]}*_]*"
_JA_BELIEF = (
    r"(?:だ|である|です)?\s*と\s*(?:思|考え|信じ|確信し)"
    r"(?:います|ます|る|う|ています|ている|ております|われます|っています|っている)"
)
_KO_BELIEF = (
    r"(?:이|가)?\s*(?:이?라고|다고)\s*(?:생각|믿|확신)(?:합니다|해요|한다|됩니다|돼요|습니다|어요|는다|해|어)"
    r"|(?:인|일)\s*것\s*같(?:습니다|아요|다|아)"
)
_BELIEF_CLOSING = re.compile(_CLOSE + r"((?:" + _JA_BELIEF + "|" + _KO_BELIEF + r"))(?=\s*(?:[.!。！\n]|$))")
# The same belief negated, or the answer denied before it: "생각하지 않습니다", "と思いません", "ではないと思います".
_BELIEF_DENIED = re.compile(
    _CLOSE + r"(?:(?:だ|である)?\s*と\s*(?:は\s*)?(?:思|考え|信じ)(?:いません|いない|わない|えない|ません|ていません)"
    r"|(?:で|じゃ)\s*(?:は)?\s*(?:ない|ありません)\s*と\s*(?:思|考え)"
    r"|(?:이|가)?\s*(?:이?라고|다고)\s*(?:생각|믿)(?:하지|지)\s*(?:않|못)"
    r"|(?:이|가)?\s*(?:아니(?!면)|아닙|아닌|아냐)|(?:인|일)\s*것\s*같지\s*않)"
)
_WINDOW = 400


def settled(text: str) -> str:
    """``text`` with every clause that states certainty about the answer removed ("No doubt.", ", without a doubt,",
    "Sans aucun doute.", "毫无疑问。"), so the readings after it see only what surrounds it. Unchanged otherwise."""
    if not isinstance(text, str) or not text:
        return "" if not isinstance(text, str) else text
    low = text.casefold()
    if not any(k in low for k in _CERTAIN_KEYS) and (text.isascii() or _CJK_CERTAIN.search(text) is None):
        return text  # the common case: no word a certainty clause starts with
    out, at = "", 0
    for found in sorted((*_CERTAIN_CLAUSE.finditer(text), *_CJK_CERTAIN.finditer(text)), key=lambda m: m.start()):
        if found.start() < at or _NEGATED_BEFORE.search(text[max(0, found.start() - 12) : found.start()]):
            continue
        before = (out + text[at : found.start()]).rstrip(" \t*_")
        end = _TERMINAL.match(text, found.end())
        if not before or before[-1] in ".!?。！？\n":
            at = end.end() if end is not None else found.end()  # a sentence of its own: its end mark goes too
        else:
            before = before.rstrip(",;:，；：\u2014\u2013")  # a clause set off: its opening mark goes
            at = found.end()
        out = before
    return out + text[at:] if at else text


_TERMINAL = re.compile(r"\s*[.!。！]")
_CERTAIN_KEYS: tuple[str, ...] = ("doubt", "sure", "certain", "confident", "zweifel", "sicher", "doute", "duda")
_CERTAIN_KEYS += ("dubbio", "dúvida", "seguro", "segura", "sicuro", "sicura", "certeza", "s\u00fbr", "doubtedly")


def without_belief(after: str) -> str:
    """``after`` with a verb-final first-person belief that closes the answer's sentence right after it removed
    ("だと思います", "인 것 같습니다", "이라고 생각합니다"); the closing math and the sentence's end are kept."""
    if not isinstance(after, str) or after.isascii():
        return after
    found = _BELIEF_CLOSING.match(after[:_WINDOW])
    return after[: found.start(1)] + after[found.end(1) :] if found is not None else after


# Round 13: the same belief closing an answer written without a box ("答えは3だと思う。", "정답은 3이라고 생각합니다"):
# right after the value (a digit or a closing bracket) and ending the phrase.
_BELIEF_ENDING = re.compile(r"(?<=[\d})\]$])" + _CLOSE + r"((?:" + _JA_BELIEF + "|" + _KO_BELIEF + r"))[\s.!。！]*$")


def without_closing_belief(phrase: str) -> str:
    """An answer phrase read without a box ("3だと思う", "3이라고 생각합니다") without the verb-final belief that
    closes it, as ``without_belief`` reads one after a box; unchanged otherwise (a denied belief, "3ではないと思う",
    has no value right before its verb and is left to the hedge readings)."""
    if not isinstance(phrase, str) or phrase.isascii():
        return phrase
    window = phrase[-_WINDOW:]
    found = _BELIEF_ENDING.search(window)
    if found is None:
        return phrase
    return phrase[: len(phrase) - len(window) + found.start(1)].rstrip()


def denied_belief(after: str) -> str | None:
    """A verb-final belief or copula that takes the answer back right after it ("이라고 생각하지 않습니다",
    "と思いません", "ではないと思います", "가 아니다"), or None."""
    if not isinstance(after, str) or after.isascii():
        return None
    found = _BELIEF_DENIED.match(after[:_WINDOW])
    return found.group(0).strip(" \t$)]}*_") if found is not None else None


# Round 12: an answer attributed to someone else in its lead-in ("My friend claims \\boxed{3}", "The user guessed
# \\boxed{4}", "Bob thinks the answer is \\boxed{3}", "Mein Freund behauptet, die Antwort sei", "他认为答案是") is
# what another said, not the writer's answer. A verb of opinion takes a claim, never a quantity ("John said 120
# words" counts what he said), so only those verbs, and "said/wrote/answered" followed by "that" or "the answer is",
# with a subject that is not the writer (I, we).
_OPINION = (
    r"claims?|claimed|thinks|thought|believes|believed|suggests|suggested|proposes|proposed|guess(?:es|ed)"
    r"|argues|argued|insists|insisted|reckons|reckoned|asserts|asserted|contends|contended|supposes|supposed|expects"
    r"|expected|predicts|predicted|feels|felt"
)
_SAYING = r"says|said|wrote|writes|answered|answers|replied|replies|told\s+me|reports|reported|states|stated"
_NOT_WRITER = r"(?!(?:i|we|i'd|we'd|i've|we've)(?![\w']))"
_ATTRIBUTED = re.compile(
    r"(?:^|[.!?:;,\n(]\s*|\b(?:but|and|while|whereas)\s+)" + _NOT_WRITER + r"(?:[\w'’-]+\s+){1,3}?"
    r"(?:(?:" + _OPINION + r")(?:\s+that)?|(?:" + _SAYING + r")\s+(?:that|the\s+answer\s+(?:is|was|would\s+be)|:))"
    r"(?:\s+(?:the\s+answer|it|the\s+result)\s+(?:is|was|would\s+be|should\s+be|must\s+be))?[\s:,\"“'‘]*$"
    # de, fr, es: a third person's opinion verb before the answer
    r"|(?:behauptet|meint|glaubt|denkt|vermutet|prétend|affirme|pense|croit|suppose|afirma|cree|piensa|supone|sostiene)"
    r"(?:\s*,?\s*(?:dass|que|qu')?\s*(?:die\s+antwort\s+(?:sei|ist|wäre)|la\s+réponse\s+est|la\s+respuesta\s+es)?)?[\s:,\"“]*$"
    # zh: a third person (not 我/我们) saying or thinking it
    r"|(?:他|她|他们|她们|朋友|同学|老师|用户|别人|有人|某人)[^。！？\n我]{0,8}?(?:说|认为|声称|猜|觉得|以为)(?:答案是|是)?[\s：:，,]*$",
    re.IGNORECASE,
)
_OPENING_MARKS = re.compile(r"(?:<[A-Za-z][^<>]{0,40}>|\\(?:boxed|fbox)\s*\{|[$*_(\[{\s])+$")
_WORD = re.compile(r"[^\W\d_]+")
_ATTRIBUTION_WORDS = frozenset(
    """claim claims claimed think thinks thought believes believed suggests suggested proposes proposed guesses guessed
    argues argued insists insisted reckons reckoned asserts asserted contends contended supposes supposed expects
    expected predicts predicted feels felt says said wrote writes answered answers replied replies told reports
    reported states stated behauptet meint glaubt denkt vermutet prétend affirme pense croit suppose afirma cree piensa
    supone sostiene""".split()
)
_FIRST_PERSON_OPINION = re.compile(r"(?<![\w'])(?:je|ich|yo|creo|pienso)(?![\w'])", re.IGNORECASE)


def attributed(lead: str) -> str | None:
    """The words that attribute the answer right after ``lead`` to someone other than the writer, or None."""
    if not isinstance(lead, str) or not lead.strip():
        return None
    window = lead[-_WINDOW // 2 :]
    low = window.casefold()
    if _ATTRIBUTION_WORDS.isdisjoint(_WORD.findall(low)) and not any(c in window for c in "说认声猜觉以"):
        return None  # speed: the common lead-in holds no verb of opinion or saying (a set lookup, not the regex)
    tail = _OPENING_MARKS.sub("", window)  # "claims <answer>", "claims $\\boxed{": what opens the answer
    found = _ATTRIBUTED.search(tail)
    if found is None:
        return None
    said = found.group(0).strip(" \t\n.!?:;,(\"“'‘")
    clause = tail[max(0, found.start() - 40) : found.end()]
    if _FIRST_PERSON_OPINION.search(clause) and not re.search(r"(?:behauptet|meint|glaubt|denkt|vermutet)", said):
        return None  # "je pense que", "creo que": the writer's own belief (round 11 pays it)
    return said or None
