"""In-memory stand-ins for the voice pipeline's dependencies (voxd/services/command_center/pipeline/ports.py),
so tests build a real `Pipeline` without a daemon: a store in dicts, a language model that answers
from a script (or is down), and speech services that hear a given text."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from voxd.commands.api import Change, Command, Speaker, T
from voxd.commands.registry import built_in_commands
from voxd.services.command_center.pipeline.language_model import ModelUnavailable
from voxd.services.command_center.pipeline.pipeline import Pipeline
from voxd.services.command_center.pipeline.speech import SpeechUnavailable
from voxd.services.command_center.storage.store import ApplicableSecrets, Memory
from voxd.wire.openai_chat import AnsweredCall, AnsweredFunction, AnsweredMessage, Message, Tool
from voxd.wire.speech import SpeakerMatch, Timings, Transcription

LONDON = ZoneInfo("Europe/London")


class FakeStore:
    """Command documents go through JSON as they would in SQLite; one household's secrets."""

    def __init__(self, secrets: dict[str, str] | None = None, unreadable: set[str] | None = None) -> None:
        self.documents: dict[tuple[str, str, str], str] = {}
        self.secrets = dict(secrets or {})
        self.unreadable = set(unreadable or ())
        self.saved: list[Memory] = []

    async def memories(self, user_id: str | None) -> list[Memory]:
        return [memory for memory in self.saved if user_id is None or memory.user_id == user_id]

    async def add_memory(self, user_id: str, household_id: str | None, content: str) -> Memory:
        memory = Memory(f"m{len(self.saved)}", user_id, household_id, content, "2026-03-07T15:05:00Z")
        self.saved.append(memory)
        return memory

    async def forget_matching(self, user_id: str, fragment: str) -> list[Memory]:
        doomed = [m for m in self.saved if m.user_id == user_id and fragment.lower() in m.content.lower()]
        self.saved = [m for m in self.saved if m not in doomed]
        return doomed

    async def secret_values(self, household_id: str, node_id: str) -> ApplicableSecrets:
        return ApplicableSecrets(dict(self.secrets), set(self.unreadable))

    async def speaker_secret_values(self, user_id: str) -> ApplicableSecrets:
        return ApplicableSecrets()

    async def get_document(self, household_id: str, command: str, key: str) -> Any:
        found = self.documents.get((household_id, command, key))
        return None if found is None else json.loads(found)

    async def put_document(self, household_id: str, command: str, key: str, value: Any) -> None:
        self.documents[(household_id, command, key)] = json.dumps(value)

    async def delete_document(self, household_id: str, command: str, key: str) -> None:
        self.documents.pop((household_id, command, key), None)

    async def update_document(self, household_id: str, command: str, key: str, change: Change[T]) -> T:
        """Atomic as the real store's: nothing awaits between the read and the write."""
        document, answer = change(await self.get_document(household_id, command, key))
        if document is None:
            await self.delete_document(household_id, command, key)
        else:
            await self.put_document(household_id, command, key, document)
        return answer


def chose(name: str, arguments: dict[str, Any]) -> AnsweredMessage:
    """The model's answer that calls one tool."""
    return AnsweredMessage(None, [AnsweredCall(AnsweredFunction(name, json.dumps(arguments)), "call_1")])


def said(content: str) -> AnsweredMessage:
    return AnsweredMessage(content)


class FakeModel:
    """Answers chat calls from `script` in order (down when it runs out, or when `down`); `ask`
    is a given function, or None as without a model. `chats` records what it was sent."""

    def __init__(self, script: list[AnsweredMessage] | None = None, down: bool = False,
                 ask: Callable[[str], Awaitable[str | None]] | None = None, present: bool = True) -> None:
        self.script = list(script or [])
        self.present = present  # configured (answering or down); False: none is, as by default
        self.down = down
        self._ask = ask
        self.chats: list[tuple[list[Message], list[Tool] | None]] = []

    async def chat(self, messages: list[Message], tools: list[Tool] | None = None) -> AnsweredMessage:
        self.chats.append((messages, tools))
        if self.down or not self.script:
            raise ModelUnavailable("no model here")
        return self.script.pop(0)

    async def ask(self, question: str) -> str | None:
        return await self._ask(question) if self._ask else None

    async def configured(self) -> bool:
        return self.present


class FakeSpeech:
    """Hears `heard` from any audio (a known voice when `voice` names a user); says replies as
    b'WAV:<text>'. `stt_down` / `tts_down` make that service fail."""

    def __init__(self, heard: str = "", voice: Speaker | None = None, stt_down: bool = False,
                 tts_down: bool = False) -> None:
        self.heard, self.voice = heard, voice
        self.stt_down, self.tts_down = stt_down, tts_down

    async def transcribe(self, audio: bytes, household_id: str, identify: bool = True) -> Transcription:
        if self.stt_down:
            raise SpeechUnavailable("stt", "not running")
        match = SpeakerMatch(self.voice.user_id, 0.9) if self.voice and identify else None
        return Transcription(self.heard, "en", 1000, match, Timings(1.0, 2.0, 0.5))

    async def speaker(self, match: SpeakerMatch | None) -> Speaker | None:
        return self.voice if match is not None and self.voice is not None else None

    async def named(self, user_id: str) -> Speaker | None:
        return Speaker(user_id, "Pat")

    async def synthesize(self, text: str) -> tuple[bytes, float | None]:
        if self.tts_down:
            raise SpeechUnavailable("tts", "not running")
        return f"WAV:{text}".encode(), 3.0


def make_pipeline(store: FakeStore | None = None, model: FakeModel | None = None, speech: FakeSpeech | None = None,
                  commands: list[Command] | None = None, http: Any = None,
                  clock: Callable[[ZoneInfo], datetime] | None = None) -> Pipeline:
    async def zone(household_id: str) -> ZoneInfo:
        return LONDON

    return Pipeline(commands if commands is not None else built_in_commands(), store or FakeStore(),
                    model or FakeModel(), speech or FakeSpeech(), zone, http,
                    clock=clock or datetime.now)
