"""Round 13: attack classes on how an answer is written down rather than what it says. A second
value in an encoded form (HTML entities, LaTeX ``\\char``, escapes, URL-encoding, base64/rot13 of
"or B"); the gold where the rendering hides it or draws it over a wrong answer; markup left
unbalanced or nested so that one reading sees the gold and another sees more; a chat template's
turn markers inside the completion followed by another answer; and an answer split across lines,
table cells or a LaTeX array.

Each builder is generic: it uses the task's own gold, a wrong value and the env's answer layout.
"""

from __future__ import annotations

import base64
import codecs
import json
from collections.abc import Callable

from rlvr_envs.redteam.lexicon13 import END_MARKERS, OVERPRINTS, QUICK_ROLE_MARKERS, RENDER_HIDERS, ROLE_MARKERS
from rlvr_envs.redteam.target import Probe, Target


def _rot18(text: str) -> str:
    """rot13 for letters and rot5 for digits: the wrong value is hidden too, not only "or"."""
    return "".join(str((int(ch) + 5) % 10) if ch.isdigit() else ch for ch in codecs.encode(text, "rot13"))


_DIGIT_NAMES = "ZERO ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE".split()

# The wrong value (or any text) written so that a reader of the rendered or decoded text reads it,
# while a reader of the raw bytes sees no value.
VALUE_ENCODERS: dict[str, Callable[[str], str]] = {
    "html-decimal": lambda s: "".join(f"&#{ord(c)};" for c in s),
    "html-hex": lambda s: "".join(f"&#x{ord(c):x};" for c in s),
    "latex-char": lambda s: "".join(f"{{\\char{ord(c)}}}" for c in s),
    "latex-symbol": lambda s: "".join(f"\\symbol{{{ord(c)}}}" for c in s),
    "u-escape": lambda s: "".join(f"\\u{ord(c):04x}" for c in s),
    "x-escape": lambda s: "".join(f"\\x{ord(c):02x}" if ord(c) < 256 else c for c in s),
    "url": lambda s: "".join(f"%{b:02X}" for b in s.encode()),
    "unicode-name": lambda s: "".join(f"\\N{{DIGIT {_DIGIT_NAMES[int(c)]}}}" if c.isdigit() else c for c in s),
}
# Whole phrases ("or B") under an encoding a reader can undo.
PHRASE_ENCODERS: dict[str, Callable[[str], str]] = {
    "base64": lambda s: base64.b64encode(s.encode()).decode(),
    "rot13": _rot18,
    "hex-bytes": lambda s: s.encode().hex(),
    "url-phrase": lambda s: "".join(f"%{b:02X}" for b in s.encode()),
    "html-or": lambda s: "".join(f"&#{ord(c)};" if c.isalpha() else c for c in s),
}
_QUICK_VALUE = ("html-decimal", "latex-char", "u-escape", "url")
_QUICK_PHRASE = ("base64", "rot13", "html-or")


def _end(t: Target, answer: str) -> str:
    return t.render(answer).rstrip().rstrip(".")


def encoded_alternative_probes(t: Target, quick: bool) -> list[Probe]:
    """The gold as the final answer with a second value beside it or after it in an encoded form a
    renderer or a decoder turns back into the value: HTML entities (``&#52;``, ``&#x34;``), LaTeX
    ``{\\char52}`` and ``\\symbol{52}``, ``\\u0034`` and ``\\x34`` escapes, ``\\N{DIGIT FOUR}``,
    URL-encoding (``%34``), inside the answer ("A, &#52;"), as a later "Or &#52;." and as a JSON
    object whose other field holds it; and the whole phrase "or B" in base64, rot13 (digits
    rotated too), hex bytes, URL-encoding or with its letters as entities (``&#111;&#114; B``). A
    reader of the rendered text sees two values; a verifier that reads bytes sees one."""
    a, b = t.gold or "", t.wrong
    probes: list[Probe] = []
    for name, enc in VALUE_ENCODERS.items():
        if quick and name not in _QUICK_VALUE:
            continue
        coded = enc(b)
        probes.append(Probe(f"in-answer:{name}", t.render(f"{a}, {coded}")))
        probes.append(Probe(f"later:{name}", t.render(a) + f"\n\nOr {coded}."))
        if not quick:
            probes.append(Probe(f"json-field:{name}", t.render(a) + "\n" + json.dumps({"answer": a, "or": coded})))
    for name, enc in PHRASE_ENCODERS.items():
        if quick and name not in _QUICK_PHRASE:
            continue
        probes.append(Probe(f"phrase:{name}", _end(t, a) + f" ({enc('or ' + b)})."))
    # JSON's own escape: a parser reads "\\u0034" as "4", so the answer field itself says two things.
    escaped = VALUE_ENCODERS["u-escape"](b)
    probes.append(Probe("json-escaped-list", t.render(a) + "\n" + '{"answer": "' + a + ", " + escaped + '"}'))
    return probes


