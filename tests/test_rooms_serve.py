"""Announcements to every room and a node's volume, through `voxd serve` with registered nodes
listening on the embedded broker (issue 25 §5-6): an announcement reaches every other node of the
household and not the asking one, a room's only that room's nodes, another household's nodes hear
nothing; a volume command sends the asking node (and only it) its new volume."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

import httpx

from conftest import COMMAND, Daemon, household_member, register_node, say
from daemons import serving
from test_announcements import SPEAKING_SERVICES, hear


@pytest.fixture(scope="module")
def daemon(tmp_path_factory) -> Daemon:
    with serving(tmp_path_factory, SPEAKING_SERVICES, VOXD_SEMANTIC="false") as running:
        yield running


@pytest.fixture(scope="module")
def home(daemon) -> dict[str, dict]:
    """Kitchen, hall and two lounge nodes in one household; a node of another household."""
    kitchen = register_node(daemon, room="kitchen")
    household = kitchen["household"]
    return {"kitchen": kitchen, "hall": register_node(daemon, household=household, room="hall"),
            "lounge": register_node(daemon, household=household, room="Lounge"),
            "lounge2": register_node(daemon, household=household, room="lounge"),
            "elsewhere": register_node(daemon, room="kitchen")}


def told(daemon: Daemon, home: dict[str, dict], asking: str, words: str, wanted: int) -> tuple[dict, dict[str, list]]:
    """Say `words` on the `asking` node while every node listens; the answer and what each heard."""
    answers = []
    heard = asyncio.run(hear(daemon, list(home.values()), lambda: answers.append(say(daemon, home[asking], words)),
                             wanted=wanted, timeout=10))
    answer = answers[0]
    assert answer.status_code == 200, answer.text
    by_room = {room: heard[node["node_id"]] for room, node in home.items()}
    return answer.json(), by_room


def test_an_announcement_reaches_every_other_node_of_the_household(daemon, home):
    answer, heard = told(daemon, home, "kitchen", "Tell everyone dinner is ready", wanted=3)
    assert (answer["command"], answer["text"]) == ("announce", "Announced in 2 rooms.")
    for room in ("hall", "lounge", "lounge2"):
        [announcement] = heard[room]
        assert (announcement["kind"], announcement["text"]) == ("announcement", "Announcement: Dinner is ready.")
    assert heard["kitchen"] == [] and heard["elsewhere"] == []


def test_a_rooms_announcement_reaches_only_that_rooms_nodes(daemon, home):
    answer, heard = told(daemon, home, "hall", "say to the lounge that we're leaving in five minutes", wanted=2)
    assert answer["text"].lower() == "announced in the lounge."
    for room in ("lounge", "lounge2"):
        assert [item["text"] for item in heard[room]] == ["Announcement: We're leaving in five minutes."]
    assert heard["kitchen"] == heard["hall"] == heard["elsewhere"] == []


def test_nowhere_to_announce_is_said(daemon, home):
    unknown = say(daemon, home["kitchen"], "tell the garage that the car is ready").json()
    assert unknown["text"].startswith("There's no voice node in a room called garage. Your rooms with voice "
                                      "nodes are"), unknown["text"]
    only_here = say(daemon, home["kitchen"], "say to the kitchen that the oven is hot").json()
    assert only_here["text"] == "This is the only voice node in the kitchen, so everyone there heard you already."
    alone = say(daemon, home["elsewhere"], "tell everyone hello").json()
    assert alone["text"] == "There's no other voice node in your household to announce it on."


def test_a_typed_announcement_reaches_every_node_and_a_typed_volume_names_no_node(daemon, home):
    member = household_member(daemon, home["kitchen"]["household_id"])
    answers = []

    def type_it() -> None:
        answers.append(httpx.post(daemon.url("command-center") + COMMAND, headers=member["headers"], timeout=30,
                                  json={"text": "announce that the film is starting"}))

    heard = asyncio.run(hear(daemon, list(home.values()), type_it, wanted=4, timeout=10))
    assert answers[0].json()["text"] == "Announced in 3 rooms."
    for room in ("kitchen", "hall", "lounge", "lounge2"):
        [announcement] = heard[home[room]["node_id"]]
        assert announcement["text"].endswith("The film is starting.")
    assert heard[home["elsewhere"]["node_id"]] == []
    typed = httpx.post(daemon.url("command-center") + COMMAND, headers=member["headers"], json={"text": "volume 4"})
    assert typed.json()["text"] == "Ask the voice node itself: I can only change the volume of the speaker that hears you."


def volumes(heard: dict[str, list]) -> dict[str, list]:
    return {room: [(item["kind"], item.get("volume")) for item in items] for room, items in heard.items() if items}


def test_a_volume_command_sets_the_asking_nodes_volume(daemon, home):
    answer, heard = told(daemon, home, "hall", "volume 4", wanted=1)
    assert answer["text"] == "Volume 4."
    assert volumes(heard) == {"hall": [("volume", {"level": 4, "muted": False, "muted_until": None})]}

    answer, heard = told(daemon, home, "hall", "turn it up", wanted=1)
    assert answer["text"] == "Volume 5."
    assert volumes(heard) == {"hall": [("volume", {"level": 5, "muted": False, "muted_until": None})]}

    answer, heard = told(daemon, home, "hall", "mute for an hour", wanted=1)
    assert answer["text"] == "Muted for 1 hour."
    [(kind, volume)] = volumes(heard)["hall"]
    assert (kind, volume["level"], volume["muted"]) == ("volume", 5, True)
    assert 3590 < (datetime.fromisoformat(volume["muted_until"]) - datetime.now().astimezone()).total_seconds() <= 3600

    assert say(daemon, home["hall"], "what's the volume").json()["text"] in ("The volume is 5. I'm muted.",)
    answer, heard = told(daemon, home, "hall", "unmute", wanted=1)
    assert answer["text"] == "Unmuted. Volume 5."
    assert volumes(heard) == {"hall": [("volume", {"level": 5, "muted": False, "muted_until": None})]}
    assert say(daemon, home["kitchen"], "volume 11").json()["text"] == "The volume goes from 0 to 10."


# The pieces, without a daemon.

def test_what_an_announcement_says_and_where_rooms_meet():
    from voxd.commands.api import Speaker
    from voxd.commands.builtin.home.announce import announced_in, spoken
    from voxd.commands.builtin.home.speakers import VoiceNode, room_key

    assert spoken("we're off now", Speaker("u1", "Anna")) == "Anna says: We're off now."
    assert spoken("is anyone there?", None) == "Announcement: Is anyone there?"
    assert room_key("The Kids' Room") == room_key("kids room") == room_key("kid room")
    nodes = [VoiceNode("a", "Lounge", "tv"), VoiceNode("b", "lounge", "shelf"), VoiceNode("c", "hall", "door")]
    assert announced_in(nodes[:2]) == "Announced in the Lounge."
    assert announced_in(nodes) == "Announced in 2 rooms."


def test_volume_steps_stop_at_the_ends_and_a_mute_ends_on_time():
    from datetime import timedelta, timezone

    from voxd.commands.builtin.home.speakers import Volume
    from voxd.commands.builtin.home.volume import audible_now, next_volume

    now = datetime(2026, 11, 26, 19, 0, tzinfo=timezone.utc)
    assert next_volume(Volume(10), now, None, "up", None, None) == (Volume(10), "That's as loud as I go.")
    assert next_volume(Volume(0), now, None, "down", None, None) == (Volume(0), "The volume is as low as it goes.")
    muted, said = next_volume(Volume(6), now, None, None, True, 1800)
    assert said == "Muted for 30 minutes." and muted.muted_until == (now + timedelta(minutes=30)).isoformat()
    assert next_volume(muted, now, None, "up", None, None) == (Volume(6), "Volume 6.")  # unmuted where it was
    assert audible_now(muted, now + timedelta(minutes=29)) == muted
    assert audible_now(muted, now + timedelta(minutes=30)) == Volume(6)


@pytest.mark.parametrize(("said", "room", "message"), [
    ("announce to everyone that dinner is ready", None, "dinner is ready"),
    ("could you announce to all the rooms that we're off now", None, "we're off now"),
    ("tell everyone to come downstairs", None, "please come downstairs"),
    ("tell everybody in the kitchen that I'm home", "kitchen", "I'm home"),
])
def test_the_room_and_the_message_are_read_as_said(said, room, message):
    from voxd.commands.builtin.home.announce import Announce

    claim = Announce().pre_route(said, None)
    assert (claim.arguments.get("room"), claim.arguments["message"]) == (room, message)
