"""The returns table as PynamoDB models: one base (keys, ``GSI1``, ``EntityType`` discriminator)."""

from __future__ import annotations

from pynamodb.attributes import DiscriminatorAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex

from dynamo import conf
from dynamo.models import BaseMeta, InstrumentedModel
from dynamo.tables import TableSpec


class GSI1(GlobalSecondaryIndex["ReturnsItem"]):
    """An order's returns (``o#<oid>`` -> ``r#<rid>``)."""

    class Meta:
        index_name = "GSI1"
        projection = AllProjection()

    gsi1_pk = UnicodeAttribute(hash_key=True, attr_name="GSI1-PK")
    gsi1_sk = UnicodeAttribute(range_key=True, attr_name="GSI1-SK")


class ReturnsItem(InstrumentedModel):
    class Meta(BaseMeta):
        table_name = conf.returns_table_name()
        stream_view_type = "NEW_AND_OLD_IMAGES"

    pk = UnicodeAttribute(hash_key=True, attr_name="PK")
    sk = UnicodeAttribute(range_key=True, attr_name="SK")
    entity_type = DiscriminatorAttribute(attr_name="EntityType")
    gsi1_pk = UnicodeAttribute(null=True, attr_name="GSI1-PK")
    gsi1_sk = UnicodeAttribute(null=True, attr_name="GSI1-SK")

    gsi1 = GSI1()


RETURNS_TABLE = TableSpec(model=ReturnsItem, stream_view_type="NEW_AND_OLD_IMAGES")
