"""The attribute names other modules read by name are spelled only where they are declared (``shop.keys``,
``returns.keys``, the models, the view's schema) and in the explorer, which shows DynamoDB's own shapes."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES = {"OrderId", "CustomerId", "EntityType", "Status"}
DECLARED = {"shop/keys.py", "shop/models.py", "returns/keys.py", "returns/models.py", "adminview/core/schema.py"}
EXPLORER = {"dashboard/patterns.py", "dashboard/views/patterns.py", "adminview/reads/patterns.py"}
PACKAGES = ("domain", "dynamo", "shop", "returns", "dashboard")


def test_no_module_but_the_declarations_spells_an_attribute_name() -> None:
    spelled = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if str(path.relative_to(ROOT)) not in DECLARED | EXPLORER
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value in NAMES
    ]
    assert spelled == []
