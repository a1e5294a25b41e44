"""voxd's own small certificate authority, the server certificate it signs, and the TLS contexts
built on them (docs/architecture.md, Contracts: Transport).

A household has no public name a public authority could vouch for, so voxd keeps its own authority
in `$VOXD_HOME/tls/` (folder 0700, private keys 0600): `ca.pem` is what nodes and browsers are told
to trust, `server.pem` is what every service and the embedded broker present. The authority lives
ten years; the server certificate 397 days (Apple's devices and browsers refuse a server certificate
that lives longer) and is re-issued by the same authority when it nears its end, lives longer than
that (one made by an older voxd) or misses one of the server's names: at start-up, and while voxd
runs (tls_renewal.py). Nodes never need to be told again.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import os
import re
import socket
import ssl
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import aiohttp
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from voxd.kit.errors import StartupError
from voxd.kit.private_files import write_atomically, write_private
from voxd.kit.settings import CONFIG_URL_STYLE, TLS_NAMES, Settings

log = logging.getLogger("voxd.tls")

AUTHORITY_LIFETIME = timedelta(days=3650)
SERVER_LIFETIME = timedelta(days=397)  # the most Apple's clients accept (and Chrome's rule for public ones)
RENEW_BEFORE = timedelta(days=30)
BACKDATE = timedelta(minutes=5)  # a node whose clock runs a little behind still accepts a new certificate
# Documentation addresses (RFC 5737, RFC 3849): "connecting" a UDP socket to them sends nothing but
# tells which local address the default route would use.
ROUTE_PROBES = (("192.0.2.1", socket.AF_INET), ("2001:db8::1", socket.AF_INET6))

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
HOST_NAME = re.compile(r"(?i)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.?")


class TlsError(StartupError):
    """The certificate files cannot be made or read; the message says which and what to do."""


@dataclass(frozen=True)
class TlsFiles:
    folder: Path

    @classmethod
    def of(cls, settings: Settings) -> TlsFiles:
        return cls(settings.home / "tls")

    @property
    def ca_cert(self) -> Path:
        return self.folder / "ca.pem"

    @property
    def ca_key(self) -> Path:
        return self.folder / "ca.key"

    @property
    def server_cert(self) -> Path:
        return self.folder / "server.pem"

    @property
    def server_key(self) -> Path:
        return self.folder / "server.key"


@dataclass(frozen=True)
class ServerNames:
    """What the server certificate vouches for: DNS names and IP addresses."""

    dns: tuple[str, ...]
    addresses: tuple[IPAddress, ...]

    def covers(self, other: ServerNames) -> bool:
        return set(other.dns) <= set(self.dns) and set(other.addresses) <= set(self.addresses)

    def union(self, other: ServerNames) -> ServerNames:
        return ServerNames(tuple(dict.fromkeys((*self.dns, *other.dns))),
                           tuple(dict.fromkeys((*self.addresses, *other.addresses))))

    def as_strings(self) -> list[str]:
        return [*self.dns, *(str(address) for address in self.addresses)]


@dataclass(frozen=True)
class CertificateInfo:
    path: Path
    subject: str
    sha256: str  # AB:CD:..., as browsers and `openssl x509 -fingerprint -sha256` show it
    not_before: datetime
    not_after: datetime
    names: list[str]


@dataclass(frozen=True)
class TlsSetup:
    files: TlsFiles
    created_authority: bool
    issued_server: bool


def split_names(values: Iterable[str], strict: bool = False) -> ServerNames:
    """Sort host names from IP addresses; wildcards and empty values are dropped, duplicates kept once.
    What is neither is skipped (a machine's odd host name), or with `strict` (what a person typed) refused."""
    dns: dict[str, None] = {}
    addresses: dict[IPAddress, None] = {}
    for value in values:
        value = value.strip().strip("[]")
        if not value or value in ("0.0.0.0", "::"):
            continue
        try:
            addresses[ipaddress.ip_address(value)] = None
        except ValueError:
            if HOST_NAME.fullmatch(value):
                dns[value.lower().rstrip(".")] = None
            elif strict:
                raise TlsError(f"{value!r} is neither a host name nor an IP address") from None
    return ServerNames(tuple(dns), tuple(addresses))


def machine_addresses() -> list[str]:
    """This machine's addresses as other machines on the network see it (best effort, no traffic)."""
    found: list[str] = []
    for probe, family in ROUTE_PROBES:
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as sock:
                sock.connect((probe, 9))
                found.append(sock.getsockname()[0])
        except OSError:
            pass
    try:
        found += [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, proto=socket.IPPROTO_TCP)]
    except OSError:
        pass
    # Link-local addresses (fe80::1%eth0) name an interface, not this machine; leave them out.
    return [address for address in found if "%" not in address and not ipaddress.ip_address(address).is_loopback]


