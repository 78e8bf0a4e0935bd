"""A throwaway PostgreSQL cluster (initdb into a temporary directory, a free port on 127.0.0.1, its socket in
that directory) for the tests and the load test: the staff database that several dashboard instances share.

Uses the server binaries of Debian's ``postgresql`` package (``/usr/lib/postgresql/<version>/bin``) or
``PG_BIN_DIR``; ``available()`` says why not when they are missing. initdb refuses to run as root, so as root
the cluster runs as the ``postgres`` user (or ``nobody``) through ``runuser``.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from dynamo.local import free_port, port_open

SUPERUSER = "postgres"
START_TIMEOUT_S = 60.0


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries here; the message says how to get them."""


def bin_dir() -> Path:
    """Where initdb, pg_ctl and postgres are: ``PG_BIN_DIR``, else the newest Debian install, else PATH."""
    candidates: list[Path] = []
    if os.environ.get("PG_BIN_DIR"):
        candidates.append(Path(os.environ["PG_BIN_DIR"]))
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: _version(p.parent.name), reverse=True)
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for candidate in candidates:
        if (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
            return candidate
    raise PostgresUnavailable(
        "PostgreSQL server binaries not found (no initdb under /usr/lib/postgresql/*/bin, PG_BIN_DIR or PATH): "
        "install Debian's `postgresql` package"
    )


def _version(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def available() -> str | None:
    """None when a cluster can be started, else the reason it cannot."""
    try:
        bin_dir()
    except PostgresUnavailable as exc:
        return str(exc)
    return None


def _run_as() -> str | None:
    """The user to run the server as when we are root (initdb refuses root); None when not root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise PostgresUnavailable("running as root and there is no `postgres` or `nobody` user to run PostgreSQL as")


@dataclass
class Cluster:
    """A running cluster; ``url(database)`` for DATABASE_URL."""

    root: Path
    port: int
    bin: Path
    user: str | None

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres") -> str:
        return f"postgres://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def _cmd(self, *args: str) -> list[str]:
        return ["runuser", "-u", self.user, "--", *args] if self.user else list(args)

    def start(self) -> Cluster:
        if self.user:
            shutil.chown(self.root, user=self.user)
        subprocess.run(
            self._cmd(str(self.bin / "initdb"), "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8"),
            check=True,
            capture_output=True,
        )
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        subprocess.run(
            self._cmd(
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "start"
            ),
            check=True,
            capture_output=True,
            timeout=START_TIMEOUT_S,
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while not port_open(self.port):
            if time.monotonic() > deadline:
                raise PostgresUnavailable(f"PostgreSQL did not open port {self.port}; see {self.root / 'log'}")
            time.sleep(0.05)
        return self

    def create_database(self, name: str) -> str:
        """A new database; returns its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.data.exists():
            subprocess.run(
                self._cmd(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"),
                check=False,
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def throwaway() -> Iterator[Cluster]:
    """Start a cluster for the block; everything is deleted after."""
    cluster = Cluster(
        root=Path(tempfile.mkdtemp(prefix="shop-admin-pg-")), port=free_port(), bin=bin_dir(), user=_run_as()
    )
    try:
        yield cluster.start()
    finally:
        cluster.stop()
