"""Settings: `$VOXD_HOME/voxd.env` first, then the process environment, which wins.

Every service reads its settings through one `Settings` object so that an operator can set a
value in either place and the spec's variables (ADMIN_API_KEY, SERVICE_AUTH_BASE_URL, ...)
override what `voxd init` wrote.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from voxd.catalog import CATALOG

ENV_FILE_NAME = "voxd.env"
TLS_MODES = ("auto", "on", "off")

# Settings whose values are secrets (besides every APP_KEY_* and the password in any *_URL).
SECRET_VARIABLES = ("ADMIN_API_KEY", "JWT_SIGNING_KEY", "SECRETS_ENCRYPTION_KEY", "VOXD_LLM_API_KEY")


class SettingsError(ValueError):
    """A setting has a value voxd cannot use; the message names the setting."""


def voxd_home(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    raw = environ.get("VOXD_HOME") or "~/.local/share/voxd"
    return Path(raw).expanduser()


def read_env_file(path: Path) -> dict[str, str]:
    """Parse KEY=VALUE lines; blank lines and # comments are skipped, quotes around a value dropped."""
    values: dict[str, str] = {}
    if not path.exists():
        return values
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise SettingsError(f"{path}:{number}: expected KEY=VALUE")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def url_password(url: str) -> str | None:
    """The password in a URL such as mqtt://user:password@host (VOXD_BROKER_URL, LOG_STORE_URL, ...)."""
    try:
        password = urlsplit(url).password
    except ValueError:
        return None
    return unquote(password) if password else None


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost; a wildcard (0.0.0.0, ::) or any other name reaches beyond."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def app_key_variable(service: str) -> str:
    """The voxd.env name of a service's app key: APP_KEY_COMMAND_CENTER for command-center."""
    return "APP_KEY_" + service.upper().replace("-", "_")


def database_variable(service: str) -> str:
    return service.upper().replace("-", "_") + "_DATABASE_URL"


@dataclass(frozen=True)
class AppCredentials:
    app_id: str
    app_key: str


@dataclass(frozen=True)
class Settings:
    home: Path
    values: Mapping[str, str]

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None) -> Settings:
        environ = os.environ if environ is None else environ
        home = voxd_home(environ)
        merged = read_env_file(home / ENV_FILE_NAME)
        merged.update(environ)
        return cls(home=home, values=merged)

    def get(self, key: str, default: str | None = None) -> str | None:
        value = self.values.get(key)
        return default if value in (None, "") else value

    def require(self, key: str) -> str:
        value = self.get(key)
        if value is None:
            raise SettingsError(f"{key} is not set: run `voxd init` or set it in the environment")
        return value

    def get_int(self, key: str, default: int) -> int:
        raw = self.get(key)
        if raw is None:
            return default
        try:
            return int(raw)
        except ValueError:
            raise SettingsError(f"{key} must be a whole number, got {raw!r}") from None

    def get_float(self, key: str, default: float) -> float:
        raw = self.get(key)
        if raw is None:
            return default
        try:
            return float(raw)
        except ValueError:
            raise SettingsError(f"{key} must be a number, got {raw!r}") from None

    def get_log_level(self, key: str, default: str = "INFO") -> str:
        value = (self.get(key, default) or default).upper()
        if value not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise SettingsError(f"{key} must be DEBUG, INFO, WARNING, ERROR or CRITICAL, got {value!r}")
        return value

    @property
    def port_offset(self) -> int:
        return self.get_int("VOXD_PORT_OFFSET", 0)

    @property
    def bind_host(self) -> str:
        return self.get("VOXD_BIND_HOST", "127.0.0.1") or "127.0.0.1"

    @property
    def advertise_host(self) -> str:
        """The host other machines use to reach this daemon's services."""
        default = "127.0.0.1" if self.bind_host in ("0.0.0.0", "::") else self.bind_host
        return self.get("VOXD_ADVERTISE_HOST", default) or default

    def port(self, service: str) -> int:
        return CATALOG[service].port + self.port_offset

    @property
    def tls(self) -> bool:
        """VOXD_TLS: `on`, `off`, or `auto` (the default): on exactly when voxd listens beyond loopback."""
        mode = (self.get("VOXD_TLS", "auto") or "auto").lower()
        if mode not in TLS_MODES:
            raise SettingsError(f"VOXD_TLS must be auto, on or off, got {mode!r}")
        return not is_loopback(self.bind_host) if mode == "auto" else mode == "on"

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    def local_url(self, service: str) -> str:
        return f"{self.scheme}://{self.advertise_host}:{self.port(service)}"

    @property
    def config_url(self) -> str:
        explicit = self.get("SERVICE_CONFIG_URL")
        return explicit.rstrip("/") if explicit else self.local_url("config")

    @property
    def admin_api_key(self) -> str | None:
        return self.get("ADMIN_API_KEY")

    def secret_values(self) -> list[str]:
        """Every secret value voxd knows, so log output can be scrubbed of them."""
        found = [
            value for key, value in self.values.items()
            if value and (key in SECRET_VARIABLES or key.startswith("APP_KEY_"))
        ]
        return found + [password for key, value in self.values.items() if key.endswith("_URL")
                         if (password := url_password(value))]

    def app_credentials(self, service: str) -> AppCredentials | None:
        key = self.get(app_key_variable(service))
        return AppCredentials(app_id=service, app_key=key) if key else None

    def database_path(self, service: str) -> Path:
        """`<SERVICE>_DATABASE_URL` (sqlite:///PATH), else `$VOXD_HOME/data/<service>.db`."""
        name = database_variable(service)
        url = self.get(name)
        if url is None:
            return self.home / "data" / f"{service}.db"
        prefix = "sqlite:///"
        if not url.startswith(prefix):
            raise SettingsError(f"{name}: only sqlite:///PATH URLs are supported, got {url!r}")
        return Path(url[len(prefix):]).expanduser()
