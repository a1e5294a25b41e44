"""A user's story with the auth service: log in, use the token, refresh, log out; and the
defences: rotation, theft detection, equal failures, rate limits."""

from __future__ import annotations

import json
import time
import uuid

import httpx
import jwt

from conftest import login, unique_email
from test_logs import query, wait_for
from voxd.kit.timeparse import local_zone_name


def refresh(daemon, token: str) -> httpx.Response:
    return httpx.post(daemon.url("auth") + "/auth/refresh", json={"refresh_token": token})


def me(daemon, access: str) -> httpx.Response:
    return httpx.get(daemon.url("auth") + "/auth/me", headers={"Authorization": f"Bearer {access}"})


def account(daemon) -> dict[str, str]:
    """A user made through the admin API of a daemon of its own: the `email` and `password`."""
    body = {"email": unique_email(), "display_name": "Sam", "password": "correct horse battery"}
    answer = httpx.post(daemon.url("auth") + "/users", json=body, headers={"X-Admin-Key": daemon.admin_key})
    assert answer.status_code == 201, answer.text
    return body


def test_login_gives_a_working_pair(daemon, make_user, household):
    user, password = make_user()
    answer = login(daemon, user["email"].upper(), password)
    assert answer.status_code == 200, answer.text
    pair = answer.json()
    assert pair["token_type"] == "bearer" and pair["expires_in"] == 900
    assert len(pair["refresh_token"]) >= 43  # 256 bits, base64url
    header = jwt.get_unverified_header(pair["access_token"])
    assert header["alg"] == "HS256"
    claims = jwt.decode(pair["access_token"], daemon.secrets["JWT_SIGNING_KEY"], algorithms=["HS256"], issuer="voxd")
    assert claims["sub"] == user["user_id"]
    assert claims["household_id"] == household["household_id"]
    assert claims["admin"] is False
    assert claims["exp"] - claims["iat"] == 900
    profile = me(daemon, pair["access_token"])
    assert profile.status_code == 200 and profile.json()["email"] == user["email"]
    assert "password" not in str(profile.json())


def test_refresh_rotates_and_the_old_token_dies(daemon, user_tokens):
    first = refresh(daemon, user_tokens["refresh_token"])
    assert first.status_code == 200, first.text
    second_pair = first.json()
    assert second_pair["refresh_token"] != user_tokens["refresh_token"]
    assert me(daemon, second_pair["access_token"]).status_code == 200
    again = refresh(daemon, second_pair["refresh_token"])
    assert again.status_code == 200


def test_reusing_a_spent_refresh_token_revokes_the_family(daemon, user_tokens):
    stolen = user_tokens["refresh_token"]
    legit = refresh(daemon, stolen).json()["refresh_token"]
    replay = refresh(daemon, stolen)
    assert replay.status_code == 401 and replay.json()["error"]["code"] == "invalid_refresh_token"
    # the whole family is dead, including the legitimate newest token
    assert refresh(daemon, legit).status_code == 401


def test_logout_kills_the_refresh_token(daemon, user_tokens):
    answer = httpx.post(daemon.url("auth") + "/auth/logout", json={"refresh_token": user_tokens["refresh_token"]})
    assert answer.status_code == 204
    assert refresh(daemon, user_tokens["refresh_token"]).status_code == 401
    # logging out twice, or with a made-up token, is harmless
    again = httpx.post(daemon.url("auth") + "/auth/logout", json={"refresh_token": "made-up"})
    assert again.status_code == 204


def test_refresh_tokens_are_stored_only_as_digests(daemon, user_tokens):
    database = (daemon.home / "data" / "auth.db").read_bytes()
    assert user_tokens["refresh_token"].encode() not in database
    wal = daemon.home / "data" / "auth.db-wal"
    if wal.exists():
        assert user_tokens["refresh_token"].encode() not in wal.read_bytes()


def test_failures_look_the_same_for_unknown_email_and_wrong_password(daemon, make_user):
    user, _ = make_user()
    timings = {}
    answers = {}
    for case, email in (("wrong password", user["email"]), ("unknown email", unique_email("ghost"))):
        started = time.perf_counter()
        answers[case] = login(daemon, email, "not the password")
        timings[case] = time.perf_counter() - started
    assert answers["wrong password"].status_code == answers["unknown email"].status_code == 401
    assert answers["wrong password"].json() == answers["unknown email"].json()
    # both paths run one argon2 verification: same order of magnitude (no timed assertion on noise)
    assert timings["unknown email"] > timings["wrong password"] / 10


