"""`set_volume`: "turn it up", "volume 4", "quieter", "mute for an hour", "unmute". The volume of
the node that heard it (0 to 10, its replies and chimes), kept here per node (this command's
storage) so "turn it up" knows where it starts, and sent to the node as a `volume` announcement
with absolute values (a message delivered twice changes nothing). The node keeps it across its
restarts and ends a timed mute by itself (node/voxd_node/volume.py); the timer and alarm bells
never go below its floor. The confirmation is synthesized after the broker took the new volume,
so the node plays it at the new volume (silent for a mute)."""

from __future__ import annotations

import re
from dataclasses import asdict, replace
from datetime import datetime, timedelta
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import ASKING, spoken_duration
from voxd.commands.builtin.home.speakers import BROKER_DOWN, NO_BROKER, Speakers, Volume
from voxd.commands.phrasebook import phrasebook
from voxd.language.templates import normalize_utterance

LOUDEST = 10
NO_NODE = "Ask the voice node itself: I can only change the volume of the speaker that hears you."
UP_DOWN = "{change:choice(up=up|louder, down=down|quieter|softer)}"
# A claim of the semantic stage stands only on words about loudness.
LOUDNESS = re.compile(r"\b(?:volume|loud|louder|loudly|quiet|quieter|quietly|soft|softer|softly|mute|unmute|"
                      r"sound|speakers?|turn (?:it|this|that) (?:up|down)|hear you|speak up|vocals|voice box)\b")


class SetVolume(Command):
    name = "set_volume"
    topic = "volume"
    description = (
        "Change the loudness of this voice node: a level from 0 to 10, a step up or down, "
        "mute (for a while, or until unmuted) or unmute. Not for music or other devices."
    )
    examples = phrasebook("set_volume")
    parameters = (
        Parameter("level", "integer", "volume level from 0 to 10, only when the user says a number"),
        Parameter("change", "enum", "up for louder, down for quieter", choices=("up", "down")),
        Parameter("mute", "boolean", "true to mute, false to unmute"),
        Parameter("duration_seconds", "duration", "how long to stay muted, only when the user says"),
    )
    templates = (
        f"{ASKING} (set|turn|put|change) [the|your] volume (to|at) [level] {{level:integer}} [please]",
        "[please] volume [level] {level:integer} [please]",
        "[please] (max|maximum|full) volume [please]",
        f"{ASKING} turn (it|this|that|the volume|the sound|your volume|yourself) {UP_DOWN} [a bit|a little] [please]",
        f"{ASKING} turn {UP_DOWN} (the|your) (volume|sound) [a bit|a little] [please]",
        f"{ASKING} {{change:choice(up=increase|raise, down=lower|decrease|reduce)}} [the|your] volume [please]",
        f"{ASKING} (speak|talk) {{change:choice(up=up|louder, down=more quietly|quieter|softer|more softly)}} [please]",
        "[please] [a bit|a little] {change:choice(up=louder, down=quieter|softer)} [please]",
        f"{ASKING} {{mute:choice(on=mute, off=unmute)}} [yourself|the speaker|the sound] "
        "[for {duration_seconds:duration}] [please]",
        "(what is|what level is|how loud is) [the|your] volume [at|set to] [now]",  # none given: the volume said
    )
    speakers: Speakers | None = None  # set by the command center with its broker (nodes/rooms.py)

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        said = normalize_utterance(text)
        if re.search(r"\b(?:max|maximum|full) volume\b", said):
            arguments = {**arguments, "level": LOUDEST}
        if isinstance(arguments.get("mute"), str):
            arguments = {**arguments, "mute": arguments["mute"] == "on"}
        return arguments

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """Loudness named: "turn on the lights" is no volume."""
        return LOUDNESS.search(normalize_utterance(text)) is not None

    async def execute(self, request: CommandRequest, level: int | None = None, change: str | None = None,
                      mute: bool | None = None, duration_seconds: int | None = None) -> CommandResponse:
        if not request.node_id:
            return CommandResponse(NO_NODE, success=False)
        if self.speakers is None:
            return CommandResponse(NO_BROKER, success=False)
        now = request.now
        current = audible_now(Volume(**(await request.storage.get(request.node_id) or {})), now)
        if level is not None and not 0 <= level <= LOUDEST:
            return CommandResponse("The volume goes from 0 to 10.", success=False, wait_for_input=False)
        wanted, said = next_volume(current, now, level, change, mute, duration_seconds)
        if wanted == current and level is None and mute is None:  # a question, or a step past an end
            return CommandResponse(said, data={"volume": asdict(current)})
        if not await self.speakers.set_volume(request.node_id, wanted):
            return CommandResponse(BROKER_DOWN, success=False)
        await request.storage.put(request.node_id, asdict(wanted))
        return CommandResponse(said, data={"volume": asdict(wanted)})


def audible_now(volume: Volume, now: datetime) -> Volume:
    """A timed mute that has ended is no mute (the node ended it by itself at that time)."""
    if volume.muted and volume.muted_until and datetime.fromisoformat(volume.muted_until) <= now:
        return replace(volume, muted=False, muted_until=None)
    return volume


def next_volume(current: Volume, now: datetime, level: int | None, change: str | None, mute: bool | None,
                duration_seconds: int | None) -> tuple[Volume, str]:
    """The volume asked for and the sentence that says it."""
    if mute:
        until = now + timedelta(seconds=duration_seconds) if duration_seconds else None
        wanted = replace(current, muted=True, muted_until=until.isoformat() if until else None)
        return wanted, f"Muted for {spoken_duration(duration_seconds)}." if until else "Muted. Say unmute to hear me again."
    if level is not None:
        return Volume(level), f"Volume {level}."
    if change is not None:
        step = 1 if change == "up" else -1
        if not current.muted and current.level + step not in range(LOUDEST + 1):
            return current, "That's as loud as I go." if step > 0 else "The volume is as low as it goes."
        new_level = current.level if current.muted else current.level + step
        return Volume(new_level), f"Volume {new_level}."
    if mute is False:
        return Volume(current.level), f"Unmuted. Volume {current.level}."
    muted = " I'm muted." if current.muted else ""
    return current, f"The volume is {current.level}.{muted}"


COMMANDS = [SetVolume]
