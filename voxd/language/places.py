"""Places by name and the time zone each keeps, for the places no IANA zone is named after
("Guadalajara" keeps America/Mexico_City; "Tokyo" needs no row, Asia/Tokyo says it).

The rows are data, places.tsv (`place<TAB>zone`, voxd/language/tables.py): a household adds its
own at the top; the rest are GeoNames' cities and countries (scripts/places-table)."""

from __future__ import annotations

import functools
import unicodedata
from pathlib import Path
from zoneinfo import available_timezones

from voxd.language.tables import row_error, rows

TABLE = Path(__file__).with_name("places.tsv")


def place_key(name: str) -> str:
    """'São Paulo', 'sao-paulo' and 'Sao Paulo' -> 'sao paulo'."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return " ".join(plain.replace("_", " ").replace("-", " ").replace("'", "").replace(".", "").split())


def read_places(text: str) -> dict[str, str]:
    """place -> zone; the first row of a place wins. A zone that is not an IANA zone raises
    ValueError naming its line."""
    zones = available_timezones()
    places: dict[str, str] = {}
    for number, place, zone in rows(text, "places table", "place<TAB>zone"):
        if zone not in zones:
            raise row_error("places table", number, f"{zone!r} is not a time zone")
        places.setdefault(place_key(place), zone)
    return places


@functools.cache
def _places() -> dict[str, str]:
    return read_places(TABLE.read_text(encoding="utf-8"))


def zone_of_place(name: str) -> str | None:
    """The zone name of a place in the table ('guadalajara' -> 'America/Mexico_City'), or None."""
    return _places().get(place_key(name))
