"""Announcements through a message broker, with the real daemon: a timer rings on the node that set
it and on no other, an administrator makes a node speak, the broker keeps every node to its own
topics, and a node's answer to a question completes the asking command. Once with the embedded
broker, once with a real mosquitto (VOXD_BROKER_URL)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from urllib.parse import urlsplit

import aiomqtt
import httpx

from conftest import COMMAND, Daemon, node_headers, register_node, say
from mosquitto import Mosquitto

SPEAKING_SERVICES = ["config", "auth", "logs", "command-center"]  # no text-to-speech: text-only announcements


def node_client_id(node: dict) -> str:
    """The only client id a node may use (the node agent's own, node/voxd_node/announcements.py)."""
    return f"voxd-node-{node['node_id']}"


def broker_address(daemon: Daemon, node: dict) -> tuple[str, int]:
    answer = httpx.get(daemon.url("command-center") + "/api/v0/broker", headers=node_headers(node))
    assert answer.status_code == 200, answer.text
    url = urlsplit(answer.json()["url"])
    assert url.scheme == "mqtt"
    return url.hostname, url.port


async def hear(daemon: Daemon, nodes: list[dict], action: Callable[[], object], wanted: int,
               timeout: float = 20) -> dict[str, list[dict]]:
    """Subscribe as each node to its own subtree, run `action`, and collect what each node is told
    until `wanted` messages in all have arrived (or the timeout; then what arrived is answered)."""
    heard: dict[str, list[dict]] = {node["node_id"]: [] for node in nodes}
    arrived = asyncio.Event()
    ready = asyncio.Semaphore(0)

    async def listen(node: dict) -> None:
        host, port = broker_address(daemon, node)
        async with aiomqtt.Client(host, port, username=node["node_id"], password=node["api_key"],
                                  identifier=node_client_id(node)) as client:
            await client.subscribe(f"voxd/nodes/{node['node_id']}/#", qos=1)
            ready.release()
            async for message in client.messages:
                heard[node["node_id"]].append({"topic": message.topic.value, **json.loads(message.payload)})
                if sum(len(items) for items in heard.values()) >= wanted:
                    arrived.set()

    listeners = [asyncio.create_task(listen(node)) for node in nodes]
    for _ in nodes:
        await asyncio.wait_for(ready.acquire(), 10)
    await asyncio.to_thread(action)
    try:
        await asyncio.wait_for(arrived.wait(), timeout)
        await asyncio.sleep(0.5)  # anything that should not come would come now
    except asyncio.TimeoutError:
        pass
    for task in listeners:
        task.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)
    return heard


def set_timer(daemon: Daemon, node: dict, words: str) -> None:
    answer = say(daemon, node, words)
    assert answer.status_code == 200, answer.text
    assert answer.json()["command"] == "set_timer"


def check_timer_rings_on_its_node(daemon: Daemon, register: Callable[..., dict] = register_node) -> None:
    kitchen = register(daemon, room="kitchen")
    hall = register(daemon, household=kitchen["household"], room="hall")  # same household, same timers

    heard = asyncio.run(hear(daemon, [kitchen, hall], lambda: set_timer(daemon, kitchen, "set a 2 second egg timer"),
                             wanted=1))

    assert heard[hall["node_id"]] == []
    (ring,) = heard[kitchen["node_id"]]
    assert ring["topic"] == f"voxd/nodes/{kitchen['node_id']}/announce"
    assert (ring["kind"], ring["text"], ring["audio"]) == ("timer", "Your egg timer is done.", None)
    assert say(daemon, kitchen, "how much time is left").json()["text"] == "You don't have any timers running."


def test_a_timer_rings_on_the_node_that_set_it_through_the_embedded_broker(make_daemon):
    check_timer_rings_on_its_node(make_daemon(SPEAKING_SERVICES))


def test_the_earliest_of_two_timers_rings_while_the_later_one_waits(make_daemon):
    """The bell wakes for the earliest timer, not the latest: a 2-second timer set after a
    10-minute one rings in seconds, and the 10-minute one keeps running."""
    daemon = make_daemon(SPEAKING_SERVICES)
    kitchen = register_node(daemon, room="kitchen")

    def set_both() -> None:
        set_timer(daemon, kitchen, "set a 10 minute pasta timer")
        set_timer(daemon, kitchen, "set a 2 second egg timer")

    heard = asyncio.run(hear(daemon, [kitchen], set_both, wanted=1))
    assert [ring["text"] for ring in heard[kitchen["node_id"]]] == ["Your egg timer is done."]
    left = say(daemon, kitchen, "how much time is left").json()["text"]
    assert left.startswith("The pasta timer has ") and "egg" not in left, left


