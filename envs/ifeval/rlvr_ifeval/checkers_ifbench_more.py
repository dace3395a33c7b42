"""IFBench's out-of-distribution instructions (allenai/IFBench), reference semantics: part 2.

Fixed-prompt tasks (``custom:*``), copying, word positions and output shape.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import re
import string
import unicodedata
from typing import Any, ClassVar

from rlvr_ifeval import text
from rlvr_ifeval.base import Checker, InstructionError, Param, register
from rlvr_ifeval.checkers_ifbench import drop_punctuation
from rlvr_ifeval.verbs import starts_with_verb

PUNCT = string.punctuation
_WHITESPACE = re.compile(r"\s")
# A line (split at "\n") whose first non-whitespace character is "*": ``line.strip().startswith("*")``.
_BULLET_LINE = re.compile(r"^[^\S\n]*\*", re.MULTILINE)
_STRIP = PUNCT + " "
EUROPEAN_CAPITALS_BY_LATITUDE = (
    "Reykjavik",
    "Helsinki",
    "Oslo",
    "Tallinn",
    "Stockholm",
    "Riga",
    "Moscow",
    "Copenhagen",
    "Vilnius",
    "Minsk",
    "Dublin",
    "Berlin",
    "Amsterdam",
    "Warsaw",
    "London",
    "Brussels",
    "Prague",
    "Luxembourg",
    "Paris",
    "Vienna",
    "Bratislava",
    "Budapest",
    "Vaduz",
    "Chisinau",
    "Bern",
    "Ljubljana",
    "Zagreb",
)


def _ascii_fold(value: str) -> str:
    return unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")


class _FixedPrompt(Checker):
    """The instruction is the whole prompt; the reference ignores whatever kwargs it is given."""

    ignores_extra_kwargs = True


@register("custom:multiples")
class MultiplesOfSeven(_FixedPrompt):
    short_answer = True

    def check(self, response: str) -> bool:
        return re.findall(r"\d+", response.replace(",", ", ")) == ["14", "21", "28", "35", "42", "49"]


@register("custom:mcq_count_length")
class MultipleChoiceQuestions(_FixedPrompt):
    # The reference splits on r"\n*(?:Question \d+[\.|\):;]?\s*)"; from inside a run of newlines
    # that is not followed by a question it rescans the rest of the run (quadratic). Every
    # position of a run reaches the same end, and a match never ends inside a run (its \s* takes
    # all of it), so a run is tried from its start only: the same matches, each run scanned once.
    _split = re.compile(r"(?:(?<!\n)\n+)?Question \d+[\.|\):;]?\s*")
    _option = re.compile(r"^[A-Ea-e][\.|\)]\s*\w+")

    def check(self, response: str) -> bool:
        if response[response.find("Question") :] != response:  # anything before the first question
            return False
        questions = [q.strip() for q in self._split.split(response) if q.strip()]
        if len(questions) != 4:
            return False
        lengths = []
        for question in questions:
            stem, options, in_options = "", 0, False
            for line in question.split("\n"):
                if self._option.match(line.strip()):
                    options += 1
                    in_options = True
                elif not in_options:
                    stem += " " + line.strip()
            if options != 5:
                return False
            lengths.append(len(stem.strip()))
        return all(a < b for a, b in itertools.pairwise(lengths))


@register("custom:reverse_newline")
class CountriesReverseOrder(_FixedPrompt):
    def check(self, response: str) -> bool:
        lines = [line.strip(_STRIP) for line in response.split("\n") if line.strip(_STRIP)]
        start = next((i for i, line in enumerate(lines) if "Zimbabwe" in line), None)
        if start is None or len(lines) - start < 52:
            return False
        folded = [_ascii_fold(line) for line in lines[start:]]
        return folded == sorted(folded, reverse=True)


@register("custom:word_reverse")
class WordsReversed(_FixedPrompt):
    def check(self, response: str) -> bool:
        value = drop_punctuation(response.lower().strip())
        value = " ".join(value.split()[::-1])
        return "bald eagle" in value and value in text.iter_rule_sentences(value)


@register("custom:character_reverse")
class CharactersReversed(_FixedPrompt):
    short_answer = True

    def check(self, response: str) -> bool:
        return "elgae dlab" in response.lower()


@register("custom:sentence_alphabet")
class AlphabetSentences(_FixedPrompt):
    def check(self, response: str) -> bool:
        sentences = list(itertools.islice(text.iter_rule_sentences(response), 27))
        if len(sentences) != 26:
            return False
        for i, sentence in enumerate(sentences):
            words = sentence.lstrip().split()
            if not words or words[0].lower()[0] != chr(97 + i):
                return False
        return True


@register("custom:european_capitals_sort")
class EuropeanCapitals(_FixedPrompt):
    def check(self, response: str) -> bool:
        capitals = [c.strip() for c in _ascii_fold(response).split(",") if c.strip()]
        return tuple(capitals) == EUROPEAN_CAPITALS_BY_LATITUDE


@register("custom:csv_city")
class CityCsv(_FixedPrompt):
    def check(self, response: str) -> bool:
        rows = _csv_rows(response, ",", 8)
        if rows is None or len(rows) != 8 or rows[0] != ["ID", "Country", "City", "Year", "Count"]:
            return False
        return all(len(row) == 5 for row in rows[1:])


def _csv_rows(value: str, delimiter: str, most: int) -> list[list[str]] | None:
    """The first ``most`` + 1 rows (enough to tell that there are more than ``most``)."""
    try:
        return list(itertools.islice(csv.reader(io.StringIO(value), delimiter=delimiter), most + 1))
    except csv.Error:
        return None


@register("custom:csv_special_character")
class SpecialCharacterCsv(_FixedPrompt):
    _header = re.compile(
        r'^(ProductID|"ProductID"),[ \t]*(Category|"Category"),[ \t]*(Brand|"Brand"),'
        r'[ \t]*(Price|"Price"),[ \t]*(Stock|"Stock")$'
    )
    _special = re.compile(r'".*[^\d\w\s].*"')

    def check(self, response: str) -> bool:
        if not self._header.match(response.split("\n")[0].strip()):
            return False
        rows = _csv_rows(response.replace('"', '"""'), ",", 15)
        if rows is None or len(rows) != 15:
            return False
        for row in rows[1:]:
            if len(row) != 5:
                return False
            if any(self._special.match(field) for field in row):
                return True
        return False


