"""The words of a streamed turn heard from Silero's end of speech (issue 24): the speculative
transcription starts there, not at the pause that decides, so the transcript is in sooner; the turn
still ends only at the pause, speech that resumes makes the early words stale, and a transcription
of stale speech still running delays the next rather than running beside it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

from listening_kit import RULES, pipeline_hearing
from spoken import espeak
from stream_client import pcm_of, silence
from voxd.services.command_center.streaming.judging import TRAILING_SILENCE, StreamTools
from voxd.services.command_center.streaming.listening import ListeningTurn
from voxd.services.command_center.streaming.pauses import SpeechTracker, voice_activity
from voxd.services.command_center.streaming.protocol import EndReason
from voxd.wire.speech import Timings, Transcription

FRAME = 1280  # 40 ms, as the node sends them
RULES_NO_MODEL_ALONE = replace(RULES, sure=1.0)


class Scripted:
    """A speech-to-text service that hears each clip as `hears(its speech's length in bytes)`, one
    answer per `let_go()`; it notes the speech of every clip it is asked."""

    def __init__(self, hears: Callable[[int], str], held: bool = False) -> None:
        self.hears, self.clips = hears, []
        self.allowed = asyncio.Semaphore(0 if held else 1000)

    def let_go(self) -> None:
        self.allowed.release()

    async def transcribe(self, audio: bytes, household_id: str, identify: bool = True) -> Transcription:
        speech = len(audio) - 44 - len(TRAILING_SILENCE)  # the WAV's header and the silence it ends on
        self.clips.append(speech)
        await self.allowed.acquire()
        return Transcription(self.hears(speech), "en", 0, None, Timings(0, 0, 0))


class NoModel:
    def probability(self, pcm: bytes) -> float:
        raise AssertionError("a whole command or half a sentence needs no model")


def listening_to(speech: Scripted, text: str) -> ListeningTurn:
    tools = StreamTools(pipeline_hearing(text), lambda: NoModel(), lambda: RULES_NO_MODEL_ALONE)
    tools.pipeline.speech = speech
    return ListeningTurn(tools, "home", voice_activity())


def frames(pcm: bytes) -> list[bytes]:
    return [pcm[at:at + FRAME] for at in range(0, len(pcm), FRAME)]


def speech_in(pcm: bytes) -> int:
    """Silero's voiced chunks in `pcm` (it is deterministic: the turn's tracker counts the same)."""
    tracker = SpeechTracker(voice_activity())
    tracker.feed(pcm)
    return tracker.speech_chunks


async def until_heard(listening: ListeningTurn, pcm: bytes) -> int:
    """Feeds `pcm` a frame at a time until the words of all its speech are being heard (from its end
    of speech on); the audio fed."""
    fed, spoken = 0, speech_in(pcm)
    for frame in frames(pcm):
        listening.feed(frame)
        fed += len(frame)
        assert listening.check() is None or listening.tracker.silence >= RULES.pause
        words, tracker = listening.words, listening.tracker
        if words.busy and words.chunks == tracker.speech_chunks == spoken and tracker.silence > 0:
            return fed
        await asyncio.sleep(0)  # a transcription of stale speech may end here
    raise AssertionError("no transcription started at the end of speech")


async def ended(listening: ListeningTurn, pcm: bytes) -> EndReason | None:
    """Feeds `pcm` a frame at a time; the end, checked after each frame, and never before the pause."""
    for frame in frames(pcm):
        listening.feed(frame)
        reason = listening.check()
        if reason is not None:
            assert listening.tracker.silence >= RULES.pause
            return reason
    return await asyncio.wait_for(listening.listen(), 30)


def test_a_turn_ending_at_the_pause_keeps_the_words_heard_from_the_end_of_speech():
    """The transcription starts before the pause, the whole command it hears still ends the turn only
    at the pause, and no second transcription is asked for the final transcript."""
    text = "set a timer for ten minutes"

    async def turn():
        speech = Scripted(lambda _: "Set a timer for ten minutes.")
        listening, pcm = listening_to(speech, text), pcm_of(espeak(text)) + silence(0.5)
        fed = await until_heard(listening, pcm)
        early = listening.tracker.silence
        await asyncio.wait_for(asyncio.shield(listening.words.task), 30)
        in_before_the_pause = listening.check()  # the words are in: a whole command, yet no pause yet
        reason = await ended(listening, pcm[fed:])
        cut, asked = listening.judgement.cut_samples * 2, len(speech.clips)
        heard = await listening.transcript()
        await listening.close()
        return early, in_before_the_pause, reason, cut == fed, asked == len(speech.clips), heard.text
    early, before, reason, cut_there, no_more, heard = asyncio.run(turn())
    assert 0 < early < RULES.pause
    assert (before, reason, cut_there, no_more, heard) == (None, EndReason.COMPLETE_COMMAND, True, True,
                                                          "Set a timer for ten minutes.")


def test_speech_resuming_after_an_end_of_speech_discards_the_early_words():
    """"add eggs" heard at its end of speech is stale once "and butter ..." begins: neither its words
    nor its audio are the turn's, and the next end of speech is heard afresh."""
    first, second = pcm_of(espeak("add eggs")), pcm_of(espeak("and butter to the shopping list"))

    async def turn():
        speech = Scripted(lambda said: "Add eggs." if said <= len(first) else "Add eggs and butter to the shopping list.")
        listening = listening_to(speech, "add eggs")
        await until_heard(listening, first)
        await asyncio.wait_for(asyncio.shield(listening.words.task), 30)
        early = listening.judgement.heard.text
        listening.feed(second)
        stale = listening.judgement, listening.audio_held_at()
        reason = await ended(listening, silence(0.4))
        heard = await listening.transcript()
        await listening.close()
        return early, stale, reason, heard.text, speech.clips[-1] > len(first)
    early, stale, reason, heard, longer = asyncio.run(turn())
    assert early == "Add eggs." and stale == (None, None)
    assert reason is EndReason.COMPLETE_COMMAND and heard == "Add eggs and butter to the shopping list." and longer


