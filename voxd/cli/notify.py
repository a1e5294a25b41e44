"""`voxd notify` (with the admin key), and `voxd inbox list|read` and `voxd devices list` as the
user `voxd login` logged in (issue 21 §7; docs/notifications.md)."""

from __future__ import annotations

from urllib.parse import quote

import click

from voxd.cli.admin_client import admin_call
from voxd.cli.output import CliError, console, print_json, print_table, short_time
from voxd.cli.settings_option import load_settings
from voxd.cli.user_session import user_call

NOTIFICATIONS = "notifications"


@click.command()
@click.option("--user", "user_id", help="Send to this user.")
@click.option("--household", "household_id", help="Send to every user of this household.")
@click.option("--speak", is_flag=True, help="Also say it on the household's voice nodes.")
@click.option("--inbox", is_flag=True, help="Also keep it in each user's inbox.")
@click.option("--high", is_flag=True, help="High priority (wakes a sleeping phone).")
@click.argument("title")
@click.argument("body")
def notify(user_id: str | None, household_id: str | None, speak: bool, inbox: bool, high: bool,
           title: str, body: str) -> None:
    """Push TITLE and BODY to a user's or a household's devices."""
    if (user_id is None) == (household_id is None):
        raise CliError("name exactly one of --user ID or --household ID")
    target = {"user_id": user_id} if user_id else {"household_id": household_id}
    sent = admin_call(load_settings(), NOTIFICATIONS, "POST", "/api/v0/notifications/send",
                      json={"target": target, "title": title, "body": body, "speak": speak, "inbox": inbox,
                            "priority": "high" if high else "normal"})
    console.print(f"Accepted {sent['id']}: {sent['tokens']} device(s), {sent['status']}.", markup=False,
                  highlight=False)


@click.group()
def inbox() -> None:
    """The logged-in user's inbox (`voxd login` first)."""


@inbox.command("list")
@click.option("--unread", is_flag=True, help="Only items not read yet.")
@click.option("--limit", type=click.IntRange(1, 100), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_inbox(unread: bool, limit: int, as_json: bool) -> None:
    """The newest items first."""
    params = {"limit": str(limit), **({"unread": "true"} if unread else {})}
    items = user_call(load_settings(), NOTIFICATIONS, "GET", "/api/v0/inbox", params=params)["items"]
    if as_json:
        print_json(items)
        return
    if not items:
        console.print("No unread items." if unread else "The inbox is empty.", markup=False, highlight=False)
        return
    print_table("Inbox", ("id", "when", "title", "read"),
                ((i["id"], short_time(i["created_at"]), i["title"], "yes" if i["read"] else "") for i in items))


@inbox.command("read")
@click.argument("item_id")
def read_item(item_id: str) -> None:
    """Show one item and mark it read."""
    item = user_call(load_settings(), NOTIFICATIONS, "PATCH", f"/api/v0/inbox/{quote(item_id, safe='')}/read")
    console.print(f"[bold]{item['title']}[/bold]  [dim]{short_time(item['created_at'])}[/dim]", markup=True,
                  highlight=False)
    console.print(item["body"], markup=False, highlight=False)


@click.group()
def devices() -> None:
    """The logged-in user's devices that get pushes (`voxd login` first)."""


@devices.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_devices(as_json: bool) -> None:
    """Registered device tokens; a token the provider reported gone shows why."""
    tokens = user_call(load_settings(), NOTIFICATIONS, "GET", "/api/v0/device-tokens")["device_tokens"]
    if as_json:
        print_json(tokens)
        return
    if not tokens:
        console.print("No devices yet: the app (or a browser) registers one when you allow notifications.",
                      markup=False, highlight=False)
        return
    print_table("Devices", ("platform", "name", "token", "active"),
                ((t["platform"], t["device_name"] or "", t["token"][-12:],
                  "yes" if t["active"] else f"no ({t['deactivated_reason']})") for t in tokens))
