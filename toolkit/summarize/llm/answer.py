"""The LLM's answer: its pydantic shape, parsing, and cleaning against the input.

The model returns ids only. Cleaning keeps the ids that were in the input (in order,
once each), removes markdown images and HTML tags, and removes every URL the model
wrote, even one copied from a message: a message's text may carry a phishing link, and
the model has no business repeating it. The links a summary carries are message links
added later, in code, for the ids the model cited.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, ValidationError

from toolkit.text import URL_RE


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
    except (ValueError, RecursionError) as exc:  # a number too long, nesting too deep
        raise InvalidOutput(f"the answer is not usable JSON ({_short(str(exc))})") from exc


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


_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\(([^)]*)\)")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")
_TAG_RE = re.compile(r"</?[a-zA-Z][^<>]*>")


def strip_urls(text: str) -> str:
    """Model text without images, HTML tags, markdown link targets or URLs."""
    text = _IMAGE_RE.sub("", text)
    text = _TAG_RE.sub("", text)
    text = _MD_LINK_RE.sub(lambda m: m.group(1), text)
    text = URL_RE.sub("", text)
    text = re.sub(r"\(\s*\)", "", text)
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def known_ids(ids: Iterable[str], allowed: Collection[str]) -> list[str]:
    """The ids that are in ``allowed``, in order, each once."""
    return list(dict.fromkeys(i.strip() for i in ids if i.strip() in allowed))


def clean_summary(answer: LLMSummary, *, allowed_ids: Collection[str]) -> LLMSummary:
    """The answer with foreign ids dropped and every link removed; empty sections go."""
    sections = []
    for section in answer.sections:
        title = strip_urls(section.title)
        body = strip_urls(section.body)
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
            "summary": strip_urls(answer.summary) or "—",
            "sections": sections,
            "important_message_ids": known_ids(answer.important_message_ids, allowed_ids),
        }
    )