def server_names(settings: Settings, extra: Iterable[str] = ()) -> ServerNames:
    """Every name and address a client may use for this server: loopback, the host name (and its
    `.local` mDNS name), VOXD_ADVERTISE_HOST, VOXD_BIND_HOST, the machine's addresses, VOXD_TLS_NAMES
    (and host.docker.internal for SERVICE_CONFIG_URL_STYLE=dockerized) and `extra`."""
    hostname = socket.gethostname()
    automatic = ["localhost", hostname, *([f"{hostname}.local"] if "." not in hostname else []),
                 settings.advertise_host, settings.bind_host, "127.0.0.1", "::1", *machine_addresses()]
    if settings.value(CONFIG_URL_STYLE) == "dockerized":
        automatic.append("host.docker.internal")  # the name the config service gives containers
    configured = [*(settings.value(TLS_NAMES) or "").split(","), *extra]
    return split_names(automatic).union(split_names(configured, strict=True))


def ensure_certificates(settings: Settings, extra_names: Iterable[str] = (), *, reissue: bool = False,
                        new_authority: bool = False) -> TlsSetup:
    """Make what is missing: the authority once, the server certificate when it is missing, expiring,
    longer-lived than Apple's clients accept, signed by another authority, or blind to one of the server's names (`reissue` forces it). A new
    server certificate keeps the names of the one it replaces."""
    wanted = server_names(settings, extra_names)
    files = TlsFiles.of(settings)
    make_private_folder(files.folder)
    created = new_authority or not (files.ca_cert.exists() and files.ca_key.exists())
    if created:
        write_authority(files)
    authority_key, authority = read_authority(files)
    current = current_server_certificate(files)
    issue = created or reissue or current is None
    if current is not None:
        issue = issue or (not certificate_names(current).covers(wanted) or not signed_by(current, authority)
                          or current.not_valid_after_utc - datetime.now(timezone.utc) < RENEW_BEFORE
                          or current.not_valid_after_utc - current.not_valid_before_utc > SERVER_LIFETIME + BACKDATE)
        wanted = certificate_names(current).union(wanted)
    if issue:
        write_server_certificate(files, authority_key, authority, wanted)
    return TlsSetup(files, created, issue)


def current_server_certificate(files: TlsFiles) -> x509.Certificate | None:
    """The server certificate in place, if there is a readable one with its key."""
    if not files.server_key.exists():
        return None
    try:
        return x509.load_pem_x509_certificate(files.server_cert.read_bytes())
    except (OSError, ValueError):
        return None


def make_private_folder(folder: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)


def write_authority(files: TlsFiles) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "voxd"),
                      x509.NameAttribute(NameOID.COMMON_NAME, f"voxd local authority ({socket.gethostname()})")])
    now = datetime.now(timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE).not_valid_after(now + AUTHORITY_LIFETIME)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    write_private(files.ca_key, private_pem(key))
    write_public(files.ca_cert, certificate.public_bytes(serialization.Encoding.PEM))


def write_server_certificate(files: TlsFiles, authority_key: ec.EllipticCurvePrivateKey,
                             authority: x509.Certificate, names: ServerNames) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(timezone.utc)
    subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "voxd"),
                         x509.NameAttribute(NameOID.COMMON_NAME, names.dns[0] if names.dns else "voxd")])
    alternative = [*(x509.DNSName(name) for name in names.dns), *(x509.IPAddress(a) for a in names.addresses)]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject).issuer_name(authority.subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(min(now + SERVER_LIFETIME, authority.not_valid_after_utc))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=False, crl_sign=False,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(alternative), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(authority_key.public_key()),
                       critical=False)
        .sign(authority_key, hashes.SHA256())
    )
    write_private(files.server_key, private_pem(key))
    write_public(files.server_cert, certificate.public_bytes(serialization.Encoding.PEM))


