"""Each kind of process waits for DynamoDB as its profile says: the dashboard's serving processes briefly (short
timeouts, one retry), the sync and the commands patiently; every model's connection follows the profile in force."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from adminview.tables import ViewItem
from dynamo import patience
from dynamo.client import client_of
from dynamo.models import patience_in_force, use_patience
from shop.models import ShopItem

ROOT = Path(__file__).resolve().parents[2]
SHOW_CLIENT = (
    "from dynamo.client import client_of; from shop.models import ShopItem; "
    "c = client_of(ShopItem).meta.config; print(c.connect_timeout, c.read_timeout, c.retries['total_max_attempts'])"
)


@pytest.fixture
def restore_patience() -> Iterator[None]:
    yield
    use_patience(patience.PATIENT)


def settings_of(model: type[ShopItem] | type[ViewItem]) -> tuple[float, float, dict[str, object]]:
    config = client_of(model).meta.config
    # botocore sets a Config's options as attributes from its keyword arguments; the stubs do not declare them
    return config.connect_timeout, config.read_timeout, config.retries  # type: ignore[attr-defined]


@pytest.mark.usefixtures("restore_patience")
def test_a_profile_applies_to_every_models_connection_made_after_it() -> None:
    assert patience_in_force() == patience.PATIENT
    assert settings_of(ShopItem) == (15.0, 30.0, {"total_max_attempts": 9, "mode": "standard"})
    prompt = patience.prompt(connect_timeout_seconds=0.5, read_timeout_seconds=1.5, attempts=3, deadline_seconds=4)
    use_patience(prompt)
    assert patience_in_force() == prompt and prompt.deadline_seconds == 4
    for model in (ShopItem, ViewItem):
        assert settings_of(model) == (0.5, 1.5, {"total_max_attempts": 3, "mode": "standard"})


def test_a_profile_refuses_what_cannot_work() -> None:
    with pytest.raises(ValueError, match="at least one attempt"):
        patience.prompt(attempts=0)
    with pytest.raises(ValueError, match="positive"):
        patience.prompt(read_timeout_seconds=0)
    assert patience.prompt(deadline_seconds=0).deadline_seconds is None  # 0: no deadline


def _run(code: list[str], tmp_path: Path, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SHOP_ADMIN_", "PYTEST"))}
    environment |= {"DJANGO_SECRET_KEY": "patience-" + "k" * 40, "SHOP_ADMIN_DATA_DIR": str(tmp_path), **env}
    done = subprocess.run([sys.executable, *code], cwd=ROOT, env=environment, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_the_dashboards_processes_are_prompt_and_the_commands_patient(tmp_path: Path) -> None:
    # gunicorn and runserver load config.wsgi; its defaults, then the environment's knobs
    served = ["-c", f"import config.wsgi; {SHOW_CLIENT}"]
    assert _run(served, tmp_path) == "1.0 2.0 2"
    knobs = {"SHOP_ADMIN_DYNAMODB_CONNECT_TIMEOUT_SECONDS": "0.5", "SHOP_ADMIN_DYNAMODB_READ_TIMEOUT_SECONDS": "4"}
    assert _run(served, tmp_path, **knobs, SHOP_ADMIN_DYNAMODB_ATTEMPTS="3") == "0.5 4.0 3"
    # a management command (the sync, rebuild, verify ...) loads Django without it, knobs or not
    assert _run(["manage.py", "shell", "-c", SHOW_CLIENT], tmp_path, **knobs) == "15.0 30.0 9"
