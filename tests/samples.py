"""Where the tests find AWS's published online-shop model (kept in the repository under ``examples/``)."""

from __future__ import annotations

from pathlib import Path

AWS_MODEL_DIR = Path(__file__).resolve().parents[1] / "examples" / "aws-online-shop" / "json"
AWS_MODEL = AWS_MODEL_DIR / "AnOnlineShop_13.json"
