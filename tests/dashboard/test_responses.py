"""CSV exports (``dashboard.responses.csv_response``): no text cell opens as a formula in a spreadsheet, and
numbers stay numbers."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.test import Client

from adminview.reads.selectors import OrderRow
from dashboard.lists import csv_header, csv_values
from dashboard.order_lists import ORDER_COLUMNS
from dashboard.profiles import ADDRESS_CSV_HEADER, NOBODY
from dashboard.responses import csv_response
from dashboard.views.patterns import csv_line
from tests.dashboard.conftest import FakeSelectors, csv_rows

FORMULAS = ["=1+1", "+1", "-1+2", "@SUM(A1)", "\tx", "\rx"]


def test_every_text_cell_starting_a_formula_gets_a_leading_quote() -> None:
    rows = csv_rows(csv_response("x.csv", ["text", "number"], [[text, Decimal("-5.00")] for text in FORMULAS]))
    assert rows[0] == ["text", "number"]
    assert [r[0] for r in rows[1:]] == ["'" + text for text in FORMULAS]
    assert {r[1] for r in rows[1:]} == {"-5.00"}  # a number written as a number is not text


def test_an_order_csv_is_guarded(staff: Client, fake_av: FakeSelectors) -> None:
    fake_av.pending = [
        OrderRow("1", '=HYPERLINK("x")', datetime(2024, 5, 1), "PENDING", Decimal("-5.00"), -1),
        OrderRow("2", "-1+2", None, None, None, None),
    ]
    fake_av.profiles["-1+2"] = {"Name": "@SUM(A1)", "Address": {"City": "+46"}}
    response = staff.get("/orders/pending/?format=csv")
    assert response.status_code == 200
    rows = csv_rows(response)
    assert rows[0] == csv_header(ORDER_COLUMNS) + ADDRESS_CSV_HEADER
    assert rows[1][:6] == ["1", '\'=HYPERLINK("x")', "2024-05-01T00:00:00", "PENDING", "-5.00", "-1"]
    assert rows[2] == ["2", "'-1+2", "", "", "", "", "", "", "'@SUM(A1)", "", "", "", "", "'+46", "", ""]
    assert csv_values(ORDER_COLUMNS, (fake_av.pending[0], NOBODY))[4] == Decimal("-5.00")


def test_explorer_cells_keep_numbers_and_guard_text() -> None:
    item = {"PK": "=cmd", "n": -5, "f": -0.5, "s": "-x", "m": {"a": -1}, "b": True, "missing": None}
    columns = ["PK", "n", "f", "s", "m", "b", "missing"]
    (row,) = csv_rows(csv_response("x.csv", columns, [csv_line(item, columns)]))[1:]
    assert row == ["'=cmd", "-5", "-0.5", "'-x", '{"a": -1}', "true", ""]
