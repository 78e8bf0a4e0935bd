"""A category's orders over a range of days: one Query per write shard of the admin view's category entries,
merged. The name is free text, percent-quoted in the path; a name no order holds is a 404: when the range shows
nothing, one more read over every date (``category_has_orders``) tells an empty range from an unknown category."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

from django.http import HttpResponseBase
from django.utils.text import slugify

from adminview.reads import selectors
from dashboard.category_names import category_has_orders
from dashboard.cells import Cell
from dashboard.forms.filters import CategoryOrdersForm
from dashboard.forms.ranges import DEFAULT_CHART_DAYS
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import Column, Listing, Paged, amount_column, range_url
from dashboard.order_lists import (
    CUSTOMER,
    DATE,
    EMAIL,
    NAME,
    ORDER,
    ORDER_ID,
    STATUS,
    TOTAL,
    WAITED,
    Listed,
)
from dashboard.range_pages import range_context, stats_url
from shop.errors import NotFound, ShopError
from shop.timestamps import now


class UnknownCategory(ShopError):
    """No order of any date holds the category (``dashboard.category_names``): 404."""

    http_status = NotFound.http_status

    def __init__(self, category: str) -> None:
        super().__init__(f"No order holds an item of the category {category.strip()!r}.")


CATEGORY_COLUMNS: tuple[Column[Listed], ...] = (
    ORDER,
    CUSTOMER,
    DATE,
    WAITED,
    STATUS,
    TOTAL,
    Column("units", lambda r: Cell(r[0].units, numeric=True), "units", lambda r: r[0].units),
    amount_column("revenue", "revenue", lambda r: r[0].revenue),
    NAME,
    EMAIL,
)


class CategoryOrders(Listing[CategoryOrdersForm, Listed]):
    """The orders in the range holding the category's items, with those lines' units and revenue."""

    template = "dashboard/category.html"
    salt = "category"
    row_class = "order-row"
    profiles = True
    row_id = ORDER_ID
    columns = CATEGORY_COLUMNS

    def __init__(self, request: HtmxHttpRequest, category: str) -> None:
        super().__init__(request)
        self.category = category
        self.today = now().date()

    def form(self) -> CategoryOrdersForm:
        return CategoryOrdersForm(self.request.GET, today=self.today, default_days=DEFAULT_CHART_DAYS)

    def refused(self, form: CategoryOrdersForm) -> dict[str, Any]:
        return {"category": self.category.strip(), "rows": [], **range_context(self.request, form, self.today)}

    def _filters(self, form: CategoryOrdersForm) -> tuple[date, date, str]:
        return form.cleaned_data["start"], form.cleaned_data["end"], form.cleaned_data["sort"]

    def scope(self, form: CategoryOrdersForm) -> str:
        start, end, sort = self._filters(form)
        return f"{self.category}|{start.isoformat()}|{end.isoformat()}|{sort}"

    def fetch(self, form: CategoryOrdersForm, *, limit: int, after: dict[str, Any] | None) -> Paged[Any]:
        start, end, sort = self._filters(form)
        return selectors.category_orders(
            category=self.category, start=start, end=end, limit=limit, after=after, sort=sort
        )

    def filename(self, form: CategoryOrdersForm) -> str:
        start, end, _ = self._filters(form)
        return f"category-{slugify(self.category) or 'orders'}-{start.isoformat()}-{end.isoformat()}.csv"

    def csv(self, form: CategoryOrdersForm, records: Iterator[Listed]) -> HttpResponseBase:
        if not category_has_orders(self.category):
            raise UnknownCategory(self.category)
        return super().csv(form, records)

    def extra(self, form: CategoryOrdersForm, page: Paged[Any]) -> dict[str, Any]:
        start, end, sort = self._filters(form)
        # an empty first page: one more read tells an empty range from a category no order holds
        if not form.cleaned_data["cursor"] and not page.rows and not category_has_orders(self.category):
            raise UnknownCategory(self.category)
        return {
            "category": self.category.strip(),
            "sort": sort,
            "newest_url": range_url(self.request, start, end),
            "categories_url": stats_url("dashboard:stats-categories", start, end) if (end - start).days < 366 else None,
            **range_context(self.request, form, self.today),
        }


category_orders = CategoryOrders.view()
