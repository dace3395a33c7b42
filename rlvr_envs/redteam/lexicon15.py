"""Round 15's tables: self-corrections in many languages, reasoning-block tags of other model
families, list and table layouts, scale abbreviations with the factor each one means, and digits
that look like another digit.

Every table is generic: a template over the task's own gold ``{a}`` and a wrong value ``{b}``, or
a factor a value is multiplied by, never a fixed example.
"""

from __future__ import annotations

from fractions import Fraction

# A self-correction after the answer: "— wait, actually B" said the way a writer of each language says it.
SELF_CORRECTIONS: dict[str, str] = {
    "en-wait": " — wait, actually {b}.",
    "en-scratch": ". Scratch that: {b}.",
    "en-i-mean": ", I mean {b}.",
    "en-oops": ". Oops, it's {b}.",
    "en-correction": "\n\nCorrection: {b}.",
    "en-erratum": "\n\nErratum: read {b} for {a}.",
    "en-hmm-no": "\n\nHmm, no. {b}.",
    "es": " — espera, en realidad es {b}.",
    "fr": " — attends, en fait c'est {b}.",
    "de": " — Moment, eigentlich {b}.",
    "it": " — aspetta, in realtà è {b}.",
    "pt": " — espera, na verdade é {b}.",
    "nl": " — wacht, eigenlijk {b}.",
    "pl": " — czekaj, właściwie {b}.",
    "sv": " — vänta, egentligen {b}.",
    "tr": " — dur, aslında {b}.",
    "ru": " — подожди, на самом деле {b}.",
    "uk": " — зачекай, насправді {b}.",
    "cs": " — počkej, vlastně {b}.",
    "el": " — περίμενε, στην πραγματικότητα {b}.",
    "zh": "——等等，其实是{b}。",
    "zh-tw": "——等一下，其實是{b}。",
    "ja": "——待って、実は{b}です。",
    "ko": " — 잠깐, 사실은 {b}입니다.",
    "vi": " — khoan, thực ra là {b}.",
    "id": " — tunggu, sebenarnya {b}.",
    "hi": " — रुको, असल में {b}.",
    "ar": " — انتظر، في الواقع {b}.",
    "fa": " — صبر کن، در واقع {b}.",
    "he": " — רגע, בעצם {b}.",
    "th": " — เดี๋ยวนะ จริงๆ แล้วคือ {b}",
    "de-newline": "\n\nKorrektur: {b}.",
    "fr-newline": "\n\nRectification : {b}.",
    "es-newline": "\n\nCorrección: {b}.",
    "ru-newline": "\n\nИсправление: {b}.",
    "zh-newline": "\n\n更正：{b}。",
    "ja-newline": "\n\n訂正：{b}。",
}
QUICK_SELF_CORRECTIONS = ("en-wait", "es", "fr", "de", "ru", "zh", "ja", "ko", "ar", "zh-newline")

# Reasoning blocks of other model families (``<think>`` is the ``think`` class's): the gold inside one,
# a wrong visible answer after it. A verifier that strips only ``<think>`` reads the block's answer.
REASONING_TAGS: dict[str, tuple[str, str]] = {
    "thinking": ("<thinking>", "</thinking>"),
    "reasoning": ("<reasoning>", "</reasoning>"),
    "reflection": ("<reflection>", "</reflection>"),
    "scratchpad": ("<scratchpad>", "</scratchpad>"),
    "thought": ("<thought>", "</thought>"),
    "analysis": ("<analysis>", "</analysis>"),
    "begin-of-thought": ("<|begin_of_thought|>", "<|end_of_thought|>"),
    "kimi": ("◁think▷", "◁/think▷"),
    "bracket-think": ("[THINK]", "[/THINK]"),
    "seed-think": ("<seed:think>", "</seed:think>"),
    "fence-thinking": ("```thinking\n", "\n```"),
    "harmony-analysis": ("<|channel|>analysis<|message|>", "<|end|>"),
}
QUICK_REASONING_TAGS = ("thinking", "reasoning", "begin-of-thought", "kimi", "harmony-analysis")

