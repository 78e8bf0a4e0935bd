"""``/orders/<oid>/consistency/``: one order's view items beside what its shop items imply, with a verdict
(``adminview.consistency``), and the superusers' repair of that order's view items.

Reads: the anchor (GetItem), the shop partition, the heartbeats and the view partition (three Queries), twice
when the first look may have caught the sync half-way. The repair: the same reads and one TransactWriteItems per
attempt (its audit entry and activity items included), then the page again.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.http import HttpResponseBase, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_POST

from adminview import consistency
from adminview.consistency import Report
from adminview.partition import Item as Image
from adminview.schema import Key as ViewKey
from dashboard.actors import actor_of
from dashboard.forms import ConsistencyForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.permissions import is_superuser
from dashboard.responses import domain_errors, error
from dashboard.views.common import partial, validated
from dynamo import ddb_json
from dynamo.errors import DomainError
from shop import keys
from shop.errors import OrderConflict
from shop.plain import from_attribute_values

TEMPLATE = "dashboard/consistency.html"
ABSENT = "—"


def _plain(value: Any) -> Any:
    return None if value is None else ddb_json.plain(value)


def _shown(value: Any) -> str:
    """An attribute's value as a person reads it: text as it is, anything else as compact JSON."""
    if value is None:
        return ABSENT
    plain = ddb_json.plain(value)
    return plain if isinstance(plain, str) else json.dumps(plain, sort_keys=True, default=str)


def _key_text(key: ViewKey) -> str:
    return f"{key[0]} {key[1]}"


def _attributes(item: Image | None) -> list[tuple[str, str]] | None:
    if item is None:
        return None
    return [(name, _shown(value)) for name, value in sorted(item.items()) if name not in ("PK", "SK")]


def _difference_rows(report: Report) -> list[dict[str, Any]]:
    """One row per missing or extra item, one per attribute of a differing item."""
    rows = []
    for d in report.differences:
        base = {"key": _key_text(d.key), "kind": d.kind, "contradiction": d.contradiction}
        if d.kind != "differing":
            rows.append(
                {
                    **base,
                    "attribute": ABSENT,
                    "expected": "present" if d.expected else ABSENT,
                    "stored": "present" if d.stored else ABSENT,
                }
            )
            continue
        rows += [
            {**base, "attribute": a.name, "expected": _shown(a.expected), "stored": _shown(a.stored)}
            for a in d.attributes
        ]
    return rows


def _item_rows(report: Report) -> list[dict[str, Any]]:
    kinds = {d.key: d.kind for d in report.differences}
    return [
        {
            "key": _key_text(key),
            "state": kinds.get(key, "same"),
            "columns": (_attributes(report.expected.get(key)), _attributes(report.stored.get(key))),
        }
        for key in sorted(set(report.expected) | set(report.stored))
    ]


def _context(request: HtmxHttpRequest, report: Report, **extra: Any) -> dict[str, Any]:
    return {
        "report": report,
        "rule": consistency.RULE,
        "difference_rows": _difference_rows(report),
        "item_rows": _item_rows(report),
        "can_repair": is_superuser(request.user),
        **extra,
    }


def _as_json(report: Report) -> dict[str, Any]:
    fresh = report.freshness
    return {
        "order_id": report.order_id,
        "verdict": report.verdict,
        "reason": report.reason,
        "rule": consistency.RULE,
        "differences": [
            {
                "key": {"PK": d.key[0], "SK": d.key[1]},
                "kind": d.kind,
                "contradiction": d.contradiction,
                "attributes": [
                    {"name": a.name, "expected": _plain(a.expected), "stored": _plain(a.stored)} for a in d.attributes
                ],
                "expected": None if d.expected is None else from_attribute_values(d.expected),
                "stored": None if d.stored is None else from_attribute_values(d.stored),
            }
            for d in report.differences
        ],
        "contradicted": [{"PK": pk, "SK": sk} for pk, sk in report.contradicted],
        "watermarks": {
            "rev": report.rev,
            "applied_at": report.applied_at.isoformat() if report.applied_at else None,
            "sources": [
                {"sk": m.sk, "entity": m.entity, "sequence_number": m.seq, "in_shop": m.in_shop}
                for m in report.watermarks
            ],
        },
        "expected_items": [from_attribute_values(report.expected[k]) for k in sorted(report.expected)],
        "stored_items": [from_attribute_values(report.stored[k]) for k in sorted(report.stored)],
        "read_at": report.read_at.isoformat(),
        "sync": {
            "as_of": fresh.as_of.isoformat() if fresh and fresh.as_of else None,
            "caught_up": bool(fresh and fresh.caught_up),
            "behind_s": fresh.behind_s if fresh else None,
        },
    }


@require_GET
@domain_errors
def order_consistency(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    form = validated(ConsistencyForm(request.GET))
    if not form.wants_json:
        report = consistency.order_consistency(order_id=order_id)
        return TemplateResponse(request, partial(request, TEMPLATE, "result"), _context(request, report))
    try:
        report = consistency.order_consistency(order_id=order_id)
    except DomainError as exc:
        return JsonResponse({"error": str(exc)}, status=exc.http_status)
    return JsonResponse(_as_json(report), json_dumps_params={"ensure_ascii": False})


@require_POST
@domain_errors
def order_consistency_repair(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    """Superusers only: rewrite the order's view items from the shop (``adminview.consistency.order_repair``)."""
    if not is_superuser(request.user):
        return error(request, 403, "Only superusers may repair the admin view.")
    oid = keys.bare(order_id, keys.ORDER)
    try:
        repaired = consistency.order_repair(order_id=oid, actor=actor_of(request))
    except OrderConflict as exc:
        if not request.htmx:
            raise
        report = consistency.order_consistency(order_id=oid)
        context = _context(request, report, message=str(exc), conflict=True)
        return TemplateResponse(request, f"{TEMPLATE}#result", context, status=409)
    if repaired.changes:
        count = len(repaired.changes)
        message = f"Rewrote {count} view item{'s' if count != 1 else ''} of order {oid} from the shop; see Activity."
    else:
        message = f"Nothing to repair: order {oid}'s view items equal what its shop items imply. Nothing was written."
    if not request.htmx:
        messages.success(request, message)
        return redirect("dashboard:order-consistency", oid)
    report = consistency.order_consistency(order_id=oid)
    return TemplateResponse(request, f"{TEMPLATE}#result", _context(request, report, message=message))
