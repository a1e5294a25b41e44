"""`stop`: the user wants silence now, so it is answered at once and never waits for a model."""

from __future__ import annotations

from voxd.commands.api import Command, CommandRequest, CommandResponse
from voxd.commands.phrasebook import phrasebook

ACKNOWLEDGEMENT = "Okay."


class Stop(Command):
    name = "stop"
    in_help = False  # said to end a conversation, not a thing to offer
    description = (
        "Stop talking or end the conversation when the user says stop, cancel, never mind, "
        "be quiet or that's all. Not for stopping a timer, music or a device."
    )
    examples = phrasebook("stop")
    # Bare words only: "stop the timer" or "cancel my order" carry an object and belong elsewhere.
    templates = (
        "[please|okay|ok|oh|no|cheers] (stop|stop it|cancel|cancel that|pause|nevermind|never mind|be quiet|quiet"
        "|shush|that is all|that is it|that is enough|forget it|forget about it) [please|thanks|thank you]",
    )

    async def execute(self, request: CommandRequest) -> CommandResponse:
        return CommandResponse(ACKNOWLEDGEMENT, data={"stop": True})


COMMANDS = [Stop]