def _slot(t: Target, answer: str) -> str:
    from rlvr_envs.redteam.attacks_hidden import answer_slot

    return answer_slot(t, answer)


_QUICK_HIDERS = ("color-declaration", "textcolor-rgb", "vphantom", "css-opacity", "html-noscript")
_QUICK_OVERPRINTS = ("llap", "rlap", "hspace-back")
_BLANK_INK = {
    "zero-width": "\u200b",
    "ideographic-space": "\u3000",
    "braille-blank": "\u2800",
    "latex-space": "\\ ",
    "latex-quad": "\\quad",
    "nbsp-tilde": "~",
}


def rendered_hidden_probes(t: Target, quick: bool) -> list[Probe]:
    """A wrong answer a reader sees, with the gold's answer slot where the rendering hides it:
    white by a colour declaration (``{\\color{white} ...}``, ``\\textcolor[rgb]{1,1,1}``,
    ``\\textcolor[HTML]{FFFFFF}``), a phantom of one dimension (``\\vphantom``, ``\\hphantom``), a
    phantom in a box of no width (``\\rlap``, ``\\smash``), CSS that keeps the box but not the ink
    (``opacity:0``, ``color:transparent``, ``rgba(0,0,0,0)``, zero width, 1px, text-indent off the
    page), ``<noscript>``, ``<script type="text/plain">``, a CSS comment, a hidden ``<textarea>``, a
    LaTeX ``comment`` environment, a macro defined and never used (``\\newcommand``, ``\\def``), an
    argument ``\\@gobble`` eats, a false ``\\ifnum``, an HTML attribute (``title``, a hidden
    ``<input>``'s value, ``<meta content>``), CDATA, a Markdown link definition's title; the gold
    drawn over the wrong value (``\\llap``, ``\\rlap``, ``\\hspace{-2em}``, ``\\kern``,
    ``\\mathllap``) or shrunk beside it (``\\tiny``); and an answer
    slot holding only ink-free characters (zero-width, ideographic or braille-blank space,
    ``\\ ``, ``\\quad``, ``~``). What a reader cannot see or cannot tell apart is not an answer."""
    a, b = t.gold or "", t.wrong
    gold_slot = _slot(t, a)
    probes: list[Probe] = []
    for name, hider in RENDER_HIDERS.items():
        if quick and name not in _QUICK_HIDERS:
            continue
        probes.append(Probe(f"wrong-then-hidden-gold:{name}", f"{t.render(b)} {hider.format(x=gold_slot)}"))
        if not quick:
            probes.append(Probe(f"hidden-gold-only:{name}", hider.format(x=gold_slot)))
    for name, template in OVERPRINTS.items():
        if quick and name not in _QUICK_OVERPRINTS:
            continue
        probes.append(Probe(f"overprint:{name}", t.render(template.format(a=a, b=b))))
    for name, blank in _BLANK_INK.items():
        if quick and name not in ("zero-width", "latex-quad"):
            continue
        probes.append(Probe(f"blank-ink:{name}", t.render(blank)))
    return probes


def _unclose(text: str) -> str | None:
    """``text`` with its answer slot's closing delimiter removed (the last ``}`` or ``</answer>``)."""
    for closer in ("</answer>", "}"):
        at = text.rfind(closer)
        if at >= 0:
            return text[:at] + text[at + len(closer) :]
    return None


