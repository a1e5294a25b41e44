"""The auth service's settings, declared once and checked at start-up (a bad value stops the daemon)."""

from __future__ import annotations

from dataclasses import dataclass

from voxd.kit.setting import DURATION, TEXT, WHOLE, Setting
from voxd.kit.settings import Settings

ACCESS_TOKEN_TTL = Setting("VOXD_ACCESS_TOKEN_TTL", DURATION, 900.0, "How long a user's access token "
                           "is valid.", minimum=1)
REFRESH_TOKEN_TTL = Setting("VOXD_REFRESH_TOKEN_TTL", DURATION, 30 * 24 * 3600.0, "How long a "
                            "refresh token (a login) is valid.", minimum=1)
LOGIN_WINDOW = Setting("VOXD_LOGIN_WINDOW_SECONDS", DURATION, 900.0, "The window failed logins are "
                       "counted in.", minimum=1)
LOGIN_MAX_FAILURES = Setting("VOXD_LOGIN_MAX_FAILURES", WHOLE, 5, "Failed logins per e-mail address "
                             "in the window before it is locked.", minimum=1)
LOGIN_MAX_FAILURES_PER_ADDRESS = Setting("VOXD_LOGIN_MAX_FAILURES_PER_ADDRESS", WHOLE, 30, "Failed "
                                         "logins per client address in the window.", minimum=1)
JWT_SIGNING_KEY = Setting("JWT_SIGNING_KEY", TEXT, None, "The key access tokens are signed with (voxd "
                          "init writes it).", secret=True)

SETTINGS = (ACCESS_TOKEN_TTL, REFRESH_TOKEN_TTL, LOGIN_WINDOW, LOGIN_MAX_FAILURES,
            LOGIN_MAX_FAILURES_PER_ADDRESS, JWT_SIGNING_KEY)


@dataclass(frozen=True)
class SessionPolicy:
    access_token_seconds: int
    refresh_token_seconds: int


@dataclass(frozen=True)
class AuthSettings:
    policy: SessionPolicy
    login_window: float
    max_failures: int
    max_failures_per_address: int
    jwt_key: str


def load_settings(settings: Settings) -> AuthSettings:
    policy = SessionPolicy(int(settings.value(ACCESS_TOKEN_TTL)), int(settings.value(REFRESH_TOKEN_TTL)))
    return AuthSettings(policy, settings.value(LOGIN_WINDOW), settings.value(LOGIN_MAX_FAILURES),
                        settings.value(LOGIN_MAX_FAILURES_PER_ADDRESS), settings.require(JWT_SIGNING_KEY))
