"""What the voice pipeline needs from outside the process, as Protocols: the command center's
store, the language model and the speech services. The daemon passes the real ones
(store.py, language_model.py, speech.py); tests pass in-memory fakes (tests/pipeline_fakes.py),
so a `Pipeline` can be built and driven without a daemon."""

from __future__ import annotations

from typing import Any, Protocol

from voxd.commands.api import Change, Speaker, T
from voxd.services.command_center.storage.store import ApplicableSecrets, Memory
from voxd.wire.openai_chat import AnsweredMessage, Message, Tool
from voxd.wire.speech import SpeakerMatch, Transcription


class PipelineStore(Protocol):
    """Memories, command secrets and command documents (store.py's CommandCenterStore)."""

    async def memories(self, user_id: str | None) -> list[Memory]: ...

    async def add_memory(self, user_id: str, household_id: str | None, content: str) -> Memory: ...

    async def forget_matching(self, user_id: str, fragment: str) -> list[Memory]: ...

    async def secret_values(self, household_id: str, node_id: str) -> ApplicableSecrets: ...

    async def speaker_secret_values(self, user_id: str) -> ApplicableSecrets: ...

    async def get_document(self, household_id: str, command: str, key: str) -> Any: ...

    async def put_document(self, household_id: str, command: str, key: str, value: Any) -> None: ...

    async def delete_document(self, household_id: str, command: str, key: str) -> None: ...

    async def update_document(self, household_id: str, command: str, key: str, change: Change[T]) -> T: ...


class Model(Protocol):
    """The language model (language_model.py). Raises ModelUnavailable when none answers."""

    async def chat(self, messages: list[Message], tools: list[Tool] | None = None) -> AnsweredMessage: ...

    async def ask(self, question: str) -> str | None: ...

    async def configured(self) -> bool: ...


class SpeechServices(Protocol):
    """Speech-to-text, speaker names and text-to-speech (speech.py). Raises SpeechUnavailable."""

    async def transcribe(self, audio: bytes, household_id: str, identify: bool = True) -> Transcription: ...

    async def speaker(self, match: SpeakerMatch | None) -> Speaker | None: ...

    async def named(self, user_id: str) -> Speaker | None: ...

    async def synthesize(self, text: str) -> tuple[bytes, float | None]: ...


class SpeakerMemories:
    """`CommandRequest.memories` for one known speaker: the public command API's view of the
    memories table, so `remember` and `forget` are ordinary commands."""

    def __init__(self, store: PipelineStore, user_id: str, household_id: str) -> None:
        self._store, self._user_id, self._household_id = store, user_id, household_id

    async def add(self, content: str) -> None:
        await self._store.add_memory(self._user_id, self._household_id, content)

    async def forget_matching(self, fragment: str) -> int:
        return len(await self._store.forget_matching(self._user_id, fragment)) if fragment else 0
