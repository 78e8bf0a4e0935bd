"""DynamoDB plumbing shared by the shop and the admin view: configuration, DynamoDB Local, tables, instrumentation."""
