"""The speaker's display name is asked of the auth service once and remembered for five minutes
(docs/architecture.md, Voice pipeline rules, rule 4): long enough that a busy kitchen does not ask per command, short enough that a
renamed user is greeted by the new name. A controllable clock stands in for waiting five minutes."""

from __future__ import annotations

import asyncio

from clock import Clock

from voxd.services.command_center.pipeline.speech import NAME_CACHE_SECONDS, Speech
from voxd.wire.speech import SpeakerMatch


class AuthNames:
    """Stands in for the service client: answers /internal/users/{id} and counts the questions."""

    def __init__(self) -> None:
        self.name = "Sam"
        self.asked = 0

    async def call(self, service: str, method: str, path: str, **kwargs) -> dict:
        assert (service, method, path) == ("auth", "GET", "/internal/users/u1")
        self.asked += 1
        return {"user_id": "u1", "display_name": self.name, "household_id": None}


def test_a_speakers_name_is_remembered_for_five_minutes_and_no_longer():
    assert NAME_CACHE_SECONDS == 300
    clock, auth = Clock(), AuthNames()
    speech = Speech(auth, clock=clock)

    sam = SpeakerMatch(user_id="u1", confidence=0.9)

    async def story() -> list[str]:
        heard = [(await speech.speaker(sam)).name]
        auth.name = "Samantha"  # renamed in the auth service
        clock.now += NAME_CACHE_SECONDS - 1
        heard.append((await speech.speaker(sam)).name)
        clock.now += 2
        heard.append((await speech.speaker(sam)).name)
        return heard

    assert asyncio.run(story()) == ["Sam", "Sam", "Samantha"]
    assert auth.asked == 2
