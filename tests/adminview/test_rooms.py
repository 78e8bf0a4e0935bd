"""The admin view's rooms import one way, read from the source files (no engine, nothing imported).

- nothing under ``adminview/core`` reaches boto3, botocore, PynamoDB, ``dynamo`` (not even the package) or another
  room, directly or through a product module it imports;
- the product's modules import each other in no circle (module-level imports, as Python runs them);
- the dashboard's views import no ``dynamo`` module: they call selectors and services (the explorer, which shows
  DynamoDB's calls as such, aside).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("config", "domain", "dynamo", "shop", "returns", "adminview", "dashboard")
FORBIDDEN_IN_CORE = ("boto3", "botocore", "pynamodb", "dynamo", "adminview.sync", "adminview.reads", "adminview.repair")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def _imports(name: str) -> set[str]:
    """What a module imports at its top level (``from x import y`` names ``x.y`` when that is a module)."""
    found: set[str] = set()
    is_package = MODULES[name].name == "__init__.py"
    for node in ast.parse(MODULES[name].read_text()).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            base = node.module or ""
            if node.level:
                anchor = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES)
    return found


def _product_edges(name: str) -> set[str]:
    """The product modules a module imports: for each name, the longest prefix of it that is a module."""
    edges: set[str] = set()
    for imported in _imports(name):
        parts = imported.split(".")
        found = next((m for i in range(len(parts), 0, -1) if (m := ".".join(parts[:i])) in MODULES), None)
        if found is not None and found != name:
            edges.add(found)
    return edges


GRAPH = {name: _product_edges(name) for name in MODULES}


def _reached(start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in GRAPH[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def _forbidden(imported: str) -> bool:
    return any(imported == f or imported.startswith(f + ".") for f in FORBIDDEN_IN_CORE)


def test_the_core_reaches_no_io_and_no_other_room() -> None:
    core = [name for name in MODULES if name.startswith("adminview.core")]
    assert "adminview.core.schema" in core and "adminview.core.sources.shop" in core
    bad = {
        name: sorted(i for i in _imports(module) if _forbidden(i))
        for name in core
        for module in (name, *(m for m in _reached(name) if m in MODULES))
        if any(_forbidden(i) for i in _imports(module))
    }
    assert bad == {}


def test_no_import_circle_among_the_product_modules() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(name: str) -> None:  # Tarjan's strongly connected components
        index[name] = low[name] = len(index)
        stack.append(name)
        for nxt in GRAPH[name]:
            if nxt not in index:
                visit(nxt)
                low[name] = min(low[name], low[nxt])
            elif nxt in stack:
                low[name] = min(low[name], index[nxt])
        if low[name] == index[name]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == name:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for name in sorted(GRAPH):
        if name not in index:
            visit(name)
    assert circles == []


# The explorer's page is about DynamoDB's calls themselves: the calls a pattern made, their cost, their pages.
VIEWS_THAT_SHOW_DYNAMODB = {"dashboard.views.patterns"}


def test_the_dashboards_views_import_no_dynamo_module() -> None:
    views = [name for name in MODULES if name.startswith("dashboard.views.")]
    assert "dashboard.views.orders" in views
    bad = {
        name: sorted(i for i in _imports(name) if i == "dynamo" or i.startswith("dynamo."))
        for name in views
        if name not in VIEWS_THAT_SHOW_DYNAMODB
    }
    assert {name: found for name, found in bad.items() if found} == {}
