"""Adverts and repeats: a text that recurs in the source is one line of a digest at most
and never a decision, a plan or a question; no line is written twice. Every chat here is
invented."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from toolkit.embeddings import Embedder
from toolkit.models import Message, SectionKind, SourceKind, Summary
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.extractive.draft.adverts import evidence, hygiene
from toolkit.summarize.extractive.draft.recurrence import groups, jaccard, normalised, shingles
from toolkit.summarize.extractive.engine import summarize_extractive

T0 = datetime(2026, 4, 6, 8, 0, tzinfo=UTC)
CARRIER = (
    "🚚 Decided: we deliver parcels Kyiv–Warsaw every Friday! Booked seats left, "
    "price from 40 €. Call +48 512 345 678 or DM @fast_parcels_pl"
)
CARRIER_AGAIN = (
    "🚐 Decided: we deliver parcels Kyiv - Warsaw every Friday!! Booked seats left, "
    "price from 45 €. Call +48 512 345 678 or DM @fast_parcels_pl"
)
CARRIER_UK = (
    "Вирішено: возимо посилки Київ–Варшава щоп'ятниці! Ціна від 40 €, пишіть в особисті "
    "@fast_parcels_pl"
)


def test_near_duplicates_group_and_other_texts_do_not() -> None:
    texts = [
        CARRIER,
        "Has anyone found a dentist near the central station who speaks Ukrainian?",
        CARRIER_AGAIN,  # another emoji, price and dash: the same advert
        "thanks!",
        "thanks!",  # short texts recur by nature
        "Has anyone got a dentist near the old town that takes walk-ins on Saturday?",
    ]
    labels = groups(texts)
    assert labels[0] == labels[2] == 0
    assert labels[1] == labels[3] == labels[4] == labels[5] == -1


def test_normalised_texts_ignore_case_signs_and_link_tags() -> None:
    assert normalised("Sale!!! https://shop.example/a?utm=1 NOW") == normalised(
        "sale https://shop.example/a?utm=2 now 🔥"
    )
    a, b = shingles(normalised(CARRIER)), shingles(normalised(CARRIER_AGAIN))
    assert 0.6 <= jaccard(a, b) < 1.0
    assert shingles("too short").size == 0


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        (CARRIER, 4),  # handle, phone, price, "call us"
        (CARRIER_UK, 3),  # handle, price, «пишіть»
        ("Продам велосипед, цена 5000 руб., пишите в лс", 2),
        ("We met at the station at 9 and took the bus.", 0),
    ],
)
def test_evidence_counts_the_kinds_of_offer(text: str, kinds: int) -> None:
    assert evidence(text) == kinds


def _message(i: int, text: str, who: str, at: datetime, **more: object) -> Message:
    return Message(1, i, at, text, sender_peer_id=who, sender_name=who.title(), **more)  # type: ignore[arg-type]


def _chat() -> list[Message]:
    rows = [
        ("ann", "Who is driving to the lake on Saturday? I can take two people."),
        ("carrier", CARRIER),
        ("bob", "I can drive too, my car has room for three with bags."),
        ("carrier", CARRIER_AGAIN),
        ("ann", "Great, we decided: Bob and I drive, we leave at 8 from the square."),
        ("carol", "Booked the cabin by the lake for two nights, 120 € in all."),
        ("carrier", CARRIER),
        ("carol", "Booked the cabin by the lake for two nights, 120 € in all."),
        ("dan", "Shall we take the big tent as well?"),
        ("carrier", CARRIER_AGAIN),
        ("carrier", CARRIER),
    ]
    return [
        _message(i, text, who, T0 + timedelta(minutes=7 * i))
        for i, (who, text) in enumerate(rows, 1)
    ]


def test_hygiene_marks_repeats_adverts_and_echoes() -> None:
    window = _chat()
    marks = hygiene(window)
    carrier = {i for i, m in enumerate(window) if m.sender_peer_id == "carrier"}
    assert carrier <= marks.repeated
    assert carrier <= marks.advert
    assert marks.echo == (carrier - {1}) | {7}  # the first copy of each text is shown
    assert not marks.advert & {0, 2, 4, 5, 8}


def test_an_offer_forwarded_into_a_group_or_from_a_one_text_sender_is_an_advert() -> None:
    said = [
        _message(1, "Anyone has a ladder to lend this weekend?", "ann", T0),
        _message(2, CARRIER_UK, "olga", T0 + timedelta(minutes=1), forwarded_from="Parcels UA"),
        _message(
            3, "Продам велосипед, цена 5000 руб., пишите в лс", "ivan", T0 + timedelta(hours=1)
        ),
        _message(4, "I have one, come by at six.", "bob", T0 + timedelta(hours=2)),
    ]
    tyres = "Продаю зимние шины, цена 9000 руб., пишите в личку"
    lamp = "Продам настольную лампу, цена 700 руб., пишите в лс"
    before = [
        _message(-4, tyres, "ivan", T0 - timedelta(days=4)),
        _message(-3, lamp, "ivan", T0 - timedelta(days=3)),
    ]
    assert hygiene(said, before[1:]).advert == {1}  # two offers: a member selling a thing
    marks = hygiene(said, before)
    assert marks.advert == {1, 2}  # three, and nothing else: a seller
    assert not marks.repeated


def test_a_channel_post_is_an_advert_only_when_it_recurs() -> None:
    posts = [_message(1, CARRIER, "chan", T0)]
    assert hygiene(posts, chat=False).advert == frozenset()
    before = [_message(-1, CARRIER_AGAIN, "chan", T0 - timedelta(days=2))]
    marks = hygiene(posts, before, chat=False)
    assert marks.advert == marks.repeated == {0}


def _summary(
    embedder: Embedder, window: list[Message], language: str, history: list[Message] | None = None
) -> Summary:
    vectors = embedder.embed_passages([m.text for m in window])
    ctx = SummaryContext(
        "period", SourceKind.CHAT, "Lake trip", language, T0, T0 + timedelta(days=1)
    )
    return summarize_extractive(
        window,
        vectors,
        ctx,
        source_ref="@lake",
        link=lambda i: f"https://t.me/lake/{i}",
        history=history or (),
    )


def _lines(summary: Summary) -> list[str]:
    return [item.text for s in summary.sections for item in s.items]


ACTS = (SectionKind.DECISIONS, SectionKind.PLANS, SectionKind.OPEN_QUESTIONS)


@pytest.mark.parametrize("language", ["en", "ru", "uk"])
def test_an_advert_is_never_an_act_and_shown_once_at_most(
    embedder: Embedder, language: str
) -> None:
    window = _chat()
    summary = _summary(embedder, window, language)
    carrier = {str(m.messenger_message_id) for m in window if m.sender_peer_id == "carrier"}
    for section in summary.sections:
        for item in section.items:
            if section.kind in ACTS:
                assert not carrier & set(item.messenger_message_ids), (section.kind, item.text)
    shown = [
        item
        for s in summary.sections
        for item in s.items
        if carrier & set(item.messenger_message_ids)
    ]
    assert len(shown) <= 1
    whole = summary.summary + "\n".join(_lines(summary))
    assert whole.count("fast_parcels") + whole.count("[phone]") + whole.count("[телефон]") <= 2


@pytest.mark.parametrize("language", ["en", "ru", "uk"])
def test_no_line_twice_in_one_digest(embedder: Embedder, language: str) -> None:
    summary = _summary(embedder, _chat(), language)
    lines = [
        item.text.split(" (https://")[0] for item in (i for s in summary.sections for i in s.items)
    ]
    assert len(lines) == len(set(lines)), lines
    sentences = summary.summary.split(". ")
    assert len(sentences) == len(set(sentences))
    cited = {i for s in summary.sections for item in s.items for i in item.messenger_message_ids}
    linked = {
        u.rsplit("/", 1)[1].rstrip(").,") for u in summary.summary.split() if "t.me/lake/" in u
    }
    assert set(summary.important_messenger_message_ids) == cited | linked


@pytest.mark.usefixtures("rule_scorers")  # the offer alone is an act by the old rules
def test_a_text_posted_before_the_window_is_a_repeat_in_it(embedder: Embedder) -> None:
    offer = "Decision: we sell the last two concert tickets tomorrow at 18:00, 30 € each."
    window = [
        _message(10, "Is anyone going to the concert tomorrow evening?", "ann", T0),
        _message(11, offer, "eve", T0 + timedelta(minutes=5)),
        _message(
            12, "I am going, I bought a ticket last week already.", "bob", T0 + timedelta(minutes=9)
        ),
    ]
    history = [_message(k, offer, "eve", T0 - timedelta(days=k)) for k in (1, 2, 3)]
    alone = _summary(embedder, window, "en")
    assert any(
        s.kind in ACTS and "11" in {i for it in s.items for i in it.messenger_message_ids}
        for s in alone.sections
    )
    summary = _summary(embedder, window, "en", history)
    for section in summary.sections:
        if section.kind in ACTS:
            assert all("11" not in item.messenger_message_ids for item in section.items), section
