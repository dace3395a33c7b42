"""Round 11: an honest Chinese or Japanese post under a synth-style prompt in its own language is
paid (issue 26's relevance gate, a false negative).

``ifeval-synth`` asks for half of a task's units (``relevance_min_share=0.5``). Read as bigrams,
"写一篇关于城市园艺的博客文章" held nine units, six of them the request's own frame (关于, 博客,
文章 and the bigrams across them: 篇关, 于城, 客文), so an honest post on urban gardening met
three and was refused as off-topic. The frame of a no-space script is now cut out of the task's
text before its bigrams are read (``relevance_units.task_text_units``), in Chinese (simplified
and traditional), Japanese, Korean and Thai; English prompts are read as before (the labelled
rows' verdicts: ``tests/ifeval/test_ifeval_relevance.py``'s calibration, unchanged).

The same class in the prompt's constraint sentences: "你的回答中不要使用任何逗号。" was neither
cut from the request (no space after "。") nor read as a constraint (the cues are English), so
回答, 使用, 逗号 counted as the task's. Sentences of no-space scripts now end at their full stop,
and one that names the response's form and little else (``relevance_units.form_sentence``) is a
constraint sentence; the request sentence never is ("写一篇关于学习英语的短文" keeps 英语).
"""

from __future__ import annotations

from typing import Any

import pytest

import rlvr_envs
from rlvr_envs import Reason, Task
from rlvr_ifeval import relevance

NEWEST_SYNTH = rlvr_envs.spec("ifeval-synth").id
NO_COMMA = "In your entire response, refrain from the use of any commas."

