"""Settings, all from the environment (docs/configuration.md lists them); safe defaults for local use."""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url

from dynamo import patience
from dynamo.conf import env_number

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("SHOP_ADMIN_DATA_DIR", BASE_DIR / ".data"))


def env_bool(name: str, default: bool = False) -> bool:
    """Variable ``name`` as a yes or no (absent or blank: ``default``)."""
    value = os.environ.get(name, "").strip().lower()
    return value in {"1", "true", "yes", "on"} if value else default


def env_list(name: str, default: str) -> list[str]:
    return [part.strip() for part in os.environ.get(name, default).split(",") if part.strip()]


def data_dir() -> Path:
    """The local state directory, created on first use (secret key, SQLite file): a fresh checkout works with
    or without DJANGO_SECRET_KEY."""
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    return DATA_DIR


def _local_secret_key() -> str:
    """No key in the environment: use (and keep) a random one in the data directory, never in the repo."""
    path = data_dir() / "django-secret-key"
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_urlsafe(50)
    path.write_text(key)
    path.chmod(0o600)
    return key


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or _local_secret_key()
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin.apps.SimpleAdminConfig",  # staff accounts at /admin/ (dashboard.admin_site), no autodiscover
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "dynamo",
    "shop",
    "adminview",
    "dashboard",
    "axes",
]

MIDDLEWARE = [
    "dashboard.middleware.DynamoDBCostMiddleware",
    "django_htmx.middleware.HtmxMiddleware",  # early: request.htmx for every other middleware and every response
    "dashboard.middleware.vary_on_htmx",  # Vary: HX-Request, since any answer may differ by it
    "dashboard.middleware.DynamoDBOutageMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "dashboard.middleware.ContentSecurityPolicyMiddleware",
    "dashboard.middleware.LongUrlMiddleware",  # a URL over MAX_URL_LENGTH: our 414 page (with the headers above)
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "dashboard.middleware.StaffOnlyMiddleware",
    "dashboard.middleware.OperatorsOnlyMiddleware",  # the operations area (dashboard.navigation) for operators only
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a lockout into the lockout page
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "dashboard.navigation.current_area",  # the top bar's current area (no DynamoDB call)
                "dashboard.permissions.allowed",  # ``may``: what the user may do, for links and buttons
            ],
        },
    },
]


# Staff accounts and login attempts: shared by every instance only with DATABASE_URL (docs/production.md).
def _sqlite_url() -> str:
    path = Path(os.environ.get("DJANGO_DB_PATH") or data_dir() / "db.sqlite3")
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or _sqlite_url(),
        conn_max_age=env_number("DJANGO_DB_CONN_MAX_AGE", 60),  # gunicorn workers keep their connection
        conn_health_checks=True,
    )
}
# Signed-cookie sessions: any instance serves any user, with no session query (docs/production.md).
SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
SESSION_COOKIE_AGE = env_number("DJANGO_SESSION_HOURS", 12) * 3600
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# django-axes first: it refuses any authentication (the login page, the admin site) while locked out.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Django's own: the user alone, one plain query; the permissions read the user's group names in one more when
    # a page asks (dashboard.permissions)
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

LANGUAGE_CODE = "en-us"
# The staff's time zone (dashboard.display.when; docs/configuration.md, SHOP_ADMIN_TIME_ZONE).
TIME_ZONE = os.environ.get("SHOP_ADMIN_TIME_ZONE") or "UTC"
USE_I18N = True
USE_TZ = True
# How the pages show an amount (dashboard.display.money, with Babel; docs/configuration.md, SHOP_CURRENCY).
SHOP_CURRENCY = os.environ.get("SHOP_CURRENCY") or "USD"
SHOP_LOCALE = os.environ.get("SHOP_LOCALE") or "en_US"
# The customers' notifications (``send_notifications``) go through Django's email framework (docs/configuration.md).
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or "django.core.mail.backends.smtp.EmailBackend"
if os.environ.get("EMAIL_FILE_PATH"):
    EMAIL_FILE_PATH = os.environ["EMAIL_FILE_PATH"]
# django-ses: SES of the process's region; no auto-throttle (docs/production.md, "The customers' notifications on AWS").
AWS_SES_REGION_NAME = os.environ.get("AWS_SES_REGION_NAME") or os.environ.get("AWS_REGION") or "us-east-1"
AWS_SES_AUTO_THROTTLE = None
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL") or "shop@example.com"
# The carriers staff ship with (the ship form's choices), each with its public tracking page: ``{number}`` is the
# tracking number, URL-quoted. Any other carrier is typed as "Other" and shown without a link.
SHOP_CARRIERS = {
    "DHL": "https://www.dhl.com/global-en/home/tracking.html?tracking-id={number}&submit=1",
    "UPS": "https://www.ups.com/track?tracknum={number}",
    "FedEx": "https://www.fedex.com/fedextrack/?trknbr={number}",
    "USPS": "https://tools.usps.com/go/TrackConfirmAction?tLabels={number}",
    "Royal Mail": "https://www.royalmail.com/track-your-item#/tracking-results/{number}",
    "PostNL": "https://jouw.postnl.nl/track-and-trace/{number}",
    "La Poste": "https://www.laposte.fr/outils/suivre-vos-envois?code={number}",
}

