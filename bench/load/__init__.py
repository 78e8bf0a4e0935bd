"""``python -m bench.load``: many staff at once against gunicorn + DynamoDB Local, on the loopback only.

``run`` sets the world up (DynamoDB Local, seeded and synced tables, a staff database, gunicorn) and drives it
with locust in headless mode (``locustfile``); ``report`` turns locust's figures and the action check into
JSON and Markdown.
"""
