"""The bounds of a request (DESIGN.md §3 Bounds), each written once.

Plain numbers and one pattern, importing nothing: the request models of
``toolkit.requests`` carry them as their fields' constraints (the /v1 schema and the MCP
tools' parameters read them there), and the CLI's options name them while
``mlens --help`` loads nothing else.
"""

MAX_LIMIT = 100
"""Hits one search returns at most (``limit``)."""
MAX_SCAN = 10_000
"""Recent messages one search scans in a source at most (``scan_messages_limit``)."""
MAX_QUERY_CHARS = 1000
"""Characters of a search query at most."""
MAX_REF_CHARS = 300
"""Characters of a source reference an MCP tool takes at most."""
MAX_SOURCE_REFS = 1000
"""Sources one search across sources may name at most (``source_refs``)."""
MAX_SENDERS = 100
"""Senders one request may filter on at most (``sender_peer_ids``)."""
MAX_TOPIC_ID = 2**31 - 1
"""Topic ids are message ids: 32-bit on the messenger."""
MAX_SOURCE_MESSAGES = 5000
"""The most messages a source summary may read (``messages_limit``)."""
MAX_SYNC = 10_000
"""Messages one live sync call fetches at most."""
DEFAULT_SYNC = 1000
"""Messages one live sync call fetches when the request names no ``limit``."""
MAX_ALERTS_PER_HOUR = 60
"""Posts one alert makes in an hour at most (``max_per_hour``); the rest are counted."""
DEFAULT_ALERTS_PER_HOUR = 10
"""An alert's cap when the request names none."""
PEER_ID_PATTERN = r"^(?:user|channel|chat)[1-9][0-9]{0,18}$"
"""A sender's peer id as messages carry it: ``user123``, ``channel123``, ``chat123``."""
MAX_RECORD_ID = 2**62
"""The largest alert or schedule id a request may name (a store's ids are 64-bit)."""
