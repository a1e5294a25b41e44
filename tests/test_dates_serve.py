"""Date questions through `voxd serve` (issue 23 §4): the daemon's clock is fixed at 23:30 UTC on
31 December 2026 (VOXD_TEST_CLOCK), so a household in Auckland is already in 2027 while one in New
York is still in 2026; each hears its own date, its own way (month first in the United States),
days until a day counted from its own today, and the public holidays of its country, which
defaults from its time zone and is changed with PATCH /households/{id}."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from conftest import Daemon, register_node, run_voxd, say
from daemons import serving

NEW_YEARS_EVE = "2026-12-31T23:30:00+00:00"


@pytest.fixture(scope="module")
def clocked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    with serving(tmp_path_factory, ["config", "auth", "command-center"], VOXD_TEST_CLOCK=NEW_YEARS_EVE) as daemon:
        yield daemon


@pytest.fixture(scope="module")
def homes(clocked: Daemon) -> dict[str, dict]:
    """Every household of the module, made before anything is said: the command center reads the
    households once, and sees one made later only after its ten-second pause."""
    made = {"auckland": register_node(clocked, "Pacific/Auckland"), "new_york": register_node(clocked, "America/New_York"),
            "london": register_node(clocked, "Europe/London")}
    toronto = households(clocked, "POST", json={"name": "Maple", "timezone": "America/Toronto"}).json()
    moved = households(clocked, "POST", json={"name": "Abroad", "timezone": "America/New_York"}).json()
    changed = households(clocked, "PATCH", f"/{moved['household_id']}", json={"country": "gb"})
    assert changed.status_code == 200, changed.text
    made["toronto"], made["abroad"] = register_node(clocked, household=toronto), register_node(clocked, household=moved)
    return made


def households(daemon: Daemon, method: str, path: str = "", **kwargs) -> httpx.Response:
    return httpx.request(method, daemon.url("auth") + "/households" + path, headers={"X-Admin-Key": daemon.admin_key},
                         **kwargs)


def spoken(daemon: Daemon, node: dict, words: str) -> str:
    body = say(daemon, node, words).json()
    assert (body["command"], body["routed_by"]) == ("get_date", "pre_route"), body
    return body["text"]


def test_two_time_zones_on_either_side_of_the_year_end(clocked, homes):
    auckland, new_york = homes["auckland"], homes["new_york"]
    assert spoken(clocked, auckland, "what's the date") == "Today is Friday, 1 January 2027."
    assert spoken(clocked, new_york, "what's the date") == "Today is Thursday, December 31, 2026."
    assert spoken(clocked, auckland, "what's the date tomorrow") == "Tomorrow is Saturday, 2 January."
    assert spoken(clocked, new_york, "what's the date tomorrow") == "Tomorrow is Friday, January 1, 2027."
    assert spoken(clocked, auckland, "what's the date next wednesday") == "Next Wednesday is Wednesday, 6 January."
    assert spoken(clocked, new_york, "what date is the fifteenth") == "The fifteenth is Friday, January 15, 2027."
    assert (spoken(clocked, auckland, "how many days until christmas")
            == "358 days until Christmas Day, on Saturday, 25 December.")
    assert (spoken(clocked, new_york, "how many days until christmas")
            == "359 days until Christmas Day, on Saturday, December 25, 2027.")
    assert (spoken(clocked, auckland, "what day is christmas this year")
            == "Christmas Day is on Saturday, 25 December.")
    assert (spoken(clocked, new_york, "what day is christmas this year")
            == "Christmas Day was on Friday, December 25.")
    assert spoken(clocked, new_york, "what day is it") == "Today is Thursday, December 31, 2026."
    answer = say(clocked, auckland, "when is easter").json()
    assert answer["text"] == "Easter is on Sunday, 28 March."
    assert answer["result"]["data"] == {"date": "2027-03-28", "weekday": "Sunday", "days_until": 86,
                                        "holiday": "Easter"}


def test_public_holidays_are_the_households_country(clocked, homes):
    listed = {h["household_id"]: h for h in households(clocked, "GET").json()["households"]}
    country = {name: listed[node["household"]["household_id"]]["country"] for name, node in homes.items()}
    # From the time zone (Toronto's is Canada's), or as set with PATCH (a household in New York's zone set to GB).
    assert country == {"auckland": "NZ", "new_york": "US", "london": "GB", "toronto": "CA", "abroad": "GB"}
    assert listed[homes["abroad"]["household"]["household_id"]]["timezone"] == "America/New_York"
    assert (spoken(clocked, homes["new_york"], "when is thanksgiving")
            == "Thanksgiving Day is on Thursday, November 25, 2027.")
    assert (spoken(clocked, homes["auckland"], "when is thanksgiving")  # not New Zealand's: said whose it is
            == "Thanksgiving Day in the United States is on Thursday, 25 November.")
    assert spoken(clocked, homes["auckland"], "when is waitangi day") == "Waitangi Day is on Saturday, 6 February."
    assert spoken(clocked, homes["toronto"], "when is thanksgiving") == "Thanksgiving Day is on Monday, 11 October 2027."
    assert spoken(clocked, homes["abroad"], "when is boxing day") == "Boxing Day is on Sunday, 26 December 2027."
    household_id = homes["abroad"]["household"]["household_id"]
    for wrong in ("XX", "GBR", ""):
        bad = households(clocked, "PATCH", f"/{household_id}", json={"country": wrong})
        assert bad.status_code == 400, wrong
    assert households(clocked, "PATCH", f"/{household_id}", json={"country": "XX"}).json()["error"]["code"] == "invalid_country"
    by_cli = run_voxd(clocked.env, "households", "country", household_id, "ie")
    assert by_cli.exit_code == 0 and "IE" in by_cli.output, by_cli.output
    listed = run_voxd(clocked.env, "households", "list", "--json")
    assert listed.exit_code == 0 and '"country": "IE"' in listed.output


def test_a_day_no_calendar_knows_is_not_a_date_question(clocked, homes):
    node = homes["london"]
    for words in ("when is my dentist appointment", "how long until the pasta is done"):
        body = say(clocked, node, words).json()
        assert body["command"] != "get_date", words
