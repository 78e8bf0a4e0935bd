"""Screenshots of every page for docs/staff-work.md's "Looks" section, one PNG per page of ``tests/dashboard/tour.py``
(Chromium, 1280 px wide, light, the first screenful, or the whole page of ``WHOLE_PAGES``), and the home and order
pages dark and at 375 px.

``scripts/screenshots`` runs this with ``SHOP_ADMIN_SCREENSHOTS`` set to the folder (``docs/screenshots``);
without it the test is skipped, so the test suite and CI never rewrite the committed images.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.dashboard import tour

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FOLDER = os.environ.get("SHOP_ADMIN_SCREENSHOTS", "")
WIDE = tour.Look("light", tour.DESKTOP)
EXTRA_LOOKS = (tour.Look("dark", tour.DESKTOP), tour.Look("light", tour.NARROW))
EXTRA_PAGES = ("home", "order")  # also taken in EXTRA_LOOKS: the charts and a page of tables
# the order's life: what is due, its payment status, shipments, refunds and notifications are below the first screenful
WHOLE_PAGES = ("order-edited", "order-part-paid", "order-refunded")


def shoot(page: Any, folder: Path, name: str) -> None:
    """The page as it settled, with no htmx request in flight (``tour.quietly``)."""
    path, whole = str(folder / f"{name}.png"), name in WHOLE_PAGES
    tour.quietly(page, lambda: page.screenshot(path=path, full_page=whole, animations="disabled", caret="hide"))


@pytest.mark.skipif(not FOLDER, reason="scripts/screenshots sets SHOP_ADMIN_SCREENSHOTS to the output folder")
def test_screenshots(live_server: Any, shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = Path(FOLDER)
    folder.mkdir(parents=True, exist_ok=True)
    tour.seed()
    user = tour.staff_user()
    base = live_server.url
    shown_in_every_look = [visit for visit in tour.visits(monkeypatch) if visit.name in EXTRA_PAGES]
    with tour.chromium() as browser:
        for look in EXTRA_LOOKS:
            with tour.tab(browser, look) as page:
                tour.log_in(page, base)
                for visit in shown_in_every_look:
                    tour.open_page(page, base, visit)
                    shoot(page, folder, f"{visit.name}-{look.scheme}-{look.width}")
        with tour.tab(browser, WIDE) as page:
            tour.open_page(page, base, tour.LOGIN)
            shoot(page, folder, tour.LOGIN.name)
            tour.log_in(page, base)
            for visit in tour.visits(monkeypatch):
                with visit.condition():
                    tour.open_page(page, base, visit)
                    shoot(page, folder, visit.name)
            User.objects.filter(pk=user.pk).update(is_staff=False)
            tour.open_page(page, base, tour.NOT_STAFF)
            shoot(page, folder, tour.NOT_STAFF.name)
