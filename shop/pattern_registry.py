"""The registry of named reads: each access pattern described once (name, typed parameters, function, table, index,
key condition in words) for ``manage.py access_pattern``, the explorer and the pages. ``Param.clean`` checks input
before any call, so the CLI and the explorer refuse it alike. The admin view registers its own with these classes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pynamodb.models import Model

from dynamo.paging import MAX_PAGE, Key, Page, all_items
from shop import access_patterns as ap
from shop import keys
from shop.errors import InvalidInput
from shop.models import Invoice, Order, ShopItem
from shop.plain import from_attribute_values, read_attributes
from shop.timestamps import QUERY_NAMES, bound, parse_day, range_bounds

ParamKind = Literal["id", "ids", "start", "end", "day", "text"]
MAX_IDS = 100


@dataclass(frozen=True)
class Param:
    """One parameter: its keyword (``customer_id``), what it holds, and for ids their key prefix."""

    name: str
    kind: ParamKind = "id"
    prefix: str = ""
    help: str = ""

    @property
    def query_name(self) -> str:
        """The name in a URL's query string (``start``/``end`` appear as ``from``/``to``, like the pages)."""
        return QUERY_NAMES.get(self.name, self.name)

    @property
    def label(self) -> str:
        return self.query_name.replace("_", " ")

    def clean(self, value: str) -> str:
        """The value the function takes (ids bare); InvalidInput when it is not one."""
        text = value.strip() if isinstance(value, str) else ""
        if not text:
            raise InvalidInput(f"{self.label} is required")
        if self.kind == "id":
            return keys.bare(text, self.prefix, what=self.label)
        if self.kind == "ids":
            ids = [keys.bare(part, self.prefix, what=self.label) for part in text.split(",") if part.strip()]
            if not 1 <= len(ids) <= MAX_IDS:
                raise InvalidInput(f"{self.label}: give 1 to {MAX_IDS} ids separated by commas")
            return ",".join(dict.fromkeys(ids))
        if self.kind in ("start", "end"):
            bound(text, end=self.kind == "end", what=self.label)
            return text
        if self.kind == "day":
            return parse_day(text, what=self.label).isoformat()
        return text


def check_params(params: tuple[Param, ...], values: dict[str, str]) -> dict[str, str]:
    """Clean every parameter (and a date range's order); returns the function's keyword arguments."""
    cleaned = {p.name: p.clean(values.get(p.name, "")) for p in params}
    if "start" in cleaned and "end" in cleaned:
        range_bounds(cleaned["start"], cleaned["end"])
    return cleaned


Fetch = Callable[..., Page[Any]]


@dataclass(frozen=True)
class AccessPattern:
    """A named read. ``number``: AWS's (1-16) or ours (``AV1``, ``ours``); ``model``: what names its CSV columns (a
    model family, or the names); ``attributes``: one item's, as DynamoDB JSON."""

    number: str
    name: str
    params: tuple[Param, ...]
    fetch: Fetch
    description: str
    table: str
    index: str | None
    operation: str
    condition: str
    model: type[Model] | tuple[str, ...]
    group: str = "AWS's online-shop model"
    attributes: Callable[[Any], Mapping[str, Any]] = read_attributes

    @property
    def usage(self) -> str:
        return " ".join([self.name, *(p.name.upper() for p in self.params)])

    @property
    def where(self) -> str:
        return f"{self.table}{' / ' + self.index if self.index else ''}"

    def plain(self, item: Any) -> dict[str, Any]:
        return from_attribute_values(self.attributes(item))

    def page(self, *, limit: int, start_key: Key | None = None, **params: Any) -> Page[Any]:
        return self.fetch(limit=limit, start_key=start_key, **params)

    def run(self, **params: str) -> Iterator[Any]:
        """Every item, in DynamoDB's order (one page after another)."""
        return all_items(self.fetch, page_size=MAX_PAGE, **params)

    def columns(self) -> list[str]:
        """``PK``, ``SK``, then every attribute name its items may have (the model family's), sorted."""
        if isinstance(self.model, tuple):
            return list(self.model)
        return attribute_columns(self.model)


def attribute_columns(model: type[Model]) -> list[str]:
    family = [model, *_subclasses(model)]
    names = {a.attr_name for m in family for a in m.get_attributes().values()}
    first = [n for n in ("PK", "SK", keys.ENTITY_TYPE, "Kind") if n in names]
    return first + sorted(names - set(first))


def _subclasses(model: type[Model]) -> list[type[Model]]:
    found: list[type[Model]] = []
    for sub in model.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def one(get: Callable[..., Any]) -> Fetch:
    """A GetItem-like read as a page of zero or one item (never a next page)."""

    def fetch(*, limit: int, start_key: Key | None = None, **params: str) -> Page[Any]:
        item = get(**params)
        return Page(items=[] if item is None else [item])

    return fetch


