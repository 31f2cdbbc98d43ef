"""A garden club's chat for source-summary tests: 1,200 messages from 40 people, spread
from March 2019 to June 2026, with a bare photo and a service message among them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from toolkit.models import Message, Source, SourceKind
from toolkit.store.base import MessageStore

T0 = datetime(2019, 3, 1, 9, 0, tzinfo=UTC)
T1 = datetime(2026, 6, 30, 18, 0, tzinfo=UTC)
COUNT = 1200
PEOPLE = 40
LINES = (
    "The allotment committee moved the seed swap to the community hall on Elm Street.",
    "Tomatoes did well on the south beds, the heritage variety split in the heavy rain.",
    "Who has a spare wheelbarrow? Ours lost a wheel on the gravel path by the shed.",
    "Compost bins two and three are full, please use bin four for the grass cuttings.",
    "The water tap near plot 12 leaks again, I reported it to the council office.",
    "Membership fee stays at 35 pounds, payable to the treasurer at the spring meeting.",
    "ok",
    "Our beehive inspection found a healthy queen and plenty of capped brood this round.",
)


def garden(store: MessageStore, count: int = COUNT) -> Source:
    """A garden club's chat of 1,200 messages from 40 people, March 2019 to June 2026 (a
    minute apart), with a bare photo and a service message among them."""
    source = store.upsert_source(title="Garden club", kind=SourceKind.CHAT, handle="garden_club")
    step = timedelta(minutes=(T1 - T0) // timedelta(minutes=1) // (count - 1))
    messages = [
        Message(
            source.id,
            i + 1,
            T0 + step * i,
            LINES[i % len(LINES)],
            sender_peer_id=f"user{i % PEOPLE + 1}",
            sender_name=f"Member {i % PEOPLE + 1}",
        )
        for i in range(count)
    ]
    messages.append(Message(source.id, COUNT + 1, T1, "", media="photo", sender_peer_id="user99"))
    messages.append(Message(source.id, COUNT + 2, T1, "Member 3 joined", is_service=True))
    store.upsert_messages(messages)
    return source
