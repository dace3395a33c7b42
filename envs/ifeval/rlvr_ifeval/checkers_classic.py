"""The 25 IFEval instructions (google-research instruction_following_eval), reference semantics.

IFBench and open-instruct's IFEvalG reuse these ids with the same behaviour.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rlvr_ifeval import text
from rlvr_ifeval.base import RELATIONS, Checker, InstructionError, Param, compare, compile_keyword, register
from rlvr_ifeval.language import detect_language

CONSTRAINED_RESPONSES = ("My answer is yes.", "My answer is no.", "My answer is maybe.")
LANGUAGES = {
    "en": "English",
    "es": "Spanish",
    "pt": "Portuguese",
    "ar": "Arabic",
    "hi": "Hindi",
    "fr": "French",
    "ru": "Russian",
    "de": "German",
    "ja": "Japanese",
    "it": "Italian",
    "bn": "Bengali",
    "uk": "Ukrainian",
    "th": "Thai",
    "ur": "Urdu",
    "ta": "Tamil",
    "te": "Telugu",
    "bg": "Bulgarian",
    "ko": "Korean",
    "pl": "Polish",
    "he": "Hebrew",
    "fa": "Persian",
    "vi": "Vietnamese",
    "ne": "Nepali",
    "sw": "Swahili",
    "kn": "Kannada",
    "mr": "Marathi",
    "gu": "Gujarati",
    "pa": "Punjabi",
    "ml": "Malayalam",
    "fi": "Finnish",
}


@register("keywords:existence")
class KeywordExistence(Checker):
    params = (Param("keywords", "strs"),)

    def setup(self, keywords: list[str], **_: Any) -> None:
        self.patterns = [compile_keyword(self.instruction_id, k) for k in sorted(keywords)]

    def check(self, response: str) -> bool:
        return all(p.search(response) for p in self.patterns)


@register("keywords:frequency")
class KeywordFrequency(Checker):
    params = (Param("keyword", "str"), Param("frequency", minimum=0), Param("relation", "str", choices=RELATIONS))

    def setup(self, keyword: str, **_: Any) -> None:
        self.pattern = compile_keyword(self.instruction_id, keyword.strip())

    def check(self, response: str) -> bool:
        found = len(self.pattern.findall(response))
        return compare(found, self.kwargs["relation"], self.kwargs["frequency"])


@register("keywords:forbidden_words")
class ForbiddenWords(Checker):
    params = (Param("forbidden_words", "strs"),)

    def setup(self, forbidden_words: list[str], **_: Any) -> None:
        words = sorted(set(forbidden_words))
        self.patterns = [compile_keyword(self.instruction_id, w, word_bounded=True) for w in words]
        if len(self.patterns) > 1 and not any(p.groups for p in self.patterns):
            # One search for all the words: an alternation of the (grouped) patterns matches
            # somewhere exactly when one of them does. Not with groups: backreferences would
            # point at another word's group.
            try:
                combined = re.compile("|".join(f"(?:{p.pattern})" for p in self.patterns), flags=re.IGNORECASE)
            except re.error:
                pass
            else:
                self.patterns = [combined]

    def check(self, response: str) -> bool:
        return not any(p.search(response) for p in self.patterns)


@register("keywords:letter_frequency")
class LetterFrequency(Checker):
    params = (
        Param("letter", "str"),
        Param("let_frequency", minimum=0),
        Param("let_relation", "str", choices=RELATIONS),
    )

    def setup(self, letter: str, **_: Any) -> None:
        # Current reference code takes any single character (older code swapped non-letters
        # for a random letter, which made the label of such tasks irreproducible).
        letter = letter.strip()
        if len(letter) != 1:
            raise InstructionError(f"{self.instruction_id}: 'letter' must be one character, got {letter!r}")
        self.letter = letter.lower()

    def check(self, response: str) -> bool:
        found = response.lower().count(self.letter)
        return compare(found, self.kwargs["let_relation"], self.kwargs["let_frequency"])


@register("language:response_language")
class ResponseLanguage(Checker):
    params = (Param("language", "str"),)

    def setup(self, language: str, **_: Any) -> None:
        if not re.fullmatch(r"[a-z]{2,3}(-[a-zA-Z]{2,4})?", language):
            raise InstructionError(f"{self.instruction_id}: 'language' must be an ISO 639-1 code, got {language!r}")

    def check(self, response: str) -> bool:
        detected = detect_language(response)
        # The reference counts undetectable text (digits, symbols) as following the instruction.
        return detected is None or detected == self.kwargs["language"]


@register("length_constraints:number_sentences")
class NumberOfSentences(Checker):
    params = (Param("num_sentences", minimum=0), Param("relation", "str", choices=RELATIONS))

    def check(self, response: str) -> bool:
        return compare(text.count_sentences(response), self.kwargs["relation"], self.kwargs["num_sentences"])


@register("length_constraints:number_paragraphs")
class NumberOfParagraphs(Checker):
    params = (Param("num_paragraphs", minimum=0),)

    def check(self, response: str) -> bool:
        return divider_paragraphs(response) == self.kwargs["num_paragraphs"]


def divider_paragraphs(response: str) -> int:
    """Paragraphs separated by ``***``; an empty inner paragraph makes the count invalid (-1)."""
    parts = re.split(r"\s?\*\*\*\s?", response)
    count = len(parts)
    for index, part in enumerate(parts):
        if not part.strip():
            if index in (0, len(parts) - 1):
                count -= 1
            else:
                return -1
    return count


@register("length_constraints:number_words")
class NumberOfWords(Checker):
    params = (Param("num_words", minimum=0), Param("relation", "str", choices=RELATIONS))

    def check(self, response: str) -> bool:
        return compare(text.count_words(response), self.kwargs["relation"], self.kwargs["num_words"])

    def allows_short_answer(self) -> bool:
        return self.kwargs["relation"] == RELATIONS[0] and self.kwargs["num_words"] <= 10


@register("length_constraints:nth_paragraph_first_word")
class NthParagraphFirstWord(Checker):
    params = (Param("num_paragraphs", minimum=0), Param("nth_paragraph", minimum=1), Param("first_word", "str"))
    _stop = re.compile("[.,?!'\"]")

    def check(self, response: str) -> bool:
        paragraphs = re.split(r"\n\n", response)
        count = sum(1 for p in paragraphs if p.strip())
        nth = self.kwargs["nth_paragraph"]
        if nth > count:
            return False
        paragraph = paragraphs[nth - 1].strip()
        if not paragraph:
            return False
        word = paragraph.split()[0].strip().lstrip("'").lstrip('"')
        stop = self._stop.search(word)
        prefix = word[: stop.start()] if stop else word
        wanted = self.kwargs["first_word"].lower()
        # Lowercased character by character, as the reference does (str.lower of the whole word
        # would turn a final sigma into "ς"); a character never lowercases to nothing, so a
        # prefix longer than the wanted word cannot match (and a 1 MB word is not walked).
        if len(prefix) > len(wanted):
            return False
        return count == self.kwargs["num_paragraphs"] and "".join(c.lower() for c in prefix) == wanted


@register("detectable_content:number_placeholders")
class Placeholders(Checker):
    params = (Param("num_placeholders", minimum=0),)

    # The reference's r"\[.*?\]" scans from every "[" to the end of its line when no "]" follows,
    # quadratic on a line of brackets. Excluding "[" from the inside finds one match where it finds
    # one: both end at the first "]" after the first "[" of a stretch (so the count is the same),
    # and every "[" is scanned past once.
    _placeholder = re.compile(r"\[[^\[\]\n]*\]")

    def check(self, response: str) -> bool:
        return len(self._placeholder.findall(response)) >= self.kwargs["num_placeholders"]


@register("detectable_content:postscript")
class Postscript(Checker):
    params = (Param("postscript_marker", "str"),)

    def setup(self, postscript_marker: str, **_: Any) -> None:
        # The reference searches r"\s*" + marker + r".*$" (multiline). The leading \s* and the
        # trailing .*$ can match empty, so they never decide whether there is a match; searched
        # as written, \s* retries every position of a run of whitespace (quadratic: 100k
        # newlines took 7 s). The marker alone finds a match exactly when the reference does.
        marker = postscript_marker.strip()
        if marker == "P.P.S":
            body = r"p\.\s?p\.\s?s"
        elif marker == "P.S.":
            body = r"p\.\s?s\."
        else:
            body = marker.lower()  # the reference does not escape the marker
        try:
            self.pattern = re.compile(body, flags=re.MULTILINE)
        except re.error:
            self.pattern = re.compile(re.escape(marker.lower()), flags=re.MULTILINE)

    def check(self, response: str) -> bool:
        return self.pattern.search(response.lower()) is not None


@register("detectable_format:number_bullet_lists")
class BulletList(Checker):
    params = (Param("num_bullets", minimum=0),)
    # The reference counts r"^\s*\*[^\*].*$" and r"^\s*-.*$" (multiline). \s* crosses newlines,
    # so on a run of blank lines every line start rescanned the rest of the run (quadratic: 100k
    # newlines took 14 s). Every line start inside one run of whitespace reaches the same first
    # non-space character, so they all match or all fail alike: the second alternative consumes
    # a run that fails, and the scan goes on after it. Group 1 is set only for real bullets.
    _star = re.compile(r"^(?:\s*(\*[^\*].*$)|\s+)", flags=re.MULTILINE)
    _dash = re.compile(r"^(?:\s*(-.*$)|\s+)", flags=re.MULTILINE)

    @staticmethod
    def _count(pattern: re.Pattern[str], response: str) -> int:
        found = pattern.findall(response)
        return len(found) - found.count("")

    def check(self, response: str) -> bool:
        found = self._count(self._star, response) + self._count(self._dash, response)
        return found == self.kwargs["num_bullets"]


@register("detectable_format:constrained_response")
class ConstrainedResponse(Checker):
    short_answer = True

    def check(self, response: str) -> bool:
        response = response.strip()
        return any(option in response for option in CONSTRAINED_RESPONSES)


@register("detectable_format:number_highlighted_sections")
class HighlightedSections(Checker):
    params = (Param("num_highlights", minimum=0),)
    _single = re.compile(r"\*[^\n\*]*\*")
    _double = re.compile(r"\*\*[^\n\*]*\*\*")

    def check(self, response: str) -> bool:
        found = sum(1 for h in self._single.findall(response) if h.strip("*").strip())
        found += sum(1 for h in self._double.findall(response) if h[2:-2].strip())
        return found >= self.kwargs["num_highlights"]


@register("detectable_format:multiple_sections")
class MultipleSections(Checker):
    params = (Param("section_spliter", "str"), Param("num_sections", minimum=0))

    def setup(self, section_spliter: str, **_: Any) -> None:
        # The reference puts the splitter into the pattern unescaped; splitters are words.
        splitter = section_spliter.strip()
        try:
            self.pattern = re.compile(r"\s?" + splitter + r"\s?\d+\s?")
        except re.error:
            self.pattern = re.compile(r"\s?" + re.escape(splitter) + r"\s?\d+\s?")

    def check(self, response: str) -> bool:
        return len(self.pattern.split(response)) - 1 >= self.kwargs["num_sections"]


@register("detectable_format:json_format")
class JsonFormat(Checker):
    def check(self, response: str) -> bool:
        body = response.strip()
        for prefix in ("```json", "```Json", "```JSON", "```"):
            body = body.removeprefix(prefix)
        body = body.removesuffix("```")
        try:
            json.loads(body.strip())
        except (ValueError, RecursionError):
            return False
        return True


@register("detectable_format:title")
class Title(Checker):
    # The reference: any match of r"<<[^\n]+>>" that is not blank once the "<"s before it and the
    # ">"s after it are stripped. Searched so, a line of "<" costs n**2 (each "<<" scans to the end
    # of the line and back). That match starts at the line's first "<<" and ends at its last
    # ">>"; it is not blank when, after the run of "<" that opens it, comes either a character
    # other than whitespace and ">" with a ">>" later, or a ">" then whitespace then a ">>"
    # (the ">" is then not part of the closing run). This pattern anchors at the line start,
    # reaches the first "<<" without ambiguity and decides each alternative in one pass.
    _title = re.compile(
        r"^[^<\n]*(?:<(?!<)[^<\n]*)*<<<*(?!<)(?:(?:[^\S\n]|>)*[^\s>]|[^>\n]*>\S*[^\S\n])[^\n]*>>",
        flags=re.MULTILINE,
    )

    def check(self, response: str) -> bool:
        return "<<" in response and self._title.search(response) is not None


@register("combination:two_responses")
class TwoResponses(Checker):
    def check(self, response: str) -> bool:
        parts = response.split("******")
        valid = []
        for index, part in enumerate(parts):
            if not part.strip():
                if index not in (0, len(parts) - 1):
                    return False
            else:
                valid.append(part)
        return len(valid) == 2 and valid[0].strip() != valid[1].strip()


@register("combination:repeat_prompt")
class RepeatPrompt(Checker):
    params = (Param("prompt_to_repeat", "str"),)

    def setup(self, prompt_to_repeat: str, **_: Any) -> None:
        if not prompt_to_repeat:
            raise InstructionError(f"{self.instruction_id}: 'prompt_to_repeat' must not be empty")
        self.prefix = prompt_to_repeat.strip().lower()

    def check(self, response: str) -> bool:
        return response.strip().lower().startswith(self.prefix)


@register("startend:end_checker")
class EndPhrase(Checker):
    params = (Param("end_phrase", "str"),)

    def check(self, response: str) -> bool:
        return response.strip().strip('"').lower().endswith(self.kwargs["end_phrase"].strip().lower())


@register("change_case:capital_word_frequency")
class CapitalWordFrequency(Checker):
    params = (Param("capital_frequency", minimum=0), Param("capital_relation", "str", choices=RELATIONS))

    def check(self, response: str) -> bool:
        # Counting stops at the threshold, which settles both relations.
        threshold = self.kwargs["capital_frequency"]
        found = text.count_upper_tokens(response, stop_at=max(threshold, 1))
        return compare(found, self.kwargs["capital_relation"], threshold)


@register("change_case:english_capital")
class EnglishCapital(Checker):
    def check(self, response: str) -> bool:
        if not response.isupper():
            return False
        detected = detect_language(response)
        return detected is None or detected == "en"


@register("change_case:english_lowercase")
class EnglishLowercase(Checker):
    def check(self, response: str) -> bool:
        if not response.islower():
            return False
        detected = detect_language(response)
        return detected is None or detected == "en"


@register("punctuation:no_comma")
class NoComma(Checker):
    def check(self, response: str) -> bool:
        return "," not in response


@register("startend:quotation")
class Quotation(Checker):
    def check(self, response: str) -> bool:
        body = response.strip()
        return len(body) > 1 and body[0] == '"' and body[-1] == '"'
