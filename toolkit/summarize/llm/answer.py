"""The LLM's answer: its pydantic shape, parsing, and cleaning against the input.

The model returns ids only. Cleaning keeps the ids that were in the input (in order,
once each), makes every text plain text (``plaintext``: no markup, no entity, no
markdown link) and removes every URL and bare host the model wrote, even one copied
from a message: a message's text may carry a phishing link, and the model has no
business repeating it. E-mail addresses and phone numbers are masked
(``toolkit.summarize.personal``). Each text, and the answer, has a size bound. The links a
summary carries are message links added later, in code, for the ids the model cited.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    ValidationError,
    model_serializer,
    model_validator,
)

from toolkit.summarize.llm.plaintext import URL_ANYWHERE, cut, plain_text, without_loops
from toolkit.summarize.llm.prompts import FUNCTION_LISTS
from toolkit.summarize.personal import Marks, head_to_mask, mask
from toolkit.text import URL_RE  # noqa: F401 (re-exported: tests import it from here)


def _ids(value: Any) -> Any:
    # Models write ids as numbers as often as strings; both name the same message.
    if isinstance(value, int | str) and not isinstance(value, bool):
        value = [value]  # "ids": 12 is one id
    if isinstance(value, list):
        return [str(v) if isinstance(v, int | str) else v for v in value]
    return value


Ids = Annotated[list[str], BeforeValidator(_ids)]

THREAD = "thread"
KINDS = (THREAD, *FUNCTION_LISTS)
"""A section's kind: a thread, or one of the function lists (``toolkit.models.SectionKind``)."""


class LLMItem(BaseModel):
    """One line of a section as the model writes it, and the ids it rests on."""

    text: str
    ids: Ids = Field(default_factory=list)
    foreign_ids: int = 0
    """Ids the model cited that are not messages of the request (removed by cleaning)."""
    hosts: list[str] = Field(default_factory=list)
    """The link hosts the model wrote in the text (removed by cleaning, kept here for
    the grounding check)."""


def _item(value: Any) -> Any:
    """An item as the model wrote it, made an ``LLMItem``'s input where that is clear: a
    bare string is an item citing nothing; ``message_ids`` or ``id`` name its ids."""
    if isinstance(value, str):
        return {"text": value, "ids": []}
    if isinstance(value, dict) and "ids" not in value:
        for alias in ("message_ids", "id", "message_id"):
            if alias in value:
                return {**value, "ids": value[alias]}
    return value


