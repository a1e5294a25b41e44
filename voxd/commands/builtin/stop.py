"""`stop`: the user wants silence now, so it is answered at once and never waits for a model. An
alarm ringing where it is said stops too (alarm_book.stop_ringing): a repeating one until its next
day, a one-off for good."""

from __future__ import annotations

import re
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse
from voxd.commands.builtin.clock.alarm_book import SCOPE as ALARMS, stop_ringing
from voxd.commands.phrasebook import phrasebook

ACKNOWLEDGEMENT = "Okay."
# Things stopped or cancelled that are not voxd's talk: "stop the music", "cancel my order".
OTHER_THINGS = re.compile(
    r"\b(?:music|songs?|track|radio|podcast|playlist|video|tv|telly|alarms?|timers?|vacuum|hoover|washing|"
    r"dishwasher|heating|lights?|recording|subscription|order|payment|card|membership|reservation|booking|"
    r"flight|account|meeting|appointment)\b")
# The words that ask voxd to stop or to leave it: a sentence near stop's examples with none of them is
# an answer to something else ("ok", "you got it", "no, don't do that", "i can't make up my mind").
STOPPING = re.compile(
    r"\b(?:stop\w*|cancel\w*|quit|halt|abort|terminate|discontinue|scrap|cease|shut|quiet|hush|shush|sh+|"
    r"wheesht|silence|never ?mind|forget|enough|done|finished|(?:that is|that's|thats|be) all|all for now|"
    r"nothing|everything|(?:that|that'll|thatll|it'll|will) do|don't worry|talking|speaking|yapping|pause|undo|"
    r"abandon|refrain|negate|rescind|destroy|eliminate|scratch|zip it|end|switch off|any ?more|any further|"
    r"(?:don't|do not) (?:continue|complete|do this|talk|speak|say|go on)|(?:current|last) (?:task|job|action|"
    r"process|command|request))\b")


class Stop(Command):
    name = "stop"
    in_help = False  # said to end a conversation, not a thing to offer
    storage_scope = ALARMS  # the alarms ringing here
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

    def declines(self, text: str) -> bool:
        """Stopping something else (music, a timer, an order) is not this command's."""
        return super().declines(text) or OTHER_THINGS.search(text.lower()) is not None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A semantic claim needs a word that asks to stop or to leave it (`STOPPING`)."""
        return STOPPING.search(text.lower()) is not None

    async def execute(self, request: CommandRequest) -> CommandResponse:
        stopped = await stop_ringing(request.storage, request.node_id, request.now)
        return CommandResponse(ACKNOWLEDGEMENT, data={"stop": True, "alarms_stopped": [alarm.id for alarm in stopped]})


COMMANDS = [Stop]
