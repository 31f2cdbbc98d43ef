"""A small, real-looking chat export for the app and workspace tests.

Thirty-odd messages of three friends planning a trip, on a few topics, with short
replies ("ok", "+1") among them, written as a Telegram Desktop single-chat export.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from toolkit import Settings, Workspace
from toolkit.apikeys import create_api_key
from toolkit.embeddings import Embedder

HANDLE = "@trip_planning"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PEOPLE = [("Anna", "user101"), ("Boris", "user102"), ("Chen", "user103")]
TEXTS = [
    "Shall we finally plan the Berlin trip for the long weekend?",
    "Yes! I checked train tickets to Berlin, the early train is the cheapest",
    "ok",
    "How much are the train tickets to Berlin with a bike?",
    "About 60 euros return, bikes cost a bit extra on the ICE",
    "+1",
    "I would rather fly, the flight takes one hour and is cheaper than rail",
    "Flying is bad for the climate though, let's take the train",
    "Fine, train it is. Who books the hotel?",
    "I can book a hotel near Alexanderplatz, three nights",
    "Make sure the hotel has breakfast included please",
    "lol",
    "The Pergamon museum is closed for renovation until 2027",
    "Then let's visit the Neues Museum and the Bode Museum on Museum Island",
    "Museum Island tickets: a day pass covers all five museums",
    "What about food? I want to try a proper currywurst",
    "There is a famous currywurst stand under the U-Bahn at Eberswalder Strasse",
    "And the Turkish market on the canal on Tuesdays and Fridays",
    "ok",
    "We should rent bikes and ride along the old wall route",
    "The Berlin Wall trail is 160 km, maybe just the city part",
    "My bike has a flat tyre, I will rent one there",
    "Weather forecast says rain on Saturday, bring jackets",
    "Rain means museums on Saturday and bikes on Sunday",
    "+1",
    "Booked the hotel: three nights, breakfast included, 85 euros per night",
    "Great, I bought the train tickets for Friday 7:30",
    "Can someone share the train tickets as PDF?",
    "Sent the tickets to the group email",
    "thanks",
    "Let's meet at the central station at 7:00 on Friday",
    "See you at the station!",
]


def messages() -> list[dict[str, Any]]:
    """The exported messages: one every 40 minutes, authors in turn."""
    out = []
    for i, text in enumerate(TEXTS, 1):
        when = START + timedelta(minutes=40 * i) + timedelta(days=i // 8)
        name, peer = PEOPLE[i % len(PEOPLE)]
        out.append(
            {
                "id": i,
                "type": "message",
                "date": when.replace(tzinfo=None).isoformat(timespec="seconds"),
                "date_unixtime": str(int(when.timestamp())),
                "from": name,
                "from_id": peer,
                "text": text,
                "text_entities": [{"type": "plain", "text": text}],
            }
        )
    return out


def write_export(path: Path) -> Path:
    """Write the chat as ``result.json``-style JSON at ``path``; return the path."""
    data = {
        "name": "Trip planning",
        "type": "public_supergroup",
        "id": 4242,
        "messages": messages(),
    }
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def seed_trip(settings: Settings, folder: Path, *, embedder: Embedder | None = None) -> str:
    """The trip chat imported (and embedded) into the settings' store, from an export
    written in ``folder``; a new API key with the ``search.read`` scope."""
    ws = Workspace(settings) if embedder is None else Workspace(settings, embedder=embedder)
    try:
        ws.import_export(write_export(folder / "result.json"), ref=HANDLE)
        token, _ = create_api_key(ws.store, name="trip", scopes=["search.read"])
    finally:
        ws.close()
    return token
