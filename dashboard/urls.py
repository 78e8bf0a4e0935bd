from __future__ import annotations

from django.urls import path

from dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", views.home, name="home"),
    path("go/", views.jump, name="jump"),
    path("orders/pending/", views.pending_orders, name="pending"),
    path("orders/by-transaction/", views.order_by_transaction, name="by-transaction"),
    path("orders/<str:order_id>/", views.order, name="order"),
    path("orders/<str:order_id>/ship/", views.order_ship, name="order-ship"),
    path("orders/<str:order_id>/cancel/", views.order_cancel, name="order-cancel"),
    path("customers/<str:customer_id>/", views.customer, name="customer"),
    path("customers/<str:customer_id>/invoices/", views.customer_invoices, name="invoices"),
    path("products/<str:product_id>/buyers/", views.product_buyers, name="buyers"),
]
