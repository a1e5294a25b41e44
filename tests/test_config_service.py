"""Service discovery: register, update, look up, deregister; validation; the dockerized style."""

from __future__ import annotations

import httpx

from voxd.services.config.registry import url_for_caller


def test_register_update_lookup_delete(daemon, admin, app_creds):
    url = daemon.url("config") + "/services"
    created = httpx.post(url, json={"name": "doorbell", "url": "http://10.0.0.5:8080/"}, headers=admin)
    assert created.status_code == 201
    assert created.json() == {"name": "doorbell", "url": "http://10.0.0.5:8080"}
    updated = httpx.post(url, json={"name": "doorbell", "url": "https://doorbell.home.arpa"}, headers=admin)
    assert updated.status_code == 200
    looked_up = httpx.get(url + "/doorbell", headers=app_creds)
    assert looked_up.json() == {"name": "doorbell", "url": "https://doorbell.home.arpa"}
    listed = httpx.get(url, headers=app_creds).json()["services"]
    assert {"name": "doorbell", "url": "https://doorbell.home.arpa"} in listed
    assert httpx.delete(url + "/doorbell", headers=admin).status_code == 204
    gone = httpx.get(url + "/doorbell", headers=admin)
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "service_not_found"
    assert httpx.delete(url + "/doorbell", headers=admin).status_code == 404


def test_names_and_urls_are_validated(daemon, admin):
    url = daemon.url("config") + "/services"
    for bad_url in ("not a url", "ftp://host/x", "http://", "http://host:99999", "http://host/?q=1", "/relative"):
        answer = httpx.post(url, json={"name": "x", "url": bad_url}, headers=admin)
        assert answer.status_code == 400, bad_url
        assert answer.json()["error"]["code"] == "invalid_service_url"
    for bad_name in ("", "UPPER", "has space", "x" * 64, "../etc"):
        answer = httpx.post(url, json={"name": bad_name, "url": "http://h:1"}, headers=admin)
        assert answer.status_code == 400, bad_name


def test_registering_needs_the_admin_key_not_app_credentials(daemon, app_creds):
    answer = httpx.post(daemon.url("config") + "/services", json={"name": "evil", "url": "http://evil:1"}, headers=app_creds)
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "credentials_not_accepted"
    forged = {**app_creds, "X-Service-App-Key": "guess"}
    answer = httpx.post(daemon.url("config") + "/services", json={"name": "evil", "url": "http://evil:1"}, headers=forged)
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "invalid_app_credentials"


def test_dockerized_style_keeps_host_processes_working(make_daemon):
    """With the dockerized style on, voxd's own services (on the host) still get real URLs."""
    daemon = make_daemon(SERVICE_CONFIG_URL_STYLE="dockerized")
    admin = {"X-Admin-Key": daemon.admin_key}
    own = httpx.get(daemon.url("config") + "/services/auth", headers=admin).json()
    assert own["url"] == daemon.url("auth")
    nodes = httpx.get(daemon.url("command-center") + "/api/v0/nodes", headers=admin)
    assert nodes.status_code == 200, nodes.text


def test_dockerized_style_answers_containers_the_host_gateway():
    loopback_url = "http://127.0.0.1:7701"
    assert url_for_caller(loopback_url, "172.17.0.2", dockerized=True) == "http://host.docker.internal:7701"
    assert url_for_caller("http://localhost:7030", "172.17.0.2", dockerized=True) == "http://host.docker.internal:7030"
    assert url_for_caller(loopback_url, "127.0.0.1", dockerized=True) == loopback_url
    assert url_for_caller(loopback_url, "172.17.0.2", dockerized=False) == loopback_url
    assert url_for_caller("http://192.168.1.9:7030", "172.17.0.2", dockerized=True) == "http://192.168.1.9:7030"
