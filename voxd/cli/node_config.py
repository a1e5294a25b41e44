"""Writing a node's credentials into its TOML config file, keeping the node's other settings
and comments (tomlkit), with mode 0600 because the file now holds a secret. Over https the file also
gets `server_ca`, voxd's authority certificate, the only one the node then trusts (docs/tls.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from voxd.cli.output import CliError
from voxd.kit.private_files import write_private

CREDENTIAL_KEYS = ("node_id", "api_key", "household_id", "room", "name", "command_center_url")
SERVER_CA = "server_ca"


def write_node_config(path: Path, values: dict[str, Any]) -> None:
    try:
        document = tomlkit.parse(path.read_text()) if path.exists() else tomlkit.document()
    except (OSError, TOMLKitError) as error:
        raise CliError(f"cannot read {path}: {error}; fix or remove it and register again") from None
    for key in CREDENTIAL_KEYS:
        document[key] = values[key]
    if values.get(SERVER_CA):
        document[SERVER_CA] = tomlkit.string(values[SERVER_CA], multiline=True)
    elif SERVER_CA in document:
        del document[SERVER_CA]  # plain http: an old authority would only mislead
    path.parent.mkdir(parents=True, exist_ok=True)
    write_private(path, tomlkit.dumps(document).encode())
