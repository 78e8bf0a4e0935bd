"""The returns table's key formats: validated with the shop's id rules, the order named as the shop names it."""

from __future__ import annotations

import pytest

from returns import keys
from shop.keys import InvalidId


def test_each_entity_keys_as_the_contract_says() -> None:
    assert keys.return_keys("7", "o#42") == {"pk": "r#7", "sk": "r#7", "gsi1_pk": "o#42", "gsi1_sk": "r#7"}
    assert keys.refund_keys("42", "f#9") == {"pk": "o#42", "sk": "f#9"}
    assert keys.refunded_keys("42") == {"pk": "o#42", "sk": "REFUNDED"}
    assert not keys.REFUNDED_TOTAL.startswith(keys.REFUND)  # the total is not among an order's refunds
    assert (keys.return_id_of("r#7"), keys.return_id_of("f#7"), keys.refund_id_of("f#9")) == ("7", None, "9")


@pytest.mark.parametrize("bad", ["", "f#7", "r#", "a b", "x" * 65, "#7"])
def test_a_bad_return_id_is_refused(bad: str) -> None:
    with pytest.raises(InvalidId, match="return id"):
        keys.return_key(bad)


def test_ids_come_bare_or_prefixed() -> None:
    assert keys.return_id(" r#5001-1 ") == "5001-1" and keys.refund_id("f#abc") == "abc"
