"""The family calendar through `voxd serve` (issue 25 §3) against a real CalDAV server, Radicale on
127.0.0.1. The daemon's clock is fixed on Wednesday 4 March 2026 at 10:00 in London. Ann and Bob
each connect their own calendar with `voxd calendar connect --user`, the household connects the
family's; a person hears their own events and the household's, never the other's, and a voice no
one recognised (a node's text) hears the household's. Events are made in Radicale by the tests, and
what voxd adds or moves is read back from Radicale."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import date, datetime
from zoneinfo import ZoneInfo

import httpx
import pytest

from caldav_server import calendar_of, events_named, radicale, silent_server
from conftest import COMMAND, Daemon, household_member, node_headers, register_node, run_voxd, say
from daemons import serving

LONDON = ZoneInfo("Europe/London")
WEDNESDAY = "2026-03-04T10:00:00+00:00"
NOT_CONNECTED = "No calendar is connected yet: an administrator can connect one with voxd calendar connect."


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with radicale(tmp_path_factory.mktemp("radicale")) as url:
        yield url


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Radicale that checks logins: the household's is "family" with the password "right"."""
    with radicale(tmp_path_factory.mktemp("radicale-logins"), {"family": "right"}) as url:
        yield url


@pytest.fixture(scope="module")
def hanging() -> Iterator[str]:
    with silent_server() as url:
        yield url


@pytest.fixture(scope="module")
def clocked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    with serving(tmp_path_factory, ["config", "auth", "command-center"], VOXD_TEST_CLOCK=WEDNESDAY) as daemon:
        yield daemon


