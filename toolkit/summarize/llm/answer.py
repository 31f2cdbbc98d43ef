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
from collections.abc import Collection, Iterable, Iterator
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, ValidationError

from toolkit.summarize.llm.plaintext import cut, plain_text, without_loops
from toolkit.summarize.personal import Marks, mask
from toolkit.text import URL_RE  # noqa: F401 (re-exported: tests import it from here)


def _ids(value: Any) -> Any:
    # Models write ids as numbers as often as strings; both name the same message.
    if isinstance(value, list):
        return [str(v) if isinstance(v, int | str) else v for v in value]
    return value


Ids = Annotated[list[str], BeforeValidator(_ids)]


class LLMSection(BaseModel):
    """One section as the model writes it: a title, a body and the ids it draws on."""

    title: str = Field(min_length=1)
    body: str
    message_ids: Ids = Field(default_factory=list)


class LLMSummary(BaseModel):
    """The model's whole answer."""

    summary: str = Field(min_length=1)
    sections: list[LLMSection] = Field(default_factory=list)
    important_message_ids: Ids = Field(default_factory=list)


class InvalidOutput(ValueError):
    """The answer is not JSON of the required shape; the message says why, briefly."""


MAX_REPAIR_CUTS = 40


def _closed_prefixes(text: str) -> Iterator[str]:
    """``text`` (JSON cut off mid-way, as at ``max_tokens``) closed as it stands, then cut
    back to each earlier comma and closed there, the longest first."""
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
    yield tail + "".join(reversed(stack))
    for i, closers in reversed(cuts[-MAX_REPAIR_CUTS:]):
        yield text[:i] + closers


def _repaired(text: str) -> Any:
    # An answer cut at max_tokens is closed where it stopped, if that makes an answer.
    for candidate in _closed_prefixes(text):
        try:
            value = json.loads(candidate, strict=False)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and value.get("summary"):
            return _whole_sections(value)
    return None


def _whole_sections(answer: dict[str, Any]) -> dict[str, Any]:
    """A cut answer without the section that was being written when it was cut."""
    sections = answer.get("sections")
    if isinstance(sections, list):
        valid = [s for s in sections if _valid(LLMSection, s)]
        answer = {**answer, "sections": valid}
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
MAX_IDS = 50


def strip_urls(text: str) -> str:
    """Model text as plain text: no markup, entity, markdown link or URL (``plaintext``)."""
    return plain_text(text)


def known_ids(ids: Iterable[str], allowed: Collection[str]) -> list[str]:
    """The ids that are in ``allowed``, in order, each once."""
    return list(dict.fromkeys(i.strip() for i in ids if i.strip() in allowed))[:MAX_IDS]


def _clean(text: str, limit: int, marks: Marks) -> str:
    # Masked before the cut, so that no cut leaves a piece of a phone number.
    return cut(without_loops(plain_text(mask(text, marks))), limit)


def clean_summary(
    answer: LLMSummary, *, allowed_ids: Collection[str], marks: Marks | None = None
) -> LLMSummary:
    """The answer as plain text within its bounds: foreign ids dropped, e-mail addresses
    and phone numbers masked (``marks``: the requested language's, else ``[…]``), markup
    and every link removed, a loop written once (``without_loops``), each text cut to
    its bound; empty sections and repeated ones go."""
    marks = marks or Marks()
    sections = []
    seen: set[tuple[str, str]] = set()
    for section in answer.sections[:MAX_SECTIONS]:
        title = _clean(section.title, MAX_TITLE_CHARS, marks)
        body = _clean(section.body, MAX_BODY_CHARS, marks)
        if (title.lower(), body.lower()) in seen:
            continue
        seen.add((title.lower(), body.lower()))
        if title or body:
            sections.append(
                {
                    "title": title or "—",
                    "body": body,
                    "message_ids": known_ids(section.message_ids, allowed_ids),
                }
            )
    return LLMSummary.model_validate(
        {
            "summary": _clean(answer.summary, MAX_SUMMARY_CHARS, marks) or "—",
            "sections": sections,
            "important_message_ids": known_ids(answer.important_message_ids, allowed_ids),
        }
    )