def private_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def write_public(path: Path, data: bytes) -> None:
    write_atomically(path, data, 0o644)


def read_certificate(path: Path) -> x509.Certificate:
    try:
        return x509.load_pem_x509_certificate(path.read_bytes())
    except (OSError, ValueError) as error:
        raise TlsError(f"cannot read the certificate {path}: {error}; "
                       "run `voxd tls init --force` to issue a new one") from None


def read_authority(files: TlsFiles) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    certificate = read_certificate(files.ca_cert)
    try:
        key = serialization.load_pem_private_key(files.ca_key.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as error:
        raise TlsError(f"cannot read the authority's key {files.ca_key}: {error}; `voxd tls init "
                       "--new-authority` makes a new authority (nodes must then be registered again)") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise TlsError(f"{files.ca_key} is not an EC key; run `voxd tls init --new-authority`")
    return key, certificate


def signed_by(certificate: x509.Certificate, authority: x509.Certificate) -> bool:
    try:
        certificate.verify_directly_issued_by(authority)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def certificate_names(certificate: x509.Certificate) -> ServerNames:
    try:
        alternative = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return ServerNames((), ())
    return ServerNames(tuple(alternative.get_values_for_type(x509.DNSName)),
                       tuple(alternative.get_values_for_type(x509.IPAddress)))


def fingerprint(certificate: x509.Certificate) -> str:
    return certificate.fingerprint(hashes.SHA256()).hex(":").upper()


def certificate_info(path: Path) -> CertificateInfo:
    certificate = read_certificate(path)
    return CertificateInfo(path, certificate.subject.rfc4514_string(), fingerprint(certificate),
                           certificate.not_valid_before_utc, certificate.not_valid_after_utc,
                           certificate_names(certificate).as_strings())


def server_context(files: TlsFiles) -> ssl.SSLContext:
    """What every service's listener and the embedded broker present; TLS 1.2 at least."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(files.server_cert, files.server_key)
    except (OSError, ssl.SSLError) as error:
        raise TlsError(f"cannot load the server certificate {files.server_cert}: {error}; "
                       "run `voxd tls init --force`") from None
    return context


def client_context(settings: Settings) -> ssl.SSLContext:
    """Verifies servers against the system's authorities plus voxd's own, when it exists: services
    and the CLI then reach each other over https, and still any public service (a hosted model).
    One per process and version of the authority's file: loading the system's authorities costs
    some 40 ms of CPU, and each service of a daemon opens a session of its own."""
    authority = TlsFiles.of(settings).ca_cert
    try:
        found = authority.stat()
    except OSError:
        return _client_context(None, None)
    return _client_context(str(authority), (found.st_mtime_ns, found.st_size, found.st_ino))


@functools.lru_cache(maxsize=8)
def _client_context(authority: str | None, version: tuple[int, int, int] | None) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if authority is not None:
        context.load_verify_locations(cafile=authority)
    return context


def client_session(settings: Settings, **options) -> aiohttp.ClientSession:
    """The HTTP session every voxd client (services, daemon, CLI) uses: it trusts voxd's authority."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=client_context(settings)), **options)


def server_tls(settings: Settings) -> ssl.SSLContext | None:
    """For `voxd serve`: None when TLS is off; else the certificates (made or renewed as needed) as
    a server context. Creating the authority is logged once, with the fingerprint to compare."""
    if not settings.tls:
        return None
    setup = ensure_certificates(settings)
    if setup.created_authority:
        log.info("created voxd's certificate authority %s (SHA-256 %s); nodes registered from now on "
                 "trust it, browsers must be told to (docs/tls.md)",
                 setup.files.ca_cert, fingerprint(read_certificate(setup.files.ca_cert)))
    if setup.issued_server:
        names = certificate_names(read_certificate(setup.files.server_cert))
        log.info("issued the server certificate for %s", ", ".join(names.as_strings()))
    return server_context(setup.files)
