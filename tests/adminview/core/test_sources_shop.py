"""What the shop's items imply for the view (``adminview.core.sources.shop``): pure, no DynamoDB; images are plain
values, as the sync decodes them."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from adminview.core import schema, values
from adminview.core.sources import UnknownSource, for_record
from adminview.core.sources.shop import SOURCE, OrderState, ProductState, ProfileState, activity_items

ids = st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True)
statuses = st.one_of(st.none(), st.sampled_from(["PENDING", "SHIPPED", "DELIVERED", "CANCELLED", "weird"]))


def order_image(oid: str, cid: str, status: str | None, **extra: Any) -> dict[str, Any]:
    image = {"PK": "o#" + oid, "SK": "c#" + cid, "EntityType": "order", **extra}
    if status is not None:
        image["Status"] = status
    return image


def line(
    oid: str, pid: str, quantity: str = "1", price: str = "2.50", category: str | None = "Books"
) -> dict[str, Any]:
    image = {"PK": "o#" + oid, "SK": "p#" + pid, "EntityType": "orderItem", "Quantity": quantity}
    image["Price"] = price
    if category is not None:
        image["Category"] = category
    return image


def invoice(oid: str, iid: str, *txids: str) -> dict[str, Any]:
    payments = [{"TransactionId": t} for t in txids] + [{"Type": "Cash"}]
    return {
        "PK": "o#" + oid,
        "SK": "i#" + iid,
        "EntityType": "invoice",
        "Detail": {"Payments": payments},
    }


def order_state(oid: str, *images: dict[str, Any]) -> OrderState:
    state = OrderState.read(schema.order_anchor(oid), None)
    for image in images:
        state.apply(values.item_key(image)[1], image)
    return state


# no deadline: an example's wall-clock time depends on what else the machine's two cores run
@settings(deadline=None)
@given(ids, ids, statuses, st.booleans())
def test_an_order_is_in_its_status_list_exactly_while_it_has_a_listed_status(
    oid: str, cid: str, status: str | None, with_date: bool
) -> None:
    extra = {"Date": "2026-01-01T00:00:00"} if with_date else {}
    summary = order_state(oid, order_image(oid, cid, status, **extra)).implied(4).anchor
    assert summary is not None and summary["OrderId"] == oid and summary["CustomerId"] == cid
    index = schema.ORDERS_BY_STATUS
    assert (index.hash_key in summary) == (status in schema.LISTED_STATUSES)
    if status in schema.LISTED_STATUSES:
        assert summary[index.hash_key] == schema.status_partition(status, schema.shard_of(oid, 4))
        assert summary[index.range_key] == schema.order_position("2026-01-01T00:00:00" if with_date else None, oid)


def test_an_order_implies_its_customers_entry_its_payments_and_its_categories() -> None:
    state = order_state(
        "1",
        order_image("1", "9", "PENDING", Date="2026-03-04T10:00:00"),
        line("1", "7", "2", "10.25", "Books"),
        line("1", "8", "1", "1.00", None),
        invoice("1", "5", "TX-1", "TX-1"),
    )
    implied = state.implied(list_shards=2)
    shard = schema.shard_of("1", 2)
    assert set(implied.entries) == {
        schema.customer_order("9", "2026-03-04T10:00:00", "1"),
        schema.payment("TX-1", "1"),
        schema.category_order("Books", shard, "2026-03-04T10:00:00", "1"),
        schema.category_order(schema.UNCATEGORIZED, shard, "2026-03-04T10:00:00", "1"),
    }
    assert schema.payment("TX-1", "1")[0] == "t#tx-1"  # the transaction id's case is ignored
    books = implied.entries[schema.category_order("Books", shard, "2026-03-04T10:00:00", "1")]
    assert books["Units"] == 2 and books["Revenue"] == Decimal("20.5")


def test_a_customers_order_entry_holds_what_the_order_spent_until_it_is_cancelled() -> None:
    # given an order with its total, in its customer's list
    placed = order_image("1", "9", "PENDING", Date="2026-03-04T10:00:00", Total="20.50")
    entry_key = schema.customer_order("9", "2026-03-04T10:00:00", "1")

    # when it is pending, shipped, then cancelled
    pending = order_state("1", placed).implied(1).entries[entry_key]
    shipped = order_state("1", {**placed, "Status": "SHIPPED"}).implied(1).entries[entry_key]
    cancelled = order_state("1", {**placed, "Status": "CANCELLED"}).implied(1).entries[entry_key]

    # then the entry holds the total while it is not cancelled, unchanged by shipping (no write), and none after
    assert (
        pending
        == shipped
        == {
            **values.key(*entry_key),
            schema.KIND: schema.CUSTOMER_ORDER,
            "OrderId": "1",
            "Date": "2026-03-04T10:00:00",
            "Spent": "20.50",
        }
    )
    assert "Spent" not in cancelled and cancelled["Date"] == "2026-03-04T10:00:00"
    # and an order without a total (AWS's sample) spent nothing the entry could say
    assert (
        "Spent"
        not in order_state("1", order_image("1", "9", "PENDING"))
        .implied(1)
        .entries[schema.customer_order("9", None, "1")]
    )


def test_lines_and_invoices_before_the_order_item_imply_only_payments_and_count_nothing() -> None:
    state = order_state("1", line("1", "7"), invoice("1", "5", "t1"))
    implied = state.implied(list_shards=1)
    assert implied.anchor is not None and implied.anchor[schema.KIND] == schema.COLLECTION
    assert set(implied.entries) == {schema.payment("t1", "1")}
    assert implied.sums == {}


# no deadline: an example's wall-clock time depends on what else the machine's two cores run
@settings(deadline=None)
@given(st.permutations(range(4)))
def test_the_collection_implies_the_same_whatever_order_its_items_arrive_in(order: list[int]) -> None:
    images = [
        order_image("1", "9", "SHIPPED", Date="2026-03-04T10:00:00"),
        line("1", "7"),
        line("1", "8", category="Garden"),
        invoice("1", "5", "t1"),
    ]
    expected = order_state("1", *images).implied(3)
    assert order_state("1", *(images[i] for i in order)).implied(3) == expected


def test_a_stored_anchor_reads_back_to_the_state_it_was_written_from() -> None:
    state = order_state(
        "1", order_image("1", "9", "PENDING", Date="2026-03-04T10:00:00"), line("1", "7"), invoice("1", "5", "t1")
    )
    implied = state.implied(2)
    assert implied.anchor is not None
    again = OrderState.read(schema.order_anchor("1"), implied.anchor).implied(2)
    assert again == implied


# no deadline: an example's wall-clock time depends on what else the machine's two cores run
@settings(deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["PK", "SK", "EntityType", "Status", "Date", "ItemCount", "Detail", "Quantity", "Name"]),
        st.one_of(st.text(max_size=12), st.just({}), st.just(Decimal(1))),
    )
)
def test_arbitrary_images_never_crash_but_a_malformed_count(image: dict[str, Any]) -> None:
    key = values.maybe_key(image)
    if key is None:
        return
    anchor = SOURCE.anchor_of(key, image)
    if anchor is None:
        return
    state = SOURCE.read_state(anchor, None)
    try:
        state.apply(key[1], image)
    except ValueError:
        assert "ItemCount" in image  # the one value that must parse
        return
    state.implied(2)


def test_aws_sample_items_without_our_attributes() -> None:
    order = order_image("12345", "12345", None, Date="2020-06-21T19:10:00")
    summary = order_state("12345", order).implied(1).anchor
    assert summary is not None
    assert "Status" not in summary and schema.ORDERS_BY_STATUS.hash_key not in summary and "Total" not in summary
    assert SOURCE.anchor_of(("p#1", "w#1"), {"EntityType": "warehouseItem"}) is None


def test_profiles_and_products_are_found_by_their_words_and_a_customer_by_email() -> None:
    profile = ProfileState.read(schema.profile("7"), None)
    profile.apply("c#7", {"EntityType": "customer", "Name": "Ada Lovelace-Byron", "Email": " Ada@Example.COM "})
    implied = profile.implied(1)
    terms = {key[1].split("#")[0] for key in implied.entries}
    # the email's parts, once; ada, which the whole email starts with, through the whole email's entry
    assert terms == {"lovelace", "byron", "example", "com", "ada@example.com"}
    product = ProductState.read(schema.product("3"), None)
    product.apply("p#3", {"EntityType": "product", "Detail": {"Name": "Crème Brûlée set"}})
    assert {key[1].split("#")[0] for key in product.implied(1).entries} == {"creme", "brulee", "set"}


def test_an_orders_tracking_numbers_are_search_entries_that_lead_back_to_its_anchor() -> None:
    # given an order with two shipments, one without a tracking number
    shipped = {"EntityType": "shipment", "Carrier": "UPS", "TrackingNumber": "1Z-999 aa"}
    state = order_state(
        "4",
        order_image("4", "9", "SHIPPED"),
        {"PK": "o#4", "SK": "sh#1", **shipped},
        {"PK": "o#4", "SK": "sh#2", "EntityType": "shipment"},
    )
    # then one search entry, its tracking number without case or separators, names the order
    entries = state.implied(1).entries
    key = schema.search_entry("1z999aa", "order", "4")
    assert [k for k in entries if k[0].startswith(schema.SEARCH_PREFIX)] == [key]
    assert SOURCE.entry_anchor(entries[key]) == schema.order_anchor("4")


def test_a_staff_change_is_in_three_lists() -> None:
    audit = {"EntityType": "audit", "User": "ann", "Action": "ship", "At": "2026-01-01T00:00:00.000001"}
    items = activity_items(("o#1", "AUDIT#2026-01-01T00:00:00.000001#ab"), audit, list_shards=2)
    partitions = [values.item_key(i)[0] for i in items]
    assert partitions[1] == "USER#ann" and partitions[2].startswith("KIND#order#")
    assert all(i["Source"] == "o#1" for i in items)


def test_records_are_dispatched_by_the_table_their_stream_belongs_to(monkeypatch: Any) -> None:
    monkeypatch.setenv("SHOP_TABLE_NAME", "Shop-1")
    arn = "arn:aws:dynamodb:us-east-1:123456789012:table/{}/stream/2026-01-01T00:00:00.000"
    assert for_record({"eventSourceARN": arn.format("Shop-1")}) is SOURCE
    for record in ({"eventSourceARN": arn.format("Elsewhere")}, {}, {"eventSourceARN": 7}):
        try:
            for_record(record)
        except UnknownSource:
            continue
        raise AssertionError(f"{record} was dispatched")


def test_every_item_carries_only_what_its_kind_declares() -> None:
    state = order_state(
        "1", order_image("1", "9", "PENDING", Date="2026-03-04T10:00:00"), line("1", "7"), invoice("1", "5", "t1")
    )
    implied = state.implied(2)
    for item in implied.items().values():
        kind = item[schema.KIND]
        extra = set(item) - {schema.PK, schema.SK, schema.KIND, *schema.ATTRIBUTES[kind]}
        assert extra <= set(schema.ORDERS_BY_STATUS.key_names), (kind, extra)
