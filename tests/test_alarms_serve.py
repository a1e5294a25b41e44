"""Alarms and reminders through `voxd serve` (issue 25 §1-2), with the kit's clock started in March
2026 and run 60 times faster: an alarm rings on the node it was set on (and on no other), rings
again until stopped, snoozes and stops by voice; the household's DST change keeps 07:00 at 07:00;
one due while its node was away rings when it is back within 10 minutes, and is reported missed
after that; an alarm survives a daemon restart; a reminder is pushed with its actions and said,
"Done" and "Snooze" from the push act, and an unidentified voice's reminder is the household's."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

import httpx
import aiomqtt
import pytest

from conftest import COMMAND, Daemon, household_member, register_node, say
from test_announcements import broker_address, node_client_id

SERVICES = ["config", "auth", "logs", "command-center", "notifications"]
START = "2026-03-28T23:30:00+00:00"  # London: the clocks go forward at 01:00 GMT tonight
SPEED = "60"


class Ears:
    """Listens as a node on the broker in a thread of its own; `heard` grows as announcements come."""

    def __init__(self, daemon: Daemon, node: dict) -> None:
        self.daemon, self.node, self.heard, self.ready = daemon, node, [], threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self.listen(),), daemon=True)
        self.thread.start()
        assert self.ready.wait(10)

    async def listen(self) -> None:
        host, port = broker_address(self.daemon, self.node)
        self.stopping = asyncio.Event()
        async with aiomqtt.Client(host, port, username=self.node["node_id"], password=self.node["api_key"],
                                  identifier=node_client_id(self.node)) as client:
            await client.subscribe(f"voxd/nodes/{self.node['node_id']}/#", qos=1)
            self.ready.set()
            reading = asyncio.ensure_future(self.read(client))
            await self.stopping.wait()
            reading.cancel()

    async def read(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            self.heard.append(json.loads(message.payload))

    def kinds(self, kind: str) -> list[dict]:
        return [item for item in self.heard if item.get("kind") == kind]

    def wait_for(self, kind: str, count: int = 1, timeout: float = 30) -> list[dict]:
        deadline = time.monotonic() + timeout
        while len(self.kinds(kind)) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.kinds(kind)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stopping.set)
        self.thread.join(10)


@contextmanager
def listening(daemon: Daemon, *nodes: dict) -> Iterator[list[Ears]]:
    """Ears on each node for the block, closed after it."""
    ears = [Ears(daemon, node) for node in nodes]
    try:
        yield ears
    finally:
        for each in ears:
            each.close()


@pytest.fixture(scope="module")
def clocked(tmp_path_factory: pytest.TempPathFactory):
    from conftest import free_port_offset
    daemon = Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(), SERVICES,
                    extra_env={"VOXD_TEST_CLOCK": START, "VOXD_TEST_CLOCK_SPEED": SPEED,
                               # 5 minutes of ringing is 5 s at 60x: a loaded machine took longer to
                               # say "stop" (CI); an hour is 60 s, 6 min after the restart's 10x.
                               "VOXD_ALARM_RING_TIME": "1h"}).start()
    # Every household made before the first command: the command center learns new households'
    # zones at most every 10 s (pipeline/households.py), and these are in Europe/London.
    kitchen = register_node(daemon, room="kitchen")
    daemon.nodes = {"kitchen": kitchen, "hall": register_node(daemon, household=kitchen["household"], room="hall"),
                    **{room: register_node(daemon, room=room)
                       for room in ("bedroom", "study", "lounge", "attic", "porch")}}
    yield daemon
    daemon.stop()


def command(daemon: Daemon, node: dict, words: str, wanted: str | None = None) -> dict:
    answer = say(daemon, node, words)
    assert answer.status_code == 200, answer.text
    if wanted:
        assert answer.json()["command"] == wanted, answer.json()
    return answer.json()


def clock_now(daemon: Daemon, node: dict) -> datetime:
    said = command(daemon, node, "what time is it", "get_current_time")
    return datetime.fromisoformat(said["result"]["data"]["time"])


def in_minutes(daemon: Daemon, node: dict, minutes: int) -> tuple[str, datetime]:
    """'HH:MM' that many minutes (and a bit) ahead on the household's clock."""
    target = (clock_now(daemon, node) + timedelta(minutes=minutes + 1)).replace(second=0, microsecond=0)
    return target.strftime("%H:%M"), target


