"""Chats built once as a JSON export and rendered as the HTML export of the same chat.

Each chat exercises what real exports hold: joined messages, forwards (a joined run of
forwards too), replies into earlier pages, reactions (counts, userpics, paid), service
messages, media placeholders, entities, English, Russian and Ukrainian text, and the
exporter's UTC offset (``+02:00``, ``+05:30``, ``-08:00``, or none as older versions).
Every text is this project's own.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

T0 = datetime(2024, 5, 6, 7, 0, tzinfo=UTC)
NOT_INCLUDED = "(File not included. Change data exporting settings to download.)"


class Chat:
    """A JSON-shaped chat written message by message, at one exporter's UTC offset."""

    def __init__(self, name: str, type_: str, id_: int, offset: timedelta) -> None:
        self.data: dict[str, Any] = {"name": name, "type": type_, "id": id_, "messages": []}
        self.offset = offset
        self.next_id = 1

    def _base(self, minute: float, kind: str) -> dict[str, Any]:
        moment = T0 + timedelta(minutes=minute)
        local = (moment + self.offset).replace(tzinfo=None)
        out = {
            "id": self.next_id,
            "type": kind,
            "date": local.isoformat(timespec="seconds"),
            "date_unixtime": str(int(moment.timestamp())),
        }
        self.next_id += 1
        return out

    def say(self, minute: float, who: tuple[str, str], text: Any = "", **fields: Any) -> int:
        raw = self._base(minute, "message")
        raw |= {"from": who[0], "from_id": who[1], "text": text} | fields
        self.data["messages"].append(raw)
        return int(raw["id"])

    def service(self, minute: float, who: tuple[str, str], action: str, **fields: Any) -> int:
        raw = self._base(minute, "service")
        raw |= {"actor": who[0], "actor_id": who[1], "action": action, "text": ""} | fields
        self.data["messages"].append(raw)
        return int(raw["id"])


ANNA = ("Anna Lee", "user2001")
OLEG = ("Олег Петренко", "user2002")
TARAS = ("Тарас Шевчук", "user2003")
NEWS = ("Вести Долины", "channel3001")
MIKE = ("Mike", "user2004")
ME = ("Sam Doe", "user2005")
GHOST: Any = (None, "user2099")  # a deleted account: no name in the JSON export


def group() -> dict[str, Any]:
    """A trilingual supergroup at +02:00 over two days, 30 messages (pages of 8)."""
    c = Chat("Garden Club", "private_supergroup", 1_500_000_001, timedelta(hours=2))
    c.service(0, ANNA, "create_group", title="Garden Club", members=[ANNA[0]])
    c.service(1, ANNA, "invite_members", members=[OLEG[0], TARAS[0]])
    first = c.say(2, ANNA, "Welcome! The seed swap is on Saturday.")
    c.say(3, ANNA, "Bring labels,\nplease.")  # joined, with a line break
    c.say(4, OLEG, "Привет всем! Я принесу томаты.", reply_to_message_id=first)
    c.say(
        5,
        OLEG,
        [
            "Список тут: ",
            {"type": "text_link", "text": "таблица", "href": "https://example.org/seeds"},
            " и ",
            {"type": "link", "text": "https://example.org/map"},
        ],
    )
    liked = {"from": "Anna Lee", "from_id": "user2001", "date": "2024-05-06T09:07:00"}
    c.say(
        6,
        TARAS,
        "Вітаю! Я візьму насіння гарбуза.",
        reactions=[
            {"type": "emoji", "emoji": "👍", "count": 3},
            {"type": "emoji", "emoji": "❤", "count": 1, "recent": [liked]},
        ],
    )
    c.say(7, TARAS, "", photo=NOT_INCLUDED)
    c.say(8, TARAS, "Ось фото грядки", photo=NOT_INCLUDED)
    c.say(
        9,
        ANNA,
        [
            {"type": "bold", "text": "Rules"},
            ": no pesticides, ",
            {"type": "mention", "text": "@garden_bot"},
            " ",
            {"type": "hashtag", "text": "#organic"},
        ],
    )
    c.say(30, ANNA, "", forwarded_from="Seed Library", photo="(File not included.)")
    c.say(30, ANNA, "Spring catalogue is out", forwarded_from="Seed Library")  # joined forward
    c.say(31, OLEG, "", media_type="sticker", sticker_emoji="🌱", file="(File not included.)")
    c.say(32, OLEG, "", media_type="voice_message", file="(File not included.)")
    c.say(33, ANNA, "", file="(File not included.)", file_name="planting-plan.pdf")
    c.say(
        34,
        ANNA,
        "",
        poll={
            "question": "Which day?",
            "answers": [{"text": "Saturday", "voters": 2}, {"text": "Sunday", "voters": 0}],
        },
    )
    c.say(
        35,
        TARAS,
        "",
        contact_information={
            "first_name": "Ірина",
            "last_name": "Коваль",
            "phone_number": "+380 44 000 0000",
        },
    )
    c.say(
        36,
        TARAS,
        "",
        place_name="Community Garden",
        address="12 Elm Street",
        location_information={"latitude": 50.45, "longitude": 30.52},
    )
    c.service(37, ANNA, "pin_message", message_id=first)
    c.say(38, OLEG, "Отвечаю на первое сообщение", reply_to_message_id=first)  # across pages
    c.say(
        40,
        TARAS,
        "Дякую за «насіння»!",
        reactions=[{"type": "paid", "count": 5}, {"type": "emoji", "emoji": "🔥", "count": 2}],
    )
    c.service(41, ANNA, "remove_members", members=[TARAS[0]])
    c.service(42, TARAS, "join_group_by_link", inviter="Anna Lee")
    c.say(60 * 24 + 5, ANNA, "Next day: rain, swap moved indoors.")  # a new day
    c.say(60 * 24 + 6, ANNA, "Room 4.")
    c.say(60 * 24 + 30, OLEG, "Ок, буду.", reply_to_message_id=first + 4)
    c.say(60 * 24 + 31, MIKE, "Hi, I'm new here. <b>Not bold</b> & fine")
    c.say(60 * 24 + 32, MIKE, "", media_type="video_message", file="(File not included.)")
    c.say(60 * 24 + 33, MIKE, "", media_type="animation", file="(File not included.)")
    c.say(60 * 24 + 34, ANNA, "See the photo above", reply_to_message_id=first + 6)
    c.say(60 * 24 + 40, GHOST, "A message of a deleted account")
    return c.data


