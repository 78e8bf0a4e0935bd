"""What a browser does with an edit form, for the page tests: read every field the GET rendered, change some,
post them all back."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

from django.contrib.auth.models import Group, User
from django.test import Client

from dynamo.client import client_of
from shop.models import ShopItem


class _Fields(HTMLParser):
    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id, self.inside = form_id, False
        self.fields: dict[str, str] = {}
        self.textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form" and found.get("id") == self.form_id:
            self.inside = True
        elif self.inside and tag == "input" and found.get("name"):
            self.fields[str(found["name"])] = found.get("value") or ""
        elif self.inside and tag == "textarea" and found.get("name"):
            self.textarea = str(found["name"])
            self.fields[self.textarea] = ""

    def handle_data(self, data: str) -> None:
        if self.textarea is not None:
            self.fields[self.textarea] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea":
            self.textarea = None
        elif tag == "form":
            self.inside = False


def form_fields(client: Client, url: str, form_id: str = "edit-form") -> dict[str, str]:
    """Every field of the page's form as the GET rendered it (hidden ones and the CSRF token included)."""
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    parser = _Fields(form_id)
    parser.feed(response.content.decode())
    if parser.fields.get("description", "").startswith("\n"):  # the HTML parser keeps a textarea's first newline
        parser.fields["description"] = parser.fields["description"][1:]
    return parser.fields


def raw(pk: str, sk: str | None = None) -> dict[str, Any] | None:
    table = str(ShopItem.Meta.table_name)
    response = client_of(ShopItem).get_item(TableName=table, Key={"PK": {"S": pk}, "SK": {"S": sk or pk}})
    return dict(response["Item"]) if "Item" in response else None


def changed(before: dict[str, Any] | None, after: dict[str, Any] | None) -> set[str]:
    before, after = before or {}, after or {}
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def member(username: str, *groups: str, superuser: bool = False) -> Client:
    """A logged-in staff member of ``groups``, whose client checks CSRF as a browser's would."""
    user = User.objects.create_user(username, f"{username}@example.com", "pw-123-abc", is_staff=True)
    user.is_superuser = superuser
    user.save()
    for name in groups:
        user.groups.add(Group.objects.get_or_create(name=name)[0])
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client