_IID = Param("invoice_id", prefix=keys.INVOICE)
_FROM = Param("start", "start", help="YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS")
_TO = Param("end", "end", help="YYYY-MM-DD (the whole day) or YYYY-MM-DDTHH:MM:SS")
SHOP = "shop table"
OURS = "ours (shop table)"


def _get(number: str, name: str, get: ap.KeyGet[Any], what: str) -> AccessPattern:
    params = (Param(get.param, prefix=get.prefix),)
    return AccessPattern(number, name, params, one(get), what, SHOP, None, "GetItem", get.condition, get.model)


def _query(
    number: str, name: str, query: ap.KeyQuery[Any], what: str, group: str = AccessPattern.group
) -> AccessPattern:
    """A pattern of one ``KeyQuery``, read from its declaration."""
    params = (Param(query.param, prefix=query.prefix), *((_FROM, _TO) if query.between is not None else ()))
    return AccessPattern(
        number, name, params, query, what, SHOP, query.index, "Query", query.condition, query.model, group=group
    )


SHOP_PATTERNS: list[AccessPattern] = [
    _get("1", "getCustomerByCustomerId", ap.customer_by_id, "a customer"),
    _get("2", "getProductByProductId", ap.product_by_id, "a product"),
    _get("3", "getWarehouseByWarehouseId", ap.warehouse_by_id, "a warehouse"),
    _query("4", "getProductInventoryByProductId", ap.inventory_for_product, "a product's stock in every warehouse"),
    _query(
        "5", "getOrderDetailsByOrderId", ap.order_details,
        "everything about an order: the order, its items, invoice, shipments and shipment items",
    ),
    _query("6", "getProductByOrderId", ap.order_items, "an order's items"),
    _query("7", "getInvoiceByOrderId", ap.invoices_for_order, "an order's invoice"),
    _query("8", "getShipmentByOrderId", ap.shipments_for_order, "an order's shipments (not their items, shp#)"),
    _query(
        "9", "getOrderByProductIdForDateRange", ap.order_items_for_product,
        "a product's order items in a date range, oldest first",
    ),
    AccessPattern(
        "10", "getInvoiceByInvoiceId", (_IID,), one(ap.invoice_by_id), "an invoice",
        SHOP, "GSI1", "Query", ap.invoice_query.condition, Invoice,
    ),
    AccessPattern(
        "11", "getPaymentByInvoiceId", (_IID,), one(ap.invoice_by_id),
        "an invoice's payments (the invoice item; payments are in Detail.Payments)",
        SHOP, "GSI1", "Query", ap.invoice_query.condition, Invoice,
    ),
    _query("12", "getShipmentDetailsByShipmentId", ap.shipment_details, "a shipment and its items"),
    _query("13", "getShipmentByWarehouseId", ap.shipments_for_warehouse, "a warehouse's shipments"),
    _query(
        "14", "getProductInventoryByWarehouseId", ap.inventory_for_warehouse, "a warehouse's stock of every product"
    ),
    _query(
        "15", "getInvoiceByCustomerIdForDateRange", ap.invoices_for_customer,
        "a customer's invoices in a date range, oldest first",
    ),
    _query(
        "16", "getProductsByCustomerIdForDateRange", ap.order_items_for_customer,
        "a customer's ordered products in a date range, oldest first",
    ),
    AccessPattern(
        "ours", "getOrdersDueOnDate", (Param("date", "day", help="YYYY-MM-DD"),), ap.orders_due_on,
        "orders expected to be delivered on a date (orders without DeliveryDate are not indexed)",
        SHOP, "DeliveryDate-index", "Query", "DeliveryDate = <date>", Order, group=OURS,
    ),
    _query("ours", "getFavouritesByCustomerId", ap.favourites_for_customer, "a customer's favourite products", OURS),
]  # fmt: skip

PATTERNS: dict[str, AccessPattern] = {p.name: p for p in SHOP_PATTERNS}


def run_pattern(name: str, args: list[str]) -> Iterator[ShopItem]:
    """Run a pattern by name with positional arguments; LookupError/InvalidInput before any call."""
    pattern = PATTERNS.get(name)
    if pattern is None:
        raise LookupError(f"unknown access pattern {name!r}; known: {', '.join(PATTERNS)}")
    if len(args) != len(pattern.params):
        raise InvalidInput(f"{name} takes {len(pattern.params)} argument(s): {pattern.usage}")
    values = dict(zip((p.name for p in pattern.params), args, strict=True))
    return pattern.run(**check_params(pattern.params, values))
