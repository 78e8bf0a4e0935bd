"""The demo, ``manage.py demo``, which ``scripts/run`` runs (what it does: ``shop.demo_options.DESCRIPTION``, with
its options)."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command, get_commands
from django.core.management.base import CommandError, CommandParser
from django.utils.module_loading import import_string

from dynamo import local
from dynamo.commands import ShopCommand
from dynamo.models import apply_environment
from shop import demo_options, live_orders
from shop.demo_options import DEMO_SIZE
from shop.models import ShopItem

DEMO_USER = "demo"
DEMO_DAYS = 90  # the seeded orders spread over the last 90 days, with a weekday rhythm (the home page's charts)
# The printed login is in every staff group, so it can do all the work the dashboard offers. The dashboard's
# migrations create the first three; the others are created here when missing.
STAFF_GROUPS = (
    settings.FULFILMENT_GROUP,
    settings.CATALOGUE_GROUP,
    settings.CUSTOMER_SERVICE_GROUP,
    "operators",
    "returns",
    "finance",
)
# The dashboard's DynamoDB patience in the demo (an operator's own values win): one machine also runs DynamoDB
# Local, the sync and the live orders, so a call may wait seconds where production's 2 s would be a 503. A page
# still gives up within about 15 + 3 + 10 s (``dynamo.patience``), inside gunicorn's 30 s worker timeout.
DEMO_PATIENCE = {
    "SHOP_ADMIN_DYNAMODB_CONNECT_TIMEOUT_SECONDS": "3",
    "SHOP_ADMIN_DYNAMODB_READ_TIMEOUT_SECONDS": "10",
    "SHOP_ADMIN_DYNAMODB_ATTEMPTS": "3",
    "SHOP_ADMIN_DYNAMODB_DEADLINE_SECONDS": "15",
}


def server_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The web server's environment: ``environ`` with the demo's DynamoDB patience where it sets none."""
    return {**DEMO_PATIENCE, **environ}


def server_command(port: int, application: str = "config.wsgi") -> list[str]:
    """The production server (gunicorn with the repository's ``gunicorn.conf.py``), two workers, on the loopback."""
    return [sys.executable, "-m", "gunicorn", application, "--bind", f"127.0.0.1:{port}", "--workers", "2"]


