"""Property: with ``MLENS_LLM_PSEUDONYMISE`` no member's name, handle or the chat's title
reaches the endpoint, whatever spelling the chat writes them in (issue 42).

Hypothesis builds group chats of three to five members drawn from names in three
scripts (Latin with and without diacritics, Cyrillic, Greek), each with a handle; the
members write about each other in English or Russian, naming one another whole, by a
first name or a surname, in capitals, in lower case, without their diacritics, in the
other script (two transliteration schemes), with a zero-width or look-alike letter
inside, in a case form («Кравцову»), by ``@handle`` or by a profile link of ``t.me``,
Instagram, TikTok, VK, Facebook or X. The chat's title holds a member's name. Every
request body the scripted endpoint receives is captured, for a digest by the ``llm``
and by the ``hybrid`` engine, with and without a sender filter, and none holds a
member's name in any of the spellings written, its folded or transliterated form, a
handle, or the title. A spoofed placeholder ("Person 1 stole the money") never comes
back as a member's name.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import cyrtranslit
import pytest
from fake_llm import FakeLLM, Reply, llm_settings, message_texts, summary_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from summary_data import one_source_store

from toolkit.embeddings import Embedder
from toolkit.lang import pack
from toolkit.models import Message, SourceKind, Summary
from toolkit.requests import SummaryRequest
from toolkit.store import SQLiteStore
from toolkit.summarize.pipeline import summarize_period

DAY = datetime(2026, 4, 7, 9, 0, tzinfo=UTC)
LATIN = [
    ("Maren", "Ostby"),
    ("Tobias", "Lindgren"),
    ("Soraya", "Duarte"),
    ("Piotr", "Nowakowski"),
    ("Keanu", "Holtzmann"),
    ("Dagny", "Quennell"),
]
DIACRITIC = [
    ("Zoë", "Brontë"),
    ("Renée", "Côté"),
    ("Jürgen", "Größler"),
    ("Łukasz", "Wójcik"),
    ("Søren", "Kierkegård"),
    ("Ágnes", "Núñez"),
]
CYRILLIC = [
    ("Арсений", "Кравцов"),
    ("Людмила", "Белова"),
    ("Остап", "Гнатюк"),
    ("Ярослава", "Дзюба"),
    ("Всеволод", "Шестаков"),
    ("Тимофей", "Ермолаев"),
]
GREEK = [
    ("Θεόδωρος", "Παπαδάκης"),
    ("Ελπίδα", "Καραγιάννη"),
    ("Σπύρος", "Μαυρίδης"),
]
HANDLES = ["nightowl", "bluefin", "quartzlake", "mossyrock", "tinbird", "sandpiper"]
TITLE_WORDS = ["Garden Crew", "Boat Trip Planning", "Flat Repairs", "Choir Rehearsals"]

PASSPORT = str.maketrans(
    {
        "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh",
        "з": "z", "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o",
        "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh", "ц": "ts",
        "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu",
        "я": "ya",
    }
)  # fmt: skip
"""The passport scheme ("Arseniy"), another spelling than cyrtranslit's ("Arsenij")."""
LOOK_ALIKE = str.maketrans("aeopcxAEOPCXаеорсхАЕОРСХ", "аеорсхАЕОРСХaeopcxAEOPCX")
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\ufeff"]
INVISIBLE_RE = re.compile("[" + "".join(INVISIBLE) + "]")
SPELLINGS = [
    "whole", "first", "last", "upper", "lower", "plain", "translit", "passport",
    "invisible", "look-alike", "case-form",
]  # fmt: skip
LINKS = ["@{h}", "t.me/{h}", "https://t.me/{h}/12", "instagram.com/{d}",
         "https://www.tiktok.com/@{h}?lang=en", "vk.com/{h}", "https://facebook.com/{d}",
         "x.com/{h}", "https://twitter.com/{h}/status/7"]  # fmt: skip
TEMPLATES = {
    "en": ["{m} said the cake order is done.", "Ask {m} about the keys, please.",
           "{m}, are you coming at 7?", "Thanks to {m} for the photos!",
           "I met {m} at the station yesterday."],
    "ru": ["{m} сказал, что торт заказан.", "Спроси {m} про ключи, пожалуйста.",
           "{m}, ты придёшь к 7?", "Спасибо {m} за фотографии!",
           "Вчера видела {m} на вокзале."],
}  # fmt: skip
SPOOF = "Person 1 stole the money"
FORWARD = "Secret Source Person"


def _letters(word: str) -> str:
    """``word`` without its diacritics ("Zoë" → "Zoe", "Łukasz" → "Lukasz")."""
    plain = unicodedata.normalize("NFKD", word.replace("ł", "l").replace("Ł", "L"))
    return "".join(ch for ch in plain if not unicodedata.combining(ch)).replace("ß", "ss")


