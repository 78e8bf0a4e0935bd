"""The one condition on every guarded write of the view (an anchor, a counted item): the item is still as its
writer read it. Each such item carries ``Rev``, how many times it was written; a writer puts ``Rev`` + 1 on the
condition that ``Rev`` is still what it read (or that the item is still absent), so no writer overwrites a change
it has not seen, and whoever comes second reads again (``adminview.core.anchor``).
"""

from __future__ import annotations

from typing import Any

from adminview.core import schema

REV = "Rev"


def unchanged(*, stored: bool, rev: int | None) -> dict[str, Any]:
    """The condition of a write made after reading the item: absent (``stored`` False), present with no ``Rev``
    (an item written before revisions were kept), or holding ``rev``."""
    if not stored:
        return {"ConditionExpression": "attribute_not_exists(#pk)", "ExpressionAttributeNames": {"#pk": schema.PK}}
    if rev is None:
        return {
            "ConditionExpression": "attribute_exists(#pk) AND attribute_not_exists(#rev)",
            "ExpressionAttributeNames": {"#pk": schema.PK, "#rev": REV},
        }
    return {
        "ConditionExpression": "#rev = :rev",
        "ExpressionAttributeNames": {"#rev": REV},
        "ExpressionAttributeValues": {":rev": rev},
    }


def unchanged_where(*, rev: int | None) -> tuple[str, list[Any]]:
    """``unchanged`` for a stored item as the tail of a PartiQL ``UPDATE``'s ``WHERE`` and its parameters (an
    ``UPDATE`` matches only a stored item; an absent one is written by an ``INSERT``, which fails on a stored key)."""
    if rev is None:
        return f'attribute_not_exists("{REV}")', []
    return f'"{REV}"=?', [rev]
