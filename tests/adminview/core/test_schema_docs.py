"""``adminview.core.schema.describe``: the view's layout in words, made from its one declaration, and the copy of it
that ``docs/admin-view.md`` holds. Pure: no DynamoDB."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from adminview.core import schema

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "admin-view.md"
BEGIN, END = "<!-- schema:begin -->", "<!-- schema:end -->"
REGENERATE = "python -m adminview.core.schema"


def documented() -> str:
    text = DOC.read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1, f"{DOC.name} needs one {BEGIN} and one {END}"
    return text.split(BEGIN, 1)[1].split(END, 1)[0]


def test_the_doc_holds_exactly_what_describe_says() -> None:
    # given the declaration as it is now, when the doc's generated part is read
    block = documented()

    # then it is describe()'s output, blank lines around it aside
    assert block.strip("\n") == schema.describe().strip("\n"), (
        f"docs/admin-view.md is out of date: put the output of `{REGENERATE}` between its schema markers"
    )


def test_every_declared_kind_and_index_is_described() -> None:
    # when the layout is described
    text = schema.describe()

    # then every kind that ATTRIBUTES declares has a row, and every index its own row with its keys
    for kind in schema.ATTRIBUTES:
        assert f"| `{kind}` |" in text, kind
    # and each kind's row lists every attribute it declares (return, refunds and customer-return as much as order)
    rows = {line.split("|")[1].strip(" `"): line for line in text.splitlines() if line.startswith("| `")}
    for declared in schema.KINDS:
        assert all(f"`{name}`" in rows[declared.name].split("|")[-2] for name in declared.names), declared.name
    for index in schema.INDEXES:
        assert f"| `{index.name}` | `{index.hash_key}` / `{index.range_key}` |" in text, index.name


def test_shapes_are_those_the_key_functions_build() -> None:
    # when the layout is described
    text = schema.describe()

    # then a shape shows what its key function returns, a shard as a placeholder rather than a number
    pk, sk = schema.customer_order("<cid>", "<date>", "<oid>")
    assert f"| `{pk}` | `{sk}` |" in text
    assert "<shard>" in text
    assert not re.search(r"#\d+`", text)


def test_the_module_prints_it_without_django_settings() -> None:
    # given no Django settings in the environment
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}

    # when the module is run as the doc says to regenerate it
    done = subprocess.run(
        [sys.executable, "-m", "adminview.core.schema"], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )

    # then it prints describe()'s output
    assert done.returncode == 0, done.stderr
    assert done.stdout == schema.describe()