def channel() -> dict[str, Any]:
    """A private channel at +05:30: posts signed by the channel, a title change."""
    c = Chat(NEWS[0], "private_channel", 1_600_000_002, timedelta(hours=5, minutes=30))
    c.service(0, NEWS, "create_channel", title=NEWS[0])
    for n in range(12):
        c.say(60 * n + 1, NEWS, f"Выпуск {n + 1}: погода в долине, {n * 2} градусов.")
    c.say(
        800, NEWS, "", photo=NOT_INCLUDED, reactions=[{"type": "emoji", "emoji": "😢", "count": 14}]
    )
    c.service(801, NEWS, "edit_group_title", title=NEWS[0])
    c.say(802, NEWS, "Новини українською: ярмарок у неділю.")
    return c.data


def personal() -> dict[str, Any]:
    """A personal chat at -08:00 between two people, with a reply and a forward."""
    c = Chat("Mike", "personal_chat", 2004, timedelta(hours=-8))
    c.say(0, ME, "Hey Mike, did the package arrive?")
    c.say(1, MIKE, "Yes! Thanks a lot.", reply_to_message_id=1)
    c.say(2, MIKE, "Look at this", forwarded_from="Anna Lee")
    c.say(20, ME, "Great")
    c.say(21, ME, "See you on Friday")
    return c.data


def old_group() -> dict[str, Any]:
    """A group exported by an older version: dates without date_unixtime (no offset)."""
    c = Chat("Old Friends", "private_supergroup", 1_700_000_003, timedelta(hours=3))
    c.say(0, ANNA, "This export is from an old version")
    c.say(1, OLEG, "Да, без смещения времени")
    c.say(2, TARAS, "Так, усе в місцевому часі")
    for raw in c.data["messages"]:
        del raw["date_unixtime"]
    return c.data


def forum() -> dict[str, Any]:
    """A forum at +03:00: two topics, messages replying into them."""
    c = Chat("Makers Forum", "private_supergroup", 1_800_000_004, timedelta(hours=3))
    topic = c.service(0, ANNA, "topic_created", title="Printers")
    post = c.say(1, OLEG, "Мой принтер снова шумит", reply_to_message_id=topic)
    c.say(2, ANNA, "Check the belt", reply_to_message_id=post)
    other = c.service(3, TARAS, "topic_created", title="Лазери")
    c.say(4, TARAS, "Новий лазер приїхав", reply_to_message_id=other)
    c.say(5, MIKE, "General chatter")
    return c.data


def big(
    count: int, *, name: str = "Big Group", offset: timedelta = timedelta(hours=2)
) -> dict[str, Any]:
    """A supergroup of ``count`` messages of three people, replies and reactions."""
    c = Chat(name, "private_supergroup", 1_900_000_005, offset)
    people = [ANNA, OLEG, TARAS]
    texts = [
        "Meeting moved to room {n}, bring the draft.",
        "Сборка {n} прошла, можно выкатывать.",
        "Перевірю реліз {n} ввечері.",
    ]
    for n in range(count):
        who = people[(n // 3) % 3]
        extra: dict[str, Any] = {}
        if n % 7 == 3:
            extra["reply_to_message_id"] = max(1, n - 40)
        if n % 11 == 5:
            extra["reactions"] = [{"type": "emoji", "emoji": "👍", "count": n % 5 + 1}]
        c.say(n * 0.5, who, texts[n % 3].format(n=n), **extra)
    return c.data


BUTTONS = [[{"type": "url", "text": "Open the shop", "data": "https://example.org/shop"}]]


def with_bot_buttons(after: int = 50, *, name: str = "Market Bots") -> dict[str, Any]:
    """A group where a message with inline bot buttons comes before ``after`` messages (the
    exporter leaves that message's ``div`` open: all of them nest inside it), a second
    buttons message later, joined messages, replies, a day change and reactions."""
    c = Chat(name, "private_supergroup", 1_950_000_006, timedelta(hours=3))
    c.say(0, ANNA, "Who sells seedlings this week?")
    c.say(1, MIKE, "Try the shop bot", inline_bot_buttons=BUTTONS)
    for n in range(after):
        who = (OLEG, TARAS, ANNA)[(n // 2) % 3]
        extra: dict[str, Any] = {}
        if n % 9 == 4:
            extra["reply_to_message_id"] = 2
        if n % 13 == 6:
            extra["reactions"] = [{"type": "emoji", "emoji": "👍", "count": n % 4 + 1}]
        if n == after // 2:
            c.say(2 + n * 3, MIKE, "Another offer", inline_bot_buttons=BUTTONS)
        c.say(2 + n * 3 + 60 * 24 * (n > after * 3 // 4), who, f"Ответ номер {n}", **extra)
    return c.data