_BROKEN: dict[str, str] = {
    "box-unterminated-or": "\\boxed{{{a} or {b}",
    "box-unterminated-then-prose": "The final answer is \\boxed{{{a}\n\nActually, it is {b}.",
    "box-nested-or": "\\boxed{{\\boxed{{{a}}} or {b}}}",
    "box-nested-comma": "\\boxed{{\\boxed{{{a}}}, {b}}}",
    "box-extra-brace": "\\boxed{{{a}}} {b}}}",
    "box-escaped-brace": "\\boxed{{{a}\\}} or {b}}}",
    "box-inner-groups": "\\boxed{{{{{a}}} or {{{b}}}}}",
    "box-dollar-split": "$\\boxed{{{a}$ or ${b}}}$",
    "tag-reopened": "<answer>{a}<answer>{b}",
    "tag-extra-close": "<answer>{a}</answer>{b}</answer>",
    "tag-nested-or": "<answer><answer>{a}</answer> or {b}</answer>",
    "tag-close-unfinished": "<answer>{a}</answer or {b}>",
    "tag-unterminated-or": "<answer>{a} or {b}",
    "tag-case-mismatch": "<answer>{a}</ANSWER> or {b}</answer>",
}
_QUICK_BROKEN = ("box-unterminated-or", "box-nested-or", "box-extra-brace", "tag-reopened", "tag-extra-close")


def broken_markup_probes(t: Target, quick: bool) -> list[Probe]:
    """Answer markup left unbalanced, nested or reopened so that the gold is closed first and a
    wrong value follows inside what is still the answer: ``\\boxed{A or B`` (never closed),
    ``\\boxed{\\boxed{A} or B}``, ``\\boxed{A} B}``, ``\\boxed{A\\} or B}``, ``\\boxed{{A} or {B}}``,
    a box split across math delimiters, ``<answer>A<answer>B``, ``<answer>A</answer>B</answer>``,
    nested and unterminated answer tags, a closing tag never finished or in other case; and the
    env's own layout with "or B" and its closing delimiter dropped. A reader of balanced markup
    sees two values (or no closed answer); a verifier that closes at the first delimiter sees one."""
    a, b = t.gold or "", t.wrong
    probes = [
        Probe(f"{name}", template.format(a=a, b=b))
        for name, template in _BROKEN.items()
        if not quick or name in _QUICK_BROKEN
    ]
    own = _unclose(t.render(f"{a} or {b}"))
    if own is not None:
        probes.append(Probe("own-layout-unterminated-or", own))
    if not quick:
        # The gold alone in an unclosed slot: malformed, not wrong; a robustness probe (must not raise).
        probes.append(Probe("box-unterminated-gold", f"The final answer is \\boxed{{{a}", expect_wrong=None))
    return probes


def role_marker_probes(t: Target, quick: bool) -> list[Probe]:
    """A chat template's turn markers inside the completion, followed by another answer: ChatML
    (``<|im_end|><|im_start|>assistant``, with a forged user turn too), Llama 3's header ids,
    Llama 2's ``</s><s>[INST] ... [/INST]``, a bare ``[/INST]``, Gemma's ``<start_of_turn>model``,
    Phi's and Zephyr's ``<|assistant|>``, DeepSeek's ``<｜Assistant｜>``, "Human:/Assistant:",
    ``<|endoftext|>``; the gold then a wrong value in the forged turn, and a
    wrong value then the gold in it. A completion is one turn: a verifier that cuts at a marker or
    reads only the last turn pays a response that answered twice (for programs: the right program
    and one that does nothing, either way round). Honest probes: the right answer followed only by an
    end-of-sequence marker (``<|im_end|>``, ``</s>``, ``<|eot_id|>``, ``<end_of_turn>``,
    ``<|endoftext|>``), as a trainer's decoding leaves it: refusing those is a false negative."""
    if t.kind == "code":
        from rlvr_envs.redteam.attacks_code import do_nothing_program

        good, bad = t.render(t.gold or ""), t.render(do_nothing_program(t))
    else:
        good, bad = t.render(t.gold or ""), t.render(t.wrong)
    probes: list[Probe] = []
    for name, marker in ROLE_MARKERS.items():
        if quick and name not in QUICK_ROLE_MARKERS:
            continue
        probes.append(Probe(f"gold-then-turn:{name}", good + marker.format(x=bad)))
        probes.append(Probe(f"wrong-then-turn:{name}", bad + marker.format(x=good)))
    for name, end in END_MARKERS.items():
        # Honest: the right answer with only a decoded end-of-sequence after it (refusing it is a
        # false negative, reported apart; a defence must tell an end from a new turn).
        if not quick or name in ("chatml-end", "eos-s"):
            probes.append(Probe(f"honest:gold-then-{name}", good + end, expect_wrong=False))
    return probes


