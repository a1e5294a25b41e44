"""The node's settings: the TOML file `voxd node register --config FILE` writes, plus node-only keys."""

from __future__ import annotations

import ssl
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """A setting is missing or wrong; the message is one line meant for the user."""


@dataclass(frozen=True)
class NodeConfig:
    node_id: str
    api_key: str
    command_center_url: str
    household_id: str | None = None
    room: str | None = None
    name: str | None = None
    wake_word: str = "hey_jarvis"
    wake_threshold: float = 0.5
    vad_threshold: float = 0.5
    silence_seconds: float = 0.8
    max_record_seconds: float = 10.0
    no_speech_seconds: float = 5.0
    follow_up_seconds: float = 6.0
    broker_url: str | None = None
    input_device: str | int | None = None
    output_device: str | int | None = None
    debug_recording_dir: Path | None = None
    state_file: Path | None = None  # the volume the node keeps (volume.py); default beside the config file
    bell_floor: int = 5  # the lowest level (0-10) timer and alarm bells play at, muted or not
    server_ca: str | None = None  # voxd's authority certificate (PEM): the only one trusted for https/mqtts

    def __repr__(self) -> str:
        return f"NodeConfig(node_id={self.node_id!r}, command_center_url={self.command_center_url!r})"


REQUIRED = ("node_id", "api_key", "command_center_url")
FLOATS = {"wake_threshold", "vad_threshold", "silence_seconds", "max_record_seconds",
          "no_speech_seconds", "follow_up_seconds"}
DEVICES = {"input_device", "output_device"}


def load_config(path: Path) -> NodeConfig:
    """Read and check the file; unknown keys are ignored so the server may add its own."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist (create it with `voxd node register --config {path}`)")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read config file {path}: {error}")
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config file {path} is not valid TOML: {error}")
    for key in REQUIRED:
        if not data.get(key):
            raise ConfigError(f"config file {path} has no {key} (run `voxd node register --config {path}`)")
    values = {field.name: _checked(field.name, data[field.name], path)
              for field in fields(NodeConfig) if field.name in data}
    values.setdefault("state_file", path.with_name(f"{path.stem}.state.json"))
    return require_tls(NodeConfig(**values))


def require_tls(config: NodeConfig) -> NodeConfig:
    """A node that knows voxd's authority (server_ca) was registered over TLS: it never sends its key
    in clear text, whatever a later edit of its file says."""
    if config.server_ca:
        if not config.command_center_url.startswith("https://"):
            raise ConfigError(f"command_center_url {config.command_center_url!r} must be https:// for a node "
                              "with server_ca (the node's key would cross the network in clear text)")
        if config.broker_url and not config.broker_url.startswith("mqtts://"):
            raise ConfigError(f"broker_url {config.broker_url!r} must be mqtts:// for a node with server_ca "
                              "(the node's key would cross the network in clear text)")
    return config


def _checked(key: str, value: Any, path: Path) -> Any:
    if key in FLOATS:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ConfigError(f"{key} in {path} must be a positive number, not {value!r}")
        return float(value)
    if key == "bell_floor":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10:
            raise ConfigError(f"bell_floor in {path} must be a whole number from 0 to 10, not {value!r}")
        return value
    if key in DEVICES:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ConfigError(f"{key} in {path} must be a device name or index, not {value!r}")
        return value
    if not isinstance(value, str):
        raise ConfigError(f"{key} in {path} must be a string, not {value!r}")
    if key in ("debug_recording_dir", "state_file"):
        return Path(value).expanduser()
    if key == "server_ca":
        try:
            ssl.create_default_context(cadata=value)
        except (ssl.SSLError, ValueError):
            raise ConfigError(f"server_ca in {path} is not a PEM certificate; register the node again "
                              "with `voxd node register --config`") from None
    if key == "broker_url" and not value.startswith(("mqtt://", "mqtts://")):
        raise ConfigError(f"broker_url in {path} must look like mqtt://host:port, not {value!r}")
    return value