def test_repeated_failures_are_rate_limited(daemon, make_user):
    user, password = make_user()
    codes = [login(daemon, user["email"], "wrong guess").status_code for _ in range(5)]
    assert codes == [401] * 5
    blocked = login(daemon, user["email"], password)
    assert blocked.status_code == 429
    assert blocked.json()["error"]["code"] == "too_many_attempts"
    assert int(blocked.headers["Retry-After"]) > 0


def test_short_passwords_and_duplicate_emails_are_refused(daemon, admin, make_user):
    user, _ = make_user()
    url = daemon.url("auth") + "/users"
    short = httpx.post(url, json={"email": unique_email(), "display_name": "X", "password": "short"}, headers=admin)
    assert short.status_code == 400 and short.json()["error"]["details"][0]["field"] == "password"
    dup = httpx.post(url, json={"email": user["email"], "display_name": "X", "password": "long enough pw"}, headers=admin)
    assert dup.status_code == 409 and dup.json()["error"]["code"] == "email_taken"
    bad_household = httpx.post(url, json={"email": unique_email(), "display_name": "X", "password": "long enough pw",
                                          "household_id": "00000000-0000-0000-0000-000000000000"}, headers=admin)
    assert bad_household.status_code == 404


def test_an_admin_user_can_manage_with_a_jwt(daemon, admin_tokens, user_tokens):
    admin_bearer = {"Authorization": f"Bearer {admin_tokens['access_token']}"}
    created = httpx.post(daemon.url("auth") + "/households", json={"name": "Cabin", "timezone": "America/Denver"}, headers=admin_bearer)
    assert created.status_code == 201, created.text
    listed = httpx.get(daemon.url("command-center") + "/api/v0/nodes", headers=admin_bearer)
    assert listed.status_code == 200
    user_bearer = {"Authorization": f"Bearer {user_tokens['access_token']}"}
    refused = httpx.post(daemon.url("auth") + "/households", json={"name": "Nope"}, headers=user_bearer)
    assert refused.status_code == 403


def test_households_validate_time_zones(daemon, admin):
    url = daemon.url("auth") + "/households"
    bad = httpx.post(url, json={"name": "Mars base", "timezone": "Mars/Olympus"}, headers=admin)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_timezone"
    default = httpx.post(url, json={"name": "Flat"}, headers=admin)
    assert default.status_code == 201 and default.json()["timezone"] == local_zone_name()
    listed = httpx.get(url, headers=admin).json()["households"]
    assert default.json() in listed


def test_parallel_guesses_cannot_slip_under_the_limit(daemon, make_user):
    from concurrent.futures import ThreadPoolExecutor

    user, password = make_user()
    with ThreadPoolExecutor(max_workers=12) as pool:
        codes = list(pool.map(lambda _: login(daemon, user["email"], "parallel guess").status_code, range(12)))
    assert codes.count(401) <= 5 and codes.count(429) >= 7, codes
    assert login(daemon, user["email"], password).status_code == 429


def test_blank_names_are_refused(daemon, admin):
    answer = httpx.post(daemon.url("auth") + "/households", json={"name": "   "}, headers=admin)
    assert answer.status_code == 400 and answer.json()["error"]["details"][0]["field"] == "name"
    trimmed = httpx.post(daemon.url("auth") + "/households", json={"name": "  Barn  "}, headers=admin)
    assert trimmed.json()["name"] == "Barn"


def test_what_is_typed_into_the_email_field_is_never_logged(daemon, admin, make_user):
    """People type passwords into the email field: failed and refused logins name the user's id
    when the email is known and nothing typed when it is not, in the console and in the logs."""
    typed = f"Tr0ub4dor{uuid.uuid4().hex[:10]}"
    request_id = f"typed-{uuid.uuid4().hex}"
    user, _ = make_user()
    headers = {"X-Request-Id": request_id}
    url = daemon.url("auth") + "/auth/login"
    codes = [httpx.post(url, json={"email": typed, "password": "x"}, headers=headers).status_code for _ in range(6)]
    assert codes == [401] * 5 + [429]
    assert httpx.post(url, json={"email": user["email"], "password": "wrong guess"}, headers=headers).status_code == 401

    def logged():
        entries = query(daemon, admin, request_id=request_id, limit=100)["logs"]
        text = " ".join(e["message"] for e in entries)
        done = "refused" in text and f"failed login for user {user['user_id']}" in text
        return entries if done and text.count("failed login for an unknown email") == 5 else None

    entries = wait_for(logged)
    assert typed.lower() not in json.dumps(entries).lower()  # the email is lower-cased before use
    assert query(daemon, admin, search=typed)["logs"] == []
    assert f"failed login for user {user['user_id']}" in daemon.output()
    assert typed.lower() not in daemon.output().lower()