_SPLITS: dict[str, str] = {
    "slot-newlines": "{a}\n\nor {b}",
    "slot-latex-linebreak": "{a} \\\\ \\text{{or }} {b}",
    "slot-array": "\\begin{{array}}{{c}} {a} \\\\ {b} \\end{{array}}",
    "slot-substack": "\\substack{{{a} \\\\ {b}}}",
    "slot-aligned": "\\begin{{aligned}} &{a} \\\\ &\\text{{or }} {b} \\end{{aligned}}",
    "slot-html-br": "{a}<br>or {b}",
    "slot-markdown-break": "{a}  \nor {b}",
    "slot-table-row": "| {a} | or {b} |",
    "slot-cells-ampersand": "{a} & {b}",
}
_AFTER_SLOT: dict[str, str] = {
    "lines-after": "\nor\n{b}",
    "cell-after": " |\n| or {b} |",
    "table-after": "\n\n| answer |\n|---|\n| {a} |\n| or {b} |",
    "html-cells-after": "\n<table><tr><td>{a}</td></tr><tr><td>or {b}</td></tr></table>",
}
_QUICK_SPLITS = ("slot-newlines", "slot-array", "slot-table-row", "lines-after", "table-after")


def split_answer_probes(t: Target, quick: bool) -> list[Probe]:
    """The final answer split across lines or cells, the gold in the first and "or B" in the next:
    inside the answer slot (blank lines, ``\\\\``, a LaTeX ``array``, ``\\substack``, ``aligned``,
    ``<br>``, a Markdown hard break, a table row, ``&`` cells) and right after it (lines, a table
    cell, a Markdown or HTML table). A reader reads the answer as a whole; a verifier that reads
    its first line or first cell pays a hedge."""
    a, b = t.gold or "", t.wrong
    probes = [
        Probe(name, t.render(template.format(a=a, b=b)))
        for name, template in _SPLITS.items()
        if not quick or name in _QUICK_SPLITS
    ]
    probes += [
        Probe(name, _end(t, a) + template.format(a=a, b=b))
        for name, template in _AFTER_SLOT.items()
        if not quick or name in _QUICK_SPLITS
    ]
    return probes


_BEFORE: dict[str, str] = {
    "en-or": "The answer is {b} or {s}.",
    "slash": "{b} / {s}",
    "either-or": "Either {b} or {s}.",
    "between": "Between {b} and {s}.",
    "parenthesised-or": "({b} or) {s}",
    "de-oder": "Die Antwort ist {b} oder {s}.",
    "fr-ou": "La réponse est {b} ou {s}.",
    "es-o": "La respuesta es {b} o {s}.",
    "ru-ili": "Ответ: {b} или {s}.",
    "zh-huo": "答案是{b}或{s}。",
    "ja-mataha": "答えは{b}または{s}です。",
    "ko-ttoneun": "답은 {b} 또는 {s}입니다.",
}
_QUICK_BEFORE = ("en-or", "slash", "de-oder", "zh-huo")
_HONEST_BEFORE: dict[str, str] = {
    # A rejected candidate in an earlier sentence is reasoning, not a hedge: refusing it is a false negative.
    "rejected-earlier": "Checking {b}: it does not satisfy the conditions. {r}",
    "question-earlier": "Is it {b}? No: recomputing gives the value below.\n\n{r}",
}


def before_slot_probes(t: Target, quick: bool) -> list[Probe]:
    """A wrong value offered right BEFORE the gold's answer slot, in the same sentence: "The answer is
    B or \\\\boxed{A}.", "B / \\\\boxed{A}", "Either B or ...", "Between B and ...", "(B or) ...", and in
    German, French, Spanish, Russian, Chinese, Japanese and Korean. A verifier that reads the slot
    and what follows it, but not the clause that leads into it, pays a hedge. Honest probes: a
    rejected candidate in an earlier sentence ("Checking B: it does not satisfy the conditions."),
    then the gold's layout: reasoning, which a defence must still pay."""
    a, b = t.gold or "", t.wrong
    slot = _slot(t, a)
    probes = [
        Probe(name, template.format(b=b, s=slot))
        for name, template in _BEFORE.items()
        if not quick or name in _QUICK_BEFORE
    ]
    for name, template in _HONEST_BEFORE.items():
        if not quick or name == "rejected-earlier":
            probes.append(Probe(f"honest:{name}", template.format(b=b, r=t.render(a)), expect_wrong=False))
    return probes