def _cyrillic(word: str) -> bool:
    return any("\u0400" <= ch <= "\u04ff" for ch in word)


def _passport(word: str) -> str:
    latin = word.lower().translate(PASSPORT)
    return latin[:1].upper() + latin[1:] if word[:1].isupper() else latin


@dataclass(frozen=True)
class Member:
    first: str
    last: str
    handle: str
    peer: str

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def dotted(self) -> str:
        """The handle as a profile of a platform that takes dots (``tin.bird.3``)."""
        return self.handle.replace("_", ".")

    def spelled(self, spelling: str, pick: int) -> str:
        """The member's name in one of ``SPELLINGS`` (``pick`` chooses among its forms)."""
        word = self.first if pick % 2 else self.last
        if spelling == "whole":
            return self.name
        if spelling == "first":
            return self.first
        if spelling == "last":
            return self.last
        if spelling == "upper":
            return self.name.upper()
        if spelling == "lower":
            return self.first.lower()
        if spelling == "plain":
            return f"{_letters(self.first)} {_letters(self.last)}"
        if spelling == "translit":
            return cyrtranslit.to_latin(self.name, "ru") if _cyrillic(word) else self.name
        if spelling == "passport":
            return " ".join(_passport(w) for w in (self.first, self.last))
        if spelling == "invisible":
            return word[:2] + INVISIBLE[pick % len(INVISIBLE)] + word[2:]
        if spelling == "look-alike":
            at = next((i for i, ch in enumerate(word) if ch.translate(LOOK_ALIKE) != ch), None)
            if at is None:
                return word
            return word[:at] + word[at].translate(LOOK_ALIKE) + word[at + 1 :]
        assert spelling == "case-form"
        if _cyrillic(word):
            name_forms = pack("ru").name_forms
            assert name_forms is not None
            forms = sorted(name_forms.forms(word))
            form = forms[pick % len(forms)]
            return form[:1].upper() + form[1:]
        return f"{word}'s"

    def secrets(self) -> set[str]:
        """Every spelling of the member that must not be sent (matched as whole words, any
        case): each name word as written, without diacritics, and transliterated."""
        out: set[str] = set()
        for word in (self.first, self.last):
            out |= {word, _letters(word)}
            if _cyrillic(word):
                out |= {cyrtranslit.to_latin(word, "ru"), _passport(word)}
        return out


@dataclass(frozen=True)
class Chat:
    members: list[Member]
    title: str
    language: str
    lines: list[tuple[int, str]]
    """(writer's index, text)"""
    spoof: bool

    def secrets(self) -> set[str]:
        return {s for m in self.members for s in m.secrets()}


@st.composite
def chats(draw: st.DrawFn) -> Chat:
    """A group chat whose members name one another in every spelling."""
    pools = [LATIN, DIACRITIC, CYRILLIC, GREEK]
    count = draw(st.integers(3, 5))
    # At least one of each script, then any.
    chosen = [draw(st.sampled_from(pool)) for pool in (LATIN + DIACRITIC, CYRILLIC, GREEK)]
    chosen += [draw(st.sampled_from(draw(st.sampled_from(pools)))) for _ in range(count - 3)]
    people = list(dict.fromkeys(chosen))  # every first name differs, folded too
    handles = draw(st.permutations(HANDLES))
    members = [
        Member(first, last, f"{handles[i]}_{i + 1}{i + 7}", f"user{900 + i}")
        for i, (first, last) in enumerate(people)
    ]
    language = draw(st.sampled_from(["en", "ru"]))
    lines = [(i, TEMPLATES[language][0].format(m=members[(i + 1) % len(members)].first))
             for i in range(len(members))]  # fmt: skip
    for _ in range(draw(st.integers(3, 8))):
        writer = draw(st.integers(0, len(members) - 1))
        named = members[draw(st.integers(0, len(members) - 1))]
        if draw(st.booleans()):
            mention = named.spelled(draw(st.sampled_from(SPELLINGS)), draw(st.integers(0, 20)))
        else:
            mention = draw(st.sampled_from(LINKS)).format(h=named.handle, d=named.dotted)
        template = draw(st.sampled_from(TEMPLATES[language]))
        lines.append((writer, template.format(m=mention)))
    host = members[draw(st.integers(0, len(members) - 1))]
    title = f"{host.first} {host.last}: {draw(st.sampled_from(TITLE_WORDS))}"
    return Chat(members, title, language, lines, draw(st.booleans()))


