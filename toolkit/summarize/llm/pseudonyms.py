"""Pseudonymisation before an external endpoint (``MLENS_LLM_PSEUDONYMISE``, opt-in).

What is sent carries stable placeholders instead of who and how to reach them, in every
text of the request (messages, authors, forwards, titles):

- **people**: every name the request can know, not only the window's senders: each
  sender of the whole source (``known_people``: a sender filter or a quiet period
  narrows the window, but its texts still name the others), forwarded-from names, the
  other side of a personal chat (its title), and a word a Slavic pack reads as a first
  name, surname or patronymic («Дмитрию»). Each name matches whole and by each of its
  words of three letters or more (a first name alone is the same person), in any case
  ("ALICE MOREAU", "alice"; a lower-case word that is also a common word, «вера»,
  "will", is left), and in every case form the language packs know («Борису»,
  «Бориса», «Олени»: ``LanguagePack.name_forms``): ``Person 417``;
- **titles**: the source's title and a forum's topic titles go whole (``Title 512``; a
  personal chat's title is its other person's ``Person``), so that no name in a title
  leaves, known or not ("Bob's farewell party"); a text that writes a whole title of two
  words or more gets its placeholder too;
- **handles**: ``@alice_m``, its link forms (``t.me/alice_m``, ``https://t.me/alice_m/12``,
  a ``text_link``'s target, ``tg://resolve?domain=alice_m``) and, once seen, the bare
  ``alice_m``: ``@user_233``;
- **phone numbers and e-mail addresses**, found as ``toolkit.summarize.personal`` finds
  them (``phonenumbers``, Google's libphonenumber, for phones): ``PHONE_871``,
  ``EMAIL_530``.

**Spoofing.** Text shaped like a placeholder ("Person 1", "person_2", "PHONE 2",
"@user_3", "EMAIL-4", "Title 5", with look-alike letters too) is neutralised before
anything is sent: it becomes its word and ``?`` ("Person ?"), so the model never reads a
number it could take for one of ours. The numbers issued start at a random offset per summary (three
digits), so a member cannot guess them either, and ``restore`` maps back only the
placeholders this summary issued: a "Person 1" the model writes on its own stays
"Person 1", never a member's name or number.

The same value gets the same placeholder in every chunk and merge of one summary. The
model's answer is mapped back (``restore``, whatever its shape: every string of it)
before it is cleaned: the reader sees the real names and handles; a phone number or
e-mail address mapped back is masked by the cleaning like any a model writes
(``personal``).
"""

from __future__ import annotations

import re
import secrets
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel

from toolkit.lang.base import NameHelper
from toolkit.models import Message, Source
from toolkit.store.base import MessageStore
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.llm.spellings import SOCIAL_RE, across, clean, fold, social_handle
from toolkit.summarize.personal import EMAIL_RE, phone_spans
from toolkit.text import STOP_WORDS

__all__ = ["Known", "Pseudonyms", "known_people", "neutralise", "phone_spans"]

MIN_NAME_PART = 3
"""Shorter words of a name ("Li", "de") are not matched alone (the whole name is)."""
MAX_NAME_WORDS = 6
"""Words of a name matched as one span at most."""
PARTICLES = frozenset(
    "van von der den del della des dos das les bin ibn abu ben mac mc san".split()  # noqa: SIM905
)
"""Words of names that are not the person (``Ludwig van Beethoven``)."""
PERSONAL_CHATS = frozenset({"personal_chat"})
"""Chat types whose title is the other person's name."""
OFFSETS = (100, 900)
"""Placeholder numbers of a summary start at a random number in this range."""

