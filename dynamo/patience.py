"""How long a process waits for DynamoDB, and how often it asks again: one profile per kind of process (the
figures, and how ``config.wsgi`` puts the dashboard's in force: docs/production.md, "When DynamoDB does not answer").

The stream sync and the operators' commands are *patient* (``PATIENT``): nobody watches each call, and a call that
waits out a brown-out is cheaper than a batch retried or a rebuild restarted. The dashboard is *prompt* (``prompt``):
a person waits on the page, and a gunicorn thread blocked for a minute is a thread no other staff member gets, so a
page gives up after a few seconds and says so (503).

The first three fields are PynamoDB's own ``Meta`` settings (``max_retry_attempts``: retries after the first attempt,
in botocore's "standard" mode). ``deadline_seconds`` bounds a whole request (``dynamo.deadline``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Patience:
    connect_timeout_seconds: float
    read_timeout_seconds: float
    max_retry_attempts: int
    deadline_seconds: float | None = None

    def __post_init__(self) -> None:
        if self.connect_timeout_seconds <= 0 or self.read_timeout_seconds <= 0:
            raise ValueError("DynamoDB timeouts must be positive numbers of seconds")
        if self.max_retry_attempts < 0:
            raise ValueError("DynamoDB needs at least one attempt per call")
        if self.deadline_seconds is not None and self.deadline_seconds <= 0:
            raise ValueError("a request's DynamoDB deadline must be a positive number of seconds (or none)")


# PynamoDB's own timeouts (connect 15 s, read 30 s), stated here so they are a choice, with 9 attempts: the sync and
# the commands ride out a throttling burst or a brown-out and carry on where they were.
PATIENT = Patience(connect_timeout_seconds=15.0, read_timeout_seconds=30.0, max_retry_attempts=8)

# The dashboard's defaults (each one an environment variable, see config.settings). DynamoDB answers a GetItem or a
# Query in milliseconds and a transaction in tens of them, so 2 s without a byte means it is not answering. How soon
# a page then answers: docs/production.md, "When DynamoDB does not answer".
PROMPT_CONNECT_TIMEOUT_S = 1.0
PROMPT_READ_TIMEOUT_S = 2.0
PROMPT_ATTEMPTS = 2
PROMPT_DEADLINE_S = 2.0


def prompt(
    *,
    connect_timeout_seconds: float = PROMPT_CONNECT_TIMEOUT_S,
    read_timeout_seconds: float = PROMPT_READ_TIMEOUT_S,
    attempts: int = PROMPT_ATTEMPTS,
    deadline_seconds: float | None = PROMPT_DEADLINE_S,
) -> Patience:
    """The profile of a process serving people (the dashboard); ``deadline_seconds`` None or 0: no deadline."""
    return Patience(
        connect_timeout_seconds=connect_timeout_seconds,
        read_timeout_seconds=read_timeout_seconds,
        max_retry_attempts=attempts - 1,
        deadline_seconds=deadline_seconds or None,
    )
