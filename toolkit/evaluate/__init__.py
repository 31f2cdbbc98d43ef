"""toolkit/evaluate."""
