"""Settings: every value comes from one `Settings` object, read through a declared `Setting`.

Sources, strongest first: the process environment, the service's override table (its own
database, voxd/kit/settings_overrides.py), `$VOXD_HOME/voxd.env`, the declaration's default. Each
value knows its source. This module and nothing else reads the environment or voxd.env
(tests/test_settings.py holds that). The kit's own settings are declared here; each service declares
its own in its `settings.py` (docs/architecture.md, Settings; the list is docs/settings.md).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from voxd.catalog import CATALOG
from voxd.kit.optional import installed
from voxd.kit.setting import DURATION, LOG_LEVELS, TEXT, URL, WHOLE, Setting, SettingsError, shown
from voxd.kit.sealing import SEALING_KEY, SecretBox, parse_sealing_key
from voxd.kit.settings_overrides import read_overrides

__all__ = ["Settings", "SettingsError", "Setting", "declared", "check_settings"]

ENV_FILE_NAME = "voxd.env"
DEFAULT_HOME = "~/.local/share/voxd"
ENVIRONMENT, OVERRIDE, ENV_FILE, DEFAULT = "environment", "override", ENV_FILE_NAME, "default"

HOME = Setting("VOXD_HOME", TEXT, DEFAULT_HOME, "Where voxd keeps voxd.env, data/, models/ and tls/ "
               "(read from the environment only).")
PORT_OFFSET = Setting("VOXD_PORT_OFFSET", WHOLE, 0, "Added to every service's port (and the broker's).",
                      minimum=0, maximum=50_000)
BIND_HOST = Setting("VOXD_BIND_HOST", TEXT, "127.0.0.1", "The address the services listen on; "
                    "0.0.0.0 or :: listens beyond this machine.")
ADVERTISE_HOST = Setting("VOXD_ADVERTISE_HOST", TEXT, None, "The host other machines use to reach this "
                         "daemon's services.", default_text="VOXD_BIND_HOST, or 127.0.0.1 for a wildcard")
TLS = Setting("VOXD_TLS", TEXT, "auto", "HTTPS for every service: auto is on exactly when voxd listens "
              "beyond loopback (docs/tls.md).", choices=("auto", "on", "off"))
TLS_NAMES = Setting("VOXD_TLS_NAMES", TEXT, None, "Extra host names and addresses for the server "
                    "certificate, comma-separated.")
CONFIG_URL = Setting("SERVICE_CONFIG_URL", URL, None, "Where the config (discovery) service is.",
                     default_text="this daemon's config service")
CONFIG_URL_STYLE = Setting("SERVICE_CONFIG_URL_STYLE", TEXT, None, "`dockerized` when services reach "
                           "each other by container name.")
SERVICE_URL = Setting("SERVICE_*_BASE_URL", URL, None, "A fixed address for one service, instead of "
                      "asking the config service.")
ADMIN_API_KEY = Setting("ADMIN_API_KEY", TEXT, None, "The operator's key for admin calls (voxd init "
                        "writes it).", secret=True)
APP_KEY = Setting("APP_KEY_*", TEXT, None, "A service's app credential (voxd init writes one per "
                  "service).", secret=True)
RELAY_TOKEN = Setting("RELAY_TOKEN", TEXT, None, "The bearer token the notifications service presents "
                      "to the push relay, and the relay checks (voxd init writes it; a relay on another "
                      "host is given the same value).", secret=True)
VAPID_PUBLIC_KEY = Setting("VAPID_PUBLIC_KEY", TEXT, None, "The Web Push (VAPID) public key, URL-safe "
                           "base64 of the uncompressed P-256 point: a browser's applicationServerKey when "
                           "it subscribes (voxd init writes the pair; the push relay has the private key).")
DATABASE_URL = Setting("DATABASE_URL", TEXT, None, "The database of the one service this process runs "
                       "(sqlite:///PATH).")
SERVICE_DATABASE_URL = Setting("*_DATABASE_URL", TEXT, None, "One service's database (sqlite:///PATH).",
                               default_text="sqlite:///$VOXD_HOME/data/<service>.db")
LOG_LEVEL = Setting("VOXD_LOG_LEVEL", TEXT, "INFO", "The lowest level printed to the console (each "
                    "service's own through the settings API).", choices=LOG_LEVELS, live=True)
LOG_SHIP_LEVEL = Setting("VOXD_LOG_SHIP_LEVEL", TEXT, "INFO", "The lowest level sent to the logs "
                         "service (each service's own through the settings API).", choices=LOG_LEVELS,
                         live=True)
REGISTER_INTERVAL = Setting("VOXD_REGISTER_INTERVAL", DURATION, 60.0, "How often the daemon renews "
                            "its services' entries in the config service.", minimum=1,
                            maximum=86_400)
DISCOVERY_TTL = Setting("VOXD_DISCOVERY_TTL", DURATION, 300.0, "How long a looked-up service address "
                        "is reused.", minimum=0)
CREDENTIAL_CACHE_TTL = Setting("VOXD_CREDENTIAL_CACHE_TTL", DURATION, 30.0, "How long a checked "
                               "credential is trusted without asking auth again.", minimum=0)
HEADER_TIMEOUT = Setting("VOXD_HEADER_TIMEOUT", DURATION, 10.0, "A client must send a request's "
                         "headers within this.", minimum=0.1)
BODY_TIMEOUT = Setting("VOXD_BODY_TIMEOUT", DURATION, 30.0, "A client must send a request's body "
                       "within this.", minimum=0.1)
IDLE_TIMEOUT = Setting("VOXD_IDLE_TIMEOUT", DURATION, 75.0, "An idle kept-alive connection is closed "
                       "after this.", minimum=0.1)
MAX_CONNECTIONS = Setting("VOXD_MAX_CONNECTIONS", WHOLE, 512, "Open connections per service.",
                          minimum=1)
MAX_CONNECTIONS_PER_ADDRESS = Setting("VOXD_MAX_CONNECTIONS_PER_ADDRESS", WHOLE, 64, "Open connections "
                                      "per client address and service.", minimum=1)
TIME_ZONE = Setting("TZ", TEXT, None, "The local time zone (an IANA name such as Europe/Berlin) for "
                    "users created without one.", default_text="/etc/timezone or /etc/localtime, else UTC")
MODELS_HUB_URL = Setting("VOXD_MODELS_HUB_URL", URL, "https://huggingface.co", "Where `voxd models "
                         "pull` downloads models from.")
# One torch thread: a short sentence or clip is too little work to share, and two threads on a 2-core
# box fight whisper and each other for the cores (kit/torch_threads.py; docs/performance.md, "The
# semantic stage", Time).
TORCH_THREADS = Setting("VOXD_TORCH_THREADS", WHOLE, 1, "Threads torch may use for one computation "
                        "(speaker identification; the semantic stage's sentence model, also on ONNX "
                        "Runtime), for the whole daemon.", minimum=1, maximum=256)

SETTINGS = (
    HOME, PORT_OFFSET, BIND_HOST, ADVERTISE_HOST, TLS, TLS_NAMES, CONFIG_URL, CONFIG_URL_STYLE,
    SERVICE_URL, ADMIN_API_KEY, APP_KEY, SEALING_KEY, RELAY_TOKEN, VAPID_PUBLIC_KEY, DATABASE_URL,
    SERVICE_DATABASE_URL, LOG_LEVEL,
    LOG_SHIP_LEVEL, REGISTER_INTERVAL, DISCOVERY_TTL, CREDENTIAL_CACHE_TTL, HEADER_TIMEOUT,
    BODY_TIMEOUT, IDLE_TIMEOUT, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, TIME_ZONE, MODELS_HUB_URL,
    TORCH_THREADS,
)

# The kit's settings each service has a value of its own for: listed and changeable through that
# service's settings API (`stt.log_level`). The rest are the daemon's (its home, ports, keys,
# database URLs, the connection caps all ports share) and are changed in voxd.env only.
PER_SERVICE = (LOG_LEVEL, LOG_SHIP_LEVEL, CREDENTIAL_CACHE_TTL, DISCOVERY_TTL, HEADER_TIMEOUT, BODY_TIMEOUT,
               IDLE_TIMEOUT)


def settings_module(service: str) -> str:
    """A service declares its settings in the `settings` module beside its app (catalog factory)."""
    return CATALOG[service].factory.partition(":")[0].rsplit(".", 1)[0] + ".settings"


def declared() -> dict[str, tuple[Setting, ...]]:
    """Every declared setting by owner: "kit", then each catalog service that has a settings module."""
    found = {"kit": SETTINGS}
    for name in CATALOG:
        module = settings_module(name)
        if installed(module):  # not every service has settings (or, before its merge, a package)
            found[name] = import_module(module).SETTINGS
    return found


def changeable(service: str) -> tuple[Setting, ...]:
    """What a service's stored changes may set: the kit's per-service settings and its own."""
    return PER_SERVICE + tuple(s for s in declared().get(service, ()) if not s.family)


def declaration(key: str) -> Setting | None:
    return next((s for group in declared().values() for s in group if s.matches(key)), None)


def voxd_home(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    return Path(environ.get(HOME.name) or DEFAULT_HOME).expanduser()


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
    return APP_KEY.of(service).name


@dataclass(frozen=True)
class AppCredentials:
    app_id: str
    app_key: str


@dataclass(frozen=True)
class Resolved:
    """One setting's value as a service sees it, and where it came from."""

    setting: Setting
    value: Any
    source: str  # environment, override, voxd.env or default
    problem: str | None = None  # why the value is unusable (only when resolved leniently)

    @property
    def shown(self) -> str:
        """The value as `voxd settings list` prints it: a secret only as set or unset."""
        if self.problem is not None:
            return f"invalid: {self.problem}"
        if self.setting.secret:
            return "set" if self.value not in (None, "") else "unset"
        if self.value is None:
            return "unset" if self.setting.default_text is None else f"({self.setting.default_text})"
        return shown(self.value)


