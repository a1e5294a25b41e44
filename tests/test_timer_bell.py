"""The bell's (nodes/bell.py, shared by timers, alarms and reminders) choice of where a timer rings (unit, with a stand-in announcer): a node's timer on
that node only; a household's (set from a phone or `voxd ask`) on each of its nodes, rung once any
node took it (ringing again would ring twice on the others), tried again when none did or the nodes
cannot be listed, dropped when the household has no node. End to end: tests/test_phone_commands.py
and tests/test_announcements.py."""

from __future__ import annotations

import asyncio

from voxd.commands.builtin.clock.timers import Timer
from voxd.kit.errors import UpstreamError
from voxd.services.command_center.nodes.announcer import AnnouncementFailed
from voxd.services.command_center.nodes.bell import Bell


class Announcer:
    def __init__(self, unreachable: set[str]) -> None:
        self.unreachable, self.rung = unreachable, []

    async def announce(self, node_id: str, kind: str, text: str) -> None:
        if node_id in self.unreachable:
            raise AnnouncementFailed("broker away")
        self.rung.append((node_id, text))


def ring(timer: Timer, nodes: list[str] | None, unreachable: frozenset[str] = frozenset()) -> tuple[bool, Announcer, Bell]:
    """Ring `timer` of household "home", whose nodes are `nodes` (None: they cannot be listed)."""
    announcer = Announcer(set(unreachable))

    async def household_nodes(household_id: str) -> list[str]:
        assert household_id == "home"
        if nodes is None:
            raise UpstreamError("auth", None, None, "the auth service is not reachable")
        return nodes

    bell = Bell(announcer, household_nodes)
    return asyncio.run(bell.ring(f"timer {timer.id}", timer.node_id, "home", "timer", timer.done_message())), announcer, bell


def timer(node_id: str) -> Timer:
    return Timer("t1", "egg", node_id, 120, "2026-11-26T12:00:00+00:00")


def test_a_nodes_timer_rings_on_that_node_only():
    rang, announcer, _ = ring(timer("kitchen"), ["kitchen", "hall"])
    assert rang and announcer.rung == [("kitchen", "Your egg timer is done.")]


def test_a_households_timer_rings_on_each_of_its_nodes_and_once_on_any():
    rang, announcer, bell = ring(timer(""), ["kitchen", "hall"])
    assert rang and [node for node, _ in announcer.rung] == ["kitchen", "hall"]
    rang, announcer, bell = ring(timer(""), ["kitchen", "hall"], unreachable=frozenset({"hall"}))
    assert rang and [node for node, _ in announcer.rung] == ["kitchen"] and bell.failures == 0


def test_a_households_timer_is_tried_again_when_no_node_took_it_or_nodes_cannot_be_listed():
    rang, announcer, bell = ring(timer(""), ["kitchen", "hall"], unreachable=frozenset({"kitchen", "hall"}))
    assert not rang and bell.failures == 1
    rang, announcer, bell = ring(timer(""), None)
    assert not rang and bell.failures == 1 and announcer.rung == []


def test_a_households_timer_without_any_node_is_dropped():
    rang, announcer, bell = ring(timer(""), [])
    assert rang and announcer.rung == [] and bell.failures == 0
