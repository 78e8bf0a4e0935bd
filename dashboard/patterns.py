"""Every named read the product serves, for the explorer: the shop table's, then the admin view's; and a
recorded call as JSON, a boto3 call and an ``aws dynamodb`` command, from the parameters botocore sent.
The explorer shows DynamoDB's own shapes, so it is the one reader of DynamoDB JSON on the dashboard."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from botocore import xform_name

from adminview.reads.patterns import AV_PATTERNS
from dashboard.cells import Cell
from dynamo import ddb_json
from shop.pattern_registry import SHOP_PATTERNS, AccessPattern
from shop.plain import plain_attribute


def all_patterns() -> list[AccessPattern]:
    return [*SHOP_PATTERNS, *AV_PATTERNS]


def find(name: str) -> AccessPattern | None:
    return next((p for p in all_patterns() if p.name == name), None)


def grouped() -> list[tuple[str, list[AccessPattern]]]:
    groups: dict[str, list[AccessPattern]] = {}
    for pattern in all_patterns():
        groups.setdefault(pattern.group, []).append(pattern)
    return list(groups.items())


def request_json(operation: str, request: dict[str, Any]) -> str:
    """The request as indented JSON, its operation first (no DynamoDB parameter is named "operation")."""
    return json.dumps({"operation": operation, **request}, indent=2, ensure_ascii=False)


def boto3_call(operation: str, request: dict[str, Any]) -> str:
    """Python that repeats the call (the endpoint and region come from the usual AWS variables)."""
    text = json.dumps(request, indent=2, ensure_ascii=False)
    literal = f"r'''{text}'''" if "'''" not in text and "\\" not in text else repr(text)
    return (
        "import json\n\nimport boto3\n\n"
        'client = boto3.client("dynamodb")\n'
        f"kwargs = json.loads({literal})\n"
        f"response = client.{xform_name(operation)}(**kwargs)\n"
    )


def cli_line(operation: str, request: dict[str, Any]) -> str:
    """``aws dynamodb <operation> --option value ...``: one option per parameter, JSON for maps and lists,
    ``--flag``/``--no-flag`` for booleans; ``--no-paginate`` so the CLI sends this one request only."""
    words = ["aws", "dynamodb", xform_name(operation, "-")]
    for name, value in request.items():
        option = "--" + xform_name(name, "-")
        if isinstance(value, bool):
            words.append(option if value else "--no-" + option[2:])
        elif isinstance(value, dict | list):
            words += [option, shlex.quote(json.dumps(value, separators=(",", ":"), ensure_ascii=False))]
        else:
            words += [option, shlex.quote(str(value))]
    if operation in ("Query", "Scan"):
        words.append("--no-paginate")
    return " ".join(words)


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def stored_cell(value: Mapping[str, Any] | None) -> Cell:
    """One stored attribute (DynamoDB JSON; None: absent) as ``readable`` shows its plain value."""
    if value is None:
        return Cell("")
    text = ddb_json.as_string(value)
    return Cell(text) if text is not None else readable(plain_attribute(value))


def stored_row(item: Mapping[str, Any], columns: Sequence[str]) -> list[Cell]:
    return [stored_cell(item.get(name)) for name in columns]


def readable(value: Any) -> Cell:
    """An attribute for the HTML table: text, or indented JSON for a map or list (a nested cell)."""
    if isinstance(value, dict | list):
        return Cell(json.dumps(value, indent=1, ensure_ascii=False), nested=True)
    return Cell(cell(value))
