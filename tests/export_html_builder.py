"""Telegram Desktop HTML exports for tests: the renderer ``make bench`` also uses.

``write_html(folder, chat)`` writes a JSON-shaped chat (``export_builders.chat``,
``html_chats``) as the exporter's ``messages*.html`` pages (``benchmarks.synthetic_html``
says how, quirk by quirk).
"""

from benchmarks.synthetic_html import NOT_INCLUDED, pages_of, render_pages, write_html

__all__ = ["NOT_INCLUDED", "pages_of", "render_pages", "write_html"]
