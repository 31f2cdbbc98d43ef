"""The delivery section of ``Settings``: the runner of digest schedules and what the
destinations share (the Bot API's address and default token, the SMTP server)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field, SecretStr

from toolkit.config.sections import Section


class DeliverySettings(Section):
    """Digest schedules (`mlens schedule`): the runner, the Bot API, the SMTP server."""

    env_prefix = "DELIVERY_"
    # What the destinations share is named without the section's prefix: MLENS_SMTP_HOST,
    # not MLENS_DELIVERY_SMTP_HOST.
    env_names: ClassVar[Mapping[str, str]] = {
        name: f"MLENS_{name.upper()}"
        for name in (
            "telegram_api_url",
            "telegram_bot_token",
            "smtp_host",
            "smtp_port",
            "smtp_username",
            "smtp_password",
            "smtp_sender",
            "smtp_starttls",
        )
    }

    runner: bool = Field(
        True,
        description="`mlens serve` runs due digest schedules in the background (each "
        "worker; a lease in the store makes every period run once). false: run "
        "`mlens scheduler` beside it.",
    )
    poll_seconds: float = Field(
        30.0, gt=0, le=3600, description="How often the runner looks for due schedules."
    )
    lease_seconds: int = Field(
        900,
        ge=10,
        description="How long a run is its worker's: past it (the worker died) another "
        "worker finishes the run.",
    )
    retry_seconds: int = Field(
        60, ge=1, description="A failed destination is tried again after this, doubled each time."
    )
    max_attempts: int = Field(
        5, ge=1, le=50, description="Tries per destination (and per digest) before giving up."
    )
    resend_uncertain: bool = Field(
        False,
        description="A Telegram or e-mail send whose worker died mid-send (it may have "
        "arrived) is sent again by the next worker; false: it is shown `uncertain` and "
        "waits for `mlens schedule resend` or `mlens alert resend` (a webhook is always "
        "sent again: its receiver drops a repeat by `X-Mlens-Delivery`).",
    )
    timeout_seconds: float = Field(
        15.0, gt=0, description="Each HTTP or SMTP exchange with a destination."
    )
    telegram_api_url: str = Field(
        "https://api.telegram.org", description="The Telegram Bot API's base URL."
    )
    telegram_bot_token: SecretStr | None = Field(
        None, description="The bot token of Telegram destinations that name none."
    )
    smtp_host: str | None = Field(None, description="SMTP server of e-mail destinations.")
    smtp_port: int = Field(25, ge=1, le=65535, description="Its port.")
    smtp_username: str | None = Field(None, description="SMTP login, if it needs one.")
    smtp_password: SecretStr | None = Field(None, description="SMTP password.")
    smtp_sender: str = Field("mlens@localhost", description="The From of digest e-mails.")
    smtp_starttls: bool = Field(False, description="Upgrade the SMTP connection with STARTTLS.")
