"""`sam build` of deploy/template.yaml yields a function that runs on what Lambda's Python runtime provides.

The real SAM CLI (installed by scripts/bootstrap into .venv-sam) builds the function into a temporary directory;
the built handler then runs in a fresh interpreter whose import path holds only the standard library, the build
output and boto3 with its own dependencies (what the runtime ships), on records read from DynamoDB Local's
streams of the shop table and the returns table, interleaved and shaped the way Lambda delivers them. The view
must then equal what both tables imply.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
import yaml

from adminview.core.schema import list_shards
from adminview.reads import number_reads, returns_reads
from adminview.repair import rebuild
from dynamo import ddb_json
from dynamo.tables import stream_arn
from returns import services as returns
from returns.models import ReturnsItem
from shop import orders
from shop.models import ShopItem
from shop.orders import OrderLine
from shop.timestamps import now
from tests import factories
from tests.adminview_helpers import view_item

pytestmark = [pytest.mark.slow, pytest.mark.ddb_local]

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "deploy" / "template.yaml"
FUNCTION = "AdminViewSyncFunction"
# What the Lambda Python runtime has besides the standard library: boto3 and what it depends on.
RUNTIME_PACKAGES = ("boto3", "botocore", "jmespath", "dateutil", "urllib3", "s3transfer", "six")

LAMBDA_RECORD_FIELDS = {
    "eventID",
    "eventName",
    "eventVersion",
    "eventSource",
    "awsRegion",
    "dynamodb",
    "eventSourceARN",
}
LAMBDA_BODY_FIELDS = {"Keys", "ApproximateCreationDateTime", "SequenceNumber", "SizeBytes", "StreamViewType"}

RUNNER = """
import json, sys
build, runtime, result = sys.argv[1:4]
sys.path[:0] = [build, runtime]
import adminview.sync.handler
try:
    import django
except ImportError:
    django = None
response = adminview.sync.handler.handler(json.load(sys.stdin), None)
where = {name: sys.modules[name].__file__ for name in ("adminview", "pynamodb", "aws_lambda_powertools", "botocore")}
with open(result, "w") as out:
    json.dump({"response": response, "where": where, "django": django is not None,
               "django_imported": "django" in sys.modules}, out)
