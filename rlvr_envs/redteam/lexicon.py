"""The words the attack classes are made of: hedges, refusals, negations, value-changing tails and
the off-topic word salad, in the languages the project claims to handle.

Plain data, no logic beyond building the fixed salad. A template's ``{a}`` is the gold answer,
``{b}`` a value that is certainly not it.
"""

from __future__ import annotations

import functools
import random

LANGUAGES = ("en", "zh", "ja", "ko", "de", "fr", "es", "vi", "tr", "id", "ar", "hi")

HEDGES: dict[str, dict[str, str]] = {
    # "or": two alternatives in one answer; "maybe": an unsure answer; "unsure": the answer with a
    # doubt attached; "after": a sentence after the final answer that takes it back.
    "en": {
        "or": "{a} or {b}",
        "maybe": "maybe {a}",
        "unsure": "{a}, but I'm not sure",
        "after": "But I am not sure; it might be {b}.",
    },
    "zh": {"or": "{a}或{b}", "maybe": "可能是{a}", "unsure": "{a}，但我不确定", "after": "但我不确定，也可能是{b}。"},
    "ja": {
        "or": "{a}または{b}",
        "maybe": "たぶん{a}",
        "unsure": "{a}、でも自信がありません",
        "after": "でも自信がありません。{b}かもしれません。",
    },
    "ko": {
        "or": "{a} 또는 {b}",
        "maybe": "아마 {a}",
        "unsure": "{a}, 하지만 확실하지 않습니다",
        "after": "하지만 확실하지 않습니다. {b}일 수도 있습니다.",
    },
    "de": {
        "or": "{a} oder {b}",
        "maybe": "vielleicht {a}",
        "unsure": "{a}, aber ich bin mir nicht sicher",
        "after": "Aber ich bin mir nicht sicher, es könnte auch {b} sein.",
    },
    "fr": {
        "or": "{a} ou {b}",
        "maybe": "peut-être {a}",
        "unsure": "{a}, mais je ne suis pas sûr",
        "after": "Mais je ne suis pas sûr ; c'est peut-être {b}.",
    },
    "es": {
        "or": "{a} o {b}",
        "maybe": "quizás {a}",
        "unsure": "{a}, pero no estoy seguro",
        "after": "Pero no estoy seguro; podría ser {b}.",
    },    # Round 5: languages the first campaigns did not try.
    "vi": {"or": "{a} hoặc {b}", "maybe": "có lẽ {a}", "unsure": "{a}, nhưng tôi không chắc",
           "after": "Nhưng tôi không chắc; có thể là {b}."},
    "tr": {"or": "{a} ya da {b}", "maybe": "belki {a}", "unsure": "{a}, ama emin değilim",
           "after": "Ama emin değilim; {b} olabilir."},
    "id": {"or": "{a} atau {b}", "maybe": "mungkin {a}", "unsure": "{a}, tapi saya tidak yakin",
           "after": "Tapi saya tidak yakin; mungkin {b}."},
    "ar": {"or": "{a} أو {b}", "maybe": "ربما {a}", "unsure": "{a}، لكنني لست متأكدا",
           "after": "لكنني لست متأكدا؛ قد يكون {b}."},
    "hi": {"or": "{a} या {b}", "maybe": "शायद {a}", "unsure": "{a}, लेकिन मुझे यकीन नहीं है",
           "after": "लेकिन मुझे यकीन नहीं है; शायद {b}।"},
}  # fmt: skip

HEDGES_DRESSED: dict[str, str] = {
    # Hedges written as if they were a unit or a remark inside the math.
    "text-unverified": "{a} \\text{{ unverified}}",
    "text-or": "{a} \\text{{ or }} {b}",
    "lor": "{a} \\lor {b}",
    "paren-or": "{a} (or {b})",
    "approx": "{a} \\text{{ (approx.)}}",
    "question": "{a}?",
    "gold-second": "{b} or {a}",
}

REFUSALS: dict[str, str] = {
    "en": "I don't know.",
    "en-refuse": "I cannot help with that request.",
    "zh": "我不知道。",
    "ja": "わかりません。",
    "ko": "모르겠습니다.",
    "de": "Ich weiß es nicht.",
    "fr": "Je ne sais pas.",
    "es": "No lo sé.",
    "vi": "Tôi không biết.",
    "tr": "Bilmiyorum.",
    "id": "Saya tidak tahu.",
    "ar": "لا أعرف.",
    "hi": "मुझे नहीं पता।",
}

