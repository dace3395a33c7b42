"""Where the response starts in an OpenRLHF query, and the special tokens stripped from it.

Split from ``rlvr_envs.serve.protocol`` (which re-exports every name): the query is read without any
request around it, so this holds no HTTP, task or label code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = (
    # End-of-sequence, end-of-turn and padding text of common chat templates, as a tokenizer
    # decodes them with skip_special_tokens=False (OpenRLHF's query).
    "</s>",  # Llama 2, Mistral
    "<s>",  # their BOS
    "<|im_end|>",  # ChatML: Qwen, Yi, OpenHermes
    "<|endoftext|>",  # Qwen's pad/EOS, GPT-2, Phi-2
    "<|eot_id|>",  # Llama 3 end of turn
    "<|end_of_text|>",  # Llama 3 EOS
    "<|begin_of_text|>",  # Llama 3 BOS
    "<|finetune_right_pad_id|>",  # Llama 3.1 pad
    "<end_of_turn>",  # Gemma
    "<eos>",  # Gemma EOS
    "<bos>",  # Gemma BOS
    "<pad>",  # Gemma, T5 pad
    "<|end|>",  # Phi-3
    "<|endoftext|>",
    "<｜end▁of▁sentence｜>",  # DeepSeek (full-width bars)
    "<｜begin▁of▁sentence｜>",
    "<|EOT|>",  # DeepSeek Coder
    "<|return|>",  # gpt-oss
    "<|im_start|>",  # never part of a response
    "[PAD]",
)

_TEMPLATES: tuple[tuple[tuple[str, ...], str], ...] = (
    # (what opens a turn of the template's prompt, the marker its assistant turn starts with)
    (("<|im_start|>",), "<|im_start|>assistant\n"),  # ChatML
    (("<|start_header_id|>",), "<|start_header_id|>assistant<|end_header_id|>\n\n"),  # Llama 3
    (("<start_of_turn>",), "<start_of_turn>model\n"),  # Gemma
    (("<|user|>", "<|system|>"), "<|assistant|>\n"),  # Phi-3, Zephyr
    (("<｜User｜>",), "<｜Assistant｜>"),  # DeepSeek
    (("[INST]",), "[/INST]"),  # Llama 2, Mistral
)
_ASSISTANT_MARKERS = tuple(marker for _, marker in _TEMPLATES)


@dataclass
class SpecialTokens:
    """Special-token text to strip from queries and responses (longest first, so ``<s>`` never eats ``</s>``)."""

    tokens: tuple[str, ...] = DEFAULT_SPECIAL_TOKENS
    _sorted: tuple[str, ...] = field(init=False, repr=False)
    _again_end: frozenset[str] = field(init=False, repr=False)
    _again_start: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._sorted = tuple(sorted({t for t in self.tokens if t}, key=len, reverse=True))
        # A token no longer token ends (starts) with: when it is there again, it is the longest
        # there, so a run of padding is stripped without trying the whole list at every token.
        longer = list(enumerate(self._sorted))
        self._again_end = frozenset(t for i, t in longer if not any(u.endswith(t) for u in self._sorted[:i]))
        self._again_start = frozenset(t for i, t in longer if not any(u.startswith(t) for u in self._sorted[:i]))

    # Both run on every sample the server scores: one ``startswith``/``endswith`` with the whole
    # tuple says whether any token is there at all (usually none, or one EOS), before the loop
    # finds the longest.
    # Both move an index and cut once: cutting the text at each token copied the rest every time,
    # quadratic in the padding (8,000 decoded pad tokens, ~100 KB: ~20 ms a query; 400,000
    # characters of "</s>": 0.5 s, ~13 s at 2 MB; bench/hostile_time.py).
    def strip_end(self, text: str) -> str:
        """``text`` without trailing special tokens (and the whitespace between them)."""
        tokens = self._sorted
        end, again = len(text), ""
        while True:
            cut = end
            while cut and text[cut - 1].isspace():
                cut -= 1
            if again and text.endswith(again, 0, cut):
                end = cut - len(again)
                continue
            if not tokens or not text.endswith(tokens, 0, cut):
                return text[:end]
            for token in tokens:
                if text.endswith(token, 0, cut):
                    end = cut - len(token)
                    again = token if token in self._again_end else ""
                    break

    def strip_start(self, text: str) -> str:
        """``text`` without leading special tokens (left padding, BOS)."""
        tokens = self._sorted
        at, again = 0, ""
        while tokens:
            if again and text.startswith(again, at):
                at += len(again)
                continue
            if not text.startswith(tokens, at):
                break
            for token in tokens:
                if text.startswith(token, at):
                    at += len(token)
                    again = token if token in self._again_start else ""
                    break
        return text[at:]


def split_query(query: str, prompt: str | None, tokens: SpecialTokens) -> tuple[str, bool]:
    """``(response, prompt_found)`` of an OpenRLHF query (padding + prompt + response + EOS + padding).

    The prompt is looked for after the leading padding and BOS, then anywhere before the query's
    first assistant-turn marker (first match; a copy after it is the policy's own text).
    When it is absent (a tokenizer that does not decode back to the same text), the response is
    what follows as many assistant-turn markers as the prompt holds (``_after_prompt_markers``),
    else the whole query: ``prompt_found`` is then False and the reply flags the sample in
    ``extra_logs["prompt_not_found"]``. With no prompt sent, see ``read_query``: a query whose
    template's assistant marker occurs more than once is ambiguous, and this returns everything
    after its first one (the server refuses such a sample instead of scoring it).
    """
    response, found, _ambiguous = read_query(query, prompt, tokens)
    return response, found


def read_query(query: str, prompt: str | None, tokens: SpecialTokens) -> tuple[str, bool, bool]:
    """``(response, prompt_found, ambiguous)``: ``split_query`` and whether the response cannot be told
    from the prompt. Without the prompt, the query's template is the one whose turn opener comes first
    (before its own assistant marker); its assistant marker once is the turn the policy answers. More than
    once, the query is either a multi-turn prompt or a completion that wrote the marker itself (a hedge,
    then "<|im_start|>assistant" and a clean answer), and nothing in the text tells which: reading after
    the last marker paid the forged turn alone (round 12), reading from the first pays a multi-turn
    prompt's earlier answers. Such a sample is ``ambiguous``: the server refuses it (send ``prompts``).
    Markers of another template than the query's are the policy's text, never a cut."""
    body = tokens.strip_start(query)
    if prompt:
        bare = tokens.strip_start(prompt)
        for candidate in (prompt, bare):
            if candidate and body.startswith(candidate):
                return tokens.strip_end(body[len(candidate) :]), True, False
        # Not at the start (a tokenizer that decodes the prompt's opening otherwise): the first copy,
        # unless it stands after the query's first assistant-turn marker. There it is the policy's
        # own text ("41. Not sure.<prompt>\\boxed{42}" with the real prompt decoded without a space
        # was read from the copy on, the hedge dropped); the markers then say where the response is.
        first_turn = _first_marker(query)
        for candidate in (prompt, bare):
            at = query.find(candidate) if candidate else -1
            if at >= 0 and (first_turn < 0 or at < first_turn):
                return tokens.strip_end(query[at + len(candidate) :]), True, False
        cut = _after_prompt_markers(query, prompt)
        if cut >= 0:
            return tokens.strip_end(query[cut:]), False, False
        return tokens.strip_end(body), False, False
    if prompt == "":
        return tokens.strip_end(body), True, False
    marker = _template_marker(query)
    if marker is None:  # no templated prompt: the query is the response, markers and all
        return tokens.strip_end(body), True, False
    ends = [at + len(marker) for at in _positions(query, marker, limit=2)]
    return tokens.strip_end(query[ends[0] :]), False, len(ends) > 1


def _template_marker(query: str) -> str | None:
    """The assistant marker of the query's chat template: the template whose turn opener stands first,
    before the first of its assistant markers (a marker alone, with no turn opened before it, is text
    the policy wrote), or None."""
    best: tuple[int, str] | None = None
    for openers, marker in _TEMPLATES:
        first = query.find(marker)
        if first < 0:
            continue
        opened = [at for at in (query.find(o, 0, first) for o in openers) if at >= 0]
        if opened and (best is None or min(opened) < best[0]):
            best = (min(opened), marker)
    return best[1] if best else None


def _after_prompt_markers(query: str, prompt: str) -> int:
    """Where the response starts by the assistant-turn markers, or -1 when the query has none.

    The prompt was given but not found verbatim: the response follows as many markers as the prompt
    holds (at least one): the policy's own text may contain a marker ("41. <|im_start|>assistant
    \n42"), and cutting at the last one let it drop everything it wrote before it (a hedge, a second
    answer)."""
    found = sorted((at + len(m), at) for m in _ASSISTANT_MARKERS if m in query for at in _positions(query, m))
    if not found:
        return -1
    wanted = max(1, sum(prompt.count(m) for m in _ASSISTANT_MARKERS))
    return found[min(wanted, len(found)) - 1][0]


def _first_marker(query: str) -> int:
    """Where the query's first assistant-turn marker starts, or -1 when it has none."""
    found = [at for at in (query.find(m) for m in _ASSISTANT_MARKERS) if at >= 0]
    return min(found) if found else -1


def _positions(text: str, marker: str, limit: int = 10_000) -> list[int]:
    out: list[int] = []
    at = text.find(marker)
    while at >= 0 and len(out) < limit:
        out.append(at)
        at = text.find(marker, at + len(marker))
    return out


def response_text(query: str, prompt: str | None, tokens: SpecialTokens | None = None) -> str:
    """The response part of an OpenRLHF query (see ``split_query``)."""
    return split_query(query, prompt, tokens or SpecialTokens(()))[0]