_HANDLE = r"[A-Za-z][A-Za-z0-9_]{3,31}"
_HANDLE_RE = re.compile(rf"(?<![\w@./])@{_HANDLE}\b")
_RESERVED_PATHS = frozenset(
    {"c", "s", "joinchat", "addstickers", "addemoji", "addtheme", "addlist", "share", "proxy"}
    | {"socks", "iv", "setlanguage", "login", "confirmphone", "invoice", "boost", "contact", "bg"}
)
"""Link paths of the messenger's own pages, not handles (``t.me/joinchat/…``)."""
_LINK_RE = re.compile(
    rf"(?:https?://)?(?:www\.)?(?:t|telegram)\.(?:me|dog)/(?:s/)?@?(?P<a>{_HANDLE})(?![\w])"
    r"(?:[/?#][^\s<>()\"']*)?"
    rf"|tg://resolve\?(?:[^\s<>()\"']*&)?domain=(?P<b>{_HANDLE})(?![\w])[^\s<>()\"']*"
    rf"|(?:https?://)?(?<![\w.])(?P<c>{_HANDLE})\.t\.me\b(?:/[^\s<>()\"']*)?",
    re.IGNORECASE,
)
_TOKEN_RE = re.compile(r"[^\W\d_]+(?:['’ʼ-][^\W\d_]+)*")
_PART_RE = re.compile(r"[^\W\d_]+")
_ID_TOKEN_RE = re.compile(r"\w+")
_WORDS_RE = re.compile(r"[^\W\d_]+(?:['’ʼ][^\W\d_]+)*")
_POSSESSIVE = re.compile(r"['’ʼ]s$", re.IGNORECASE)

# Look-alike letters (Cyrillic, Greek, full-width) a spoof may use for Latin ones.
_CONFUSABLE = {
    "a": "aаɑαＡａ",
    "c": "cсϲＣｃ",
    "e": "eеεЕＥｅ",
    "h": "hһＨｈ",
    "i": "iіІɪιＩｉ1l|",
    "l": "lӏІ1|Ｌｌ",
    "m": "mмＭｍ",
    "n": "nпηＮｎ",
    "o": "oоοσ0Ｏｏ",
    "p": "pрρＰｐ",
    "r": "rгＲｒ",
    "s": "sѕＳｓ",
    "u": "uυսＵｕ",
    "t": "tтτＴｔ",
}


def _loose(word: str) -> str:
    """A pattern of ``word`` that also matches its look-alike spellings, in any case."""
    return "".join(f"[{re.escape(_CONFUSABLE.get(ch, ch))}]" for ch in word)


_SEP = r"[\s_\-#№.:=]*"
_LETTERS_RE = re.compile(r"[^\w-]|_")
_SPOOF_RE = re.compile(
    rf"(?<![^\W\d_])(?P<word>@?\s*{_loose('user')}|{_loose('person')}|{_loose('phone')}"
    rf"|{_loose('e')}[\s_-]?{_loose('mail')}|{_loose('title')}){_SEP}(?P<n>\d+)(?!\d)",
    re.IGNORECASE,
)
_ISSUED_RE = re.compile(
    r"(?<![^\W\d_])(?:(?P<person>Person)[ _\u00a0]?|(?P<title>Title)[ _\u00a0]?"
    r"|(?P<handle>@user_)|(?P<phone>PHONE_)"
    r"|(?P<email>EMAIL_))(?P<n>\d+)(?!\d)",
    re.IGNORECASE,
)
_SHAPES = {
    "name": "Person {n}",
    "title": "Title {n}",
    "handle": "@user_{n}",
    "phone": "PHONE_{n}",
    "email": "EMAIL_{n}",
}


def neutralise(text: str) -> str:
    """``text`` with every placeholder-shaped span written as its word and ``?`` ("Person 1
    stole it, call PHONE_2, ask @user_3" → "Person ? stole it, call PHONE ?, ask user ?"):
    no number the model could take for a placeholder's, no handle."""
    if not text:
        return text
    return _SPOOF_RE.sub(lambda m: _LETTERS_RE.sub("", m.group("word")) + " ?", text)


def _key(word: str) -> str:
    """The form a name word is looked up by: case, ``ё``, apostrophes and diacritics
    folded (``spellings.fold``)."""
    return fold(word)


PLACEHOLDER_WORDS = frozenset({"person", "title", "user", "phone", "email", "mail"})
"""Words of the placeholders: never a name word (a forward from "Secret Source Person"
must not make a member's "Person 1" that source's name)."""
_VOCATIVE_BEFORE = re.compile(r"(?:^|[,.!?;:\n(—–-])\s*$")
_VOCATIVE_AFTER = re.compile(r"^\s*(?:$|[,.!?;:)\n—–-])")


