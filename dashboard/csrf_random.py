"""The random strings behind Django's CSRF tokens, from one ``os.urandom`` read instead of 32.

Every page masks the CSRF secret anew (the token in its forms and in ``hx-headers``, against BREACH), and the mask
is a fresh random string of 32 characters. Django draws it with ``get_random_string``: one ``secrets.choice``, so
one ``os.urandom`` call, per character: about 30 µs a page, a quarter of the base layout's rendering. This draws the
same thing, 32 characters uniform over ``CSRF_ALLOWED_CHARS`` from the operating system's CSPRNG, from one read of
random bytes mapped in C: a byte below 248 (4 x 62) stands for its value modulo 62, a byte at or above it is dropped,
so no character is more likely than another.

``install()`` (from ``DashboardConfig.ready``) puts it in place of ``django.middleware.csrf._get_new_csrf_string``,
which Django calls for every mask and every new secret; the tests check it is in place and that Django's own
middleware accepts the tokens it makes.
"""

from __future__ import annotations

import os

from django.middleware import csrf

_CHARS = csrf.CSRF_ALLOWED_CHARS
_LENGTH = csrf.CSRF_SECRET_LENGTH
_LIMIT = 256 - 256 % len(_CHARS)  # 248: the bytes that fall evenly on the alphabet
_TO_CHAR = bytes(ord(_CHARS[b % len(_CHARS)]) if b < _LIMIT else 0 for b in range(256))
_UNEVEN = bytes(range(_LIMIT, 256))
_READ = _LENGTH + 8  # 1 byte in 32 is dropped: 40 bytes fall short of 32 characters about 3 times in a million


def random_csrf_string() -> str:
    """``_LENGTH`` characters, each uniform over ``CSRF_ALLOWED_CHARS``, from the OS's CSPRNG."""
    drawn = b""
    while len(drawn) < _LENGTH:
        drawn += os.urandom(_READ).translate(_TO_CHAR, _UNEVEN)
    return drawn[:_LENGTH].decode("ascii")


def install() -> None:
    csrf._get_new_csrf_string = random_csrf_string