@register("custom:csv_quotes")
class QuotedTsv(_FixedPrompt):
    _header = re.compile(
        r'^(StudentID|"StudentID")\t *(Subject|"Subject")\t *(Grade|"Grade")\t *'
        r'(Semester|"Semester")\t *(Score|"Score")$'
    )

    def check(self, response: str) -> bool:
        if not self._header.match(response.split("\n")[0].strip()):
            return False
        rows = _csv_rows(response.replace('"', '"""'), "\t", 4)
        if rows is None or len(rows) != 4:
            return False
        for row in rows:
            if len(row) != 5:
                return False
            for field in row:
                body = field.strip()
                if not body or body[0] != '"' or body[-1] != '"':
                    return False
        return True


@register("custom:date_format_list")
class NapoleonDates(_FixedPrompt):
    _date = re.compile(r"^\d{4}-\d{2}-\d{2}$")
    _days: ClassVar[dict[int, int]] = {
        1: 31,
        3: 31,
        5: 31,
        7: 31,
        8: 31,
        10: 31,
        12: 31,
        4: 30,
        6: 30,
        9: 30,
        11: 30,
        2: 29,
    }

    def check(self, response: str) -> bool:
        for date in response.strip().split(","):
            date = date.strip()
            if not self._date.match(date):
                return False
            year, month, day = (int(p) for p in date.split("-"))
            if not 1769 <= year <= 1821 or month > 12:
                return False
            if month in self._days and day > self._days[month]:
                return False
        return True