def spoken(moment: datetime) -> str:
    """'7 am', '12:05 am', as an alarm's time is said."""
    hour = moment.hour % 12 or 12
    clock = str(hour) if moment.minute == 0 else f"{hour}:{moment.minute:02d}"
    return f"{clock} {'am' if moment.hour < 12 else 'pm'}"


def wait_until(daemon: Daemon, node: dict, moment: datetime, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while clock_now(daemon, node) < moment:
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_an_alarm_rings_on_its_node_snoozes_and_stops(clocked):
    kitchen, hall = clocked.nodes["kitchen"], clocked.nodes["hall"]
    with listening(clocked, kitchen, hall) as (ears, hall_ears):
        at, _ = in_minutes(clocked, kitchen, 2)
        said = command(clocked, kitchen, f"set an alarm for {at}", "set_alarm")
        assert said["text"].startswith("Alarm set for")
        assert "1 alarm" in command(clocked, kitchen, "what alarms do i have", "list_alarms")["text"]
        assert ears.wait_for("alarm", 2)[0]["text"].startswith("Your alarm: it's")  # rings, and again
        snoozed = command(clocked, kitchen, "snooze for 2 minutes", "snooze_alarm")
        assert snoozed["text"] == "Snoozed for 2 minutes." and snoozed["result"]["data"]["snoozed"]
        again = poll(lambda: [item for item in ears.kinds("alarm") if "again, after the snooze" in item["text"]])
        assert again[0]["text"] == "Your alarm again, after the snooze."
        stopped = command(clocked, kitchen, "stop", "stop")
        assert stopped["result"]["data"]["alarms_stopped"]
        assert command(clocked, kitchen, "what alarms do i have")["text"] == "You don't have any alarms set."
        assert hall_ears.kinds("alarm") == []


def test_the_dst_change_keeps_the_wall_clock_time(clocked):
    node = clocked.nodes["bedroom"]  # Europe/London
    daily = command(clocked, node, "wake me up every day at 7", "set_alarm")
    daily = daily["result"]["data"]["alarm"]
    assert daily["repeat"] == "daily" and daily["due"] == "2026-03-29T07:00:00+01:00"  # BST after the change
    skipped = command(clocked, node, "set an alarm for 1:30 tomorrow", "set_alarm")["result"]["data"]["alarm"]
    assert skipped["due"] == "2026-03-29T02:30:00+01:00"  # 01:30 does not exist tonight: an hour on
    assert command(clocked, node, "cancel all my alarms", "cancel_alarm")["text"] == "Cancelled all 2 alarms."


def test_an_alarm_due_while_its_node_was_away(clocked):
    node = clocked.nodes["study"]
    at, due = in_minutes(clocked, node, 1)
    command(clocked, node, f"set an alarm for {at}", "set_alarm")
    wait_until(clocked, node, due + timedelta(minutes=1))
    with listening(clocked, node) as (ears,):  # back within 10 minutes: it rings now
        assert ears.wait_for("alarm")
        command(clocked, node, "stop", "stop")
    at, due = in_minutes(clocked, node, 1)
    command(clocked, node, f"set an alarm for {at}", "set_alarm")
    wait_until(clocked, node, due + timedelta(minutes=11))
    with listening(clocked, node) as (ears,):  # back, too late: told what it missed
        said = ears.wait_for("notification")[0]["text"]
        assert said == f"While this speaker was away, your {spoken(due)} alarm could not ring."
    told = command(clocked, node, "what alarms do i have", "list_alarms")
    assert "you missed an alarm" in told["text"] and told["result"]["data"]["missed"]


def test_a_reminder_is_pushed_with_actions_that_act(clocked):
    member = household_member(clocked)
    ask = lambda words: httpx.post(clocked.url("command-center") + COMMAND, json={"text": words},
                                   headers=member["headers"], timeout=30).json()
    at = (datetime.fromisoformat(ask("what time is it")["result"]["data"]["time"]) + timedelta(minutes=2))
    answer = ask(f"remind me at {at.strftime('%H:%M')} to call my mum")
    assert answer["command"] == "set_reminder" and answer["text"].startswith("I'll remind you to call your mum")
    reminder_id = answer["result"]["data"]["reminder"]["id"]
    admin = {"X-Admin-Key": clocked.admin_key}
    sent = poll(lambda: [n for n in (pushed(clocked, summary["id"]) for summary in httpx.get(
        clocked.url("notifications") + "/api/v0/notifications", headers=admin).json()["notifications"]
        if summary["category"] == "reminder") if n["data"].get("reminder_id") == reminder_id])
    assert sent[0]["title"] == "Reminder" and sent[0]["body"] == "Call your mum."
    assert [action["title"] for action in sent[0]["actions"]] == ["Done", "Snooze 10 min"]
    assert sent[0]["target"] == {"user_id": answer["speaker"]["user_id"]} and sent[0]["inbox"]
    inbox = httpx.get(clocked.url("notifications") + "/api/v0/inbox", headers=member["headers"]).json()
    assert [item["body"] for item in inbox["items"]] == ["Call your mum."]
    action = clocked.url("command-center") + sent[0]["data"]["action_path"]
    snoozed = httpx.post(action, json={"action": "snooze"}, headers=member["headers"])
    assert snoozed.status_code == 200 and ask("what are my reminders")["result"]["data"]["reminders"]
    assert httpx.post(action, json={"action": "done"}, headers=member["headers"]).status_code == 200
    assert ask("what are my reminders")["text"] == "You don't have any reminders."
    housemate, other = household_member(clocked, member["household_id"]), household_member(clocked)
    snoozed_again = ask("remind me in 3 hours to water the plants")["result"]["data"]["reminder"]["id"]
    for stranger in (housemate, other):  # a housemate's own reminder is theirs alone
        assert httpx.post(action.replace(reminder_id, snoozed_again), json={"action": "done"},
                          headers=stranger["headers"]).status_code == 404
        assert httpx.delete(clocked.url("command-center") + f"/api/v0/reminders/{snoozed_again}",
                            headers=stranger["headers"]).status_code == 404
    listed = httpx.get(clocked.url("command-center") + "/api/v0/reminders", headers=member["headers"]).json()
    assert [r["task"] for r in listed["reminders"]] == ["water the plants"]
    cancelled = httpx.delete(clocked.url("command-center") + f"/api/v0/reminders/{snoozed_again}",
                             headers=member["headers"])
    assert cancelled.status_code == 204 and ask("what are my reminders")["text"] == "You don't have any reminders."
    assert httpx.post(action, json={"action": "later"}, headers=member["headers"]).status_code == 400


def test_an_unidentified_voice_sets_a_household_reminder_that_is_said(clocked):
    node = clocked.nodes["lounge"]
    with listening(clocked, node) as (ears,):
        at, _ = in_minutes(clocked, node, 1)
        answer = command(clocked, node, f"remind me at {at} to take the bins out", "set_reminder")
        assert "household reminder" in answer["text"] and answer["result"]["data"]["reminder"]["user_id"] is None
        assert ears.wait_for("reminder")[0]["text"] == "Reminder: take the bins out."


def test_a_bare_hour_is_the_afternoons_and_am_said_after_the_task_is_kept(clocked):
    """Said in the night (the clock starts at 23:30): "at 5" is 5 pm, "at 5 am" after the task 5 am."""
    node = clocked.nodes["porch"]
    afternoon = command(clocked, node, "remind me at 5 to call mum", "set_reminder")["result"]["data"]["reminder"]
    morning = command(clocked, node, "remind me to take my pills at 5 am", "set_reminder")["result"]["data"]["reminder"]
    assert (afternoon["hour"], afternoon["task"]) == (17, "call mum")
    assert (morning["hour"], morning["task"]) == (5, "take your pills")
    # A length of time from now is meant as it is: said in the night, "in 3 hours" is in 3 hours,
    # not twelve later (the bare-hour reading took the 2:30 it gives for 2:30 pm).
    before = clock_now(clocked, node)
    later = command(clocked, node, "remind me in 3 hours to water the plants", "set_reminder")
    due = datetime.fromisoformat(later["result"]["data"]["reminder"]["due"])
    assert timedelta(hours=3) <= due - before < timedelta(hours=4), (before, due)


def test_a_waking_after_a_length_of_time_is_a_timer(clocked):
    """"wake me up in an hour" is a timer, as "remind me in 10 minutes" with no task is (cancelled
    here, so it rings in no other test)."""
    node = clocked.nodes["bedroom"]
    timer = command(clocked, node, "wake me up in an hour", "set_timer")
    assert timer["arguments"]["duration_seconds"] == 3600
    command(clocked, node, "cancel the timer", "cancel_timer")


def test_a_households_alarms_are_listed_and_cancelled_by_its_members_only(clocked):
    """GET and DELETE /api/v0/alarms (the admin page's list): a member sees the alarms set on their
    household's nodes; another household's member sees none, and cancelling one is 404 for them."""
    node = clocked.nodes["porch"]
    alarm = command(clocked, node, "set an alarm for 6:30 pm", "set_alarm")["result"]["data"]["alarm"]
    member, stranger = household_member(clocked, node["household_id"]), household_member(clocked)
    alarms = clocked.url("command-center") + "/api/v0/alarms"
    listed = httpx.get(alarms, headers=member["headers"])
    assert listed.status_code == 200 and [a["id"] for a in listed.json()["alarms"]] == [alarm["id"]]
    assert httpx.get(alarms, headers=stranger["headers"]).json() == {"alarms": []}
    refused = httpx.delete(f"{alarms}/{alarm['id']}", headers=stranger["headers"])
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "alarm_not_found"
    assert httpx.delete(f"{alarms}/{alarm['id']}", headers=member["headers"]).status_code == 204
    assert httpx.get(alarms, headers=member["headers"]).json() == {"alarms": []}
    assert httpx.get(alarms).status_code == 401


def pushed(daemon: Daemon, notification_id: str) -> dict:
    return httpx.get(daemon.url("notifications") + f"/api/v0/notifications/{notification_id}",
                     headers={"X-Admin-Key": daemon.admin_key}).json()


def test_a_reminder_for_everyone_is_said_on_every_node(clocked):
    kitchen, hall = clocked.nodes["kitchen"], clocked.nodes["hall"]
    with listening(clocked, kitchen, hall) as (ears, hall_ears):
        at, _ = in_minutes(clocked, kitchen, 1)
        answer = command(clocked, kitchen, f"remind everyone at {at} to set the table", "set_reminder")
        assert answer["text"].startswith("I'll remind everyone to set the table")
        for heard in (ears, hall_ears):
            assert heard.wait_for("reminder")[0]["text"] == "Reminder: set the table."


def poll(find, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = find()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError("not found in time")


def test_an_alarm_survives_a_restart_and_rings_at_seven_local_after_the_dst_change(clocked):
    node = clocked.nodes["attic"]
    alarm = command(clocked, node, "wake me up every day at 7", "set_alarm")["result"]["data"]["alarm"]
    due = datetime.fromisoformat(alarm["due"])
    assert due.isoformat() == "2026-03-29T07:00:00+01:00"  # set on the 28th in GMT, due in BST
    clocked.stop()
    clocked.extra_env["VOXD_TEST_CLOCK"] = (due - timedelta(minutes=1)).isoformat()
    # Slower, so the alarm is due 6 s after the start, and a start that takes longer (a loaded
    # machine) still finds the node back within the 10 minutes (60 s) in which it rings on return.
    clocked.extra_env["VOXD_TEST_CLOCK_SPEED"] = "10"
    clocked.start()
    with listening(clocked, node) as (ears,):
        assert ears.wait_for("alarm")[0]["text"] == "Your alarm: it's 7 am."
        assert command(clocked, node, "stop", "stop")["result"]["data"]["alarms_stopped"] == [alarm["id"]]
    left = command(clocked, node, "what alarms do i have", "list_alarms")["result"]["data"]["alarms"]
    assert [a["due"] for a in left] == ["2026-03-30T07:00:00+01:00"]  # tomorrow's, 07:00 local again
