"""toolkit/search."""
