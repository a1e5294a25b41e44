"""Each service's route table as the spec and the issues fix it: the routes a service must have,
and who may call them (the checks over every route are in test_contract.py)."""

from __future__ import annotations

import httpx

from contract_kit import SERVICES, accepted, assert_error, send


# Each service's own settings API (issue 22 §2, kit/settings_api.py), for the settings service only.
SETTINGS_API_ROUTES = {("get", "/internal/settings"), ("put", "/internal/settings/{short}"),
                       ("delete", "/internal/settings/{short}")}


# The spec's notifications service table (docs/notifications.md), and the routes issue 21 adds to it.
NOTIFICATION_ROUTES = {
    ("post", "/api/v0/notifications/send"), ("post", "/api/v0/device-tokens"),
    ("delete", "/api/v0/device-tokens/{token}"), ("get", "/api/v0/inbox"), ("get", "/api/v0/inbox/{id}"),
    ("post", "/api/v0/inbox"), ("patch", "/api/v0/inbox/{id}/read"), ("delete", "/api/v0/inbox/{id}"),
    ("get", "/api/v0/device-tokens"), ("get", "/api/v0/device-tokens/web-push-key"),
    ("get", "/api/v0/notifications"), ("get", "/api/v0/notifications/{id}"), ("get", "/health"),
    ("get", "/openapi.json"),
}


def test_the_notifications_service_has_the_routes_of_the_spec_and_issue_21(daemon):
    paths = httpx.get(daemon.url("notifications") + "/openapi.json").json()["paths"]
    assert {(method, path) for path, operations in paths.items() for method in operations} == (
        NOTIFICATION_ROUTES | SETTINGS_API_ROUTES)
    assert httpx.get(daemon.url("notifications") + "/health").json()["service"] == "notifications"


def test_the_command_stream_is_a_node_route_of_the_route_table(daemon, registered_node):
    """Issue 24: the WebSocket is declared like every route, so the checks above cover it (credentials
    before the upgrade); a plain GET with a node's key is told to upgrade."""
    paths = httpx.get(daemon.url("command-center") + "/openapi.json").json()["paths"]
    assert accepted(paths["/api/v0/command/stream"]["get"]) == {"node"}
    node_header = {"X-API-Key": f"{registered_node['node_id']}:{registered_node['api_key']}"}
    assert_error(send(daemon, "command-center", "GET", "/api/v0/command/stream", headers=node_header), 426,
                 "upgrade_required")


# Issue 25 §1-2: a member's reminders and the actions of a reminder's push, and the household's
# alarms (the admin page's list), on the command center.
REMINDER_ROUTES = {("get", "/api/v0/reminders"), ("delete", "/api/v0/reminders/{reminder_id}"),
                   ("post", "/api/v0/reminders/{reminder_id}/actions"),
                   ("get", "/api/v0/alarms"), ("delete", "/api/v0/alarms/{alarm_id}")}


def test_the_command_center_has_the_reminder_routes_of_issue_25_for_users_only(daemon):
    paths = httpx.get(daemon.url("command-center") + "/openapi.json").json()["paths"]
    found = {(method, path) for path, operations in paths.items() for method in operations}
    assert REMINDER_ROUTES <= found
    for method, path in REMINDER_ROUTES:
        assert paths[path][method]["security"] == [{"bearer": []}], path


def test_every_service_has_its_settings_api_for_the_settings_service_only(daemon):
    for service in SERVICES:
        paths = httpx.get(daemon.url(service) + "/openapi.json").json()["paths"]
        for method, path in SETTINGS_API_ROUTES:
            operation = paths[path][method]
            assert (accepted(operation), operation["x-callers"]) == ({"app_id", "app_key"}, ["settings"]), service


# The spec's settings service table (issue 22 §3), the overview, and the admin page it serves (§5).
SETTINGS_SERVICE_ROUTES = {
    ("get", "/health"), ("get", "/openapi.json"), ("get", "/api/v0/settings"), ("get", "/api/v0/settings/{key}"),
    ("put", "/api/v0/settings/{key}"), ("delete", "/api/v0/settings/{key}"), ("get", "/api/v0/overview"),
    ("get", "/"), ("get", "/{file}"), ("get", "/{folder}/{path}"), ("get", "/ca.crt"),
    ("post", "/ui-api/auth/login"), ("post", "/ui-api/auth/refresh"), ("delete", "/ui-api/auth/refresh"),
    ("post", "/ui-api/auth/password"),
    *((method, "/ui-api/{service}/{path}") for method in ("get", "post", "put", "patch", "delete")),
    ("get", "/internal/settings"), ("put", "/internal/settings/{short}"), ("delete", "/internal/settings/{short}"),
}


def test_the_settings_service_has_the_routes_of_the_spec_and_issue_22(daemon):
    document = httpx.get(daemon.url("settings") + "/openapi.json").json()
    paths = document["paths"]
    assert {(method, path) for path, operations in paths.items() for method in operations} == SETTINGS_SERVICE_ROUTES
    admins = [{"bearer": ["admin"]}, {"admin": []}]
    for path in ("/api/v0/settings", "/api/v0/settings/{key}", "/api/v0/overview"):
        assert all(operation["security"] == admins for operation in paths[path].values()), path
    assert all(operation["security"] == [{"bearer": []}] for operation in paths["/ui-api/{service}/{path}"].values())
    assert paths["/ui-api/auth/password"]["post"]["security"] == [{"bearer": []}]
    assert httpx.get(daemon.url("settings") + "/health").json()["service"] == "settings"
