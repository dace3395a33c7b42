"""The instructions open-instruct added in IFEvalG (allenai/open-instruct, used for RLVR training).

The 25 classic ids keep the IFEval behaviour; these are the 29 new ones.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from rlvr_ifeval import text
from rlvr_ifeval.base import RELATIONS, Checker, InstructionError, Param, compare, compile_keyword, register
from rlvr_ifeval.checkers_classic import LetterFrequency, divider_paragraphs


def _needs(instruction_id: str, name: str, value: str) -> None:
    if not value:
        raise InstructionError(f"{instruction_id}: {name!r} must not be empty")


@register("copy:repeat_phrase")
class RepeatPhraseWithOneChange(Checker):
    params = (Param("phrase", "str"), Param("small_n", minimum=1))

    def setup(self, phrase: str, **_: Any) -> None:
        words = phrase.strip().split()
        if len(words) < 2:
            raise InstructionError(f"{self.instruction_id}: 'phrase' needs at least two words, got {phrase!r}")
        self.reference = words
        # The reference finds re.escape(first) + " .*? " + re.escape(last). Where no " last"
        # follows on the line, that fails from every later "first " on the line as well, after
        # scanning to the line's end each time (quadratic on "first first first ..."). Here the
        # stretch up to the first " last" (or the end of the line) is taken atomically (a
        # lookahead group and a backreference) and a failing attempt consumes it: group 1 is
        # the reference's match when group 2 is set.
        first, last = re.escape(words[0]), re.escape(words[-1])
        self.pattern = re.compile(f"({first} (?=((?:(?! {last})[^\\n])*))\\2( {last})?)")

    def check(self, response: str) -> bool:
        found = [whole for whole, _, end in self.pattern.findall(response) if end]
        if len(found) != self.kwargs["small_n"]:
            return False
        differences = 0
        for phrase in found:
            words = phrase.split()
            differences = 0
            for i, word in enumerate(words):
                if i >= len(self.reference):
                    return False
                if word != self.reference[i]:
                    differences += 1
                    if differences > 1:
                        return False
        # As in the reference, only the last repetition must differ in exactly one word.
        return differences == 1


class _Copy(Checker):
    params = (Param("prompt_to_repeat", "str"),)
    short_answer = True

    def setup(self, prompt_to_repeat: str, **_: Any) -> None:
        _needs(self.instruction_id, "prompt_to_repeat", prompt_to_repeat)
        self.target = prompt_to_repeat.strip().lower()

    def check(self, response: str) -> bool:
        return response.strip().lower() == self.target


@register("copy:copy")
class CopyInstruction(_Copy):
    pass


@register("copy:copying_simple")
class CopyRequest(_Copy):
    pass


@register("copy:copying_multiple")
class CopyRequestTimes(Checker):
    params = (Param("prompt_to_repeat", "str"), Param("N", minimum=1))
    short_answer = True

    def setup(self, prompt_to_repeat: str, **_: Any) -> None:
        _needs(self.instruction_id, "prompt_to_repeat", prompt_to_repeat)
        self.target = prompt_to_repeat.strip().lower()

    def check(self, response: str) -> bool:
        copies = response.split("******")
        return len(copies) == self.kwargs["N"] and all(c.strip().lower() == self.target for c in copies)


@register("new:copy_span_idx")
class CopySpanExclusive(Checker):
    params = (Param("prompt_to_repeat", "str"), Param("n_start", minimum=0), Param("n_end", minimum=0))
    short_answer = True

    def setup(self, prompt_to_repeat: str, **_: Any) -> None:
        _needs(self.instruction_id, "prompt_to_repeat", prompt_to_repeat)

    def check(self, response: str) -> bool:
        # IFEvalG slices end-exclusive, IFBench's repeat:repeat_span end-inclusive.
        span = self.kwargs["prompt_to_repeat"][self.kwargs["n_start"] : self.kwargs["n_end"]]
        return response.strip().lower() == span.strip().lower()


@register("detectable_format:sentence_hyphens")
class SentencesJoinedByHyphens(Checker):
    def check(self, response: str) -> bool:
        gold = text.iter_rule_sentences(response.replace("-", " "))  # cut as far as the walk goes
        for piece, sentence in zip(response.split("-"), gold):
            if piece.strip() != piece or piece != sentence:
                return False
        return True


@register("keywords:no_adjacent_consecutive")
class NoAdjacentConsecutiveLetters(Checker):
    def check(self, response: str) -> bool:
        words = response.split()
        return all(ord(b[0].lower()) - ord(a[0].lower()) != 1 for a, b in itertools.pairwise(words))


@register("detectable_format:square_brackets")
class EveryWordBracketed(Checker):
    def check(self, response: str) -> bool:
        return all(w.startswith("[") and w.endswith("]") for w in response.split())


@register("keywords:word_once")
class KeywordOnce(Checker):
    params = (Param("keyword", "str"),)

    def setup(self, keyword: str, **_: Any) -> None:
        self.pattern = compile_keyword(self.instruction_id, keyword.strip())

    def check(self, response: str) -> bool:
        return len(self.pattern.findall(response)) == 1


@register("keywords:word_count_different_numbers")
class KeywordFrequencyVariant(Checker):
    params = (Param("keyword", "str"), Param("frequency", minimum=0), Param("relation", "str", choices=RELATIONS))

    def setup(self, keyword: str, **_: Any) -> None:
        self.pattern = compile_keyword(self.instruction_id, keyword.strip())

    def check(self, response: str) -> bool:
        return compare(len(self.pattern.findall(response)), self.kwargs["relation"], self.kwargs["frequency"])


@register("keywords:exclude_word_harder")
class ExcludeWordSpaced(Checker):
    params = (Param("keyword", "str"), Param("instruction", "str", required=False))

    def setup(self, keyword: str, **_: Any) -> None:
        _needs(self.instruction_id, "keyword", keyword.strip())

    def check(self, response: str) -> bool:
        # The reference only looks for the keyword with a space on each side.
        return f" {self.kwargs['keyword'].strip()} " not in response


@register("paragraphs:paragraphs")
class TwoDividedParagraphs(Checker):
    def check(self, response: str) -> bool:
        return divider_paragraphs(response) == 2


@register("paragraphs:paragraphs2")
class TwoBlankLineParagraphs(Checker):
    def check(self, response: str) -> bool:
        parts = response.split("\n\n")
        count = len(parts)
        for index, part in enumerate(parts):
            if not part.strip():
                if index in (0, len(parts) - 1):
                    count -= 1
                else:
                    return False
        return count == 2


@register("first_word:first_word_sent")
class FirstWordOfEverySentence(Checker):
    params = (Param("first_word", "str"),)

    def check(self, response: str) -> bool:
        wanted = self.kwargs["first_word"].strip().lower()
        for sentence in text.iter_rule_sentences(response):  # the first mismatch decides
            if not sentence.strip() or sentence.split()[0].strip().lower() != wanted:
                return False
        return True


@register("first_word:first_word_answer")
class FirstWordOfResponse(Checker):
    params = (Param("first_word", "str"),)

    def check(self, response: str) -> bool:
        words = response.split()
        return bool(words) and words[0].strip().lower() == self.kwargs["first_word"].strip().lower()


_WORD_OR_SPACE = re.compile(r"[\w\s]+")


def _word_chars(value: str) -> str:
    r"""``re.sub(r"[^\w\s]", "", value)``: the runs of what stays, joined (deleting a megabyte
    of "#" one match at a time cost 0.1 s; finding no run to keep costs a scan)."""
    return "".join(_WORD_OR_SPACE.findall(value))


@register("last_word:last_word_sent")
class LastWordOfEverySentence(Checker):
    params = (Param("last_word", "str"),)

    def check(self, response: str) -> bool:
        wanted = self.kwargs["last_word"].strip().lower()
        for sentence in text.iter_rule_sentences(response):  # the first mismatch decides
            if not sentence.strip() or _word_chars(sentence.split()[-1].strip()).lower() != wanted:
                return False
        return True


@register("last_word:last_word_answer")
class LastWordOfResponse(Checker):
    params = (Param("last_word", "str"),)

    def check(self, response: str) -> bool:
        words = response.rsplit(None, 1)  # the last word only; [] when there is none
        return bool(words) and _word_chars(words[-1].strip()).lower() == self.kwargs["last_word"].strip().lower()


@register("detectable_format:bigram_wrapping")
class BigramWrapping(Checker):
    def check(self, response: str) -> bool:
        words = response.split()
        return all(words[i].startswith("<<") and words[i + 1].endswith(">>") for i in range(0, len(words) - 1, 2))


@register("punctuation:punctuation_dot")
class NoDots(Checker):
    def check(self, response: str) -> bool:
        return "." not in response


@register("punctuation:punctuation_exclamation")
class NoExclamations(Checker):
    def check(self, response: str) -> bool:
        return "!" not in response


@register("count:lowercase_counting")
class LowercaseWordBudget(Checker):
    params = (Param("N", minimum=0),)
    short_answer = True
    _lower_word = re.compile(r"\b[a-z]+\b")

    def check(self, response: str) -> bool:
        return len(self._lower_word.findall(response)) <= self.kwargs["N"]


@register("letters:letter_counting")
class LetterCount(Checker):
    params = (Param("N", minimum=0), Param("relation", "str", choices=RELATIONS))
    short_answer = True
    _letter = re.compile(r"[a-zA-Z]")

    def check(self, response: str) -> bool:
        return compare(len(self._letter.findall(response)), self.kwargs["relation"], self.kwargs["N"])


@register("letters:letter_counting2")
class LetterFrequencyAgain(LetterFrequency):
    pass


@register("count:counting_composition")
class CountingComposition(Checker):
    params = (Param("n_sent", minimum=1), Param("n_words", minimum=1))

    def check(self, response: str) -> bool:
        parts = re.split(r"\s?\*\*\*\s?", response)
        count = len(parts)
        for index, part in enumerate(parts):
            if not part.strip():
                if index in (0, len(parts) - 1):
                    count -= 1
                else:
                    return False
            # The reference checks every part, including empty edge parts (which then fail).
            sentences = list(itertools.islice(text.iter_rule_sentences(part), self.kwargs["n_sent"] + 1))
            if len(sentences) != self.kwargs["n_sent"]:
                return False
            if any(len(text.word_tokenize(s)) != self.kwargs["n_words"] for s in sentences):
                return False
        return count == 3


@register("count:count_unique")
class AllWordsUnique(Checker):
    def check(self, response: str) -> bool:
        # Tokenized as the walk goes: the first repeated token decides.
        seen: set[str] = set()
        for token in text.iter_word_tokens(response):
            if token in seen:
                return False
            seen.add(token)
        return True


@register("count:count_increment_word")
class KeywordOnceAndTwice(Checker):
    params = (Param("keyword1", "str"), Param("keyword2", "str"))

    def setup(self, keyword1: str, keyword2: str, **_: Any) -> None:
        self.first = compile_keyword(self.instruction_id, keyword1.strip())
        self.second = compile_keyword(self.instruction_id, keyword2.strip())

    def check(self, response: str) -> bool:
        return len(self.first.findall(response)) == 1 and len(self.second.findall(response)) == 2


@register("keywords:palindrome")
class AnyPalindrome(Checker):
    def check(self, response: str) -> bool:
        return any(w == w[::-1] for w in response.split())


@register("keywords:keyword_specific_position")
class KeywordAtPositionExact(Checker):
    params = (Param("keyword", "strs"), Param("n", minimum=1), Param("m", minimum=1))

    def check(self, response: str) -> bool:
        keyword = self.kwargs["keyword"][0].strip() if self.kwargs["keyword"] else ""
        n, m = self.kwargs["n"], self.kwargs["m"]
        sentence = text.nth_rule_sentence(response, n)
        if sentence is None:
            return False
        # The m-th token: the sentence is tokenized only that far.
        word = next(itertools.islice(text.iter_word_tokens(sentence), m - 1, None), None)
        return word is not None and word == keyword


@register("keywords:start_end")
class StartsAndEndsAlike(Checker):
    def check(self, response: str) -> bool:
        words, last = text.edge_tokens(response, 1)
        if last is not None:  # at least two tokens; the first and the last
            return words[0].lower() == last[-1].lower()
        return len(words) >= 2 and words[0].lower() == words[-1].lower()