class LLMSection(BaseModel):
    """One section: a thread with its title, or a function list (``kind``), with its
    items; ``body`` and ``message_ids`` are the items' texts and ids together.

    An answer in the earlier shape (a title, a body and the ids it draws on) reads as a
    thread whose one item is its body."""

    title: str = Field(min_length=1)
    body: str
    message_ids: Ids = Field(default_factory=list)
    kind: str = THREAD
    items: list[LLMItem] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _from_items(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        items = data.get("items")
        if isinstance(items, list) and items:
            items = [_item(i) for i in items]
            texts = [i.get("text") for i in items if isinstance(i, dict)]
            ids = [x for i in items if isinstance(i, dict) for x in _ids(i.get("ids")) or []]
            data = {
                "body": "\n".join(t for t in texts if isinstance(t, str)),
                "message_ids": list(dict.fromkeys(x for x in ids if isinstance(x, str))),
                **data,
                "items": items,
            }
        elif "body" in data:  # the earlier shape: the body is the one item
            body = data.get("body")
            ids = data.get("message_ids", [])
            data = {**data, "items": [{"text": body, "ids": ids}] if body else []}
        return data


class LLMSummary(BaseModel):
    """The model's whole answer: the summary paragraph and the sections.

    Read from the digest's JSON (``prompts.SUMMARY_SCHEMA``: ``threads`` with titles and
    items, one list of items per function) or from the earlier shape (``sections`` with a
    title, a body and ids); written back (``model_dump``) as the digest's JSON, the shape a
    merge step reads its partials in. Entries of a list that are no item at all (a
    number, an item without text) are left out and counted in ``malformed``.
    """

    summary: str = ""
    """The paragraph, written last: empty when an answer cut at ``max_tokens`` has lines
    and no paragraph (the engine then takes the first grounded lines or the offline one)."""
    sections: list[LLMSection] = Field(default_factory=list)
    important_message_ids: Ids = Field(default_factory=list)
    malformed: int = 0
    summary_hosts: list[str] = Field(default_factory=list)
    """The link hosts the summary paragraph named (removed by cleaning)."""

    @model_validator(mode="after")
    def _says_something(self) -> LLMSummary:
        if not self.summary.strip() and not any(s.items for s in self.sections):
            raise ValueError("the answer has neither a summary nor an item")
        return self

    @model_validator(mode="before")
    @classmethod
    def _from_digest(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not any(k in data for k in ("threads", *FUNCTION_LISTS)):
            return data
        sections: list[Any] = list(data.get("sections") or [])
        malformed = 0
        threads = data.get("threads")
        for thread in threads if isinstance(threads, list) else []:
            if not isinstance(thread, dict):
                malformed += 1
                continue
            items, bad = _items_of(thread.get("items"))
            malformed += bad
            title = thread.get("title")
            title = title.strip() if isinstance(title, str) and title.strip() else "—"
            if items:
                sections.append({"title": title, "kind": THREAD, "items": items})
        for kind in FUNCTION_LISTS:
            items, bad = _items_of(data.get(kind))
            malformed += bad
            if items:
                sections.append({"title": kind, "kind": kind, "items": items})
        rest = {k: v for k, v in data.items() if k not in ("threads", *FUNCTION_LISTS)}
        return {**rest, "sections": sections, "malformed": malformed}

    @model_serializer(mode="plain")
    def _digest(self) -> dict[str, Any]:
        out: dict[str, Any] = {"threads": []}
        out.update({kind: [] for kind in FUNCTION_LISTS})
        for section in self.sections:
            items = [{"text": i.text, "ids": list(i.ids)} for i in section.items]
            if section.kind in FUNCTION_LISTS:
                out[section.kind].extend(items)
            else:
                out["threads"].append({"title": section.title, "items": items})
        out["summary"] = self.summary  # last, as the schema orders it
        return out

    def items(self) -> list[LLMItem]:
        """Every item of every section, in order."""
        return [item for section in self.sections for item in section.items]

    def map_texts(self, fix: Callable[[str], str]) -> LLMSummary:
        """The answer with ``fix`` applied to every text: the summary, each title, body
        and item (a pseudonymised answer mapped back, say)."""
        sections = [
            s.model_copy(
                update={
                    "title": fix(s.title),
                    "body": fix(s.body),
                    "items": [i.model_copy(update={"text": fix(i.text)}) for i in s.items],
                }
            )
            for s in self.sections
        ]
        return self.model_copy(update={"summary": fix(self.summary), "sections": sections})


def _items_of(value: Any) -> tuple[list[dict[str, Any]], int]:
    """The entries of a list that are items (text and ids), and how many were not."""
    if not isinstance(value, list):
        return [], 0
    items, bad = [], 0
    for entry in value:
        entry = _item(entry)
        if isinstance(entry, dict) and isinstance(entry.get("text"), str) and entry["text"].strip():
            ids = _ids(entry.get("ids"))
            ids = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
            items.append({"text": entry["text"], "ids": ids})
        else:
            bad += 1
    return items, bad


class InvalidOutput(ValueError):
    """The answer is not JSON of the required shape; the message says why, briefly."""


MAX_REPAIR_CUTS = 40


def _closed_prefixes(text: str) -> Iterator[str]:
    """``text`` (JSON cut off mid-way, as at ``max_tokens``) closed as it stands, then cut
    back to each earlier comma and closed there, the longest first; when the cut is
    inside a string, the string cut short comes last."""
    stack: list[str] = []
    cuts: list[tuple[int, str]] = []
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
        elif ch == ",":
            cuts.append((i, "".join(reversed(stack))))
    if not stack:
        return  # not cut off: malformed, which no closing repairs
    tail = text.rstrip().rstrip(",")
    if in_string:
        tail = (tail[:-1] if escaped else tail) + '"'
    closed = tail + "".join(reversed(stack))
    if not in_string:
        yield closed
    for i, closers in reversed(cuts[-MAX_REPAIR_CUTS:]):
        yield text[:i] + closers
    if in_string:
        # A text cut mid-way ("pays 5…") says what it did not: the last resort.
        yield closed


def _repaired(text: str) -> Any:
    # An answer cut at max_tokens is closed where it stopped, if that makes an answer.
    for candidate in _closed_prefixes(text):
        try:
            value = json.loads(candidate, strict=False)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and (value.get("summary") or _holds_items(value)):
            return _whole_sections(value)
    return None


def _holds_items(answer: dict[str, Any]) -> bool:
    """Whether a cut answer holds a whole item: the summary comes last (``SUMMARY_SCHEMA``),
    so an answer cut at ``max_tokens`` often has its lines and no paragraph."""
    threads = answer.get("threads")
    lists = (
        [t.get("items") for t in threads if isinstance(t, dict)]
        if isinstance(threads, list)
        else []
    )
    lists += [answer.get(kind) for kind in FUNCTION_LISTS]
    return any(_items_of(value)[0] for value in lists)


def _whole_sections(answer: dict[str, Any]) -> dict[str, Any]:
    """A cut answer without the section that was being written when it was cut."""
    sections = answer.get("sections")
    if isinstance(sections, list):
        valid = [s for s in sections if _valid(LLMSection, s)]
        answer = {**answer, "sections": valid}
    threads = answer.get("threads")
    if isinstance(threads, list):
        answer = {**answer, "threads": [t for t in threads if isinstance(t, dict) and "items" in t]}
    return answer


def _valid(model: type[BaseModel], value: object) -> bool:
    try:
        model.model_validate(value)
    except ValidationError:
        return False
    return True


def _json_object(text: str) -> Any:
    start, end = text.find("{"), text.rfind("}")
    if start < 0:
        raise InvalidOutput("the answer holds no JSON object")
    try:
        if end <= start:
            raise InvalidOutput("the answer holds no JSON object")
        # strict=False: a raw newline inside a string (small models write them) is kept.
        return json.loads(text[start : end + 1], strict=False)
    except json.JSONDecodeError as exc:
        error = InvalidOutput(f"the answer is not valid JSON ({exc.msg} at {exc.pos})")
    except InvalidOutput as exc:
        error = exc
    except (ValueError, RecursionError) as exc:  # a number too long, nesting too deep
        error = InvalidOutput(f"the answer is not usable JSON ({_short(str(exc))})")
    repaired = _repaired(text[start:])
    if repaired is None:
        raise error
    return repaired


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def parse_summary(text: str) -> LLMSummary:
    """Parse and validate an answer (code fences and text around the object tolerated).

    Raises:
        InvalidOutput: when the JSON is malformed or does not match ``LLMSummary``.
    """
    data = _json_object(text or "")
    try:
        return LLMSummary.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'answer'}: {err['msg']}"
            for err in exc.errors()[:5]
        )
        raise InvalidOutput(f"the JSON does not match the schema ({problems})") from exc


