"""Ingest: Telegram Desktop exports (JSON, HTML, .zip: ``export``) and live sync (``sync``)."""

from toolkit.ingest.export import import_export
from toolkit.ingest.export_report import ImportedSource, ImportReport

__all__ = ["ImportReport", "ImportedSource", "import_export"]