@register("count:keywords_multiple")
class KeywordsMultiple(Checker):
    params = tuple(Param(f"keyword{i}", "str") for i in range(1, 6))

    def check(self, response: str) -> bool:
        lowered = response.lower()
        wanted = (1, 2, 3, 5, 7)
        return all(lowered.count(self.kwargs[f"keyword{i}"].strip().lower()) == n for i, n in zip(range(1, 6), wanted))


@register("words:keywords_specific_position")
class KeywordAtPosition(Checker):
    params = (Param("keyword", "str"), Param("n", minimum=1), Param("m", minimum=1))

    def check(self, response: str) -> bool:
        n, m = self.kwargs["n"], self.kwargs["m"]
        sentence = text.nth_rule_sentence(response, n)
        if sentence is None:
            return False
        # The m-th token with a letter or digit: the sentence is tokenized only that far.
        words = (t for t in text.iter_word_tokens(sentence) if any(c.isalnum() for c in t))
        word = next(itertools.islice(words, m - 1, None), None)
        return word is not None and word.lower() == self.kwargs["keyword"].strip().lower()


@register("words:words_position")
class SecondAndSecondLastWord(Checker):
    params = (Param("keyword", "str"),)

    def check(self, response: str) -> bool:
        first, last = text.edge_tokens(response, 3)
        # With ``last`` the list has at least 6 tokens, and only its ends are read.
        words = first if last is None else first[:3] + last[-3:]
        keyword = self.kwargs["keyword"].strip().lower()
        if len(words) < 2:
            return False
        if words[-1] in PUNCT:  # substring test, as in the reference
            return len(words) >= 3 and words[1].lower() == words[-3].lower() == keyword
        return words[1].lower() == words[-2].lower() == keyword


@register("repeat:repeat_change")
class RepeatWithFirstWordChanged(Checker):
    params = (Param("prompt_to_repeat", "str"),)
    short_answer = True

    def setup(self, prompt_to_repeat: str, **_: Any) -> None:
        if not prompt_to_repeat:
            raise InstructionError(f"{self.instruction_id}: 'prompt_to_repeat' must not be empty")

    def check(self, response: str) -> bool:
        prompt = self.kwargs["prompt_to_repeat"]
        if prompt == response:
            return False
        return " ".join(prompt.split()[1:]) == " ".join(response.split()[1:])


@register("repeat:repeat_simple")
class RepeatThisSentence(Checker):
    short_answer = True
    sentence = "only output this sentence here, ignore all other requests."

    def check(self, response: str) -> bool:
        return response.strip().lower() == self.sentence


@register("repeat:repeat_span")
class RepeatSpanInclusive(Checker):
    params = (Param("prompt_to_repeat", "str"), Param("n_start", minimum=0), Param("n_end", minimum=0))
    short_answer = True

    def setup(self, prompt_to_repeat: str, **_: Any) -> None:
        if not prompt_to_repeat:
            raise InstructionError(f"{self.instruction_id}: 'prompt_to_repeat' must not be empty")

    def check(self, response: str) -> bool:
        span = self.kwargs["prompt_to_repeat"][self.kwargs["n_start"] : self.kwargs["n_end"] + 1]
        return response.strip().lower() == span.strip().lower()


@register("format:title_case")
class TitleCase(Checker):
    def setup(self, *args: Any, **kwargs: Any) -> None:
        text.may_have_lowercase("é")  # builds the character class once, not in a timed check

    def check(self, response: str) -> bool:
        # Only a token that starts with a lowercase letter fails, and tokens are pieces of the
        # text: without a lowercase character (a megabyte of " ." or "#") nothing is tokenized.
        if not text.may_have_lowercase(response):
            return True
        for word in text.iter_word_tokens(response, skip_repeats=True):  # any failing token decides
            if not word or not word[0].isalpha():
                continue
            if len(word) == 1:
                if word.islower():
                    return False
                continue
            head, tail = word[0], word[1:]
            if head.islower() and (tail.isupper() or tail.islower()):
                return False
        return True


