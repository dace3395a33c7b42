"""Offline text analysis shared by the checkers: sentences, word tokens, stop words.

The reference checkers lean on NLTK data (the Punkt English model and the Treebank word
tokenizer) that cannot be downloaded on these machines. This module reimplements the
behaviour those checkers rely on with plain regular expressions:

* ``split_sentences`` follows Punkt's decision procedure: a candidate boundary is a run of
  ``.?!`` followed by whitespace and a token, or by punctuation; ``?``/``!`` always break; a
  period breaks unless the token before it is a known abbreviation, an initial, a number or
  an attached ellipsis, in which case the next token's capitalisation decides, as Punkt's
  orthographic heuristic does with its trained statistics.
* ``word_tokenize`` follows the Treebank conventions (contractions, quotes, brackets,
  final period) that change what counts as a token.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

# The rule-based splitter lives in its own module; checkers reach it as ``text.*``.
from rlvr_ifeval.text_case import has_uppercase, may_have_lowercase  # noqa: F401 -- re-exported
from rlvr_ifeval.text_rules import (  # noqa: F401 -- re-exported
    _rule_marked,
    _rule_sentences,
    iter_rule_sentences,
    nth_rule_sentence,
    rule_sentence_count,
    rule_sentences,
    split_sentences_rules,
)
from rlvr_ifeval.text_words import (  # noqa: F401 -- re-exported
    SOUTHEAST_ASIAN_CHARS_PER_WORD,
    _word_runs,
    count_words,
    count_words_any_script,
    word_list,
)

# Punkt's English model knows a few hundred abbreviations; these are the ones that occur in
# ordinary prose. A token listed here does not end a sentence unless a common lowercase word
# follows it capitalised ("etc. The ...").
ABBREVIATIONS = frozenset(
    """
    mr mrs ms dr prof sr jr st mt ft rev gen gov sen rep lt col capt cpt sgt maj cmdr adm
    co corp inc ltd llc bros dept univ assn ave blvd rd hwy
    e.g i.e etc vs v cf al approx ca est viz no nos vol vols pp ed eds fig figs
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
    a.m p.m u.s u.k u.n u.s.a d.c n.y l.a ph.d b.a m.a b.s m.d d.d.s r.n
    mins hrs sq cu oz lb lbs kg km cm mm ml pts
    """.split()
)

# The classic NLTK English stop-word list (used by the stop-word ratio checker).
STOPWORDS = frozenset(
    """
    i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
    yourselves he him his himself she she's her hers herself it it's its itself they them their
    theirs themselves what which who whom this that that'll these those am is are was were be
    been being have has had having do does did doing a an the and but if or because as until
    while of at by for with about against between into through during before after above below
    to from up down in out on off over under again further then once here there when where why
    how all any both each few more most other some such no nor not only own same so than too
    very s t can will just don don't should should've now d ll m o re ve y ain aren aren't
    couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't
    ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't
    weren weren't won won't wouldn wouldn't
    """.split()
)

# Words that Punkt has seen far more often in lowercase than capitalised mid-sentence: when one
# of them follows an abbreviation or initial with a capital letter, it starts a new sentence.
_COMMON_LOWER = STOPWORDS | frozenset(
    """
    also however therefore thus then next finally first second third yes still yet although
    though overall moreover furthermore additionally instead meanwhile otherwise please let
    many several one two three another every make use see note remember consider
    """.split()
)

# The lookbehind starts a candidate only at the beginning of a run of terminators: a run that is
# not followed by a boundary fails from every position inside it, and retrying each position made
# a run of n periods cost n**2 steps (the matches are the same: only a whole run can match). It
# comes after the first terminator (looking back over it and the character before), so that the
# pattern starts with a character class, which the engine scans for in a tight loop: a lookbehind
# first is tried at every position (30 ms a megabyte without a terminator; now 6 ms).
_CANDIDATE_RE = re.compile(r"[.?!](?<![.?!][.?!])[.?!]*(?=([)\";}\]*:@'({\[])|\s+(\S+))")
# Characters Punkt splits off the front of a token or that end a token when they follow it.
_TOKEN_TAIL_RE = re.compile(r"[^\s?!)\";}\]*:@'({\[]*")
_NUMBER_RE = re.compile(r"^-?[.,]?\d[\d,.\-]*\.?$")
_INITIAL_RE = re.compile(r"^[^\W\d]\.$")
_REALIGN_RE = re.compile(r"[\"')\]}]+?(?:\s+|(?=--)|$)")
_NEXT_TOKEN_RE = re.compile(r"^[(\"`{\[:;&#*@)}\]\-,]*(\S*?)(?=[?!)\";}\]*:@'({\[]|,|$)")


def _next_word(token: str) -> str:
    match = _NEXT_TOKEN_RE.match(token)
    return match.group(1) if match else token


def _breaks_after(text: str, run_start: int, run: str, next_token: str | None, punct: str | None) -> bool:
    """Whether the terminator run ``run`` (at ``run_start``) ends a sentence, Punkt-style."""
    if "?" in run or "!" in run:
        return True
    # The token before the run: the longest suffix of (at most 80) characters that Punkt keeps
    # in a token, read as a prefix of the reversed window (a "$"-anchored search would retry
    # from every position).
    window = text[max(0, run_start - 80) : run_start]
    stem = _TOKEN_TAIL_RE.match(window[::-1]).group(0)[::-1]  # type: ignore[union-attr]
    if len(run) > 1:
        # "word..." is one token ending in "..", which Punkt never breaks after; a standalone
        # "..." is an ellipsis that breaks only before a capitalised common word.
        if stem:
            return False
        return _capitalised_common(next_token)
    token = stem + "."
    if not stem:
        return True
    lowered = stem.lower()
    if _INITIAL_RE.match(token):
        if next_token is None:
            return punct not in (";", ":")
        if next_token[:1].islower():
            return False
        return _capitalised_common(next_token)
    if lowered in ABBREVIATIONS or lowered.rsplit("-", 1)[-1] in ABBREVIATIONS:
        return _capitalised_common(next_token)
    if _NUMBER_RE.match(token):
        if next_token is None:
            return punct not in (";", ":")
        return not next_token[:1].islower()
    return True


def _capitalised_common(next_token: str | None) -> bool:
    if not next_token:
        return False
    word = _next_word(next_token)
    return bool(word) and word[:1].isupper() and word.lower() in _COMMON_LOWER


def _raw_spans(text: str, pos: int = 0) -> Iterator[tuple[int, int]]:
    """Sentence spans before the closing-quote realignment, as the candidates are read. From
    ``pos`` > 0 the first span is cut short at ``pos``; the rest are the whole text's (candidates
    are maximal runs, decided from the text around them)."""
    start = pos
    for match in _CANDIDATE_RE.finditer(text, pos):
        run_start, end = match.span()
        run = match.group(0)
        # A lone "?" or "!" always breaks, and so does a lone "." with no token before it (what
        # ``_breaks_after`` decides first); deciding those here halves the cost of a megabyte
        # of " ." (half a million sentences).
        if len(run) != 1 or (run == "." and run_start and not _stemless(text[run_start - 1])):
            if not _breaks_after(text, run_start, run, match.group(2), match.group(1)):
                continue
        yield start, end
        next_start = match.start(2)
        start = next_start if next_start >= 0 else end
    yield start, len(text.rstrip())


def _realigned(text: str, a: int, b: int) -> re.Match[str] | None:
    # The pattern's first character is one of these: most sentences skip the search.
    if a < b and text[a] in _REALIGN_FIRST:
        return _REALIGN_RE.match(text, a, b)
    return None


def _align(text: str, raw: Iterator[tuple[int, int]], a: int, b: int) -> Iterator[tuple[int, int]]:
    """The sentences of the raw spans ``(a, b)`` and then ``raw``: closing quotes and brackets
    right after a boundary belong to the sentence before it."""
    for nxt_a, nxt_b in raw:
        m = _realigned(text, nxt_a, nxt_b)
        if m:
            if a < nxt_a + len(m.group(0).rstrip()):
                yield a, nxt_a + len(m.group(0).rstrip())
            a, b = m.end(), nxt_b
            continue
        if a < b:
            yield a, b
        a, b = nxt_a, nxt_b
    if a < b:
        yield a, b


def iter_sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """``_sentence_spans(text)`` one span at a time: the text is read only as far as the spans
    are taken (a checker that reads the first tokens does not split a megabyte)."""
    raw = _raw_spans(text)
    return _align(text, raw, *next(raw))


def _spans_after_break(text: str, pos: int) -> list[tuple[int, int]]:
    """The sentence spans that start after the first sentence break at or after ``pos``: the
    whole text's last sentences, found without splitting what comes before ``pos``."""
    raw = _raw_spans(text, pos)
    next(raw)  # cut short at pos
    rest = list(raw)
    if not rest:
        return []
    a, b = rest[0]
    m = _realigned(text, a, b)
    return list(_align(text, iter(rest[1:]), m.end() if m else a, b))


