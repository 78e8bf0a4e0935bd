"""The product uses PynamoDB through its public names only (STYLE: never patch or read a library's private name):
no attribute the product reads is a private name PynamoDB's code uses, unless the product defines that name
itself. The tests and the benchmark drop PynamoDB's cached connections in ``tests.engines``, outside the product."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import TypeGuard

import pynamodb

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("adminview", "config", "dashboard", "domain", "dynamo", "returns", "shop")


def _private(name: str | None) -> TypeGuard[str]:
    return name is not None and name.startswith("_") and not name.startswith("__")


def _nodes(paths: list[Path]) -> Iterator[tuple[Path, ast.AST]]:
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            yield path, node


def _defined(node: ast.AST) -> str | None:
    """The name a node defines: a function, class, variable or argument, or an attribute of ``self``."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return node.id
    if isinstance(node, ast.arg):
        return node.arg
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
        return node.attr if isinstance(node.value, ast.Name) and node.value.id == "self" else None
    return None


def test_the_product_reads_no_private_name_of_pynamodb() -> None:
    library = sorted(Path(pynamodb.__file__).parent.rglob("*.py"))
    theirs = {node.attr for _, node in _nodes(library) if isinstance(node, ast.Attribute) and _private(node.attr)}
    theirs |= {name for _, node in _nodes(library) if _private(name := _defined(node))}
    product = [path for room in PRODUCT for path in sorted((ROOT / room).rglob("*.py"))]
    ours = {name for _, node in _nodes(product) if _private(name := _defined(node))}
    read = [
        f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}"
        for path, node in _nodes(product)
        if isinstance(node, ast.Attribute) and node.attr in theirs - ours
    ]
    assert read == []