def _opening(text: str, start: int) -> bool:
    """Whether the word at ``start`` opens a sentence (or a quotation, a clause after a
    colon): a capitalised everyday word there ("Will you come?") is no name."""
    before = text[:start].rstrip()
    return not before or before[-1] in '.!?…:;«“„"([\n—–-'


def _acts(text: str, tokens: Sequence[_Token], i: int) -> bool:
    """Whether token ``i`` is followed, across white space only, by a lower-case word that
    is no stop word: "Will said", "Don asked" (a subject and its verb), where "Will you",
    "May I" or "Don't" ask or negate. Masking an everyday word costs the model a word (it
    is restored in the answer); a name that leaves is not taken back."""
    if i + 1 >= len(tokens):
        return False
    after = tokens[i + 1]
    gap = text[tokens[i].end : after.start]
    word = after.word
    return gap.isspace() and word[:1].islower() and _key(word) not in STOP_WORDS


def _vocative(text: str, start: int, end: int) -> bool:
    """Whether the word at ``start:end`` stands alone between punctuation ("вера, ты
    придёшь?", "thanks, will!"): someone addressed, not the everyday word."""
    return bool(_VOCATIVE_BEFORE.search(text[:start]) and _VOCATIVE_AFTER.search(text[end:]))


@lru_cache(maxsize=1)
def _name_packs() -> tuple[NameHelper, ...]:
    """The packs' name helpers (``LanguagePack.name_forms``), where a pack has them: the
    languages whose names change form."""
    from toolkit.lang import packs

    return tuple(p.name_forms for p in packs() if p.name_forms is not None)


def _cyrillic(word: str) -> bool:
    return any("\u0400" <= ch <= "\u04ff" for ch in word)


def _forms(word: str) -> set[str]:
    """The forms of a name word a text may write, lower case (itself among them)."""
    forms = {word.lower()}
    if _cyrillic(word):
        for pack in _name_packs():
            forms |= pack.forms(word)
    return forms


@lru_cache(maxsize=65536)
def _common(form: str) -> bool:
    """Whether the lower-case ``form`` is also an everyday word, left as it is when a
    text writes it in lower case ("will", «вера», «роман»)."""
    if form in STOP_WORDS:
        return True
    if _cyrillic(form):
        packs = _name_packs()
        named = any(pack.lemma(form) is not None for pack in packs)
        return not named and any(pack.everyday(form) for pack in packs)
    from toolkit.lang import find

    book = find("en")
    return book is not None and (form in book.chatter_words or form in book.filler_words)


def _dictionary_name(word: str) -> str | None:
    """The lemma of a capitalised Cyrillic word a pack reads first as a name («Дмитрию»
    → «дмитрий»), else ``None``."""
    if not (word[:1].isupper() and _cyrillic(word)) or len(word) < MIN_NAME_PART:
        return None
    for pack in _name_packs():
        lemma = pack.lemma(word)
        if lemma is not None:
            return _key(lemma)
    return None


@dataclass(frozen=True)
class Known:
    """The people a request can name beyond its messages' senders."""

    names: frozenset[str] = frozenset()
    """Display names (senders, forwarded-from, a personal chat's other side)."""
    ids: frozenset[str] = frozenset()
    """Sender peer ids (``user123``): an author without a name is known by it."""
    forwards: frozenset[str] = frozenset()
    """Forwarded-from names that no member signs with: matched whole only."""


_known_cache: weakref.WeakKeyDictionary[MessageStore, dict[tuple[int, int], Known]] = (
    weakref.WeakKeyDictionary()
)
_known_lock = threading.Lock()
KNOWN_CACHE_SIZE = 64
"""Sources whose people one store keeps in memory."""


