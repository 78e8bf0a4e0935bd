"""The edit pages of a customer, a product, a warehouse and a stock row (see docs/editing.md, "The forms").
Permissions come first, for GET and POST alike, so a 403 reads nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from adminview.reads import selectors
from dashboard.actors import actor_of
from dashboard.category_names import known_categories
from dashboard.forms.editing import (
    CustomerForm,
    EditForm,
    ProductForm,
    StockAdjustForm,
    StockForm,
    WarehouseForm,
    attribute_label,
)
from dashboard.htmx import HtmxHttpRequest
from dashboard.permissions import User, can_edit_catalogue, can_edit_customers, needs_group
from dashboard.responses import domain_errors
from dashboard.selectors import read_or_reason
from shop import editing
from shop.audit import Changed
from shop.editing import Target
from shop.errors import EditConflict, EmailTaken, InvalidInput
from shop.snapshots import Snapshot

Save = Callable[[Any], list[Changed]]


def _labels(form: EditForm) -> dict[str, str]:
    found = {path: str(form.fields[name].label or name.replace("_", " ")) for name, path in form.paths.items()}
    return found | {"Version": "version", "Quantity": "quantity"}


def _edit(
    request: HtmxHttpRequest,
    *,
    form_class: type[EditForm],
    target: Target,
    context: dict[str, Any],
    save: Save,
    template: str = "dashboard/edit.html",
    shown: Snapshot | None = None,
    options: dict[str, Any] | None = None,
) -> HttpResponseBase:
    """GET: the form showing ``shown`` (read now when not given); POST: validate, save, redirect or explain."""
    scope = f"{target.pk}|{target.sk}"
    options = options or {}
    if request.method != "POST":
        form = form_class(scope=scope, snapshot=shown or editing.snapshot(target), **options)
        return TemplateResponse(request, template, context | {"form": form})
    form = form_class(request.POST, scope=scope, **options)
    if not form.is_valid():
        return TemplateResponse(request, template, context | {"form": form}, status=400)
    try:
        changes = save(form)
    except EditConflict as exc:
        fresh = form_class(scope=scope, snapshot=editing.snapshot(target), **options)
        own = {form.paths[name]: form.data.get(name) for name in form.paths if name in form.data}
        names = _labels(form)
        drifts = [
            {"label": names.get(d.attribute, d.attribute), "seen": d.seen, "now": d.now, "yours": own.get(d.attribute)}
            for d in exc.drifts
        ]
        return TemplateResponse(
            request, template, context | {"form": fresh, "drifts": drifts, "conflict": str(exc)}, status=409
        )
    except EmailTaken as exc:
        form.add_error("email", f"{exc.email} is already the email of customer {exc.owner}")
        return TemplateResponse(request, template, context | {"form": form, "taken_by": exc.owner}, status=409)
    except InvalidInput as exc:
        form.add_error(None, str(exc))
        return TemplateResponse(request, template, context | {"form": form}, status=400)
    if changes:
        messages.success(request, "Saved: " + ", ".join(attribute_label(c.attribute) for c in changes))
    else:
        messages.info(request, "Nothing changed; nothing was saved.")
    return redirect(context["back_url"], permanent=False)


# --- customers, products and warehouses ---------------------------------------------------------------------


def _entity_edit(
    kind: str,
    form_class: type[EditForm],
    may: Callable[[User], bool],
    group: str,
    what: str,
    service: Callable[..., list[Changed]],
    options: Callable[[], dict[str, Any]] = dict,
    **more: Any,
) -> Callable[..., HttpResponseBase]:
    """The edit view of a ``kind``, for those ``may`` lets edit (else 403 naming the ``group`` setting)."""
    target_of = getattr(editing, f"{kind}_target")

    @require_http_methods(["GET", "POST"])
    @domain_errors
    def view(request: HtmxHttpRequest, /, **ids: str) -> HttpResponseBase:
        if not may(request.user):
            return needs_group(request, getattr(settings, group), what)
        target = target_of(*ids.values())
        eid = target.entity_id

        def save(form: EditForm) -> list[Changed]:
            return service(**{f"{kind}_id": eid}, actor=actor_of(request), **more, **form.arguments())

        back = reverse(f"dashboard:{kind}", args=[eid])
        context = _context(kind, eid, back, f"{kind.capitalize()} {eid}")
        return _edit(request, form_class=form_class, target=target, context=context, save=save, options=options())

    return view


def _categories() -> dict[str, Any]:
    categories, _why = read_or_reason(known_categories)  # none listed: each category must be named as new
    return {"categories": categories or []}


customer_edit = _entity_edit(
    "customer",
    CustomerForm,
    can_edit_customers,
    "CUSTOMER_SERVICE_GROUP",
    "customers",
    editing.customer_edit,
    email_owner=lambda e: selectors.customer_id_for_email(email=e),
)
product_edit = _entity_edit(
    "product", ProductForm, can_edit_catalogue, "CATALOGUE_GROUP", "products", editing.product_edit, _categories
)
warehouse_edit = _entity_edit(
    "warehouse", WarehouseForm, can_edit_catalogue, "CATALOGUE_GROUP", "warehouses", editing.warehouse_edit
)


def _context(kind: str, entity_id: str, back_url: str, label: str) -> dict[str, Any]:
    return {
        "title": f"Edit {label.lower()}",
        "kind": kind,  # with entity_id: the page's breadcrumbs
        "entity_id": entity_id,
        "back_url": back_url,
        "back_label": label,
        "history_url": reverse("dashboard:history", args=[kind, entity_id]) if kind != "stock" else None,
    }


# --- stock -------------------------------------------------------------------------------------------------


def _stock_context(request: HtmxHttpRequest, target: Target, snapshot: Snapshot | None) -> dict[str, Any]:
    pid, wid = target.entity_id, target.warehouse_id or ""
    context = _context("stock", pid, reverse("dashboard:product", args=[pid]), f"Product {pid}")
    context |= {
        "title": f"Stock of product {pid} in warehouse {wid}",
        "product_id": pid,
        "warehouse_id": wid,
        "adjust_url": reverse("dashboard:stock-adjust", args=[pid, wid]),
        "product_history_url": reverse("dashboard:history", args=["product", pid]),
    }
    if snapshot is not None:
        context["current"] = snapshot.values["Quantity"]
        context["exists"] = snapshot.exists
        context["adjust_form"] = StockAdjustForm(scope=f"{target.pk}|{target.sk}", snapshot=snapshot)
    return context


def _stock_row(request: HtmxHttpRequest, target: Target) -> dict[str, Any]:
    return {"product_id": target.entity_id, "warehouse_id": target.warehouse_id or "", "actor": actor_of(request)}


@require_http_methods(["GET", "POST"])
@domain_errors
def stock_edit(request: HtmxHttpRequest, product_id: str, warehouse_id: str) -> HttpResponseBase:
    """Set the quantity (field ``quantity``); the page also offers an adjustment by +/-n with a reason."""
    if not can_edit_catalogue(request.user):
        return needs_group(request, settings.CATALOGUE_GROUP, "stock")
    target = editing.stock_target(product_id, warehouse_id)

    def save(form: StockForm) -> list[Changed]:
        quantity, seen = int(form.cleaned_data["quantity"]), form.cleaned_data["seen"]
        return editing.stock_set(**_stock_row(request, target), quantity=quantity, seen=seen)

    snapshot = editing.snapshot(target)  # also the adjust form's (on a 409, read after the other save: fresh)
    return _edit(
        request,
        form_class=StockForm,
        target=target,
        context=_stock_context(request, target, snapshot),
        save=save,
        template="dashboard/stock_edit.html",
        shown=snapshot,
    )


@require_POST
@domain_errors
def stock_adjust(request: HtmxHttpRequest, product_id: str, warehouse_id: str) -> HttpResponse:
    if not can_edit_catalogue(request.user):
        return needs_group(request, settings.CATALOGUE_GROUP, "stock")
    target = editing.stock_target(product_id, warehouse_id)
    scope = f"{target.pk}|{target.sk}"
    form = StockAdjustForm(request.POST, scope=scope)
    template = "dashboard/stock_edit.html"

    def page(status: int, **extra: Any) -> TemplateResponse:
        snapshot = editing.snapshot(target)
        context = _stock_context(request, target, snapshot)
        context["form"] = StockForm(scope=scope, snapshot=snapshot)
        return TemplateResponse(request, template, context | extra, status=status)

    if not form.is_valid():
        return page(400, adjust_form=form)
    try:
        editing.stock_adjust(**_stock_row(request, target), **form.cleaned_data)  # delta, reason, seen
    except EditConflict as exc:
        drifts = [{"label": "quantity", "seen": d.seen, "now": d.now, "yours": None} for d in exc.drifts]
        return page(409, drifts=drifts, conflict=str(exc))
    except InvalidInput as exc:
        form.add_error(None, str(exc))
        return page(400, adjust_form=form)
    messages.success(request, f"Stock adjusted by {form.cleaned_data['delta']:+d}")
    return redirect(reverse("dashboard:product", args=[target.entity_id]))
