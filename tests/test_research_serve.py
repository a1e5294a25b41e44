"""Deep research through `voxd serve` (issue 21 §6): a known speaker's request lands in their inbox
with numbered sources, read by the real extraction service from pages a SearXNG-shaped site on
loopback serves, written by the language model (a scripted one behind the real proxy) or, when it
gives nothing, as the best passages, and delivered by the real notifications service; a job caught
by a restart is taken up again; with the notifications service down the command says so, starts
nothing, and other commands work. The speech services are a stand-in that names the speaker
(tests/speech_stand_in.py)."""

from __future__ import annotations

import json
import sqlite3
import time

import httpx
import pytest

from conftest import Daemon, free_port_offset, household_member, register_node
from scripted_llm import ScriptedModel, text
from search_site import SearchSite
from speech_stand_in import SpeechStandIn, silence_wav
from test_research import KETTLE, LIMESCALE
from voxd.commands.builtin.knowledge.research import UNDELIVERABLE, UNKNOWN_ASKER
from voxd.commands.research.report import INSTRUCTIONS

SERVICES = ["config", "auth", "logs", "extract", "command-center", "notifications"]
KETTLE_REPORT = "Fill the kettle with equal parts water and white vinegar and let it stand [1]; citric acid works too [1]."
DEADLINE = 60.0  # seconds a delivery may take on a busy test machine (a hang, not a speed check)


@pytest.fixture(scope="module")
def site():
    with SearchSite() as server:
        server.page("/descale", "How to descale a kettle", KETTLE, "Vinegar or citric acid.")
        server.page("/limescale", "Limescale explained", LIMESCALE, "Hard water.")
        yield server


@pytest.fixture(scope="module")
def speech():
    with SpeechStandIn() as stand_in:
        yield stand_in


def research_daemon(tmp_path_factory, site: SearchSite, speech: SpeechStandIn, services: list[str],
                    **env: str) -> Daemon:
    env = {"VOXD_SEARCH_URL": site.url, "VOXD_EXTRACT_ALLOW_PRIVATE": "true", **speech.environment, **env}
    return Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(), services, extra_env=env).start()


def writer(request: dict) -> dict:
    """The model: a report on descaling kettles; an empty answer to anything else (then the report
    is the passages)."""
    system, question = request["messages"][0]["content"], request["messages"][-1]["content"]
    return text(KETTLE_REPORT if system == INSTRUCTIONS and question.startswith("Question: the best way to descale")
                else "")


@pytest.fixture(scope="module")
def model():
    scripted = ScriptedModel(respond=writer)
    yield scripted
    scripted.close()


@pytest.fixture(scope="module")
def daemon(tmp_path_factory, site, speech, model):
    started = research_daemon(tmp_path_factory, site, speech, [*SERVICES, "llm"], VOXD_LLM_BACKEND="openai",
                              VOXD_LLM_URL=model.url, VOXD_LLM_MODEL="scripted")
    yield started
    assert started.stop() == 0, started.output()


def asker(daemon: Daemon) -> tuple[dict, dict]:
    """A node in a new household and a member of it, with their `user_id`."""
    member = household_member(daemon)
    me = httpx.get(daemon.url("auth") + "/auth/me", headers=member["headers"]).json()
    node = register_node(daemon, household={"household_id": member["household_id"]})
    return node, {**member, "user_id": me["user_id"]}


def said_aloud(daemon: Daemon, node: dict) -> httpx.Response:
    """The node sends a recording; the stand-in hears what the test set."""
    return httpx.post(daemon.url("command-center") + "/api/v0/command", content=silence_wav(), timeout=30,
                      headers={"X-API-Key": f"{node['node_id']}:{node['api_key']}", "Content-Type": "audio/wav"})


def inbox_of(daemon: Daemon, member: dict) -> list[dict]:
    answer = httpx.get(daemon.url("notifications") + "/api/v0/inbox", headers=member["headers"],
                       params={"category": "deep_research"})
    assert answer.status_code == 200, answer.text
    return answer.json()["items"]


def delivered(daemon: Daemon, member: dict) -> list[dict]:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if items := inbox_of(daemon, member):
            return items
        time.sleep(0.2)
    raise AssertionError(f"no research report arrived:\n{daemon.output()[-3000:]}")


