"""The CSRF masks and secrets drawn by ``dashboard.csrf_random``: in place of Django's, of the same alphabet and
length, and accepted (or refused when tampered with) by Django's own CSRF middleware."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.contrib.auth.models import User
from django.middleware import csrf
from django.test import Client, RequestFactory

from dashboard.csrf_random import random_csrf_string

FORM_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([A-Za-z0-9]+)"')


def test_it_is_what_django_draws_csrf_strings_with() -> None:
    assert csrf._get_new_csrf_string is random_csrf_string


def test_strings_are_32_characters_of_the_csrf_alphabet_every_one_drawn() -> None:
    drawn = [random_csrf_string() for _ in range(2000)]
    assert all(len(s) == csrf.CSRF_SECRET_LENGTH for s in drawn)
    counts = Counter("".join(drawn))
    assert set(counts) == set(csrf.CSRF_ALLOWED_CHARS)  # 64,000 draws of 62 characters: each one shows
    expected = 64_000 / len(csrf.CSRF_ALLOWED_CHARS)  # about 1,032 each; a skew towards some would show here
    assert all(0.8 * expected < n < 1.2 * expected for n in counts.values()), counts.most_common(3)
    assert len(set(drawn)) == len(drawn)


def test_a_token_unmasks_to_the_requests_secret() -> None:
    request = RequestFactory().get("/")
    secret = random_csrf_string()
    request.META["CSRF_COOKIE"] = secret
    tokens = {csrf.get_token(request) for _ in range(20)}
    assert len(tokens) == 20  # a new mask every time
    assert {csrf._unmask_cipher_token(t) for t in tokens} == {secret}  # type: ignore[attr-defined]


@pytest.mark.django_db
def test_django_accepts_the_masked_token_of_a_form_and_refuses_a_tampered_one() -> None:
    User.objects.create_user("ann", "ann@example.com", "pw-ann-12345", is_staff=True)
    client = Client(enforce_csrf_checks=True)
    token = FORM_TOKEN.search(client.get("/accounts/login/").content.decode())
    assert token is not None
    masked = token.group(1)
    assert len(masked) == 2 * csrf.CSRF_SECRET_LENGTH
    tampered = masked[:-1] + ("a" if masked[-1] != "a" else "b")
    form = {"username": "ann", "password": "pw-ann-12345"}
    refused = client.post("/accounts/login/", form | {"csrfmiddlewaretoken": tampered})
    assert refused.status_code == 403
    accepted = client.post("/accounts/login/", form | {"csrfmiddlewaretoken": masked})
    assert accepted.status_code == 302
    assert client.session["_auth_user_id"] == str(User.objects.get(username="ann").pk)


def test_a_read_short_of_even_bytes_is_topped_up(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = iter([bytes(range(248, 256)) * 4 + b"\x00" * 8, bytes([61, 62, 247, 255]) * 10])
    monkeypatch.setattr("dashboard.csrf_random.os.urandom", lambda n: next(reads))
    # the first read keeps 8 characters (the 32 bytes >= 248 are dropped); the second adds 30 of which 24 are kept
    assert random_csrf_string() == "a" * 8 + "9a9" * 8  # 61 and 247 fall on "9" (the 62nd), 62 on "a"
