"""Staff edits of a customer, a product, a warehouse, a product's stock in a warehouse: each save one
TransactWriteItems of the edited paths only, conditioned on what the form showed, with its audit entry (see
docs/editing.md, "What a save writes").

A value the form posts back unchanged is no change and is not validated: an old item's value that today's rules
refuse (a price with three decimals) does not stop staff from editing its other attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import partial

from pynamodb.expressions.condition import Condition
from pynamodb.expressions.operand import Path, Value
from pynamodb.expressions.update import Action

from dynamo import backoff, ddb_json, item_codec
from dynamo.transactions import Transaction, TransactionCancelled, request_token
from shop import audit, keys
from shop.attributes import decimal_text
from shop.audit import Actor, Changed
from shop.errors import Busy, Drift, EditConflict, EmailTaken, InvalidInput, NotFound
from shop.models import EmailClaim, ShopItem
from shop.snapshots import (
    ADDRESS_FIELDS,
    CUSTOMER,
    PRODUCT,
    STOCK,
    WAREHOUSE,
    EditSpec,
    Item,
    Snapshot,
    is_entity,
    read_raw,
    take,
)

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
    """The item an edit writes; its audit entries go to its partition (a stock row's: its product's)."""

    spec: EditSpec
    pk: str
    sk: str
    entity_id: str
    warehouse_id: str | None = None

    @property
    def label(self) -> str:
        return f"{self.entity_id} in warehouse {self.warehouse_id}" if self.warehouse_id else self.entity_id


def _own_key(spec: EditSpec, build: Callable[[str], str], entity_id: str) -> Target:
    """An entity whose PK and SK are both its key."""
    key = build(entity_id)
    return Target(spec, key, key, keys.strip(key))


customer_target = partial(_own_key, CUSTOMER, keys.customer)
product_target = partial(_own_key, PRODUCT, keys.product)
warehouse_target = partial(_own_key, WAREHOUSE, keys.warehouse)


def stock_target(product_id: str, warehouse_id: str) -> Target:
    pk, sk = keys.product(product_id), keys.warehouse(warehouse_id)
    return Target(STOCK, pk, sk, keys.strip(pk), warehouse_id=keys.strip(sk))


# --- what the forms show ---------------------------------------------------------------------------------------


def snapshot(target: Target) -> Snapshot:
    """The entity as its form shows it; NotFound, but a stock row may be missing (its form creates it)."""
    raw = _read(target)
    if raw is None and target.spec is not STOCK:
        raise NotFound(target.spec.kind, target.entity_id)
    if raw is None:
        require_stock_parents(target)
    return take(target.spec, raw)


def _read(target: Target) -> Item | None:
    """The item, strongly consistent (a form shows the latest save); None unless it is the target's entity."""
    raw = read_raw(target.pk, target.sk)
    return raw if is_entity(raw, target.spec.entity_type) else None


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
    """A text value as typed (None or "": absent); refuses NUL (DynamoDB keeps it, nothing downstream should
    have to) and text over ``limit``."""
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
    """What differs now from what the form showed."""
    raw = _read(target)
    if raw is None and seen.exists:
        raise NotFound(target.spec.kind, target.label)
    now = take(target.spec, raw)
    found = [Drift(p, seen.values[p], now.values[p]) for p in target.spec.paths if now.values[p] != seen.values[p]]
    if target.spec.versioned and now.version != seen.version and not found:
        found.append(Drift("Version", _opt(seen.version), _opt(now.version)))
    return found


def _opt(number: int | None) -> str | None:
    return None if number is None else str(number)


ClaimOwner = Callable[[], "EmailTaken | None"]  # who holds the address a failed claim was for, as the error


def commit(tx: Transaction, target: Target, seen: Snapshot, claim_owner: ClaimOwner | None) -> None:
    try:
        tx.commit()
    except TransactionCancelled as exc:
        failed = set(exc.failed("ConditionalCheckFailed"))
        if failed & {"new-claim", "claim"}:
            taken = claim_owner() if claim_owner else None
            if taken is not None:
                raise taken from exc
        if "item" in failed:
            raise EditConflict(target.spec.kind, target.label, drifts(target, seen)) from exc
        if "product" in failed or "warehouse" in failed:
            require_stock_parents(target)
        if exc.only_conflicts or failed:
            raise Busy(f"{target.spec.kind} {target.label} is being changed by another request; nothing was saved, "
                       "try again") from exc  # fmt: skip
        raise


