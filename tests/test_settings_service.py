"""The settings service (issue 22 §3) through `voxd serve`: every service's settings in one list while
some services are not running, changes passed to the owning service and used by it at once, locked
and secret settings, who may ask, and a change that outlives both a restart and the settings
service itself."""

from __future__ import annotations

import shutil
import time
import uuid

import httpx
import pytest

from conftest import household_member, run_voxd
from daemons import serving

RUNNING = ["config", "auth", "logs", "recipes", "llm", "settings"]
SECRET = "sk-never-shown-" + uuid.uuid4().hex


@pytest.fixture(scope="module")
def voxd(tmp_path_factory):
    # VOXD_CREDENTIAL_CACHE_TTL in the environment locks it on every service.
    with serving(tmp_path_factory, RUNNING, VOXD_CREDENTIAL_CACHE_TTL="30") as daemon:
        yield daemon


@pytest.fixture(scope="module")
def admin(voxd) -> dict[str, str]:
    return {"X-Admin-Key": voxd.admin_key}


def settings_api(voxd, method: str, path: str = "", headers=None, **kwargs) -> httpx.Response:
    return httpx.request(method, voxd.url("settings") + "/api/v0/settings" + path, headers=headers or {},
                         timeout=30, **kwargs)


def by_service(listing: dict) -> dict[str, dict]:
    return {entry["service"]: entry for entry in listing["services"]}


def test_the_list_has_every_running_service_and_marks_the_others_unreachable(voxd, admin):
    answer = settings_api(voxd, "GET", headers=admin)
    assert answer.status_code == 200, answer.text
    services = by_service(answer.json())
    for name in RUNNING:
        assert services[name]["reachable"] is True, services[name]
        keys = {view["key"] for view in services[name]["settings"]}
        assert f"{name}.log_level" in keys and f"{name}.log_ship_level" in keys
    assert "recipes.recipes_max_image_bytes" in {v["key"] for v in services["recipes"]["settings"]}
    stopped = services["command-center"]
    assert stopped["reachable"] is False and stopped["settings"] == [] and stopped["problem"]
    view = next(v for v in services["recipes"]["settings"] if v["key"] == "recipes.log_level")
    assert {"value", "type", "default", "description", "secret", "is_set", "source", "locked",
            "restart_required"} <= set(view)


def test_one_setting_and_unknown_keys(voxd, admin):
    one = settings_api(voxd, "GET", "/recipes.log_level", headers=admin)
    assert one.status_code == 200 and one.json()["key"] == "recipes.log_level"
    for key in ("recipes.no_such_setting", "weather.log_level", "nodot"):
        missing = settings_api(voxd, "GET", f"/{key}", headers=admin)
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_setting", key
        put = settings_api(voxd, "PUT", f"/{key}", headers=admin, json={"value": "INFO"})
        assert put.status_code == 404 and put.json()["error"]["code"] == "unknown_setting", key


def test_a_change_is_checked_by_its_owner_and_kept_with_who_made_it(voxd, admin):
    wrong = settings_api(voxd, "PUT", "/recipes.log_level", headers=admin, json={"value": "LOUD"})
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == "invalid_setting"
    assert "DEBUG" in wrong.json()["error"]["message"]  # says what is allowed
    changed = settings_api(voxd, "PUT", "/recipes.log_level", headers=admin, json={"value": "DEBUG"})
    assert changed.status_code == 200, changed.text
    view = changed.json()
    assert (view["value"], view["source"], view["changed_by"]) == ("DEBUG", "override", "admin key")
    member = household_member(voxd, is_admin=True)
    back = settings_api(voxd, "DELETE", "/recipes.log_level", headers=member["headers"])
    assert back.status_code == 200 and back.json()["source"] != "override"


def test_a_setting_from_the_environment_is_locked(voxd, admin):
    answer = settings_api(voxd, "PUT", "/recipes.credential_cache_ttl", headers=admin, json={"value": 5})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "setting_locked"
    shown = settings_api(voxd, "GET", "/recipes.credential_cache_ttl", headers=admin).json()
    assert shown["locked"] is True and shown["source"] == "environment" and shown["value"] == 30


