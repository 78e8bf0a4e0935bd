"""The dashboard's WSGI application (gunicorn, ``runserver``): Django, and the prompt DynamoDB profile.

A person waits on every request served here, so this process's DynamoDB connections use the dashboard's short
timeouts and few attempts (settings.DASHBOARD_DYNAMODB_PATIENCE); the sync and the management commands, which load
Django without this module, keep the patient default (``dynamo.patience``).
"""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from dynamo.models import use_patience

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
use_patience(settings.DASHBOARD_DYNAMODB_PATIENCE)
