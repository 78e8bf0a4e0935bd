"""An email backend for a sender the test kills: each message's subject is appended to ``$HANDSHAKE_DIR/sent``,
then, while the named pipe ``$HANDSHAKE_DIR/go`` exists, the backend waits on it for one byte before it returns, so
the test decides when a message counts as sent and can kill the sender in between."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.message import EmailMessage


class EmailBackend(BaseEmailBackend):
    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        where = Path(os.environ["HANDSHAKE_DIR"])
        for message in email_messages:
            with (where / "sent").open("a") as sent:
                sent.write(f"{message.subject}\n")
            if (where / "go").exists():
                with (where / "go").open("rb") as go:  # blocks until the test opens it to write
                    go.read(1)
        return len(email_messages)
