"""The staff dashboard: server-rendered Django pages (``dashboard.urls`` lists them), htmx for the parts a page
swaps. The pages read through the selectors (``adminview.reads``, ``dashboard.selectors``) and change through the
services; who may do what is ``dashboard.permissions``, cost headers and the CSP ``dashboard.middleware``."""
