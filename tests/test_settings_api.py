"""Each service's own settings API through `voxd serve` (docs/architecture.md, Settings): the list,
a stored change used at once (the log levels, the fast path, the language-model backend), a locked
value, a secret never echoed or kept in plain text, bad values, other callers refused, a stored
change surviving a restart, and DELETE back to the default."""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import uuid

import httpx
import pytest

from conftest import Daemon, app_headers, free_port_offset, node_headers, register_node
import semantic_pool
from test_console_log import wait_until
from voxd.catalog import CATALOG

SERVICES = ["config", "auth", "logs", "command-center", "stt", "llm"]
ROUTE = "/internal/settings"


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    """One daemon for the module: VOXD_STT_BEAM_SIZE from the environment (locked), VOXD_STT_THREADS
    and VOXD_SEMANTIC=false from voxd.env, and no VOXD_LLM_BACKEND, so the API can change them."""
    home = tmp_path_factory.mktemp("voxd-home")
    (home / "voxd.env").write_text("VOXD_STT_THREADS=1\nVOXD_SEMANTIC=false\n")
    semantic_pool.seed(home)  # a test turns the stage on: the suite's model and router caches
    daemon = Daemon(home, free_port_offset(), SERVICES,
                    extra_env={"VOXD_STT_BEAM_SIZE": "2", "VOXD_LLM_BACKEND": None, "VOXD_SEMANTIC": None})
    daemon.start()
    yield daemon
    assert daemon.stop() == 0, daemon.output()
    semantic_pool.harvest(home)


def hub(daemon: Daemon) -> dict[str, str]:
    """The settings service's app credentials: the only caller these routes take."""
    return app_headers(daemon, "settings")


def listed(daemon: Daemon, service: str) -> dict[str, dict]:
    answer = httpx.get(daemon.url(service) + ROUTE, headers=hub(daemon))
    assert answer.status_code == 200, answer.text
    assert answer.json()["service"] == service
    return {entry["key"]: entry for entry in answer.json()["settings"]}


def put(daemon: Daemon, service: str, short: str, value, changed_by: str | None = "admin key") -> httpx.Response:
    return httpx.put(f"{daemon.url(service)}{ROUTE}/{short}", headers=hub(daemon),
                     json={"value": value, "changed_by": changed_by})


def delete(daemon: Daemon, service: str, short: str) -> httpx.Response:
    return httpx.request("DELETE", f"{daemon.url(service)}{ROUTE}/{short}", headers=hub(daemon),
                         json={"changed_by": "admin key"})


def test_each_service_lists_its_own_settings_and_the_kits_per_service_ones(running):
    stt = listed(running, "stt")
    threshold = stt["stt.speaker_threshold"]
    assert threshold == {
        "key": "stt.speaker_threshold", "name": "VOXD_SPEAKER_THRESHOLD", "value": 0.86, "type": "number",
        "default": 0.86, "minimum": 0.001, "maximum": 0.999, "description": threshold["description"],
        "secret": False, "is_set": True, "source": "default", "locked": False, "restart_required": False,
        "pending_restart": False}
    assert {"stt.log_level", "stt.log_ship_level", "stt.credential_cache_ttl", "stt.discovery_ttl"} <= set(stt)
    assert stt["stt.log_level"]["choices"] == ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
    assert stt["stt.stt_threads"]["source"] == "voxd.env" and stt["stt.stt_threads"]["value"] == 1
    assert (stt["stt.stt_beam_size"]["source"], stt["stt.stt_beam_size"]["locked"]) == ("environment", True)
    assert not any(key.startswith("stt.llm") for key in stt)  # only its own
    assert "stt.port_offset" not in stt and "stt.admin_api_key" not in stt  # the daemon's are not here
    command_center = listed(running, "command-center")
    assert command_center["command-center.fast_path"]["restart_required"] is False
    assert command_center["command-center.semantic_threshold"]["type"] == "number"
    assert listed(running, "llm")["llm.llm_timeout"]["type"] == "duration"


