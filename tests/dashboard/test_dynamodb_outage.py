"""When DynamoDB does not answer, every page and action answers 503 with ``Retry-After`` and a readable message (the
message fragment for htmx), its cost headers included; a change says its outcome is unknown. Other errors stay 500.

Here nothing listens at DynamoDB's endpoint (connection refused: botocore's ``EndpointConnectionError``, retried
once by the dashboard's profile), so each answer comes at once; ``test_dynamodb_freeze`` does the same against a
DynamoDB Local that stops answering mid-way, through gunicorn.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from botocore.exceptions import ClientError
from django.contrib.auth.models import User
from django.test import Client
from pynamodb.exceptions import QueryError

from dashboard.responses import NO_ANSWER, NO_ANSWER_TO_CHANGE, RETRY_AFTER_S
from shop import orders
from tests.dashboard import tour
from tests.dashboard.conftest import csrf_of


@pytest.fixture
def dynamodb_gone() -> Iterator[None]:
    """Every client points at a port nothing listens on, with the dashboard's profile in force (as under gunicorn)."""
    with tour.dynamodb_gone():
        yield


def assert_no_answer(response: object, message: str) -> str:
    html: str = response.content.decode()  # type: ignore[attr-defined]
    assert response.status_code == 503, html[:500]  # type: ignore[attr-defined]
    assert response["Retry-After"] == str(RETRY_AFTER_S)  # type: ignore[index]
    assert int(response["X-DynamoDB-Calls"]) >= 1 and "dynamodb;dur=" in response["Server-Timing"]  # type: ignore[index]
    assert message in html.replace("&#x27;", "'")
    assert "Traceback" not in html
    return html


@pytest.mark.usefixtures("dynamodb_gone")
def test_a_page_says_dynamodb_is_not_answering(staff: Client) -> None:
    html = assert_no_answer(staff.get("/orders/o123/"), NO_ANSWER)
    assert "<html" in html and "503 Unavailable" in html


@pytest.mark.usefixtures("dynamodb_gone")
def test_an_htmx_request_gets_the_message_to_swap_in_place(staff: Client) -> None:
    html = assert_no_answer(staff.get("/orders/pending/", headers={"HX-Request": "true"}), NO_ANSWER)
    assert "<html" not in html and '<div class="alert" role="alert" data-status="503">' in html
    assert 'id="dynamodb-cost"' not in html  # the footer's panel follows swaps for operators only


@pytest.mark.usefixtures("dynamodb_gone")
def test_the_live_queue_keeps_polling(staff: Client) -> None:
    response = staff.get("/orders/new/?status=PENDING&newest=2000-01-01T00:00:00%23o0", headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 503 and response["Retry-After"] == str(RETRY_AFTER_S)
    assert '<div id="live-queue"' in html and 'hx-trigger="every 10s"' in html and "new order" not in html


@pytest.mark.usefixtures("dynamodb_gone")
def test_an_order_action_says_its_outcome_is_unknown(packer: Client) -> None:
    for action, done in (("ship", "shipped"), ("cancel", "cancelled"), ("deliver", "delivered")):
        response = packer.post(
            f"/orders/o123/{action}/", {"expected_version": "1"}, headers={"X-CSRFToken": csrf_of(packer)}
        )
        html = assert_no_answer(response, f"order o123 may or may not have been {done}: reload the order to see")
        assert '<a href="/orders/o123/">Reload order o123</a>' in html


@pytest.mark.usefixtures("dynamodb_gone")
def test_a_favourite_says_its_outcome_is_unknown(packer: Client) -> None:
    response = packer.post(
        "/orders/o123/items/p9/favourite/", headers={"X-CSRFToken": csrf_of(packer), "HX-Request": "true"}
    )
    assert_no_answer(response, "product p9 may or may not have been marked as a favourite")


@pytest.mark.usefixtures("dynamodb_gone")
def test_a_bulk_action_reports_each_order_as_unknown(packer: Client) -> None:
    data = {"action": "cancel", "status": "PENDING", "order": ["o1", "o2", "o3"], "confirm": "yes"}
    response = packer.post("/orders/bulk/", data, headers={"X-CSRFToken": csrf_of(packer), "HX-Request": "true"})
    html = assert_no_answer(response, "3 unknown: DynamoDB did not answer")
    for oid in ("o1", "o2", "o3"):
        assert f'id="outcome-{oid}" hx-swap-oob="true" data-code="503"' in html
        assert f"order {oid} may or may not have been cancelled" in html


@pytest.mark.usefixtures("dynamodb_gone")
def test_any_other_change_says_its_outcome_is_unknown(db: None) -> None:
    superuser = Client()
    superuser.force_login(User.objects.create_superuser("root", "root@example.com", "pw-root-123"))
    response = superuser.post("/sync/replay/", {"all": "1"}, headers={"X-CSRFToken": csrf_of(superuser)})
    assert_no_answer(response, NO_ANSWER_TO_CHANGE)


def test_an_error_that_is_not_a_missing_answer_stays_a_500(staff: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    refused = ClientError({"Error": {"Code": "ValidationException", "Message": "bad key"}}, "Query")

    def query_refused(order_id: str) -> orders.OrderCollection:
        raise QueryError("Failed to query items", refused)

    monkeypatch.setattr(orders, "order_collection", query_refused)
    staff.raise_request_exception = False
    response = staff.get("/orders/o123/")
    assert response.status_code == 500 and "Retry-After" not in response
