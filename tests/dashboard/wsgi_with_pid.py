"""The dashboard's WSGI application with the serving worker's pid in an ``X-Worker-Pid`` header, so a test can
tell which gunicorn worker answered. Tests only."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from config.wsgi import application as dashboard

StartResponse = Callable[..., Any]


def application(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    def with_pid(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
        return start_response(status, [*headers, ("X-Worker-Pid", str(os.getpid()))], *exc_info)

    return dashboard(environ, with_pid)
