"""Field types shared by request bodies: trimmed labels, bounded secrets and URLs."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

# A human-facing name: surrounding whitespace dropped, then 1..100 characters.
Label = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
# A secret or token presented by a client: never empty, bounded.
Secret = Annotated[str, Field(min_length=1, max_length=1024)]
# An account's e-mail address: something@somewhere.tld, as the auth service and the CLI check it.
Email = Annotated[str, Field(min_length=3, max_length=254, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
MAX_TOKEN_LENGTH = 4096
MAX_URL_LENGTH = 2048
