"""The demo's options (``manage.py demo``, which ``scripts/run`` runs), declared once in the standard library alone:
``scripts/run --help`` prints them with the system's ``python3`` before anything is installed
(``python3 -m shop.demo_options --help``)."""

from __future__ import annotations

import argparse

from dynamo.arguments import positive_int, whole_number

DESCRIPTION = (
    "Run the whole product locally: DynamoDB Local (data in .data/), tables, demo data up to today, a staff login in "
    "every staff group, the stream sync, orders arriving while it runs, and the dashboard. Ctrl-C stops everything."
)
DEMO_SIZE = {"customers": 200, "products": 80, "warehouses": 4, "orders": 1000}
ORDER_EVERY_S = 60  # a live order about this often (``shop.live_orders``: each wait drawn from 0.5x to 1.5x)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=positive_int, default=8080, help="dashboard port (default 8080)")
    parser.add_argument("--ddb-port", type=positive_int, default=8000, help="DynamoDB Local port (default 8000)")
    parser.add_argument(
        "--orders",
        type=whole_number,
        default=DEMO_SIZE["orders"],
        help="demo orders to seed into an empty shop (default %(default)s)",
    )
    parser.add_argument("--no-sync", action="store_true", help="do not run the stream sync")
    parser.add_argument(
        "--no-live-orders",
        action="store_true",
        help="place no new orders while running (by default about one a minute, and now and then a return "
        "request, as the storefront; shipping and delivering are left to staff)",
    )
    parser.add_argument(
        "--order-every",
        type=positive_int,
        default=ORDER_EVERY_S,
        metavar="SECONDS",
        help="a new live order about this often (default %(default)s s)",
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="scripts/run", description=DESCRIPTION)
    add_arguments(parser)
    parser.parse_args()  # --help prints the options; scripts/run passes anything else to the demo itself
