"""What one member of staff does, for locust (run by ``bench.load.run``; not imported by the product).

Most staff browse: pending orders (and their next pages), customers, invoices, buyers, single orders, CSV
downloads. Fulfilment staff browse too, and ship or cancel orders from a pool of pending orders that is theirs
alone (so two of them never race for one order). Every status answered is counted per page, and every ship or
cancel that succeeded is written down, so the run can check afterwards that none was lost.

Input: ``LOAD_SUBJECTS`` (JSON written by ``run``: accounts, ids to browse, pools of pending orders). Output:
``LOAD_RECORD`` (JSON: status counts per page, actions that succeeded, conflicts).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

from locust import HttpUser, between, events, task

SUBJECTS: dict[str, Any] = json.loads(Path(os.environ["LOAD_SUBJECTS"]).read_text())
THINK = float(os.environ.get("LOAD_THINK_S", "1.0"))
STATUSES: Counter[str] = Counter()
ACTIONS: list[dict[str, str]] = []
CONFLICTS: list[dict[str, str]] = []
_pools = itertools.count()

NEXT_LINK = re.compile(r'class="load-more" href="([^"]+)"')
VERSION = re.compile(r'action="/orders/[^/]+/ship/".*?name="expected_version" value="([^"]*)"', re.S)
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


class Staff(HttpUser):
    abstract = True
    wait_time = between(THINK / 2, THINK * 1.5)
    account = "browser"

    def on_start(self) -> None:
        username, password = SUBJECTS["accounts"][self.account]
        page = self.client.get("/accounts/login/", name="login page")
        token = CSRF.search(page.text)
        with self.client.post(
            "/accounts/login/",
            data={"username": username, "password": password, "csrfmiddlewaretoken": token.group(1) if token else ""},
            name="login",
            allow_redirects=False,
            catch_response=True,
        ) as response:
            self._check(response, "login", 302)

    def _check(self, response: Any, name: str, expected: int) -> None:
        STATUSES[f"{name} {response.status_code}"] += 1
        if response.status_code != expected:
            cause = f": {response.error!r}"[:200] if response.status_code == 0 else ""  # no answer: why
            response.failure(f"HTTP {response.status_code}{cause}")
        else:
            response.success()

    def get(self, url: str, name: str) -> str:
        with self.client.get(url, name=name, allow_redirects=False, catch_response=True) as response:
            self._check(response, name, 200)
            return str(response.text) if response.status_code == 200 else ""

    @task(6)
    def pending(self) -> None:
        html = self.get("/orders/pending/", "pending")
        link = NEXT_LINK.search(html)
        if link and random.random() < 0.5:
            self.get(link.group(1).replace("&amp;", "&"), "pending, next page")

    @task(3)
    def customer(self) -> None:
        self.get(f"/customers/{random.choice(SUBJECTS['customers'])}/", "customer")

    @task(3)
    def invoices(self) -> None:
        start, end = SUBJECTS["invoice_range"]
        self.get(f"/customers/{random.choice(SUBJECTS['customers'])}/invoices/?from={start}&to={end}", "invoices")

    @task(2)
    def buyers(self) -> None:
        self.get(f"/products/{random.choice(SUBJECTS['products'])}/buyers/", "buyers")

    @task(4)
    def order(self) -> None:
        self.get(f"/orders/{random.choice(SUBJECTS['orders'])}/", "order")

    @task(1)
    def csv(self) -> None:
        if random.random() < 0.5:
            self.get("/orders/pending/?format=csv", "pending CSV")
        else:
            start, end = SUBJECTS["invoice_range"]
            cid = random.choice(SUBJECTS["customers"])
            self.get(f"/customers/{cid}/invoices/?from={start}&to={end}&format=csv", "invoices CSV")


class BrowsingStaff(Staff):
    weight = 1


class FulfilmentStaff(Staff):
    fixed_count = int(os.environ.get("LOAD_FULFILMENT_USERS", "1"))  # the rest are BrowsingStaff
    account = "fulfilment"

    def on_start(self) -> None:
        super().on_start()
        pools = SUBJECTS["action_pools"]
        self.pool: list[str] = list(pools[next(_pools) % len(pools)]) if pools else []

    def _act(self, action: str) -> None:
        if not self.pool:
            return
        order_id = self.pool.pop()
        html = self.get(f"/orders/{order_id}/", "order")
        version, token = VERSION.search(html), CSRF.search(html)
        if not version or not token:
            return
        with self.client.post(
            f"/orders/{order_id}/{action}/",
            data={"expected_version": version.group(1), "csrfmiddlewaretoken": token.group(1)},
            name=action,
            allow_redirects=False,
            catch_response=True,
        ) as response:
            if response.status_code == 409:  # no longer allowed: told so, nothing changed; not an error
                STATUSES[f"{action} 409"] += 1
                CONFLICTS.append({"order_id": order_id, "action": action})
                response.success()
                return
            self._check(response, action, 302)
            if response.status_code == 302:
                ACTIONS.append({"order_id": order_id, "action": action})

    @task(3)
    def ship(self) -> None:
        self._act("ship")

    @task(1)
    def cancel(self) -> None:
        self._act("cancel")


def _write_record(**_: Any) -> None:
    record = {"statuses": dict(STATUSES), "actions": ACTIONS, "conflicts": CONFLICTS}
    Path(os.environ["LOAD_RECORD"]).write_text(json.dumps(record, indent=1))


events.test_stop.add_listener(_write_record)  # type: ignore[no-untyped-call]
