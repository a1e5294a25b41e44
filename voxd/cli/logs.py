"""`voxd logs query` and `voxd logs stats`: what the whole platform is doing, from one command."""

from __future__ import annotations

import json

import click
from rich.markup import escape
from rich.table import Table

from voxd.cli.admin_client import admin_call, run_admin
from voxd.cli.output import console, print_json, print_table
from voxd.cli.settings_option import load_settings
from voxd.kit.service_client import ServiceClient
from voxd.kit.settings import TIME_ZONE, Settings
from voxd.kit.timeparse import RELATIVE, local_zone, parse_time, rfc3339

LEVEL_STYLES = {"debug": "dim", "info": "green", "warning": "yellow", "error": "red", "critical": "bold white on red"}


@click.group()
def logs() -> None:
    """Read the central logs."""


def entries_table(entries: list[dict]) -> Table:
    table = Table(show_header=True, header_style="bold", expand=False)
    table.add_column("time", no_wrap=True)
    table.add_column("service", no_wrap=True)
    table.add_column("level", no_wrap=True)
    table.add_column("message", overflow="fold")
    for entry in entries:
        level = entry["level"]
        where = entry["service"] + (f" ({entry['node_id'][:8]})" if entry.get("node_id") else "")
        table.add_row(
            entry["timestamp"][5:19].replace("T", " "),
            where,
            f"[{LEVEL_STYLES.get(level, '')}]{level}[/]",
            entry["message"],
        )
    return table


def query_time(settings: Settings, value: str | None) -> str | None:
    """Times typed without a zone mean the local time of the person typing. The service reads them
    the same way in its own zone; sending the offset keeps them right when the two zones differ."""
    if not value or RELATIVE.match(value):
        return value
    try:
        return rfc3339(parse_time(value, local_zone(settings.value(TIME_ZONE))))
    except ValueError:
        return value  # the service explains what it accepts


def fetch(settings: Settings, params: dict) -> dict:
    params = {**params, "since": query_time(settings, params.get("since")),
              "until": query_time(settings, params.get("until"))}
    clean = {k: str(v) for k, v in params.items() if v not in (None, "")}
    return admin_call(settings, "logs", "GET", "/api/v0/logs", params=clean)


def entry_line(entry: dict) -> str:
    """One entry as one line of the same columns as the table, for `--follow` (like `tail -f`)."""
    level = entry["level"]
    where = entry["service"] + (f" ({entry['node_id'][:8]})" if entry.get("node_id") else "")
    return (f"{entry['timestamp'][5:19].replace('T', ' ')} {escape(where):<16} "
            f"[{LEVEL_STYLES.get(level, '')}]{level:<8}[/]{escape(entry['message'])}")


def show(entries: list[dict], as_json: bool, as_lines: bool = False) -> None:
    """Oldest first on screen, like a log file: a table, or (following) a line per entry so the
    header is not printed again at every poll."""
    ordered = list(reversed(entries))
    if as_json:
        for entry in ordered:
            click.echo(json.dumps(entry, sort_keys=True))
    elif as_lines:
        for entry in ordered:
            console.print(entry_line(entry), soft_wrap=True)
    elif ordered:
        console.print(entries_table(ordered))


@logs.command("query")
@click.option("--service", help="Only this service (config, auth, command-center, ...).")
@click.option("--level", type=click.Choice(["debug", "info", "warning", "error", "critical"], case_sensitive=False),
              help="At least this level.")
@click.option("--node", "node_id", help="Only entries of this node_id.")
@click.option("--request", "request_id", help="Only entries of this request id.")
@click.option("--since", help="RFC 3339 time (local without a zone) or relative: 15m, 2h, 7d.")
@click.option("--until", help="RFC 3339 time (local without a zone) or relative.")
@click.option("--search", help="Substring of the message, any case.")
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.option("--follow", "-f", is_flag=True, help="Keep printing new entries until Ctrl+C.")
def query(service, level, node_id, request_id, since, until, search, limit, as_json, follow) -> None:
    """Show log entries, newest last."""
    settings = load_settings()
    params = {"service": service, "level": level, "node_id": node_id, "request_id": request_id,
              "since": since, "until": until, "search": search, "limit": limit}
    page = fetch(settings, params)
    show(page["logs"], as_json, as_lines=follow)
    if not follow:
        if not page["logs"] and not as_json:
            console.print("No entries match.")
        return
    filters = {key: value for key, value in params.items() if key not in ("since", "until", "limit") and value}
    last_id = max((entry["id"] for entry in page["logs"]), default=None)
    if last_id is None:  # nothing matched yet: from the newest entry of all, so none is missed
        last_id = max((entry["id"] for entry in fetch(settings, {"limit": 1})["logs"]), default=0)
    try:
        run_admin(settings, lambda client: follow_stream(client, filters, last_id, as_json))
    except KeyboardInterrupt:
        pass


async def follow_stream(client: ServiceClient, filters: dict, last_id: int, as_json: bool) -> None:
    """The logs service's stream of what it accepts after entry `last_id`, one line each as it
    comes, until Ctrl+C (or the daemon stops). Entries shipped late still come: the stream is in
    the order entries were accepted, not their times."""
    stream = client.events("logs", "/api/v0/logs/stream", params=filters,
                           headers={"Last-Event-ID": str(last_id)})
    async for event in stream:
        if event.event == "message":
            show([json.loads(event.data)], as_json, as_lines=True)
    console.print("The logs service ended the stream (the daemon stopped).")


@logs.command("stats")
@click.option("--since", default="24h", show_default=True, help="RFC 3339 time (local without a zone) or relative: 15m, 2h, 7d.")
@click.option("--until", help="RFC 3339 time (local without a zone) or relative.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def stats(since: str, until: str | None, as_json: bool) -> None:
    """Count entries by service and level."""
    settings = load_settings()
    times = {"since": query_time(settings, since), "until": query_time(settings, until)}
    params = {k: v for k, v in times.items() if v}
    answer = admin_call(settings, "logs", "GET", "/api/v0/logs/stats", params=params)
    if as_json:
        print_json(answer)
        return
    levels = list(answer["by_level"])
    rows = [
        (service, *(counts.get(level, 0) for level in levels), counts["total"])
        for service, counts in sorted(answer["by_service"].items())
    ]
    rows.append(("all", *(answer["by_level"][level] for level in levels), answer["total"]))
    print_table(f"Log entries {answer['since'][:19]} .. {answer['until'][:19]}", ("service", *levels, "total"), rows)
    if answer["oldest"]:
        console.print(f"oldest {answer['oldest']}, newest {answer['newest']}")
