"""``mlens summarize``: a period summary, or what a source is about (``--source``)."""

from typing import TYPE_CHECKING, Annotated

import typer

from cli.filters import JsonOption, SenderOption, TopicOption, filters
from cli.render import literal, print_json, summary_record
from cli.state import console, workspace
from toolkit.limits import MAX_SOURCE_MESSAGES  # the request models' bound, no import
from toolkit.source_kind import SourceKind  # --kind's choices (not all of toolkit.models)

if TYPE_CHECKING:
    from toolkit.models import Summary


def _print(summary: "Summary") -> None:
    console().print(literal(summary.summary), highlight=False)
    for section in summary.sections:
        console().print(f"\n[bold]{literal(section.title, one_line=True)}[/]")
        console().print(literal(section.body), highlight=False)
    ids = literal(", ".join(summary.important_messenger_message_ids) or "—")
    engine = literal(summary.engine) + _model_note(summary)
    console().print(f"\n[dim]important: {ids} · engine: {engine}[/]")


def _model_note(summary: "Summary") -> str:
    """What the model's lines became, for an engine that asked one (empty otherwise): a
    reader sees whether a hybrid digest is the model's rewrite or the offline text, also
    when the rewriting stopped early (``hybrid (partial: timeout)``: the counts say how
    far it got)."""
    if summary.engine.split(" (", 1)[0] == "hybrid":
        note = (
            f"{summary.items_rewritten} lines rewritten by the model, "
            f"{summary.items_offline} offline ({summary.items_dropped} rewrites rejected)"
        )
    elif summary.engine == "llm":
        note = f"{summary.items_kept} lines kept, {summary.items_dropped} dropped as ungrounded"
    else:
        return ""
    overview = "offline" if summary.summary_offline else "the model's"
    return f" ({note}; overview: {overview})"


def summarize(
    ref: Annotated[str, typer.Argument(help="Source: @handle, t.me link or t.me/c/<id>.")],
    since: Annotated[
        str | None, typer.Option("--from", help="Period start, ISO 8601 (UTC if naive).")
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--to",
            help="End of the period, ISO 8601 (UTC if naive): a time is the first moment "
            "left out; a bare day is included whole.",
        ),
    ] = None,
    language: Annotated[str, typer.Option(help="Output language, ISO 639-1.")] = "en",
    kind: Annotated[
        SourceKind | None, typer.Option(help="Prompt variant; default: the source's kind.")
    ] = None,
    source: Annotated[
        bool, typer.Option("--source", help="Say what the source is about (no period).")
    ] = False,
    messages_limit: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=MAX_SOURCE_MESSAGES,
            help="With --source: messages to read at most (spread over its life).",
        ),
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(
            help="auto, extractive, llm or hybrid (the offline digest rewritten by the LLM); "
            "default: MLENS_SUMMARY_ENGINE."
        ),
    ] = None,
    as_json: JsonOption = False,
    topic: TopicOption = None,
    sender: SenderOption = None,
) -> None:
    """Summarise a source's messages of a period, or (--source) describe the source."""
    from toolkit.requests import summary_request

    if source and (since or until):
        raise typer.BadParameter("--source takes no --from/--to", param_hint="--source")
    if not source and (since is None or until is None):
        raise typer.BadParameter("a period summary needs --from and --to (or use --source)")
    request = summary_request(
        ref,
        period=None if source else (since, until),
        language=language,
        kind=kind,
        messages_limit=messages_limit,
        engine=engine,
        **filters(topic, sender),
    )
    summary = workspace().summarize(request)
    if as_json:
        print_json(summary_record(summary))
    else:
        _print(summary)
