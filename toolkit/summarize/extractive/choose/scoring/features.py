"""Language-neutral evidence of what one message does in its window: the feature rows
the act scorers (``model``) weigh.

Per message: the cues of its language pack (each ``Cues`` pattern, asked of every pack
where the message's language has none), its act and question shape, the old rules'
verdicts (``rules``), the reply graph (replies it got, whether another member answered,
agreed or declined, whether the asker came back or closed it, how much of its thread
follows it), reactions, a time named ahead of its posting, the sender's role (a channel,
a forward, a chat of two, the sender's share of the window), repetition in the window
(the same text again: an advert or a copy) and its length, links and numbers. Pure
functions of the draft and its turns; nothing here is language-specific.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from toolkit.lang import packs
from toolkit.lang.base import Cues
from toolkit.models import SourceKind
from toolkit.summarize.extractive.choose.acts import (
    Act,
    asks_back,
    question_sentence,
    resolves,
)
from toolkit.summarize.extractive.choose.conversations import Turn, in_thread, unanswered
from toolkit.summarize.extractive.choose.scoring import rules
from toolkit.summarize.extractive.draft.dates import planned_for
from toolkit.summarize.extractive.draft.draft import Draft
from toolkit.summarize.period_wording import split_sentences
from toolkit.text import URL_RE

_SHAPING = ("leaning", "leans_back", "interrogative")
CUES = tuple(f.name for f in dataclasses.fields(Cues) if f.name not in _SHAPING)
"""Every cue pattern a pack has, in the order of ``Cues``, but ``leaning``,
``leans_back`` and ``interrogative``: they shape a quote (where it may begin) and who is
told with whom, they are no evidence of an act the scorers were trained on."""
_ACTS = (Act.QUESTION, Act.PROPOSAL, Act.DECISION, Act.SHARE, Act.STATEMENT)
FEATURES: tuple[str, ...] = (
    *(f"cue_{name}" for name in CUES),
    *(f"act_{act.value}" for act in _ACTS),
    *("asks", "asks_long", "asks_back", "rule_decisions", "rule_plans", "rule_open"),
    *("is_reply", "replies_question", "replies", "answered_near", "answered", "agreed"),
    *("declined", "asker_back", "resolved_later", "thread_after"),
    *("reactions", "liked", "time_ahead", "time_later_day"),
    *("channel", "forwarded", "pair", "author_share", "repeated", "repeated_by_author"),
    *("words", "sentences", "link", "digits"),
)
"""The feature names, in the order of a row's columns."""
LIKES = frozenset(["👍", "❤", "❤️", "🔥", "👌", "🙏", "💯", "✅", "🤝", "👏", "😍", "🥰", "⚡"])
"""Reactions that approve: another member's 👍 agrees as a reply does."""
REPEAT_WORDS = 6
"""A text repeats another when both have this many words or more and match (see ``_keys``)."""
FOLLOWING = 3
"""An answer comes among the next messages of its thread (``conversations.unanswered``)."""
AHEAD = 50
"""How far down its thread a message's answers, agreements and returns are looked for."""
_NOT_WORD = re.compile(r"[\W\d_]+")
_DIGITS = re.compile(r"\d+")

Rows = npt.NDArray[np.float64]


def _cues(text: str, draft: Draft, i: int) -> list[float]:
    own = draft.packs[i]
    asked = (own,) if own is not None else packs()
    return [float(any(getattr(p.cue, name).search(text) for p in asked)) for name in CUES]


def _keys(text: str) -> tuple[str, ...]:
    """What a repeated text has in common with its copies: its words without links,
    digits and marks, whole and their first ``2 * REPEAT_WORDS``."""
    words = _NOT_WORD.sub(" ", URL_RE.sub(" ", text).casefold()).split()
    if len(words) < REPEAT_WORDS:
        return ()
    return (" ".join(words), "^" + " ".join(words[: 2 * REPEAT_WORDS]))


def repeats(texts: Sequence[str], authors: Sequence[str]) -> tuple[list[int], list[bool]]:
    """For each text, how many other texts of the window repeat it, and whether one of
    them is its own author's."""
    seen: dict[str, list[int]] = {}
    keys = [_keys(t) for t in texts]
    for i, mine in enumerate(keys):
        for key in mine:
            seen.setdefault(key, []).append(i)
    count, by_author = [], []
    for i, mine in enumerate(keys):
        others = {j for key in mine for j in seen[key] if j != i}
        count.append(len(others))
        by_author.append(any(authors[j] == authors[i] for j in others))
    return count, by_author


