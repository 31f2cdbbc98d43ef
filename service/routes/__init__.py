"""service/routes."""