def _store(chat: Chat) -> SQLiteStore:
    def messages(source_id: int) -> list[Message]:
        said = [
            Message(
                source_id=source_id,
                messenger_message_id=n,
                posted_at=DAY + timedelta(minutes=3 * n),
                text=text,
                sender_peer_id=chat.members[writer].peer,
                sender_name=chat.members[writer].name,
            )
            for n, (writer, text) in enumerate(chat.lines, 1)
        ]
        if chat.spoof:
            n, host = len(said) + 1, chat.members[0]
            said += [
                Message(source_id, n, DAY + timedelta(minutes=3 * n), SPOOF, host.peer, host.name),
                Message(source_id, n + 1, DAY + timedelta(minutes=3 * n + 1), "Read this, folks.",
                        host.peer, host.name, forwarded_from=FORWARD),
            ]  # fmt: skip
        return said

    return one_source_store(
        messages,
        title=chat.title,
        kind=SourceKind.CHAT,
        internal_id=1800000042,
        chat_type="private_supergroup",
    )


def _llm_answer(request: dict[str, Any]) -> Reply:
    """A model of the ``llm`` engine that writes the placeholders it read, echoes the
    spoof as it was sent, and retells the first message."""
    user = request["messages"][-1]["content"]
    people = sorted(set(re.findall(r"Person \d+", user)))
    ids = re.findall(r'<message id="(\d+)"', user)
    spoof = next((t for t in message_texts(user) if "stole" in t), "")
    return Reply(
        content=summary_json(
            f"{' and '.join(people[:2])} talked.",
            [("Echo", spoof or "nothing", ids[-1:]), ("Said", message_texts(user)[0], ids[:1])],
            ids[:1],
        )
    )


def _hybrid_answer(request: dict[str, Any]) -> Reply:
    """A model of the ``hybrid`` engine that retells each line without its quotation marks."""
    user = request["messages"][-1]["content"]
    lines = [html.unescape(m) for m in re.findall(r"^\d+: (.*)$", user, re.MULTILINE)]
    answer = {str(n): re.sub(r"[“”«»\"]", "", line) for n, line in enumerate(lines, 1)}
    return Reply(content=json.dumps(answer, ensure_ascii=False))


ANSWERS: dict[str, Callable[[dict[str, Any]], Reply]] = {
    "llm": _llm_answer,
    "hybrid": _hybrid_answer,
}


def _found(secret: str, sent: str) -> re.Match[str] | None:
    pattern = rf"(?<![^\W\d_]){re.escape(secret)}(?![^\W\d_])"
    return re.search(pattern, sent, re.IGNORECASE)


def _assert_nothing_sent(chat: Chat, llm: FakeLLM) -> None:
    assert llm.requests, "the endpoint was asked"
    raw = "\n".join(json.dumps(r, ensure_ascii=False) for r in llm.requests)
    # What a reader of the request sees: invisible characters gone, full-width folded.
    seen = unicodedata.normalize("NFKC", INVISIBLE_RE.sub("", raw))
    plain = _letters(seen)
    for sent in (raw, seen, plain):
        for secret in chat.secrets() | {chat.title}:
            found = _found(secret, sent)
            assert found is None, (
                f"{secret!r} was sent: …{sent[max(0, found.start() - 80) : found.end() + 80]}…"
            )
        for _, text in chat.lines:  # every spelling written, literally
            for member in chat.members:
                for spelling in SPELLINGS:
                    for pick in (0, 1):
                        written = member.spelled(spelling, pick)
                        if written in text:
                            assert _found(written, sent) is None, (written, text)
        for member in chat.members:
            for handle in (member.handle, member.dotted):
                assert handle.casefold() not in sent.casefold(), handle


def _assert_no_spoof_back(chat: Chat, summary: Summary) -> None:
    """No text of the summary says a member "stole the money" (the spoof's "Person 1"
    mapped back to a member's name)."""
    texts = [summary.summary] + [s.body for s in summary.sections]
    for text in texts:
        for member in chat.members:
            for word in (member.first, member.last):
                assert not re.search(rf"{re.escape(word)}\s+stole", text), text


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["llm", "hybrid"])
@pytest.mark.parametrize("filtered", [False, True], ids=["all", "sender-filter"])
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(chat=chats())
def test_no_name_handle_or_title_reaches_the_endpoint(
    chat: Chat, engine: str, filtered: bool, embedder: Embedder
) -> None:
    store = _store(chat)
    request = SummaryRequest(
        source_ref="c/1800000042",
        started_at=DAY,
        ended_at=DAY + timedelta(days=1),
        language=chat.language,
        use_cache=False,
        sender_peer_ids=[chat.members[-1].peer] if filtered else None,
    )
    with FakeLLM(handler=ANSWERS[engine]) as llm:
        try:
            settings_ = llm_settings(
                llm,
                llm_pseudonymise=True,
                summary_engine=engine,
                llm_fallback="extractive",
                llm_hybrid_max_items=50,
            )
            summary = summarize_period(store, embedder, settings_, request)
        finally:
            store.close()
        _assert_nothing_sent(chat, llm)
    _assert_no_spoof_back(chat, summary)
