"""``/orders/<oid>/consistency/``: one order's view items beside what its source items imply, and the superusers'
repair of them (see docs/operations.md, "One order looks wrong")."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.http import HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_POST

from adminview.core import schema
from adminview.core.schema import Key as ViewKey
from adminview.reads.sync_freshness import Freshness
from adminview.repair import consistency
from adminview.repair.consistency import Part, Report
from adminview.repair.partition import Item as Image
from dashboard import freshness
from dashboard.actors import actor_of
from dashboard.forms.lookups import ConsistencyForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import partial, validated
from dashboard.permissions import is_superuser
from dashboard.responses import domain_errors, error, json_answer
from shop import keys
from shop.errors import OrderConflict
from shop.plain import from_decoded, plain_value

TEMPLATE = "dashboard/consistency.html"
ABSENT = "—"


def _plain(value: Any) -> Any:
    return None if value is None else plain_value(value)


def _shown(value: Any) -> str:
    """An attribute's value as a person reads it: text as it is, anything else as compact JSON."""
    if value is None:
        return ABSENT
    plain = plain_value(value)
    return plain if isinstance(plain, str) else json.dumps(plain, sort_keys=True, default=str)


def _key_text(key: ViewKey) -> str:
    return f"{key[0]} {key[1]}"


def _attributes(item: Image | None) -> list[tuple[str, str]] | None:
    if item is None:
        return None
    return [(name, _shown(value)) for name, value in sorted(item.items()) if name not in (schema.PK, schema.SK)]


def _difference_rows(report: Report) -> list[dict[str, Any]]:
    """One row per missing or extra item, one per attribute of a differing item, with the source partition."""
    rows = []
    for part in report.parts:
        source = _part_text(part)
        for d in part.differences:
            base = {"source": source, "key": _key_text(d.key), "kind": d.kind, "contradiction": d.contradiction}
            if d.kind != "differing":
                present = {"expected": "present" if d.expected else ABSENT, "stored": "present" if d.stored else ABSENT}
                rows.append({**base, "attribute": ABSENT, **present})
                continue
            rows += [
                {**base, "attribute": a.name, "expected": _shown(a.expected), "stored": _shown(a.stored)}
                for a in d.attributes
            ]
    return rows


def _part_text(part: Part) -> str:
    return f"{part.source} {part.pk}"


def _item_rows(report: Report) -> list[dict[str, Any]]:
    rows = []
    for part in report.parts:
        kinds = {d.key: d.kind for d in part.differences}
        rows += [
            {
                "source": _part_text(part),
                "key": _key_text(key),
                "state": kinds.get(key, "same"),
                "columns": (_attributes(part.expected.get(key)), _attributes(part.stored.get(key))),
            }
            for key in sorted(set(part.expected) | set(part.stored))
        ]
    return rows


def _context(request: HtmxHttpRequest, report: Report, **extra: Any) -> dict[str, Any]:
    return {
        "report": report,
        "rule": consistency.RULE,
        "difference_rows": _difference_rows(report),
        "item_rows": _item_rows(report),
        "any_watermarks": any(p.watermarks for p in report.parts),
        "can_repair": is_superuser(request.user),
        "statements": freshness.statements(report.by_source, list(dict.fromkeys(p.source for p in report.parts))),
        **extra,
    }


def _differences_json(part_or_report: Part | Report) -> list[dict[str, Any]]:
    return [
        {
            "key": {schema.PK: d.key[0], schema.SK: d.key[1]},
            "kind": d.kind,
            "contradiction": d.contradiction,
            "attributes": [
                {"name": a.name, "expected": _plain(a.expected), "stored": _plain(a.stored)} for a in d.attributes
            ],
            "expected": None if d.expected is None else from_decoded(d.expected),
            "stored": None if d.stored is None else from_decoded(d.stored),
        }
        for d in part_or_report.differences
    ]


def _watermarks_json(part: Part) -> dict[str, Any]:
    return {
        "rev": part.rev,
        "applied_at": part.applied_at.isoformat() if part.applied_at else None,
        "sources": [
            {"sk": m.sk, "entity": m.entity, "sequence_number": m.seq, "in_shop": m.in_shop} for m in part.watermarks
        ],
    }


def _freshness_json(fresh: Freshness | None) -> dict[str, Any]:
    return {
        "as_of": fresh.as_of.isoformat() if fresh and fresh.as_of else None,
        "caught_up": bool(fresh and fresh.caught_up),
        "behind_s": fresh.behind_s if fresh else None,
    }


def _as_json(report: Report) -> dict[str, Any]:
    """The order's verdict, differences and shop-partition watermarks, and each source partition's."""
    by_source = report.by_source or {}
    return {
        "order_id": report.order_id,
        "verdict": report.verdict,
        "reason": report.reason,
        "rule": consistency.RULE,
        "differences": _differences_json(report),
        "contradicted": [{schema.PK: pk, schema.SK: sk} for pk, sk in report.contradicted],
        "watermarks": _watermarks_json(report.parts[0]),
        "sources": [
            {
                "source": part.source,
                "table": part.table,
                "partition": part.pk,
                "verdict": part.verdict,
                "reason": part.reason,
                "differences": _differences_json(part),
                "watermarks": _watermarks_json(part),
                "sync": _freshness_json(by_source.get(part.source)),
            }
            for part in report.parts
        ],
        "expected_items": [from_decoded(report.expected[k]) for k in sorted(report.expected)],
        "stored_items": [from_decoded(report.stored[k]) for k in sorted(report.stored)],
        "read_at": report.read_at.isoformat(),
        "sync": _freshness_json(report.freshness),
    }


@require_GET
@domain_errors
def order_consistency(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    form = validated(ConsistencyForm(request.GET))
    if not form.wants("json"):
        report = consistency.order_consistency(order_id=order_id)
        return TemplateResponse(request, partial(request, TEMPLATE, "result"), _context(request, report))
    return json_answer(lambda: _as_json(consistency.order_consistency(order_id=order_id)))


@require_POST
@domain_errors
def order_consistency_repair(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    """Superusers only: rewrite the order's view items from its source tables (``consistency.order_repair``)."""
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
        message = (
            f"Rewrote {count} view item{'s' if count != 1 else ''} of order {oid} from its source tables; see Activity."
        )
    else:
        message = f"Nothing to repair: order {oid}'s view items equal what its source items imply. Nothing was written."
    if not request.htmx:
        messages.success(request, message)
        return redirect("dashboard:order-consistency", oid)
    report = consistency.order_consistency(order_id=oid)
    return TemplateResponse(request, f"{TEMPLATE}#result", _context(request, report, message=message))