# Bounds of a cleaned answer: what a reader and a response can hold, whatever the model wrote.
MAX_SUMMARY_CHARS = 2000
MAX_TITLE_CHARS = 200
MAX_BODY_CHARS = 3000
MAX_SECTIONS = 12
MAX_SECTION_ITEMS = 10
MAX_ITEM_CHARS = 600
MAX_IDS = 50


def known_ids(ids: Iterable[str], allowed: Collection[str]) -> list[str]:
    """The ids that are in ``allowed``, in order, each once."""
    return list(dict.fromkeys(i.strip() for i in ids if i.strip() in allowed))[:MAX_IDS]


CLEANED_CHARS_PER_KEPT = 8
"""How far past a string's bound its answer is read: masking and cleaning keep the words
they do not remove, in order, so ``limit`` kept characters come from the first
``limit × 8`` unless masks, markup and links took nearly all of them; a 10 MB answer is
not searched whole for phone numbers to keep 600 characters."""


def clean_bounded(text: str, limit: int, marks: Marks) -> str:
    """One string of an answer as a summary shows it: e-mail addresses and phone numbers
    masked with ``marks``, plain text (``plain_text``), a loop written once, at most
    ``limit`` characters."""
    # Masked before the final cut, so that no cut leaves a piece of a phone number (the
    # head is cut where none is split).
    text = mask(head_to_mask(text, limit * CLEANED_CHARS_PER_KEPT), marks)
    return cut(without_loops(plain_text(text)), limit)


