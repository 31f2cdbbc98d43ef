"""The sections of a digest: the main threads, then what was decided, what stays open,
plans and dates, links; each line a statement that cites its messages.

Function sections are made first and claim their messages: *decisions and agreements*
(a message that reports a decision, told with the reply that accepts or declines it
when there is one), *open questions* (a question nobody answers in the messages),
*plans and dates* (a plan or commitment, its day or time resolved to its date by
``dates``), *shared links* (by host). Which messages are decisions, open questions and
plans the act scorers decide (``scoring``, ``Draft.acts``): below their thresholds a
section names nothing. Then up to ``MAX_THREADS`` threads (a channel: topic groups
of posts), titled by what they are about in the requested language: the thread's key
phrase when it is in that language, else who talked and when. A thread's lines tell
how it started and its questions with their answers. Every line ends with its
messages' links (``cite``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from functools import partial

from toolkit.lang.base import LanguagePack
from toolkit.lang.script import script
from toolkit.models import Section, SectionItem, SectionKind, SourceKind
from toolkit.summarize.extractive.choose.acts import (
    Act,
    act_of,
    names_time,
    plans,
    question_sentence,
)
from toolkit.summarize.extractive.choose.conversations import Turn, in_thread
from toolkit.summarize.extractive.choose.scoring.rules import answers_proposal, own, reply_to
from toolkit.summarize.extractive.choose.selection import (
    MIN_QUESTION_WORDS,
    hangs,
    leans_elsewhere,
    partner,
    short_remark,
)
from toolkit.summarize.extractive.choose.threads import Thread
from toolkit.summarize.extractive.choose.turns import fragment_at
from toolkit.summarize.extractive.compose.cite import Citer
from toolkit.summarize.extractive.draft.dates import (
    ambiguous_clock,
    named_day_only,
    names_day,
    planned_for,
)
from toolkit.summarize.extractive.draft.draft import Draft
from toolkit.summarize.extractive.draft.facts import fact_score
from toolkit.summarize.extractive.draft.quotes import host, only_names, shown
from toolkit.summarize.period_wording import has_period_wording
from toolkit.text import URL_RE, links

MAX_THREADS = 4
MAX_LINES = 5
THREAD_LINES = 3
OPENER_WORDS = 3
LINE_WORDS = 6
"""The fewest words of a statement or a channel post told on a line of its own: a shorter
one ("To the point about pain", a forward's caption) leans on what it comes with."""
"""The content words of the message a thread is said to start with (else its first)."""


Line = tuple[str, tuple[int, ...]]
"""A section's line and the messages (indices) it rests on, the cited first."""


def _line(c: Citer, body: str, *indices: int) -> Line:
    return body + c.cite(*indices), indices


def _ranked(draft: Draft, indices: Sequence[int]) -> list[int]:
    return sorted(indices, key=lambda i: (-draft.importance[i], i))


def _planned(draft: Draft, i: int) -> tuple[datetime, bool] | None:
    """When message ``i`` says its plan happens, in the source's own zone, and whether
    only a day is sure; None when it names no moment after its posting."""
    posted = draft.messages[i].posted_at.astimezone(draft.ctx.timezone)
    when = planned_for(draft.texts[i], posted, draft.packs[i])
    if when is None:
        return None
    day_only = named_day_only(when, posted)
    if day_only is None:
        return when, True  # "next week": ahead, with no date to show
    if not day_only and ambiguous_clock(draft.texts[i], draft.packs[i]):
        # "a bus at 1:40": morning or afternoon is unsure; a named day still is.
        if not names_day(draft.texts[i], draft.packs[i]):
            return when, True
        day_only = True
    return when, day_only


def _when_shown(draft: Draft, i: int) -> str | None:
    """The date (and time) a plan of message ``i`` names, as the requested pack writes
    it, or None when no date is sure (or the summary is of a whole source)."""
    if draft.ctx.family != "period":
        return None  # a source summary names no time
    planned = _planned(draft, i)
    if planned is None:
        return None
    when, day_only = planned
    posted = draft.messages[i].posted_at.astimezone(draft.ctx.timezone)
    if named_day_only(when, posted) is None or (day_only and when.date() == posted.date()):
        return None
    book = draft.book
    return book.day(when) if day_only else book.moment(when)


def _when(draft: Draft, i: int) -> str:
    """`` (for 8 May, 20:00)`` when message ``i`` of a period names a time ahead of it."""
    shown = _when_shown(draft, i)
    return "" if shown is None else draft.book.say("when_suffix", when=shown)


def _decision_quote(draft: Draft, c: Citer, i: int) -> str:
    """The sentence of message ``i`` that decides (or proposes), quoted."""
    pack = draft.packs[i]
    return c.carrying(i, lambda s: act_of(s, pack) in (Act.DECISION, Act.PROPOSAL))


def _decisions(draft: Draft, seq: Sequence[Turn], c: Citer, claimed: set[int]) -> list[Line]:
    book, lines = draft.book, []
    decided = draft.acts.get(SectionKind.DECISIONS, frozenset())
    for j in range(len(seq)):
        i = reply_to(seq, j)
        if i is None or i in claimed or i not in decided or not own(draft, i):
            continue  # a channel's post a reader agrees to is the channel's only with "we"
        met = answers_proposal(draft, seq, i, j)
        if met is None:
            continue
        key = f"line_{met}"
        claimed.update((i, j))
        if seq[i].act is Act.DECISION:
            key = key.replace("line_", "line_decided_")
        quote = _decision_quote(draft, c, i) + _when(draft, i)
        body = book.say(key, who=c.name(i), quote=quote, agreer=c.name(j))
        lines.append((draft.importance[i], _line(c, body, i, j)))
    for i in range(len(seq)):
        # A lone word ("берём", "booked") answers someone: its decision is in the message
        # it answers, or in a fuller message of its own.
        if seq[i].act is Act.DECISION and i in decided and i not in claimed and own(draft, i):
            claimed.add(i)
            quote = _decision_quote(draft, c, i) + _when(draft, i)
            body = book.say("line_decided", who=c.name(i), quote=quote)
            lines.append((draft.importance[i], _line(c, body, i)))
    return [line for _, line in sorted(lines, key=lambda x: -x[0])[:MAX_LINES]]


def open_questions(draft: Draft, seq: Sequence[Turn]) -> list[int]:
    """The questions that stay open, as the open-question scorer names them (a question
    sentence nobody else answered, its asker did not close; none in a channel)."""
    named = draft.acts.get(SectionKind.OPEN_QUESTIONS, frozenset())
    return [i for i in range(len(seq)) if i in named]


def _open(draft: Draft, seq: Sequence[Turn], c: Citer, claimed: set[int]) -> list[Line]:
    lines = []
    found = [i for i in open_questions(draft, seq) if i not in claimed]
    for i in _ranked(draft, found)[:MAX_LINES]:
        claimed.add(i)
        body = draft.book.say("line_asked_open", who=c.name(i), quote=c.question(i, alone=True))
        lines.append(_line(c, body, i))
    return lines


def plan_messages(draft: Draft, seq: Sequence[Turn]) -> list[int]:
    """The messages that state a plan or commitment, as the plan scorer names them (no
    question, no chatter, never a recurring text or an advert)."""
    named = draft.acts.get(SectionKind.PLANS, frozenset())
    return [
        i
        for i, t in enumerate(seq)
        if i in named and t.act not in (Act.CHATTER, Act.QUESTION) and not t.never_act
    ]


def _plan_sentence(pack: LanguagePack | None, sentence: str) -> bool:
    return names_time(sentence, pack) and plans(sentence, pack)


def _plans(draft: Draft, seq: Sequence[Turn], c: Citer, claimed: set[int]) -> list[Line]:
    found = [i for i in plan_messages(draft, seq) if i not in claimed and not fragment_at(draft, i)]
    lines = []
    for i in sorted(_ranked(draft, found)[:MAX_LINES]):
        claimed.add(i)
        book = draft.book
        quote = c.carrying(i, partial(_plan_sentence, draft.packs[i]))
        body = book.say("line_plan", who=c.name(i), quote=quote)
        if draft.ctx.family == "period":  # a source summary names no time
            named = _when_shown(draft, i)
            if named is not None:
                body = book.say("line_plan_for", who=c.name(i), when=named, quote=quote)
            posted = draft.messages[i].posted_at.astimezone(draft.ctx.timezone)
            body = f"{book.moment(posted)}: {body}"
        lines.append(_line(c, body, i))
    return lines


def _links(draft: Draft, seq: Sequence[Turn], c: Citer, claimed: set[int]) -> list[Line]:
    found = [i for i in range(len(seq)) if i not in claimed and links(shown(draft.texts[i]))]
    lines = []
    for i in sorted(_ranked(draft, found)[:MAX_LINES]):
        claimed.add(i)
        text = shown(draft.texts[i])
        hosts = [h for h in dict.fromkeys(host(url) for url in links(text)) if h]
        where = draft.book.join([draft.book.quote(h) for h in hosts[:3]])
        rest = URL_RE.sub(" ", text).strip()
        # A lone name beside a link ("Viktor Shenderovich…", a preview's author) says
        # nothing of what it links to.
        if sum(ch.isalpha() for ch in rest) >= 12 and not only_names(rest.rstrip("….! ")):
            body = draft.book.say("line_link", who=c.name(i), host=where, quote=c.quote(i))
        else:
            body = draft.book.say("line_link_bare", who=c.name(i), host=where)
        lines.append(_line(c, body, i))
    return lines


def _thread_lines(
    draft: Draft, seq: Sequence[Turn], thread: Thread, c: Citer, claimed: set[int]
) -> list[Line]:
    book, lines = draft.book, []
    free = sorted(i for i in thread.content if i not in claimed and not fragment_at(draft, i))
    if not free:
        return []
    if draft.ctx.kind is SourceKind.CHANNEL:
        posts = [
            i
            for i in free
            if (seq[i].words >= LINE_WORDS or seq[i].act is Act.QUESTION)
            and not seq[i].leans  # «Это касается агрегаторов…»: what "this" is was elsewhere
        ]
        for i in sorted(_ranked(draft, posts)[:THREAD_LINES]):
            claimed.add(i)
            if draft.ctx.family == "period":
                day = book.day(draft.messages[i].posted_at)
                lines.append(_line(c, book.say("line_post", day=day, quote=c.quote(i)), i))
            else:  # a source summary names no time
                lines.append(_line(c, c.quote(i), i))
        return lines
    first = next((i for i in free if draft.sizes[i] >= OPENER_WORDS), free[0])
    factual = [i for i in free if fact_score(draft.texts[i], draft.packs[i]) > 0]
    # How a thread opened is told when the opener carries a fact, or when nothing does —
    # and only of the message that did open it (a short question before it: no opener).
    opener = first == min(thread.content) or all(
        seq[k].act is Act.CHATTER for k in thread.content if k < first
    )
    if opener and (first in factual or not factual):
        claimed.add(first)
        opened = book.say("line_opened", who=c.name(first), quote=c.quote(first))
        lines.append(_line(c, opened, first))
    for i in _ranked(draft, [i for i in free if i != first]):
        if len(lines) >= THREAD_LINES or i in claimed:
            continue
        asks = seq[i].act is Act.QUESTION and question_sentence(draft.texts[i], draft.packs[i])
        j = partner(seq, i) if asks else None
        if j is not None and j not in claimed and not hangs(seq[i], claimed):
            claimed.update((i, j))
            body = book.say(
                "line_asked_answered",
                asker=c.name(i),
                question=c.question(i),
                answerer=c.name(j),
                answer=c.quote(j),
            )
            lines.append(_line(c, body, i, j))
            continue
        # what it replies to, or the question just before it that it answers
        j = partner(seq, i, any_reply=True) if seq[i].act is not Act.QUESTION else None
        if j is not None and j != seq[i].reply_to and seq[j].act is not Act.QUESTION:
            j = None  # where nobody replies, which statement it answers is a guess
        if (
            j is not None
            and j < i
            and seq[j].author != seq[i].author
            and not (seq[j].act is Act.QUESTION and len(seq[j].stems) < MIN_QUESTION_WORDS)
            and j not in claimed
            and j in thread.content
        ):
            if leans_elsewhere(seq[j], claimed):
                continue  # what it replies to leans in turn on a message the lines lack
            # a reply is told after what it answers, when that is a question or when the
            # reply is too short or leans too much on it to mean anything alone
            # (``selection.partner``)
            claimed.update((i, j))
            asked = seq[j].act is Act.QUESTION
            body = book.say(
                "line_asked_answered" if asked else "line_said_replied",
                **(
                    {"asker": c.name(j), "question": c.question(j)}
                    if asked
                    else {"who": c.name(j), "quote": c.quote(j)}
                ),
                answerer=c.name(i),
                answer=c.quote(i),
            )
            lines.append(_line(c, body, j, i))
        elif seq[i].act is Act.QUESTION and len(seq[i].stems) < MIN_QUESTION_WORDS:
            continue  # "Yesssss?" alone asks a reader nothing
        elif (seq[i].leans or short_remark(seq[i])) and not _told_before(seq, i, claimed):
            continue  # what it points back to is not told: "He was on one", "She left?"
        elif hangs(seq[i], claimed):
            continue  # a reply to a message the digest tells nowhere: what does it answer?
        elif seq[i].words >= LINE_WORDS or seq[i].act is Act.QUESTION:
            claimed.add(i)
            said = _said_or_asked(c, i, seq[i].act is Act.QUESTION).removesuffix(".")
            lines.append(_line(c, said, i))
    # Chosen by importance, told in the order they were written: an answer never before
    # its question, a reply never before what it replies to.
    return sorted(lines, key=lambda line: min(line[1]))


def _told_before(seq: Sequence[Turn], i: int, claimed: set[int]) -> bool:
    """Whether the thread lines already tell what message ``i`` points back to: the
    message it replies to, else (no reply) the one before it."""
    j = seq[i].reply_to
    if j is None:
        j = next(in_thread(seq, i, -1), None)
    return j is not None and j in claimed


def _said_or_asked(c: Citer, i: int, asked: bool) -> str:
    """ "X says “…”", or for a question "X asks “<the question>”", with what the message
    says before it ("X says “…” and asks “…”") when that is more than chatter."""
    book = c.draft.book
    if not asked or question_sentence(c.draft.texts[i], c.draft.packs[i]) is None:
        # No sentence of it is a question to answer (a greeting's "how are you?" in a
        # holiday wish): "asks" would quote a statement.
        return book.say("said", who=c.name(i), quote=c.quote(i))
    before = c.said_before(i)
    if before is not None:
        return book.say("said_asked", who=c.name(i), said=before, quote=c.question(i, alone=True))
    return book.say("asked", who=c.name(i), quote=c.question(i))


def _title(draft: Draft, n: int, thread: Thread, phrase: str | None, neutral: str | None) -> str:
    """What a thread is about: its key phrase when it is in the requested language, else
    a name it carries that reads the same in any language (``neutral``: "LND"), else
    when it was. Never who talked (the lines below say who), never a quote: a quote cut
    to a title's length is a cut sentence, and a whole one is a line, not a topic."""
    book = draft.book
    dated = draft.ctx.family == "period"  # a source summary names no time
    if phrase and script(phrase) not in (None, book.script):
        phrase = None  # a title is written in the requested language whole
    if draft.ctx.kind is SourceKind.CHANNEL:
        if phrase:
            return book.say("posts_title", topic=phrase)
        if neutral:
            return book.say("posts_title", topic=neutral)
        if not dated:
            return book.say("posts_group", n=n + 1)
        return book.say("posts_title_plain", span=_span(draft, thread), n=n + 1)
    if phrase:
        return book.say("thread_title", topic=phrase[:1].upper() + phrase[1:])
    if neutral:
        return book.say("thread_title_foreign", topic=neutral)
    if not dated:
        return book.say("thread_title_n", n=n + 1)
    return book.say(
        "thread_title_plain", moment=book.moment(draft.messages[thread.first].posted_at)
    )


def _span(draft: Draft, thread: Thread) -> str:
    first, last = draft.messages[thread.first], draft.messages[thread.last]
    return draft.book.span(first.posted_at, last.posted_at)


def _count_line(draft: Draft, thread: Thread) -> str:
    book = draft.book
    dated = draft.ctx.family == "period"  # a source summary names no time
    if draft.ctx.kind is SourceKind.CHANNEL:
        posts = book.counted(len(thread.members), "post")
        text = (
            book.say("section_channel", posts=posts, span=_span(draft, thread))
            if dated
            else book.sentence("plain_count", count=posts)
        )
    else:
        values = {
            "messages": book.counted(len(thread.members), "message"),
            "participants": book.counted(len(thread.authors), "participant", "gent"),
        }
        text = (
            book.say("section_chat", span=_span(draft, thread), **values)
            if dated
            else book.say("section_chat_plain", **values)
        )
    return text[:1].upper() + text[1:]


def sections(
    draft: Draft,
    seq: Sequence[Turn],
    found: Sequence[Thread],
    phrases: dict[int, str],
    c: Citer,
    neutral: dict[int, str] | None = None,
) -> list[Section]:
    """The digest's sections (see the module docstring).

    Args:
        draft: the messages and what the engine knows of them.
        seq: the messages as turns (acts, replies, authors).
        found: the threads (a channel: topic groups of posts), the main ones first.
        phrases: each thread's key phrase, by its index in ``found``.
        c: the citer that quotes, links and records what the text rests on.
        neutral: for threads in another language than the requested one, a name
            they carry that reads the same in any language ("LND"), by index in ``found``.
    """
    book, claimed = draft.book, set[int]()
    if draft.ctx.family == "source":  # a source summary quotes nothing that names a time
        claimed.update(i for i, text in enumerate(draft.texts) if has_period_wording(text))
    claimed.update(draft.hygiene.echo)  # a copy of a text shown already: never a line
    said = _Said(c)
    makers = [
        (SectionKind.DECISIONS, _decisions),
        (SectionKind.OPEN_QUESTIONS, _open),  # none in a channel: its questions are rhetorical
        (SectionKind.PLANS, _plans),
        (SectionKind.LINKS, _links),
    ]
    out: list[Section] = []
    for kind, make in makers:
        lines = said.fresh(make(draft, seq, c, claimed))
        if lines:
            out.append(_section(draft, book.say(_TITLES[kind]), kind, lines))
    shown, titled = 0, set[str]()
    for n, thread in enumerate(found):
        if shown == MAX_THREADS or (len(thread.content) < 2 and len(found) > 1):
            continue
        lines = said.fresh(_thread_lines(draft, seq, thread, c, claimed))
        if not lines:
            continue
        shown += 1
        title = _title(draft, shown - 1, thread, phrases.get(n), (neutral or {}).get(n))
        if title in titled:  # two threads on "LND": the second is told by its time
            title = _title(draft, shown - 1, thread, None, None)
        titled.add(title)
        section = _section(
            draft,
            title[:1].upper() + title[1:],
            SectionKind.THREAD,
            lines,
            _count_line(draft, thread),
        )
        out.insert(shown - 1, section)
    return out


class _Said:
    """The lines a digest's sections have written: no line twice in one digest. A line
    dropped as a repeat no longer counts as citing its messages (unless another does)."""

    def __init__(self, c: Citer) -> None:
        self.c = c
        self.before = set(c.cited)  # what the summary paragraph cites
        self.lines: set[str] = set()
        self.kept: set[int] = set()

    def fresh(self, lines: list[Line]) -> list[Line]:
        """``lines`` without those written already (their links aside)."""
        out, dropped = [], set[int]()
        for text, indices in lines:
            key = " ".join(_LINKS_RE.sub("", text).split()).casefold()
            if key in self.lines:
                dropped.update(indices)
                continue
            self.lines.add(key)
            self.kept.update(indices)
            out.append((text, indices))
        gone = dropped - self.kept - self.before
        if gone:
            self.c.cited[:] = [i for i in self.c.cited if i not in gone]
        return out


_LINKS_RE = re.compile(r" \((?:https?://\S+?(?:, )?)+\)")
_TITLES = {
    SectionKind.DECISIONS: "sec_decisions",
    SectionKind.OPEN_QUESTIONS: "sec_open",
    SectionKind.PLANS: "sec_plans",
    SectionKind.LINKS: "sec_links",
}


def _section(
    draft: Draft, title: str, kind: SectionKind, lines: Sequence[Line], head: str | None = None
) -> Section:
    """A section whose body is ``head`` then one "— " line per item."""
    body = "\n".join([*([head] if head else []), *(f"— {text}" for text, _ in lines)])
    ids = [m.messenger_message_id for m in draft.messages]
    items = tuple(SectionItem(text, tuple(str(ids[i]) for i in indices)) for text, indices in lines)
    return Section(title=title, body=body, kind=kind, items=items)
