"""Ingest: Telegram Desktop exports (JSON, HTML, .zip: ``export``) and live sync (``live``)."""

from toolkit.ingest.export.read import import_export
from toolkit.ingest.export.report import ImportedSource, ImportReport

__all__ = ["ImportReport", "ImportedSource", "import_export"]
