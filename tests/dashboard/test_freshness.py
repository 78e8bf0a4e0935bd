"""The freshness line's sentences (``dashboard.freshness.statements``): the sources a page names, said together
when they are in the same state, else one by one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from adminview.reads.sync_freshness import Freshness
from dashboard import freshness

T0 = datetime(2026, 6, 1, 12, 3, 7, tzinfo=UTC)
T1 = datetime(2026, 6, 1, 12, 3, 9, tzinfo=UTC)


def test_sources_in_the_same_state_are_said_together_as_fresh_as_the_least_fresh() -> None:
    found = {"shop": Freshness(T1, None, caught_up=True), "returns": Freshness(T0, None, caught_up=True)}
    (said,) = freshness.statements(found, ["shop", "returns"])
    assert said.names_text == "shop and returns" and said.freshness == found["returns"]
    (shop,) = freshness.statements(found, ["shop"])
    assert shop.names == ("shop",) and shop.freshness == found["shop"]


def test_sources_in_different_states_are_said_one_by_one_in_the_pages_order() -> None:
    found = {"shop": Freshness(T1, None, caught_up=True), "returns": Freshness(T0, 4.0)}
    said = freshness.statements(found, ["shop", "returns"])
    assert [(s.names, s.freshness) for s in said] == [(("shop",), found["shop"]), (("returns",), found["returns"])]


def test_lambda_sources_say_each_when_it_last_applied_a_change() -> None:
    found = {"shop": Freshness(T1, None, lambda_lag_s=0.3), "returns": Freshness(T0, None, lambda_lag_s=0.5)}
    assert [s.names for s in freshness.statements(found, ["shop", "returns"])] == [("shop",), ("returns",)]


def test_every_source_when_none_is_named_unknown_when_unread_and_no_made_up_source() -> None:
    assert [s.names for s in freshness.statements(None)] == [("shop", "returns")]
    assert freshness.statements(None)[0].freshness is None
    unsynced = freshness.statements({}, ["returns"])[0].freshness
    assert unsynced is not None and not unsynced.synced
    with pytest.raises(ValueError, match="stock"):
        freshness.statements({}, ["shop", "stock"])
    assert freshness.Statement(("a", "b", "c"), None).names_text == "a, b and c"
