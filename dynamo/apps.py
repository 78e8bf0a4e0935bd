from django.apps import AppConfig


class DynamoConfig(AppConfig):
    name = "dynamo"
    verbose_name = "DynamoDB plumbing"
