"""toolkit/ingest."""
