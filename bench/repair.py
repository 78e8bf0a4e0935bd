"""The repair commands as an operator runs them: ``manage.py rebuild_adminview`` and ``verify_adminview`` in
child processes, each timed, with its peak memory (the child's maximum resident set size, from ``wait4``).

The rebuild writes a brand-new, empty view table (a full rebuild: every view item written); verify then checks
the view the sync built, so a clean verify also proves the sync right at this size.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from adminview.models import ADMIN_VIEW_TABLE
from dynamo.batch import client_of
from dynamo.tables import delete_table, ensure_table

REPO_ROOT = Path(__file__).resolve().parent.parent
TAIL_LINES = 3


def run_command(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """``manage.py <args>`` in a child process: exit code, seconds, peak RSS in MB, last lines of its output."""
    with tempfile.TemporaryFile() as output:
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "manage.py", *args], cwd=REPO_ROOT, env=env, stdout=output, stderr=subprocess.STDOUT
        )
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        lines = output.read().decode(errors="replace").replace("\r", "\n").splitlines()
    return {
        "command": "manage.py " + " ".join(args),
        "exit": child.returncode,
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024.0, 1),  # Linux reports kilobytes
        "output": [line for line in lines if line.strip()][-TAIL_LINES:],
    }


def item_count(model: type[Any]) -> int:
    return int(client_of(model).describe_table(TableName=str(model.Meta.table_name))["Table"].get("ItemCount", 0))


def _verify(model: type[Any], env: dict[str, str]) -> dict[str, Any]:
    verified = run_command(["verify_adminview"], env | {"ADMIN_VIEW_TABLE_NAME": str(model.Meta.table_name)})
    verified["view_items"] = item_count(model)
    return verified


def repair(shop_items: int, *, verify_rebuilt: bool = False) -> dict[str, Any]:
    """Rebuild into an empty view table, then verify the synced view (or, ``verify_rebuilt``, the view the
    rebuild wrote); items/s counts the shop table's items."""
    env = dict(os.environ)
    env.setdefault("DJANGO_SECRET_KEY", "bench-" + uuid.uuid4().hex)
    env.setdefault("DJANGO_DB_PATH", str(Path(tempfile.mkdtemp(prefix="bench-db-")) / "db.sqlite3"))
    model = ADMIN_VIEW_TABLE.model
    synced = str(model.Meta.table_name)
    model.Meta.table_name = f"{synced}-rebuilt"
    try:
        ensure_table(ADMIN_VIEW_TABLE)
        rebuilt = run_command(["rebuild_adminview"], env | {"ADMIN_VIEW_TABLE_NAME": str(model.Meta.table_name)})
        rebuilt["view_items_written"] = item_count(model)
        if verify_rebuilt:
            verified = _verify(model, env)
        delete_table(model)
    finally:
        model.Meta.table_name = synced
    if not verify_rebuilt:
        verified = _verify(model, env)
    for result in (rebuilt, verified):
        result["shop_items"] = shop_items
        result["items_per_s"] = round(shop_items / result["seconds"], 1) if result["seconds"] else None
    return {"rebuild": rebuilt, "verify": verified}
