"""Citations: every statement the engine writes names the messages it rests on.

``Citer`` writes a message's quote and its link (built in code from the id; a chat
without message links gets no link and no brackets) and records each message it
cites, so that ``important_messenger_message_ids`` are exactly the messages the text
rests on. A quote of a message in another language than the requested one is short
(``FOREIGN_QUOTE_CHARS``): the sentence around it describes, in the requested language.
A quote never copies an e-mail address or a phone number: each becomes the requested
language's mark ("[e-mail]", "[телефон]") before the quote is cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from toolkit.models import SourceKind
from toolkit.summarize.extractive.choose.acts import is_chatter, question_sentence
from toolkit.summarize.extractive.draft.draft import Draft, author
from toolkit.summarize.extractive.draft.keys import LINE_VOCABULARY
from toolkit.summarize.extractive.draft.quotes import (
    ELLIPSIS,
    asked_end,
    one_line,
    passage,
    quotable,
)
from toolkit.summarize.period_wording import split_sentences
from toolkit.summarize.personal import marks_for, mask

QUOTE_CHARS = 160
SMILEY_RE = re.compile(r"[:;=]-?[()DPp]+")
FOREIGN_QUOTE_CHARS = 90


@dataclass
class Citer:
    """Quotes, names and links of one summary's messages, and the messages cited."""

    draft: Draft
    link: Callable[[int], str]
    cited: list[int] = field(default_factory=list)
    vocabulary_share: float = LINE_VOCABULARY
    """How much a sentence's share of the window's vocabulary weighs beside its key
    probability when a long message is quoted in part (``keys.key_weigher``)."""

    def name(self, i: int) -> str:
        """Who wrote message ``i`` (a channel: the channel), in the requested script; a
        forward names whose words they are ("Olga (forwarding Ivan)"): the forwarder
        did not write them."""
        book = self.draft.book
        if self.draft.ctx.kind is SourceKind.CHANNEL:
            who = book.say("channel_subject", title=book.quote(self.draft.ctx.title))
        else:
            who = book.name(author(self.draft.messages[i]))
        origin = (self.draft.messages[i].forwarded_from or "").strip()
        if origin:
            return book.say("forwarded_subject", who=who, origin=book.name(origin))
        return who

    def text(self, i: int, limit: int = QUOTE_CHARS) -> str:
        """The part of message ``i`` worth quoting (shorter when it is foreign)."""
        if self.draft.foreign(i):
            limit = min(limit, FOREIGN_QUOTE_CHARS)
        book = self.draft.book
        text = book.marked(mask(self.draft.texts[i], marks_for(book.code)))
        weigh = self.draft.weigher(i, text, self.vocabulary_share)
        return passage(text, limit, weigh, self.draft.leaning(i))

    def clip(self, i: int, text: str, limit: int = QUOTE_CHARS, *, asks: bool = False) -> str:
        """``text`` (a part of message ``i``: the sentence that carries its act) cut to a
        quote's length (shorter when the message is foreign), personal data masked first;
        a question (``asks``) keeps its asking end (``quotes.asked_end``)."""
        if self.draft.foreign(i):
            limit = min(limit, FOREIGN_QUOTE_CHARS)
        book = self.draft.book
        line = book.marked(mask(text, marks_for(book.code)))
        return asked_end(line, limit) if asks else quotable(line, limit)

    def question(self, i: int, limit: int = QUOTE_CHARS, *, alone: bool = False) -> str:
        """Message ``i``'s question in quotation marks: from its question sentence on when
        only chatter comes before it ("Hi all! I'm great :) Which site…?"), else (and
        when ``alone``) the question sentence itself, never a statement beside it ("X
        asks" quotes what X asks); the message's passage when no sentence asks."""
        text = self.draft.texts[i]
        asked = question_sentence(text, self.draft.packs[i])
        if asked is None:
            return self.quote(i, limit)
        whole = asked
        if not alone:
            start = text.find(asked)
            if start >= 0 and is_chatter(SMILEY_RE.sub(" ", text[:start])):
                asked = text[start:]
        return self.draft.book.quote(self.clip(i, asked, limit, asks=asked == whole))

    def said_before(self, i: int, limit: int = QUOTE_CHARS) -> str | None:
        """What message ``i`` says before its question ("My name is Ann. Which day…?"),
        in quotation marks, when it is more than chatter and it and the question fit in
        ``limit`` together: told as said, beside the question ("says … and asks …").
        ``None`` otherwise."""
        text = one_line(self.draft.texts[i])
        asked = question_sentence(text, self.draft.packs[i])
        start = text.find(asked) if asked is not None else -1
        before = text[:start].strip() if start > 0 else ""
        if not before or is_chatter(SMILEY_RE.sub(" ", before)):
            return None
        said = passage(before, limit)
        if said.endswith(ELLIPSIS) or len(said) + len(asked or "") > limit:
            return None
        return self.draft.book.quote(self.clip(i, said, limit))

    def carrying(self, i: int, holds: Callable[[str], bool], limit: int = QUOTE_CHARS) -> str:
        """The sentence of message ``i`` that carries its act (the first for which
        ``holds`` is true, with the one after it when they fit), in quotation marks; the
        message's passage when the message is one sentence or none holds."""
        text = one_line(self.draft.texts[i])
        sentences = [s.strip() for s in split_sentences(text) if s.strip()]
        found = next((k for k, s in enumerate(sentences) if holds(s)), None)
        if len(sentences) < 2 or found is None:
            return self.quote(i, limit)
        return self.draft.book.quote(self.clip(i, sentences[found], limit))

    def quote(self, i: int, limit: int = QUOTE_CHARS) -> str:
        """Message ``i``'s passage in the requested language's quotation marks."""
        return self.draft.book.quote(self.text(i, limit))

    def note(self, *indices: int) -> None:
        """Record messages a statement rests on (without a link in the text)."""
        for i in indices:
            if i not in self.cited:
                self.cited.append(i)

    def cite(self, *indices: int) -> str:
        """`` (link, link)`` for the messages, recorded as cited; ``""`` without links."""
        self.note(*indices)
        links = [self.link(self.draft.messages[i].messenger_message_id) for i in indices]
        links = [url for url in links if url]
        return f" ({', '.join(links)})" if links else ""
