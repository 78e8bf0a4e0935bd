"""The one write behind every staff edit (``shop.editing``): the edited paths of one item and their audit entry,
conditioned on what the form showed, in one TransactWriteItems; and the limits edited values must keep.

A path inside a map (``Detail.Name``, ``Address.City``) is set or removed on its own, so the map's other keys
are untouched; a map the item lacks is created holding the edited keys. Values are strings, as AWS's model keeps
them (``Price``, ``Quantity`` decimal strings). The condition: the item is still the entity the form showed and
every attribute the form showed is still what it showed (a versioned entity, a product, also its ``Version``,
which the save increments). A failed condition is re-read and raised as ``EditConflict`` naming what changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from pynamodb.expressions.condition import Condition
from pynamodb.expressions.operand import Path, Value
from pynamodb.expressions.update import Action

from dynamo import ddb_json
from dynamo.transactions import Transaction, TransactionCancelled, request_token
from shop import audit, keys
from shop.attributes import decimal_text
from shop.audit import Actor, Changed
from shop.errors import Busy, Drift, EditConflict, EmailTaken, InvalidInput, NotFound
from shop.models import ShopItem
from shop.snapshots import CUSTOMER, PRODUCT, STOCK, WAREHOUSE, EditSpec, Snapshot, is_entity, read_raw, take

MAX_NAME = 200
MAX_EMAIL = keys.MAX_EMAIL
MAX_DESCRIPTION = 2000
MAX_CATEGORY = 100
MAX_ADDRESS_PART = 200
MAX_REASON = 200
MAX_PRICE = Decimal("1000000000")
MAX_QUANTITY = 1_000_000_000
PRICE_PLACES = 2


@dataclass(frozen=True)
class Target:
    """The item an edit writes and the partition its audit entry goes to."""

    spec: EditSpec
    pk: str
    sk: str
    entity_id: str
    partition: str
    warehouse_id: str | None = None

    @property
    def label(self) -> str:
        return f"{self.entity_id} in warehouse {self.warehouse_id}" if self.warehouse_id else self.entity_id


def customer_target(customer_id: str) -> Target:
    key = keys.customer(customer_id)
    return Target(CUSTOMER, key, key, keys.strip(key), key)


def product_target(product_id: str) -> Target:
    key = keys.product(product_id)
    return Target(PRODUCT, key, key, keys.strip(key), key)


def warehouse_target(warehouse_id: str) -> Target:
    key = keys.warehouse(warehouse_id)
    return Target(WAREHOUSE, key, key, keys.strip(key), key)


def stock_target(product_id: str, warehouse_id: str) -> Target:
    pk, sk = keys.product(product_id), keys.warehouse(warehouse_id)
    return Target(STOCK, pk, sk, keys.strip(pk), pk, warehouse_id=keys.strip(sk))


# --- what the forms show ---------------------------------------------------------------------------------------


def snapshot(target: Target) -> Snapshot:
    """The entity as its form shows it (one strongly consistent GetItem); NotFound when there is none. A stock
    row may be missing (its form then creates it): that is checked against the product and warehouse."""
    raw = read_raw(target.pk, target.sk)
    if not is_entity(raw, target.spec.entity_type):
        raw = None
    if raw is None and target.spec is not STOCK:
        raise NotFound(target.spec.kind, target.entity_id)
    if raw is None:
        require_stock_parents(target)
    return take(target.spec, raw)


def require_stock_parents(target: Target) -> None:
    for pk, kind, entity_type, entity_id in (
        (target.pk, "product", "product", target.entity_id),
        (target.sk, "warehouse", "warehouse", target.warehouse_id or ""),
    ):
        raw = read_raw(pk, pk)
        if not is_entity(raw, entity_type):
            raise NotFound(kind, entity_id)


# --- validation of edited values -------------------------------------------------------------------------------


def checked_text(value: str | None, *, what: str, limit: int, required: bool = False) -> str | None:
    """A text value as typed (None or "": absent); refuses NUL (DynamoDB keeps it, but nothing downstream
    should have to) and text over ``limit`` characters."""
    if value is None or value == "":
        if required:
            raise InvalidInput(f"{what} is required")
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text")
    if required and not value.strip():
        raise InvalidInput(f"{what} must not be blank")
    if len(value) > limit:
        raise InvalidInput(f"{what} is at most {limit} characters (got {len(value)})")
    if "\x00" in value:
        raise InvalidInput(f"{what} must not contain NUL characters")
    return value


def check_email(value: str) -> str:
    """An address as typed: one ``@`` with text on both sides, no spaces, at most 254 characters."""
    local, at, domain = value.rpartition("@")
    if not at or not local or "." not in domain or any(c.isspace() for c in value) or len(value) > MAX_EMAIL:
        raise InvalidInput(f"{value[:80]!r} is not an email address (at most {MAX_EMAIL} characters)")
    return value


def price_text(value: Decimal | str) -> str:
    """A price as AWS stores it: a decimal string, >= 0, at most two decimal places (``"100"``, ``"19.90"``)."""
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation as exc:
        raise InvalidInput(f"price {value!r} is not a number") from exc
    if not amount.is_finite() or amount < 0 or amount >= MAX_PRICE:
        raise InvalidInput(f"price must be a number from 0 to {MAX_PRICE - 1}")
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -PRICE_PLACES:
        raise InvalidInput(f"price {value} has more than {PRICE_PLACES} decimal places")
    return decimal_text(amount)


def quantity_text(value: int) -> str:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_QUANTITY:
        raise InvalidInput(f"quantity must be a whole number from 0 to {MAX_QUANTITY}")
    return str(value)


def same_number(seen: str | None, wanted: str | None) -> bool:
    if seen is None or wanted is None:
        return seen is wanted
    try:
        return Decimal(seen) == Decimal(wanted)
    except InvalidOperation:
        return False


# --- the write ------------------------------------------------------------------------------------------------


def string_value(text: str) -> Value:
    return Value(ddb_json.s(text))


def _path(path: str) -> Path:
    return Path(path.split("."))


def _condition(target: Target, seen: Snapshot) -> Condition:
    """The item is still the entity the form showed, with every shown attribute as shown."""
    condition: Condition = Path(["PK"]).exists() & (Path([keys.ENTITY_TYPE]) == string_value(target.spec.entity_type))
    for name, present in seen.maps.items():
        condition &= Path([name]).exists() if present else Path([name]).does_not_exist()
    for path, text in seen.values.items():
        condition &= _path(path).does_not_exist() if text is None else (_path(path) == string_value(text))
    if target.spec.versioned:
        version = Path(["Version"])
        condition &= version.does_not_exist() if seen.version is None else (version == Value({"N": str(seen.version)}))
    return condition


def _actions(target: Target, seen: Snapshot, changes: list[Changed]) -> list[Action]:
    """SET or REMOVE each edited path; a map the item lacks is created holding its edited keys."""
    actions: list[Action] = []
    created: dict[str, dict[str, dict[str, str]]] = {}
    for change in changes:
        head, _, tail = change.attribute.partition(".")
        if tail and not seen.maps[head]:
            if change.after is not None:
                created.setdefault(head, {})[tail] = ddb_json.s(change.after)
            continue
        path = _path(change.attribute)
        actions.append(path.remove() if change.after is None else path.set(string_value(change.after)))
    for name, members in created.items():
        actions.append(Path([name]).set(Value({"M": members})))
    if target.spec.versioned:
        actions.append(Path(["Version"]).set(Value({"N": str((seen.version or 0) + 1)})))
    return actions


def drifts(target: Target, seen: Snapshot) -> list[Drift]:
    """What differs now from what the form showed (one strongly consistent read)."""
    raw = read_raw(target.pk, target.sk)
    if not is_entity(raw, target.spec.entity_type):
        raw = None
    if raw is None and seen.exists:
        raise NotFound(target.spec.kind, target.label)
    now = take(target.spec, raw)
    found = [Drift(p, seen.values[p], now.values[p]) for p in target.spec.paths if now.values[p] != seen.values[p]]
    if target.spec.versioned and now.version != seen.version and not found:
        found.append(Drift("Version", _opt(seen.version), _opt(now.version)))
    return found


def _opt(number: int | None) -> str | None:
    return None if number is None else str(number)


def commit(tx: Transaction, target: Target, seen: Snapshot, claim_owner: Callable[[], EmailTaken | None]) -> None:
    try:
        tx.commit()
    except TransactionCancelled as exc:
        failed = set(exc.failed("ConditionalCheckFailed"))
        if failed & {"new-claim", "claim"}:
            taken = claim_owner()
            if taken is not None:
                raise taken from exc
        if "item" in failed or "create" in failed:
            raise EditConflict(target.spec.kind, target.label, drifts(target, seen)) from exc
        if "product" in failed or "warehouse" in failed:
            require_stock_parents(target)
        if exc.only_conflicts or failed:
            raise Busy(f"{target.spec.kind} {target.label} is being changed by another request; nothing was saved, "
                       "try again") from exc  # fmt: skip
        raise


def no_claim() -> EmailTaken | None:
    return None


def save(
    target: Target,
    *,
    seen: Snapshot,
    wanted: Mapping[str, str | None],
    actor: Actor,
    action: str,
    reason: str | None = None,
    extra: Callable[[Transaction], None] | None = None,
    claim_owner: Callable[[], EmailTaken | None] = no_claim,
) -> list[Changed]:
    """Write the paths of ``wanted`` that differ from ``seen`` and their audit entry in one transaction; the
    changes written (none: nothing was written)."""
    changes = [
        Changed(p, seen.values[p], wanted[p]) for p in target.spec.paths if p in wanted and wanted[p] != seen.values[p]
    ]
    if not changes:
        return []
    tx = Transaction(ShopItem, token=request_token())
    item = ShopItem(pk=target.pk, sk=target.sk)
    tx.update("item", item, _actions(target, seen, changes), _condition(target, seen))
    audit.record_edit(
        tx,
        actor,
        action=action,
        kind=target.spec.kind,
        partition=target.partition,
        entity_id=target.entity_id,
        changes=changes,
        warehouse_id=target.warehouse_id,
        reason=reason,
    )
    if extra is not None:
        extra(tx)
    commit(tx, target, seen, claim_owner)
    return changes