def test_a_secret_is_stored_but_never_shown(voxd, admin):
    answer = settings_api(voxd, "PUT", "/llm.llm_api_key", headers=admin, json={"value": SECRET})
    assert answer.status_code == 200, answer.text
    assert answer.json()["value"] is None and answer.json()["is_set"] is True and answer.json()["secret"]
    one = settings_api(voxd, "GET", "/llm.llm_api_key", headers=admin)
    listing = settings_api(voxd, "GET", headers=admin)
    assert one.json()["value"] is None and one.json()["is_set"] is True
    for text in (answer.text, one.text, listing.text):
        assert SECRET not in text
    assert SECRET not in voxd.output()


def test_a_service_that_is_not_running_cannot_be_changed(voxd, admin):
    answer = settings_api(voxd, "PUT", "/command-center.log_level", headers=admin, json={"value": "DEBUG"})
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "service_unavailable"


def test_only_administrators_see_or_change_settings(voxd):
    assert settings_api(voxd, "GET").json()["error"]["code"] == "missing_credentials"
    user = household_member(voxd)["headers"]
    for method, path, body in (("GET", "", None), ("GET", "/recipes.log_level", None),
                               ("PUT", "/recipes.log_level", {"value": "DEBUG"}),
                               ("DELETE", "/recipes.log_level", None)):
        answer = settings_api(voxd, method, path, headers=user, json=body)
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "admin_required", (method, path)
    overview = httpx.get(voxd.url("settings") + "/api/v0/overview", headers=user)
    assert overview.status_code == 403


def test_the_page_reaches_the_settings_with_an_administrators_token(voxd):
    admin_user = household_member(voxd, is_admin=True)
    answer = httpx.get(voxd.url("settings") + "/ui-api/settings/api/v0/settings/auth.log_level",
                       headers=admin_user["headers"], timeout=30)
    assert answer.status_code == 200 and answer.json()["key"] == "auth.log_level"


def test_the_overview_says_which_services_are_up(voxd, admin):
    answer = httpx.get(voxd.url("settings") + "/api/v0/overview", headers=admin, timeout=30)
    assert answer.status_code == 200, answer.text
    states = {state["service"]: state for state in answer.json()["services"]}
    for name in RUNNING:
        assert states[name]["up"] is True and states[name]["version"], states[name]
        assert states[name]["uptime_seconds"] >= 0 and states[name]["url"] == voxd.url(name)
    assert states["command-center"]["up"] is False and states["command-center"]["url"] is None


def test_the_cli_gets_sets_and_resets_a_setting(voxd):
    changed = run_voxd(voxd.env, "settings", "set", "recipes.discovery_ttl", "2m", "--json")
    assert changed.exit_code == 0, changed.output
    assert '"value": 120.0' in changed.output and '"source": "override"' in changed.output
    shown = run_voxd(voxd.env, "settings", "get", "recipes.discovery_ttl")
    assert shown.exit_code == 0 and "120" in shown.output and "admin key" in shown.output
    reset = run_voxd(voxd.env, "settings", "reset", "recipes.discovery_ttl", "--json")
    assert reset.exit_code == 0 and '"source": "default"' in reset.output
    locked = run_voxd(voxd.env, "settings", "set", "recipes.credential_cache_ttl", "5")
    assert locked.exit_code == 1 and "environment" in locked.output


# --- a change in use at once, through a restart, and with the settings service down ---------------


def logged(host, request_id: str) -> list[dict]:
    answer = httpx.get(host.url("logs") + "/api/v0/logs", params={"request_id": request_id},
                       headers={"X-Admin-Key": host.admin_key})
    return answer.json()["logs"]


