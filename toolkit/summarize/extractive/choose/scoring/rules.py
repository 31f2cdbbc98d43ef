"""The cue-word rules that named decisions, plans and open questions before the scorer.

They stay as evidence (``features``: one feature each) and as the "before" column of
``python -m toolkit.evaluate.acts.loso``; the engine no longer names an act by them
alone. Each gives the indices of the messages the old sections would have claimed.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.models import SourceKind
from toolkit.summarize.extractive.choose.acts import (
    Act,
    act_of,
    agrees,
    declines,
    names_time,
    plans,
    proposes,
    question_sentence,
    resolves,
)
from toolkit.summarize.extractive.choose.conversations import Turn, in_thread, unanswered
from toolkit.summarize.extractive.draft.dates import planned_for
from toolkit.summarize.extractive.draft.draft import Draft
from toolkit.summarize.period_wording import split_sentences

ADJACENT_AGREEMENT_WORDS = 6
ADJACENT_AGREEMENT_HOURS = 0.5
"""A message that is no reply agrees with the proposal just before it only when it is
short ("ok, deal") and comes soon."""


def reply_to(seq: Sequence[Turn], j: int) -> int | None:
    """The earlier message ``j`` answers: its reply target, else the one just before it."""
    if seq[j].reply_to is not None:
        return seq[j].reply_to
    if seq[j].answers_outside:
        return None  # it replies to a message the digest lacks
    return j - 1 if j > 0 and seq[j - 1].author != seq[j].author else None


def answers_proposal(draft: Draft, seq: Sequence[Turn], i: int, j: int) -> str | None:
    """``"agreed"`` or ``"declined"`` when message ``j`` meets message ``i`` as its
    answer (a reply, or a short, soon message of another member next to it), else None."""
    if seq[j].author == seq[i].author or seq[j].answers_outside:
        return None
    if seq[j].reply_to is None and (
        seq[j].words > ADJACENT_AGREEMENT_WORDS
        or seq[j].hours - seq[i].hours > ADJACENT_AGREEMENT_HOURS
    ):
        return None  # a long message, or a late one, next to a proposal is not its answer
    pack = draft.packs[j]
    if agrees(draft.texts[j], pack):
        return "agreed"
    return "declined" if declines(draft.texts[j], pack) else None


def _proposal(draft: Draft, seq: Sequence[Turn], i: int) -> bool:
    """Whether message ``i`` is something to agree to: a proposal (also as a question
    that says "we": "shall we take the 9:40 train?") or a decision."""
    if seq[i].act is Act.QUESTION:
        pack = draft.packs[i]
        return (
            proposes(draft.texts[i], pack)
            and pack is not None
            and bool(pack.cue.us.search(draft.texts[i]))
        )
    return seq[i].act in (Act.PROPOSAL, Act.DECISION)


def own(draft: Draft, i: int) -> bool:
    """Whether a decision is the source's own: any in a chat; in a channel only one whose
    deciding sentence says "we" ("we have decided to…"): a news channel reports others'
    decisions, and an author's "I booked…" in a post that says "we" elsewhere is hers. A
    post none of whose sentences decides by itself (a numbered list of opinions, "I want
    to share two tricks…") decides nothing of the channel's."""
    if draft.ctx.kind is not SourceKind.CHANNEL:
        return True
    pack = draft.packs[i]
    if pack is None:
        return False
    sentences = split_sentences(draft.texts[i])
    deciding = [s for s in sentences if act_of(s, pack) in (Act.DECISION, Act.PROPOSAL)]
    return any(pack.cue.us.search(s) for s in deciding)


def rule_decisions(draft: Draft, seq: Sequence[Turn]) -> set[int]:
    """The old decisions: a proposal another member agreed to or declined, and a
    statement with the decision cue (no hedge) of three words or more."""
    out = set()
    for j in range(len(seq)):
        i = reply_to(seq, j)
        if i is not None and _proposal(draft, seq, i) and answers_proposal(draft, seq, i, j):
            out.add(i)
    return out | {
        i for i, t in enumerate(seq) if t.act is Act.DECISION and t.words >= 3 and own(draft, i)
    }


def rule_open_questions(draft: Draft, seq: Sequence[Turn]) -> set[int]:
    """The old open questions: a question sentence of four words or more that nobody
    else answers and its asker does not close; none in a channel."""
    if draft.ctx.kind is SourceKind.CHANNEL:
        return set()
    out = set()
    for i, t in enumerate(seq):
        if t.act is not Act.QUESTION or t.words < 4 or not unanswered(seq, i):
            continue
        asked = question_sentence(draft.texts[i], draft.packs[i])
        if asked is None or len(asked.split()) < 4:
            continue
        later = (k for k in in_thread(seq, i, 1) if seq[k].author == t.author)
        if not any(resolves(draft.texts[k], draft.packs[k]) for k in later):
            out.add(i)
    return out


def rule_plans(draft: Draft, seq: Sequence[Turn]) -> set[int]:
    """The old plans: a statement with the plan cue (no question, hedge, past or wish)
    that names a moment after its posting (a channel: a later day)."""
    out = set()
    for i, t in enumerate(seq):
        text, pack = draft.texts[i], draft.packs[i]
        if t.act in (Act.CHATTER, Act.QUESTION) or not names_time(text, pack):
            continue
        if not plans(text, pack):
            continue
        posted = draft.messages[i].posted_at.astimezone(draft.ctx.timezone)
        when = planned_for(text, posted, pack)
        if when is None:
            continue
        if draft.ctx.kind is SourceKind.CHANNEL and when.date() <= posted.date():
            continue  # a channel's own day names a bound ("open until 23:00"), not an event
        out.add(i)
    return out