def save(
    target: Target,
    *,
    seen: Snapshot,
    wanted: Mapping[str, str | None],
    actor: Actor,
    action: str,
    reason: str | None = None,
    extra: Callable[[Transaction], None] | None = None,
    claim_owner: ClaimOwner | None = None,
) -> list[Changed]:
    """Write the paths of ``wanted`` that differ from ``seen`` with their audit entry; the changes written."""
    changes = [
        Changed(p, seen.values[p], wanted[p]) for p in target.spec.paths if p in wanted and wanted[p] != seen.values[p]
    ]
    if not changes:
        return []
    tx = Transaction(ShopItem, token=request_token())
    item = ShopItem(pk=target.pk, sk=target.sk)
    if seen.exists:
        tx.update("item", item, _actions(target, seen, changes), _condition(target, seen))
    else:  # a stock row the form showed as missing: created with its GSI2 keys (as AWS's rows have them), if none
        # is there yet and the product and the warehouse exist
        tx.check("product", ShopItem, target.pk, target.pk, Path([keys.ENTITY_TYPE]) == string_value("product"))
        tx.check("warehouse", ShopItem, target.sk, target.sk, Path([keys.ENTITY_TYPE]) == string_value("warehouse"))
        sets = {keys.ENTITY_TYPE: STOCK.entity_type, "GSI2-PK": target.sk, "GSI2-SK": target.pk, **wanted}
        tx.update(
            "item", item, [Path([n]).set(string_value(str(v))) for n, v in sets.items()], Path(["PK"]).does_not_exist()
        )
    audit.record_edit(
        tx,
        actor,
        action=action,
        kind=target.spec.kind,
        partition=target.pk,
        entity_id=target.entity_id,
        changes=changes,
        warehouse_id=target.warehouse_id,
        reason=reason,
    )
    if extra is not None:
        extra(tx)
    commit(tx, target, seen, claim_owner)
    return changes


# Actions as the audit trail and the activity list name them.
EDIT_CUSTOMER, EDIT_PRODUCT, EDIT_WAREHOUSE = "edit-customer", "edit-product", "edit-warehouse"
STOCK_SET, STOCK_ADJUST, STOCK_IMPORT = "stock-set", "stock-adjust", "stock-import"

EmailOwner = Callable[[str], "str | None"]
"""Who holds an address without a claim (the admin view's email index), or None."""


def _address(seen: Snapshot, address: Mapping[str, str | None] | None) -> dict[str, str | None]:
    """The address fields given that differ from what the form showed, checked, by path (``Address.City``)."""
    wanted: dict[str, str | None] = {}
    for field_name, value in (address or {}).items():
        if field_name not in ADDRESS_FIELDS:
            raise InvalidInput(f"an address has no field {field_name!r}")
        path = f"Address.{field_name}"
        if value != seen.values[path]:
            wanted[path] = checked_text(value, what=f"address {field_name}", limit=MAX_ADDRESS_PART)
    return wanted


def _claim(email: str, customer_id: str) -> EmailClaim:
    key = keys.email_claim(email)
    return EmailClaim(pk=key, sk=key, customer_id=customer_id)


def _claim_key(email: str | None) -> str | None:
    """The claim key of an address; None for none, or an old value that is no address (it cannot be claimed)."""
    try:
        return keys.email_claim(email) if email else None
    except keys.InvalidId:
        return None


def _claim_holder(email: str) -> str | None:
    key = _claim_key(email)
    raw = read_raw(key, key) if key else None
    holder = item_codec.decode(raw).get(keys.CUSTOMER_ID) if raw else None
    return holder if isinstance(holder, str) else None


def customer_edit(
    *,
    customer_id: str,
    seen: Snapshot,
    name: str | None,
    email: str | None,
    address: Mapping[str, str | None] | None = None,
    actor: Actor,
    email_owner: EmailOwner | None = None,
) -> list[Changed]:
    """Save a customer's name, email and address fields, the email's claim moving with it in the transaction, and
    ``email_owner`` (the admin view's email lookup) guarding addresses not claimed yet: docs/editing.md, "Unique
    emails"."""
    target = customer_target(customer_id)
    cid = target.entity_id
    wanted: dict[str, str | None] = {}
    if name != seen.values["Name"]:
        wanted["Name"] = checked_text(name, what="name", limit=MAX_NAME, required=True)
    if email != seen.values["Email"]:
        wanted["Email"] = check_email(checked_text(email, what="email", limit=MAX_EMAIL, required=True) or "")
    wanted |= _address(seen, address)
    wanted = {path: value for path, value in wanted.items() if value != seen.values[path]}
    if not wanted:
        return []
    old, new = seen.values["Email"], wanted.get("Email", seen.values["Email"])
    old_key, new_key = _claim_key(old), _claim_key(new)
    old_holder = _claim_holder(old) if old else None
    if new and new_key != old_key and email_owner is not None:
        other = email_owner(new)
        if other is not None and other != cid:
            raise EmailTaken(new, other)

    def claims(tx: Transaction) -> None:
        if new_key != old_key:
            if new:
                tx.put("new-claim", _claim(new, cid), ShopItem.pk.does_not_exist())
            if old and old_holder == cid:
                tx.delete("old-claim", _claim(old, cid), EmailClaim.customer_id == cid)
        elif new and new_key is not None and old_holder is None:  # a customer from before claims claims it now
            tx.put("claim", _claim(new, cid), ShopItem.pk.does_not_exist())

    def taken() -> EmailTaken | None:
        holder = _claim_holder(new) if new else None
        return EmailTaken(new, holder) if new and holder is not None and holder != cid else None

    return save(target, seen=seen, wanted=wanted, actor=actor, action=EDIT_CUSTOMER, extra=claims, claim_owner=taken)


