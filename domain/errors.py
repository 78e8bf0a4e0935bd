"""The base of every error a user may see (on a page or a command line), and the kind of failure it is.

Each domain error class declares its ``http_status``, so the pages (``dashboard.responses.domain_errors``) and the
commands (``dynamo.commands.ShopCommand``) read one map instead of each keeping its own list of exceptions. It sits
beneath ``dynamo`` and ``shop`` so that ``shop.keys`` (which the admin view's pure core uses) raises domain errors
without reaching the DynamoDB plumbing.
"""

from __future__ import annotations

from typing import ClassVar

BAD_INPUT, NOT_FOUND, CONFLICT, BUSY = 400, 404, 409, 503


class DomainError(Exception):
    """``str()`` is a message fit to show a user; nothing was written when it is raised."""

    http_status: ClassVar[int] = BAD_INPUT