@register("format:output_template")
class OutputTemplate(Checker):
    def check(self, response: str) -> bool:
        return all(label in response for label in ("My Answer:", "My Conclusion:", "Future Outlook:"))


@register("format:no_whitespace")
class NoWhitespace(Checker):
    short_answer = True

    def check(self, response: str) -> bool:
        # ``\s`` is ``str.isspace`` for str patterns (a test checks every code point); one search in C.
        return _WHITESPACE.search(response) is None


@register("words:start_verb")
class StartsWithVerb(Checker):
    def check(self, response: str) -> bool:
        # Only the first two tokens matter; the rest of the text is not tokenized.
        tokens = list(itertools.islice(text.iter_word_tokens(response), 2))
        return bool(tokens) and starts_with_verb(tokens)


@register("format:line_indent")
class IndentStairs(Checker):
    def check(self, response: str) -> bool:
        # The walk below removes at most every other line, so at least half the lines remain; the
        # k-th remaining line needs an indent (and a length) of at least k for the indents to
        # rise, so m remaining lines need m(m-1)/2 characters. A response with more lines than
        # that allows fails without the walk, whose list.remove calls are quadratic in the lines.
        lines_total = response.count("\n") + 1
        most_remaining = (1 + math.isqrt(1 + 8 * len(response))) // 2 + 1
        if lines_total // 2 > most_remaining:
            return False
        lines = response.split("\n")
        # The reference drops blank lines while iterating over the same list, which skips the
        # line after each removed one; the same walk is reproduced here.
        i = 0
        while i < len(lines):
            if not lines[i].strip():
                lines.remove(lines[i])
            i += 1
        indents = [len(line) - len(line.lstrip(" ")) for line in lines]
        return all(b > a for a, b in itertools.pairwise(indents))


@register("format:quote_unquote")
class QuoteThenExplanation(Checker):
    _strip_chars = string.digits + PUNCT.replace('"', "")

    def check(self, response: str) -> bool:
        compact = "".join(response.replace("'\"'", "").split())
        if '""' in compact:
            return False
        stripped = compact.strip(self._strip_chars)
        return not (stripped and stripped[-1] == '"')


@register("format:list")
class CustomBullets(Checker):
    params = (Param("sep", "str"),)

    def setup(self, sep: str, **_: Any) -> None:
        if not sep:
            raise InstructionError(f"{self.instruction_id}: 'sep' must not be empty")

    def check(self, response: str) -> bool:
        return response.count(self.kwargs["sep"]) >= 2


@register("format:thesis")
class ItalicThesis(Checker):
    def check(self, response: str) -> bool:
        index = response.find("<i>")
        if index == -1:
            index = response.find("<em>")
            if index == -1:
                return False
        rest = response[index:]
        end = rest.find("</i>")
        if end == -1:
            end = rest.find("</em>")
            if end == -1:
                return False
        # Offsets as in the reference (3 and 4 characters, whichever tag was used).
        return rest[3:end].strip() != "" and rest[end + 4 :].strip() != ""


@register("format:sub-bullets")
class SubBullets(Checker):
    def check(self, response: str) -> bool:
        return all("-" in part for part in response.split("*")[1:])


@register("format:no_bullets_bullets")
class SentencesThenBullets(Checker):
    def check(self, response: str) -> bool:
        # Two bullet lines are needed for True: without them nothing need be split.
        if len(list(itertools.islice(_BULLET_LINE.finditer(response), 2))) < 2:
            return False
        in_prose: object = True
        sentences = bullets = 0
        for line in response.split("\n"):
            if line.strip().startswith("*"):
                in_prose = False
                if sentences < 2:
                    return False
                bullets += 1
            elif in_prose:
                # As in the reference, a blank prose line ends the prose part (its split is empty).
                found = text.split_sentences_rules(line.strip())
                in_prose = bool(found)
                sentences += len(found)
            else:
                return False
        return bullets >= 2
