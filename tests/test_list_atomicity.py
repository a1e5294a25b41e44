"""A household list keeps every change it acknowledged (issue 19 §1), through `voxd serve`.

Eight people add 50 items each over HTTP while a kitchen node adds items by voice and a third
hand adds items and takes them off again, half over HTTP and half by voice. Whatever was answered
as added is on the list afterwards, and whatever was answered as removed is not - also when the
daemon is killed (`kill -9`) half-way and started again: the command center's database commits
with `synchronous=FULL`, so an answered write is on disk before its answer leaves. Timers set at
once are all kept too, and the rules of `CommandStorage.update` that make this so are checked on
the real store.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import httpx
import pytest

from conftest import COMMAND, household_member, login, node_headers, register_node, say
from daemons import serving
from voxd.catalog import CATALOG
from voxd.kit.db import Database, Durability
from voxd.kit.sealing import SecretBox
from voxd.services.command_center.storage.store import MIGRATIONS, CommandCenterStore, DocumentStorage

SERVICES = ["config", "auth", "command-center"]
WRITERS, ITEMS_EACH = 8, 50
SAID = 40  # items added by voice
TAKEN_BACK = 40  # items added then removed, every other one by voice


@dataclass
class Ledger:
    """What the daemon acknowledged, kept by every client thread; `stop` ends them all."""

    added: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    removing: set[str] = field(default_factory=set)  # a removal was sent: unknown until answered
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, into: set[str], items: list[str]) -> None:
        with self.lock:
            into.update(item.lower() for item in items)

    def acknowledged(self) -> int:
        with self.lock:
            return len(self.added) + len(self.removed)


@dataclass
class Home:
    """One household of a daemon: a kitchen node, a user, and where its shopping list is."""

    lists: str
    node: dict
    user: dict

    def headers(self) -> dict[str, str]:
        return self.user["headers"]


def a_home(daemon) -> Home:
    node = register_node(daemon)
    user = household_member(daemon, node["household"]["household_id"])
    return Home(daemon.url("command-center") + "/api/v0/lists/shopping/items", node, user)


class Client:
    """One client thread's connection: HTTP adds and removes as a user, voice as the node."""

    def __init__(self, daemon, home: Home, ledger: Ledger) -> None:
        self.home, self.ledger = home, ledger
        self.http = httpx.Client(timeout=30)
        self.command = daemon.url("command-center") + COMMAND

    def add(self, item: str) -> None:
        answer = self.http.post(self.home.lists, json={"items": [item]}, headers=self.home.headers())
        if answer.status_code == 200:
            self.ledger.note(self.ledger.added, answer.json()["added"])

    def remove(self, item: str) -> None:
        self.ledger.note(self.ledger.removing, [item])
        answer = self.http.request("DELETE", self.home.lists, json={"items": [item]}, headers=self.home.headers())
        if answer.status_code == 200:
            self.ledger.note(self.ledger.removed, answer.json()["removed"])

    def say(self, words: str, outcome: str) -> None:
        answer = self.http.post(self.command, json={"text": words}, headers=node_headers(self.home.node))
        if answer.status_code == 200 and answer.json()["result"]:
            self.ledger.note(getattr(self.ledger, outcome), answer.json()["result"]["data"].get(outcome, []))


def writer(client: Client, number: int) -> None:
    for index in range(ITEMS_EACH):
        if client.ledger.stop.is_set():
            return
        client.add(f"w{number}item{index}")


def speaker(client: Client) -> None:
    for index in range(SAID):
        if client.ledger.stop.is_set():
            return
        client.say(f"add voiceitem{index} to the shopping list", "added")


def taker(client: Client) -> None:
    """Adds an item, then takes it off: over HTTP, or by voice every other time."""
    for index in range(TAKEN_BACK):
        if client.ledger.stop.is_set():
            return
        item = f"takenitem{index}"
        client.add(item)
        if index % 2:
            client.ledger.note(client.ledger.removing, [item])
            client.say(f"remove {item} from the shopping list", "removed")
        else:
            client.remove(item)


