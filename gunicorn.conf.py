"""gunicorn's settings for the dashboard, read by gunicorn from the directory it starts in (``gunicorn config.wsgi``
at the repository's root; ``-c gunicorn.conf.py`` from elsewhere). Command-line flags still win.

Threaded workers (``gthread``): a page spends most of its time waiting on DynamoDB, so a worker serves several at
once; and a connection that sends nothing (a browser's idle preconnection, a keep-alive between clicks) waits in
the worker's poller, not in a thread, so idle clients cannot hold the server. A client that starts a request and
stalls is put back to the poller after gunicorn's own wait for data, and dropped after ``keepalive``.

A request line up to gunicorn's maximum (8,190 bytes) reaches Django, whose ``dashboard.middleware.LongUrlMiddleware``
answers one over ``MAX_URL_LENGTH`` (4,096 characters by default) with the product's 414 page; gunicorn's own limit
(4,094) would answer those with a plain-text error instead.
"""

worker_class = "gthread"
threads = 8
# Longer than an AWS load balancer's idle timeout (60 s), so the balancer, not gunicorn, closes idle connections.
keepalive = 75
timeout = 30
# gunicorn's control socket would otherwise be made in the home folder; nothing here uses it.
control_socket_disable = True
limit_request_line = 8190
