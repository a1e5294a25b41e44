"""The inbox through `voxd serve` (issue 21 §4): services add items, each user reads, pages, marks
and deletes only their own; another user's item answers 404 on every route."""

from __future__ import annotations

import httpx
import pytest

from conftest import app_headers, household_member
from daemons import serving

INBOX = "/api/v0/inbox"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    # Without a VAPID key (as before `voxd init` wrote one): the Web Push key route says how to get one.
    with serving(tmp_path_factory, ["config", "auth", "notifications"], VAPID_PUBLIC_KEY="") as running:
        yield running


@pytest.fixture(scope="module")
def owner(daemon) -> dict:
    who = household_member(daemon)
    return {**who, "user_id": httpx.get(daemon.url("auth") + "/auth/me", headers=who["headers"]).json()["user_id"]}


def url(daemon, path: str = "") -> str:
    return daemon.url("notifications") + INBOX + path


def add(daemon, user_id: str, title: str, category: str | None = None, headers: dict | None = None) -> dict:
    body = {"user_id": user_id, "title": title, "body": f"About {title}", "data": {"n": 1},
            **({"category": category} if category else {})}
    answer = httpx.post(url(daemon), json=body, headers=headers or app_headers(daemon, "command-center"))
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_items_are_listed_newest_first_in_pages_and_filtered(daemon, owner):
    first = add(daemon, owner["user_id"], "Research: tides", "research")
    for n in range(4):
        add(daemon, owner["user_id"], f"Note {n}")
    since = first["created_at"]
    page = httpx.get(url(daemon), params={"limit": 2}, headers=owner["headers"]).json()
    assert [i["title"] for i in page["items"]] == ["Note 3", "Note 2"]
    titles = [i["title"] for i in page["items"]]
    while page["cursor"]:
        page = httpx.get(url(daemon), params={"limit": 2, "cursor": page["cursor"]}, headers=owner["headers"]).json()
        titles += [i["title"] for i in page["items"]]
    assert titles == ["Note 3", "Note 2", "Note 1", "Note 0", "Research: tides"]

    research = httpx.get(url(daemon), params={"category": "research"}, headers=owner["headers"]).json()["items"]
    assert [i["id"] for i in research] == [first["id"]] and research[0]["data"] == {"n": 1}
    newer = httpx.get(url(daemon), params={"since": since}, headers=owner["headers"]).json()["items"]
    assert first["id"] not in [i["id"] for i in newer] and len(newer) == 4


def test_an_item_is_read_once_and_deleted(daemon, owner):
    item = add(daemon, owner["user_id"], "Parcel")
    assert item["read"] is False
    read = httpx.patch(url(daemon, f"/{item['id']}/read"), headers=owner["headers"]).json()
    assert read["read"] is True and read["read_at"]
    again = httpx.patch(url(daemon, f"/{item['id']}/read"), headers=owner["headers"]).json()
    assert again["read_at"] == read["read_at"]
    unread = httpx.get(url(daemon), params={"unread": "true"}, headers=owner["headers"]).json()["items"]
    assert item["id"] not in [i["id"] for i in unread]
    assert httpx.get(url(daemon, f"/{item['id']}"), headers=owner["headers"]).json()["title"] == "Parcel"
    assert httpx.delete(url(daemon, f"/{item['id']}"), headers=owner["headers"]).status_code == 204
    assert httpx.get(url(daemon, f"/{item['id']}"), headers=owner["headers"]).status_code == 404


def test_another_users_item_is_not_found_on_every_route(daemon, owner):
    item = add(daemon, owner["user_id"], "Private")
    other = household_member(daemon, owner["household_id"])
    for method, path in (("GET", f"/{item['id']}"), ("PATCH", f"/{item['id']}/read"), ("DELETE", f"/{item['id']}")):
        answer = httpx.request(method, url(daemon, path), headers=other["headers"])
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "inbox_item_not_found", method
    assert item["id"] not in [i["id"] for i in httpx.get(url(daemon), headers=other["headers"]).json()["items"]]
    still = httpx.get(url(daemon, f"/{item['id']}"), headers=owner["headers"]).json()
    assert still["read"] is False


def test_only_the_command_center_and_the_admin_key_add_items(daemon, owner):
    body = {"user_id": owner["user_id"], "title": "t", "body": "b"}
    assert httpx.post(url(daemon), json=body, headers=owner["headers"]).json()["error"]["code"] == "credentials_not_accepted"
    refused = httpx.post(url(daemon), json=body, headers=app_headers(daemon, "recipes"))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "caller_not_allowed"
    assert add(daemon, owner["user_id"], "By admin", headers={"X-Admin-Key": daemon.admin_key})["title"] == "By admin"
    unknown = httpx.post(url(daemon), json={**body, "user_id": "nobody"}, headers=app_headers(daemon, "command-center"))
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "user_not_found"


@pytest.mark.parametrize("params, code", [({"cursor": "not-ours"}, "invalid_cursor"), ({"limit": "0"}, "invalid_query"),
                                          ({"since": "yesterday-ish"}, "invalid_query"), ({"unread": "maybe"}, "invalid_query")])
def test_bad_queries_are_refused_clearly(daemon, owner, params, code):
    answer = httpx.get(url(daemon), params=params, headers=owner["headers"])
    assert answer.status_code == 400 and answer.json()["error"]["code"] == code


def test_without_a_vapid_key_the_web_push_key_says_how_to_get_one(daemon, owner):
    answer = httpx.get(daemon.url("notifications") + "/api/v0/device-tokens/web-push-key", headers=owner["headers"])
    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "web_push_not_configured" and "voxd init" in answer.text
