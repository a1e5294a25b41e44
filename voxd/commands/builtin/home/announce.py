"""`announce`: "tell everyone dinner is ready", "say to the kitchen that we're leaving": the message
spoken on every voice node of the household, or on the named room's, through the command center's
announcements (the broker), never on the node that heard it: the people there heard it said. When
that node is the only one in the named room, nothing is sent and the reply says why. A typed
command (a phone, `voxd ask`: no node) reaches every node."""

from __future__ import annotations

import re
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter, Speaker
from voxd.commands.builtin import ASKING, plural, sentence_case, spoken_list
from voxd.commands.builtin.home.speakers import (BROKER_DOWN, NO_BROKER, NODES_UNKNOWN, NodesUnknown, Speakers, VoiceNode,
                                            room_key)
from voxd.commands.phrasebook import phrasebook
from voxd.language.templates import normalize_utterance

KIND = "announcement"  # the announcement kind the node hears (spoken like any other)
EVERYONE = "(everyone|everybody|the whole house|the whole family|the house|all rooms|every room)"
# A claim of the semantic stage stands only on a request to pass words on to other people.
ANNOUNCING = re.compile(r"\b(?:announce|announcement|broadcast|intercom|everyone|everybody|whole house|all rooms|"
                        r"every room|the house|the family)\b|\b(?:tell|say to|let) the \w+(?: room)? (?:know )?that\b")


class Announce(Command):
    name = "announce"
    topic = "announcements"
    description = (
        "Say a message aloud on every voice node of the household, or in one named room, for the people "
        "there ('tell everyone dinner is ready', 'say to the kitchen that we are leaving')."
    )
    examples = phrasebook("announce")
    parameters = (
        Parameter("message", "string", "the words to pass on, as the user said them", required=True),
        Parameter("room", "string", "the room to say it in, only when the user names one; absent means every room"),
    )
    templates = (
        f"{ASKING} (tell|let) {EVERYONE} in [the] {{room}} [know] that {{message}}",
        f"{ASKING} (announce|broadcast|say) (to|in) [the] {{room}} that {{message}}",
        f"{ASKING} (tell|let) {EVERYONE} [know] [that] {{message}}",
        f"{ASKING} (announce|broadcast) [to {EVERYONE}] [that] {{message}}",
        f"{ASKING} make an announcement [to {EVERYONE}] [that] {{message}}",
        f"{ASKING} tell the {{room}} that {{message}}",  # "the": "tell john that ..." is a text message
        f"{ASKING} let the {{room}} know that {{message}}",
    )
    speakers: Speakers | None = None  # set by the command center with its broker (nodes/rooms.py)

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """The message as said ("we're", not the templates' "we are"); "tell everyone to come down"
        passes on "please come down"; "announce to everyone that ..." names no room."""
        message = as_said(arguments.get("message") or "", text).strip(" ,.")
        if message.lower().startswith("to "):
            message = "please " + message[3:]
        room = arguments.get("room")
        return {**arguments, "message": message or None, "room": None if room and everywhere(room) else room}

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """Words to pass on to the others: "tell me a joke" is nobody's announcement."""
        return ANNOUNCING.search(normalize_utterance(text)) is not None

    async def execute(self, request: CommandRequest, message: str, room: str | None = None) -> CommandResponse:
        if self.speakers is None:
            return CommandResponse(NO_BROKER, success=False)
        try:
            nodes = await self.speakers.nodes(request.household_id)
        except NodesUnknown:
            return CommandResponse(NODES_UNKNOWN, success=False)
        chosen = [node for node in nodes if room_key(node.room) == room_key(room)] if room else nodes
        if room and not chosen:
            rooms = spoken_list(rooms_of(nodes))
            known = f" Your rooms with voice nodes are {rooms}." if rooms else ""
            return CommandResponse(f"There's no voice node in a room called {room}.{known}", success=False)
        targets = [node for node in chosen if node.node_id != request.node_id]
        if not targets:
            return CommandResponse(nowhere_else(room), success=False)
        reached = set(await self.speakers.say([node.node_id for node in targets], KIND, spoken(message, request.speaker)))
        if not reached:
            return CommandResponse(BROKER_DOWN, success=False)
        heard = [node for node in targets if node.node_id in reached]
        return CommandResponse(announced_in(heard), data={"nodes": sorted(reached), "rooms": rooms_of(heard)})


def everywhere(room: str) -> bool:
    """'everyone', 'all the rooms', 'the whole house': no one room."""
    return re.fullmatch(r"(?:all |every |the whole |whole )?(?:everyone|everybody|all|rooms?|house|family|home)",
                        room_key(room)) is not None


def as_said(matched: str, text: str) -> str:
    """The end of `text` that a template's last slot matched (in normalized words), as written."""
    words = text.split()
    for start in range(len(words)):
        tail = " ".join(words[start:])
        if normalize_utterance(tail) == matched:
            return tail
    return matched


def spoken(message: str, speaker: Speaker | None) -> str:
    """'Anna says: Dinner is ready.', or 'Announcement: Dinner is ready.' from an unknown voice."""
    said = sentence_case(message.strip())
    if said[-1:] not in ".!?":
        said += "."
    return f"{speaker.name} says: {said}" if speaker else f"Announcement: {said}"


def rooms_of(nodes: list[VoiceNode]) -> list[str]:
    """Each room once, as the first of its nodes names it ("Lounge" and "lounge" are one)."""
    rooms: dict[str, str] = {}
    for node in nodes:
        rooms.setdefault(room_key(node.room), node.room)
    return sorted(rooms.values(), key=str.lower)


def announced_in(nodes: list[VoiceNode]) -> str:
    rooms = rooms_of(nodes)
    if len(rooms) == 1:
        return f"Announced in the {rooms[0]}."
    return f"Announced in {len(rooms)} {plural(len(rooms), 'room')}."


def nowhere_else(room: str | None) -> str:
    if room:
        return f"This is the only voice node in the {room}, so everyone there heard you already."
    return "There's no other voice node in your household to announce it on."


COMMANDS = [Announce]
