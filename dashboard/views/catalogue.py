"""``/catalogue/``: every product (id, name, price, category, description) by id, from the admin view's catalogue
index (``adminview.reads.catalogue``: one Query per write shard a page, never a Scan); ``?format=csv`` every row."""

from __future__ import annotations

from typing import Any

from adminview.reads.catalogue import CatalogueRow, catalogue
from dashboard.display import plain_amount
from dashboard.forms.lists import ListForm
from dashboard.lists import Column, Listing, Paged

# the CSV's columns; the page's rows are drawn by its template
CATALOGUE_COLUMNS: tuple[Column[CatalogueRow], ...] = (
    Column(csv="product_id", value=lambda r: r.product_id),
    Column(csv="name", value=lambda r: r.name),
    Column(csv="price", value=lambda r: plain_amount(r.price)),
    Column(csv="category", value=lambda r: r.category),
    Column(csv="description", value=lambda r: r.description),
)


class Catalogue(Listing[ListForm, CatalogueRow]):
    template = "dashboard/catalogue.html"
    salt = "catalogue"
    columns = CATALOGUE_COLUMNS
    template_rows = True

    def fetch(self, form: ListForm, *, limit: int, after: dict[str, Any] | None) -> Paged[CatalogueRow]:
        return catalogue(limit=limit, after=after)


catalogue_page = Catalogue.view()