def test_a_timer_rings_through_a_real_mosquitto(make_daemon, tmp_path):
    mosquitto = Mosquitto(tmp_path)
    daemon = make_daemon(SPEAKING_SERVICES, start=False, **mosquitto.env)
    try:
        mosquitto.start()
        daemon.start()

        def register_in_mosquitto(*args, **kwargs) -> dict:  # as the operator adds each node's login
            node = register_node(*args, **kwargs)
            mosquitto.add_user(node["node_id"], node["api_key"])
            return node

        assert broker_address(daemon, register_in_mosquitto(daemon)) == ("127.0.0.1", mosquitto.port)
        check_timer_rings_on_its_node(daemon, register_in_mosquitto)
    finally:
        daemon.stop()
        mosquitto.stop()


async def eavesdrop(daemon: Daemon, kitchen: dict, hall: dict, announce: Callable[[], None]) -> list:
    """The kitchen node asks for the hall's topics: refused by the broker, and nothing arrives."""
    host, port = broker_address(daemon, kitchen)
    got = []
    async with aiomqtt.Client(host, port, username=kitchen["node_id"], password=kitchen["api_key"],
                              identifier=node_client_id(kitchen)) as client:
        granted = await client.subscribe(f"voxd/nodes/{hall['node_id']}/#", qos=1)
        wildcard = await client.subscribe("voxd/nodes/+/announce", qos=1)
        await asyncio.to_thread(announce)
        try:
            async with asyncio.timeout(1.5):
                async for message in client.messages:
                    got.append(message.payload)
        except TimeoutError:
            pass
    return [granted[0].is_failure, wildcard[0].is_failure, got]


async def log_in(daemon: Daemon, node: dict, username: str | None, password: str | None) -> str:
    """A login to the broker `node` is told of: 'connected', or the broker's refusal."""
    host, port = broker_address(daemon, node)
    try:
        async with aiomqtt.Client(host, port, username=username, password=password,
                                  identifier=f"voxd-node-{username}"):
            return "connected"
    except aiomqtt.MqttError as error:
        return str(error)


def test_an_administrator_makes_a_node_speak_and_nodes_keep_to_their_own_topics(make_daemon):
    daemon = make_daemon(SPEAKING_SERVICES)
    kitchen, hall = register_node(daemon, room="kitchen"), register_node(daemon, room="hall")
    admin = {"X-Admin-Key": daemon.admin_key}
    url = daemon.url("command-center") + "/api/v0/nodes/{}/announce"
    sent = []

    def announce() -> None:
        answer = httpx.post(url.format(hall["node_id"]), json={"text": "Dinner is ready."}, headers=admin)
        assert answer.status_code == 202, answer.text
        sent.append(answer.json())

    heard = asyncio.run(hear(daemon, [kitchen, hall], announce, wanted=1))
    assert [(item["kind"], item["text"]) for item in heard[hall["node_id"]]] == [("notification", "Dinner is ready.")]
    assert heard[kitchen["node_id"]] == []
    assert sent[0]["spoken"] is False and sent[0]["id"] == heard[hall["node_id"]][0]["id"]

    unknown = httpx.post(url.format("no-such-node"), json={"text": "hello"}, headers=admin)
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "unknown_node")
    empty = httpx.post(url.format(hall["node_id"]), json={"text": "  "}, headers=admin)
    assert empty.status_code == 400

    assert asyncio.run(eavesdrop(daemon, kitchen, hall, announce)) == [True, True, []]
    assert "Not authorized" in asyncio.run(log_in(daemon, kitchen, kitchen["node_id"], "wrong-key"))
    assert "Not authorized" in asyncio.run(log_in(daemon, kitchen, None, None))
    assert "Not authorized" in asyncio.run(log_in(daemon, kitchen, "command-center", kitchen["api_key"]))
    assert asyncio.run(log_in(daemon, kitchen, kitchen["node_id"], kitchen["api_key"])) == "connected"
    assert kitchen["api_key"] not in daemon.output()


def test_an_answer_completes_the_command_that_asked(daemon):
    node = register_node(daemon)
    url = daemon.url("command-center") + COMMAND

    def answer(words: str) -> httpx.Response:
        return httpx.post(url, params={"follow_up": "true"}, json={"text": words}, headers=node_headers(node))

    asked = say(daemon, node, "set a timer").json()
    assert asked["result"]["wait_for_input"] is True
    told = answer("Five minutes.").json()
    assert (told["command"], told["routed_by"], told["text"]) == ("set_timer", "follow_up", "Timer set for 5 minutes.")

    say(daemon, node, "start a timer")
    told = answer("for ten minutes, please").json()  # read together with the question: a whole sentence
    assert (told["routed_by"], told["text"]) == ("follow_up", "Timer set for 10 minutes.")

    say(daemon, node, "set a timer")  # a question left open...
    assert say(daemon, node, "stop").json()["command"] == "stop"  # ...is dropped by the next command
    late = answer("ten minutes").json()
    assert (late["routed_by"], late["understood"]) == ("none", False)  # no question open, no model: not a timer

    bad = httpx.post(url, params={"follow_up": "perhaps"}, json={"text": "ten minutes"}, headers=node_headers(node))
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "invalid_query")

    say(daemon, node, "set a timer")
    unsure = answer("banana").json()  # an answer that does not fit is said back, not guessed
    assert unsure["command"] == "set_timer" and unsure["result"]["success"] is False

