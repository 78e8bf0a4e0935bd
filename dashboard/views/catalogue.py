"""``/catalogue/``: every product (id, name, price, category, description) by id, from the admin view's catalogue
index (``adminview.reads.catalogue``: one Query per write shard a page, never a Scan); ``?format=csv`` every row."""

from __future__ import annotations

from typing import Any

from adminview.reads.catalogue import CatalogueRow, catalogue
from dashboard.display import plain_amount
from dashboard.forms.lists import ListForm
from dashboard.lists import Column, Listing, Paged, csv_fields

# the CSV's columns; the page's rows are drawn by its template
CATALOGUE_COLUMNS = (
    *csv_fields("product_id", "name"),
    Column(csv="price", value=lambda r: plain_amount(r.price)),  # stored as AWS's decimal string
    *csv_fields("category", "description"),
)


class Catalogue(Listing[ListForm, CatalogueRow]):
    template = "dashboard/catalogue.html"
    salt = "catalogue"
    columns = CATALOGUE_COLUMNS
    template_rows = True

    def fetch(self, form: ListForm, *, limit: int, after: dict[str, Any] | None) -> Paged[CatalogueRow]:
        return catalogue(limit=limit, after=after)


catalogue_page = Catalogue.view()
