"""Ingest: Telegram Desktop JSON exports (``export``) and live sync (``live``, ``sync``)."""

from toolkit.ingest.export import ImportedSource, ImportReport, import_export

__all__ = ["ImportReport", "ImportedSource", "import_export"]
