"""The relevance gate's reading of text into units (issue 26): casefolded word prefixes and
no-space-script bigrams, the stop, request and form words left out. Split from
``rlvr_ifeval.relevance`` (round 11), which re-exports every name here: a task's units
(``relevance.task_units``, once per prompt) and a response's are read by the same ``units``; a
task's text has its request frame and, in scripts without spaces, its form sentences taken out
first (``task_text_units``, ``form_sentence``: round 11).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rlvr_ifeval import analysis, prose_jit, reading, units_jit
from rlvr_ifeval.analysis import MAX_ANALYSED_CHARS
from rlvr_ifeval.word_lists import FORM_WORDS_TEXT, REQUEST_WORDS_TEXT, STOP_WORDS_TEXT

PREFIX = 6
"""Units are words cut to this many letters: a stemming-free normalisation (garden/gardening,
history/historic meet; at 5, interest/international/internet and control/contract did too, and
pasted answers passed on them)."""
PREFIX_V0 = 5
"""The prefix of ``relevance="overlap-v0"`` (``ifeval-data-v1``, ``ifeval-synth-v2``)."""
MIN_WORD = 3
"""Shorter words are not units (articles, particles, most function words)."""
MAX_RELEVANCE_CHARS = MAX_ANALYSED_CHARS
"""The gate reads this much of a response (as the guard's content rules do)."""

_NO_SPACE = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
)
_NO_SPACE_RUN_RE = re.compile(f"[{_NO_SPACE}]+")
_WORD_RE = re.compile(f"[^\\W\\d_{_NO_SPACE}]+")
_ASCII_WORD_TABLE = bytes(c if (65 <= c <= 90 or 97 <= c <= 122) else 32 for c in range(256))

# Characters and syllables of the no-space scripts that carry no topic (particles, copulas).
_STOP_CHARS = frozenset(
    "的了是在和有我你他她它们这那一个不也就都而及与或着吗呢吧啊很会要说到对上下中为以"
    "のにはをがでともたしていすまなかるれこそあうおえや"
)
# The request frame of a task written in a script without spaces (or with particles glued to its
# words): what asks for the text and names its genre, not what it is about. English has
# ``REQUEST_WORDS`` ("write a blog post about ..."); Chinese "写一篇关于城市园艺的博客文章" has
# 关于/博客/文章 and the bigrams across them (篇关, 于城, 客文), which made an honest post under a
# share of 0.5 miss (3 of 9 units: 城市, 市园, 园艺). The frame is cut out of the task's text
# before its bigrams are read (``task_text_units``), so no bigram spans it; a response is read as
# before. Words of two characters or more only: a single character is too often part of a topic
# word (信 letter / 信息 information, 诗 poem / 诗人 poet).
REQUEST_TOPIC_WORDS = (
    # Chinese (simplified and traditional): writing, "about", genres.
    "请写 請寫 撰写 撰寫 编写 編寫 创作 創作 写作 寫作 关于 關於 关於 有关 有關 "
    "博客 部落格 博文 文章 帖子 贴文 貼文 短文 作文 散文 随笔 隨筆 故事 小说 小說 书信 書信 信件 演讲稿 演講稿 "
    "演讲 演講 评论 評論 书评 書評 影评 影評 摘要 概要 指南 攻略 日记 日記 新闻稿 新聞稿 报道 報道 報導 诗歌 詩歌 "
    "推文 广告 廣告 文案 "
    # Japanese: writing, "about", genres.
    "書いて 書く 執筆 について に就いて に関する に関して 関する に対する "
    "ブログ 記事 投稿 エッセイ 作文 物語 小説 手紙 スピーチ レビュー 要約 まとめ ガイド 日記 ニュース 文章 "
    # Korean (written with spaces, its particles glued to the word: cut, so "블로그를" leaves "를").
    "작성해 작성하 써주세요 글을 대한 관한 대해 관해 블로그 게시물 포스트 에세이 기사 이야기 편지 연설 리뷰 요약 "
    "가이드 일기 뉴스 "
    # Thai: writing, "about", genres.
    "เขียน เกี่ยวกับ บทความ บล็อก เรื่องสั้น เรื่อง จดหมาย สุนทรพจน์ รีวิว บทสรุป คู่มือ บันทึก ข่าว"
).split()
"""The words of a request that frame its topic (writing it, "about", the genre): a sentence that
holds one is the request, never a form sentence (``form_sentence``)."""
REQUEST_FRAME_WORDS = (
    REQUEST_TOPIC_WORDS
    + (
        # Asking: Chinese, Japanese (polite endings), Korean, Thai.
        "请你 請你 帮我 幫我 给我 給我 描述 描寫 描写 介绍 介紹 解释 解釋 讨论 討論 总结 總結 说明 說明 谈谈 談談 "
        "论述 論述 "
        "ください 下さい お願いします お願い 作成 説明 解説 紹介 주세요 กรุณา ช่วย"
    ).split()
)
"""The request frame's words in the scripts ``REQUEST_WORDS`` (English and the other languages
written with spaces between plain words) does not reach."""
_REQUEST_FRAME_RE = re.compile("|".join(map(re.escape, sorted(set(REQUEST_FRAME_WORDS), key=len, reverse=True))))
_REQUEST_TOPIC_RE = re.compile("|".join(map(re.escape, sorted(set(REQUEST_TOPIC_WORDS), key=len, reverse=True))))

