"""The HTML import benchmark's wiring: a small synthetic HTML export, measured."""

from __future__ import annotations

import pytest

from benchmarks.bench_html import TARGET, bench_html, html_rows, synthetic_chat


def test_the_synthetic_chat_has_services_replies_and_reactions() -> None:
    chat = synthetic_chat(1_000)
    kinds = {m["type"] for m in chat["messages"]}
    assert kinds == {"message", "service"}
    assert any("reply_to_message_id" in m for m in chat["messages"])
    assert any("reactions" in m for m in chat["messages"])


@pytest.mark.slow
def test_the_row_reports_rate_pages_and_memory() -> None:
    result = bench_html(messages=1_500, runs=1)
    assert (result.messages, result.pages) == (1_500, 2)
    assert min(result.peak_bytes, result.peak_bytes_4x) > 0
    ((name, value, _, ok),) = html_rows(result)
    assert name == "HTML export of 1,500 messages (2 pages): store"
    assert "msg/s" in value
    assert "peak Python memory" in value
    assert ok == (result.rate >= TARGET and result.peak_bytes_4x <= 1.5 * result.peak_bytes)