def known_people(store: MessageStore, source: Source) -> Known:
    """Every sender of ``source`` (names, peer ids, forwarded-from names) and, for a
    personal chat, its title (the other person's name). Read once per source and
    version of its messages (``source_generation``), then kept in memory."""
    key = (source.id, store.source_generation(source.id))
    with _known_lock:
        cached = _known_cache.get(store, {}).get(key)
    if cached is not None:
        return _with_title(cached, source)
    names: set[str] = set()
    ids: set[str] = set()
    forwards: set[str] = set()
    for message in store.iter_messages(source.id, batch_size=5000):
        if message.sender_name and message.sender_name.strip():
            names.add(message.sender_name.strip())
        if message.forwarded_from and message.forwarded_from.strip():
            forwards.add(message.forwarded_from.strip())
        if message.sender_peer_id:
            ids.add(message.sender_peer_id)
    known = Known(frozenset(names), frozenset(ids), frozenset(forwards - names))
    with _known_lock:
        entries = _known_cache.setdefault(store, {})
        for old in [k for k in entries if k[0] == source.id]:
            del entries[old]  # an older version of this source's people
        if len(entries) >= KNOWN_CACHE_SIZE:
            entries.pop(next(iter(entries)))
        entries[key] = known
    return _with_title(known, source)


def _with_title(known: Known, source: Source) -> Known:
    if source.chat_type in PERSONAL_CHATS and source.title.strip():
        return replace(known, names=known.names | {source.title.strip()})
    return known


@dataclass
class _Form:
    placeholder: str
    short: bool = False
    """A whole name of fewer than three letters: never matched in lower case."""
    _common: bool | None = None

    def common(self, form: str) -> bool:
        """Whether the lower-case ``form`` is also an everyday word (asked once)."""
        if self._common is None:
            self._common = self.short or _common(form)
        return self._common


M = TypeVar("M", bound=BaseModel)


