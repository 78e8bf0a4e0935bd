"""Every warehouse with its stock summed; a warehouse: its address (pattern 3), its stock by product (pattern 14)
and its shipments (pattern 13)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from dashboard.cells import DASH, Cell, timestamp
from dashboard.forms.lists import ListForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import Column, Listing, Paged, link_column, text_column
from dashboard.permissions import can_edit_catalogue
from dashboard.responses import domain_errors
from dashboard.selectors import WarehouseStock, existing, warehouses
from dashboard.views.products import stock_rows
from dashboard.views.sections import Section, key_cell, sections_response
from shop import access_patterns, keys
from shop.pattern_registry import PATTERNS


class Warehouses(Listing[ListForm, WarehouseStock]):
    template = "dashboard/warehouses.html"
    salt = "warehouses"
    row_class = "warehouse-row"
    row_id = ("warehouse-id", lambda r: r.warehouse.warehouse_id)
    columns: tuple[Column[WarehouseStock], ...] = (
        link_column("warehouse", "dashboard:warehouse", "warehouse_id", lambda r: r.warehouse.warehouse_id),
        text_column("name", "name", lambda r: r.warehouse.name),
        text_column(
            "city", "city", lambda r: r.warehouse.address.city if r.warehouse.address else None, secondary=True
        ),
        text_column("stock lines", "stock_lines", lambda r: r.lines, numeric=True),
        text_column("units", "units", lambda r: r.units, numeric=True),
    )

    def fetch(self, form: ListForm, *, limit: int, after: dict[str, Any] | None) -> Paged[WarehouseStock]:
        return warehouses(limit=limit, after=after)


warehouse_list = Warehouses.view()


def warehouse_sections(warehouse_id: str) -> list[Section]:
    params = {"warehouse_id": warehouse_id}
    return [
        Section(
            "stock",
            "Stock by product",
            PATTERNS["getProductInventoryByWarehouseId"],
            params,
            (Column("product", lambda i: key_cell(i.pk)), Column("quantity", lambda i: Cell(i.quantity, numeric=True))),
        ),
        Section(
            "shipments",
            "Shipments, newest first",
            PATTERNS["getShipmentByWarehouseId"],
            params,
            (
                Column("shipment", lambda s: key_cell(s.sk)),
                Column("order", lambda s: key_cell(s.pk)),
                Column("date", lambda s: Cell(timestamp(s.date) or DASH)),
                Column("type", lambda s: Cell(s.type or DASH), secondary=True),
                Column("address", lambda s: Cell(s.address.one_line() if s.address else DASH), secondary=True),
            ),
            {"newest_first": True},
        ),
    ]


@require_GET
@domain_errors
def warehouse(request: HtmxHttpRequest, warehouse_id: str) -> HttpResponseBase:
    wid = keys.bare(warehouse_id, keys.WAREHOUSE)
    sections = warehouse_sections(wid)
    context: dict[str, object] = {"warehouse_id": wid}
    one_list = sections_response(request, sections, context)
    if one_list is not None:
        return one_list
    context["warehouse"] = existing(access_patterns.warehouse_by_id(warehouse_id=wid), "warehouse", wid)
    context["can_edit"] = can_edit_catalogue(request.user)
    if context["can_edit"]:
        context["stock_rows"] = stock_rows(context)
    return TemplateResponse(request, "dashboard/warehouse.html", context)
