"""The carriers staff ship with (``settings.SHOP_CARRIERS``) and a parcel's tracking link. A shipment keeps its
carrier as text, so one typed as "other" (or written by another caller) is shown as it is, without a link."""

from __future__ import annotations

from urllib.parse import quote

from django.conf import settings

OTHER = "other"  # the ship form's choice for a carrier not in the list (named in its own text field)


def carriers() -> dict[str, str]:
    """Each listed carrier's name and tracking-URL template, in the settings' order."""
    listed: dict[str, str] = settings.SHOP_CARRIERS
    return listed


def listed_name(carrier: str | None) -> str | None:
    """The list's spelling of ``carrier`` (case and spaces around ignored), or None when it is not listed."""
    if not carrier:
        return None
    wanted = carrier.strip().casefold()
    return next((name for name in carriers() if name.casefold() == wanted), None)


def tracking_url(carrier: str | None, number: str | None) -> str | None:
    """The carrier's tracking page of ``number``, or None for a carrier not listed or no number."""
    name = listed_name(carrier)
    if name is None or not number:
        return None
    return carriers()[name].replace("{number}", quote(number, safe=""))
