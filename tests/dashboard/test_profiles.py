"""``dashboard.profiles``: a page's customers from one BatchGetItem of the admin view's profiles."""

from __future__ import annotations

import pytest

from dashboard.profiles import ADDRESS_CSV_HEADER, NOBODY, Profile, profiles_of
from dynamo.instrumentation import recording
from tests import factories
from tests.adminview_helpers import sync_now

pytestmark = pytest.mark.ddb_local


def test_the_profiles_of_a_page_come_from_one_batch_read(shop_table: str, admin_view_table: str) -> None:
    # given two customers in the view
    factories.customer("1001", name="Ada Lovelace", email="ada@example.com")
    factories.customer("1002", name="Grace Hopper")
    sync_now()
    # when the profiles of a page's rows are read (a customer twice, one unknown)
    with recording() as log:
        found = profiles_of(["1001", "1002", "1001", "9999", ""])
    # then one BatchGetItem read them, each once; the unknown one is left out
    assert [call.operation for call in log.calls] == ["BatchGetItem"]
    assert set(found) == {"1001", "1002"}
    ada = found["1001"]
    assert (ada.name, ada.email) == ("Ada Lovelace", "ada@example.com")
    assert dict(zip(ADDRESS_CSV_HEADER, ada.address_cells(), strict=True)) == {
        "street": "Main Street",
        "number": "1",
        "zip_code": "41111",
        "city": "Goteborg",
        "county": None,
        "country": "Sweden",
    }
    assert found["1002"].email == "c1002@example.com"


def test_no_rows_read_nothing_and_nobody_has_empty_cells() -> None:
    with recording() as log:
        assert profiles_of([]) == {}
    assert log.calls == []
    assert Profile() == NOBODY and NOBODY.address_cells() == [None] * len(ADDRESS_CSV_HEADER)
    assert Profile.of_customer(None) is NOBODY
