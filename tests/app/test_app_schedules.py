"""The Schedules page through ``AppTest``: add a feed schedule, see it listed, deliver
it now."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app_streamlit.py")


@pytest.mark.slow
def test_add_a_schedule_then_deliver_it_now(trip_chat: str) -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("app_pages/schedules.py").run()
    assert not at.exception, at.exception
    assert "No schedules yet" in at.info[0].value
    at.text_input[0].set_value("07:30")
    at.button[0].click().run()  # Add (the feed is ticked)
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert table["source"].tolist() == [trip_chat]
    assert table["when"].tolist() == ["daily 07:30"]
    at.button[0].click().run()  # Deliver now
    assert not at.exception, at.exception
    assert at.success[0].value == "atom feed: sent"


@pytest.mark.slow
def test_add_an_alert_then_check_it_and_a_bad_one_says_why(trip_chat: str) -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("app_pages/schedules.py").run()
    assert not at.exception, at.exception
    assert any("No alerts yet" in i.value for i in at.info)
    at.text_input(key="alert_query").set_value("   ")
    at.text_input(key="alert_mail").set_value("ops@example.org")
    at.button(key="alert_add").click().run()
    assert not at.exception, at.exception
    assert any("query" in e.value for e in at.error)
    at.text_input(key="alert_query").set_value("train tickets")
    at.multiselect(key="alert_refs").select(trip_chat)
    at.button(key="alert_add").click().run()
    assert not at.exception, at.exception
    table = at.dataframe[-1].value
    assert table["query"].tolist() == ["train tickets"]
    assert table["sources"].tolist() == [trip_chat]
    at.button(key="alert_run").click().run()
    assert not at.exception, at.exception
    assert at.success[-1].value == "0 post(s) in the last hour; 0 held."