def wait_logged(host, request_id: str) -> list[dict]:
    deadline = time.monotonic() + 60
    while not (found := logged(host, request_id)):
        assert time.monotonic() < deadline, f"nothing from request {request_id} reached the logs service"
        time.sleep(0.2)
    return found


def new_household(host) -> str:
    """An INFO line in the auth service (`created household ...`), under a request id of its own."""
    request_id = uuid.uuid4().hex
    answer = httpx.post(host.url("auth") + "/households", json={"name": "Home"},
                        headers={"X-Admin-Key": host.admin_key, "X-Request-Id": request_id})
    assert answer.status_code == 201
    return request_id


def reused_refresh_token(host) -> str:
    """A WARNING line in the auth service (a spent refresh token presented again)."""
    member = household_member(host)
    refresh = host.url("auth") + "/auth/refresh"
    assert httpx.post(refresh, json={"refresh_token": member["refresh_token"]}).status_code == 200
    request_id = uuid.uuid4().hex
    again = httpx.post(refresh, json={"refresh_token": member["refresh_token"]}, headers={"X-Request-Id": request_id})
    assert again.status_code == 401
    return request_id


def settings_host(make_daemon, host):
    """The settings service alone on a second host (README, Split installs), using `host`'s config."""
    second = make_daemon(["settings"], start=False)
    second.home.mkdir(parents=True, exist_ok=True)
    shutil.copy(host.home / "voxd.env", second.home / "voxd.env")
    second.extra_env["SERVICE_CONFIG_URL"] = host.url("config")
    return second.start()


def change_ship_level(settings, method: str, body: dict | None = None) -> dict:
    answer = httpx.request(method, settings.url("settings") + "/api/v0/settings/auth.log_ship_level",
                           headers={"X-Admin-Key": settings.admin_key}, json=body, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_change_is_used_at_once_kept_without_the_settings_service_and_after_a_restart(make_daemon):
    host = make_daemon(["config", "auth", "logs"])
    settings = settings_host(make_daemon, host)
    assert logged(host, new_household(host)) or wait_logged(host, new_household(host))  # INFO reaches logs

    view = change_ship_level(settings, "PUT", {"value": "WARNING"})
    assert (view["value"], view["restart_required"]) == ("WARNING", False)
    settings.stop()  # the settings service is down: auth keeps its settings
    quiet = new_household(host)
    wait_logged(host, reused_refresh_token(host))  # a warning still reaches the logs service ...
    assert logged(host, quiet) == []  # ... an info line of before it did not

    host.stop()
    host.start()
    settings.start()
    kept = change_ship_level(settings, "GET")
    assert (kept["value"], kept["source"], kept["changed_by"]) == ("WARNING", "override", "admin key")
    quiet = new_household(host)
    wait_logged(host, reused_refresh_token(host))
    assert logged(host, quiet) == []

    assert change_ship_level(settings, "DELETE")["value"] == "INFO"
    wait_logged(host, new_household(host))  # info lines reach the logs service again


def test_the_settings_services_own_time_outs_apply_at_once(voxd, admin):
    changed = settings_api(voxd, "PUT", "/settings.settings_peer_timeout", headers=admin, json={"value": "1s"})
    assert changed.status_code == 200, changed.text
    assert (changed.json()["value"], changed.json()["restart_required"], changed.json()["pending_restart"]) == (1.0, False, False)
    assert settings_api(voxd, "GET", headers=admin).status_code == 200
    assert settings_api(voxd, "DELETE", "/settings.settings_peer_timeout", headers=admin).json()["value"] == 3.0


def test_the_cli_says_when_the_daemon_is_not_running(tmp_path):
    env = {"VOXD_HOME": str(tmp_path / "home"), "VOXD_PORT_OFFSET": "41000"}
    assert run_voxd(env, "init").exit_code == 0
    answer = run_voxd(env, "settings", "set", "recipes.log_level", "DEBUG")
    assert answer.exit_code == 1 and "the voxd daemon is not running" in answer.output
    assert run_voxd(env, "settings", "list", "--service", "settings").exit_code == 0  # offline as ever
