"""What an edit form showed: the entity's editable attributes as text, read raw. A ``Snapshot`` taken when the form
is rendered comes back with the save (signed by the page), so the save is conditioned on every attribute still being
what the form showed. Values are the stored text (``Price`` ``"100"``, not a Decimal re-printed), so a condition
compares exactly what DynamoDB holds. Paths inside a map have a dot.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from dynamo import ddb_json
from dynamo.client import client_of
from shop import keys
from shop.errors import InvalidInput
from shop.models import ShopItem

Item = dict[str, dict[str, Any]]
ADDRESS_FIELDS = ("Street", "Number", "ZipCode", "City", "County", "Country")
ADDRESS_PATHS = tuple(f"Address.{name}" for name in ADDRESS_FIELDS)


@dataclass(frozen=True)
class EditSpec:
    """An editable entity: its ``kind``, ``EntityType``, the paths its form shows, whether it keeps ``Version``."""

    kind: str
    entity_type: str
    paths: tuple[str, ...]
    versioned: bool = False

    @property
    def maps(self) -> tuple[str, ...]:
        """The maps holding some of the paths (``Detail``, ``Address``)."""
        return tuple(dict.fromkeys(p.split(".", 1)[0] for p in self.paths if "." in p))


CUSTOMER = EditSpec("customer", "customer", ("Name", "Email", *ADDRESS_PATHS))
PRODUCT = EditSpec("product", "product", ("Detail.Name", "Detail.Description", "Price", "Category"), versioned=True)
WAREHOUSE = EditSpec("warehouse", "warehouse", ("Name", *ADDRESS_PATHS))
STOCK = EditSpec("stock", "warehouseItem", ("Quantity",))


class UneditableItem(InvalidInput):
    """The item holds an attribute in a type the form cannot keep (a number where AWS's model has a string)."""


@dataclass(frozen=True)
class Snapshot:
    """One item as its form saw it: each path's text (None: absent), whether each map and the item existed."""

    values: Mapping[str, str | None]
    maps: Mapping[str, bool] = field(default_factory=dict)
    version: int | None = None
    exists: bool = True

    def as_json(self) -> dict[str, Any]:
        return {"v": dict(self.values), "m": dict(self.maps), "n": self.version, "e": self.exists}

    @classmethod
    def from_json(cls, data: object, spec: EditSpec) -> Snapshot:
        """The snapshot a form carried back; InvalidInput when it does not fit ``spec`` (a form of another kind)."""
        if not isinstance(data, dict) or set(data) != {"v", "m", "n", "e"}:
            raise InvalidInput("the form's state is malformed; reload the form")
        values, maps, version, exists = data["v"], data["m"], data["n"], data["e"]
        if (
            not isinstance(values, dict)
            or set(values) != set(spec.paths)
            or not all(v is None or isinstance(v, str) for v in values.values())
            or not isinstance(maps, dict)
            or set(maps) != set(spec.maps)
            or not all(isinstance(v, bool) for v in maps.values())
            or not (version is None or (isinstance(version, int) and not isinstance(version, bool)))
            or not isinstance(exists, bool)
        ):
            raise InvalidInput("the form's state belongs to another form; reload the form")
        return cls(values=values, maps=maps, version=version, exists=exists)


def read_raw(pk: str, sk: str) -> Item | None:
    """The item as DynamoDB holds it (GetItem, strongly consistent)."""
    client = client_of(ShopItem)
    response = client.get_item(TableName=str(ShopItem.Meta.table_name), Key=ddb_json.key(pk, sk), ConsistentRead=True)
    found = response.get("Item")
    return cast("Item", dict(found)) if found else None  # the stubs' TypedDicts, as plain DynamoDB JSON


def is_entity(raw: Mapping[str, Any] | None, entity_type: str) -> bool:
    return raw is not None and raw.get(keys.ENTITY_TYPE) == ddb_json.s(entity_type)


def _text(value: object, path: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, dict) and set(value) == {"S"} and isinstance(value["S"], str):
        return value["S"]
    kind = next(iter(value)) if isinstance(value, dict) and value else "?"
    raise UneditableItem(f"{path} is stored as {kind}, not as a string; this form cannot edit it without retyping it")


def take(spec: EditSpec, raw: Item | None) -> Snapshot:
    """The snapshot of ``raw`` (None: no item) for ``spec``'s form."""
    if raw is None:
        return Snapshot(values=dict.fromkeys(spec.paths), maps=dict.fromkeys(spec.maps, False), exists=False)
    maps: dict[str, bool] = {}
    for name in spec.maps:
        value = raw.get(name)
        if value is not None and not (isinstance(value, dict) and isinstance(value.get("M"), dict)):
            raise UneditableItem(f"{name} is not a map; this form cannot edit it without retyping it")
        maps[name] = value is not None
    values: dict[str, str | None] = {}
    for path in spec.paths:
        head, _, tail = path.partition(".")
        if tail:
            inner = raw.get(head, {}).get("M", {}) if maps[head] else {}
            values[path] = _text(inner.get(tail), path)
        else:
            values[path] = _text(raw.get(head), path)
    version: int | None = None
    if spec.versioned and "Version" in raw:
        number = raw["Version"].get("N")
        if number is None or not number.isdigit():
            raise UneditableItem("Version is not a whole number; this form cannot keep it")
        version = int(number)
    return Snapshot(values=values, maps=maps, version=version)