@pytest.fixture(scope="module")
def home(clocked: Daemon, server: str, guarded: str, hanging: str, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The Smiths' node, Ann and Bob (logged in), and two households with no calendar and with one
    whose server is down, all made before anything is said (the command center reads households once)."""
    gone = tmp_path_factory.mktemp("radicale-gone")
    node = register_node(clocked, "Europe/London")
    household_id = node["household"]["household_id"]
    ann, bob = household_member(clocked, household_id), household_member(clocked, household_id)
    made = {"node": node, "ann": ann, "bob": bob, "unconnected": register_node(clocked, "Europe/London"),
            "down": register_node(clocked, "Europe/London"), "refused": register_node(clocked, "Europe/London"),
            "hanging": register_node(clocked, "Europe/London")}
    fill_calendars(server)
    connect(clocked, server, "family", household=household_id)
    connect(clocked, server, "ann", user=ann["email"])
    connect(clocked, server, "bob", user=bob["email"])
    with radicale(gone) as short_lived:  # connected while it ran, then stopped: the server is down
        calendar_of(short_lived, "family")
        connect(clocked, short_lived, "family", household=made["down"]["household"]["household_id"])
    stored = run_voxd(clocked.env, "calendar", "connect", "--url", hanging, "--no-check",
                      "--household", made["hanging"]["household"]["household_id"])
    assert stored.exit_code == 0, stored.output
    calendar_of(guarded, "family", "right")
    wrong = run_voxd(clocked.env, "calendar", "connect", "--url", guarded, "--username", "family",
                     "--household", made["refused"]["household"]["household_id"], input="wrong\n")
    assert wrong.exit_code == 1 and "turned down its username or app password" in wrong.output, wrong.output
    stored = run_voxd(clocked.env, "calendar", "connect", "--url", guarded, "--username", "family", "--no-check",
                      "--household", made["refused"]["household"]["household_id"], input="wrong\n")
    assert stored.exit_code == 0, stored.output
    return made


def connect(daemon: Daemon, url: str, username: str, **whose: str) -> None:
    option = ["--user", whose["user"]] if "user" in whose else ["--household", whose["household"]]
    result = run_voxd(daemon.env, "calendar", "connect", "--url", url, "--username", username, *option,
                      input="app-password\n")
    assert result.exit_code == 0, result.output
    assert "Connected to the calendar" in result.output and "is connected" in result.output


def fill_calendars(url: str) -> None:
    family = calendar_of(url, "family")
    family.save_event(dtstart=date(2026, 3, 7), dtend=date(2026, 3, 8), summary="Grandma visits")
    family.save_event(dtstart=datetime(2026, 2, 7, 9, 0, tzinfo=LONDON),
                      dtend=datetime(2026, 2, 7, 10, 0, tzinfo=LONDON), summary="Swimming", rrule={"FREQ": "WEEKLY"})
    calendar_of(url, "ann").save_event(dtstart=datetime(2026, 3, 5, 16, 30, tzinfo=LONDON),
                                       dtend=datetime(2026, 3, 5, 17, 15, tzinfo=LONDON), summary="Piano lesson")
    calendar_of(url, "bob").save_event(dtstart=datetime(2026, 3, 5, 18, 0, tzinfo=LONDON),
                                       dtend=datetime(2026, 3, 5, 19, 0, tzinfo=LONDON), summary="Football")


def said_by(daemon: Daemon, person: dict, words: str, command: str) -> str:
    """What voxd answers a user's own typed words (they are the speaker), checking the command."""
    answer = httpx.post(daemon.url("command-center") + COMMAND, json={"text": words}, headers=person["headers"],
                        timeout=30)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["command"] == command, body
    return body["text"]


def heard(daemon: Daemon, node: dict, words: str, command: str) -> str:
    """What a node hears for words said by a voice no one recognised."""
    body = say(daemon, node, words).json()
    assert body["command"] == command, body
    return body["text"]


def test_each_person_hears_their_own_calendar_and_the_households(clocked, home):
    ann = said_by(clocked, home["ann"], "what's on my calendar tomorrow", "calendar_events")
    assert ann == "Tomorrow there's Piano lesson at 4:30 PM."
    bob = said_by(clocked, home["bob"], "what's on my calendar tomorrow", "calendar_events")
    assert bob == "Tomorrow there's Football at 6 PM."
    weekend = said_by(clocked, home["ann"], "what have we got this weekend", "calendar_events")
    assert weekend == "On Saturday there's Grandma visits, all day and Swimming at 9 AM."


def test_an_unrecognised_voice_hears_the_household_calendar_with_its_repeating_event(clocked, home):
    assert heard(clocked, home["node"], "what's on the calendar tomorrow", "calendar_events") == (
        "There's nothing on the calendar tomorrow.")
    next_week = heard(clocked, home["node"], "what have we got next weekend", "calendar_events")
    assert next_week == "On 14 March there's Swimming at 9 AM."  # the weekly event, a week on: expanded
    assert heard(clocked, home["node"], "when is my next appointment", "next_event") == (
        "Your next appointment is Grandma visits on Saturday, all day.")


def test_next_appointment_of_a_person(clocked, home):
    assert said_by(clocked, home["ann"], "when is my next appointment", "next_event") == (
        "Your next appointment is Piano lesson tomorrow at 4:30 PM.")


def test_adding_and_moving_an_event_lands_on_the_speakers_calendar(clocked, home, server):
    added = said_by(clocked, home["ann"], "add the dentist on Friday at 3", "add_event")
    assert added == "I've added Dentist to your calendar on Friday at 3 PM."
    [stored] = events_named(calendar_of(server, "ann"), "Dentist")
    assert stored["dtstart"].dt == datetime(2026, 3, 6, 15, 0, tzinfo=LONDON)
    assert not events_named(calendar_of(server, "family"), "Dentist")
    moved = said_by(clocked, home["ann"], "move the dentist to 4", "move_event")
    assert moved == "I've moved Dentist to Friday at 4 PM."
    [stored] = events_named(calendar_of(server, "ann"), "Dentist")
    assert (stored["dtstart"].dt, stored["dtend"].dt) == (datetime(2026, 3, 6, 16, 0, tzinfo=LONDON),
                                                          datetime(2026, 3, 6, 17, 0, tzinfo=LONDON))


def test_an_all_day_event_added_by_an_unrecognised_voice_goes_on_the_household_calendar(clocked, home, server):
    added = heard(clocked, home["node"], "put the school trip on the calendar on the 12th of march", "add_event")
    assert added == "I've added School trip to the household calendar on 12 March, all day."
    [stored] = events_named(calendar_of(server, "family"), "School trip")
    assert (stored["dtstart"].dt, stored["dtend"].dt) == (date(2026, 3, 12), date(2026, 3, 13))


def test_an_event_is_taken_off_the_speakers_calendar_and_a_repeating_one_is_left(clocked, home, server):
    said_by(clocked, home["ann"], "add the vet on thursday at 2", "add_event")
    assert events_named(calendar_of(server, "ann"), "Vet")
    removed = said_by(clocked, home["ann"], "remove the vet from my calendar", "remove_event")  # word for word
    assert removed == "I've taken Vet tomorrow at 2 PM off the calendar."  # the clock is a Wednesday
    assert not events_named(calendar_of(server, "ann"), "Vet")
    assert said_by(clocked, home["ann"], "remove the vet from my calendar", "remove_event") == (
        "I couldn't find Vet on the calendar.")
    assert heard(clocked, home["node"], "take swimming off the calendar", "remove_event") == (
        "Swimming repeats, so I've left it as it is: remove a repeating event in your calendar app.")


def test_a_repeating_event_is_not_moved(clocked, home):
    assert heard(clocked, home["node"], "move swimming to 11", "move_event") == (
        "Swimming repeats, so I've left it as it is: change a repeating event in your calendar app.")


def test_a_calendar_server_that_went_down_is_said(clocked, home):
    assert heard(clocked, home["down"], "what's on my calendar tomorrow", "calendar_events") == (
        "I can't reach the household's calendar right now.")


def test_a_calendar_server_that_never_answers_is_said_not_waited_for(clocked, home):
    assert heard(clocked, home["hanging"], "what's on my calendar tomorrow", "calendar_events") in (
        "I can't reach the household's calendar right now.", "The household's calendar took too long to answer.")


def test_no_calendar_connected_is_one_sentence(clocked, home):
    for words, command in (("what's on my calendar tomorrow", "calendar_events"),
                           ("when is my next appointment", "next_event"),
                           ("add the dentist on friday at 3", "add_event"), ("move the dentist to 4", "move_event")):
        assert heard(clocked, home["unconnected"], words, command) == NOT_CONNECTED


def test_a_wrong_app_password_is_said(clocked, home):
    assert heard(clocked, home["refused"], "when is my next appointment", "next_event") == (
        "The household's calendar turned down its username or app password. "
        "Connect it again with voxd calendar connect.")


def test_a_persons_calendar_password_is_sealed_at_rest(clocked, home):
    data = clocked.home / "data"
    assert [path.name for path in data.iterdir() if b"app-password" in path.read_bytes()] == []


def test_a_users_secret_names_a_known_user_and_one_owner_only(clocked, home):
    url = clocked.url("command-center") + "/api/v0/secrets/CALDAV_URL"
    admin = {"X-Admin-Key": clocked.admin_key}
    unknown = httpx.put(url, json={"value": "http://x/", "user_id": str(uuid.uuid4())}, headers=admin)
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "user_not_found")
    both = httpx.put(url, json={"value": "http://x/", "user_id": str(uuid.uuid4()),
                                "household_id": home["node"]["household"]["household_id"]}, headers=admin)
    assert (both.status_code, both.json()["error"]["code"]) == (400, "secret_scope_required")
    listed = httpx.get(clocked.url("command-center") + "/api/v0/secrets", headers=admin).json()["required"]
    users = {row["scope"]: row["set_for"] for row in listed if row["key"] == "CALDAV_PASSWORD"}
    assert len(users["user"]) == 2 and "app-password" not in str(listed)


def test_an_event_said_without_a_time_asks_for_it(clocked, home, server):
    asked = say(clocked, home["node"], "add the bake sale to the calendar").json()
    assert (asked["command"], asked["text"]) == ("add_event", "I need to know the day and time of the event.")
    assert asked["result"]["wait_for_input"]
    answer = httpx.post(clocked.url("command-center") + COMMAND, params={"follow_up": "true"},
                        json={"text": "saturday at 2"}, headers=node_headers(home["node"]), timeout=30).json()
    assert answer["text"] == "I've added Bake sale to the household calendar on Saturday at 2 PM."
    [stored] = events_named(calendar_of(server, "family"), "Bake sale")
    assert stored["dtstart"].dt == datetime(2026, 3, 7, 14, 0, tzinfo=LONDON)