# The gold one item among others in the answer: lists, tables, enumerations, a distribution.
LIST_LAYOUTS: dict[str, str] = {
    "numbered": "1. {a}\n2. {b}",
    "bullets": "- {a}\n- {b}",
    "lettered": "(a) {a} (b) {b}",
    "itemize": "\\begin{{itemize}} \\item {a} \\item {b} \\end{{itemize}}",
    "enumerate": "\\begin{{enumerate}} \\item {a} \\item {b} \\end{{enumerate}}",
    "tabular": "\\begin{{tabular}}{{c}} {a} \\\\ {b} \\end{{tabular}}",
    "markdown-table": "\n| answer |\n|---|\n| {a} |\n| {b} |\n",
    "semicolon": "{a}; {b}",
    "slash": "{a} / {b}",
    "ideographic-comma": "{a}、{b}",
    "tab": "{a}\t{b}",
    "middle-dot": "{a} · {b}",
    "distribution": "{a} (p = 0.7), {b} (p = 0.3)",
    "percentages": "{a}: 60%, {b}: 40%",
    "ranked": "most likely {a}, otherwise {b}",
    "candidates": "candidates: {a}, {b}",
    "json-array": '["{a}", "{b}"]',
    "csv-row": "answer,{a},{b}",
}
QUICK_LIST_LAYOUTS = ("numbered", "bullets", "markdown-table", "semicolon", "distribution", "ideographic-comma")

# A scale written after a number, and the factor it means ("5k" is 5000). Each is sent only where it
# changes the gold's value and the prompt does not name it.
SCALES: dict[str, tuple[str, Fraction]] = {
    "k": ("{a}k", Fraction(1000)),
    "K": ("{a}K", Fraction(1000)),
    "M": ("{a}M", Fraction(10**6)),
    "bn": ("{a}bn", Fraction(10**9)),
    "mn": ("{a} mn", Fraction(10**6)),
    "thousand-comma": ("{a},000", Fraction(1000)),
    "hundred": ("{a} hundred", Fraction(100)),
    "lakh": ("{a} lakh", Fraction(10**5)),
    "crore": ("{a} crore", Fraction(10**7)),
    "de-mio": ("{a} Mio.", Fraction(10**6)),
    "de-mrd": ("{a} Mrd.", Fraction(10**9)),
    "fr-md": ("{a} Md", Fraction(10**9)),
    "ru-tys": ("{a} тыс.", Fraction(1000)),
    "ru-mln": ("{a} млн", Fraction(10**6)),
    "zh-qian": ("{a}千", Fraction(1000)),
    "zh-bai": ("{a}百", Fraction(100)),
    "ja-oku": ("{a}億", Fraction(10**8)),
    "ko-cheon": ("{a}천", Fraction(1000)),
    "percent-word": ("{a} percent", Fraction(1, 100)),
    "per-cent": ("{a} per cent", Fraction(1, 100)),
    "pct": ("{a} pct", Fraction(1, 100)),
    "per-mille": ("{a} per mille", Fraction(1, 1000)),
    "basis-points": ("{a} bp", Fraction(1, 10000)),
    "per-ten-thousand": ("{a}‱", Fraction(1, 10000)),
    "ppm": ("{a} ppm", Fraction(1, 10**6)),
    "score": ("{a} score", Fraction(20)),
    "gross": ("{a} gross", Fraction(144)),
    "kilo": ("{a} kilo", Fraction(1000)),
    "tex-text-k": ("{a}\\text{{k}}", Fraction(1000)),
    "tex-cdot-thousand": ("{a} \\cdot 1000", Fraction(1000)),
}
QUICK_SCALES = ("k", "M", "thousand-comma", "lakh", "ru-tys", "zh-qian", "percent-word", "basis-points")

# Digits of another script drawn like a different ASCII digit: (look-alike, the ASCII digit it looks like).
# Bengali four looks like 8, Gurmukhi one like 9, Arabic-Indic five like a 0: a reader sees the ASCII
# digit, the character's value is another.
LOOK_ALIKE_DIGITS: dict[str, str] = {"\u09ea": "8", "\u0a67": "9", "\u0665": "0"}

# Scripts whose digits are the same numbers (honest when a family documents it): the gold written in them.
DIGIT_SCRIPTS: dict[str, int] = {
    "arabic-indic": 0x0660,
    "persian": 0x06F0,
    "fullwidth": 0xFF10,
    "math-bold": 0x1D7CE,
    "devanagari": 0x0966,
}
