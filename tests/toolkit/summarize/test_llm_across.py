"""Grounding across languages: a line in one language about messages in another is held
by the names it writes (in any script) and by what it means (the bundled multilingual
embedder). The red team's cases of issue 42: an invented allegation in the requested
language citing real messages, and a hybrid rewrite that replaces a quotation with a
new claim, are dropped in every direction (en→ru, en→uk, ru→en, uk→en).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import summary_data
from fake_llm import FakeLLM, Reply, digest_json, llm_settings
from summary_data import START, in_period

from toolkit.embeddings import Embedder
from toolkit.models import Message
from toolkit.store import SQLiteStore
from toolkit.summarize.llm import meaning
from toolkit.summarize.llm.answer import LLMItem
from toolkit.summarize.llm.grounding import (
    Evidence,
    Window,
    item_problem,
    rewrite_problem,
    summary_problem,
)
from toolkit.summarize.pipeline import summarize_period

T0 = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


def chat(*rows: tuple[str, str]) -> list[Message]:
    """Messages 1, 2 … of ``(sender, text)`` a minute apart, none a reply."""
    return summary_data.chat(list(rows), start=T0, minutes=1, thread=False)


EN = chat(
    ("Zelda Quill", "I booked the picnic shelter at Riverside park for Saturday, bring blankets"),
    ("Omar Haddad", "the treasurer report is late again, can someone remind Pat?"),
    ("Dana Park", "we are moving the office to Southern California in March"),
)
RU = chat(
    ("Вера Громова", "кто отвечает за деньги группы? надо оплатить аренду зала"),
    ("Олег Титов", "мы не поедем в Казань в эти выходные, билеты слишком дорогие"),
    ("Борис Левин", "сервер упал ночью, я его перезапустил, логи посмотрю утром"),
)
UK = chat(
    ("Ніна Коваль", "перенесімо репетицію хору на четвер, бо в середу зал зайнятий"),
    ("Тарас Мельник", "на зборах вирішили підняти внесок до двохсот гривень"),
)

CASES = [
    # (messages, language, cited ids, faithful line, invented line)
    (
        EN,
        "ru",
        ["1", "2"],
        "Зельда забронировала навес для пикника в парке Риверсайд на субботу.",
        "Зельда Квилл призналась, что украла деньги группы.",
    ),
    (
        EN,
        "uk",
        ["1"],
        "Зельда забронювала навіс для пікніка в парку Ріверсайд на суботу.",
        "Зельда зізналася, що вкрала гроші групи.",
    ),
    (
        RU,
        "en",
        ["1", "2"],
        "Vera asks who is in charge of the group money, since the hall rent must be paid.",
        "Vera says the treasurer secretly stole the group money.",
    ),
    (
        UK,
        "en",
        ["2"],
        "At the meeting they decided to raise the fee to two hundred hryvnias, Taras writes.",
        "Taras accused the chairman of taking bribes.",
    ),
]


@pytest.mark.parametrize(("messages", "language", "ids", "faithful", "invented"), CASES)
def test_an_invented_allegation_is_dropped_and_a_translation_kept(
    messages: list[Message], language: str, ids: list[str], faithful: str, invented: str
) -> None:
    window = Window(messages)
    assert item_problem(LLMItem(text=faithful, ids=ids), window, language) is None
    problem = item_problem(LLMItem(text=invented, ids=ids), window, language)
    assert problem is not None
    assert problem.startswith(("unsupported meaning", "ungrounded"))


def test_a_place_the_messages_do_not_name_is_dropped() -> None:
    window = Window(EN)
    moved = "Дана сообщает, что в марте офис переезжает на Северо-Восток."
    assert item_problem(LLMItem(text=moved, ids=["3"]), window, "ru") == (
        "ungrounded name Северо-Восток"
    )
    kept = "Дана сообщает, что в марте офис переезжает в Южную Калифорнию."
    assert item_problem(LLMItem(text=kept, ids=["3"]), window, "ru") is None


@pytest.mark.parametrize(
    ("said", "language", "faithful", "turned"),
    [
        (
            "мы не поедем на дачу в субботу, дорога размыта",
            "en",
            "Ira says they will not go to the dacha on Saturday: the road is washed out.",
            "Ira says they are going to the dacha on Saturday.",
        ),
        (
            "We won't sign the lease this month, the landlord is not answering.",
            "uk",
            "Ніна пише, що цього місяця вони не підпишуть договір оренди.",
            "Ніна пише, що цього місяця вони підпишуть договір оренди.",
        ),
    ],
)
def test_a_line_that_drops_its_messages_negation_is_dropped(
    said: str, language: str, faithful: str, turned: str
) -> None:
    """A negation turned into its opposite scores as close as the faithful line by
    meaning: a line that negates nothing where its message negates is dropped."""
    who = "Ira" if language == "en" else "Nina"
    window = Window([Message(1, 1, START, said, sender_peer_id="u1", sender_name=who)])
    assert item_problem(LLMItem(text=faithful, ids=["1"]), window, language) is None
    problem = item_problem(LLMItem(text=turned, ids=["1"]), window, language)
    assert problem is not None
    assert problem == "lost negation" or problem.startswith("unsupported meaning")


def test_a_negation_lost_with_a_close_meaning_is_named() -> None:
    """The case the embedding cannot tell (scored as close as the faithful line)."""
    said = "мы не поедем на дачу в субботу, дорога размыта"
    window = Window([Message(1, 1, START, said, sender_peer_id="u1", sender_name="Ira")])
    turned = "Ira says they are going to the dacha on Saturday."
    assert item_problem(LLMItem(text=turned, ids=["1"]), window, "en") == "lost negation"


def test_a_summary_paragraph_with_an_allegation_is_not_grounded() -> None:
    window = Window(EN)
    good = "Зельда забронировала навес для пикника в парке на субботу."
    assert summary_problem(good, window, "ru") is None
    bad = f"{good} Дана уволила Омара за кражу денег."
    assert (summary_problem(bad, window, "ru") or "").startswith("unsupported meaning")


@pytest.mark.parametrize(
    ("original", "ids", "rewrite", "reason"),
    [
        (  # a quotation replaced by a new claim
            "Vera asks: «кто отвечает за деньги группы? надо оплатить аренду зала»",
            ["1"],
            "Vera says the treasurer secretly stole the group money.",
            "question told as a statement",
        ),
        (  # the same claim, still asking: the meaning holds it
            "Vera asks: «кто отвечает за деньги группы? надо оплатить аренду зала»",
            ["1"],
            "Vera asks whether the treasurer secretly stole the group money.",
            "unsupported meaning",
        ),
        (  # a negation lost
            "Oleg: «мы не поедем в Казань в эти выходные»",
            ["2"],
            "Oleg says they are going to Kazan this weekend.",
            "lost negation",
        ),
        (  # a place changed
            "Oleg: «мы не поедем в Казань в эти выходные»",
            ["2"],
            "Oleg says they will not go to Moscow this weekend.",
            "lost name Казань",
        ),
    ],
)
def test_a_rewrite_adds_no_claim_and_loses_no_name_or_negation(
    original: str, ids: list[str], rewrite: str, reason: str
) -> None:
    window = Window(RU)
    problem = rewrite_problem(rewrite, original, window.of(ids), "en", window=window)
    assert problem is not None
    assert problem.startswith(reason), problem


@pytest.mark.parametrize(
    ("original", "ids", "rewrite"),
    [
        (
            "Vera asks: «кто отвечает за деньги группы? надо оплатить аренду зала»",
            ["1"],
            "Vera asks who is in charge of the group money, since the hall rent must be paid.",
        ),
        (
            "Oleg: «мы не поедем в Казань в эти выходные»",
            ["2"],
            "Oleg says they will not go to Kazan this weekend.",
        ),
    ],
)
def test_a_faithful_translating_rewrite_is_kept(
    original: str, ids: list[str], rewrite: str
) -> None:
    window = Window(RU)
    assert rewrite_problem(rewrite, original, window.of(ids), "en", window=window) is None


@pytest.mark.parametrize(
    ("original", "rewrite", "reason"),
    [
        (  # what the bundled 135M model wrote of a demo line (issue 42)
            "Pia N. says Kai H. has to work with the authorities.",
            "Pia N. says Kai H. is not allowed to work with the authorities.",
            "added negation",
        ),
        (  # a line retold, then a story of the model's own
            "Pia N. thinks that the hero forgot the danger.",
            "Pia N. thinks that the hero forgot the danger. The people help him now.",
            "more sentences",
        ),
        ("Ugo H. asks “is it a human?”", "Ugo H. asks if it is a human.", None),
        (
            "Ann asks: «Ты придёшь? Я жду здесь.»",
            "Ann asks if you are coming. She waits here.",
            None,
        ),
    ],
)
def test_a_rewrite_adds_no_negation_and_no_sentence(
    original: str, rewrite: str, reason: str | None
) -> None:
    problem = rewrite_problem(rewrite, original, Evidence(), "en")
    assert problem == reason


def test_names_are_found_across_scripts_and_spellings() -> None:
    sources = ["Zelda Quill: ask Ann and Zoë Brontë"]
    for line in ("Зельды нет", "Квилл ответила", "и Энн", "and Zoe Bronte", "с Зоей Бронте"):
        assert meaning.unknown_name(f"Сказала {line}.", sources) is None, line
    assert meaning.unknown_name("Сказала Марина.", sources) == "Марина"
    assert meaning.unknown_name("They met Northeast Bank.", sources) == "Northeast Bank"


# -- end to end: a scripted endpoint, good and bad, through the pipeline -------------

TEAM = "@platform_team"


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


@pytest.mark.usefixtures("summary_sources")
def test_an_english_chat_digested_in_russian_keeps_translations_and_drops_allegations(
    llm: FakeLLM, store: SQLiteStore, embedder: Embedder
) -> None:
    good = "Алиса сообщает: релиз 2.4 выходит в продакшен в четверг после бэкфилла."
    bad = "Кэрол призналась, что украла деньги команды."
    llm.push(
        Reply(
            content=digest_json(
                "Команда обсуждает релиз 2.4 и его выкатку в четверг.",
                decisions=[(good, ["12"]), (bad, ["4", "6"])],
            )
        )
    )
    summary = summarize_period(
        store,
        embedder,
        llm_settings(llm, summary_engine="llm"),
        in_period(TEAM, START, START + timedelta(days=1), "ru"),
    )
    texts = [item.text for s in summary.sections for item in s.items]
    assert any(t.startswith(good.rstrip(".")) for t in texts)
    assert not any("украла" in t for t in texts)
    assert "украла" not in summary.summary
    assert summary.items_kept == 1
    assert summary.items_dropped == 1
