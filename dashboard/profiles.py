"""Who placed the orders of a list: their names, emails and addresses, read for a whole page at once (one
BatchGetItem of the page's distinct customers in the admin view), so a page's calls stay the same whatever the
table holds; the order page reads its one customer from the shop table (``Profile.of_customer``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from adminview.core import schema, values
from adminview.reads import selectors
from shop.models import Address, Customer

ADDRESS_CSV_HEADER = ["street", "number", "zip_code", "city", "county", "country"]  # ``Address``'s field names


@dataclass(frozen=True)
class Profile:
    """A customer as the shop holds them; every part None when unknown (no profile, or not given)."""

    name: str | None = None
    email: str | None = None
    address: Address | None = None

    @classmethod
    def of_customer(cls, customer: Customer | None) -> Profile:
        if customer is None:
            return NOBODY
        return cls(customer.name, customer.email, customer.address)

    def address_cells(self) -> list[str | None]:
        """The address as the CSV's ``ADDRESS_CSV_HEADER`` columns (all empty without one)."""
        return [getattr(self.address, name, None) for name in ADDRESS_CSV_HEADER]


NOBODY = Profile()
NAME = [schema.PROFILE_KIND.attribute("name")]


def _profile(item: values.Item) -> Profile:
    """A profile item read by its kind, its ``Address`` map as the shop's ``Address``."""
    row = schema.PROFILE_KIND.read(item)
    fields = {name: values.text(row.address, attr.attr_name) for name, attr in Address.get_attributes().items()}
    return Profile(row.name, row.email, Address(**fields) if row.address else None)


def profiles_of(customer_ids: Iterable[str], *, names_only: bool = False) -> dict[str, Profile]:
    """The profiles of these customers (one BatchGetItem of the distinct ids), those without one left out.
    ``names_only``: the name alone, all a list page shows (less for DynamoDB to send and botocore to parse)."""
    wanted = list(dict.fromkeys(cid for cid in customer_ids if cid))
    if not wanted:
        return {}
    found = selectors.customer_profiles(customer_ids=wanted, attributes=NAME if names_only else None)
    return {cid: _profile(raw) for cid, raw in zip(wanted, found, strict=True) if raw is not None}


def with_profiles(rows: Sequence[Any], *, names_only: bool = False) -> list[tuple[Any, Profile]]:
    profiles = profiles_of((row.customer_id for row in rows), names_only=names_only)
    return [(row, profiles.get(row.customer_id, NOBODY)) for row in rows]
