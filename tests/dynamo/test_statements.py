"""PartiQL statements 25 a call: each statement's condition answered alone, throttled statements sent again, and
the probe that tells an engine keeping the conditions from one that does not."""

from __future__ import annotations

from typing import Any

import pytest

from adminview.tables import view_client
from dynamo import statements
from dynamo.backoff import Backoff


def insert(table: str, pk: str, rev: int = 1) -> statements.Statement:
    return {"Statement": f"INSERT INTO \"{table}\" VALUE {{'PK': ?, 'SK': ?, 'Rev': ?}}", "Parameters": [pk, "A", rev]}


def update(table: str, pk: str, rev: int) -> statements.Statement:
    return {
        "Statement": f'UPDATE "{table}" SET "Rev"=? REMOVE "Gone" WHERE "PK"=? AND "SK"=? AND "Rev"=?',
        "Parameters": [rev + 1, pk, "A", rev],
    }


def test_each_statement_keeps_its_own_condition_over_several_calls(admin_view_table: str) -> None:
    client, table = view_client()
    assert statements.execute(client, [insert(table, f"k{i}") for i in range(30)]) == [None] * 30
    client.update_item(
        TableName=table,
        Key={"PK": {"S": "k0"}, "SK": {"S": "A"}},
        UpdateExpression="SET Gone = :g",
        ExpressionAttributeValues={":g": {"N": "1"}},
    )

    codes = statements.execute(
        client, [insert(table, "k1"), update(table, "k0", 1), update(table, "k2", 7), update(table, "nobody", 1)]
    )

    assert codes[0] in statements.DUPLICATE_ITEM
    assert codes[1:] == [None, statements.CONDITION_FAILED, statements.CONDITION_FAILED]
    item = client.get_item(TableName=table, Key={"PK": {"S": "k0"}, "SK": {"S": "A"}}, ConsistentRead=True)["Item"]
    assert item == {"PK": {"S": "k0"}, "SK": {"S": "A"}, "Rev": {"N": "2"}}


def test_dynamodb_local_keeps_the_conditions(admin_view_table: str) -> None:
    client, table = view_client()
    assert statements.keeps_conditions(client, table)
    assert "Item" not in client.get_item(TableName=table, Key={"PK": {"S": "#probe"}, "SK": {"S": "#probe"}})


class Forgetful:
    """An engine that runs every statement (as moto does), keeping what the probe made."""

    class meta:
        endpoint_url = "http://forgetful"

    def __init__(self) -> None:
        self.deleted: list[dict[str, Any]] = []

    def batch_execute_statement(self, Statements: list[dict[str, Any]]) -> dict[str, Any]:
        return {"Responses": [{} for _ in Statements]}

    def delete_item(self, **request: Any) -> None:
        self.deleted.append(request)


def test_an_engine_that_runs_a_failing_update_is_found_out_once_and_cleaned_after() -> None:
    client = Forgetful()
    assert not statements.keeps_conditions(client, "T")
    assert not statements.keeps_conditions(client, "T")
    assert client.deleted == [{"TableName": "T", "Key": {"PK": {"S": "#probe"}, "SK": {"S": "#probe"}}}]


class Throttling:
    """Answers the last statement of each call as throttled the first ``times`` calls."""

    def __init__(self, times: int, code: str = "ThrottlingError") -> None:
        self.times, self.code = times, code
        self.sent: list[list[str]] = []

    def batch_execute_statement(self, Statements: list[dict[str, Any]]) -> dict[str, Any]:
        self.sent.append([s["Parameters"][0]["S"] for s in Statements])
        answers: list[dict[str, Any]] = [{} for _ in Statements]
        if self.times > 0:
            self.times -= 1
            answers[-1] = {"Error": {"Code": self.code, "Message": "slow down"}}
        return {"Responses": answers}


@pytest.mark.parametrize("code", sorted(statements.THROTTLED))
def test_throttled_statements_are_sent_again_after_a_pause(monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    slept: list[float] = []
    monkeypatch.setattr(statements, "RETRY", Backoff(base_s=0.05, cap_s=5.0, budget_s=30.0, sleep=slept.append))
    client = Throttling(times=2, code=code)

    assert statements.execute(client, [insert("T", f"k{i}") for i in range(3)]) == [None] * 3
    assert client.sent == [["k0", "k1", "k2"], ["k2"], ["k2"]]
    assert len(slept) == 2


def test_statements_throttled_past_the_budget_raise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(statements, "RETRY", Backoff(base_s=0.05, cap_s=5.0, budget_s=0.1, sleep=lambda _s: None))
    with pytest.raises(statements.StatementsThrottled):
        statements.execute(Throttling(times=1000), [insert("T", "k0")])


def test_names_are_quoted_as_partiql_reads_them() -> None:
    assert statements.quoted('a"b') == '"a""b"'
    assert statements.literal("it's") == "'it''s'"
