"""The PartiQL box's check, without an engine: which statements DynamoDB runs as a Query (sent) and which it would
run as a Scan or that are not reads (refused, with the reason)."""

from __future__ import annotations

import pytest

from adminview.tables import ADMIN_VIEW_TABLE
from dashboard.partiql import checked, tokens_of
from shop.errors import InvalidInput
from shop.models import SHOP_TABLE

SHOP, VIEW = f'"{SHOP_TABLE.name}"', f'"{ADMIN_VIEW_TABLE.name}"'
WRITTEN = {SHOP_TABLE: SHOP_TABLE.name, ADMIN_VIEW_TABLE: ADMIN_VIEW_TABLE.name}  # as the statements spell them
A = [{"S": "a"}]


@pytest.fixture(autouse=True)
def _tables_named_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """The statements are written at collection, with the tables' names then; an earlier test in this worker may
    have pointed the models at tables of its own since."""
    for spec, name in WRITTEN.items():
        monkeypatch.setattr(spec.model.Meta, "table_name", name)


@pytest.mark.parametrize(
    ("where", "parameters"),
    [
        ("PK = ?", A),
        ("? = PK", A),
        ("\"PK\" = 'o#1' AND SK BETWEEN 'a' AND 'b'", []),
        ("SK BETWEEN 'a' AND 'b' AND PK = 'o#1'", []),
        ("(PK = 'o#1' AND begins_with(SK, 'p#')) AND (EntityType IN ['orderItem'])", []),
        ("PK IN ['o#1', 'o#2'] AND SK = 'x'", []),
        ("PK = 'it''s OR not' AND SK > 'a' ORDER BY SK DESC", []),
        ("PK = 1", []),
    ],
)
def test_a_keyed_select_passes(where: str, parameters: list[object]) -> None:
    run = checked(f"SELECT * FROM {SHOP} WHERE {where}", parameters)
    assert run.spec is SHOP_TABLE and run.index is None


def test_the_index_named_decides_which_key_is_needed() -> None:
    assert checked(f'SELECT * FROM {SHOP}."GSI1" WHERE "GSI1-PK" = ?', A).index == "GSI1"
    assert checked(f'SELECT "PK" FROM {VIEW}.GSI1 WHERE GSI1PK = ?', A).spec is ADMIN_VIEW_TABLE
    with pytest.raises(InvalidInput, match="GSI1-PK"):
        checked(f'SELECT * FROM {SHOP}."GSI1" WHERE PK = ?', A)
    with pytest.raises(InvalidInput, match="no table or index"):
        checked(f'SELECT * FROM {SHOP}."GSI9" WHERE PK = ?', A)


@pytest.mark.parametrize(
    ("statement", "why"),
    [
        (f"select * from {SHOP} where SK = 'a' or PK = 'b'", "OR"),
        (f"SELECT * FROM {SHOP} WHERE PK > 'a'", "partition key PK"),
        (f"SELECT * FROM {SHOP} WHERE NOT PK = 'a'", "partition key PK"),
        (f"SELECT * FROM {SHOP} WHERE PK.x = 'a'", "partition key PK"),
        (f"SELECT * FROM {SHOP} WHERE (PK = 'a' OR SK = 'b')", "partition key PK"),
        (f"SELECT * FROM {SHOP} WHERE contains(PK, 'a')", "partition key PK"),
        (f"SELECT * FROM {SHOP} WHERE PK IN ['a'] + 'b'", "partition key PK"),
        (f"SELECT * FROM {SHOP} ORDER BY PK", "no WHERE"),
        ("SELECT 1", "FROM"),
        (f"  update {SHOP} SET a = 1 WHERE PK = 'a' AND SK = 'b'", "UPDATE"),
        (f"SELECT * FROM {SHOP} WHERE PK = 'a' -- comment", "cannot read"),
        (f"SELECT * FROM {SHOP} WHERE PK = 'unterminated", "cannot read"),
        (f"SELECT * FROM {SHOP} WHERE PK = ['a'", "unbalanced"),
    ],
)
def test_a_statement_dynamodb_would_scan_or_write_is_refused(statement: str, why: str) -> None:
    with pytest.raises(InvalidInput, match=why):
        checked(statement, [])


def test_the_tokenizer_reads_quotes_as_dynamodb_does() -> None:
    tokens = tokens_of("""SELECT "a""b" FROM "t" WHERE 'x''y' = ?""")
    assert [t.kind for t in tokens] == ["word", "quoted", "word", "quoted", "word", "string", "symbol", "symbol"]
    assert tokens[1].name == 'a"b' and tokens[5].text == "'x''y'"
