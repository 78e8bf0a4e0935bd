from __future__ import annotations

from django.urls import path

from dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", views.home, name="home"),
    path("go/", views.jump, name="jump"),
    path("orders/pending/", views.pending_orders, name="pending"),
    path("orders/by-transaction/", views.order_by_transaction, name="by-transaction"),
    path("orders/due/", views.orders_due, name="orders-due"),
    path("orders/<str:order_id>/", views.order, name="order"),
    path("orders/<str:order_id>/ship/", views.order_ship, name="order-ship"),
    path("orders/<str:order_id>/cancel/", views.order_cancel, name="order-cancel"),
    path("orders/<str:order_id>/items/<str:product_id>/favourite/", views.order_favourite, name="order-favourite"),
    path(
        "orders/<str:order_id>/items/<str:product_id>/unfavourite/", views.order_unfavourite, name="order-unfavourite"
    ),
    path("customers/<str:customer_id>/", views.customer, name="customer"),
    path("customers/<str:customer_id>/invoices/", views.customer_invoices, name="invoices"),
    path("products/<str:product_id>/buyers/", views.product_buyers, name="buyers"),
]