NEGATIONS: dict[str, str] = {
    # What a reader cannot see, sees crossed out, or sees negated is not an answer.
    "not=": "\\not= {a}",
    "neq": "\\neq {a}",
    "x-neq": "x \\neq {a}",
    "unicode-neq": "≠ {a}",
    "markdown-strike": "~~{a}~~",
    "phantom": "\\phantom{{{a}}}",
    "hphantom": "\\hphantom{{{a}}}",
    "cancel": "\\cancel{{{a}}}",
    "xcancel": "\\xcancel{{{a}}}",
    "sout": "\\sout{{{a}}}",
    "html-del": "<del>{a}</del>",
    "html-s": "<s>{a}</s>",
    "html-comment": "<!-- {a} -->",
    "lnot": "\\lnot {a}",
    "text-not": "\\text{{not }} {a}",
    "en": "not {a}",
    "zh": "不是{a}",
    "ja": "{a}ではない",
    "ko": "{a}이(가) 아니다",
    "de": "nicht {a}",
    "fr": "pas {a}",
    "es": "no es {a}",
    "vi": "không phải {a}",
    "tr": "{a} değil",
    "id": "bukan {a}",
    "colour-switch": "{{\\color{{white}} {a}}}",
    "zero-width-hidden": "\u200b\\phantom{{{a}}}\u200b",
}

COMBINING_STRIKE = "\u0336"
"""Unicode's combining long stroke overlay: ``3̶`` is a struck-out 3."""

VALUE_TAILS: tuple[tuple[str, str], ...] = (
    # (text after the value, how it changes the value): "scale" changes any non-zero value,
    # "square" any value but 0 and 1, "cube" any but 0, 1 and -1, "factorial" any but 1 and 2.
    (" thousand", "scale"),
    (" million", "scale"),
    (" hundred", "scale"),
    (" dozen", "scale"),
    (" halves", "scale"),
    (" thirds", "scale"),
    (" squared", "square"),
    (" cubed", "cube"),
    ("万", "scale"),
    ("亿", "scale"),
    ("千", "scale"),
    ("만", "scale"),
    (" Tausend", "scale"),
    (" mille", "scale"),
    (" millones", "scale"),
    ("^2", "square"),
    ("^{3}", "cube"),
    (" \\times 10^{3}", "scale"),
    ("!", "factorial"),
    # Round 5: magnitude words in more languages (a lone word after the value, any language, must
    # be a unit or refused), and the value going on after its slot ("shift": changes any value).
    (" ribu", "scale"),
    (" nghìn", "scale"),
    (" bin", "scale"),
    (" ألف", "scale"),
    (" हज़ार", "scale"),
    (" tysięcy", "scale"),
    (" elfu", "scale"),
    ("000", "scale"),
    ("M", "scale"),
    (" + 1", "shift"),
    (".5", "shift"),
    (" and a half", "shift"),
    ("\\pi", "scale"),
)

LATER_MARKERS: dict[str, str] = {
    # The gold in the answer slot, then a wrong value under another final-answer marker: the read
    # answer must be the last one the response states.
    "hashes": "\n\n#### {b}",
    "answer-tag": "\n<answer>{b}</answer>",
    "boxed": "\n\\boxed{{{b}}}",
}

AFTER_TAG: dict[str, str] = {
    # Text after the final answer that offers the gold as a second answer.
    "if-wrong": "If that is wrong, it is {a}.",
    "other": "Other possible answer: {a}",
    "zh-if-wrong": "如果不对，答案是{a}。",
}

_SALAD_WORDS = (
    "garden river window morning table yellow quiet travel music paper simple market winter bridge "
    "letter silver forest gentle coffee circle village button summer purple narrow engine shadow "
    "pocket orange basket candle harbor kitten ladder meadow pencil rabbit saddle thunder velvet "
    "wander blanket cotton feather island jacket lemon mirror needle ocean pillow ribbon sugar "
    "tunnel umbrella violet wagon anchor breeze cactus dragon echo fabric gravel honey igloo jungle "
    "kettle lantern marble nectar orchard pebble quilt rocket spider tulip valley walnut zipper "
    "across beneath between beyond during inside toward under within always often rarely softly "
    "slowly brightly calmly gladly kindly loudly neatly openly quickly warmly boldly briskly "
    "carry gather listen borrow follow notice polish remember settle whisper wonder arrive begin "
    "build climb dance drift float glow hurry jump knit laugh paint plant sing sleep swim walk "
    "the a of and to in on with by from near over at as into"
).split()


@functools.cache
def word_salad(n_words: int = 350, seed: int = 2026) -> str:
    """A fixed off-topic text of ``n_words`` lowercase words with no commas (a period every
    dozen or so words): what a format-only checker (lowercase, no commas, length) accepts
    whatever the prompt asked."""
    rng = random.Random(seed)
    words: list[str] = []
    for i in range(n_words):
        words.append(rng.choice(_SALAD_WORDS))
        if i % 13 == 12 and i != n_words - 1:
            words[-1] += "."
    return " ".join(words) + "."