def test_one_address_gets_a_limited_number_of_attempts_whatever_the_emails(make_daemon):
    """The per-address limit (the shared daemon raises it out of the way for the other tests)."""
    daemon = make_daemon(["config", "auth"], VOXD_LOGIN_MAX_FAILURES_PER_ADDRESS="3")
    body = account(daemon)
    codes = [login(daemon, unique_email("guess"), "wrong guess").status_code for _ in range(3)]
    assert codes == [401] * 3  # three different emails: no per-email limit is reached
    blocked = login(daemon, body["email"], body["password"])
    assert blocked.status_code == 429, blocked.text
    assert blocked.json()["error"]["code"] == "too_many_attempts" and int(blocked.headers["Retry-After"]) > 0


def test_a_cached_token_is_refused_once_it_expires(make_daemon):
    """The command center caches a token's check for VOXD_CREDENTIAL_CACHE_TTL, but never past its exp."""
    daemon = make_daemon(["config", "auth", "command-center"], VOXD_ACCESS_TOKEN_TTL="5",
                         VOXD_CREDENTIAL_CACHE_TTL="600")
    admin = {"X-Admin-Key": daemon.admin_key}
    body = {"email": unique_email(), "display_name": "Ada", "password": "correct horse battery", "is_admin": True}
    assert httpx.post(daemon.url("auth") + "/users", json=body, headers=admin).status_code == 201
    token = login(daemon, body["email"], body["password"]).json()["access_token"]
    nodes = daemon.url("command-center") + "/api/v0/nodes"
    bearer = {"Authorization": f"Bearer {token}"}
    assert httpx.get(nodes, headers=bearer).status_code == 200  # checked by auth, now cached
    expires = jwt.decode(token, options={"verify_signature": False})["exp"]
    time.sleep(max(0.0, expires - time.time()) + 1.0)
    expired = httpx.get(nodes, headers=bearer)
    assert expired.status_code == 401 and expired.json()["error"]["code"] == "invalid_token"


def test_a_successful_login_does_not_wipe_the_addresss_earlier_failures(make_daemon):
    """A success takes back only its own attempt: a guesser who also knows one account cannot log
    in now and then to start the address's count again."""
    daemon = make_daemon(["config", "auth"], VOXD_LOGIN_MAX_FAILURES_PER_ADDRESS="3")
    body = account(daemon)
    guesses = [login(daemon, unique_email("guess"), "wrong guess").status_code for _ in range(2)]
    assert guesses == [401, 401]
    assert login(daemon, body["email"], body["password"]).status_code == 200  # not counted...
    assert login(daemon, unique_email("guess"), "wrong guess").status_code == 401  # ...but the two before are
    blocked = login(daemon, body["email"], body["password"])
    assert blocked.status_code == 429 and blocked.json()["error"]["code"] == "too_many_attempts"


def test_a_refresh_token_dies_at_the_logins_absolute_lifetime(make_daemon):
    """VOXD_REFRESH_TOKEN_TTL counts from the login: the first refresh inside it works, and the token
    it gives dies when the login's lifetime ends (rotation does not extend a session)."""
    lifetime = 6
    daemon = make_daemon(["config", "auth"], VOXD_REFRESH_TOKEN_TTL=str(lifetime))
    body = account(daemon)
    pair = login(daemon, body["email"], body["password"]).json()
    logged_in = time.time()  # after the login: its lifetime ends before logged_in + lifetime
    time.sleep(lifetime / 2)
    rotated = refresh(daemon, pair["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    time.sleep(max(0.0, logged_in + lifetime + 1 - time.time()))
    expired = refresh(daemon, rotated.json()["refresh_token"])
    assert expired.status_code == 401 and expired.json()["error"]["code"] == "invalid_refresh_token"


def test_a_locked_email_may_log_in_again_once_the_window_has_passed(make_daemon):
    """The lock lasts VOXD_LOGIN_WINDOW_SECONDS, as Retry-After says, not for ever: anyone can lock
    an email by guessing, so its owner must get it back."""
    window = 10  # the five failures must all fall inside it, even on a slow machine
    daemon = make_daemon(["config", "auth"], VOXD_LOGIN_WINDOW_SECONDS=str(window))
    body = account(daemon)
    assert [login(daemon, body["email"], "wrong guess").status_code for _ in range(5)] == [401] * 5
    locked = login(daemon, body["email"], body["password"])
    assert locked.status_code == 429 and 1 <= int(locked.headers["Retry-After"]) <= window + 1
    time.sleep(int(locked.headers["Retry-After"]) + 0.5)
    assert login(daemon, body["email"], body["password"]).status_code == 200
