"""Each attribute name is spelled where it is declared, and only the explorer reads DynamoDB JSON: an AST scan of the
product's modules (string constants and ``ddb_json`` reader calls), so a new literal read fails here, not in review."""

from __future__ import annotations

import ast
import subprocess
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAMES = frozenset({"OrderId", "CustomerId", "EntityType", "Status"})
DECLARING = frozenset(
    {"adminview/core/schema.py", "shop/keys.py", "shop/models.py", "returns/keys.py", "returns/models.py"}
)
EXPLORER = frozenset({"dashboard/patterns.py", "adminview/reads/patterns.py", "dashboard/views/patterns.py"})
READERS = frozenset(
    {"string", "text", "integer", "number", "mapping", "entries", "listing", "elements"}
    | {"as_string", "as_text", "item_key", "maybe_key"}
)


def product_modules() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [name for name in listed.stdout.split() if not name.startswith(("tests/", "bench/"))]


def scan() -> tuple[Counter[str], Counter[str]]:
    """Per module: string constants that are one of ``NAMES``, and calls of a ``ddb_json`` reader."""
    literals: Counter[str] = Counter()
    readers: Counter[str] = Counter()
    for name in product_modules():
        for node in ast.walk(ast.parse((ROOT / name).read_text(encoding="utf-8"), name)):
            if isinstance(node, ast.Constant) and node.value in NAMES:
                literals[name] += 1
            if isinstance(node, ast.ImportFrom) and node.module == "dynamo.ddb_json":
                readers[name] += sum(alias.name in READERS for alias in node.names)
            if (
                isinstance(node, ast.Attribute)
                and node.attr in READERS
                and isinstance(node.value, ast.Name)
                and node.value.id == "ddb_json"
            ):
                readers[name] += 1
    return literals, readers


LITERALS, READS = scan()


def test_attribute_names_are_spelled_only_where_declared() -> None:
    # when the product's modules are scanned for the names as string constants
    spelled = {name for name, count in LITERALS.items() if count}

    # then only the declaring modules and the explorer spell them
    assert spelled - DECLARING - EXPLORER == set()


def test_the_admin_view_and_the_dashboard_never_spell_them() -> None:
    outside = {n for n in LITERALS if n.startswith(("adminview/", "dashboard/")) and n not in DECLARING | EXPLORER}
    assert outside == set()


def test_only_the_explorer_reads_dynamodb_json() -> None:
    # when the product is scanned for reads of DynamoDB JSON (its readers, not its request builders)
    reading = {name for name, count in READS.items() if count} - {"dynamo/ddb_json.py"}

    # then only the explorer, which shows DynamoDB's own shapes, reads it
    assert reading - EXPLORER == set()