_GARDEN_ZH = (
    "住在城市里的人常常觉得没有地方种东西。其实阳台、窗台和屋顶都可以变成小小的菜园。"
    "我去年春天开始在阳台上种番茄和辣椒，每天早上浇水，看着它们一点点长高，心情特别好。\n\n"
    "城市园艺最重要的是光照和土壤。选一个每天能晒到六个小时太阳的位置，再买一些透气的花盆和营养土。"
    "刚开始可以种容易活的香草，比如薄荷和罗勒，它们长得快，也不太怕虫。\n\n"
    "后来邻居们看到我的小菜园，也开始在自己家里种菜。现在我们小区成立了一个园艺小组，大家一起交流经验、分享种子。"
    "城市园艺不仅让我们吃上新鲜的蔬菜，还让邻里之间的关系更亲密了。"
)
_REMOTE_ZH = (
    "远程办公在这几年变得越来越普遍。很多公司发现，员工在家工作时效率并没有下降，反而节省了通勤的时间。"
    "对我来说，每天少坐两个小时的地铁，就多了两个小时可以陪家人或者锻炼身体。\n\n"
    "不过，远程办公也有它的难处。家里容易分心，同事之间的交流也变少了。"
    "我的办法是给自己定一个固定的作息时间，在书房里工作，下班后就关上电脑。"
    "团队每天早上开一个简短的视频会议，大家说说今天要做什么，有问题随时在群里讨论。\n\n"
    "总的来说，远程办公需要自律，也需要公司的信任。只要安排得当，它可以让工作和生活都变得更好。"
)
_LIBRARY_ZH_HANT = (
    "公共圖書館是城市裡最安靜也最溫暖的地方。小時候每到週末，媽媽就會帶我去家附近的圖書館借書，"
    "那裡的書架高高的，陽光從窗戶照進來，我可以一坐就是一個下午。\n\n"
    "現在的圖書館不只是借書的地方。這裡有免費的網路、自習室，還有為老人開設的電腦課和給孩子們的說故事時間。"
    "很多找工作的人也會來這裡查資料、寫履歷。\n\n"
    "我覺得公共圖書館代表著一個社會對知識的尊重。不管你有沒有錢，都可以在這裡讀到好書、學到新東西。"
    "希望大家有空都能去附近的圖書館走走。"
)
_GARDEN_JA = (
    "都会に住んでいると、野菜を育てる場所なんてないと思いがちです。でも、ベランダや窓辺、屋上でも小さな菜園は作れます。"
    "私は去年の春からベランダでトマトとバジルを育て始めました。毎朝水をやって、少しずつ大きくなるのを見るのが楽しみです。\n\n"
    "都市園芸で大切なのは日当たりと土です。一日に六時間ほど日が当たる場所を選び、水はけのよいプランターと培養土を用意しましょう。"
    "初めての人には、ミントやバジルなどのハーブがおすすめです。丈夫で育てやすく、料理にもすぐ使えます。\n\n"
    "最近は近所の人たちも興味を持ってくれて、マンションの中で園芸の集まりができました。"
    "種を分け合ったり、育て方を教え合ったりしています。都市園芸は新鮮な野菜だけでなく、人とのつながりも育ててくれます。"
)
_REMOTE_JA = (
    "ここ数年で、リモートワークはすっかり当たり前の働き方になりました。通勤の時間がなくなった分、朝はゆっくり準備ができ、"
    "夕方には家族と過ごす時間も増えました。\n\n"
    "一方で、リモートワークには難しいところもあります。家だとつい気が散ってしまい、同僚と話す機会も減ってしまいます。"
    "私は仕事部屋を決めて、始業と終業の時間を毎日同じにしています。チームでは毎朝短いオンライン会議を開き、"
    "その日の予定や困っていることを共有しています。\n\n"
    "リモートワークを続けるには、自分を律する力と、会社との信頼関係が欠かせません。"
    "うまく工夫すれば、仕事も生活もより豊かになると思います。"
)
_GARDEN_KO = (
    "도시에 살면 채소를 기를 곳이 없다고 생각하기 쉽습니다. 하지만 베란다나 옥상에서도 작은 텃밭을 만들 수 있습니다. "
    "저는 작년 봄부터 베란다에서 토마토와 바질을 키우기 시작했습니다. 매일 아침 물을 주는 것이 큰 즐거움입니다.\n\n"
    "도시 원예에서 가장 중요한 것은 햇빛과 흙입니다. 하루에 여섯 시간 정도 해가 드는 곳을 고르고 "
    "물 빠짐이 좋은 화분과 배양토를 준비하세요. 처음이라면 민트나 바질 같은 허브를 추천합니다.\n\n"
    "요즘은 이웃들도 관심을 가지게 되어 아파트 안에 원예 모임이 생겼습니다. 씨앗을 나누고 키우는 방법을 서로 알려 줍니다. "
    "도시 원예는 신선한 채소뿐 아니라 사람 사이의 관계도 키워 줍니다."
)

# (prompt, honest response): synth-style requests in each script's own words, simplified and
# traditional Chinese, several request frames (请写 / 写 / 請寫, ください / お願いします).
HONEST = (
    ("写一篇关于城市园艺的博客文章。", _GARDEN_ZH),
    ("请写一篇关于远程办公的短文。", _REMOTE_ZH),
    ("請寫一篇關於公共圖書館的部落格文章。", _LIBRARY_ZH_HANT),
    ("都市園芸についてのブログ記事を書いてください。", _GARDEN_JA),
    ("リモートワークに関するエッセイを書いてください。", _REMOTE_JA),
    ("リモートワークについての記事の執筆をお願いします。", _REMOTE_JA),
    ("도시 원예에 관한 블로그 글을 작성해 주세요.", _GARDEN_KO),
)


_COOKING_ZH = (
    "今天我想分享一道家常红烧肉的做法。先把五花肉切成小块，用冷水下锅焯一下，去掉血沫。"
    "然后锅里放少许油和冰糖，小火炒出糖色，再把肉块倒进去翻炒均匀。\n\n"
    "接着加入生抽、老抽、料酒、八角和桂皮，倒入开水没过肉块，大火烧开后转小火慢炖一个小时。"
    "最后大火收汁，撒上葱花就可以出锅了。这道菜肥而不腻，入口即化，配米饭特别香。\n\n"
    "做红烧肉的关键是火候和耐心，炖的时间越长，肉越软烂。周末有空的时候，不妨试试看。"
)

