from __future__ import annotations

from django.urls import path, re_path

from dashboard.views import (
    activity,
    bulk,
    catalogue,
    categories,
    consistency,
    customers,
    editing,
    history,
    home,
    notes,
    order_create,
    order_edit,
    order_timeline,
    orders,
    patterns,
    products,
    returns,
    search,
    slips,
    stats,
    stock_import,
    sync,
    warehouses,
)
from shop.keys import OrderStatus

app_name = "dashboard"

# Django tries these in order. The explorer's routes come first: they overlap no other route, and a request to
# them then skips two dozen failed matches.
urlpatterns = [
    path("patterns/", patterns.patterns_index, name="patterns"),
    path("patterns/partiql/", patterns.partiql_box, name="partiql"),
    path("patterns/<str:name>/", patterns.pattern_page, name="pattern"),
    path("", home.home, name="home"),
    path("go/", home.jump, name="jump"),
    path("search/", search.search_page, name="search"),
    path("search/orders/<str:customer_id>/", search.customer_orders, name="search-orders"),
    path("orders/", orders.orders_by_status, name="orders"),
    path("orders/new/", orders.new_orders, name="orders-new"),
    path("orders/bulk/", bulk.orders_bulk, name="orders-bulk"),
    path("orders/pending/", orders.orders_by_status, {"status": OrderStatus.PENDING}, name="pending"),
    path("orders/by-transaction/", home.order_by_transaction, name="by-transaction"),
    path("orders/due/", orders.orders_due, name="orders-due"),
    path("orders/slips/", slips.order_slips, name="slips"),
    path("orders/create/", order_create.order_create, name="order-create"),
    path("orders/<str:order_id>/", orders.order, name="order"),
    path("orders/<str:order_id>/slip/", slips.order_slip, name="order-slip"),
    *(path(f"orders/<str:order_id>/{a}/", orders.order_step, {"action": a}, name=f"order-{a}") for a in orders.STEPS),
    path("orders/<str:order_id>/edit/", order_edit.order_edit, name="order-edit"),
    *(path(f"orders/<str:order_id>/{a}/", orders.order_money, {"action": a}, name=f"order-{a}") for a in orders.MONEY),
    path(
        "orders/<str:order_id>/notifications/<str:notification_id>/send-again/",
        orders.notification_send_again,
        name="notification-send-again",
    ),
    path("orders/<str:order_id>/timeline/", order_timeline.order_timeline, name="order-timeline"),
    path("orders/<str:order_id>/consistency/", consistency.order_consistency, name="order-consistency"),
    path(
        "orders/<str:order_id>/consistency/repair/",
        consistency.order_consistency_repair,
        name="order-consistency-repair",
    ),
    *(
        path(
            f"orders/<str:order_id>/items/<str:product_id>/{a}/",
            orders.order_favourite,
            {"add": add},
            name=f"order-{a}",
        )
        for a, add in (("favourite", True), ("unfavourite", False))
    ),
    path("orders/<str:order_id>/returns/new/", returns.return_new, name="return-new"),
    path("returns/", returns.returns_queue, name="returns"),
    path("returns/<str:return_id>/", returns.return_page, name="return"),
    *(
        path(f"returns/<str:return_id>/{a}/", returns.return_step, {"action": a}, name=f"return-{a}")
        for a in returns.STEPS
    ),
    path("activity/", activity.activity, name="activity"),
    path("customers/", customers.customer_list, name="customers"),
    path("customers/<str:customer_id>/", customers.customer, name="customer"),
    path("customers/<str:customer_id>/edit/", editing.customer_edit, name="customer-edit"),
    path("customers/<str:customer_id>/invoices/", customers.customer_invoices, name="invoices"),
    path("products/<str:product_id>/buyers/", products.product_buyers, name="buyers"),
    path("products/<str:product_id>/", products.product, name="product"),
    path("products/<str:product_id>/edit/", editing.product_edit, name="product-edit"),
    path("products/<str:product_id>/stock/", products.stock_for_warehouse, name="stock-pick"),
    path("products/<str:product_id>/stock/<str:warehouse_id>/", editing.stock_edit, name="stock-edit"),
    path("products/<str:product_id>/stock/<str:warehouse_id>/adjust/", editing.stock_adjust, name="stock-adjust"),
    path("warehouses/", warehouses.warehouse_list, name="warehouses"),
    path("warehouses/<str:warehouse_id>/", warehouses.warehouse, name="warehouse"),
    path("stats/status/", stats.status_counts, name="stats-status"),
    path("stats/daily/", stats.daily, name="stats-daily"),
    path("stats/categories/", stats.categories, name="stats-categories"),
    path("stats/refunds/", stats.refunds_per_day, name="stats-refunds"),
    path("warehouses/<str:warehouse_id>/edit/", editing.warehouse_edit, name="warehouse-edit"),
    path("warehouses/<str:warehouse_id>/stock.csv", stock_import.warehouse_stock_csv, name="warehouse-stock-csv"),
    path("history/<str:kind>/<str:entity_id>/", history.entity_history, name="history"),
    path("catalogue/", catalogue.catalogue_page, name="catalogue"),
    path("stock/import/", stock_import.stock_import_page, name="stock-import"),
    path("stock/import/apply/", stock_import.stock_import_apply, name="stock-import-apply"),
    # a category's name is free text: any character, "/" included (percent-quoted in links); empty is a 400
    re_path(r"^categories/(?P<category>.*)/$", categories.category_orders, name="category"),
    path("sync/", sync.sync_page, name="sync"),
    path("sync/replay/", sync.sync_replay, name="sync-replay"),
    *(
        path(f"{area}/<str:entity_id>/notes/{tail}", notes.note_write, {"kind": kind}, name=f"{kind}-{name}")
        for kind, area in (("order", "orders"), ("return", "returns"), ("customer", "customers"))
        for tail, name in (("", "notes"), ("<str:note_id>/edit/", "note-edit"))
    ),
]
