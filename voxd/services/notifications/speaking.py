"""`"speak": true`: a send is also said on the household's nodes, through the command center's
announcements (the route an administrator uses, `POST /api/v0/nodes/{node_id}/announce`, which
takes this service's app credentials). Asked from the outbox, so a restart does not forget it;
after a few failed tries it is given up (`speak: failed`): a late announcement is worse than none.
"""

from __future__ import annotations

import logging
from urllib.parse import quote

from voxd.kit.db import Database
from voxd.kit.errors import UpstreamError
from voxd.kit.retry import RetryPolicy
from voxd.kit.service_client import ServiceClient

log = logging.getLogger("voxd.notifications.speaking")

ATTEMPTS = 5


async def announce_to_household(client: ServiceClient, household_id: str, text: str) -> int:
    """Say `text` on every node of the household; answers how many nodes took it."""
    nodes = await client.call("auth", "GET", "/internal/nodes", params={"household_id": household_id})
    said = 0
    for node in nodes["nodes"]:
        try:
            await client.call("command-center", "POST", f"/api/v0/nodes/{quote(node['node_id'], safe='')}/announce",
                              json={"text": text, "kind": "notification"})
            said += 1
        except UpstreamError as error:
            if error.status != 404:  # a node removed since the list is simply not there to hear it
                raise
    return said


async def speak_due(db: Database, client: ServiceClient, policy: RetryPolicy, now: float) -> None:
    rows = await db.fetchall(
        "SELECT seq, id, household_id, title, body, speak_attempts FROM notifications "
        "WHERE speak = 'pending' AND speak_due <= ? ORDER BY speak_due LIMIT 20", (now,))
    for row in rows:
        try:
            if row["household_id"]:
                await announce_to_household(client, row["household_id"], f"{row['title']}. {row['body']}")
            state, due = "done", None
        except UpstreamError as error:
            attempts = row["speak_attempts"] + 1
            state = "failed" if attempts >= ATTEMPTS else "pending"
            due = now + policy.delay(attempts) if state == "pending" else None
            log.warning("could not announce notification %s (try %d): %s", row["id"], attempts, error.message)
        await db.execute("UPDATE notifications SET speak = ?, speak_due = ?, speak_attempts = speak_attempts + 1 "
                         "WHERE seq = ?", (state, due, row["seq"]))
