"""create_tables semantics against DynamoDB Local, and the call recording every page relies on."""

from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, KeysOnlyProjection

from dynamo.instrumentation import recording
from dynamo.models import BaseMeta, InstrumentedModel
from dynamo.tables import TableSpec, delete_table, ensure_table, projection_drift
from shop import access_patterns as ap
from tests import factories
from tests.engines import forget_connections


class Thing(InstrumentedModel):
    class Meta(BaseMeta):
        table_name = "things-v1"

    pk = UnicodeAttribute(hash_key=True, attr_name="PK")
    colour = UnicodeAttribute(null=True, attr_name="Colour")


class ByColour(GlobalSecondaryIndex["ThingV2"]):
    class Meta:
        index_name = "ByColour"
        projection = AllProjection()

    colour = UnicodeAttribute(hash_key=True, attr_name="Colour")


class ThingV2(Thing):
    """The next version of the model declares an index: create_tables adds it to the live table."""

    by_colour = ByColour()


def test_missing_index_is_added_online_and_backfilled(ddb_local: object) -> None:
    try:
        assert ensure_table(TableSpec(Thing, stream_view_type="NEW_AND_OLD_IMAGES"))
        for n in range(30):
            Thing(pk=f"t{n}", colour="red" if n % 3 else "blue").save()
        changes = ensure_table(TableSpec(ThingV2, stream_view_type="NEW_AND_OLD_IMAGES"))
        assert changes == ["added index ByColour to things-v1"]
        forget_connections()  # two versions of one model in one process: forget v1's cached table description
        assert len(list(ThingV2.by_colour.query("blue"))) == 10
        assert ensure_table(TableSpec(ThingV2, stream_view_type="NEW_AND_OLD_IMAGES")) == []
    finally:
        delete_table(Thing)


class ByColourKeysOnly(GlobalSecondaryIndex["ThingV3"]):
    class Meta:
        index_name = "ByColour"
        projection = KeysOnlyProjection()

    colour = UnicodeAttribute(hash_key=True, attr_name="Colour")


class ThingV3(Thing):
    by_colour = ByColourKeysOnly()


def test_an_index_projecting_less_than_the_model_wants_is_reported(ddb_local: object) -> None:
    try:
        ensure_table(TableSpec(ThingV3))
        said: list[str] = []
        assert ensure_table(TableSpec(ThingV2), progress=said.append) == []
        assert [line for line in said if line.startswith("warning:")] == [
            "warning: things-v1 index ByColour projects KEYS_ONLY, the model wants ALL; DynamoDB cannot change a "
            "projection in place, so those attributes read as absent through it until it is replaced by an index "
            "of a new name"
        ]
    finally:
        delete_table(Thing)


def test_projection_drift_in_words() -> None:
    def index(kind: str, *attrs: str) -> dict[str, object]:
        projection: dict[str, object] = {"ProjectionType": kind}
        if attrs:
            projection["NonKeyAttributes"] = list(attrs)
        return {"IndexName": "GSI6", "Projection": projection}

    assert projection_drift(index("INCLUDE", "A", "B"), index("INCLUDE", "B", "A")) is None
    assert projection_drift(index("ALL"), index("INCLUDE", "A")) is None
    assert projection_drift(index("INCLUDE", "A", "B"), index("INCLUDE", "A")) is None
    assert projection_drift(index("INCLUDE", "A"), index("KEYS_ONLY")) is None
    drift = projection_drift(index("INCLUDE", "A"), index("INCLUDE", "A", "Detail"))
    assert drift is not None and drift.startswith("index GSI6 lacks Detail;")


def test_recording_counts_calls_and_capacity(shop_table: str) -> None:
    factories.shop_with(customers=2, products=1)
    with recording() as outer:
        ap.customer_by_id(customer_id="1001")
        with recording() as inner:
            ap.inventory_for_warehouse(warehouse_id="301")
    assert inner.by_operation() == {"Query": 1}
    assert inner.calls[0].index == "GSI2" and inner.calls[0].items == 1
    assert outer.by_operation() == {"GetItem": 1, "Query": 1}
    assert outer.read_units > 0 and outer.ms > 0
