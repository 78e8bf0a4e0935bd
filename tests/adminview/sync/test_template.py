"""The SAM template passes cfn-lint, declares the same tables and indexes as the models, and the rights of the
stream sync and of the notifications' sender."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from adminview.sync import observe
from adminview.tables import ADMIN_VIEW_TABLE, SYNC_TABLE
from dynamo.tables import _schema
from returns.models import RETURNS_TABLE
from shop.models import SHOP_TABLE, ShopItem

ROOT = Path(__file__).resolve().parents[3]
TEMPLATE = ROOT / "deploy" / "template.yaml"


class _Loader(yaml.SafeLoader):
    pass


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    """``!Ref X`` -> ``{"Ref": "X"}``, ``!If [...]`` -> ``{"If": [...]}``: enough to check what points where."""
    if isinstance(node, yaml.ScalarNode):
        return {suffix: loader.construct_scalar(node)}
    if isinstance(node, yaml.SequenceNode):
        return {suffix: loader.construct_sequence(node, deep=True)}
    return {suffix: loader.construct_mapping(node, deep=True)}  # type: ignore[arg-type]


_Loader.add_multi_constructor("!", _tag)


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
    for resource, spec in (
        ("ShopTable", SHOP_TABLE),
        ("ReturnsTable", RETURNS_TABLE),
        ("AdminViewTable", ADMIN_VIEW_TABLE),
    ):
        properties = resources[resource]["Properties"]
        wanted = _schema(spec.model)
        assert properties["KeySchema"] == wanted["KeySchema"]
        assert _indexes(properties) == _indexes(wanted)
    stream = resources["AdminViewSyncFunction"]["Properties"]["Events"]["ShopStream"]["Properties"]
    assert stream["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert stream["BisectBatchOnFunctionError"] is True
    assert 0 <= stream["MaximumRetryAttempts"] <= 10
    assert resources["ShopTable"]["Properties"]["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"


def test_the_returns_tables_stream_feeds_the_same_function_with_the_same_settings() -> None:
    resources = _template()["Resources"]
    table = resources["ReturnsTable"]["Properties"]
    assert table["TableName"] == {"Ref": "ReturnsTableName"}
    assert _template()["Parameters"]["ReturnsTableName"]["Default"] == "ShopReturns"
    assert table["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    function = resources["AdminViewSyncFunction"]["Properties"]
    events = function["Events"]
    assert set(events) == {"ShopStream", "ReturnsStream"}
    shop, returns = (events[name]["Properties"] for name in ("ShopStream", "ReturnsStream"))
    assert (shop.pop("Stream"), returns.pop("Stream")) == (
        {"GetAtt": "ShopTable.StreamArn"},
        {"GetAtt": "ReturnsTable.StreamArn"},
    )
    assert returns == shop and events["ReturnsStream"]["Type"] == "DynamoDB"
    assert function["Environment"]["Variables"]["RETURNS_TABLE_NAME"] == {"Ref": "ReturnsTable"}
    streams = [
        p["DynamoDBStreamReadPolicy"]["TableName"] for p in function["Policies"] if "DynamoDBStreamReadPolicy" in p
    ]
    assert streams == [{"Ref": "ShopTable"}, {"Ref": "ReturnsTable"}]
    reads = [p["DynamoDBReadPolicy"]["TableName"] for p in function["Policies"] if "DynamoDBReadPolicy" in p]
    assert reads == [{"Ref": "ShopTable"}, {"Ref": "ReturnsTable"}]  # a lost race's partitions, repaired


def test_the_sync_table_is_declared_with_the_functions_rights() -> None:
    resources = _template()["Resources"]
    table = resources["AdminViewSyncTable"]["Properties"]
    assert table["KeySchema"] == _schema(SYNC_TABLE.model)["KeySchema"]
    function = resources["AdminViewSyncFunction"]["Properties"]
    variables = function["Environment"]["Variables"]
    assert variables["ADMIN_VIEW_SYNC_TABLE_NAME"] == {"Ref": "AdminViewSyncTable"}
    assert variables["ADMIN_VIEW_TABLE_NAME"] == {"Ref": "AdminViewTable"}
    crud = [p["DynamoDBCrudPolicy"]["TableName"] for p in function["Policies"] if "DynamoDBCrudPolicy" in p]
    assert {"Ref": "AdminViewSyncTable"} in crud and {"Ref": "AdminViewTable"} in crud


def test_the_function_may_run_the_anchor_statements_on_the_view_only() -> None:
    function = _template()["Resources"]["AdminViewSyncFunction"]["Properties"]
    granted = [s for p in function["Policies"] if "Statement" in p for s in p["Statement"]]
    partiql = [s for s in granted if any(a.startswith("dynamodb:PartiQL") for a in s["Action"])]
    assert [sorted(s["Action"]) for s in partiql] == [["dynamodb:PartiQLInsert", "dynamodb:PartiQLUpdate"]]
    assert [s["Resource"] for s in partiql] == [{"GetAtt": "AdminViewTable.Arn"}]


def test_view_items_expire_through_their_expires_at_attribute() -> None:
    ttl = _template()["Resources"]["AdminViewTable"]["Properties"]["TimeToLiveSpecification"]
    assert ttl == {"AttributeName": "ExpiresAt", "Enabled": True}


def test_alarms_watch_lag_errors_the_failure_queue_and_dead_letters() -> None:
    resources = _template()["Resources"]
    alarms = {
        (r["Properties"]["Namespace"], r["Properties"]["MetricName"]): r["Properties"]
        for r in resources.values()
        if r["Type"] == "AWS::CloudWatch::Alarm"
    }
    function = [{"Name": "FunctionName", "Value": {"Ref": "AdminViewSyncFunction"}}]
    assert alarms["AWS/Lambda", "IteratorAge"]["Dimensions"] == function
    assert alarms["AWS/Lambda", "Errors"]["Dimensions"] == function
    queue = alarms["AWS/SQS", "ApproximateNumberOfMessagesVisible"]
    assert queue["Dimensions"] == [{"Name": "QueueName", "Value": {"GetAtt": "SyncFailures.QueueName"}}]
    # The custom metric as adminview.sync.observe emits it: same namespace, same (only) dimension.
    dead = alarms[observe.NAMESPACE, "DeadLetters"]
    assert dead["Dimensions"] == [{"Name": "service", "Value": observe.SERVICE}]
    assert (dead["Statistic"], dead["Threshold"], dead["ComparisonOperator"]) == ("Sum", 0, "GreaterThanThreshold")
    assert (queue["Threshold"], queue["ComparisonOperator"]) == (0, "GreaterThanThreshold")
    for alarm in alarms.values():
        assert alarm["AlarmActions"] == {"If": ["HasAlarmEmail", [{"Ref": "AlarmTopic"}], {"Ref": "AWS::NoValue"}]}


def test_the_makefile_builds_for_the_templates_runtime_and_architecture() -> None:
    function = _template()["Resources"]["AdminViewSyncFunction"]
    assert function["Metadata"]["BuildMethod"] == "makefile"
    assert (TEMPLATE.parent / function["Metadata"]["ContextPath"] / "Makefile").is_file()
    assert (TEMPLATE.parent / function["Metadata"]["WorkingDirectory"]).resolve() == ROOT
    makefile = (ROOT / "deploy" / "Makefile").read_text()
    settings = dict(re.findall(r"^(LAMBDA_\w+) \?= (\S+)$", makefile, re.MULTILINE))
    properties = function["Properties"]
    assert properties["Runtime"] == f"python{settings['LAMBDA_PYTHON_VERSION']}"
    machine = {"arm64": "aarch64", "x86_64": "x86_64"}[properties["Architectures"][0]]
    assert settings["LAMBDA_PLATFORM"].endswith(f"_{machine}")
    assert "build-AdminViewSyncFunction:" in makefile


def test_the_lambda_requirements_stay_inside_the_projects_ranges() -> None:
    declared = {
        canonicalize_name(r.name): r
        for r in map(Requirement, tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])
    }
    lines = (ROOT / "deploy" / "requirements.txt").read_text().splitlines()
    pinned = [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    names = {canonicalize_name(r.name) for r in pinned}
    assert {"pynamodb", "aws-lambda-powertools"} <= names
    assert not names & {"django", "boto3", "botocore"}  # Django is not packaged; the runtime has boto3
    for requirement in pinned:
        (spec,) = requirement.specifier
        assert spec.operator == "==", f"{requirement}: pin exact versions (installed with --no-deps)"
        wanted = declared.get(canonicalize_name(requirement.name))
        if wanted is not None:
            assert wanted.specifier.contains(spec.version), f"{requirement} is outside pyproject.toml's {wanted}"


def test_the_notification_sender_may_work_the_outbox_and_send_through_ses_from_its_address_only() -> None:
    template = _template()
    (dynamodb, ses) = template["Resources"]["NotificationSenderPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    index = ShopItem.outbox_index.Meta.index_name
    assert dynamodb["Resource"] == [{"GetAtt": "ShopTable.Arn"}, {"Sub": f"${{ShopTable.Arn}}/index/{index}"}]
    assert sorted(dynamodb["Action"]) == ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem"]
    assert ses["Action"] == ["ses:SendRawEmail"]
    assert ses["Condition"] == {"StringEquals": {"ses:FromAddress": {"Ref": "NotificationFrom"}}}
    command = template["Outputs"]["NotificationSenderCommand"]["Value"]["Sub"]
    assert "EMAIL_BACKEND=django_ses.SESBackend" in command and command.endswith("send_notifications --follow")
    assert settings.AWS_SES_AUTO_THROTTLE is None  # throttling would also call GetSendQuota, which is not granted
