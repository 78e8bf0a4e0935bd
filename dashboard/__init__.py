"""The staff dashboard: server-rendered Django pages, htmx for "load more" and ship/cancel.

Pages: ``/`` home, ``/orders/pending/`` (AV2: the pending tab of ``/orders/?status=``), ``/orders/<oid>/``
(+ ``ship/``, ``cancel/``), ``/orders/by-transaction/?transaction_id=`` (AV5),
``/go/?kind=customer|product|order|search&id=``, ``/search/?q=`` (customers and products by name or email),
``/customers/<cid>/`` (pattern 1 + AV1), ``/customers/<cid>/invoices/?from=&to=`` (pattern 15),
``/products/<pid>/buyers/`` (AV3 + AV4). Lists take ``?limit=1..500``, ``?cursor=`` (signed) and ``?format=csv``;
order lists also ``?sort=newest|oldest&from=&to=``.
The admin view is read only through ``adminview.reads.selectors``; ship/cancel need the ``fulfilment`` group
(or superuser, see ``dashboard.permissions``). Cost headers and CSP: ``dashboard.middleware``.
"""
