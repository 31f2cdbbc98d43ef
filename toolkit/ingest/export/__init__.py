"""Telegram Desktop exports: a file, a folder or a zip, JSON or HTML, read into the store
(``read.import_export``); ``json/`` and ``html/`` are the two readers, the rest is shared:
the archive, the encoding, the limits, the report, times and the ``Importer`` that stores
records."""
