"""The ``llama_server`` fixture: one local model server (``benchmarks.llama_server``) per
test session. Import it into a test module; tests that need it are skipped, with the
reason, only when llama_cpp or the model is not installed (the ``[llm-local]`` extra,
which ``make test`` installs)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from benchmarks.llama_server import MODEL, LlamaServer, gguf_path, missing

__all__ = ["MODEL", "LlamaServer", "gguf_path", "llama_server", "missing"]


@pytest.fixture(scope="session")
def llama_server() -> Iterator[LlamaServer]:
    """One local model server for the test session (skipped without ``[llm-local]``)."""
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    with LlamaServer() as server:
        yield server
