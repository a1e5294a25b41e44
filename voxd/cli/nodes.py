"""`voxd node register|rotate|revoke|rename|move` and `voxd nodes list`."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import click

from voxd.cli.admin_client import admin_call, run_admin
from voxd.cli.changes import field_verb
from voxd.cli.node_config import SERVER_CA, write_node_config
from voxd.cli.output import CliError, console, print_json, print_record, print_table, short_time
from voxd.cli.settings_option import load_settings
from voxd.kit.service_client import ServiceClient
from voxd.kit.settings import Settings, SettingsError
from voxd.kit.tls import TlsFiles, certificate_info


@click.group()
def node() -> None:
    """Register, rename, move, rotate or revoke a voice node."""


CONFIG_OPTION = click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path),
                             help="Write the credentials into this node config file (mode 0600).")


@node.command("register")
@click.option("--household", "household_id", required=True, help="Household id (see `voxd households list`).")
@click.option("--room", required=True, help="Where the node stands, e.g. kitchen.")
@click.option("--name", required=True, help="A name for the node.")
@CONFIG_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def register(household_id: str, room: str, name: str, config_file: Path | None, as_json: bool) -> None:
    """Register a node; its API key is shown (or written) only this once."""
    body = {"household_id": household_id, "room": room, "name": name}
    issue_credentials("POST", "/api/v0/nodes/register", body, config_file, as_json, "Node registered")


@node.command("rotate")
@click.argument("node_id")
@CONFIG_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def rotate(node_id: str, config_file: Path | None, as_json: bool) -> None:
    """Give a node a new API key (shown or written only this once); the old key stops working."""
    path = f"/api/v0/nodes/{quote(node_id, safe='')}/rotate"
    issue_credentials("POST", path, None, config_file, as_json, "New key for the node")


def issue_credentials(method: str, path: str, body: dict | None, config_file: Path | None, as_json: bool,
                      title: str) -> None:
    """Ask the command center for a node's credentials and show them, or write them with voxd's
    authority into the node's config file: registration and rotation alike."""
    settings = load_settings()
    try:
        missing_authority = settings.tls and not TlsFiles.of(settings).ca_cert.exists()
    except SettingsError as error:
        raise CliError(str(error)) from None
    if config_file is not None and missing_authority:
        raise CliError("TLS is on but there is no certificate authority yet: start `voxd serve` once "
                       "(or run `voxd tls init`), then register the node")

    async def work(client: ServiceClient) -> dict:
        created = await client.call("command-center", method, path, json=body)
        return {**created, "command_center_url": await client.resolve("command-center")}

    created = run_admin(settings, work)
    authority = server_authority(settings, created) if config_file is not None else None
    if config_file is not None:
        write_node_config(config_file, {**created, SERVER_CA: authority})
    if as_json:
        print_json(created)
        return
    print_record(title, created)
    if authority is not None:
        fingerprint = certificate_info(TlsFiles.of(settings).ca_cert).sha256
        console.print(f"Credentials and voxd's certificate authority (SHA-256 {fingerprint}) written to "
                      f"{config_file}", soft_wrap=True)
    elif config_file is not None:
        console.print(f"Credentials written to {config_file}")
    else:
        console.print("Keep the api_key: it is not shown again.")


@node.command("revoke")
@click.argument("node_id")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def revoke(node_id: str, yes: bool) -> None:
    """Revoke a node (a stolen or retired one): its key stops working and its MQTT session is closed."""
    if not yes:
        click.confirm(f"Revoke node {node_id}? It cannot be undone (register it again instead)", abort=True)
    admin_call(load_settings(), "command-center", "DELETE", f"/api/v0/nodes/{quote(node_id, safe='')}")
    console.print(f"Node {node_id} revoked: its key no longer works.")


field_verb(node, "rename", "name", "command-center", "/api/v0/nodes", "Give a node a new name.")
field_verb(node, "move", "room", "command-center", "/api/v0/nodes", "Say the node now stands in another room.")


def server_authority(settings: Settings, created: dict) -> str | None:
    """voxd's authority certificate (PEM) for a node that reaches the server over https."""
    if not created["command_center_url"].startswith("https://"):
        return None
    authority = TlsFiles.of(settings).ca_cert
    try:
        return authority.read_text()
    except OSError as error:
        raise CliError(f"cannot read voxd's certificate authority {authority}: {error.strerror}; "
                       "run `voxd tls init`, then register the node again") from None


@click.group()
def nodes() -> None:
    """List voice nodes."""


@nodes.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_nodes(as_json: bool) -> None:
    """List registered nodes (never their keys)."""
    found = run_admin(load_settings(), lambda c: c.call("command-center", "GET", "/api/v0/nodes"))["nodes"]
    if as_json:
        print_json(found)
        return
    print_table(
        "Nodes",
        ("node_id", "name", "room", "created"),
        ((n["node_id"], n["name"], n["room"], short_time(n["created_at"])) for n in found),
    )
