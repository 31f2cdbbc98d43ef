"""The LLM's answer: its pydantic shape, parsing, and cleaning against the input.

The model returns ids only. Cleaning keeps the ids that were in the input (in order,
once each), removes markdown images and HTML tags, and removes every URL that does not
occur verbatim in an input message; message links are added later, in code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, ValidationError


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


def _json_object(text: str) -> Any:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise InvalidOutput("the answer holds no JSON object")
    try:
        return json.loads(text[start : end + 1])
    except json.JSONDecodeError as exc:
        raise InvalidOutput(f"the answer is not valid JSON ({exc.msg} at {exc.pos})") from exc


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


URL_RE = re.compile(
    r"(?:(?:https?|ftp)://|www\.)[^\s<>\"'`]+|\b(?:[a-z0-9-]+\.)+[a-z]{2,}/[^\s<>\"'`]*",
    re.IGNORECASE,
)
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\(([^)]*)\)")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")
_TAG_RE = re.compile(r"</?[a-zA-Z][^<>]*>")
_TRAILING = ".,;:!?)]}»”'\""


def urls_in(texts: Iterable[str]) -> set[str]:
    """Every URL in ``texts``, without trailing punctuation."""
    return {m.group(0).rstrip(_TRAILING) for text in texts for m in URL_RE.finditer(text)}


def strip_foreign_urls(text: str, allowed: Collection[str]) -> str:
    """Remove images, tags and every URL that is not in ``allowed`` from model text."""
    text = _IMAGE_RE.sub("", text)
    text = _TAG_RE.sub("", text)
    text = _MD_LINK_RE.sub(
        lambda m: f"{m.group(1)} ({m.group(2)})" if m.group(2) in allowed else m.group(1), text
    )

    def _url(match: re.Match[str]) -> str:
        url = match.group(0)
        core = url.rstrip(_TRAILING)
        return url if core in allowed else url[len(core) :]

    text = URL_RE.sub(_url, text)
    text = re.sub(r"\(\s*\)", "", text)
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def known_ids(ids: Iterable[str], allowed: Collection[str]) -> list[str]:
    """The ids that are in ``allowed``, in order, each once."""
    return list(dict.fromkeys(i.strip() for i in ids if i.strip() in allowed))


def clean_summary(
    answer: LLMSummary, *, allowed_ids: Collection[str], allowed_urls: Collection[str]
) -> LLMSummary:
    """The answer with foreign ids dropped and foreign links removed; empty sections go."""
    sections = []
    for section in answer.sections:
        title = strip_foreign_urls(section.title, allowed_urls)
        body = strip_foreign_urls(section.body, allowed_urls)
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
            "summary": strip_foreign_urls(answer.summary, allowed_urls) or "—",
            "sections": sections,
            "important_message_ids": known_ids(answer.important_message_ids, allowed_ids),
        }
    )