def settled_jobs(daemon: Daemon) -> list[dict]:
    """The jobs still stored once a delivered job has had time to be cleared (it goes after its push)."""
    deadline = time.monotonic() + DEADLINE
    while (jobs := stored_jobs(daemon)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return jobs


def stored_jobs(daemon: Daemon) -> list[dict]:
    with sqlite3.connect(daemon.home / "data" / "command-center.db") as db:
        rows = db.execute("SELECT value FROM command_documents WHERE command = 'deep_research'").fetchall()
    return [job for (value,) in rows for job in json.loads(value)]


def test_a_known_speakers_research_lands_in_their_inbox_with_numbered_sources(daemon, site, speech, model):
    node, kim = asker(daemon)
    speech.hear("Research the best way to descale a kettle.", kim["user_id"])
    answer = said_aloud(daemon, node)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["command"] == "deep_research" and body["speaker"]["user_id"] == kim["user_id"]
    assert body["text"] == "I'll look into the best way to descale a kettle and send it to your inbox."

    [item] = delivered(daemon, kim)
    assert item["title"] == "Research: The best way to descale a kettle"
    assert item["body"] == (f"{KETTLE_REPORT}\n\nSources:\n[1] How to descale a kettle - {site.url}/descale\n"
                            f"[2] Limescale explained - {site.url}/limescale")
    [asked] = [request for request in model.requests if request["messages"][0]["content"] == INSTRUCTIONS]
    material = asked["messages"][-1]["content"]  # the passages on the topic, best first; not the newsletter
    assert f"[1] How to descale a kettle ({site.url}/descale)" in material
    assert material.index(KETTLE[1]) < material.index(KETTLE[0]) and KETTLE[3] not in material
    assert [source["number"] for source in item["data"]["sources"]] == [1, 2]
    assert "the best way to descale a kettle" in site.queries and {"/descale", "/limescale"} <= set(site.fetched)
    sends = daemon.url("notifications") + "/api/v0/notifications"
    listed = httpx.get(sends, headers=kim["headers"]).json()["notifications"]
    [push] = [send for send in listed if send["category"] == "deep_research"]  # one push, pointing at the item
    push = httpx.get(f"{sends}/{push['id']}", headers=kim["headers"]).json()
    assert push["data"]["inbox_item_id"] == item["id"] and push["inbox"] is False
    assert settled_jobs(daemon) == []


def test_an_unknown_voice_is_asked_who_it_is_and_starts_nothing(daemon, speech):
    node, _ = asker(daemon)
    speech.hear("look into heat pumps for me", None)
    answer = said_aloud(daemon, node)
    assert answer.status_code == 200, answer.text
    assert answer.json()["text"] == UNKNOWN_ASKER and stored_jobs(daemon) == []


def test_a_job_caught_by_a_restart_is_taken_up_again(daemon, site, speech):
    node, sam = asker(daemon)
    site.hold()  # the search answers only after the restart
    speech.hear("could you look into heat pumps for old houses", sam["user_id"])
    assert said_aloud(daemon, node).json()["command"] == "deep_research"
    assert site.searched.wait(DEADLINE)
    assert daemon.stop() == 0, daemon.output()
    assert [job["topic"] for job in stored_jobs(daemon)] == ["heat pumps for old houses"]
    site.release()
    daemon.start()
    [item] = delivered(daemon, sam)  # the model wrote nothing: the best passages, with their links
    assert item["title"] == "Research: Heat pumps for old houses" and item["data"]["written_by"] == "passages"
    assert f"[1] How to descale a kettle\n{site.url}/descale\n- Vinegar or citric acid." in item["body"]
    assert settled_jobs(daemon) == []


def test_with_the_notifications_service_down_research_is_refused_and_the_rest_works(tmp_path_factory, site, speech):
    without = research_daemon(tmp_path_factory, site, speech, [s for s in SERVICES if s != "notifications"])
    try:
        node = register_node(without)
        speech.hear("research heat pumps", "someone")
        refused = said_aloud(without, node)
        assert refused.status_code == 200, refused.text
        assert refused.json()["text"] == UNDELIVERABLE and stored_jobs(without) == []
        speech.hear("what's 6 times 7", None)
        assert "42" in said_aloud(without, node).json()["text"]
    finally:
        assert without.stop() == 0, without.output()