# Constraint sentences in the prompt's own script (no space after the full stop), with the
# instruction that checks them; each honest post above follows it (no ASCII comma).
FORM_SENTENCES = (
    ("写一篇关于城市园艺的博客文章。你的回答中不要使用任何逗号。", _GARDEN_ZH),
    ("请写一篇关于远程办公的短文。全文不得使用英文逗号，并且至少写三段。", _REMOTE_ZH),
    ("請寫一篇關於公共圖書館的部落格文章。回答請用繁體中文，不要使用逗號。", _LIBRARY_ZH_HANT),
    ("都市園芸についてのブログ記事を書いてください。回答ではカンマを使わないでください。", _GARDEN_JA),
)


@pytest.fixture(scope="module")
def synth_verifier() -> Any:  # (the registry's verifier)
    return rlvr_envs.make(NEWEST_SYNTH).verifier


@pytest.mark.parametrize(("prompt", "response"), HONEST, ids=[f"honest-{i}" for i in range(len(HONEST))])
@pytest.mark.parametrize("instructions", ["none-added", "no-comma"])
def test_honest_cjk_post_is_paid(synth_verifier, prompt: str, response: str, instructions: str) -> None:
    if instructions == "no-comma":
        prompt = f"{prompt} {NO_COMMA}"
    task = Task(id="cjk", prompt=prompt, answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]})
    verdict = synth_verifier.verify(task, response)
    assert verdict.reason is Reason.OK, (verdict.reason, verdict.details.get("relevance"))
    assert verdict.reward == 1.0


@pytest.mark.parametrize(
    ("prompt", "topic"),
    [
        ("写一篇关于城市园艺的博客文章。", {"城市", "市园", "园艺"}),
        ("请写一篇关于远程办公的短文。", {"远程", "程办", "办公"}),
        ("請寫一篇關於公共圖書館的部落格文章。", {"公共", "共圖", "圖書", "書館"}),
        # (都 is one of the stop characters: "都市" was never a unit)
        ("都市園芸についてのブログ記事を書いてください。", {"市園", "園芸"}),
        ("リモートワークについての記事の執筆をお願いします。", {"リモ", "モー", "ート", "トワ", "ワー", "ーク"}),
        ("เขียนบทความเกี่ยวกับการทำสวนในเมือง", {"ทำ", "นเ", "นใ", "มื", "รท", "วน", "สว", "ำส", "เม"}),
    ],
    ids=["zh", "zh-request", "zh-hant", "ja", "ja-request", "th"],
)
def test_task_units_are_the_topic_not_the_request_frame(prompt: str, topic: set[str]) -> None:
    """The task's units are its topic's bigrams: no word of the request's frame, none across one."""
    assert relevance.task_units(prompt, ()).units == topic


def test_korean_request_words_cut() -> None:
    """Korean writes spaces but glues particles to words: the frame's words are cut inside them
    ("블로그를" leaves "를", too short to be a unit)."""
    found = relevance.task_units("도시 원예에 관한 블로그 글을 작성해 주세요.", ())
    frame = relevance.units("관한 블로그 블로그를 글을 작성해 주세요", relevance.TASK_STOP_WORDS)
    assert found.units.isdisjoint(frame), sorted(found.units & frame)
    assert relevance.units("도시 원예에", relevance.TASK_STOP_WORDS) <= found.units


ENGLISH = (
    "Write a blog post about urban gardening.",
    "Write a short essay about remote work. Do not use any commas.",
    "Write a letter to a friend about learning a second language.",
)


@pytest.mark.parametrize("prompt", ENGLISH)
def test_english_task_units_unchanged(prompt: str) -> None:
    """The frame is cut only from text outside ASCII: an English task reads as ``units`` does."""
    found = relevance.task_units(prompt, ())
    kept = " ".join(s for s in relevance._SENTENCE_RE.split(prompt) if not relevance.constraint_sentence(s))
    assert found.units == frozenset(relevance.units(kept, relevance.TASK_STOP_WORDS))


