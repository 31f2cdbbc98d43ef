"""The Atom feed destination: each run's digest becomes an entry of the schedule's feed,
served at ``/v1/schedules/{id}/feed.atom`` (RFC 4287, written with ``xml.etree``).

Delivering to a feed sends nothing: the digest is already kept in its run, and the
feed lists the runs whose feed delivery is recorded, newest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from xml.etree import ElementTree as ET

from toolkit.delivery.digest import Digest, Post
from toolkit.delivery.render import html_body, plain_text
from toolkit.models import iso_z

ATOM = "http://www.w3.org/2005/Atom"
MAX_ENTRIES = 50


class FeedAdapter:
    """Puts a digest in its schedule's feed (the run already holds it)."""

    def deliver(self, digest: Post) -> str:
        """Nothing to send: the feed shows the run from now on."""
        return "in the feed"


def atom_feed(
    *,
    feed_id: str,
    title: str,
    self_url: str,
    digests: Sequence[tuple[Digest, datetime]],
    updated: datetime,
) -> bytes:
    """An Atom document of ``digests`` (each with when it was delivered), newest first.

    Args:
        feed_id: the feed's permanent id (a URN).
        title: the feed's title.
        self_url: where the feed is served.
        digests: the entries, newest first (at most ``MAX_ENTRIES`` are kept).
        updated: when the feed last changed (its newest entry, or the schedule's creation).
    """
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    _text(feed, "id", feed_id)
    _text(feed, "title", title)
    _text(feed, "updated", iso_z(updated))
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="self", href=self_url)
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    _text(author, "name", "Message Lens")
    _text(feed, "generator", "Message Lens")
    for digest, delivered in list(digests)[:MAX_ENTRIES]:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        _text(entry, "id", f"{feed_id}:run:{digest.run_id}")
        _text(entry, "title", digest.title())
        _text(entry, "updated", iso_z(delivered))
        _text(entry, "published", iso_z(delivered))
        _text(entry, "summary", plain_text(digest)[:1000])
        content = ET.SubElement(entry, f"{{{ATOM}}}content", type="html")
        content.text = html_body(digest)
    document: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return document


def _text(parent: ET.Element, tag: str, text: str) -> None:
    ET.SubElement(parent, f"{{{ATOM}}}{tag}").text = text