@dataclass
class Pseudonyms:
    """The placeholders of one summary, and the way back.

    Build it with ``for_messages``; ``messages`` and ``context`` give what is sent,
    ``restore`` maps an answer back.
    """

    values: dict[str, str] = field(default_factory=dict)
    """Each placeholder issued (case-folded) to the value a reader sees."""
    _offsets: dict[str, int] = field(default_factory=dict)
    _counts: dict[str, int] = field(default_factory=dict)
    _seen: dict[tuple[str, str], str] = field(default_factory=dict)
    _forms: dict[str, _Form] = field(default_factory=dict)
    _full: dict[tuple[str, ...], str] = field(default_factory=dict)
    _ids: dict[str, str] = field(default_factory=dict)
    _handles: dict[str, str] = field(default_factory=dict)
    _across: dict[str, str] = field(default_factory=dict)
    _stops: dict[str, str] = field(default_factory=dict)
    """Name words that are stop words too ("Will" of "Will Hartley"): matched capitalised
    inside a sentence, or where they address someone."""
    _longest: int = 1

    def __post_init__(self) -> None:
        low, high = OFFSETS
        for kind in _SHAPES:
            self._offsets.setdefault(kind, low + secrets.randbelow(high - low))

    @classmethod
    def for_messages(
        cls,
        messages: Sequence[Message],
        *,
        known: Known | None = None,
        ctx: SummaryContext | None = None,
    ) -> Pseudonyms:
        """The pseudonyms of ``messages``' senders (and forwarded-from names), of the
        ``known`` people of their source, and of the handles any text of the request
        (``ctx``'s titles too) writes."""
        pseudonyms = cls()
        for message in messages:
            author = message.sender_name or message.sender_peer_id
            if author and author.strip():
                placeholder = pseudonyms._add_name(author.strip())
                if message.sender_peer_id:
                    pseudonyms._ids.setdefault(_key(message.sender_peer_id), placeholder)
            if message.forwarded_from and message.forwarded_from.strip():
                pseudonyms._add_name(message.forwarded_from.strip(), whole=True)
        if known is not None:
            for name in sorted(known.names):
                pseudonyms._add_name(name)
            for name in sorted(known.forwards):
                pseudonyms._add_name(name, whole=True)
            for peer in sorted(known.ids):
                if _key(peer) not in pseudonyms._ids:
                    pseudonyms._ids[_key(peer)] = pseudonyms._placeholder("name", peer)
        texts = [m.text for m in messages]
        if ctx is not None:
            titles = [ctx.title, ctx.topic or "", *(t for _, t in ctx.topics)]
            for title in titles:
                pseudonyms.title(title)  # issued now: a text that writes one gets it too
            texts += titles
        pseudonyms._learn_handles(texts)
        return pseudonyms

    # -- issuing ------------------------------------------------------------------

    def _placeholder(self, kind: str, value: str) -> str:
        key = (kind, _key(clean(value)))
        if key not in self._seen:
            n = self._counts[kind] = self._counts.get(kind, 0) + 1
            placeholder = _SHAPES[kind].format(n=self._offsets[kind] + n - 1)
            self._seen[key] = placeholder
            self.values[placeholder.casefold()] = value
        return self._seen[key]

    def _add_name(self, name: str, *, whole: bool = False) -> str:
        """Register a display name (whole, by its words, in their forms, and across
        scripts); its placeholder. With ``whole`` (a forward's source), a name of
        several words is matched only whole."""
        placeholder = self._placeholder("name", name)
        words = _WORDS_RE.findall(clean(name))
        if words:
            key = tuple(_key(_POSSESSIVE.sub("", w)) for w in words)
            self._full.setdefault(key, placeholder)
            self._longest = max(self._longest, min(len(key), MAX_NAME_WORDS))
        if whole and len(words) > 1:
            return placeholder
        whole = len(words) == 1
        cased = any(w[:1].isupper() for w in words)
        for word in words:
            word = _POSSESSIVE.sub("", word)
            folded = _key(word)
            if folded in PARTICLES or folded in PLACEHOLDER_WORDS:
                continue
            if folded in STOP_WORDS:
                if word[:1].isupper() and len(word) >= MIN_NAME_PART:
                    self._stops.setdefault(folded, placeholder)
                continue
            if len(word) < MIN_NAME_PART and not whole:
                continue
            if cased and not word[:1].isupper():
                continue  # "notes" of "Dmitry Volkov's notes" is no one's name
            far = across(word)
            if far is not None:
                self._across.setdefault(far, placeholder)
            for form in _forms(word):
                # The first sender keeps a shared word ("Alice" of two Alices).
                self._forms.setdefault(_key(form), _Form(placeholder, len(word) < MIN_NAME_PART))
        if not words:  # a name of no letters ("🦊", "42"): matched as an id token
            self._ids.setdefault(_key(name), placeholder)
        return placeholder

    def _learn_handles(self, texts: Iterable[str]) -> None:
        """The handles the texts write (``@alice_m``, ``t.me/alice_m``): their bare form
        is replaced too, where it cannot be an ordinary word (it has ``_`` or a digit)."""
        for text in texts:
            if not text:
                continue
            text = neutralise(text)  # a spoofed "@user_1" is no handle
            found = [m.group(0)[1:] for m in _HANDLE_RE.finditer(text)]
            found += [self._link_handle(m) for m in _LINK_RE.finditer(text)]
            found += [social_handle(m) or "" for m in SOCIAL_RE.finditer(text)]
            for handle in found:
                if handle and ("_" in handle or any(ch.isdigit() for ch in handle)):
                    placeholder = self._placeholder("handle", "@" + handle)
                    self._handles.setdefault(_key(handle), placeholder)

    @staticmethod
    def _link_handle(match: re.Match[str]) -> str:
        handle = match.group("a") or match.group("b") or match.group("c") or ""
        return "" if handle.lower() in _RESERVED_PATHS else handle

    # -- replacing ----------------------------------------------------------------

    def text(self, text: str) -> str:
        """``text`` neutralised (``neutralise``), with e-mail addresses, handles and their
        links, phone numbers, peer ids and names replaced by placeholders."""
        if not text:
            return text
        text = neutralise(clean(text))
        text = EMAIL_RE.sub(lambda m: self._placeholder("email", m.group(0)), text)
        text = _HANDLE_RE.sub(lambda m: self._placeholder("handle", m.group(0)), text)
        text = _LINK_RE.sub(self._link, text)
        text = SOCIAL_RE.sub(self._social, text)
        for start, end in reversed(phone_spans(text)):
            text = text[:start] + self._placeholder("phone", text[start:end]) + text[end:]
        text = self._tokens(text)
        return self._names(text)

    def _link(self, match: re.Match[str]) -> str:
        handle = self._link_handle(match)
        if not handle:
            return match.group(0)
        return self._placeholder("handle", "@" + handle)

    def _social(self, match: re.Match[str]) -> str:
        """A profile link of another platform: one placeholder for the whole link (the
        reader gets the link back)."""
        if social_handle(match) is None:
            return match.group(0)
        return self._placeholder("handle", match.group(0))

    def _tokens(self, text: str) -> str:
        """Peer ids, nameless authors and bare handles, as whole ``\\w+`` tokens."""
        if not (self._ids or self._handles):
            return text
        protected = _spans(text)

        def swap(match: re.Match[str]) -> str:
            if _inside(match.span(), protected):
                return match.group(0)
            key = _key(match.group(0))
            return self._ids.get(key) or self._handles.get(key) or match.group(0)

        return _ID_TOKEN_RE.sub(swap, text)

    def _lookup(
        self, word: str, *, addressed: bool = False, opening: bool = True, acts: bool = False
    ) -> str | None:
        """The placeholder of a name word (``addressed``: it stands alone between
        punctuation, so a member's name that is also a word is the member; ``opening``:
        it opens a sentence; ``acts``: a lower-case word that is no stop word follows it,
        "Will said…" rather than "Will you…", so at an opening it is the member too)."""
        key = _key(word)
        form = self._forms.get(key)
        if form is not None:
            if word.islower() and form.common(key) and not addressed:
                return None
            return form.placeholder
        stop = self._stops.get(key)
        if stop is not None:
            cased = word[:1].isupper()
            return stop if addressed or (cased and (not opening or acts)) else None
        if word[:1].isupper() and (far := across(word)) is not None and far in self._across:
            return self._across[far]  # "Dmitry" of «Дмитрий», «Алисе» of "Alisa"
        lemma = _dictionary_name(word)
        if lemma is None:
            return None
        placeholder = self._placeholder("name", lemma.capitalize())
        for other in _forms(lemma):
            self._forms.setdefault(_key(other), _Form(placeholder))
        return placeholder

    def _names(self, text: str) -> str:
        protected = _spans(text)
        tokens = [
            _Token(m.start(), m.end(), m.group(0))
            for m in _TOKEN_RE.finditer(text)
            if not _inside(m.span(), protected)
        ]
        edits: list[tuple[int, int, str]] = []
        i = 0
        while i < len(tokens):
            run = self._full_name(text, tokens, i)
            if run is not None:
                k, placeholder = run
                edits.append((tokens[i].start, tokens[i + k - 1].stem_end, placeholder))
                i += k
                continue
            token = tokens[i]
            found = self._lookup(
                token.stem,
                addressed=_vocative(text, token.start, token.end),
                opening=not self._stops or _opening(text, token.start),
                acts=bool(self._stops) and _acts(text, tokens, i),
            )
            if found is None:
                edits.extend(self._parts(token))
                i += 1
                continue
            end = i + 1  # the following words of the same person: one placeholder
            while (
                end < len(tokens)
                and _joined(text, tokens[end - 1], tokens[end])
                and self._lookup(tokens[end].stem) == found
            ):
                end += 1
            edits.append((token.start, tokens[end - 1].stem_end, found))
            i = end
        for start, end, placeholder in reversed(edits):
            text = text[:start] + placeholder + text[end:]
        return text

    def _full_name(self, text: str, tokens: Sequence[_Token], i: int) -> tuple[int, str] | None:
        """A whole multi-word name starting at token ``i``: its length and placeholder."""
        for k in range(min(self._longest, len(tokens) - i), 1, -1):
            if all(_joined(text, tokens[j], tokens[j + 1]) for j in range(i, i + k - 1)):
                key = tuple(_key(t.stem) for t in tokens[i : i + k])
                if key in self._full:
                    return k, self._full[key]
        return None

    def _parts(self, token: _Token) -> list[tuple[int, int, str]]:
        """A word with an apostrophe or hyphen ("Moreau-Lindqvist", "O'Brien-Smith"): its
        parts that are names."""
        if not any(ch in token.stem for ch in "'’ʼ-"):
            return []
        edits = []
        for part in _PART_RE.finditer(token.stem):
            placeholder = self._lookup(part.group(0))
            if placeholder is not None:
                start = token.start
                edits.append((start + part.start(), start + part.end(), placeholder))
        return edits

    def _author(self, name: str | None) -> str | None:
        if not name or not name.strip():
            return None
        return self._placeholder("name", name.strip())

    def messages(self, messages: Iterable[Message]) -> list[Message]:
        """The messages as they are sent: text, sender name and forward pseudonymised."""
        return [
            replace(
                m,
                text=self.text(m.text),
                sender_name=self._author(m.sender_name or m.sender_peer_id),
                # The peer id names the account (``user_alice``): the placeholder
                # stands in for it.
                sender_peer_id=None,
                forwarded_from=self._author(m.forwarded_from),
            )
            for m in messages
        ]

    def context(self, ctx: SummaryContext) -> SummaryContext:
        """The request's title, topic title and forum topic titles, each as a whole: a
        personal chat's title is its other person's placeholder, any other title one of
        its own (``Title 512``), so that no name in a title leaves, known or not."""
        return replace(
            ctx,
            title=self.title(ctx.title),
            topic=self.title(ctx.topic) if ctx.topic is not None else None,
            topics=tuple((i, self.title(t)) for i, t in ctx.topics),
        )

    def title(self, title: str) -> str:
        """A title's placeholder: the person's when it is a person's name, else its own;
        a text that writes the whole title (of two words or more) gets it too."""
        if not title.strip():
            return title
        words = _WORDS_RE.findall(title)
        key = tuple(_key(_POSSESSIVE.sub("", w)) for w in words)
        if key in self._full and self._full[key].startswith("Person"):
            return self._full[key]
        placeholder = self._placeholder("title", title.strip())
        if len(words) >= 2:
            self._full.setdefault(key, placeholder)
            self._longest = max(self._longest, min(len(key), MAX_NAME_WORDS))
        return placeholder

    # -- restoring ----------------------------------------------------------------

    def restore_text(self, text: str) -> str:
        """``text`` with every placeholder this summary issued mapped back; any other
        placeholder-shaped text stays as it is."""

        def back(match: re.Match[str]) -> str:
            kind = next(
                k for k in ("person", "title", "handle", "phone", "email") if match.group(k)
            )
            shape = _SHAPES["name" if kind == "person" else kind]
            issued = shape.format(n=int(match.group("n"))).casefold()
            return self.values.get(issued, match.group(0))

        return _ISSUED_RE.sub(back, text) if text else text

    def restore(self, answer: M) -> M:
        """The answer (any pydantic model) with the real names, handles, numbers and
        addresses back in each of its strings."""
        return type(answer).model_validate(_map_strings(answer.model_dump(), self.restore_text))


def _map_strings(value: Any, fix: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fix(value)
    if isinstance(value, dict):
        return {k: _map_strings(v, fix) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_map_strings(v, fix) for v in value)
    return value


def _spans(text: str) -> list[tuple[int, int]]:
    """Where the placeholders already in ``text`` are (no name is looked for inside)."""
    return [m.span() for m in _ISSUED_RE.finditer(text)]


def _inside(span: tuple[int, int], protected: Sequence[tuple[int, int]]) -> bool:
    start, end = span
    return any(start < b and a < end for a, b in protected)


@dataclass(frozen=True)
class _Token:
    """A word of a text; ``stem`` is it without an English possessive ("Zhang's")."""

    start: int
    end: int
    word: str

    @property
    def stem(self) -> str:
        return _POSSESSIVE.sub("", self.word)

    @property
    def stem_end(self) -> int:
        return self.start + len(self.stem)


def _joined(text: str, left: _Token, right: _Token) -> bool:
    """Whether two words stand side by side, with only spaces between them (a possessive
    ends a name: "Carol's Zhang" is two)."""
    gap = text[left.end : right.start]
    return left.stem == left.word and bool(gap) and gap.isspace() and "\n" not in gap
