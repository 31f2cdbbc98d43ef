"""Every message block of an HTML page, wherever the markup nests it, and what was not read.

A real export is not always well formed: Telegram Desktop leaves a message's ``div``
unclosed after its inline bot buttons (``bot_buttons_table``), so every later message of
the page nests inside it; a hostile page nests tags beyond libxml2's depth limit or
closes the history early (``</div></body></html>``). So a page is read this way:

- parsed with libxml2's limits lifted (``huge_tree``: 2,048 levels, big text nodes);
- its message blocks are the history's children when they are all there (the usual,
  fastest case), else every ``div.message`` wherever it nests, in document order;
- the ``id="message…"`` attributes in the page's bytes are counted (``Tally.seen``): a
  block the tree lacks (the parser stopped at a resource limit, or swallowed it in a
  raw-text element) is read again from its own start tag, and what still cannot be read
  is named (``Unread``: page line, ids, the ids read around it), never dropped silently;
- the parser's fatal errors are kept (``Tally.problems``) with their line.

A page over ``MAX_PAGE_BYTES`` is streamed (``streamed_blocks``): a block is given when
the next block starts inside it (its own parts are then complete) or when it ends, so
nesting keeps document order and each block is freed once read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from lxml import etree

Header = Callable[[Any], None]
"""Called with the page's ``div.page_header`` (the chat's title is in it)."""

_ID_ATTR = b'id="message'
_BLOCK_ID = re.compile(rb'\bid="message(-?\d+)"')
_CUT = "cut off where the page ends"
"""Why a block whose id the page's last bytes cut could not be read."""
_ANY_MESSAGE = etree.XPath(
    "//div[contains(concat(' ', normalize-space(@class), ' '), ' message ')]"
)
_HEADER = ".//div[@class='page_header']"
"""The page's header: ``find`` stops at the first (an XPath ``//`` would visit every
element of the page, a tenth of its parse time)."""
_MAX_REREADS = 32
"""Re-parses of one page from an unread block on (each reads the rest of the page)."""


@dataclass(frozen=True, slots=True)
class Unread:
    """A run of message blocks of one page that could not be read."""

    line: int
    """The page's line of the run's first block (0: not known, a streamed page)."""
    count: int
    ids: tuple[int, ...] = ()
    """Their ids (empty: not known, a streamed page)."""
    before: int | None = None
    """The id of the last block read before the run (``None``: the run opens the page)."""
    after: int | None = None
    """The id of the first block read after the run (``None``: the run ends the page)."""
    reason: str = ""
    """Why a block the parser gave could not be read (empty: the parser never gave it)."""

    def describe(self) -> str:
        """``3 message blocks (ids 7, 8, 9) at line 120, after message id 6``."""
        noun = "message block" if self.count == 1 else "message blocks"
        shown = ", ".join(str(i) for i in self.ids[:10]) + (", …" if len(self.ids) > 10 else "")
        where = [f"at line {self.line}"] if self.line else []
        if self.before is not None:
            where.append(f"after message id {self.before}")
        if self.after is not None:
            where.append(f"before message id {self.after}")
        ids = f" (id{'s' if len(self.ids) > 1 else ''} {shown})" if shown else ""
        why = f": {self.reason}" if self.reason else ""
        return f"{self.count} {noun}{ids} {', '.join(where)}".rstrip() + why


@dataclass
class Tally:
    """A page's message blocks as its bytes hold them, against what was read of them."""

    seen: int = 0
    """``id="message…"`` attributes in the page's bytes: its message blocks."""
    unread: list[Unread] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """The parser's fatal errors, each with its line and the block it cut."""

    def unreadable(self, el: Any, reason: str) -> None:
        """Name a block the parser gave that could not be read (no id, no date …)."""
        ident = _number(el.get("id"))
        self.unread.append(
            Unread(
                line=el.sourceline or 0,
                count=1,
                ids=() if ident is None else (ident,),
                reason=reason,
            )
        )

    @property
    def unread_count(self) -> int:
        """How many blocks of the page could not be read."""
        return sum(u.count for u in self.unread)


