"""The Russian demo channel: posts made of the Russian texts under ``data/eval/dev``.

Every XQuAD paragraph (CC BY-SA 4.0) is one long post. The paragraphs are grouped back
into their articles (by shared vocabulary) and published article by article, in order,
one or two a day in the morning, each continuing the article's thread as a reply to the
previous paragraph, so that a few days of the channel tell one story. The STSb-multi-mt
sentences
(machine-translated STS-B; see the README for their licences) are short posts; those
that share a proper noun are grouped into a digest post or a thread of replies, and
image and video descriptions become captions of photos and videos (some with a
second, caption-less photo, as an album). Posts are spread over seven weeks at
the hours a Moscow channel posts; a few are edited, six are pinned, and the channel
is created, gets a photo and is renamed along the way.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from demo_export import NOT_INCLUDED, Event, pin

TITLE_BEFORE = "Вики-заметки"
TITLE = "Вики-заметки (демо)"
MSK = timezone(timedelta(hours=3))
WEEKS = 7
_HOURS = {7: 1, 8: 3, 9: 6, 10: 7, 11: 6, 12: 5, 13: 6, 14: 5, 15: 4, 16: 4, 17: 5, 18: 6,
          19: 7, 20: 7, 21: 6, 22: 4, 23: 2}  # fmt: skip
# First words of scene descriptions (MSR Video, image captions): photo/video captions.
# fmt: off
_DESCRIBES = {
    "Женщина", "Человек", "Мужчина", "Две", "Два", "Двое", "Три", "Группа", "Девушка",
    "Собака", "Мальчик", "Черная", "Маленькая", "Маленький", "Люди", "Дама", "Черно-белая",
    "Ребенок", "Кошка", "Белая", "Несколько"
}
# fmt: on
_WORD = re.compile(r"[A-Za-zА-Яа-яЁё-]+")


@dataclass(eq=False)
class Post:
    """A post before it has a time: its text, media and the thread it belongs to."""

    text: str
    media: str | None = None  # "photo" or "video"
    thread: int | None = None


# UTF-8 punctuation read as Mac Roman somewhere upstream ("BBC'Äôs"); its first byte
# ("‚") sometimes became an apostrophe as well.
_MOJIBAKE = {"Äô": "’", "Äò": "‘", "Äú": "“", "Äù": "”", "Äì": "–", "Äî": "—"}
_MOJIBAKE_RE = re.compile("[‚']?(" + "|".join(_MOJIBAKE) + ")")


def repair(text: str) -> str:
    """``text`` with Mac Roman mojibake of quotes and dashes turned back into them."""
    return _MOJIBAKE_RE.sub(lambda m: _MOJIBAKE[m.group(1)], text)


def _load(data_dir: Path) -> tuple[list[str], list[str], list[set[str]]]:
    """XQuAD paragraphs, STSb sentences, and STSb paraphrase groups (as texts)."""
    paragraphs: dict[str, str] = {}
    for line in (data_dir / "retrieval_ru_xquad.jsonl").open(encoding="utf-8"):
        paragraphs |= {c["id"]: repair(c["text"]) for c in json.loads(line)["candidates"]}
    sentences: dict[str, str] = {}
    paraphrases: list[set[str]] = []
    for line in (data_dir / "retrieval_ru_stsb.jsonl").open(encoding="utf-8"):
        item = json.loads(line)
        by_id = {c["id"]: repair(c["text"]) for c in item["candidates"]}
        sentences |= by_id
        # The query and its relevant sentences say the same thing (STS score >= 4).
        paraphrases.append({repair(item["query"]), *(by_id[i] for i in item["relevant"])})
    texts = [sentences[i] for i in sorted(sentences)]
    return [paragraphs[i] for i in sorted(paragraphs)], texts, paraphrases


ARTICLES = 12
"""The dev XQuAD paragraphs come from 12 articles (5 paragraphs each)."""


def articles(paragraphs: list[str]) -> list[list[str]]:
    """The paragraphs grouped back into articles: TF-IDF over stems, average linkage."""
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.feature_extraction.text import TfidfVectorizer

    from toolkit.text import terms

    matrix = TfidfVectorizer(analyzer=terms, sublinear_tf=True).fit_transform(paragraphs)
    labels = AgglomerativeClustering(
        n_clusters=ARTICLES, metric="cosine", linkage="average"
    ).fit_predict(matrix.toarray())
    groups: dict[int, list[str]] = {}
    for label, paragraph in zip(labels.tolist(), paragraphs, strict=True):
        groups.setdefault(label, []).append(paragraph)
    return [groups[k] for k in sorted(groups, key=lambda k: paragraphs.index(groups[k][0]))]


def _article_times(
    rng: random.Random, groups: list[list[str]], end: datetime
) -> list[tuple[str, datetime, int]]:
    """(paragraph, time, article) for every paragraph: article by article over the weeks."""
    day = end.astimezone(MSK).date() - timedelta(days=WEEKS * 7)
    first = datetime(day.year, day.month, day.day, 9, tzinfo=MSK)
    slot = WEEKS * 7 / len(groups)
    out = []
    for n, group in enumerate(groups):
        start = first + timedelta(days=int(n * slot))
        per_day: dict[int, int] = {}
        for k, paragraph in enumerate(group):
            day = int(k * (slot - 1) / len(group))  # the article's last day is left free
            hour = 4 * per_day.get(day, 0)  # 09:00, 13:00, 17:00 …
            per_day[day] = per_day.get(day, 0) + 1
            at = start + timedelta(days=day, hours=hour, seconds=rng.randrange(1800))
            out.append((paragraph, at, n))
    return out


def _describes(sentence: str) -> bool:
    return sentence.split()[0] in _DESCRIBES and len(sentence) < 110


def _topic(sentence: str) -> str | None:
    """The first proper noun after the first word (a digest or thread groups by it)."""
    words = _WORD.findall(sentence)[1:]
    return next((w for w in words if w[0].isupper() and len(w) >= 4 and not w.isupper()), None)


def _posts(
    rng: random.Random, paragraphs: list[str], sentences: list[str], paraphrases: list[set[str]]
) -> list[Post]:
    posts: list[Post] = []
    shuffled = sentences[:]
    rng.shuffle(shuffled)
    by_topic: dict[str, list[str]] = {}
    for sentence in shuffled:
        key = None if _describes(sentence) else _topic(sentence)
        by_topic.setdefault(key or f"#{len(by_topic)}", []).append(sentence)
    for thread, key in enumerate(sorted(by_topic)):
        members = by_topic[key]
        roll = rng.random()
        if len(members) == 1 or roll > 0.75:
            posts += [Post(s) for s in members]
        elif roll < 0.3 and not any(len(g & set(members)) > 1 for g in paraphrases):
            for start in range(0, len(members), 3):
                posts.append(Post(" ".join(members[start : start + 3])))
        else:
            posts += [Post(s, thread=thread) for s in members]
    described = [p for p in posts if _describes(p.text)]
    for post in rng.sample(described, 35):
        post.media = "photo" if rng.random() < 0.7 else "video"
    # Paraphrase pairs read as a correction of an earlier post: make them a thread too.
    base = len(by_topic)
    for n, group in enumerate(paraphrases):
        for post in posts:
            if post.text in group and post.thread is None:
                post.thread = base + n
    return posts


def _times(rng: random.Random, n: int, end: datetime) -> list[datetime]:
    days = [end.astimezone(MSK).date() - timedelta(days=d) for d in range(WEEKS * 7, 0, -1)]
    weights = [0.6 if d.weekday() >= 5 else 1.0 for d in days]
    hours, hour_weights = list(_HOURS), list(_HOURS.values())
    out = []
    for day in rng.choices(days, weights, k=n):
        at = datetime(day.year, day.month, day.day, rng.choices(hours, hour_weights)[0], tzinfo=MSK)
        out.append(at + timedelta(seconds=rng.randrange(3600)))
    return sorted(out)


def _media(rng: random.Random, post: Post) -> dict[str, object]:
    if post.media == "photo":
        return {"photo": NOT_INCLUDED, "width": 1280, "height": rng.choice([720, 960, 1280])}
    return {
        "file": NOT_INCLUDED,
        "thumbnail": NOT_INCLUDED,
        "media_type": "video_file",
        "mime_type": "video/mp4",
        "duration_seconds": rng.randint(6, 95),
        "width": 1280,
        "height": 720,
    }


def build(rng: random.Random, window_end: datetime, data_dir: Path, chat_id: int) -> list[Event]:
    """Every event of the Russian demo channel, unsorted."""
    channel = (TITLE, f"channel{chat_id}")
    paragraphs, sentences, paraphrases = _load(data_dir)
    posts = _posts(rng, paragraphs, sentences, paraphrases)
    rng.shuffle(posts)
    events: list[Event] = []
    previous: dict[int, Event] = {}
    for paragraph, at, article in _article_times(rng, articles(paragraphs), window_end):
        event = Event(at, channel, paragraph)
        event.reply_to = previous.get(article)
        previous[article] = event
        events.append(event)
    roots: dict[int, Event] = {}
    for post, at in zip(posts, _times(rng, len(posts), window_end), strict=True):
        event = Event(at, channel, post.text, media=_media(rng, post) if post.media else {})
        if post.thread is not None:
            event.reply_to = roots.setdefault(post.thread, event)
            if event.reply_to is event:
                event.reply_to = None
        events.append(event)
    first, last = min(e.at for e in events), max(e.at for e in events)
    events.append(
        Event(
            first - timedelta(hours=20),
            channel,
            service={"action": "create_channel", "title": TITLE_BEFORE},
        )
    )
    events.append(
        Event(
            first - timedelta(hours=19, minutes=50),
            channel,
            service={
                "action": "edit_group_photo",
                "photo": NOT_INCLUDED,
                "width": 640,
                "height": 640,
            },
        )
    )
    middle = first + (last - first) / 2
    events.append(Event(middle, channel, service={"action": "edit_group_title", "title": TITLE}))
    for photo in [e for e in events if "photo" in e.media][:12]:
        events.append(
            Event(
                photo.at + timedelta(seconds=1),
                channel,
                "",
                media={"photo": NOT_INCLUDED, "width": 1280, "height": 960},
            )
        )
    long_posts = [e for e in events if len(e.text) > 400]
    for target in rng.sample(long_posts, 6):
        events.append(pin(target, channel, target.at + timedelta(minutes=rng.uniform(1, 60))))
    plain = [e for e in events if e.text and not e.service]
    for event in rng.sample(plain, len(plain) * 3 // 100):
        event.edited_after = timedelta(minutes=rng.uniform(1, 40))
    return events
