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


def zone_name(name: str) -> str | None:
    """The zone of a place in the table ('Guadalajara': America/Mexico_City), else of a zone whose
    name, or whose last part ('Tokyo' of Asia/Tokyo), is the place named; None for a place voxd
    does not know."""
    return zone_of_place(name) or zones_by_place().get(place_key(name))


@functools.cache
def zones_by_place() -> dict[str, str]:
    """'tokyo' -> 'Asia/Tokyo', 'europe/london' -> 'Europe/London'. Canonical region zones win
    over the legacy aliases (US/..., Etc/...) that share a last part."""
    legacy = ("Etc/", "SystemV/", "US/", "Canada/", "Brazil/", "Chile/", "Mexico/")
    by_place: dict[str, str] = {}
    names = sorted(available_timezones(), key=lambda name: (name.startswith(legacy), "/" not in name, name))
    for name in names:
        by_place.setdefault(place_key(name), name)
        by_place.setdefault(place_key(name.rsplit("/", 1)[-1]), name)
    return by_place
