"""Pseudonymisation before an external endpoint (``MLENS_LLM_PSEUDONYMISE``, opt-in).

What is sent carries stable placeholders instead of who and how to reach them:

- the senders' names, as the store has them (``sender_name``, else the peer id, and
  ``forwarded_from``), and each of their capitalised words of three letters or more (a
  first name alone in a text is the same person): ``Person 1``, ``Person 2`` …;
- @handles: ``@user_1`` …;
- phone numbers and e-mail addresses, found as ``toolkit.summarize.personal`` finds them
  (``phonenumbers``, Google's libphonenumber, for phones): ``PHONE_1`` …, ``EMAIL_1`` ….

The same value gets the same placeholder in every chunk and merge of one summary. The
model's answer is mapped back (``restore``) before it is cleaned: the reader sees the real
names and handles; a phone number or e-mail address mapped back is masked by the
cleaning like any a model writes (``personal``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from toolkit.models import Message
from toolkit.summarize.context import SummaryContext
from toolkit.summarize.llm.answer import LLMSummary
from toolkit.summarize.personal import EMAIL_RE, phone_spans

__all__ = ["Pseudonyms", "phone_spans"]

MIN_NAME_PART = 3
_HANDLE_RE = re.compile(r"(?<![\w@./])@[A-Za-z][A-Za-z0-9_]{3,31}\b")
_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*")
_PLACEHOLDER_RE = re.compile(
    r"\b(?P<kind>Person) (?P<n>\d+)\b|@user_(?P<h>\d+)\b|\b(?P<other>PHONE|EMAIL)_(?P<m>\d+)\b",
    re.IGNORECASE,
)


@dataclass
class Pseudonyms:
    """The placeholders of one summary, and the way back.

    Build it with ``for_messages``; ``messages`` and ``context`` give what is sent,
    ``restore`` maps an answer back.
    """

    names: dict[str, str] = field(default_factory=dict)
    """Each name (and name word) as it appears, to its placeholder."""
    values: dict[str, str] = field(default_factory=dict)
    """Each placeholder to the value a reader sees (a full name, a handle …)."""
    _counts: dict[str, int] = field(default_factory=dict)
    _seen: dict[tuple[str, str], str] = field(default_factory=dict)
    _name_re: re.Pattern[str] | None = None

    @classmethod
    def for_messages(cls, messages: Sequence[Message]) -> Pseudonyms:
        """The pseudonyms of the senders (and forwarded-from names) of ``messages``."""
        pseudonyms = cls()
        for message in messages:
            for name in (message.sender_name or message.sender_peer_id, message.forwarded_from):
                if name and name.strip():
                    pseudonyms._add_name(name.strip())
        pseudonyms._compile()
        return pseudonyms

    def _placeholder(self, kind: str, value: str) -> str:
        key = (kind, value.casefold())
        if key not in self._seen:
            n = self._counts[kind] = self._counts.get(kind, 0) + 1
            placeholder = {
                "name": f"Person {n}",
                "handle": f"@user_{n}",
                "phone": f"PHONE_{n}",
                "email": f"EMAIL_{n}",
            }[kind]
            self._seen[key] = placeholder
            self.values[placeholder.casefold()] = value
        return self._seen[key]

    def _add_name(self, name: str) -> None:
        placeholder = self._placeholder("name", name)
        self.names.setdefault(name, placeholder)
        for word in _WORD_RE.findall(name):
            if len(word) >= MIN_NAME_PART and word[0].isupper():
                self.names.setdefault(word, placeholder)  # the first sender keeps a shared word

    def _compile(self) -> None:
        if not self.names:
            self._name_re = None
            return
        alternatives = sorted(self.names, key=len, reverse=True)  # "Alice Moreau" before "Alice"
        self._name_re = re.compile(
            r"(?<![\w@])(?:" + "|".join(re.escape(n) for n in alternatives) + r")(?!\w)"
        )

    def text(self, text: str) -> str:
        """``text`` with e-mail addresses, phone numbers, handles and names replaced."""
        if not text:
            return text
        text = EMAIL_RE.sub(lambda m: self._placeholder("email", m.group(0)), text)
        for start, end in reversed(phone_spans(text)):
            text = text[:start] + self._placeholder("phone", text[start:end]) + text[end:]
        text = _HANDLE_RE.sub(lambda m: self._placeholder("handle", m.group(0)), text)
        if self._name_re is not None:
            text = self._name_re.sub(lambda m: self.names[m.group(0)], text)
        return text

    def messages(self, messages: Iterable[Message]) -> list[Message]:
        """The messages as they are sent: text, sender name and forward pseudonymised."""
        out = []
        for m in messages:
            author = m.sender_name or m.sender_peer_id
            out.append(
                replace(
                    m,
                    text=self.text(m.text),
                    sender_name=self.text(author) if author else None,
                    # The peer id names the account (``user_alice``): the placeholder
                    # stands in for it.
                    sender_peer_id=None,
                    forwarded_from=self.text(m.forwarded_from) if m.forwarded_from else None,
                )
            )
        return out

    def context(self, ctx: SummaryContext) -> SummaryContext:
        """The request's title, topic title and forum topic titles pseudonymised."""
        return replace(
            ctx,
            title=self.text(ctx.title),
            topic=self.text(ctx.topic) if ctx.topic is not None else None,
            topics=tuple((i, self.text(t)) for i, t in ctx.topics),
        )

    def restore_text(self, text: str) -> str:
        """``text`` with every placeholder of this summary mapped back (others kept)."""

        def back(match: re.Match[str]) -> str:
            return self.values.get(match.group(0).casefold(), match.group(0))

        return _PLACEHOLDER_RE.sub(back, text)

    def restore(self, answer: LLMSummary) -> LLMSummary:
        """The answer with the real names, handles, numbers and addresses back."""
        fix: Callable[[str], str] = self.restore_text
        return answer.map_texts(fix)  # the summary, each title, body and item