def product_edit(
    *,
    product_id: str,
    seen: Snapshot,
    name: str | None,
    description: str | None,
    price: Decimal | str | None,
    category: str | None,
    actor: Actor,
) -> list[Changed]:
    """Save a product's name, description, price and category; a price equal in value to the stored one is none."""
    target = product_target(product_id)
    wanted: dict[str, str | None] = {}
    if name != seen.values["Detail.Name"]:
        wanted["Detail.Name"] = checked_text(name, what="name", limit=MAX_NAME, required=True)
    if description != seen.values["Detail.Description"]:
        wanted["Detail.Description"] = checked_text(description, what="description", limit=MAX_DESCRIPTION)
    if category != seen.values["Category"]:
        wanted["Category"] = checked_text(category, what="category", limit=MAX_CATEGORY)
    price_now = None if price is None or price == "" else str(price)
    if not same_number(seen.values["Price"], price_now):
        if price_now is None:
            raise InvalidInput("price is required")
        wanted["Price"] = price_text(price_now)
    return save(target, seen=seen, wanted=wanted, actor=actor, action=EDIT_PRODUCT)


def warehouse_edit(
    *,
    warehouse_id: str,
    seen: Snapshot,
    name: str | None,
    address: Mapping[str, str | None] | None = None,
    actor: Actor,
) -> list[Changed]:
    """Save a warehouse's ``Name`` (ours; AWS's warehouses have none) and address fields."""
    target = warehouse_target(warehouse_id)
    wanted: dict[str, str | None] = {}
    if name != seen.values["Name"]:
        wanted["Name"] = checked_text(name, what="name", limit=MAX_NAME)
    wanted |= _address(seen, address)
    return save(target, seen=seen, wanted=wanted, actor=actor, action=EDIT_WAREHOUSE)


def stock_set(
    *,
    product_id: str,
    warehouse_id: str,
    quantity: int,
    seen: Snapshot,
    actor: Actor,
    reason: str | None = None,
    action: str = STOCK_SET,
) -> list[Changed]:
    """Set a product's ``Quantity`` in a warehouse, conditioned on what the form showed (missing: created)."""
    target = stock_target(product_id, warehouse_id)
    text = quantity_text(quantity)
    why = checked_text(reason, what="reason", limit=MAX_REASON)
    if same_number(seen.values["Quantity"], text):
        return []
    return save(target, seen=seen, wanted={"Quantity": text}, actor=actor, action=action, reason=why)


def stock_adjust(
    *, product_id: str, warehouse_id: str, delta: int, reason: str, actor: Actor, seen: Snapshot | None = None
) -> list[Changed]:
    """Add ``delta`` (or take) to a stock row, never below zero, conditioned on the quantity ``seen`` (a form)
    showed (``EditConflict``), or else on the quantity read now, retried when a concurrent change wins."""
    if isinstance(delta, bool) or not isinstance(delta, int) or delta == 0 or abs(delta) > MAX_QUANTITY:
        raise InvalidInput(f"an adjustment is a whole number other than 0, at most {MAX_QUANTITY} either way")
    why = checked_text(reason, what="reason", limit=MAX_REASON, required=True)
    target = stock_target(product_id, warehouse_id)

    def attempt() -> list[Changed]:
        base = seen if seen is not None else snapshot(target)
        current = base.values["Quantity"]
        try:
            level = int(Decimal(current)) if current is not None else 0
        except InvalidOperation as exc:
            raise InvalidInput(f"the stored quantity {current!r} is not a number") from exc
        if level + delta < 0:
            raise InvalidInput(f"only {level} in stock, cannot take {-delta}")
        wanted = {"Quantity": quantity_text(level + delta)}
        try:
            return save(target, seen=base, wanted=wanted, actor=actor, action=STOCK_ADJUST, reason=why)
        except EditConflict as exc:
            if seen is not None:
                raise
            raise backoff.LostRace from exc

    if seen is not None:
        return attempt()
    return backoff.RACES.rerun(attempt, gave_up=Busy.contended(f"stock of {target.label}"))