def _answers(draft: Draft, seq: Sequence[Turn], i: int, replies: list[int]) -> tuple[bool, bool]:
    """Whether another member agreed to / declined message ``i``: a reply to it, or the
    next message of its thread when short and soon (``rules.answers_proposal``)."""
    near = next(in_thread(seq, i, 1), None)
    candidates = [*replies, *([near] if near is not None and seq[near].reply_to is None else [])]
    met = {rules.answers_proposal(draft, seq, i, j) for j in candidates}
    liked = any(key in LIKES for key, _ in draft.messages[i].reactions)
    return "agreed" in met or liked, "declined" in met


def _graph(
    draft: Draft, seq: Sequence[Turn], i: int, replies: list[int], after: int
) -> list[float]:
    t = seq[i]
    others = [j for j in replies if seq[j].author != t.author]
    target = t.reply_to
    near = list(itertools.islice(in_thread(seq, i, 1), AHEAD))
    answered_near = any(
        seq[k].author != t.author and not seq[k].asks_back and seq[k].hours - t.hours <= 2.0
        for k in near[:FOLLOWING]
    )
    question = t.act is Act.QUESTION
    agreed, declined = _answers(draft, seq, i, replies)
    mine_later = [k for k in near if seq[k].author == t.author]
    someone = next((k for k in near if seq[k].author != t.author), None)
    back = someone is not None and any(k > someone for k in mine_later)
    return [
        float(target is not None),
        float(target is not None and seq[target].act is Act.QUESTION),
        math.log1p(len(others)),
        float(answered_near),
        float(question and not unanswered(seq, i)),
        float(agreed),
        float(declined),
        float(back),
        float(any(resolves(draft.texts[k], draft.packs[k]) for k in mine_later)),
        math.log1p(after),
    ]


def _time(draft: Draft, i: int, named: bool) -> list[float]:
    if not named:
        return [0.0, 0.0]
    posted = draft.messages[i].posted_at.astimezone(draft.ctx.timezone)
    when = planned_for(draft.texts[i], posted, draft.packs[i])
    if when is None:
        return [0.0, 0.0]
    return [1.0, float(when.date() > posted.date())]


def features(draft: Draft, seq: Sequence[Turn]) -> Rows:
    """One row of ``FEATURES`` per message of the draft (its turns ``seq``)."""
    n = len(seq)
    replies: list[list[int]] = [[] for _ in range(n)]
    for j, t in enumerate(seq):
        if t.reply_to is not None:
            replies[t.reply_to].append(j)
    verdicts = (
        rules.rule_decisions(draft, seq),
        rules.rule_plans(draft, seq),
        rules.rule_open_questions(draft, seq),
    )
    repeated, by_author = repeats(draft.texts, [t.author for t in seq])
    authors = [t.author for t in seq]
    share = Counter(authors)
    pair = float(len(set(authors)) == 2)
    channel = float(draft.ctx.kind is SourceKind.CHANNEL)
    left = Counter(t.thread for t in seq)  # messages of each thread from here on
    rows = np.zeros((n, len(FEATURES)))
    for i, t in enumerate(seq):
        left[t.thread] -= 1
        text, pack = draft.texts[i], draft.packs[i]
        cues = _cues(text, draft, i)
        asked = question_sentence(text, pack) if t.act is Act.QUESTION else None
        message = draft.messages[i]
        sentences = [s for s in split_sentences(text) if s.strip()]
        rows[i] = [
            *cues,
            *(float(t.act is act) for act in _ACTS),
            float(asked is not None),
            float(asked is not None and len(asked.split()) >= 4),
            float(asks_back(text, pack)),
            *(float(i in found) for found in verdicts),
            *_graph(draft, seq, i, replies[i], left[t.thread]),
            math.log1p(message.reaction_count),
            float(any(key in LIKES for key, _ in message.reactions)),
            *_time(draft, i, bool(cues[CUES.index("when")]) and t.act is not Act.CHATTER),
            channel,
            float(message.forwarded_from is not None),
            pair,
            share[t.author] / n,
            math.log1p(repeated[i]),
            float(by_author[i]),
            math.log1p(t.words),
            min(len(sentences), 10) / 10,
            float(bool(URL_RE.search(text))),
            math.log1p(len(_DIGITS.findall(text))),
        ]
    return rows