def is_block(el: Any) -> bool:
    """Whether ``el`` is a message block (``div.message``), wherever it is."""
    cls = el.get("class")
    return el.tag == "div" and cls is not None and "message" in cls.split()


def _parser() -> etree.HTMLParser:
    # One parser per page: its error log is the page's, and no parser is shared by threads.
    return etree.HTMLParser(encoding="utf-8", collect_ids=False, huge_tree=True)


def _blocks_in(root: Any) -> list[tuple[Any, str]]:
    return [(el, el.get("class")) for el in _ANY_MESSAGE(root)]


def _history_blocks(root: Any) -> list[tuple[Any, str]] | None:
    history = root.find(".//div[@class='history']")
    if history is None:
        return None
    out = []
    for el in history.iterchildren("div"):  # the tag compared in C, not read into a str
        cls = el.get("class")
        if cls and "message" in cls.split():
            out.append((el, cls))
    return out


def _fatal(parser: etree.HTMLParser, blocks: list[tuple[Any, str]], tally: Tally) -> None:
    """Keep the parser's fatal errors, each with the block it happened in or after."""
    for error in parser.error_log:
        if error.level_name != "FATAL":
            continue
        cut = None
        for el, _ in blocks:
            line = el.sourceline
            if line is not None and line <= error.line:
                cut = el.get("id")
        where = f", in or after {cut}" if cut else ""
        tally.problems.append(f"line {error.line}{where}: {error.message.strip()}")


def whole_blocks(data: bytes, header: Header, tally: Tally) -> list[tuple[Any, str]]:
    """The message blocks of the page ``data`` (parsed whole), each with its class, in
    document order; what could not be read is added to ``tally``."""
    if not data or data.isspace():
        return []
    expected = data.count(_ID_ATTR)
    tally.seen += expected
    parser = _parser()
    root = etree.fromstring(data, parser)
    if root is None:
        blocks: list[tuple[Any, str]] = []
    else:
        found = root.find(_HEADER)
        if found is not None:
            header(found)
        history = _history_blocks(root)
        blocks = history if history is not None and len(history) == expected else _blocks_in(root)
    _fatal(parser, blocks, tally)
    if len(blocks) < expected:
        blocks = _reread(data, blocks, tally)
    cut = expected - len(blocks) - tally.unread_count
    if cut > 0:  # a page that ends inside a block's id ('id="message3'): no id to name
        last = blocks[-1][0].get("id") if blocks else None
        line = data.count(b"\n") + 1
        tally.unread.append(Unread(line=line, count=cut, before=_number(last), reason=_CUT))
    return blocks


def _reread(data: bytes, blocks: list[tuple[Any, str]], tally: Tally) -> list[tuple[Any, str]]:
    """``blocks`` with the page's unread blocks read again, each from its own start tag
    on; the ones that still cannot be read named in ``tally``."""
    read = Counter(el.get("id") for el, _ in blocks)
    places: list[tuple[int, str]] = []  # (byte offset, "message<id>") of each block
    missing: list[tuple[int, str]] = []
    for match in _BLOCK_ID.finditer(data):
        ident = "message" + match.group(1).decode()
        places.append((match.start(), ident))
        if read[ident] > 0:
            read[ident] -= 1
        else:
            missing.append((match.start(), ident))
    positioned = _positions(blocks, places)
    lost: list[tuple[int, str]] = []
    rereads = 0
    while missing:
        start, ident = missing[0]
        if rereads >= _MAX_REREADS:
            lost.extend(missing)
            break
        rereads += 1
        tag = data.rfind(b"<", 0, start)
        offset = max(tag, 0)
        fragment = etree.fromstring(data[offset:], _parser())
        wanted = Counter(i for _, i in missing)
        got = [] if fragment is None else _blocks_in(fragment)
        taken = 0
        for el, cls in got:
            name = el.get("id")
            if wanted[name] > 0:
                wanted[name] -= 1
                place = next(p for p, i in missing if i == name)
                missing.remove((place, name))
                positioned.append((place, el, cls))
                taken += name == ident
        if not taken and missing and missing[0] == (start, ident):
            lost.append(missing.pop(0))
    positioned.sort(key=lambda p: p[0])
    if lost:
        _name_lost(data, lost, positioned, tally)
    return [(el, cls) for _, el, cls in positioned]


