"""Message Lens toolkit: store, ingest, search and summaries of messaging-platform sources."""
