"""Message Lens /v1 HTTP service: a thin FastAPI adapter over toolkit."""
