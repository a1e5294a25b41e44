"""The embedded broker's rules beyond topics (issue 11, items 1 and 2), with the real daemon: a node's
Last Will passes the same topic rules as its publishes, nobody leaves retained messages, and a
client id belongs to the node that logged in, so neither a client without credentials nor another
node can cut a node off or wipe what is queued for it. Last, what the mosquitto setup that
docs/nodes.md documents does about the same attacks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import aiomqtt
import httpx
import pytest
from conftest import Daemon, app_headers, free_port_offset, register_node
from mosquitto import Mosquitto
from mqtt_raw import (ACCEPTED, IDENTIFIER_REJECTED, NOT_AUTHORIZED, Will, connect_code, publish_packet,
                      raw_connect)
from test_announcements import SPEAKING_SERVICES, broker_address, node_client_id

HEARING_SECONDS = 20  # generous: how long a node waits for an announcement that must come


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """One daemon for the module; every test registers its own nodes in their own households."""
    instance = Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(), SPEAKING_SERVICES).start()
    yield instance
    instance.stop()


def subtree(node: dict) -> str:
    return f"voxd/nodes/{node['node_id']}/"


def as_node(daemon: Daemon, node: dict, clean_session: bool = True) -> aiomqtt.Client:
    host, port = broker_address(daemon, node)
    return aiomqtt.Client(host, port, username=node["node_id"], password=node["api_key"],
                          identifier=node_client_id(node), clean_session=clean_session)


def announce(daemon: Daemon, node: dict, text: str) -> None:
    answer = httpx.post(daemon.url("command-center") + f"/api/v0/nodes/{node['node_id']}/announce",
                        json={"text": text}, headers={"X-Admin-Key": daemon.admin_key})
    assert answer.status_code == 202, answer.text


async def heard_until(client: aiomqtt.Client, text: str) -> list[str]:
    """Every message the client gets until an announcement saying `text` (the texts, or the raw
    payloads of anything else); what arrived so far when it never comes."""
    heard: list[str] = []
    try:
        async with asyncio.timeout(HEARING_SECONDS):
            async for message in client.messages:
                try:
                    heard.append(json.loads(message.payload)["text"])
                except (ValueError, KeyError, TypeError):
                    heard.append(message.payload.decode(errors="replace"))
                if heard[-1] == text:
                    break
    except TimeoutError:
        pass
    return heard


async def announced(daemon: Daemon, client: aiomqtt.Client, node: dict, text: str) -> list[str]:
    """Announce `text` to the node and answer what its client heard up to it: anything a rule
    should have stopped would have come by then."""
    await asyncio.sleep(0.5)  # the broker has handled what the test did just before
    await asyncio.to_thread(announce, daemon, node, text)
    return await heard_until(client, text)


def test_a_nodes_will_on_another_nodes_topic_is_refused_and_never_delivered_or_retained(daemon):
    attic, bedroom = register_node(daemon, room="attic"), register_node(daemon, room="bedroom")  # two households
    host, port = broker_address(daemon, attic)
    forged = json.dumps({"id": "forged", "kind": "notification", "text": "Open the front door.", "audio": None})

    async def attack() -> tuple[list[int], list[str], list[str]]:
        codes = []
        async with as_node(daemon, bedroom) as bedroom_client:
            await bedroom_client.subscribe(subtree(bedroom) + "#", qos=1)
            for retain in (True, False):
                will = Will(subtree(bedroom) + "announce", forged.encode(), retain=retain)
                attacker = await raw_connect(host, port, node_client_id(attic), attic["node_id"], attic["api_key"],
                                             will)
                codes.append(attacker.code)
                await attacker.drop()  # no DISCONNECT: a broker that took the will publishes it now
            heard = await announced(daemon, bedroom_client, bedroom, "Goodnight.")
        async with as_node(daemon, bedroom) as later:  # a retained will would be replayed on subscribing
            await later.subscribe(subtree(bedroom) + "#", qos=1)
            heard_later = await announced(daemon, later, bedroom, "Good morning.")
        return codes, heard, heard_later

    codes, heard, heard_later = asyncio.run(attack())
    assert codes == [NOT_AUTHORIZED, NOT_AUTHORIZED]
    assert heard == ["Goodnight."]
    assert heard_later == ["Good morning."]

    def will_on_own_subtree(retain: bool, topic: str = "status") -> int:
        will = Will(subtree(attic) + topic, b"gone", retain=retain)
        return asyncio.run(connect_code(host, port, node_client_id(attic), attic["node_id"], attic["api_key"], will))

    assert will_on_own_subtree(retain=False) == ACCEPTED
    assert will_on_own_subtree(retain=True) == NOT_AUTHORIZED  # nobody leaves retained messages
    assert will_on_own_subtree(retain=False, topic="#") == NOT_AUTHORIZED  # a will names a topic, not a filter


def test_a_nodes_publish_on_another_nodes_topic_never_reaches_it(daemon):
    """A plain publish passes the same topic rule as a subscription: a node (another household's)
    cannot put a forged announcement in another node's mouth."""
    attic, bedroom = register_node(daemon, room="attic"), register_node(daemon, room="bedroom")  # two households
    forged = json.dumps({"id": "forged", "kind": "notification", "text": "Open the front door.", "audio": None})

    async def attack() -> list[str]:
        async with as_node(daemon, bedroom) as bedroom_client:
            await bedroom_client.subscribe(subtree(bedroom) + "#", qos=1)
            async with as_node(daemon, attic) as attacker:
                for qos in (0, 1):
                    await attacker.publish(subtree(bedroom) + "announce", forged.encode(), qos=qos)
            return await announced(daemon, bedroom_client, bedroom, "Goodnight.")

    assert asyncio.run(attack()) == ["Goodnight."]


def test_only_the_command_centers_app_key_opens_the_broker(daemon):
    """Every node's topics are open to the command center's login alone: another service's valid
    app key is refused like a wrong key."""
    host, port = broker_address(daemon, register_node(daemon, room="office"))

    def code(service: str) -> int:
        key = app_headers(daemon, service)["X-Service-App-Key"]
        return asyncio.run(connect_code(host, port, f"voxd-command-center-{service}", service, key))

    assert [code(service) for service in ("tts", "recipes", "logs")] == [NOT_AUTHORIZED] * 3
    assert code("command-center") == ACCEPTED


def test_a_retained_publish_by_a_node_is_dropped_and_never_stored(daemon):
    node = register_node(daemon, room="study")
    topic = subtree(node) + "status"

    async def publish_retained() -> tuple[list[str], list[str]]:
        async with as_node(daemon, node) as client:
            await client.subscribe(subtree(node) + "#", qos=1)
            await client.publish(topic, b"retained", qos=1, retain=True)
            await client.publish(topic, b"plain", qos=1)  # the connection stays; plain publishes still go
            heard = await heard_until(client, "plain")
        async with as_node(daemon, node) as later:
            await later.subscribe(subtree(node) + "#", qos=1)
            heard_later = await announced(daemon, later, node, "Nothing was kept.")
        return heard, heard_later

    heard, heard_later = asyncio.run(publish_retained())
    assert heard == ["plain"]
    assert heard_later == ["Nothing was kept."]


def test_a_client_without_credentials_using_a_nodes_client_id_does_not_cut_it_off(daemon):
    node = register_node(daemon, room="hall")
    host, port = broker_address(daemon, node)

    async def impersonate() -> tuple[list[int], list[str]]:
        async with as_node(daemon, node) as client:
            await client.subscribe(subtree(node) + "#", qos=1)
            codes = [await connect_code(host, port, node_client_id(node), clean=clean) for clean in (True, False)]
            codes.append(await connect_code(host, port, node_client_id(node), node["node_id"], "not-its-key"))
            heard = await announced(daemon, client, node, "Still here.")
        return codes, heard

    codes, heard = asyncio.run(impersonate())
    assert codes == [NOT_AUTHORIZED] * 3
    assert heard == ["Still here."]  # before the fix amqtt had dropped its subscription: nothing arrived


def test_a_node_may_only_use_its_own_client_id_and_another_node_cannot_wipe_its_queue(daemon):
    den, porch = register_node(daemon, room="den"), register_node(daemon, room="porch")
    host, port = broker_address(daemon, den)
    app_key = app_headers(daemon, "command-center")["X-Service-App-Key"]

    async def take_over() -> tuple[list[int], list[str]]:
        async with as_node(daemon, den, clean_session=False) as client:  # as the node agent does
            await client.subscribe(subtree(den) + "#", qos=1)
        await asyncio.to_thread(announce, daemon, den, "While you were out.")  # queued for the den
        codes = [await connect_code(host, port, client_id, porch["node_id"], porch["api_key"], clean=clean)
                 for client_id, clean in [(node_client_id(den), True), (node_client_id(den), False),
                                          ("voxd-command-center-porch", True), ("porch-pi", True)]]
        codes.append(await connect_code(host, port, node_client_id(den), "command-center", app_key))  # bound too
        async with as_node(daemon, den, clean_session=False) as client:  # its session kept the subscription
            heard = await heard_until(client, "While you were out.")
            heard += await announced(daemon, client, den, "Welcome back.")
        return codes, heard

    codes, heard = asyncio.run(take_over())
    assert codes == [IDENTIFIER_REJECTED] * 5
    assert heard == ["While you were out.", "Welcome back."]
    assert asyncio.run(connect_code(host, port, node_client_id(porch), porch["node_id"], porch["api_key"])) == ACCEPTED


def test_the_documented_mosquitto_setup_binds_client_ids_and_keeps_wills_and_retained_messages_out(tmp_path):
    mosquitto = Mosquitto(tmp_path)
    for name in ("a", "b"):
        mosquitto.add_user(f"node-{name}", f"key-{name}")
    a, b = ({"node_id": f"node-{name}", "api_key": f"key-{name}"} for name in ("a", "b"))
    host, port = "127.0.0.1", mosquitto.port

    def as_mosquitto_node(node: dict) -> aiomqtt.Client:
        return aiomqtt.Client(host, port, username=node["node_id"], password=node["api_key"],
                              identifier=node_client_id(node))

    async def said(client: aiomqtt.Client, node: dict, text: str) -> list[str]:
        await asyncio.sleep(0.5)
        payload = json.dumps({"id": "x", "kind": "notification", "text": text, "audio": None}).encode()
        await asyncio.to_thread(mosquitto.publish, subtree(node) + "announce", payload)  # as the command center
        return await heard_until(client, text)

    async def attack() -> tuple[list[int], list[bool], list[str], list[str]]:
        async with as_mosquitto_node(b) as b_client:
            await b_client.subscribe(subtree(b) + "#", qos=1)
            codes = [await connect_code(host, port, node_client_id(b), a["node_id"], a["api_key"]),  # renamed "node-a"
                     await connect_code(host, port, node_client_id(b))]
            will = await raw_connect(host, port, node_client_id(a), a["node_id"], a["api_key"],
                                     Will(subtree(b) + "announce", b"forged"))
            codes.append(will.code)  # accepted: mosquitto checks the ACL when it sends the will...
            await will.drop()
            heard = await said(b_client, b, "Still here.")  # ...so nothing reached b, and b was not cut off
        retained_will = await raw_connect(host, port, node_client_id(a), a["node_id"], a["api_key"],
                                          Will(subtree(a) + "status", b"gone", retain=True))
        retained_publish = await raw_connect(host, port, node_client_id(a), a["node_id"], a["api_key"])
        retained_publish.writer.write(publish_packet(subtree(a) + "status", b"kept?", retain=True))
        closed = [retained_will.code != ACCEPTED, await retained_publish.closed_by_broker()]
        async with as_mosquitto_node(a) as later:
            await later.subscribe(subtree(a) + "#", qos=1)
            heard_later = await said(later, a, "Nothing was kept.")
        return codes, closed, heard, heard_later

    mosquitto.start()
    try:
        codes, closed, heard, heard_later = asyncio.run(attack())
    finally:
        mosquitto.stop()
    assert codes == [ACCEPTED, NOT_AUTHORIZED, ACCEPTED]
    assert closed == [True, True]  # retain_available false: a retained will or publish ends the connection
    assert heard == ["Still here."]
    assert heard_later == ["Nothing was kept."]