# What a constraint sentence written without spaces speaks of (the response, its length, parts,
# punctuation, case, keywords, ending, format, language): "你的回答中不要使用任何逗号。" is about
# the answer's form, not its topic, yet its bigrams (回答, 使用, 逗号 ...) were counted as the
# task's, so an honest answer that follows the constraint missed the share. English constraint
# sentences are found by ``relevance._CONSTRAINT_CUE_RE`` and the form words; these are their
# counterparts, read the same way (``form_sentence``). Words of two characters or more only.
FORM_FRAME_WORDS = (
    # Chinese (simplified and traditional)
    "回答 回复 回覆 答复 答覆 答案 全文 整篇 整个 整個 字数 字數 个字 個字 段落 逗号 逗號 句号 句號 标点 標點 "
    "符号 符號 标题 標題 小写 小寫 大写 大寫 字母 关键词 關鍵詞 关键字 關鍵字 使用 不要 不得 不能 不可 禁止 "
    "必须 必須 至少 最多 不超过 不超過 不少于 不少於 以上 以下 以内 以內 结尾 結尾 结束 結束 开头 開頭 包裹 "
    "双引号 雙引號 引号 引號 列表 要点 要點 项目符号 項目符號 格式 附言 语言 語言 中文 英文 汉语 漢語 英语 英語 "
    "句子 单词 單詞 词语 詞語 出现 出現 包含 包括 提到 请用 請用 繁体 繁體 简体 簡體 "
    # Japanese
    "返答 答え 全体 文字数 文字 読点 句読点 句点 カンマ 記号 タイトル 小文字 大文字 キーワード 使わ 使用し "
    "しない 含め 含む 少なくとも 以内 最後 終わ 始め 引用符 箇条書き 形式 単語 言語 日本語 英語 "
    # Korean
    "응답 답변 전체 단어 문장 단락 문단 쉼표 제목 소문자 대문자 키워드 사용하지 포함 최소 최대 이상 이하 마지막 "
    "형식 언어 영어 한국어 "
    # Thai
    "คำตอบ ทั้งหมด คำ ประโยค ย่อหน้า จุลภาค หัวข้อ ตัวพิมพ์ คีย์เวิร์ด ห้ามใช้ อย่างน้อย ไม่เกิน สุดท้าย รูปแบบ ภาษา"
).split()
"""The form words of constraint sentences in the scripts ``relevance``'s English cues do not read."""
_FORM_FRAME_RE = re.compile(
    "|".join(map(re.escape, sorted(set(FORM_FRAME_WORDS), key=len, reverse=True)))
    + r"|\d+\s*(?:[个個]|つの)?[字词詞段句語语]"  # a count: "300字", "5个段落", "3つの段落"
)
# A constraint's quoted argument (an end phrase, a keyword) is the instruction's string, not topic.
_QUOTED_RE = re.compile('\u201c[^\u201d]*\u201d|"[^"]*"|\u300c[^\u300d]*\u300d|\u300e[^\u300f]*\u300f')

_THAI_STOP = ("ที่", "และ", "ของ", "ใน", "เป็น", "การ", "ได้", "ให้", "มี", "ไม่", "จะ", "กับ", "แล้ว", "นี้", "ว่า", "คือ")


def _fold(word: str) -> str:
    """Casefolded, accents dropped (é -> e, ü -> u): a stemming-free normal form."""
    folded = word.casefold()
    if folded.isascii():
        return folded
    decomposed = unicodedata.normalize("NFKD", folded)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _unit(word: str) -> str | None:
    folded = _fold(word)
    return folded[:PREFIX] if len(folded) >= MIN_WORD else None


def _words(text: str) -> frozenset[str]:
    return frozenset(_fold(w) for w in text.split())


