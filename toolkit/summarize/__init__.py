"""toolkit/summarize."""