def _positions(
    blocks: list[tuple[Any, str]], places: list[tuple[int, str]]
) -> list[tuple[int, Any, str]]:
    """Each read block with the byte offset of its id in the page (in document order)."""
    queue: dict[str, list[int]] = {}
    for place, ident in places:
        queue.setdefault(ident, []).append(place)
    out: list[tuple[int, Any, str]] = []
    for el, cls in blocks:
        offsets = queue.get(el.get("id") or "")
        place = offsets.pop(0) if offsets else (out[-1][0] if out else 0)
        out.append((place, el, cls))
    return out


def _number(ident: str | None) -> int | None:
    try:
        return int((ident or "")[len("message") :])
    except ValueError:
        return None


def _name_lost(
    data: bytes,
    lost: list[tuple[int, str]],
    read: list[tuple[int, Any, str]],
    tally: Tally,
) -> None:
    """Name the blocks that could not be read, run by run, with the ids read around."""
    lost.sort()
    runs: list[list[tuple[int, str]]] = []
    for item in lost:
        between = [p for p, _, _ in read if runs and runs[-1][-1][0] < p < item[0]]
        if runs and not between:
            runs[-1].append(item)
        else:
            runs.append([item])
    for run in runs:
        first, last = run[0][0], run[-1][0]
        before = [el.get("id") for p, el, _ in read if p < first]
        after = [el.get("id") for p, el, _ in read if p > last]
        ids = tuple(n for n in (_number(i) for _, i in run) if n is not None)
        tally.unread.append(
            Unread(
                line=data.count(b"\n", 0, first) + 1,
                count=len(run),
                ids=ids,
                before=_number(before[-1]) if before else None,
                after=_number(after[0]) if after else None,
            )
        )


class _Counting:
    """A page's stream that counts the ``id="message…"`` attributes of what is read."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._tail = b""
        self.seen = 0

    def read(self, size: int = -1) -> bytes:
        chunk = self._stream.read(size)
        if chunk:
            joined = self._tail + chunk
            # An attribute split between two reads is counted once, in the later one.
            self.seen += joined.count(_ID_ATTR) - self._tail.count(_ID_ATTR)
            self._tail = joined[-(len(_ID_ATTR) - 1) :]
        return chunk

    def drain(self) -> None:
        """Read (and count) the rest of the stream, after the parser stopped."""
        while self.read(1 << 20):
            pass


def streamed_blocks(stream: IO[bytes], header: Header, tally: Tally) -> Iterator[tuple[Any, str]]:
    """The message blocks of a page as libxml2 reads it, in document order, each with its
    class, each freed once read; a parser that stops early is said in ``tally``."""
    counting = _Counting(stream)
    events = etree.iterparse(
        counting,
        events=("start", "end"),
        tag="div",
        html=True,
        encoding="utf-8",
        collect_ids=False,
        huge_tree=True,
    )
    open_blocks: list[list[Any]] = []  # [element, class, given] of the blocks not ended
    given, last = 0, None
    try:
        for event, el in events:
            cls = el.get("class") or ""
            if "message" not in cls.split():
                if event == "end" and "page_header" in cls.split():
                    header(el)
                continue
            if event == "start":
                for entry in open_blocks:  # their own parts end before this block starts
                    if not entry[2]:
                        entry[2] = True
                        given, last = given + 1, entry[0].get("id")
                        yield entry[0], entry[1]
                open_blocks.append([el, cls, False])
                continue
            entry = open_blocks.pop() if open_blocks else [el, cls, True]
            if not entry[2]:
                given, last = given + 1, el.get("id")
                yield el, cls
            # Freed with what precedes it: a block around it was given when it started.
            el.clear(keep_tail=False)
            parent = el.getparent()
            while parent is not None and el.getprevious() is not None:
                del parent[0]
    except etree.XMLSyntaxError as exc:
        tally.problems.append(f"line {exc.lineno}: {exc.msg}")
    counting.drain()
    tally.seen += counting.seen
    if counting.seen > given:
        # A streamed page is not read again: its unread blocks are counted, not named.
        tally.unread.append(Unread(line=0, count=counting.seen - given, before=_number(last)))
