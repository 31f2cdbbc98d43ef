"""The offline engine's tables load ahead of the first digest, and a failure to load them
is logged, never raised."""

from __future__ import annotations

import logging

import pytest

from toolkit.lang import detect, morph_analyzer, packs
from toolkit.summarize import warm


def test_warm_up_loads_the_detector_and_every_packs_dictionaries() -> None:
    warm.warm_up()
    assert detect._identifier.cache_info().currsize == 1
    assert {"ru", "uk"} <= {pack.code for pack in packs()}
    assert morph_analyzer.cache_info().currsize >= 2  # one analyzer per Slavic pack
    import lemminflect  # noqa: F401 — the English pack's tables are loaded by now

    assert "dateparser" in __import__("sys").modules


def test_a_failed_warm_up_is_logged_and_the_thread_ends(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> None:
        raise OSError("the dictionary file is unreadable")

    monkeypatch.setattr(warm, "warm_up", broken)
    with caplog.at_level(logging.WARNING, logger="toolkit.summarize.warm"):
        thread = warm.warm_up_in_background()
        thread.join(timeout=30)
    assert not thread.is_alive()
    assert "warming the summary engine failed" in caplog.text
