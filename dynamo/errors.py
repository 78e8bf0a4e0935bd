"""The base of every error a user may see, as the DynamoDB plumbing and its callers name it (``domain.errors``
declares it, beneath both ``dynamo`` and ``shop``)."""

from __future__ import annotations

from domain.errors import BAD_INPUT, BUSY, CONFLICT, NOT_FOUND, DomainError

__all__ = ["BAD_INPUT", "BUSY", "CONFLICT", "NOT_FOUND", "DomainError"]
