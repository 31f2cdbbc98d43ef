"""What selection sees of each message: a ``Turn`` per message of the draft.

A message's act (``acts.act_of``), made chatter where a digest must not quote it (a
copy of an earlier message, a piece of a sentence, an attachment's marker, period
wording in a source summary, a short reply to a message outside the summary's
messages) and never an act where it recurs or advertises; its reply resolved to an
index, its facts, its audience, what it costs the digest's word budget, whether it
opens leaning on the message before it (``leans_back``).
"""

from __future__ import annotations

import re
from datetime import timedelta

from toolkit.lang.base import LanguagePack
from toolkit.summarize.extractive.choose.acts import (
    Act,
    act_of,
    asks_back,
    asks_unmarked,
    is_placeholder,
)
from toolkit.summarize.extractive.choose.conversations import Turn
from toolkit.summarize.extractive.choose.selection import LEANS_ON_PARENT
from toolkit.summarize.extractive.draft.draft import Draft, audience, author
from toolkit.summarize.extractive.draft.facts import fact_score
from toolkit.summarize.extractive.draft.quotes import cut_off, fragment, one_line
from toolkit.summarize.period_wording import has_period_wording
from toolkit.text import tokenize

QUOTE_WORDS = 28
"""The most words one message costs the digest's word budget (``selection.word_budget``)."""
_ACTS = (Act.QUESTION, Act.PROPOSAL, Act.DECISION)
"""What a recurring text or an advert never is."""
CONTINUES = timedelta(minutes=5)
"""How soon a message that goes on with its author's cut-off one comes after it."""
_OPENING_MARKS = " \t\n\"'«“„‘(—–-…"
_MENTIONS_RE = re.compile(r"^\s*(?:@\w+[\s,;:]*)+")


def leans_back(text: str, pack: LanguagePack | None) -> bool:
    """Whether ``text`` opens on a word that points back to what came before it (its
    pack's ``Cues.leans_back``: "It was…", "And then…", "I agree", «Это…», «Це…»), the
    @mentions it opens with aside; never in a language without a pack. (A sentence after
    a chatter one, "Yeah, that makes sense", is not read: on the dev dialogues it dropped
    answers the references tell.)"""
    if pack is None:
        return False
    head = _MENTIONS_RE.sub("", one_line(text)).lstrip(_OPENING_MARKS)
    return pack.cue.leans_back.match(head) is not None


def _dangling(draft: Draft, i: int) -> re.Pattern[str] | None:
    pack = draft.packs[i]
    return pack.cue.dangling if pack is not None else None


def fragment_at(draft: Draft, i: int) -> bool:
    """Whether message ``i`` is a piece of a sentence, never quoted as one: a roll call,
    a lone name, a text cut off mid-sentence (``quotes.fragment``), or the lower-case
    rest of its author's cut-off message just before it ("… by the lake and" / "reserve
    two tents")."""
    line, dangling = one_line(draft.texts[i]), _dangling(draft, i)
    if cut_off(line, dangling):
        # Cut off only where its author goes on in the next message: a turn of a dialogue
        # may end on a comma ("Well, let me see,") and still say all it says.
        return _continued(draft, i)
    if fragment(line, dangling):
        return True  # a roll call, a list of names
    if i == 0 or not draft.texts[i].lstrip()[:1].islower():
        return False
    before, this = draft.messages[i - 1], draft.messages[i]
    return (
        author(before) == author(this)
        and this.posted_at - before.posted_at <= CONTINUES
        and cut_off(one_line(draft.texts[i - 1]), _dangling(draft, i - 1))
    )


def _continued(draft: Draft, i: int) -> bool:
    """Whether message ``i``'s author goes on in the next message, soon after it."""
    if i + 1 >= len(draft.messages):
        return False
    this, after = draft.messages[i], draft.messages[i + 1]
    return author(this) == author(after) and after.posted_at - this.posted_at <= CONTINUES


def _orphan(draft: Draft, i: int, index: dict[int, int]) -> bool:
    """Whether message ``i`` is a reply to a message outside the summary's messages that
    a digest must not tell: what it answers cannot be told beside it. In a period's
    digest every such reply (readers of real chats found "good, all this …", «Я 26 лет
    назад оттуда уехала» told alone, answering a message before the period); in a
    source summary, which reads the latest messages of a source whose replies reach far
    back, a short one (``selection.LEANS_ON_PARENT``) or one that opens leaning on it
    (``leans_back``)."""
    parent = draft.messages[i].reply_to
    if parent is None or parent in index:
        return False
    if draft.ctx.family == "period":
        return True
    return len(draft.terms[i]) < LEANS_ON_PARENT or leans_back(draft.texts[i], draft.packs[i])


def turns(draft: Draft) -> list[Turn]:
    """The messages as ``selection`` sees them (replies resolved to indices)."""
    index = {m.messenger_message_id: i for i, m in enumerate(draft.messages)}
    start = draft.messages[0].posted_at
    replying = sum(m.reply_to is not None for m in draft.messages) >= len(draft.messages) / 10
    out = []
    for i, message in enumerate(draft.messages):
        text = draft.texts[i]
        act = act_of(text, draft.packs[i])
        if draft.ctx.family == "source" and has_period_wording(text):
            act = Act.CHATTER  # a source summary quotes nothing that names a time
        if is_placeholder(text):
            act = Act.CHATTER  # an attachment's marker says nothing a digest can retell
        marks = draft.hygiene
        if i in marks.echo or fragment_at(draft, i):
            # A copy (its text is shown where it first appears) or a piece of a sentence
            # (a digest quotes sentences).
            act = Act.CHATTER
        elif _orphan(draft, i, index) and act is not Act.QUESTION:
            act = Act.CHATTER  # what a short reply means is in a message the digest lacks
        elif (i in marks.repeated or i in marks.advert) and act in _ACTS:
            act = Act.STATEMENT  # a recurring text or an advert is never an act
        words = len(tokenize(text))
        out.append(
            Turn(
                words=words,
                cost=min(words, QUOTE_WORDS),
                stems=frozenset(stem for stem, _ in draft.terms[i]),
                act=act,
                author=author(message),
                reply_to=index.get(message.reply_to) if message.reply_to is not None else None,
                hours=(message.posted_at - start).total_seconds() / 3600,
                thread=message.topic_id,
                facts=fact_score(text, draft.packs[i]),
                audience=audience(message),
                asks_back=asks_back(text, draft.packs[i]),
                counter=asks_unmarked(text, draft.packs[i]),
                replying=replying,
                repeated=i in marks.repeated,
                advert=i in marks.advert,
                echo=i in marks.echo,
                answers_outside=message.reply_to is not None and message.reply_to not in index,
                leans=leans_back(text, draft.packs[i]),
            )
        )
    return out
