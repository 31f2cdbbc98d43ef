"""Quotes are sentences, never fragments; "X asks" quotes the question; a thread's title
says what it is about, never only who talked (issue 40, item 6), in en, ru and uk."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from toolkit.embeddings import Embedder
from toolkit.lang import pack
from toolkit.models import Message, SourceKind, Summary
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.extractive.choose.acts import Act, act_of, proposes
from toolkit.summarize.extractive.draft.quotes import cut, fragment, only_names, passage
from toolkit.summarize.extractive.engine import summarize_extractive

START = datetime(2025, 6, 2, 9, tzinfo=UTC)


def chat(rows: Sequence[tuple[str, str]], minutes: int = 2) -> list[Message]:
    return [
        Message(1, i, START + timedelta(minutes=minutes * i), text, sender_peer_id=f"u_{who}",
                sender_name=who)
        for i, (who, text) in enumerate(rows, 1)
    ]  # fmt: skip


def digest(embedder: Embedder, messages: Sequence[Message], language: str) -> Summary:
    vectors = embedder.embed_passages([m.text for m in messages])
    end = messages[-1].posted_at + timedelta(minutes=1)
    ctx = SummaryContext("period", SourceKind.CHAT, "Trip", language, messages[0].posted_at, end)
    return summarize_extractive(messages, vectors, ctx, source_ref="@trip", link=lambda _: "")


def everything(summary: Summary) -> str:
    return "\n".join([summary.summary, *(f"{s.title}\n{s.body}" for s in summary.sections)])


# Cuts and fragments -----------------------------------------------------------------------


def test_a_cut_never_halves_a_word() -> None:
    line = "We could take the overnight ferry and arrive refreshed"
    for limit in range(12, len(line)):
        shown = cut(line, limit)
        words = shown.removesuffix("…").split()
        assert all(w in line.split() for w in words), (limit, shown)


@pytest.mark.parametrize(
    ("text", "dangling_in"),
    [
        ("Early development of the", "en"),
        ("we need to pick up the tickets and", "en"),
        ("Sasha, Dima, Olya,", "en"),
        ("@anna @boris @vera", "en"),
        ("Нужно забронировать жильё и", "ru"),
        ("Потом поедем на", "ru"),
        ("Завтра зустрічаємося біля", "uk"),
        ("Візьму намет та", "uk"),
        ("Оля, Тарас", "uk"),
    ],
)
def test_pieces_of_sentences_are_fragments(text: str, dangling_in: str) -> None:
    assert fragment(text, pack(dangling_in).cue.dangling)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("We booked the flat near the station.", "en"),
        ("I will bring the tent", "en"),
        ("Что взять с собой?", "ru"),
        ("Бронь на троих подтвердили", "ru"),
        ("Я візьму намет", "uk"),
        ("NO", "en"),  # an answer, shouted
        ("Оля", "uk"),  # one name may answer "who drives?"
    ],
)
def test_sentences_are_not(text: str, code: str) -> None:
    assert not fragment(text, pack(code).cue.dangling)


def test_a_roll_call_and_a_lone_name_are_not_quoted() -> None:
    assert passage("@anna @boris @vera the bus leaves at 7:40 from gate 3", 160) == (
        "the bus leaves at 7:40 from gate 3"
    )
    assert passage("Vera! The bus leaves at 7:40 from gate 3.", 160) == (
        "The bus leaves at 7:40 from gate 3."
    )
    assert only_names("@anna, @boris")
    assert only_names("Оля!")
    assert not only_names("Wait here")


# "X asks" quotes the question ---------------------------------------------------------------

ASKS = {"en": " asks ", "ru": " спрашивает: ", "uk": " питає: "}

TRIPS = {
    "en": [
        ("Cat", "Planning the island trip for the weekend, the whole group is coming along."),
        ("Ann", "I checked the ferry timetable this morning. Which day suits everyone?"),
        ("Bob", "Saturday works for me, the morning ferry at nine is best."),
        ("Cat", "Saturday is fine, I will bring the picnic blanket and the thermos."),
        ("Ann", "Booked four seats on the Saturday nine o'clock ferry, pier two."),
        ("Bob", "The forecast says sun all weekend. Should we also rent bikes on the island?"),
        ("Cat", "Bikes are a great idea, the rental opens at ten next to the pier."),
    ],
    "ru": [
        ("Катя", "Планируем поездку на остров на выходные, едет вся компания."),
        ("Аня", "Я посмотрела расписание паромов утром. Какой день всем подходит?"),
        ("Боря", "Мне подходит суббота, лучше утренний паром в девять."),
        ("Катя", "Суббота нормально, я возьму плед для пикника и термос."),
        ("Аня", "Забронировала четыре места на субботний паром в девять, второй причал."),
        ("Боря", "Прогноз обещает солнце все выходные. Может, возьмём ещё велосипеды на острове?"),
        ("Катя", "Велосипеды отличная идея, прокат открывается в десять у причала."),
    ],
    "uk": [
        ("Катя", "Плануємо поїздку на острів на вихідні, їде вся компанія."),
        ("Оля", "Я переглянула розклад поромів зранку. Який день усім підходить?"),
        ("Богдан", "Мені підходить субота, найкраще ранковий пором о дев'ятій."),
        ("Катя", "Субота добре, я візьму плед для пікніка і термос."),
        ("Оля", "Забронювала чотири місця на суботній пором о дев'ятій, другий причал."),
        ("Богдан", "Прогноз обіцяє сонце всі вихідні. Може, візьмемо ще велосипеди на острові?"),
        ("Катя", "Велосипеди чудова ідея, прокат відкривається о десятій біля причалу."),
    ],
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("code", ["en", "ru", "uk"])
def test_asks_quotes_the_question_not_the_statement_beside_it(
    embedder: Embedder, code: str
) -> None:
    text = everything(digest(embedder, chat(TRIPS[code]), code))
    book = pack(code)
    o, c = re.escape(book.open_quote), re.escape(book.close_quote)
    quoted = re.compile(rf"{re.escape(ASKS[code])}(?:\w+ )?{o}([^{c}]*){c}")
    asked = quoted.findall(text)
    assert asked, text
    for question in asked:
        assert question.rstrip("…").endswith("?"), (question, text)
    # The statement before each question is never what the digest says was asked.
    assert not any(q.startswith(("I checked", "Я посмотрела", "Я переглянула")) for q in asked)


# Titles ----------------------------------------------------------------------------------

FRAGMENTED = {
    "en": [
        ("Dan", "@eve @finn @gus @hal @ivy @jo @kim"),
        ("Eve", "We should book the campsite by the lake for the long weekend and"),
        ("Eve", "reserve two tents before Friday."),
        ("Finn", "The lake campsite costs 25 euros a night per tent, I checked the site."),
        ("Gus", "I can drive four people, the car has room for the tents."),
        ("Dan", "Campsite by the lake is booked for both nights, two pitches."),
    ],
    "ru": [
        ("Даня", "@eva @finn @gus @hal @ivy @jo @kim"),
        ("Ева", "Надо забронировать кемпинг у озера на длинные выходные и"),
        ("Ева", "взять две палатки до пятницы."),
        ("Фима", "Кемпинг у озера стоит 25 евро за ночь с палатки, я проверил на сайте."),
        ("Гоша", "Я могу отвезти четверых, в машине хватит места для палаток."),
        ("Даня", "Кемпинг у озера забронирован на обе ночи, два места."),
    ],
    "uk": [
        ("Данило", "@eva @finn @gus @hal @ivy @jo @kim"),
        ("Єва", "Треба забронювати кемпінг біля озера на довгі вихідні та"),
        ("Єва", "взяти два намети до п'ятниці."),
        ("Федір", "Кемпінг біля озера коштує 25 євро за ніч з намету, я перевірив на сайті."),
        ("Гліб", "Я можу відвезти чотирьох, у машині вистачить місця для наметів."),
        ("Данило", "Кемпінг біля озера заброньовано на обидві ночі, два місця."),
    ],
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("code", ["en", "ru", "uk"])
def test_no_fragment_is_a_line_and_no_title_is_only_names(embedder: Embedder, code: str) -> None:
    messages = chat(FRAGMENTED[code])
    summary = digest(embedder, messages, code)
    book = pack(code)
    names = {m.sender_name for m in messages}
    for section in summary.sections:
        # A title is never a bare "Conversation: names" (what it is about comes first).
        rest = section.title
        for name in names:
            rest = rest.replace(book.name(str(name)), "")
        assert re.search(r"\w{3,}", re.sub(r"\d", "", rest)), section.title
        for item in section.items:
            assert "@finn @gus" not in item.text, item.text
            ends = [q.rstrip("…") for q in re.findall(r"[“«]([^”»]*)[”»]", item.text)]
            assert not any(q.endswith((" and", " и", " та")) for q in ends), item.text


@pytest.mark.slow
def test_a_thread_in_another_language_is_titled_in_the_requested_one(embedder: Embedder) -> None:
    summary = digest(embedder, chat(FRAGMENTED["ru"]), "en")
    threads = [s for s in summary.sections if s.kind.value == "thread"]
    assert threads
    for section in threads:
        # Neither its Russian phrase nor a quote of it: what it is about is in the lines.
        assert not re.search(r"[а-яё«…]", section.title, re.IGNORECASE), section.title


# Greetings by name ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "chatter"),
    [
        ("Hello, John. How are you?", True),
        ("Oh, Peter, how are you?", True),
        ("Thanks, Ann!", True),
        ("Привет, Маша!", True),
        ("Дякую, Олю!", True),
        ("Ok, Monday.", False),  # a day answers "when?": never a name
        ("Ок, понедельник.", False),
        ("Ok, Paris then", False),
        ("Hello, the ferry leaves at nine.", False),
    ],
)
def test_a_greeting_by_name_is_chatter(text: str, chatter: bool) -> None:
    from toolkit.lang.chatter import is_chatter

    assert is_chatter(text) is chatter


ASKED_WITH_REASON = [
    ("Ann", "I'm thinking about renting a boat for the lake on Saturday. Could you help me?"),
    ("Bob", "Sure, the rental by the pier has boats for four people at 30 euros an hour."),
    ("Ann", "Great, I'll call them in the morning and book one for ten o'clock."),
]  # fmt: skip


@pytest.mark.slow
def test_a_question_keeps_what_its_author_says_before_it(embedder: Embedder) -> None:
    # "Could you help me?" alone loses what the help is for: it is told beside it.
    summary = digest(embedder, chat(ASKED_WITH_REASON), "en").summary
    assert "renting a boat" in summary, summary
    assert "asks Bob “Could you help me?”, and" not in summary.split("renting a boat")[0], summary


def test_an_empty_short_sentence_never_stands_in_for_the_one_that_says_something() -> None:
    text = (
        "Total 102. The ferry to the island leaves at nine from the second pier and the tickets "
        "cost twelve euros each, cash only."
    )

    def weight(sentence: str) -> float:
        return float(len([w for w in sentence.split() if len(w) > 3]))

    shown = passage(text, 60, weight)
    assert shown.startswith("The ferry"), shown
    assert shown != "Total 102."


GREETING_WITH_QUESTION = [
    ("Ann", "Happy new year everyone! How are you? Wishing you all health and joy in the year."),
    ("Bob", "The ferry schedule for January is out, the first boat leaves at nine on weekdays."),
    ("Cat", "The ferry tickets went up to fifteen euros, the office told me this morning."),
    ("Dan", "Ferry on weekends starts at ten, and the last boat back is at six in January."),
    ("Ann", "The ferry office is closed on the first of January, it opens on the second."),
]  # fmt: skip


@pytest.mark.slow
def test_a_wish_whose_only_question_is_a_greeting_is_never_told_as_asked(
    embedder: Embedder,
) -> None:
    summary = digest(embedder, chat(GREETING_WITH_QUESTION), "en")
    text = everything(summary)
    assert "Ann asks" not in text, text
    # Nor is the next message told as its answer.
    assert not re.search(r"happy new year[^.]*, and Bob", summary.summary, re.I), summary.summary


@pytest.mark.parametrize(
    ("text", "told"),
    [
        ("Harry, do you like the opera?", "asks Harry whether they like the opera"),
        ("What's wrong with the drain?", "asks Bob what's wrong with the drain"),
    ],
)
def test_a_question_is_retold_in_order(text: str, told: str) -> None:
    from toolkit.lang.en.reported import report

    said = report(text, "Ann", "Bob") or ""
    assert told in said, said


@pytest.mark.slow
def test_a_forward_names_whose_words_they_are(embedder: Embedder) -> None:
    rows = [
        ("Ann", "The building's boiler is broken again, no hot water on the third floor."),
        ("Bob", "Every flat must file the repair form with the council by Friday noon."),
        ("Cat", "I filed the repair form this morning, the council office was open."),
        ("Ann", "The council form for the boiler repair is on their website, page two."),
    ]
    messages = chat(rows)
    messages[1] = replace(messages[1], forwarded_from="Housing Office")
    text = everything(digest(embedder, messages, "en"))
    assert "Bob (forwarding Housing Office)" in text, text
    assert not re.search(r"Bob (?:says|writes|adds)", text), text
    # A toast is no proposal.
    assert proposes("Let's meet at the pier at ten")
    assert act_of("Let's celebrate!") is not Act.PROPOSAL