def link_hosts(text: str) -> list[str]:
    """The hosts of the URLs and bare hosts in ``text``, lower case, without ``www.``
    (an e-mail address's domain is a host too)."""
    hosts = []
    for match in URL_ANYWHERE.finditer(text):
        found = match.group(0)
        if "@" in found and "://" not in found:
            found = found.rsplit("@", 1)[1]
        found = re.sub(r"^[a-z][a-z0-9+.\-]*:(//)?", "", found, flags=re.IGNORECASE)
        host = re.split(r"[/?#:\s]", found, maxsplit=1)[0].strip(".,;!?)(").lower()
        host = host.removeprefix("www.")
        if "." in host:
            hosts.append(host)
    return list(dict.fromkeys(hosts))


def _clean_item(item: LLMItem, allowed: Collection[str], marks: Marks) -> LLMItem:
    raw = item.text
    ids = [i.strip() for i in item.ids]
    return LLMItem(
        text=clean_bounded(raw, MAX_ITEM_CHARS, marks),
        ids=known_ids(ids, allowed),
        foreign_ids=item.foreign_ids + sum(1 for i in ids if i not in allowed),
        hosts=list(dict.fromkeys([*item.hosts, *link_hosts(raw)])),
    )


def clean_summary(
    answer: LLMSummary, *, allowed_ids: Collection[str], marks: Marks | None = None
) -> LLMSummary:
    """The answer as plain text within its bounds: foreign ids dropped (and counted on
    their item, ``foreign_ids``), e-mail addresses and phone numbers masked (``marks``:
    the requested language's, else ``[…]``), markup and every link removed (the hosts a
    line named are kept aside, ``hosts``, for the grounding check), a loop written once
    (``without_loops``), each text cut to its bound; empty items, empty sections and
    repeated sections go."""
    marks = marks or Marks()
    sections = []
    seen: set[tuple[str, str]] = set()
    malformed = answer.malformed
    for section in answer.sections[:MAX_SECTIONS]:
        title = clean_bounded(section.title, MAX_TITLE_CHARS, marks)
        items = [_clean_item(i, allowed_ids, marks) for i in section.items[:MAX_SECTION_ITEMS]]
        malformed += sum(1 for i in items if not i.text)
        items = [i for i in items if i.text]
        body = cut("\n".join(i.text for i in items), MAX_BODY_CHARS)
        if (title.lower(), body.lower()) in seen or not items:
            continue
        seen.add((title.lower(), body.lower()))
        sections.append(
            LLMSection(
                title=title or "—",
                body=body,
                message_ids=list(dict.fromkeys(x for i in items for x in i.ids)),
                kind=section.kind if section.kind in KINDS else THREAD,
                items=items,
            )
        )
    return LLMSummary(
        summary=clean_bounded(answer.summary, MAX_SUMMARY_CHARS, marks) or "—",
        sections=sections,
        important_message_ids=known_ids(answer.important_message_ids, allowed_ids),
        malformed=malformed,
        summary_hosts=list(dict.fromkeys([*answer.summary_hosts, *link_hosts(answer.summary)])),
    )