def staff_login(data_dir: Path) -> str:
    """``user / password`` of the demo's staff user, in every group (``STAFF_GROUPS`` created if missing); its
    password is kept in ``data_dir``."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    secret_file = data_dir / "demo-login.txt"
    user_model = get_user_model()
    user = user_model.objects.filter(username=DEMO_USER).first()
    if user is None or not secret_file.exists():
        password = secrets.token_urlsafe(9)
        user = user or user_model(username=DEMO_USER, email="demo@example.com")
        user.is_staff = True
        user.set_password(password)
        user.save()
        secret_file.write_text(password)
        secret_file.chmod(0o600)
    for name in STAFF_GROUPS:
        Group.objects.get_or_create(name=name)
    user.groups.add(*Group.objects.all())
    return f"{DEMO_USER} / {secret_file.read_text().strip()}"


FILE_BACKEND = "django.core.mail.backends.filebased.EmailBackend"


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


class Command(ShopCommand):
    help = demo_options.DESCRIPTION

    def add_arguments(self, parser: CommandParser) -> None:
        demo_options.add_arguments(parser)

    def run(
        self,
        *_: Any,
        port: int,
        ddb_port: int,
        orders: int,
        no_sync: bool,
        no_live_orders: bool,
        order_every: int,
        **options: Any,
    ) -> None:
        data_dir = Path(settings.DATA_DIR)
        signal.signal(signal.SIGTERM, _interrupt)  # a plain kill stops the children too
        engine = self._engine(data_dir, ddb_port)
        children: list[subprocess.Popen[bytes]] = []
        stop_live_orders = threading.Event()
        try:
            call_command("migrate", verbosity=0, interactive=False)
            call_command("collectstatic", verbosity=0, interactive=False)
            call_command("create_tables", stdout=self.stdout)
            if next(iter(ShopItem.scan(limit=1)), None) is None:  # operator path, not a request path
                self.stdout.write(f"the shop is empty: seeding {orders} demo orders")
                call_command(
                    "seed_shop",
                    f"--orders={orders}",
                    *(f"--{k}={v}" for k, v in DEMO_SIZE.items() if k != "orders"),
                    "--until=today",
                    f"--days={DEMO_DAYS}",
                    stdout=self.stdout,
                )
            login = staff_login(data_dir)
            if not no_sync and "sync_adminview" in get_commands():
                # the per-batch log line stays; the CloudWatch metric documents are for Lambda, not a terminal
                children.append(self._spawn("sync_adminview", "--follow", POWERTOOLS_METRICS_DISABLED="true"))
            if "send_notifications" in get_commands():
                # the customers' emails, as files: the demo sends no real mail unless EMAIL_BACKEND says so
                mail = {"EMAIL_BACKEND": os.environ.get("EMAIL_BACKEND") or FILE_BACKEND}
                mail["EMAIL_FILE_PATH"] = os.environ.get("EMAIL_FILE_PATH") or str(data_dir / "mail")
                children.append(self._spawn("send_notifications", "--follow", **mail))
            self.stdout.write(
                self.style.SUCCESS(
                    f"\n  dashboard: http://127.0.0.1:{port}/\n  login:     {login}\n"
                    f"  DynamoDB Local: {engine.endpoint if engine else os.environ['AWS_ENDPOINT_URL_DYNAMODB']}"
                    f" (data in {data_dir})\n"
                )
            )
            if not no_live_orders:
                self._start_live_orders(stop_live_orders, order_every)
            server = subprocess.Popen(server_command(port), cwd=settings.BASE_DIR, env=server_environment(os.environ))
            children.append(server)
            server.wait()
        except KeyboardInterrupt:
            self.stdout.write("stopping")
        finally:
            stop_live_orders.set()
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child in children:
                try:
                    child.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    child.kill()
            if engine:
                engine.stop()

    def _engine(self, data_dir: Path, port: int) -> local.DynamoDBLocal | None:
        """Start DynamoDB Local, or reuse one already listening on the port (e.g. from an earlier run)."""
        endpoint = f"http://127.0.0.1:{port}"
        own = {name: os.environ.get(name) or value for name, value in local.LOCAL_CREDENTIALS.items()}  # theirs win
        local.set_environment({**own, **dict.fromkeys(local.ENDPOINT_VARIABLES, endpoint)})
        apply_environment()
        if local.port_open(port):
            self.stdout.write(f"using the DynamoDB Local already listening on {endpoint}")
            return None
        try:
            engine = local.persistent(data_dir / "dynamodb", port=port)
            engine.start(log_path=data_dir / "dynamodb-local.log")
        except local.DynamoDBLocalError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"DynamoDB Local started on {endpoint}")
        return engine

    def _start_live_orders(self, stop: threading.Event, every_s: int) -> None:
        """Orders arriving while the demo runs (``shop.live_orders``), in a thread until ``stop``."""
        shop = live_orders.live_shop()
        if not (shop.customers and shop.products):
            self.stdout.write("live orders: none (the shop has no customers or products to order)")
            return
        self.stdout.write(
            f"live orders: a new order about every {every_s} s from a random customer, now and then a return "
            f"requested, as '{live_orders.STOREFRONT.username}'; shipping, delivering and the returns are left for "
            "you (--order-every SECONDS; --no-live-orders turns this off)"
        )
        extras = [import_string(path) for path in settings.LIVE_ORDER_EXTENSIONS]
        threading.Thread(
            target=live_orders.run,
            kwargs={"shop": shop, "actor": live_orders.STOREFRONT, "stop": stop, "every_s": every_s, "extras": extras},
            name="live-orders",
            daemon=True,
        ).start()

    @staticmethod
    def _spawn(*args: str, **env: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), *args], env={**os.environ, **env}
        )
