"""Every bad input to every command exits non-zero with a one-line message and changes nothing."""

from __future__ import annotations

import logging
import re
import subprocess
import time
from contextlib import redirect_stderr, redirect_stdout
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, ManagementUtility, call_command

from returns import access_patterns as rap
from shop import access_patterns as ap
from shop.models import Order, ShopItem
from shop.timestamps import now
from tests import factories


def manage(*args: str) -> subprocess.CompletedProcess[str]:
    """``manage.py *args`` run as manage.py runs it (``ManagementUtility``), in this process: no interpreter and
    Django to start. Its exit status and what it prints; its ``django.setup()`` makes the settings' console log
    handler anew on the stderr it sees, so log lines count as they would. The root logger is put back after."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    out, err = StringIO(), StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            ManagementUtility(["manage.py", *args]).execute()
        code = 0
    except SystemExit as exit_:  # as the interpreter ends: None is 0, a message goes to stderr and is 1
        code = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
        if isinstance(exit_.code, str):
            err.write(exit_.code + "\n")
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    return subprocess.CompletedProcess(["manage.py", *args], code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize(
    "args",
    [
        ["access_pattern", "noSuchPattern", "1"],
        ["access_pattern", "getCustomerByCustomerId"],
        ["access_pattern", "getCustomerByCustomerId", "1", "2"],
        ["access_pattern", "getCustomerByCustomerId", "o#1"],
        ["access_pattern", "getInvoiceByCustomerIdForDateRange", "1", "2020-02-30", "2020-03-01"],
        ["access_pattern", "getInvoiceByCustomerIdForDateRange", "1", "2020-03-02", "2020-03-01"],
        ["access_pattern", "getOrderByProductIdForDateRange", "1", "last week", "today"],
        ["seed_shop", "--customers", "-1", "--products", "1", "--warehouses", "1", "--orders", "1"],
        ["seed_shop", "--customers", "x", "--products", "1", "--warehouses", "1", "--orders", "1"],
        ["seed_shop", "--customers", "0", "--products", "1", "--warehouses", "1", "--orders", "5"],
        ["seed_shop", "--customers", "1", "--products", "1", "--warehouses", "1", "--orders", "1", "--until", "soon"],
        ["seed_shop", "--customers", "1"],
        *(
            ["seed_shop", "--customers", "1", "--products", "1", "--warehouses", "1", "--orders", "1", "--rate", rate]
            for rate in ("0", "-5", "abc", "nan", "inf", "")
        ),
        ["import_workbench", "/nonexistent/model.json"],
        ["import_workbench"],
        ["create_tables", "--timeout", "soon"],
    ],
)
def test_bad_input_is_one_line_and_non_zero(shop_table: str, args: list[str]) -> None:
    factories.customer("1")
    result = manage(*args)
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert ap.customer_by_id(customer_id="1") is not None  # nothing changed
    assert ap.customer_by_id(customer_id="100001") is None


def test_access_pattern_command_prints_json_lines(shop_table: str) -> None:
    factories.customer("7", name="Grace")
    result = manage("access_pattern", "getCustomerByCustomerId", "c#7")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().startswith('{"PK": "c#7", "SK": "c#7", "EntityType": "customer"')


def test_seed_shop_again_grows_the_table(shop_table: str) -> None:
    args = ["--customers", "3", "--products", "2", "--warehouses", "1", "--orders", "5", "--no-progress"]
    out = StringIO()
    call_command("seed_shop", *args, stdout=out)
    assert "5 orders" in out.getvalue()
    first = ap.customer_by_id(customer_id="100001")
    again = StringIO()
    call_command("seed_shop", *args, "--seed", "7", stdout=again)
    assert "new ids from customer 100004, product 20003, warehouse 302, order 1000006" in again.getvalue()
    assert ap.customer_by_id(customer_id="100004") is not None
    kept = ap.customer_by_id(customer_id="100001")
    assert first is not None and kept is not None and kept.name == first.name and kept.email == first.email


def test_seed_shop_at_a_low_rate_takes_as_long_as_that_rate_allows(shop_table: str) -> None:
    # given a small seed (about 60 items) at 20 items a second, of which the first second's are a burst
    rate = 20
    args = ["--customers", "5", "--products", "3", "--warehouses", "1", "--orders", "10", "--no-progress"]
    out = StringIO()
    # when it runs
    started = time.monotonic()
    call_command("seed_shop", *args, "--rate", str(rate), stdout=out)
    elapsed = time.monotonic() - started
    # then it took at least what writing its items at that rate takes (generous margin; no upper bound)
    found = re.search(r"\((\d+) items\)", out.getvalue())
    assert found is not None, out.getvalue()
    written = int(found.group(1))
    assert written > 2 * rate
    assert elapsed >= 0.7 * (written - rate) / rate


def test_seed_shop_until_today_places_orders_up_to_now(shop_table: str) -> None:
    args = ["--customers", "20", "--products", "5", "--warehouses", "1", "--orders", "60", "--no-progress"]
    call_command("seed_shop", *args, "--until", "today", stdout=StringIO())
    dates = [item.date for item in ShopItem.scan() if isinstance(item, Order) and item.date]
    assert len(dates) == 60
    assert now() - timedelta(days=3) < max(dates) <= now()


def test_seed_shop_over_a_span_of_days_places_every_order_in_it(shop_table: str) -> None:
    args = ["--customers", "20", "--products", "5", "--warehouses", "1", "--orders", "60", "--no-progress"]
    call_command("seed_shop", *args, "--until", "today", "--days", "90", stdout=StringIO())
    dates = [item.date for item in ShopItem.scan() if isinstance(item, Order) and item.date]
    assert len(dates) == 60 and all(now() - timedelta(days=90) <= d <= now() for d in dates)
    with pytest.raises(CommandError):
        call_command("seed_shop", *args, "--days", "0", stdout=StringIO())


def test_seed_shop_runs_the_seed_extensions_after_the_shop(shop_table: str) -> None:
    # given the settings' extensions (the returns service's seeding)
    args = ["--customers", "10", "--products", "4", "--warehouses", "1", "--orders", "60", "--no-progress"]
    out = StringIO()
    # when the shop is seeded
    call_command("seed_shop", *args, stdout=out)
    # then every cancelled order got its refund, and the items they wrote are counted
    cancelled = [i.order_id for i in ShopItem.scan() if isinstance(i, Order) and i.status == "CANCELLED"]
    assert cancelled and all(len(rap.refunds_for_order(order_id=oid).items) == 1 for oid in cancelled)
    found = re.search(r"\((\d+) items\)", out.getvalue())
    assert found is not None and int(found.group(1)) > sum(1 for _ in ShopItem.scan())


def test_create_tables_is_idempotent(shop_table: str) -> None:
    out = StringIO()
    call_command("create_tables", stdout=out)
    call_command("create_tables", stdout=out)
    assert "up to date" in out.getvalue()
