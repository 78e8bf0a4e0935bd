"""The repair commands as an operator runs them: ``manage.py rebuild_adminview`` and ``verify_adminview`` in
child processes, each timed, with its peak memory: the child's ``VmHWM`` (peak resident set size) from
``/proc/<pid>/status``, sampled while it runs. Not ``wait4``'s ``ru_maxrss``: Linux carries the forking
parent's peak over the ``exec``, so it would report the benchmark's own size.

The rebuild writes a brand-new, empty view table (a full rebuild: every view item written); verify then checks
the view the sync built, so a clean verify also proves the sync right at this size.

Each command's items/s is given twice: over its wall time (Python and Django start-up included) and over the
seconds its summary line says the walk took (``own_items_per_s``), the figure comparable with seeding's items/s,
which are timed inside a running process too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from adminview.tables import ADMIN_VIEW_TABLE
from bench import cpu
from dynamo.client import client_of
from dynamo.tables import delete_table, ensure_table

REPO_ROOT = Path(__file__).resolve().parent.parent
TAIL_LINES = 3
SAMPLE_S = 0.2
# the end of both commands' summary line (``adminview.repair.view_diff``): "... view items in 23.1s (1369 items/s)"
OWN_SECONDS = re.compile(r" view items in (?P<seconds>\d+(?:\.\d+)?)s \(")


def own_seconds(lines: list[str]) -> float | None:
    """The seconds a command's summary line says its walk took (None without such a line)."""
    for line in reversed(lines):
        found = OWN_SECONDS.search(line)
        if found:
            return float(found["seconds"])
    return None


def peak_rss_kb(pid: int) -> int | None:
    """The process's peak resident set size so far (Linux), None where /proc does not say."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def run_command(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """``manage.py <args>`` in a child process: exit code, seconds, peak RSS in MB, CPU seconds (the engine's and
    the child's), last lines of its output."""
    with tempfile.TemporaryFile() as output:
        started, cpu_before = time.perf_counter(), cpu.Snapshot.now()
        child = subprocess.Popen(
            [sys.executable, "manage.py", *args], cwd=REPO_ROOT, env=env, stdout=output, stderr=subprocess.STDOUT
        )
        peak_kb = 0
        while child.poll() is None:
            peak_kb = max(peak_kb, peak_rss_kb(child.pid) or 0)
            time.sleep(SAMPLE_S)
        seconds = time.perf_counter() - started
        spent = cpu.Snapshot.now().since(cpu_before)
        output.seek(0)
        lines = output.read().decode(errors="replace").replace("\r", "\n").splitlines()
    return {
        "command": "manage.py " + " ".join(args),
        "exit": child.returncode,
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(peak_kb / 1024.0, 1) if peak_kb else None,
        "cpu": {"engine_s": spent["engine_s"], "command_s": spent["children_s"]},
        "output": [line for line in lines if line.strip()][-TAIL_LINES:],
    }


def item_count(model: type[Any]) -> int:
    return int(client_of(model).describe_table(TableName=str(model.Meta.table_name))["Table"].get("ItemCount", 0))


def _verify(model: type[Any], env: dict[str, str]) -> dict[str, Any]:
    verified = run_command(["verify_adminview"], env | {"ADMIN_VIEW_TABLE_NAME": str(model.Meta.table_name)})
    verified["view_items"] = item_count(model)
    return verified


def child_env() -> dict[str, str]:
    """The environment of a child ``manage.py``: ours (tables and endpoint included), with a secret key and a
    staff database of its own when we have none."""
    env = dict(os.environ)
    env.setdefault("DJANGO_SECRET_KEY", "bench-" + uuid.uuid4().hex)
    env.setdefault("DJANGO_DB_PATH", str(Path(tempfile.mkdtemp(prefix="bench-db-")) / "db.sqlite3"))
    return env


def repair(shop_items: int, *, verify_rebuilt: bool = False) -> dict[str, Any]:
    """Rebuild into an empty view table, then verify the synced view (or, ``verify_rebuilt``, the view the
    rebuild wrote); items/s counts the shop table's items."""
    env = child_env()
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
        result["own_seconds"] = own = own_seconds(result["output"])
        result["own_items_per_s"] = round(shop_items / own, 1) if own else None
    return {"rebuild": rebuilt, "verify": verified}