def test_a_locked_value_cannot_be_changed(running):
    answer = put(running, "stt", "stt_beam_size", 3)
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "setting_locked"
    assert "environment" in answer.json()["error"]["message"]
    assert listed(running, "stt")["stt.stt_beam_size"]["value"] == 2


@pytest.mark.parametrize("service, short, value, says", [
    ("stt", "speaker_threshold", 1.5, "between 0.001 and 0.999"),
    ("stt", "speaker_threshold", "high", "a number"),
    ("stt", "speaker_threshold", [0.5], "a number"),
    ("stt", "speaker_threshold", "", "DELETE"),
    ("stt", "speaker_threshold", None, "DELETE"),
    ("stt", "log_level", "LOUD", "DEBUG, INFO"),
    ("command-center", "fast_path", "maybe", "true or false"),
    ("llm", "llm_timeout", "soon", "a number of seconds"),
])
def test_a_wrong_type_or_range_is_a_400_saying_what_is_allowed(running, service, short, value, says):
    answer = put(running, service, short, value)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == "invalid_setting" and says in answer.json()["error"]["message"]


def test_an_unknown_setting_is_a_404(running):
    for method in ("PUT", "DELETE"):
        answer = httpx.request(method, running.url("stt") + ROUTE + "/port_offset", headers=hub(running),
                               json={"value": 1})
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "unknown_setting"


def test_only_the_settings_service_may_call(running):
    node = register_node(running)
    admin = {"X-Admin-Key": running.admin_key}
    for headers in ({}, admin, node_headers(node), app_headers(running, "command-center")):
        assert httpx.get(running.url("stt") + ROUTE, headers=headers).status_code in (401, 403)
        refused = httpx.put(running.url("stt") + ROUTE + "/speaker_threshold", headers=headers, json={"value": 0.5})
        assert refused.status_code in (401, 403), refused.text
    assert listed(running, "stt")["stt.speaker_threshold"]["value"] == 0.86


def test_a_stored_change_says_who_and_when_and_delete_goes_back_to_the_default(running):
    changed = put(running, "stt", "speaker_threshold", "0.9", changed_by="user-1")
    assert changed.status_code == 200, changed.text
    view = changed.json()
    assert (view["value"], view["source"], view["changed_by"]) == (0.9, "override", "user-1")
    assert view["changed_at"].endswith("Z") and view["pending_restart"] is False  # live: in use at once
    assert listed(running, "stt")["stt.speaker_threshold"]["value"] == 0.9
    back = delete(running, "stt", "speaker_threshold")
    assert back.status_code == 200
    assert (back.json()["value"], back.json()["source"]) == (0.86, "default")
    assert "changed_by" not in back.json()


def test_concurrent_changes_are_all_kept(running):
    changes = {"speaker_threshold": 0.91, "stt_max_seconds": 20, "credential_cache_ttl": 45,
               "discovery_ttl": 200, "body_timeout": 25, "idle_timeout": 60}

    async def store_all() -> list[int]:
        async with httpx.AsyncClient(headers=hub(running)) as client:
            answers = await asyncio.gather(*(
                client.put(f"{running.url('stt')}{ROUTE}/{short}", json={"value": value, "changed_by": short})
                for short, value in changes.items()))
        return [answer.status_code for answer in answers]

    assert asyncio.run(store_all()) == [200] * len(changes)
    now = listed(running, "stt")
    assert {short: now[f"stt.{short}"]["value"] for short in changes} == changes
    assert all(now[f"stt.{short}"]["changed_by"] == short for short in changes)
    for short in changes:
        assert delete(running, "stt", short).json()["source"] != "override"


def shipped(daemon: Daemon, marker: str) -> list[dict]:
    answer = httpx.get(daemon.url("logs") + "/api/v0/logs", headers={"X-Admin-Key": daemon.admin_key},
                       params={"service": "stt", "search": marker})
    assert answer.status_code == 200, answer.text
    return answer.json()["logs"]


