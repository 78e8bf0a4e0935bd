"""gunicorn's settings for the dashboard, read by gunicorn from the directory it starts in (``gunicorn config.wsgi``
at the repository's root; ``-c gunicorn.conf.py`` from elsewhere). Command-line flags still win.

A request line up to gunicorn's maximum (8,190 bytes) reaches Django, whose ``dashboard.middleware.LongUrlMiddleware``
answers one over ``MAX_URL_LENGTH`` (4,096 characters by default) with the product's 414 page; gunicorn's own limit
(4,094) would answer those with a plain-text error instead.
"""

limit_request_line = 8190
