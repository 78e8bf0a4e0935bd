"""The Lambda package holds no Django: importing the handler (and what it stores with) must not need it.

A fresh interpreter, because pytest-django has already imported Django into this one. The slow
test_sam_build.py proves the same on the built package; this one runs without the SAM CLI.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULES = ("adminview.sync.handler", "adminview.sync.observe", "adminview.sync.sync_store", "adminview.sync.poller")


def test_importing_the_handler_never_imports_django() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    code = f"import sys; import {', '.join(MODULES)}; print(sorted(m for m in sys.modules if m.startswith('django')))"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