def test_the_ship_level_changes_what_reaches_the_logs_service_at_once(running):
    """stt's request lines are INFO: at WARNING they stop reaching the logs service, at once."""
    quiet, loud = f"quiet{uuid.uuid4().hex}", f"loud{uuid.uuid4().hex}"
    assert put(running, "stt", "log_ship_level", "WARNING").status_code == 200
    httpx.get(running.url("stt") + f"/{quiet}")  # a 404, whose request line stt logs at INFO
    assert delete(running, "stt", "log_ship_level").json()["value"] == "INFO"
    httpx.get(running.url("stt") + f"/{loud}")
    assert wait_until(lambda: shipped(running, loud))  # shipped in order: the quiet one would be in by now
    assert shipped(running, quiet) == []


def test_the_console_level_is_each_services_own(running):
    """At DEBUG the console shows a service's request lines; only that service's."""
    before, after = f"before{uuid.uuid4().hex}", f"after{uuid.uuid4().hex}"
    httpx.get(running.url("stt") + f"/{before}")
    assert put(running, "stt", "log_level", "debug").json()["value"] == "DEBUG"
    httpx.get(running.url("stt") + f"/{after}")
    httpx.get(running.url("llm") + f"/{after}-llm")
    assert wait_until(lambda: f"/{after} -> 404" in running.output())
    assert f"/{before}" not in running.output() and f"/{after}-llm" not in running.output()
    delete(running, "stt", "log_level")


def test_the_fast_path_can_be_switched_off_and_on_at_once(running):
    node = register_node(running)
    words = "set a timer for two minutes"
    say = lambda: httpx.post(running.url("command-center") + "/api/v0/command", json={"text": words},  # noqa: E731
                             headers=node_headers(node), timeout=30)
    assert say().json()["routed_by"] == "pre_route"
    assert put(running, "command-center", "fast_path", False).json()["value"] is False
    unrouted = say()  # no template stage now, and no semantic stage or model in this daemon
    assert unrouted.status_code == 200, unrouted.text  # not understood is an answer (issue 23 §5)
    assert unrouted.json()["routed_by"] == "none" and unrouted.json()["understood"] is False
    delete(running, "command-center", "fast_path")
    assert say().json()["routed_by"] == "pre_route"


def test_the_next_model_request_uses_the_new_backend_and_model(running):
    models = lambda: httpx.get(running.url("llm") + "/v1/models",  # noqa: E731
                               headers=app_headers(running, "command-center")).json()["data"]
    assert models() == []  # no backend
    assert put(running, "llm", "llm_url", "http://127.0.0.1:9/v1").status_code == 200
    assert put(running, "llm", "llm_model", "tiny-chat").status_code == 200  # not a whole yet: kept, unused
    assert models() == []
    backend = put(running, "llm", "llm_backend", "openai")
    assert backend.status_code == 200 and backend.json()["restart_required"] is False
    assert [(m["id"], m["owned_by"]) for m in models()] == [("tiny-chat", "voxd-openai")]
    # The command center, whose own settings say no model, asks the proxy again within seconds.
    node = register_node(running)
    said = lambda: httpx.post(running.url("command-center") + "/api/v0/command", headers=node_headers(node),  # noqa: E731
                              json={"text": "purple elephants juggle quietly"}, timeout=30)
    # It asked the openai backend, which is not there: a configured model that does not answer is a 503.
    assert wait_until(lambda: said().status_code == 503)
    assert said().json()["error"]["code"] == "llm_unavailable"
    assert put(running, "llm", "llm_model", "other-chat").status_code == 200
    assert [m["id"] for m in models()] == ["other-chat"]
    for short in ("llm_backend", "llm_model", "llm_url"):
        delete(running, "llm", short)
    assert models() == []
    # No model again: an utterance nothing understood is an answer, not an outage (issue 23 §5).
    assert wait_until(lambda: said().status_code == 200)
    assert said().json()["understood"] is False


