"""A link's tracking and share parameters are no secret: dropped, never masked as a
password or key; a link's real secrets stay masked (en, ru, uk marks)."""

from __future__ import annotations

import pytest

from toolkit.summarize.credentials import secret_spans, without_tracking
from toolkit.summarize.personal import marks_for, mask

CODES = ("en", "ru", "uk")

SHARED = [
    # (message, the link as a summary may show it)
    (
        "listen https://music.example/track/4kQwErTy9Zx?si=Qw3rTy8UiOp2AsDfGh now",
        "listen https://music.example/track/4kQwErTy9Zx now",
    ),
    (
        "глянь https://photos.example/p/Xy7Kq2/?igsh=bXp4QmN2Zk9yTTIzMA== красиво",
        "глянь https://photos.example/p/Xy7Kq2/ красиво",
    ),
    (
        "https://shop.example/item?id=42&utm_source=tg&utm_campaign=Sp7ringSaleXk2",
        "https://shop.example/item?id=42",
    ),
    (
        "https://news.example/a?fbclid=IwAR2kD9sLm4Xq7Pz1Vb8Nc3&page=2#top",
        "https://news.example/a?page=2#top",
    ),
    (
        "https://video.example/watch?v=dQ4w9WgXcQ&feature=sh4reKq9Lm2Zx",
        "https://video.example/watch?v=dQ4w9WgXcQ",
    ),
    (
        "https://blog.example/post?ref=Xk2mQ9pL7zWv3&t=9Kd2mLq8Zx4Pv",
        "https://blog.example/post?t=9Kd2mLq8Zx4Pv",
    ),
    (
        "https://x.example/u/status/1?s=20&t=Pq8Lm2Xk9Zv4Wn7R",
        "https://x.example/u/status/1?s=20&t=Pq8Lm2Xk9Zv4Wn7R",
    ),
]


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize(("text", "shown"), SHARED)
def test_a_share_id_is_dropped_not_masked(code: str, text: str, shown: str) -> None:
    marks = marks_for(code)
    masked = mask(text, marks)
    assert marks.secret not in masked
    assert masked == shown


@pytest.mark.parametrize(("text", "_"), SHARED)
def test_a_share_id_is_no_secret_span(text: str, _: str) -> None:
    assert secret_spans(text) == []


SECRET_LINKS = [
    ("https://api.example/v1/data?token=Xk29dLq8Zm4Pv7Wn", "Xk29dLq8Zm4Pv7Wn"),
    ("https://api.example/v1/data?si=Qw3rTy8UiOp2As&api_key=Pq7Lm2Xk9Zv4Wn8R", "Pq7Lm2Xk9Zv4Wn8R"),
    ("https://files.example/x.pdf?sig=Lm9Xq2Kd7Pv4Zw8N&utm_source=tg", "Lm9Xq2Kd7Pv4Zw8N"),
    ("https://app.example/login?password=hunter2go", "hunter2go"),
    ("https://app.example/cb?access_token=Zx8Kq2Lm9Pd4Vw7N", "Zx8Kq2Lm9Pd4Vw7N"),
    ("https://app.example/cb?secret=Vb7Nm3Kq9Lx2Pd8Z", "Vb7Nm3Kq9Lx2Pd8Z"),
    ("https://app.example/cb?key=Qw9Er2Ty7Ui4Op8A", "Qw9Er2Ty7Ui4Op8A"),
    ("https://meet.example/j/88812345?p=QwErTyUiOpAsDf&utm_medium=chat", "QwErTyUiOpAsDf"),
]


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize(("text", "secret"), SECRET_LINKS)
def test_a_links_secret_stays_masked(code: str, text: str, secret: str) -> None:
    marks = marks_for(code)
    masked = mask(text, marks)
    assert secret not in masked
    assert marks.secret in masked
    assert "utm_" not in masked
    assert "si=" not in masked


def test_a_link_without_tracking_is_left_as_it_is() -> None:
    text = "docs at https://docs.example/guide?lang=en&page=3#intro and ?si=x outside a link"
    assert without_tracking(text) == text
