"""One set of wire models: every answer shape is a pydantic model of ``toolkit/wire.py``
and of no other module, and every face dumps it the same way.

The shapes are recognised by the fields that make them (a model with
``messenger_message_id`` and ``score`` is a hit, whatever its name), so a copy under
another name is caught too; so is a model that extends one of ``toolkit.wire``'s.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from toolkit.models import ContextMessage, SearchHit
from toolkit.wire import hit_out

ROOT = Path(__file__).resolve().parents[1]
WIRE = Path("toolkit/wire.py")
PACKAGES = ("toolkit", "service", "cli", "mcp_face", "app_pages", "benchmarks", "scripts")
SHAPES: dict[str, frozenset[str]] = {
    "search hit": frozenset({"messenger_message_id", "score"}),
    "context message": frozenset({"messenger_message_id", "sender_peer_id", "posted_at"}),
    "signals": frozenset({"semantic", "lexical", "phrase", "short_factor"}),
    "summary": frozenset({"summary", "sections"}),
    "section": frozenset({"title", "body"}),
    "section item": frozenset({"text", "messenger_message_ids"}),
    "source": frozenset({"title", "kind", "message_count"}),
    "topic": frozenset({"topic_id", "title"}),
}
"""Each answer shape, by the fields no other model has together."""
PYDANTIC_BASES = {"BaseModel", "BaseSettings", "RootModel"}
INBOUND = {Path("toolkit/summarize/llm/answer.py")}
"""Models of what comes IN, never answered: the JSON an LLM endpoint is asked to write
(parsed and cleaned into ``toolkit.models.Summary``, which ``toolkit.wire`` answers)."""


def _base_name(base: ast.expr) -> str | None:
    if isinstance(base, ast.Subscript):  # RootModel[list[X]]
        base = base.value
    if isinstance(base, ast.Name):
        return base.id
    if isinstance(base, ast.Attribute):  # pydantic.BaseModel
        return base.attr
    return None


def _wire_names(tree: ast.Module) -> set[str]:
    """The names a module imports from ``toolkit.wire``."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "toolkit.wire"
        for alias in node.names
    }


def shape_models(source: str) -> Iterator[tuple[str, str]]:
    """``(class name, why)`` for each pydantic model of ``source`` that is an answer
    shape: its own fields include a shape's, or it extends a model of ``toolkit.wire``."""
    tree = ast.parse(source)
    wire = _wire_names(tree)
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    pydantic = set(PYDANTIC_BASES) | wire
    grew = True
    while grew:  # a model of a model of the same module is a model
        known = len(pydantic)
        pydantic |= {c.name for c in classes if {_base_name(b) for b in c.bases} & pydantic}
        grew = len(pydantic) > known
    for node in classes:
        bases = {_base_name(b) for b in node.bases}
        if not bases & pydantic:
            continue
        if bases & wire:
            yield node.name, f"extends {', '.join(sorted(b for b in bases if b in wire))}"
            continue
        fields = {
            stmt.target.id
            for stmt in node.body
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
        }
        for shape, needed in SHAPES.items():
            if needed <= fields:
                yield node.name, shape


def _modules() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))
    yield ROOT / "app_streamlit.py"


def test_every_answer_shape_is_modelled_in_toolkit_wire_alone() -> None:
    found: set[str] = set()
    elsewhere: list[str] = []
    for path in _modules():
        relative = path.relative_to(ROOT)
        if relative in INBOUND:
            continue
        for name, shape in shape_models(path.read_text(encoding="utf-8")):
            if relative == WIRE:
                found.add(shape)
            else:
                elsewhere.append(f"{relative}: {name} ({shape})")
    assert found == set(SHAPES), "toolkit/wire.py lacks a shape, or the check lost sight of it"
    assert not elsewhere, "answer shapes belong in toolkit/wire.py:\n" + "\n".join(elsewhere)


def test_the_check_sees_a_copy_under_another_name_and_an_extension() -> None:
    copy = """
from pydantic import BaseModel as Model
import pydantic
from toolkit.wire import SourceOut

class _Base(pydantic.BaseModel):
    pass

class Ranked(_Base):
    messenger_message_id: str
    score: float

class SourceInfo(SourceOut):
    extra: int

class Plain:
    title: str
    body: str
"""
    assert sorted(shape_models(copy)) == [
        ("Ranked", "search hit"),
        ("SourceInfo", "extends SourceOut"),
    ]


def _hit(signals: dict[str, float] | None) -> SearchHit:
    at = datetime(2026, 3, 1, 12, tzinfo=UTC)
    near = ContextMessage("1", "before", "user1", at, "https://t.me/x/1")
    return SearchHit("@x", "2", "X", "hit", "https://t.me/x/2", at, 0.5, [near], [], signals)


def test_a_hit_leaves_signals_out_unless_explained_on_every_dump() -> None:
    plain = hit_out(_hit(None))
    assert "signals" not in plain.model_dump(mode="json")
    assert '"signals"' not in plain.model_dump_json()
    signals = {"semantic": 0.5, "lexical": 1.0, "phrase": 0.0, "short_factor": 1.0}
    explained = hit_out(_hit(signals)).model_dump(mode="json")
    assert explained["signals"] == signals
    assert explained["posted_at"] == "2026-03-01T12:00:00Z"
    assert explained["context_before"][0]["reactions"] == {}
