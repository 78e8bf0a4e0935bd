"""``{{ row|cells }}`` and ``{{ rows|table_rows:"order-row" }}``: a row's cells, or a table's rows, that a view
prepared (``dashboard.cells``); an order row's status cells and item count as the order lists declare them."""

from __future__ import annotations

from django import template

from dashboard.cells import cells_html, rows_html
from dashboard.order_lists import items_shown, status_cells

register = template.Library()
register.filter("cells", cells_html)
register.filter("table_rows", rows_html)
register.filter("order_status_cells", status_cells)
register.filter("order_items", items_shown)