@lru_cache(maxsize=128)
def _sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(iter_sentence_spans(text))


_REALIGN_FIRST = "\"')]}"
_TOKEN_STOPS = "?!)\";}]*:@'({["


def _stemless(before: str) -> bool:
    """Whether ``_TOKEN_TAIL_RE`` stops at the character ``before`` (no token ends there)."""
    return before.isspace() or before in _TOKEN_STOPS


def split_sentences(text: str) -> list[str]:
    """Sentences as NLTK's Punkt English tokenizer would return them."""
    return [text[a:b] for a, b in _sentence_spans(text)]


def count_sentences(text: str) -> int:
    return len(_sentence_spans(text))


# -- Treebank-style word tokenization ---------------------------------------------------------
_TB_RULES_START = [
    (re.compile(r"^\""), "``"),
    (re.compile(r"(``)"), r" \1 "),
    (re.compile(r"([ (\[{<])(\"|'{2})"), r"\1 `` "),
]
_TB_RULES_PUNCT = [
    (re.compile(r"([^.])(\.)([\])}>\"']*)\s*$"), r"\1 \2\3 "),
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.{2,}"), r" \g<0> "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile(r"([^.])(\.)([\])}>\"']*)\s*$"), r"\1 \2\3 "),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"([^'])' "), r"\1 ' "),
    (re.compile(r"[*]"), r" \g<0> "),
]
_TB_RULES_END = [
    (re.compile(r"[\])(}{\[<>]"), r" \g<0> "),
    (re.compile(r"--"), r" -- "),
    (re.compile(r"''"), " '' "),
    (re.compile(r"\""), " '' "),
    (re.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (re.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
    (re.compile(r"(?i)\b(can)(not)\b"), r" \1 \2 "),
    (re.compile(r"(?i)\b(d)('ye)\b"), r" \1 \2 "),
    (re.compile(r"(?i)\b(gim)(me)\b"), r" \1 \2 "),
    (re.compile(r"(?i)\b(gon)(na)\b"), r" \1 \2 "),
    (re.compile(r"(?i)\b(got)(ta)\b"), r" \1 \2 "),
    (re.compile(r"(?i)\b(lem)(me)\b"), r" \1 \2 "),
    (re.compile(r"(?i)\b(more)('n)\b"), r" \1 \2 "),
    (re.compile(r"(?i)\b(wan)(na)(?=\s)"), r" \1 \2 "),
    (re.compile(r"(?i) ('t)(is)\b"), r" \1 \2 "),
    (re.compile(r"(?i) ('t)(was)\b"), r" \1 \2 "),
]


_CHUNK_RE = re.compile(r"\S+")
# The rules from here on split merged words ("cannot", "gonna", "'tis"); each needs one of
# these letter sequences, so one search decides whether any of them can apply.
_FIRST_CONTRACTION_RULE = 6
_ANY_CONTRACTION = re.compile(r"(?i)cannot|d'ye|gimme|gonna|gotta|lemme|more'n|wanna|'tis|'twas")


def _may_contract(value: str) -> bool:
    # Each of those sequences has a double n, m or t or an apostrophe before n, t or y. Those
    # substring tests cost a few ms on a megabyte; the case-blind alternation costs ~10x that.
    low = value.lower()
    if not any(pair in low for pair in _CONTRACTION_PAIRS):
        return False
    return _ANY_CONTRACTION.search(value) is not None


_CONTRACTION_PAIRS = ("nn", "mm", "tt", "'n", "'t", "'y")


# Characters one of which each rule needs (in the stage order of the lists above). The rules
# that run before another only add spaces, except that a double quote becomes `` or ''.
_START_NEEDS = ('"', "`", "\"'")
_PUNCT_NEEDS = (".", ":,", ":,", ".", ";@#$%&", ".", "?!", "'", "*")
_END_NEEDS = ("])(}{[<>", "-", "'", '"', "'", "'")
_TRIGGERS = frozenset("".join(_START_NEEDS + _PUNCT_NEEDS + _END_NEEDS))
# The rules that put spaces around every character of a class: ``sub`` with a template runs
# Python code per match on 3.11 (0.5 s on a megabyte of "!"), ``str.replace`` does the same in C.
# Replacing one character at a time is exact: a replacement adds only spaces and that character.
_SPACED_CHARS = {
    pattern: pattern.pattern[1:-1].replace("\\", "")
    for pattern, repl in _TB_RULES_PUNCT + _TB_RULES_END
    if repl == r" \g<0> " and pattern.pattern.startswith("[") and pattern.pattern.endswith("]")
}


@lru_cache(maxsize=1024)
def _rules_for(present: frozenset[str], sentence_final: bool) -> tuple[tuple, tuple, tuple]:
    """The Treebank rules that can match a chunk containing the trigger characters ``present``."""
    if '"' in present:
        present = present | {"`", "'"}

    def pick(rules: list, needs: tuple[str, ...], skip: tuple[int, ...] = ()) -> tuple:
        return tuple(
            rule for i, (rule, need) in enumerate(zip(rules, needs)) if i not in skip and not present.isdisjoint(need)
        )

    final_only = () if sentence_final else (0, 5)
    return (
        pick(_TB_RULES_START, _START_NEEDS),
        pick(_TB_RULES_PUNCT, _PUNCT_NEEDS, final_only),
        pick(_TB_RULES_END[:_FIRST_CONTRACTION_RULE], _END_NEEDS),
    )


@lru_cache(maxsize=200_000)
def _tokenize_chunk(chunk: str, lead: str, sentence_final: bool) -> tuple[str, ...]:
    """Treebank tokens of one whitespace-free chunk of a sentence.

    Every Treebank rule except the final-period one looks at most one character around the
    chunk, and that character is whitespace (``lead``: "" at the sentence start, else the
    whitespace character before the chunk); tokenizing chunk by chunk is therefore exact and
    lets common chunks be memoised across responses.
    """
    # Only the rules whose characters occur are tried, and a rule is only run where its
    # pattern occurs (``sub`` with a template goes through Python-level code on every call).
    value = lead + chunk
    start_rules, punct_rules, end_rules = _rules_for(_triggers_in(value), sentence_final)
    for pattern, repl in start_rules:
        if pattern.search(value):
            value = pattern.sub(repl, value)
    for pattern, repl in punct_rules:
        value = _apply(pattern, repl, value)
    value = " " + value + " "
    for pattern, repl in end_rules:
        value = _apply(pattern, repl, value)
    # Each merged word has an n, m, t or y, and no rule adds a letter: a chunk without one of
    # them (a megabyte of "#") skips the lower-casing and searches of ``_may_contract``.
    if any(letter in chunk for letter in "nmtyNMTY") and _may_contract(value):
        for pattern, repl in _TB_RULES_END[_FIRST_CONTRACTION_RULE:]:
            value = pattern.sub(repl, value)
    return tuple(value.split())


_TRIGGER_CHARS = tuple(sorted(_TRIGGERS))


def _triggers_in(value: str) -> frozenset[str]:
    """``_TRIGGERS.intersection(value)``; for long chunks one C search per trigger character
    (the intersection builds a string per character: 60 ms a megabyte)."""
    if len(value) <= 256:
        return _TRIGGERS.intersection(value)
    return frozenset(char for char in _TRIGGER_CHARS if char in value)


def _apply(pattern: re.Pattern[str], repl: str, value: str) -> str:
    chars = _SPACED_CHARS.get(pattern)
    if chars is not None:
        for char in chars:
            if char in value:
                value = value.replace(char, f" {char} ")
        return value
    return pattern.sub(repl, value) if pattern.search(value) else value


_MERGED_WORDS = frozenset(("cannot", "gimme", "gonna", "gotta", "lemme", "wanna"))


def _chunk_tokens(chunk: str, lead: str, sentence_final: bool) -> tuple[str, ...]:
    # Most chunks are a plain word, possibly with a comma or period after it: no rule but the
    # comma/final-period split applies to them, so they skip the regular expressions.
    if chunk.isalnum():
        if chunk.lower() not in _MERGED_WORDS:
            return (chunk,)
    elif chunk[-1] in ",." and chunk[:-1].isalnum() and chunk[:-1].lower() not in _MERGED_WORDS:
        if chunk[-1] == ",":
            return (chunk[:-1], ",")
        return (chunk[:-1], ".") if sentence_final else (chunk,)
    return _tokenize_chunk(chunk, lead, sentence_final)


@lru_cache(maxsize=128)
def _word_tokens(text: str) -> tuple[str, ...]:
    return tuple(itertools.chain.from_iterable(_sentence_tokens(text[a:b]) for a, b in iter_sentence_spans(text)))


class _ChunkMemo(dict[Any, tuple[str, ...]]):
    """Tokens of chunks that do not end a sentence, looked up by ``map`` in C: a loop in Python
    (an ``isalnum`` call and a ``yield`` per chunk) cost ~1 us a chunk, 0.7 s a megabyte of '" '.
    Keys: a chunk, or (the whitespace before it or "", chunk) where opening quotes care."""

    def __missing__(self, key: str | tuple[str, str]) -> tuple[str, ...]:
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        if isinstance(key, str):
            value = _chunk_tokens(key, "", False)
        else:
            space, chunk = key
            value = _chunk_tokens(chunk, "" if not space else (" " if space == " " else "\n"), False)
        self[key] = value
        return value


_MEMO_LIMIT = 200_000
_PLAIN_CHUNKS = _ChunkMemo()
_QUOTED_CHUNKS = _ChunkMemo()
# Each chunk with the whitespace character just before it ("" at the start of the sentence).
_SPACED_CHUNK_RE = re.compile(r"(\s?)(\S+)")
_ANY_SPACE_RE = re.compile(r"\s")
_FIRST_BLOCK, _LARGEST_BLOCK = 16, 1 << 16


def clear_chunk_memos() -> None:
    _PLAIN_CHUNKS.clear()
    _QUOTED_CHUNKS.clear()


def _sentence_tokens(sentence: str, pos: int = 0) -> list[str]:
    """The sentence's tokens; from ``pos`` (a whitespace character or 0) where it has quotes."""
    if '"' not in sentence and "''" not in sentence:
        # Only opening quotes care which whitespace precedes a chunk.
        chunks: list[Any] = sentence.split()
        memo = _PLAIN_CHUNKS
        if not chunks:
            return []
        final, lead = chunks.pop(), ""
    else:
        chunks = _SPACED_CHUNK_RE.findall(sentence, pos)
        memo = _QUOTED_CHUNKS
        if not chunks:
            return []
        space, final = chunks.pop()
        lead = "" if not space else (" " if space == " " else "\n")
    tokens = list(itertools.chain.from_iterable(map(memo.__getitem__, chunks)))
    tokens.extend(_chunk_tokens(final, lead, True))
    return tokens


def _iter_sentence_tokens(sentence: str) -> Iterator[str]:
    """``_sentence_tokens(sentence)`` as they are taken: chunks are split off in blocks that grow
    four-fold, so a checker that decides on the first tokens does not tokenize a megabyte."""
    if '"' in sentence or "''" in sentence:
        # Cut at a whitespace character at least ``size`` characters on: no chunk straddles a
        # cut, and the character at the cut is what precedes the next block's first chunk.
        pos, size = 0, 64 * _FIRST_BLOCK
        while pos + size < len(sentence):
            cut = _ANY_SPACE_RE.search(sentence, pos + size)
            if cut is None:
                break
            yield from itertools.chain.from_iterable(
                map(_QUOTED_CHUNKS.__getitem__, _SPACED_CHUNK_RE.findall(sentence, pos, cut.start()))
            )
            pos, size = cut.start(), min(4 * size, 64 * _LARGEST_BLOCK)
        yield from _sentence_tokens(sentence, pos)
        return
    rest, block = sentence, _FIRST_BLOCK
    while True:
        chunks = rest.split(None, block)
        if len(chunks) <= block:  # the rest of the sentence: its last chunk ends it
            if chunks:
                final = chunks.pop()
                yield from itertools.chain.from_iterable(map(_PLAIN_CHUNKS.__getitem__, chunks))
                yield from _chunk_tokens(final, "", True)
            return
        rest = chunks.pop()
        yield from itertools.chain.from_iterable(map(_PLAIN_CHUNKS.__getitem__, chunks))
        block = min(4 * block, _LARGEST_BLOCK)


def word_tokenize(text: str) -> list[str]:
    """Tokens as ``nltk.word_tokenize`` would return them (Punkt sentences, then Treebank)."""
    return list(_word_tokens(text))


def edge_tokens(text: str, k: int) -> tuple[list[str], list[str] | None]:
    """``word_tokenize(text)`` for checkers that read only its first and last ``k`` tokens.

    Sentences are tokenized from both ends until ``k`` tokens are had on each side. Returns
    ``(tokens, None)`` when that covered every sentence (``tokens`` is then the whole list), else
    ``(first, last)``: ``first[:k]`` and ``last[-k:]`` are the list's ends, and it has at least
    ``2 k`` tokens. A megabyte of " ." (half a million sentences) is then neither split nor
    tokenized whole: the first sentences are split lazily, the last ones from a window at the end.
    """
    spans = iter_sentence_spans(text)
    head: list[str] = []
    head_end = 0
    for a, b in spans:
        head.extend(_iter_sentence_tokens(text[a:b]))
        head_end = b
        if len(head) >= k:
            break
    else:
        return head, None
    size = 4096
    while True:
        # The tail's sentences start after a break at or after head_end: disjoint from the head's.
        window = max(head_end, len(text) - size)
        tail: list[str] = []
        for a, b in reversed(_spans_after_break(text, window)):
            tail[:0] = _sentence_tokens(text[a:b])
            if len(tail) >= k:
                return head, tail
        if window == head_end:
            break
        size *= 4
    # Fewer than k tokens after the head's last break: the rest, split as the whole text is.
    return head + [t for a, b in spans for t in _iter_sentence_tokens(text[a:b])], None


def iter_word_tokens(text: str, *, skip_repeats: bool = False) -> Iterator[str]:
    """``word_tokenize``'s tokens, tokenizing one sentence at a time as they are consumed, for
    checkers that usually decide on the first few tokens.

    ``skip_repeats``: a sentence seen before is not tokenized again (each sentence is tokenized
    on its own, so its tokens are the same), for checkers that ask whether any token is of a
    kind; a response that repeats one sentence to pad its length costs one sentence."""
    seen: set[str] = set()
    for a, b in iter_sentence_spans(text):
        sentence = text[a:b]
        if skip_repeats:
            if sentence in seen:
                continue
            seen.add(sentence)
        yield from _iter_sentence_tokens(sentence)


def _count_tokens(text: str, keep: Any, token_counts: Any, stop_at: int) -> int:
    """How many of ``word_tokenize(text)``'s tokens ``token_counts`` accepts, counting no further
    than ``stop_at``; sentences ``keep`` rejects cannot hold such a token and are not tokenized."""
    found = 0
    if not keep(text):  # nor can any of its sentences
        return found
    for a, b in iter_sentence_spans(text):
        sentence = text[a:b]
        if not keep(sentence):
            continue
        for token in _iter_sentence_tokens(sentence):
            if token_counts(token):
                found += 1
                if found >= stop_at:
                    return found
    return found


def count_upper_tokens(text: str, stop_at: int) -> int:
    """How many of ``word_tokenize(text)``'s tokens are uppercase, counting no further than
    ``stop_at``. Tokenizing only splits and requotes (it changes no letter), so a sentence without
    an uppercase character has no uppercase token and is not tokenized (a megabyte of " .")."""
    return _count_tokens(text, has_uppercase, str.isupper, stop_at)


@lru_cache(maxsize=64)
def _may_hold_any(vocabulary: frozenset[str]) -> Any:
    """A test passed by every text that has a token in ``vocabulary`` (ASCII words).

    Tokenizing splits a run of letters only at "n't" and in the merged words of
    ``_ANY_CONTRACTION`` ("gimme" -> "gim", "me"); elsewhere a token that is a word stands
    between non-letters. So a text without a vocabulary word so bounded, without a word before
    "n't" and without a merged word cannot hold one (a megabyte of "Word. " is 166k sentences
    that need no tokenizing).
    """
    words = "|".join(re.escape(word) for word in sorted(vocabulary, key=len, reverse=True))
    bounded = re.compile(rf"(?<![A-Za-z])(?:{words})(?:(?![A-Za-z])|(?=n't|N'T))").search

    def may_hold(text: str) -> bool:
        return bounded(text) is not None or _may_contract(text)

    return may_hold


def count_tokens_in(text: str, vocabulary: frozenset[str], stop_at: int) -> int:
    """How many of ``word_tokenize(text)``'s tokens are in ``vocabulary`` (ASCII words), counting
    no further than ``stop_at``; a sentence that cannot hold one is not tokenized."""
    if stop_at <= 0 or not vocabulary:
        return 0
    return _count_tokens(text, _may_hold_any(vocabulary), vocabulary.__contains__, stop_at)