def test_a_stale_transcription_still_running_delays_the_next_rather_than_running_beside_it():
    """The speech-to-text service hears one clip at a time and does not stop one half-way: while the
    words of "add eggs" are still being heard after speech resumed, the new end of speech waits."""
    first, second = pcm_of(espeak("add eggs")), pcm_of(espeak("and butter to the shopping list"))

    async def turn():
        speech = Scripted(lambda said: "Add eggs." if said <= len(first) else "Add eggs and butter to the shopping list.",
                          held=True)
        listening = listening_to(speech, "add eggs")
        await until_heard(listening, first)
        stale = listening.words.task
        for frame in frames(second + silence(0.4)):
            listening.feed(frame)
            assert listening.check() is None  # the new words are not in: nothing ends
            await asyncio.sleep(0)  # a second transcription, had one started, would be asked here
        waited = listening.words.task is stale and len(speech.clips) == 1
        speech.let_go()  # the stale one ends; the newest speech is heard now
        await asyncio.wait_for(asyncio.shield(stale), 30)
        listening.check()
        fresh = listening.words.task is not stale and listening.words.chunks == listening.tracker.speech_chunks
        speech.let_go()
        reason = await asyncio.wait_for(listening.listen(), 30)
        heard = await listening.transcript()
        await listening.close()
        return waited, fresh, reason, heard.text, len(speech.clips)
    assert asyncio.run(turn()) == (True, True, EndReason.COMPLETE_COMMAND,
                                   "Add eggs and butter to the shopping list.", 2)


def voiced_for(chunks: int) -> Callable[[bytes], float]:
    """A voice activity detector that calls the first `chunks` chunks speech and nothing after."""
    calls = iter(range(1 << 30))
    return lambda chunk: 1.0 if next(calls) < chunks else 0.0


def test_the_early_words_wait_for_a_loud_tail_that_is_no_speech():
    """A plosive's release or a final "s" can be loud after the last chunk Silero calls speech (the
    timeline saw loud audio up to 192 ms after it): the early transcription starts two quiet chunks
    after the tail (at the latest at the pause), so its clip holds the whole word; one is asked."""
    import numpy as np
    rng = np.random.default_rng(24)
    spoken = (np.sin(np.arange(30 * 512) * 0.1) * 8000).astype(np.int16).tobytes()  # 30 chunks of speech
    release = rng.integers(-3000, 3000, 3 * 512, dtype=np.int16).tobytes()  # 3 loud chunks Silero would not voice
    pcm = spoken + silence(0.032) + release + silence(0.5)

    async def turn():
        speech = Scripted(lambda _: "Set a timer for ten minutes.")
        tools = StreamTools(pipeline_hearing("set a timer for ten minutes"), lambda: NoModel(),
                            lambda: RULES_NO_MODEL_ALONE)
        tools.pipeline.speech = speech
        listening = ListeningTurn(tools, "home", voiced_for(30))
        reason = await ended(listening, pcm)
        await listening.close()
        return reason, speech.clips
    reason, clips = asyncio.run(turn())
    assert reason is EndReason.COMPLETE_COMMAND
    assert len(clips) == 1 and clips[0] >= len(spoken + silence(0.032) + release), clips