@pytest.mark.parametrize(("prompt", "response"), FORM_SENTENCES, ids=[f"form-{i}" for i in range(len(FORM_SENTENCES))])
def test_honest_post_under_form_sentence_is_paid(synth_verifier, prompt: str, response: str) -> None:
    task = Task(id="cjk", prompt=prompt, answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]})
    verdict = synth_verifier.verify(task, response)
    assert verdict.reason is Reason.OK, (verdict.reason, verdict.details.get("relevance"))


@pytest.mark.parametrize(("prompt", "_"), FORM_SENTENCES, ids=[f"form-{i}" for i in range(len(FORM_SENTENCES))])
def test_off_topic_post_still_refused(synth_verifier, prompt: str, _: str) -> None:
    """Cutting the frame and the form leaves the topic: a post on something else is off-topic."""
    task = Task(id="cjk", prompt=prompt, answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]})
    verdict = synth_verifier.verify(task, _COOKING_ZH)
    assert verdict.reason is Reason.WRONG and verdict.reward == 0.0, verdict.details.get("relevance")


@pytest.mark.parametrize(
    ("prompt", "topic"),
    [
        ("写一篇关于城市园艺的博客文章。你的回答中不要使用任何逗号。", {"城市", "市园", "园艺"}),
        ("写一篇关于城市园艺的博客文章。全文至少300字，并以“谢谢阅读”结尾。", {"城市", "市园", "园艺"}),
        ("都市園芸についてのブログ記事を書いてください。回答ではカンマを使わないでください。", {"市園", "園芸"}),
        # The request is never a form sentence, whatever its topic: learning English, calligraphy.
        ("写一篇关于学习英语的短文。", {"学习", "习英", "英语"}),
        ("写一篇关于中文书法的文章。请用中文回答。", {"文书", "书法"}),
        # A topical sentence that names a form word keeps its topic (most of it is not form).
        (
            "写一篇短文。介绍如何使用关键词优化网站。",
            {"如何", "何使", "使用", "用关", "关键", "键词", "词优", "优化", "化网", "网站"},
        ),
    ],
    ids=["zh-comma", "zh-length-end", "ja-comma", "zh-topic-english", "zh-topic-chinese", "zh-topical-cue"],
)
def test_form_sentences_are_constraints(prompt: str, topic: set[str]) -> None:
    assert relevance.task_units(prompt, ()).units == topic


def test_v10_keeps_its_verdicts_and_v11_pays_the_honest_post() -> None:
    """A change that alters a reward bumps the version: under ``ifeval-synth-v10`` the honest
    Chinese post still loses as it did (the frame's bigrams read as the topic), under ``-v11`` it is
    paid; the registry's newest is ``-v11`` (relevance_paste 7)."""
    prompt, response = FORM_SENTENCES[0]
    task = Task(id="cjk", prompt=prompt, answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]})
    old = rlvr_envs.make("ifeval-synth-v10").verifier.verify(task, response)
    new = rlvr_envs.make("ifeval-synth-v11").verifier.verify(task, response)
    assert old.reward == 0.0 and old.details.get("rejected") == relevance.OFF_TOPIC
    assert new.reward == 1.0 and new.reason is Reason.OK
    # (-v12, round 12, reads task text as -v11 does: the newest id pays the post too.)
    assert getattr(rlvr_envs.make("ifeval-synth-v11").verifier, "relevance_paste", None) == 7
    assert getattr(rlvr_envs.make(NEWEST_SYNTH).verifier, "relevance_paste", 0) >= 7
    assert rlvr_envs.make(NEWEST_SYNTH).verifier.verify(task, response).reward == 1.0
    # Outside any verifier the reading is round 11's; an older level's block restores the old one.
    with relevance.reading_round(False):
        old_units = relevance.task_units(HONEST[0][0], ()).units
    assert {"关于", "博客", "文章", "城市", "园艺"} <= old_units
    assert relevance.task_units(HONEST[0][0], ()).units == frozenset({"城市", "市园", "园艺"})
