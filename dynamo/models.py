"""The base of every PynamoDB model here: connection settings resolved from the environment, instrumented client,
the attribute values each item was read with, and the patience (timeouts, retries) in force in this process."""

from __future__ import annotations

from typing import Any, TypeVar

from pynamodb.connection import Connection
from pynamodb.models import Model
from pynamodb.signals import pre_dynamodb_send

from dynamo import conf, deadline
from dynamo.client import forget_connections
from dynamo.instrumentation import instrument
from dynamo.patience import PATIENT, Patience


class BaseMeta:
    """Settings shared by every table's Meta (subclass it and set ``table_name``; do not override the timeouts or
    retries there: ``use_patience`` sets them here, for every table at once). Retries use botocore's "standard" mode,
    throttling included."""

    region = conf.region()
    billing_mode = "PAY_PER_REQUEST"
    connect_timeout_seconds = PATIENT.connect_timeout_seconds
    read_timeout_seconds = PATIENT.read_timeout_seconds
    max_retry_attempts = PATIENT.max_retry_attempts
    max_pool_connections = 32


_M = TypeVar("_M", bound="InstrumentedModel")


class InstrumentedModel(Model):
    """A PynamoDB model whose botocore client records its calls (see ``dynamo.instrumentation``), and whose items
    made by a read (GetItem, Query, Scan, BatchGetItem) keep the attribute values DynamoDB returned."""

    _read_as: dict[str, Any] | None = None

    @classmethod
    def from_raw_data(cls: type[_M], data: dict[str, Any]) -> _M:
        item = super().from_raw_data(data)
        item._read_as = data
        return item

    def attributes_as_read(self) -> dict[str, Any] | None:
        """Every attribute as DynamoDB returned it (DynamoDB JSON), declared by the model or not; None for an item
        not made by a read. Later changes to the item do not change it: it is for items shown or compared as read."""
        return self._read_as


def _hook_client(sender: Connection, **_: Any) -> None:
    """PynamoDB makes a model's client lazily and keeps it private; its public signal, sent before every call
    with the connection as sender, lets the hooks join the client before its first call."""
    deadline.guard(instrument(sender.client))


pre_dynamodb_send.connect(_hook_client)


def all_models(base: type[Model] = InstrumentedModel) -> list[type[Model]]:
    """Every model class defined so far beneath ``base`` (subclasses' subclasses included)."""
    return [model for sub in base.__subclasses__() for model in (sub, *all_models(sub))]


def apply_environment() -> None:
    """Make the connections made from now on resolve endpoint, region, credentials and patience afresh: ours are
    dropped and every model's Meta takes the environment's region. PynamoDB keeps the connection a model makes at
    its first call and has no public way to drop it, so a process settles these before its first call (the demo's
    engine, the WSGI entry's patience)."""
    region = conf.region()
    forget_connections()
    for model in all_models():
        meta = vars(model).get("Meta")
        if meta is not None:
            meta.region = region


_in_force: list[Patience] = [PATIENT]


def use_patience(patience: Patience) -> None:
    """Every connection made from now on waits and retries as ``patience`` says. The dashboard's WSGI entry calls
    it once at start (``config.wsgi``), before its first call; every other process keeps ``PATIENT``."""
    BaseMeta.connect_timeout_seconds = patience.connect_timeout_seconds
    BaseMeta.read_timeout_seconds = patience.read_timeout_seconds
    BaseMeta.max_retry_attempts = patience.max_retry_attempts
    _in_force[:] = [patience]
    apply_environment()


def patience_in_force() -> Patience:
    """The profile this process's connections were made with (``PATIENT`` unless ``use_patience`` said otherwise)."""
    return _in_force[0]
