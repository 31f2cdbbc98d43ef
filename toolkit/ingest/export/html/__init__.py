"""The HTML reader: pages of ``messages*.html`` (``page``) read into the JSON reader's records
(``importer``); service messages (``service``)."""
