"""The e-mail destination: the digest as a multipart message (plain text and HTML)
through the SMTP server of the settings (``MLENS_SMTP_*``; STARTTLS and a login when
set). The Message-ID is the delivery's, so a repeat after a crash is one message to a
reader whose mail program drops duplicates."""

from __future__ import annotations

import smtplib
from email.message import EmailMessage

from toolkit.config import DeliverySettings
from toolkit.delivery.digest import DeliveryFailed, Post
from toolkit.delivery.model import EmailDestination
from toolkit.delivery.render import html_document, plain_text


def message(digest: Post, destination: EmailDestination, sender: str) -> EmailMessage:
    """The digest as an e-mail to ``destination``."""
    mail = EmailMessage()
    mail["Subject"] = digest.title()
    mail["From"] = sender
    mail["To"] = ", ".join(destination.to)
    domain = sender.rsplit("@", 1)[-1] or "localhost"
    mail["Message-ID"] = f"<mlens-delivery-{digest.delivery_id}@{domain}>"
    mail.set_content(plain_text(digest))
    mail.add_alternative(html_document(digest), subtype="html")
    return mail


class EmailAdapter:
    """Sends digests to a list of addresses.

    Args:
        destination: the addresses.
        settings: the SMTP server, its login and the sender.
    """

    def __init__(self, destination: EmailDestination, settings: DeliverySettings) -> None:
        self.destination = destination
        self.settings = settings

    def deliver(self, digest: Post) -> str:
        """Send the message; to how many addresses it went.

        Raises:
            DeliveryFailed: no server configured, or the server refused or was not reached.
        """
        s = self.settings
        if not s.smtp_host:
            raise DeliveryFailed("no SMTP server: set MLENS_SMTP_HOST (and MLENS_SMTP_PORT)")
        mail = message(digest, self.destination, s.smtp_sender)
        try:
            with smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=s.timeout_seconds) as smtp:
                if s.smtp_starttls:
                    smtp.starttls()
                if s.smtp_username:
                    password = s.smtp_password.get_secret_value() if s.smtp_password else ""
                    smtp.login(s.smtp_username, password)
                refused = smtp.send_message(mail)
        except (smtplib.SMTPException, OSError) as exc:
            raise DeliveryFailed(
                f"SMTP {s.smtp_host}:{s.smtp_port}: {type(exc).__name__}: {exc}"[:300]
            ) from None
        sent = len(self.destination.to) - len(refused)
        return f"mailed to {sent} of {len(self.destination.to)}"