STATIC_URL = "static/"
WHITENOISE_USE_FINDERS = True  # serve app static files without a collectstatic step (also fine in production)
WHITENOISE_ROOT = BASE_DIR / "dashboard" / "static" / "dashboard" / "root"  # /favicon.ico, which browsers ask for
# The longest URL (path and query) a page answers; a longer one gets our 414 page (docs/configuration.md).
MAX_URL_LENGTH = env_number("SHOP_ADMIN_MAX_URL_LENGTH", 4096)
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG and env_bool("DJANGO_MANIFEST_STATIC", False)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# DynamoDB tables that `create_tables` manages, in creation order (dotted paths to dynamo.tables.TableSpec).
DYNAMODB_TABLES = [
    "shop.models.SHOP_TABLE",
    "returns.models.RETURNS_TABLE",
    "adminview.tables.ADMIN_VIEW_TABLE",
    "adminview.tables.SYNC_TABLE",
    "dynamo.checkpoints.CHECKPOINT_TABLE",
]

# What ``seed_shop`` runs after seeding the shop (dotted paths of ``shop.seeding.SeedExtension`` functions): other
# services' data about the seeded orders, without the shop knowing those services.
SEED_EXTENSIONS = ["returns.seeding.seed_returns"]
# What the demo's customers do besides ordering, each round of ``shop.live_orders`` (another service's steps).
LIVE_ORDER_EXTENSIONS = ["returns.live.request_a_return"]
# Other services' data migrations that ``backfill`` runs beside the shop's (dotted paths of functions returning a
# ``dynamo.backfill.Migration``).
MIGRATION_EXTENSIONS = ["returns.migrations.refund_customer"]

# How the dashboard waits for DynamoDB (config.wsgi puts it in force in the serving processes; the sync and the
# commands keep dynamo.patience.PATIENT): docs/production.md, "When DynamoDB does not answer".
DASHBOARD_DYNAMODB_PATIENCE = patience.prompt(
    connect_timeout_seconds=env_number(
        "SHOP_ADMIN_DYNAMODB_CONNECT_TIMEOUT_SECONDS", patience.PROMPT_CONNECT_TIMEOUT_S
    ),
    read_timeout_seconds=env_number("SHOP_ADMIN_DYNAMODB_READ_TIMEOUT_SECONDS", patience.PROMPT_READ_TIMEOUT_S),
    attempts=env_number("SHOP_ADMIN_DYNAMODB_ATTEMPTS", patience.PROMPT_ATTEMPTS),
    deadline_seconds=env_number("SHOP_ADMIN_DYNAMODB_DEADLINE_SECONDS", patience.PROMPT_DEADLINE_S),
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {name: {"level": "WARNING"} for name in ("botocore", "urllib3", "pynamodb")},
}

# --- HTTPS hardening: off for local http, on in production with DJANGO_HTTPS=1 -----------------
# `DJANGO_HTTPS=1 DJANGO_SECRET_KEY=... DJANGO_ALLOWED_HOSTS=admin.example.com manage.py check --deploy` is clean.
HTTPS = env_bool("DJANGO_HTTPS", False)
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", HTTPS)
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", HTTPS)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env_number("DJANGO_SECURE_HSTS_SECONDS", 31_536_000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", HTTPS)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", HTTPS)
# Behind a proxy that terminates TLS and sets X-Forwarded-Proto and X-Forwarded-For (only then are they trusted).
BEHIND_PROXY = env_bool("DJANGO_BEHIND_PROXY", False)
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
# Content-Security-Policy set by dashboard.middleware.ContentSecurityPolicyMiddleware ('self' only, no inline).
CONTENT_SECURITY_POLICY = os.environ.get("DJANGO_CSP") or (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'self'; object-src 'none'"
)
# Staff groups, each created by the dashboard migration named, by what their members may do (superusers: all).
FULFILMENT_GROUP = "fulfilment"  # ship and cancel orders (0001)
CATALOGUE_GROUP = "catalogue"  # edit products, stock and warehouses (0002)
CUSTOMER_SERVICE_GROUP = "customer-service"  # edit customers (0002)
OPERATORS_GROUP = "operators"  # operations pages (explorer, sync, consistency), footer calls one by one (0003)
RETURNS_GROUP = "returns"  # approve, reject, receive and refund returns (0004)
FINANCE_GROUP = "finance"  # refund a return beyond what came back of it, giving a reason (0005)

# --- Login throttling (django-axes): failures counted per username + client address, in the shared database ---
AXES_FAILURE_LIMIT = env_number("SHOP_ADMIN_LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_number("SHOP_ADMIN_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "dashboard.lockout.client_address"
AXES_LOCKOUT_CALLABLE = "dashboard.lockout.lockout_response"
AXES_VERBOSE = False