STOP_WORDS = _words(STOP_WORDS_TEXT)
REQUEST_WORDS = _words(REQUEST_WORDS_TEXT)
FORM_WORDS = _words(FORM_WORDS_TEXT)
TASK_STOP_WORDS_V0 = STOP_WORDS | REQUEST_WORDS | FORM_WORDS
_CONTENT_STOP_WORDS = STOP_WORDS | REQUEST_WORDS
"""What ``constraint_sentence`` leaves out of a sentence's content words (made once: the union
cost 13 us a sentence, several a prompt)."""
"""What is never a unit of a task's text (``relevance="overlap-v0"``)."""
# Form and genre words the first lists missed ("three asterisk markers", "exactly 6 stanzas"),
# time adverbs that a real answer paraphrases ("who recently moved away"), "don't".
TASK_STOP_WORDS = TASK_STOP_WORDS_V0 | _words(
    "stanza stanzas verse verses chorus marker markers recently currently usually today tomorrow yesterday don"
)
"""What is never a unit of a task's text."""
TASK_STOP_WORDS_10 = TASK_STOP_WORDS - {"language", "languages"}
"""Round 10: in a sentence that is the task's, "language" is the topic ("learning a second
language"); the sentences that speak of the response's language are constraints."""
_STOP_BIGRAMS = frozenset(w[i : i + 2] for w in _THAI_STOP for i in range(len(w) - 1))


def _bigrams(run: str) -> Iterable[str]:
    if len(run) == 1:
        if run not in _STOP_CHARS:
            yield run
        return
    for i in range(len(run) - 1):
        gram = run[i : i + 2]
        if gram[0] not in _STOP_CHARS and gram[1] not in _STOP_CHARS and gram not in _STOP_BIGRAMS:
            yield gram


def units(text: str, drop: frozenset[str] = STOP_WORDS, prefix: int = PREFIX) -> set[str]:
    """The distinct units of ``text``: word prefixes (words in ``drop`` left out) and
    no-space-script bigrams. Within a verdict a text read before with the same ``drop`` and
    ``prefix`` is not read again (``rlvr_ifeval.reading``: the caller gets a copy)."""
    found = reading.current()
    if found is None:
        return _read_units(text, drop, prefix)
    key = (text, drop, prefix)
    kept = found.units.get(key)
    if kept is not None:
        return set(kept)
    read = _read_units(text, drop, prefix)
    if len(found.units) < reading.MAX_KEPT:
        # Kept as read, not copied (a copy of every set cost what the repeats save): no caller
        # changes the set it gets in place (``task_units`` takes its literals out into a new one;
        # tests/ifeval/test_ifeval_speed_round15_reading.py reads every verdict with and without).
        found.units[key] = read
    return read


def _read_units(text: str, drop: frozenset[str], prefix: int) -> set[str]:
    view = analysis.ascii_view(text)  # (English with curly quotes too: they are not letters)
    if view is not None:
        kernel = prose_jit.units_kernel()
        if kernel is not None:  # numba's one pass: a string made per distinct unit, not per word
            return units_jit.ascii_units(kernel, view, drop, prefix)
        words = view.encode("ascii").translate(_ASCII_WORD_TABLE).decode("ascii").lower().split()
        # Distinct words first (a set, in C): words repeat, and the filter below is Python.
        return {w[:prefix] for w in set(words).difference(drop) if len(w) >= MIN_WORD}
    folded = set(map(_fold, set(_WORD_RE.findall(text))))
    found = {w[:prefix] for w in folded.difference(drop) if len(w) >= MIN_WORD}
    for run in _NO_SPACE_RUN_RE.findall(text):
        found.update(_bigrams(run))
    return found


def task_text_units(text: str, drop: frozenset[str], prefix: int = PREFIX) -> set[str]:
    """``units`` of a task's text, its request frame's words in scripts that ``drop`` cannot reach
    (``REQUEST_FRAME_WORDS``) cut out first: the units a response about the task is expected to
    hold. ASCII text is read as ``units`` reads it (the frame holds no ASCII word)."""
    if not text.isascii():
        text = _REQUEST_FRAME_RE.sub(" ", text)
    return units(text, drop, prefix)


def form_sentence(sentence: str) -> bool:
    """Whether a sentence with characters of a no-space script speaks of the response's form
    (``relevance.constraint_sentence``'s rule in those scripts): it names the form
    (``FORM_FRAME_WORDS``) and few of its units are left once the form and request words are cut
    (at most one, or a third of its units), and it is not the request (no ``REQUEST_TOPIC_WORDS``).
    False for a sentence without such characters."""
    if not _NO_SPACE_RUN_RE.search(sentence) or not _FORM_FRAME_RE.search(sentence):
        return False
    if _REQUEST_TOPIC_RE.search(sentence):
        return False  # the request itself ("写一篇关于学习英语的短文"): its topic may be a form word
    framed = _REQUEST_FRAME_RE.sub(" ", sentence)
    content = units(framed, TASK_STOP_WORDS)
    topical = units(_FORM_FRAME_RE.sub(" ", _QUOTED_RE.sub(" ", framed)), TASK_STOP_WORDS)
    return len(topical) <= max(1, len(content) // 3)
