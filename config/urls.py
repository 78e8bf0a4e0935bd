from django.contrib.auth import views as auth_views
from django.urls import include, path

from dashboard.admin_site import staff_accounts

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", staff_accounts.urls),
    path("", include("dashboard.urls")),
]
