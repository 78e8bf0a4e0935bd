"""Staff edits of the shop's entities: a customer, a product, a warehouse, a product's stock in a warehouse.

Each save is one TransactWriteItems (``shop.edit_writes.save``) holding one UpdateItem of the edited attributes
only (document paths inside ``Detail`` and ``Address``; AWS's encodings kept), conditioned on every attribute the
form showed (``shop.snapshots``) and, for a product, its ``Version``; the audit entry in the entity's partition;
and, for a customer's email, the claims (``EmailClaim``) that keep an address to one customer. So the change and
its audit entry happen together or not at all, and a save that changes nothing writes nothing. A stale form is
``EditConflict`` (what changed meanwhile), an address held by another customer ``EmailTaken``.

Values are validated here (the forms check the same limits first). A value the form posts back unchanged is no
change, and is not validated: an old item's value that today's rules refuse (a price with three decimals) does
not stop staff from editing its other attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation

from pynamodb.expressions.operand import Path

from dynamo import backoff, item_codec
from dynamo.transactions import Transaction, request_token
from shop import audit, keys
from shop.audit import Actor, Changed
from shop.edit_writes import (
    MAX_ADDRESS_PART,
    MAX_CATEGORY,
    MAX_DESCRIPTION,
    MAX_EMAIL,
    MAX_NAME,
    MAX_PRICE,
    MAX_QUANTITY,
    MAX_REASON,
    PRICE_PLACES,
    Target,
    check_email,
    checked_text,
    commit,
    customer_target,
    no_claim,
    price_text,
    product_target,
    quantity_text,
    same_number,
    save,
    snapshot,
    stock_target,
    string_value,
    warehouse_target,
)
from shop.errors import Busy, EditConflict, EmailTaken, InvalidInput
from shop.models import EmailClaim, ShopItem
from shop.snapshots import ADDRESS_FIELDS, STOCK, Snapshot, read_raw

__all__ = [
    "MAX_ADDRESS_PART",
    "MAX_CATEGORY",
    "MAX_DESCRIPTION",
    "MAX_EMAIL",
    "MAX_NAME",
    "MAX_PRICE",
    "MAX_QUANTITY",
    "MAX_REASON",
    "PRICE_PLACES",
    "Target",
    "customer_edit",
    "customer_target",
    "product_edit",
    "product_target",
    "snapshot",
    "stock_adjust",
    "stock_set",
    "stock_target",
    "warehouse_edit",
    "warehouse_target",
]

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


# --- customers --------------------------------------------------------------------------------------------------


def _claim(email: str, customer_id: str) -> EmailClaim:
    key = keys.email_claim(email)
    return EmailClaim(pk=key, sk=key, customer_id=customer_id)


def _claim_key(email: str | None) -> str | None:
    """The claim key of an address, or None for none (or an old value that is no address: it cannot be
    claimed, and is replaced by the edit)."""
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
    """Save a customer's name, email and (when given) address fields (``Street``, ``City`` ...).

    The email's claim moves with it in the same transaction: the new address is claimed (refused when another
    customer holds it: ``EmailTaken``), the old claim released. A customer written before claims existed
    claims its address on its first edit. ``email_owner`` finds a customer holding an address without a claim
    (the admin view's email index; eventually consistent): until ``backfill email-claims`` has run, that is
    what keeps old addresses from being taken."""
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


# --- products ---------------------------------------------------------------------------------------------------


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
    """Save a product's ``Detail.Name``, ``Detail.Description``, ``Price`` and ``Category``; conditioned on its
    ``Version`` too, which the save increments. A price equal in value to the stored one is no change."""
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


# --- warehouses ---------------------------------------------------------------------------------------------


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


# --- stock ------------------------------------------------------------------------------------------------------


def _create_stock(target: Target, quantity: str, *, actor: Actor, action: str, reason: str | None) -> list[Changed]:
    """A stock row the product lacks in that warehouse: created (with its GSI2 keys, as AWS's rows have them),
    conditioned on there being none yet and on the product and the warehouse existing."""
    changes = [Changed("Quantity", None, quantity)]
    tx = Transaction(ShopItem, token=request_token())
    tx.check("product", ShopItem, target.pk, target.pk, Path([keys.ENTITY_TYPE]) == string_value("product"))
    tx.check("warehouse", ShopItem, target.sk, target.sk, Path([keys.ENTITY_TYPE]) == string_value("warehouse"))
    sets = {keys.ENTITY_TYPE: STOCK.entity_type, "GSI2-PK": target.sk, "GSI2-SK": target.pk, "Quantity": quantity}
    tx.update(
        "create",
        ShopItem(pk=target.pk, sk=target.sk),
        [Path([name]).set(string_value(text)) for name, text in sets.items()],
        Path(["PK"]).does_not_exist(),
    )
    audit.record_edit(
        tx,
        actor,
        action=action,
        kind=STOCK.kind,
        partition=target.partition,
        entity_id=target.entity_id,
        changes=changes,
        warehouse_id=target.warehouse_id,
        reason=reason,
    )
    commit(tx, target, Snapshot(values={"Quantity": None}, exists=False), no_claim)
    return changes


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
    """Set a product's ``Quantity`` in a warehouse (a decimal string, as AWS's), conditioned on the quantity
    the form showed; a row the form showed as missing is created."""
    target = stock_target(product_id, warehouse_id)
    text = quantity_text(quantity)
    why = checked_text(reason, what="reason", limit=MAX_REASON)
    if same_number(seen.values["Quantity"], text):
        return []
    if not seen.exists:
        return _create_stock(target, text, actor=actor, action=action, reason=why)
    return save(target, seen=seen, wanted={"Quantity": text}, actor=actor, action=action, reason=why)


def stock_adjust(
    *,
    product_id: str,
    warehouse_id: str,
    delta: int,
    reason: str,
    actor: Actor,
    seen: Snapshot | None = None,
) -> list[Changed]:
    """Add ``delta`` (or take, when negative) to a stock row, never below zero, with the ``reason`` in the
    audit entry. With ``seen`` (a form), conditioned on the quantity it showed (``EditConflict`` when it
    moved); without, on the quantity read now, read again and retried when a concurrent change wins."""
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
        try:
            return stock_set(
                product_id=target.entity_id,
                warehouse_id=target.warehouse_id or "",
                quantity=level + delta,
                seen=base,
                actor=actor,
                reason=why,
                action=STOCK_ADJUST,
            )
        except EditConflict as exc:
            if seen is not None:
                raise
            raise backoff.LostRace from exc

    if seen is not None:
        return attempt()
    return backoff.RACES.rerun(attempt, gave_up=Busy.contended(f"stock of {target.label}"))
