"""`voxd tls init` and `voxd tls show`: voxd's own certificate authority and server certificate
(docs/tls.md). Local files only; the daemon need not run."""

from __future__ import annotations

import ipaddress
from dataclasses import asdict

import click

from voxd.cli.output import CliError, console, print_json
from voxd.cli.settings_option import load_settings
from voxd.kit.errors import StartupError
from voxd.kit.settings import SettingsError
from voxd.kit.tls import CertificateInfo, TlsFiles, certificate_info, ensure_certificates


@click.group()
def tls() -> None:
    """voxd's certificate authority and server certificate (TLS beyond loopback)."""


def checked_ips(values: tuple[str, ...]) -> tuple[str, ...]:
    for value in values:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise click.BadParameter(f"{value!r} is not an IP address (a name goes in --name)") from None
    return values


@tls.command("init")
@click.option("--name", "names", multiple=True, metavar="NAME",
              help="Another host name clients use for this server (repeatable), e.g. voxd.lan.")
@click.option("--address", "addresses", multiple=True, metavar="IP", callback=lambda _c, _p, v: checked_ips(v),
              help="Another IP address clients use for this server (repeatable).")
@click.option("--force", is_flag=True, help="Issue a new server certificate even if the current one is fine.")
@click.option("--new-authority", is_flag=True,
              help="Replace the authority itself; every node must then be registered again.")
def init(names: tuple[str, ...], addresses: tuple[str, ...], force: bool, new_authority: bool) -> None:
    """Create the authority and a server certificate for this server's names and addresses."""
    settings = load_settings()
    try:
        setup = ensure_certificates(settings, [*names, *addresses], reissue=force, new_authority=new_authority)
        authority, server = certificate_info(setup.files.ca_cert), certificate_info(setup.files.server_cert)
    except (StartupError, SettingsError) as error:
        raise CliError(str(error)) from None
    if setup.created_authority:
        console.print(f"Created the certificate authority [bold]{authority.path}[/]", soft_wrap=True)
    if setup.issued_server:
        console.print(f"Issued the server certificate [bold]{server.path}[/] for {', '.join(server.names)}",
                      soft_wrap=True)
    if not (setup.created_authority or setup.issued_server):
        console.print("The certificates are in place and cover every name; nothing changed (--force re-issues)")
    console.print(f"Authority SHA-256 fingerprint: [bold]{authority.sha256}[/]", soft_wrap=True)
    if not settings.tls:
        console.print(f"TLS is off for VOXD_BIND_HOST={settings.bind_host}: set VOXD_TLS=on to use it there")


@tls.command("show")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show(as_json: bool) -> None:
    """Where the certificates are, their fingerprints, validity and names."""
    settings = load_settings()
    files = TlsFiles.of(settings)
    if not files.ca_cert.exists():
        raise CliError(f"no certificate authority in {files.folder}: run `voxd tls init` "
                       "(`voxd serve` makes one itself when TLS is on)")
    try:
        found = [certificate_info(path) for path in (files.ca_cert, files.server_cert) if path.exists()]
        enabled = settings.tls
    except (StartupError, SettingsError) as error:
        raise CliError(str(error)) from None
    if as_json:
        print_json({"tls": enabled, "certificates": [as_record(info) for info in found]})
        return
    console.print(f"TLS is [bold]{'on' if enabled else 'off'}[/] ({settings.scheme}://{settings.advertise_host})")
    for label, info in zip(("authority", "server"), found):
        # Lines, not a table: a fingerprint is copied and compared whole, never folded.
        console.print(f"[bold]{label}[/] {info.path}", soft_wrap=True)
        console.print(f"  SHA-256  {info.sha256}", soft_wrap=True)
        console.print(f"  valid    {info.not_before:%Y-%m-%d} .. {info.not_after:%Y-%m-%d}")
        if info.names:
            console.print(f"  names    {', '.join(info.names)}", soft_wrap=True)


def as_record(info: CertificateInfo) -> dict:
    record = asdict(info)
    return {**record, "path": str(info.path), "not_before": info.not_before.isoformat(),
            "not_after": info.not_after.isoformat()}
