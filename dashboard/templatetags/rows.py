"""``{{ row|cells }}`` and ``{{ rows|table_rows:"order-row" }}``: the ``<td>`` cells of a row, or the ``<tr>`` rows
of a table, that a view prepared as ``dashboard.cells.Cell`` and ``Row`` (rendered by ``dashboard.cells``)."""

from __future__ import annotations

from django import template

from dashboard.cells import cells_html, rows_html

register = template.Library()
register.filter("cells", cells_html)
register.filter("table_rows", rows_html)