"""


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def _sam() -> str:
    found = shutil.which("sam", path=str(ROOT / ".venv-sam" / "bin")) or shutil.which("sam")
    if not found:
        pytest.skip("aws-sam-cli is not installed: scripts/bootstrap installs it into .venv-sam")
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The function as `sam build` (docs/production.md's command) packages it."""
    build_dir = tmp_path_factory.mktemp("sam") / "build"
    result = subprocess.run(
        [_sam(), "build", "--template", str(TEMPLATE.relative_to(ROOT)), "--build-dir", str(build_dir)],
        cwd=ROOT,
        env={**os.environ, "SAM_CLI_TELEMETRY": "0"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Build Succeeded" in result.stdout + result.stderr
    return build_dir / FUNCTION


@pytest.fixture(scope="module")
def runtime_packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """boto3 and its dependencies alone in a directory, as the Lambda runtime provides them."""
    target = tmp_path_factory.mktemp("lambda-runtime")
    for name in RUNTIME_PACKAGES:
        module = __import__(name)
        source = Path(str(module.__file__))
        source = source.parent if source.name == "__init__.py" else source
        (target / source.name).symlink_to(source)
    return target


def test_the_build_holds_the_handler_and_its_dependencies_only(built: Path) -> None:
    top = {p.name for p in built.iterdir() if not p.name.endswith(".dist-info")}
    assert {"adminview", "domain", "dynamo", "shop", "returns", "pynamodb", "aws_lambda_powertools"} <= top
    for absent in ("tests", "bench", "dashboard", "config", "django", "boto3", "botocore", "deploy", "templates"):
        assert absent not in top
    assert (built / "adminview" / "sync" / "handler.py").is_file()
    assert not list(built.glob("*/management")) and not list(built.glob("*/apps.py"))
    assert not list(built.rglob("__pycache__"))


def test_the_built_function_has_a_mapping_for_each_source_tables_stream(built: Path) -> None:
    template = yaml.load((built.parent / "template.yaml").read_text(), Loader=_Loader)
    events = template["Resources"][FUNCTION]["Properties"]["Events"]
    assert {name: event["Type"] for name, event in events.items()} == {
        "ShopStream": "DynamoDB",
        "ReturnsStream": "DynamoDB",
    }


def _lambda_records(arn: str) -> list[dict[str, Any]]:
    """Every record of the stream, read with the dynamodbstreams client and shaped as Lambda's event source
    mapping delivers them: JSON, epoch-second ``ApproximateCreationDateTime``, ``eventSourceARN`` added."""
    client = boto3.client("dynamodbstreams")
    shards = client.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    records: list[dict[str, Any]] = []
    for shard in shards:  # parents come first in DescribeStream's order
        iterator = client.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        ).get("ShardIterator")
        while iterator:
            page = client.get_records(ShardIterator=iterator)
            if not page["Records"]:
                break  # an open shard read to its current end
            for record in page["Records"]:
                body = dict(record["dynamodb"])
                created = body["ApproximateCreationDateTime"]
                assert isinstance(created, datetime)
                body["ApproximateCreationDateTime"] = int(created.timestamp())
                records.append({**record, "dynamodb": body, "eventSourceARN": arn})
            iterator = page.get("NextShardIterator")
    delivered: list[dict[str, Any]] = json.loads(json.dumps(records))  # only JSON types, as Lambda hands them over
    return delivered


def _function_environment(tmp_path: Path) -> dict[str, str]:
    """The template's environment variables, valued for the test tables, and what Lambda itself sets."""
    function = yaml.load(TEMPLATE.read_text(), Loader=_Loader)["Resources"][FUNCTION]["Properties"]
    declared = function["Environment"]["Variables"]
    values = {
        "SHOP_TABLE_NAME": os.environ["SHOP_TABLE_NAME"],
        "RETURNS_TABLE_NAME": os.environ["RETURNS_TABLE_NAME"],
        "ADMIN_VIEW_TABLE_NAME": os.environ["ADMIN_VIEW_TABLE_NAME"],
        "ADMIN_VIEW_SYNC_TABLE_NAME": os.environ["ADMIN_VIEW_SYNC_TABLE_NAME"],
        "ADMIN_VIEW_LIST_SHARDS": str(list_shards()),
    }
    # Variables the template fills from its resources (value None here) and the test has no table for are left
    # out: if the function needed one, it would fail below.
    env = {name: values.get(name, str(value)) for name, value in declared.items() if name in values or value}
    aws = {name: os.environ[name] for name in os.environ if name.startswith("AWS_")}
    return {
        **aws,
        **env,
        "AWS_LAMBDA_FUNCTION_NAME": FUNCTION,
        "AWS_CONFIG_FILE": str(tmp_path / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-credentials"),
    }


def _invoke(built: Path, runtime: Path, event: dict[str, Any], tmp_path: Path) -> tuple[dict[str, Any], list[Any]]:
    result_file = tmp_path / "result.json"
    run = subprocess.run(
        [sys.executable, "-I", "-S", "-c", RUNNER, str(built), str(runtime), str(result_file)],
        input=json.dumps(event),
        env=_function_environment(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert (run.stdout + run.stderr).count("stream batch") == 1, "one log line per batch"
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    return json.loads(result_file.read_text()), lines


def _interleaved(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record of each stream in turn (each stream's own order kept), as two mappings' batches may come."""
    mixed = [record for pair in zip(first, second, strict=False) for record in pair]
    shorter = min(len(first), len(second))
    return mixed + first[shorter:] + second[shorter:]


def test_the_built_handler_applies_both_streams_with_only_the_runtime_packages(
    built: Path, runtime_packages: Path, shop_table: str, admin_view_table: str, tmp_path: Path
) -> None:
    factories.shop_with(customers=2, products=2)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 2)], order_id="o1")
    orders.order_place(customer_id="1002", lines=[OrderLine("2001", 1), OrderLine("2002", 1)], order_id="o2")
    orders.order_ship(order_id="o1")
    orders.order_deliver(order_id="o1")
    returns.order_cancel_with_refund(order_id="o2")  # a refund in the returns table
    returns.return_request(order_id="o1", lines=[returns.Line("2001", 1, "damaged")], return_id="r1")
    returns.return_approve(return_id="r1")
    shop_arn, returns_arn = stream_arn(ShopItem), stream_arn(ReturnsItem)
    assert shop_arn and returns_arn
    event = {"Records": _interleaved(_lambda_records(shop_arn), _lambda_records(returns_arn))}
    for record in event["Records"]:  # the fields of `sam local generate-event dynamodb update`
        assert record.keys() >= LAMBDA_RECORD_FIELDS and record["dynamodb"].keys() >= LAMBDA_BODY_FIELDS
        assert isinstance(record["dynamodb"]["ApproximateCreationDateTime"], int)

    result, lines = _invoke(built, runtime_packages, event, tmp_path)

    assert result["response"] == {"batchItemFailures": []}
    assert not result["django"] and not result["django_imported"]
    assert Path(result["where"]["pynamodb"]).is_relative_to(built)
    assert Path(result["where"]["aws_lambda_powertools"]).is_relative_to(built)
    assert Path(result["where"]["botocore"]).is_relative_to(runtime_packages)
    assert ddb_json.string(view_item("o#o1", "#order"), "Status") == "DELIVERED"
    assert ddb_json.string(view_item("o#o2", "#order"), "Status") == "CANCELLED"
    assert ddb_json.string(view_item("c#1001", "#profile"), "Name") == "Ada Lovelace"
    assert [r.return_id for r in returns_reads.returns(status="APPROVED").rows] == ["r1"]
    assert sum(day.refunds for day in number_reads.refunds_daily(start=now().date(), end=now().date())) == 1
    found = rebuild.verify()
    assert found.clean, found.summary()
    (batch,) = [line for line in lines if line.get("message") == "stream batch"]
    assert (batch["writer"], batch["records"], batch["failed"]) == ("lambda", len(event["Records"]), 0)
    assert any("_aws" in line and "AppliedRecords" in line for line in lines)

    replayed, lines = _invoke(built, runtime_packages, event, tmp_path)  # Lambda delivers at least once

    assert replayed["response"] == {"batchItemFailures": []}
    (batch,) = [line for line in lines if line.get("message") == "stream batch"]
    assert batch["applied"] == 0 and batch["skipped"] == len(event["Records"])
    assert rebuild.verify().clean
