"""The system prompts of the two model calls (docs/architecture.md, Voice pipeline rules 5, 6 and 9)."""

from __future__ import annotations

from datetime import datetime

from voxd.commands.api import Speaker

ROUTING = """You are the voice assistant of a household. Pick exactly one tool for the user's request \
and fill in its arguments from what they said. If no tool fits, answer in one or two short spoken \
sentences without calling a tool.

It is {weekday}, {date}, {time} ({zone}).
{speaker}"""

REPLY = """You are the voice assistant of a household. The user's request was handled by a tool; its \
result follows. Tell the user the outcome in one or two short, natural spoken sentences: no \
markdown, no lists, no emoji."""


def speaker_lines(speaker: Speaker | None, memories: list[str]) -> str:
    if speaker is None:
        return "The speaker is not known."
    lines = [f"The speaker is {speaker.name}."]
    lines += [f"About {speaker.name}: {memory}" for memory in memories]
    return "\n".join(lines)


def routing_prompt(now: datetime, speaker: Speaker | None, memories: list[str]) -> str:
    return ROUTING.format(
        weekday=now.strftime("%A"),
        date=now.strftime("%d %B %Y").lstrip("0"),
        time=now.strftime("%H:%M"),
        zone=now.tzname(),
        speaker=speaker_lines(speaker, memories),
    )