@dataclass(frozen=True)
class Settings:
    home: Path
    values: Mapping[str, str]  # raw text by name, the strongest source's
    sources: Mapping[str, str] = field(default_factory=dict)  # name -> source; absent: environment
    # These settings before a service's stored changes were applied (set by `for_service`).
    base: Settings | None = field(default=None, compare=False, repr=False)

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None) -> Settings:
        environ = os.environ if environ is None else environ
        home = voxd_home(environ)
        merged = read_env_file(home / ENV_FILE_NAME)
        sources = dict.fromkeys(merged, ENV_FILE)
        merged.update(environ)
        sources.update(dict.fromkeys(environ, ENVIRONMENT))
        return cls(home=home, values=merged, sources=sources)

    def with_values(self, values: Mapping[str, str], source: str) -> Settings:
        return dataclasses.replace(self, values={**self.values, **values},
                                   sources={**self.sources, **dict.fromkeys(values, source)})

    def for_service(self, service: str) -> Settings:
        """These settings with `service`'s stored changes applied (kit/settings_overrides.py)."""
        stored = read_overrides(self.database_path(service), service, self.secret_box())
        return self.with_overrides(service, {key: change.value for key, change in stored.items()})

    def with_overrides(self, service: str, stored: Mapping[str, str]) -> Settings:
        """The settings before any stored change, with `stored` applied to what `service` may change
        (`changeable`); a value set in the environment still wins."""
        base = self.base or self
        names = {setting.name for setting in changeable(service)}
        applied = {key: value for key, value in stored.items()
                   if key in names and base.source_of(key) != ENVIRONMENT}
        return dataclasses.replace(base.with_values(applied, OVERRIDE), base=base)

    def secret_box(self) -> SecretBox | None:
        """What seals secret stored changes; None without a usable SECRETS_ENCRYPTION_KEY."""
        key = self.values.get(SEALING_KEY.name)
        try:
            return SecretBox(parse_sealing_key(key)) if key else None
        except SettingsError:
            return None

    def source_of(self, key: str) -> str:
        if key not in self.values:
            return DEFAULT
        return self.sources.get(key, ENVIRONMENT)

    def _raw(self, setting: Setting) -> str | None:
        raw = self.values.get(setting.name)
        return None if raw is None or (raw == "" and not setting.blank) else raw

    def value(self, setting: Setting) -> Any:
        """The typed value of `setting`; SettingsError names it, the value and what is allowed."""
        raw = self._raw(setting)
        return setting.default if raw is None else setting.parse(raw)

    def resolve(self, setting: Setting, strict: bool = True) -> Resolved:
        """`strict`: an unusable value raises SettingsError; else it is reported in `problem`."""
        raw = self._raw(setting)
        source = DEFAULT if raw is None else self.source_of(setting.name)
        try:
            return Resolved(setting, self.value(setting), source)
        except SettingsError as error:
            if strict:
                raise
            return Resolved(setting, None, source, problem=str(error))

    def require(self, setting: Setting) -> Any:
        value = self.value(setting)
        if value is None:
            raise SettingsError(f"{setting.name} is not set: run `voxd init` or set it in the environment")
        return value

    @property
    def port_offset(self) -> int:
        return self.value(PORT_OFFSET)

    @property
    def bind_host(self) -> str:
        return self.value(BIND_HOST)

    @property
    def advertise_host(self) -> str:
        """The host other machines use to reach this daemon's services."""
        default = "127.0.0.1" if self.bind_host in ("0.0.0.0", "::") else self.bind_host
        return self.value(ADVERTISE_HOST) or default

    def port(self, service: str) -> int:
        return CATALOG[service].port + self.port_offset

    @property
    def tls(self) -> bool:
        """VOXD_TLS: `on`, `off`, or `auto` (the default): on exactly when voxd listens beyond loopback."""
        mode = self.value(TLS)
        return not is_loopback(self.bind_host) if mode == "auto" else mode == "on"

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    def local_url(self, service: str) -> str:
        return f"{self.scheme}://{self.advertise_host}:{self.port(service)}"

    @property
    def config_url(self) -> str:
        explicit = self.value(CONFIG_URL)
        return explicit.rstrip("/") if explicit else self.local_url("config")

    @property
    def admin_api_key(self) -> str | None:
        return self.value(ADMIN_API_KEY)

    def secret_values(self) -> list[str]:
        """Every secret value voxd knows (declared `secret`, and the password in any *_URL), so log
        output can be scrubbed of them."""
        secrets = [s for group in declared().values() for s in group if s.secret]
        found = [value for key, value in self.values.items()
                 if value and any(s.matches(key) for s in secrets)]
        return found + [password for key, value in self.values.items() if key.endswith("_URL")
                        if (password := url_password(value))]

    def app_credentials(self, service: str) -> AppCredentials | None:
        key = self.value(APP_KEY.of(service))
        return AppCredentials(app_id=service, app_key=key) if key else None

    def app_keys(self) -> dict[str, str]:
        """Every APP_KEY_<NAME> that is set: the app credential of service <name>."""
        prefix = APP_KEY.name.rstrip("*")
        return {key[len(prefix):].lower().replace("_", "-"): value
                for key, value in self.values.items() if APP_KEY.matches(key) and value}

    def database_path(self, service: str) -> Path:
        """`<SERVICE>_DATABASE_URL` (sqlite:///PATH), else `$VOXD_HOME/data/<service>.db`."""
        setting = SERVICE_DATABASE_URL.of(service)
        url = self.value(setting)
        if url is None:
            return self.home / "data" / f"{service}.db"
        prefix = "sqlite:///"
        if not url.startswith(prefix):
            raise SettingsError(f"{setting.name}: only sqlite:///PATH URLs are supported, got {url!r}")
        return Path(url[len(prefix):]).expanduser()

    def members(self, family: Setting) -> list[Setting]:
        """A family's members: one per catalog service, and any other set name that matches."""
        named = {family.of(service).name: family.of(service) for service in CATALOG}
        named.update({key: dataclasses.replace(family, name=key) for key in self.values
                      if family.matches(key) and key not in named})
        return list(named.values())

    def resolved(self, owner: str, strict: bool = True) -> list[Resolved]:
        """Every setting `owner` ("kit" or a service) declares, with its value and source; with
        `strict`, the first value voxd cannot use raises SettingsError."""
        return [self.resolve(member, strict) for setting in declared()[owner]
                for member in (self.members(setting) if setting.family else [setting])]


def check_settings(settings: Settings, services: list[str]) -> None:
    """Start-up: every value of the kit and of `services` is usable, or one SettingsError line."""
    settings.resolved("kit")
    for service in services:
        own = settings.for_service(service)
        for setting in changeable(service):  # its own, and its own values of the kit's
            own.resolve(setting)
