"""The SAM template passes cfn-lint and declares the same tables and indexes as the models."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from adminview.models import ADMIN_VIEW_TABLE
from dynamo.tables import _schema
from shop.models import SHOP_TABLE

TEMPLATE = Path(__file__).resolve().parents[2] / "deploy" / "template.yaml"


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def _template() -> dict[str, Any]:
    return dict(yaml.load(TEMPLATE.read_text(), Loader=_Loader))


def test_cfn_lint_passes() -> None:
    exe = shutil.which("cfn-lint", path=str(Path(sys.executable).parent)) or "cfn-lint"
    result = subprocess.run([exe, str(TEMPLATE)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def _indexes(properties: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {
        i["IndexName"]: (
            i["KeySchema"],
            {k: sorted(v) if isinstance(v, list) else v for k, v in i["Projection"].items()},
        )
        for i in properties["GlobalSecondaryIndexes"]
    }


def test_template_tables_match_the_models() -> None:
    resources = _template()["Resources"]
    for resource, spec in (("ShopTable", SHOP_TABLE), ("AdminViewTable", ADMIN_VIEW_TABLE)):
        properties = resources[resource]["Properties"]
        wanted = _schema(spec.model)
        assert properties["KeySchema"] == wanted["KeySchema"]
        assert _indexes(properties) == _indexes(wanted)
    stream = resources["AdminViewSyncFunction"]["Properties"]["Events"]["ShopStream"]["Properties"]
    assert stream["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert stream["BisectBatchOnFunctionError"] is True
    assert 0 <= stream["MaximumRetryAttempts"] <= 10
    assert resources["ShopTable"]["Properties"]["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
