"""A quote keeps a sentence whole when it overruns its limit by little, and never opens on
a sentence that leans on the one before it ("So…", «Поэтому…», «Хоча…»), in en, ru, uk."""

from __future__ import annotations

import pytest

from toolkit.lang import pack
from toolkit.summarize.extractive.draft.quotes import ELLIPSIS, STRETCH, fit, passage


def test_a_sentence_a_little_over_its_limit_is_kept_whole() -> None:
    sentence = "The node finally synced after the disk swap, and the whole thing took 28 days."
    assert len(sentence) > 60
    assert passage(sentence, 60) == sentence  # the number at its end is what it says
    assert fit(sentence, 60) == sentence


def test_a_sentence_far_over_its_limit_is_still_cut() -> None:
    sentence = " ".join(["word"] * 60) + "."
    shown = passage(sentence, 60)
    assert shown.endswith(ELLIPSIS)
    assert len(shown) <= 60 + len(ELLIPSIS)
    assert len(sentence) > 60 * STRETCH


def _weight(sentence: str) -> float:
    """The test's weight: a sentence about the port counts most."""
    return 3.0 if "port" in sentence or "порт" in sentence else 1.0


@pytest.mark.parametrize(
    ("code", "before", "leaning"),
    [
        (
            "en",
            "Our relay keeps dropping peers every night since the upgrade.",
            "So to fix it I opened port 9735 and restarted the daemon twice.",
        ),
        (
            "ru",
            "Наш узел каждую ночь теряет соединения после обновления.",
            "Поэтому я открыл порт 9735 и дважды перезапустил сервис сегодня.",
        ),
        (
            "uk",
            "Наш вузол щоночі втрачає з'єднання після оновлення системи.",
            "Тому я відкрив порт 9735 і двічі перезапустив сервіс сьогодні.",
        ),
    ],
)
def test_a_quote_never_opens_on_a_sentence_that_leans_back(
    code: str, before: str, leaning: str
) -> None:
    tail = {"en": "Nothing else changed.", "ru": "Больше ничего.", "uk": "Більше нічого."}[code]
    text = f"{before} {leaning} {tail}"
    cue = pack(code).cue.leaning
    assert cue.match(leaning)
    # Room for the leaning sentence alone, not with the one before it: it is not quoted
    # alone, the heaviest sentence that stands alone is.
    alone = passage(text, len(leaning) + 5, _weight, cue)
    assert not alone.startswith(leaning[:12])
    # Room for both: the pair is quoted, the reason first.
    pair = passage(text, len(before) + len(leaning) + 5, _weight, cue)
    assert pair == f"{before} {leaning}"
    # Without the language's cue the heavier sentence alone wins (what the cue changes).
    assert passage(text, len(leaning) + 5, _weight) == leaning


@pytest.mark.parametrize(
    ("code", "standing"),
    [
        ("en", "But the best part is the training they give us."),
        ("ru", "Но лучше всего то, что нас учат."),
        ("uk", "Але найкраще те, що нас навчають."),
    ],
)
def test_a_contrast_stands_alone(code: str, standing: str) -> None:
    """A "but" sentence says its point alone: it may open a quote."""
    assert pack(code).cue.leaning.match(standing) is None


@pytest.mark.parametrize(
    "greeting",
    ["Hi dear friends!", "Hello my dears!", "Здравствуйте мои дорогие!", "Добрий день, мої любі!"],
)
def test_a_greeting_to_dear_ones_is_no_quote(greeting: str) -> None:
    """A greeting that calls the readers dear is chatter: the message's point is quoted."""
    point = {
        "H": "The garden meeting moves to Friday at five.",
        "З": "Собрание в саду переносится на пятницу, в пять.",
        "Д": "Зібрання в саду переноситься на пʼятницю, о пʼятій.",
    }[greeting[0]]
    assert passage(f"{greeting} {point}", 60) == point


@pytest.mark.parametrize(
    ("code", "said"),
    [("en", "an unnamed member"), ("ru", "участник без имени"), ("uk", "учасник без імені")],
)
def test_a_sender_the_export_does_not_name_is_said_in_words(code: str, said: str) -> None:
    """A deleted account has no name: the digest says so in words, never "?"."""
    from toolkit.lang.base import UNNAMED

    book = pack(code)
    assert book.name(UNNAMED) == said
    assert book.name("  Ann   Lee ") == "Ann Lee"
