"""Every page of the dashboard passes axe-core (npm ``axe-core``, run inside Chromium) with no violation of
impact serious or critical, in light and dark (the system's colour scheme, which the layout follows) at desktop
width and at 375 px; each has one ``<h1>`` and breadcrumbs; at 375 px the page itself never scrolls sideways (wide
tables scroll in their own box).

The pages and how each is reached: ``tests/dashboard/tour.py``. axe's rules: WCAG 2.x A and AA and its best
practices (labels, contrast, landmarks, one main heading, focusable scrolling regions, ...).
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.dashboard import tour

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
FAILING_IMPACTS = ("serious", "critical")
RUN_AXE = "() => axe.run(document, {resultTypes: ['violations']})"
# The rules whose outcome depends on colours: all a change of colour scheme at the same width can change (the DOM,
# what is shown and the layout stay as they were), so a page already checked in full at a width is checked again
# in the other scheme with these alone.
RUN_AXE_ON_COLOURS = (
    "() => axe.run(document, {resultTypes: ['violations'],"
    " runOnly: {type: 'rule', values: ['color-contrast', 'link-in-text-block']}})"
)
SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
# What the Content-Security-Policy ('self' only) would refuse, and this context (bypass_csp, for axe) would not.
INLINE = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle=|\son[a-z]+=", re.IGNORECASE)


def problems_of(page: Any, response: Any, name: str) -> list[str]:
    """What is wrong with the page as served (inline script or style, not one <h1>, no breadcrumbs) and, in every
        look, as it is shown: axe's serious and critical violations (rule, impact, targets) and, at a narrow width, any
        sideways scrolling of the page itself, read while no htmx request is in flight (``tour.quietly``: a
    request's ``.htmx-request`` fades what it covers). The page is loaded once and each look applied to it in turn
        (``tour.look_at``): the pages' only script (the admin's theme.js) reads a stored choice, never the viewport or
        the scheme, so a page restyled in place is the page a browser in that look would have loaded. Its DOM is the
        same in every look, and a change of colour scheme at a width already checked changes colours alone: that look
        is checked with axe's colour rules."""
    found: list[str] = []
    inline = INLINE.findall(response.text())
    if inline:
        found.append(f"{name}: inline script or style, which the CSP refuses: {inline[:3]}")
    if (headings := page.locator("h1").count()) != 1:
        found.append(f"{name}: {headings} <h1> elements, not one")
    if page.locator("nav[aria-label=Breadcrumbs] .breadcrumbs").count() != 1:
        found.append(f"{name}: no breadcrumbs")
    widths_checked: set[int] = set()
    for look in tour.LOOKS:
        tour.look_at(page, look)
        colours_only = look.width in widths_checked
        widths_checked.add(look.width)
        result = tour.quietly(page, partial(page.evaluate, RUN_AXE_ON_COLOURS if colours_only else RUN_AXE))
        found += [
            f"{name} ({look}): {v['id']} [{v['impact']}] {v['help']}: "
            + "; ".join(" ".join(node["target"]) for node in v["nodes"][:6])
            for v in result["violations"]
            if v["impact"] in FAILING_IMPACTS
        ]
        if look.width <= tour.NARROW and not colours_only and (overflow := page.evaluate(SIDEWAYS)) > 0:
            found.append(f"{name} ({look}): the page scrolls sideways by {overflow} px")
    return found


# One seeded shop and one browser for every look: each page is reached once (the tour's posts change the shop, so
# a second pass would see another shop) and checked in all four looks.
@pytest.mark.timeout(600)
def test_every_page_passes_axe_in_every_look(
    live_server: Any, tour_browser: Any, shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert AXE.exists(), f"{AXE} is missing: run `npm ci` (scripts/bootstrap does)"
    tour.seed()
    user = tour.staff_user()
    base = live_server.url
    problems: list[str] = []
    with tour.tab(tour_browser, tour.LOOKS[0]) as page:
        page.context.add_init_script(path=str(AXE))  # in every page the tour opens, before the page's own script
        response = tour.open_page(page, base, tour.LOGIN)
        problems += problems_of(page, response, tour.LOGIN.name)
        tour.log_in(page, base)
        for visit in tour.visits(monkeypatch):
            with visit.condition():
                response = tour.open_page(page, base, visit)
                problems += problems_of(page, response, visit.name)
        User.objects.filter(pk=user.pk).update(is_staff=False)
        response = tour.open_page(page, base, tour.NOT_STAFF)
        problems += problems_of(page, response, tour.NOT_STAFF.name)
    assert not problems, "axe found:\n" + "\n".join(problems)