def run_clients(daemon, home: Home, ledger: Ledger, also: Callable[[], None] | None = None) -> None:
    """Every client at once; each stops at its first connection error (the daemon was killed)."""
    def guarded(work: Callable[[Client], None]) -> Callable[[], None]:
        def run() -> None:
            client = Client(daemon, home, ledger)
            try:
                work(client)
            except httpx.TransportError:
                ledger.stop.set()
            finally:
                client.http.close()
        return run

    jobs = [guarded(lambda client, n=n: writer(client, n)) for n in range(WRITERS)]
    jobs += [guarded(speaker), guarded(taker)] + ([also] if also else [])
    with ThreadPoolExecutor(len(jobs)) as pool:
        for done in [pool.submit(job) for job in jobs]:
            done.result()


def on_the_list(home: Home) -> set[str]:
    answer = httpx.get(home.lists, headers=home.headers())
    assert answer.status_code == 200, answer.text
    return {item["text"].lower() for item in answer.json()["items"]}


def assert_kept(home: Home, ledger: Ledger) -> None:
    """Every acknowledged add is there, unless a removal of it was sent; no acknowledged removal is."""
    found = on_the_list(home)
    assert ledger.added, "nothing was acknowledged"
    lost = ledger.added - ledger.removing - found
    assert not lost, f"{len(lost)} of {len(ledger.added)} acknowledged items lost: {sorted(lost)[:10]}"
    back = ledger.removed & found
    assert not back, f"{len(back)} acknowledged removals came back: {sorted(back)[:10]}"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One daemon for the module; the kill -9 test, last, starts it again."""
    with serving(tmp_path_factory, SERVICES) as daemon:
        yield daemon


def test_list_changes_are_atomic(served):
    home, ledger = a_home(served), Ledger()
    run_clients(served, home, ledger)
    assert not ledger.stop.is_set(), served.output()
    assert_kept(home, ledger)
    assert len(ledger.added) == WRITERS * ITEMS_EACH + SAID + TAKEN_BACK
    assert len(ledger.removed) == TAKEN_BACK
    assert len(on_the_list(home)) == WRITERS * ITEMS_EACH + SAID


def test_timers_set_at_once_are_all_kept(served):
    node = register_node(served)
    minutes = range(10, 22)
    with ThreadPoolExecutor(len(minutes)) as pool:
        answers = list(pool.map(lambda n: say(served, node, f"set a timer for {n} minutes"), minutes))
    assert all(answer.json()["command"] == "set_timer" for answer in answers), [a.text for a in answers]
    running = say(served, node, "what timers do i have").json()["result"]["data"]["timers"]
    assert len(running) == len(minutes)


def test_acknowledged_list_changes_survive_kill_9(served):
    assert CATALOG["command-center"].durability is Durability.FULL
    assert f"{served.home / 'data' / 'command-center'}.db open (synchronous=FULL)" in served.output()
    home, ledger = a_home(served), Ledger()
    half = (WRITERS * ITEMS_EACH + SAID + 2 * TAKEN_BACK) // 2

    def killer() -> None:
        while ledger.acknowledged() < half and not ledger.stop.is_set():
            ledger.stop.wait(0.01)
        served.process.kill()  # SIGKILL: no shutdown, no last commit
        served.process.wait()
        ledger.stop.set()

    run_clients(served, home, ledger, also=killer)
    assert served.process.returncode == -9
    served.start()
    tokens = login(served, home.user["email"], home.user["password"]).json()
    home.user["headers"] = {"Authorization": f"Bearer {tokens['access_token']}"}
    assert ledger.acknowledged() >= half
    assert_kept(home, ledger)


def test_update_answers_what_the_change_says_and_a_failed_change_writes_nothing(tmp_path):
    """The rules of `CommandStorage.update` a plug-in command relies on (unit: the real store)."""
    async def run() -> None:
        database = await Database.open(tmp_path / "cc.db", MIGRATIONS)
        storage = DocumentStorage(CommandCenterStore(database, SecretBox(os.urandom(32))), "home", "counter")
        try:
            count = lambda stored: ((stored or 0) + 1, (stored or 0) + 1)  # noqa: E731
            assert [await storage.update("count", count) for _ in range(3)] == [1, 2, 3]
            with pytest.raises(ZeroDivisionError):
                await storage.update("count", lambda stored: (stored + 1, 1 / 0))
            assert await storage.get("count") == 3
            assert await storage.update("count", lambda stored: (None, stored)) == 3
            assert await storage.get("count") is None
            await asyncio.gather(*(storage.update("count", count) for _ in range(20)))
            assert await storage.get("count") == 20
        finally:
            await database.close()

    asyncio.run(run())
