"""Which URLs a fetch may reach (docs/security.md, Fetching pages from the web).

A URL the service is asked for, and every redirect it follows, passes `checked_url`: http or https,
a host, and, when the host is an address, a public one. A host name is checked where it is resolved,
by the kit's `GuardedResolver` (voxd/kit/address_guard.py).
"""

from __future__ import annotations

from yarl import URL

from voxd.kit.address_guard import literal_refusal
from voxd.kit.errors import ApiError
from voxd.services.extract.settings import FetchPolicy

SCHEMES = ("http", "https")


def url_not_allowed(url: str, reason: str) -> ApiError:
    return ApiError(400, "url_not_allowed", f"{url} cannot be fetched: {reason}", {"url": url, "reason": reason})


def checked_url(raw: str, policy: FetchPolicy) -> URL:
    """The URL to fetch, or 400 url_not_allowed (invalid_url when it cannot be read as a URL)."""
    try:
        url = URL(raw)
    except (ValueError, TypeError):
        raise ApiError(400, "invalid_url", f"{raw!r} is not a URL") from None
    if url.scheme not in SCHEMES:
        raise url_not_allowed(raw, f"only http and https pages are fetched, not {url.scheme or 'a relative URL'}")
    if not url.host:
        raise url_not_allowed(raw, "the URL has no host")
    if url.user is not None or url.password is not None:
        raise url_not_allowed(raw, "the URL carries a user name or password")
    refusal = literal_refusal(url.host, policy)
    if refusal:
        raise url_not_allowed(raw, refusal)
    return url