def test_a_secret_is_sealed_and_never_answered(running):
    secret = f"sk-{uuid.uuid4().hex}"
    stored = put(running, "llm", "llm_api_key", secret)
    assert stored.status_code == 200, stored.text
    assert (stored.json()["value"], stored.json()["is_set"], stored.json()["secret"]) == (None, True, True)
    assert secret not in stored.text
    listing = httpx.get(running.url("llm") + ROUTE, headers=hub(running))
    assert secret not in listing.text
    assert {e["key"]: e for e in listing.json()["settings"]}["llm.llm_api_key"]["source"] == "override"
    database = running.home / "data" / "llm.db"
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        (value, sealed), = db.execute("SELECT value, sealed FROM settings_overrides WHERE key = 'VOXD_LLM_API_KEY'")
    db.close()
    assert sealed == 1 and secret not in value
    assert secret.encode() not in b"".join(p.read_bytes() for p in database.parent.glob("llm.db*"))
    assert database.stat().st_mode & 0o777 == 0o600
    password = f"pw-{uuid.uuid4().hex}"  # a URL's password is kept out of the logs too
    assert put(running, "logs", "log_store_url", f"http://loki:{password}@127.0.0.1:9/").status_code == 200
    assert wait_until(lambda: "LOG_STORE_URL set to http://loki:" in running.output())
    assert secret not in running.output() and password not in running.output()
    delete(running, "logs", "log_store_url")


def test_a_stored_change_survives_a_restart_and_a_restart_needed_one_waits_for_it(running):
    ttl = put(running, "stt", "discovery_ttl", "2m")
    assert ttl.status_code == 200
    assert (ttl.json()["value"], ttl.json()["restart_required"], ttl.json()["pending_restart"]) == (120.0, True, True)
    assert put(running, "stt", "speaker_threshold", 0.9).status_code == 200
    assert put(running, "stt", "header_timeout", 0.5).json()["pending_restart"] is True
    assert running.stop() == 0
    running.start()
    with socket.create_connection(("127.0.0.1", CATALOG["stt"].port + running.offset), timeout=5) as silent:
        assert silent.recv(1024) == b""  # closed for sending no headers within its own 0.5 s, not the 10 s default
    delete(running, "stt", "header_timeout")
    after = listed(running, "stt")
    assert (after["stt.discovery_ttl"]["value"], after["stt.discovery_ttl"]["source"]) == (120.0, "override")
    assert after["stt.discovery_ttl"]["pending_restart"] is False  # in use since the restart
    assert after["stt.speaker_threshold"]["value"] == 0.9
    assert after["stt.discovery_ttl"]["changed_by"] == "admin key"
    assert listed(running, "llm")["llm.llm_api_key"]["is_set"] is True  # the sealed one opens again
    back = delete(running, "stt", "discovery_ttl")
    assert (back.json()["value"], back.json()["source"], back.json()["pending_restart"]) == (300.0, "default", True)


@pytest.mark.slow
def test_the_semantic_stage_and_its_threshold_apply_at_once(running):
    """Switched on, the stage is built in the background (a command waits for it); its threshold
    and the stage itself then change what the next utterance is routed by."""
    node = register_node(running)
    words = "could you get a countdown going that lasts ninety seconds"  # no template claims it
    say = lambda: httpx.post(running.url("command-center") + "/api/v0/command", json={"text": words},  # noqa: E731
                             headers=node_headers(node), timeout=300)
    unclaimed = lambda: say().json()["routed_by"] == "none"  # noqa: E731 - no model: not understood
    assert unclaimed()  # off: on to the model, and there is none
    assert put(running, "command-center", "semantic", True).json()["value"] is True
    routed = say()
    assert (routed.status_code, routed.json()["routed_by"], routed.json()["command"]) == (200, "semantic", "set_timer")
    assert put(running, "command-center", "semantic_threshold", 0.99).status_code == 200
    assert unclaimed()  # no example is that near
    delete(running, "command-center", "semantic_threshold")
    assert say().json()["routed_by"] == "semantic"
    assert put(running, "command-center", "semantic", False).status_code == 200
    assert unclaimed()
    delete(running, "command-center", "semantic")
