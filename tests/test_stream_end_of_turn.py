"""Unit tests of a streamed turn's parts (issue 24): the end-of-turn decision, the pauses the
voice activity detector finds in real speech (the arbitration between nodes: test_stream_arbitration.py)."""

from __future__ import annotations

import asyncio

import pytest

from listening_kit import RULES, pipeline_hearing
from spoken import espeak
from stream_client import pcm_of, silence
from voxd.services.command_center.streaming.end_of_turn import Moment, TurnRules, decide, half_sentence, may_go_on
from voxd.services.command_center.streaming.pauses import SpeechTracker, energy, voice_activity
from voxd.services.command_center.streaming.protocol import EndReason


def at(silence: float, probability: float | None = None, complete: bool | None = None, heard: bool = True,
       seconds: float = 3.0, speech: bool = True, model: bool = True, goes_on: bool = False) -> EndReason | None:
    return decide(Moment(seconds, silence, speech, probability, complete, heard, model, goes_on), RULES)


def test_words_that_are_no_command_end_at_the_models_threshold():
    assert at(0.2, probability=0.6) is EndReason.SMART_TURN
    assert at(0.2, probability=0.4) is None
    assert at(0.2) is None  # the model's probability is not in yet
    assert at(0.1, probability=0.9) is None  # not a pause yet


def test_words_that_are_no_command_wait_no_longer_than_the_fixed_silence():
    """A mishearing ("What is well time is seven.") the model calls unfinished waited for the 1.5 s
    ceiling; it waits as long as a turn without the model (the WAV path's 0.8 s)."""
    assert at(RULES.fixed_silence - 0.05, probability=0.1) is None
    assert at(RULES.fixed_silence, probability=0.1) is EndReason.SILENCE_CEILING
    assert at(RULES.fixed_silence) is EndReason.SILENCE_CEILING  # the model is not in (or not asked)
    assert at(RULES.fixed_silence, probability=0.99, complete=False) is None  # half a sentence: the ceiling
    assert at(RULES.fixed_silence, heard=False) is None  # the words are not in yet: the ceiling


def test_before_the_words_are_in_only_a_sure_model_ends_the_turn():
    assert at(0.2, probability=0.95, heard=False) is EndReason.SMART_TURN
    assert at(0.2, probability=0.8, heard=False) is None  # it waits for the words
    assert at(0.2, heard=False) is None


def test_a_whole_command_ends_the_turn_even_where_the_model_hesitates_or_is_not_in():
    assert at(0.2, probability=0.3, complete=True) is EndReason.COMPLETE_COMMAND
    assert at(0.2, complete=True) is EndReason.COMPLETE_COMMAND  # the model is not needed
    assert at(0.2, probability=0.3) is None
    assert at(0.2, probability=0.05, complete=True) is None  # the model is sure the speaker goes on


def test_a_whole_command_that_may_go_on_waits_its_hold():
    assert at(0.6, probability=0.99, complete=True, goes_on=True) is None  # "add eggs" ... "and butter"
    assert at(RULES.open_hold, complete=True, goes_on=True) is EndReason.COMPLETE_COMMAND
    assert at(0.6, probability=0.99, goes_on=True) is None  # no command claims them yet: the same
    assert at(RULES.open_hold, probability=0.99, goes_on=True) is EndReason.SMART_TURN


def test_words_that_may_go_on():
    assert may_go_on("Add milk.") and may_go_on("please add eggs")
    assert not any(map(may_go_on, ("add eggs and butter to the shopping list", "Add bread to my list.", "stop")))


def test_half_a_sentence_waits_for_the_silence_ceiling():
    assert at(0.2, probability=0.99, complete=False) is None  # the words hold even a sure model
    assert at(1.4, probability=0.99, complete=False) is None
    assert at(1.5, probability=0.99, complete=False) is EndReason.SILENCE_CEILING
    assert at(1.5, probability=0.01) is EndReason.SILENCE_CEILING


def test_the_longest_turn_and_no_speech():
    assert at(0.0, seconds=20) is EndReason.MAX_LENGTH
    assert at(5.0, speech=False) is None  # nothing said yet: the node decides it heard nothing
    assert at(5.0, speech=False, seconds=20) is EndReason.MAX_LENGTH


def test_without_the_model_a_fixed_silence_ends_the_turn():
    assert at(0.5, heard=False, model=False) is None
    assert at(0.8, heard=False, model=False) is EndReason.SILENCE_CEILING


@pytest.mark.parametrize("text, half", [("set a timer for", True), ("Add eggs and", True), ("", True),
                                        ("remind me to", True), ("set a timer for ten minutes.", False),
                                        ("stop", False), ("What's the weather?", False),
                                        ("what is seven", True), ("What is 7?", True), ("what's twenty one", True),
                                        ("What is 7 times", True), ("What is 7 times 12?", False), ("For it.", True),
                                        ("set a timer for 10", False), ("what is the time", False)])
def test_half_sentences(text, half):
    assert half_sentence(text) is half


def test_the_detector_finds_the_pause_inside_real_speech():
    """Silero on espeak-ng speech: a 400 ms pause between two halves is found as silence and ends
    when the second half starts; the silence is counted in audio time."""
    tracker = SpeechTracker(voice_activity())
    tracker.feed(pcm_of(espeak("set a timer for")))
    assert tracker.heard_speech
    tracker.feed(silence(0.4))
    assert 0.35 <= tracker.silence <= 0.8  # espeak-ng's own trailing silence adds to the pause
    before = tracker.speech_chunks
    tracker.feed(pcm_of(espeak("ten minutes")))
    assert tracker.speech_chunks > before and tracker.silence < 0.4
    assert tracker.loudness > 0


def test_silence_is_no_speech_and_frames_of_any_length_are_taken():
    tracker = SpeechTracker(voice_activity())
    for _ in range(25):
        tracker.feed(silence(0.08)[:-2])  # odd lengths: the rest waits for the next frame
    assert not tracker.heard_speech and tracker.seconds > 1.9
    assert energy(b"\0\0" * 512) == 0.0


class SlowSpeech:
    """A speech-to-text service that never answers: a judgement stays in flight."""

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def transcribe(self, audio: bytes, household_id: str, identify: bool = True):
        self.started.set()
        await asyncio.Event().wait()


class FakeModel:
    def probability(self, pcm: bytes) -> float:
        return 0.9


def test_closing_a_turn_cancels_its_judgement_and_frees_its_audio():
    from types import SimpleNamespace

    from voxd.services.command_center.streaming.judging import StreamTools
    from voxd.services.command_center.streaming.listening import ListeningTurn

    async def dropped():
        speech = SlowSpeech()
        tools = StreamTools(SimpleNamespace(speech=speech), lambda: FakeModel(), lambda: RULES)
        listening = ListeningTurn(tools, "home", voice_activity())
        listening.feed(pcm_of(espeak("add eggs")) + silence(0.3))
        assert listening.check() is None  # a pause: judged in the background
        await asyncio.wait_for(speech.started.wait(), 30)
        judging = listening.words.task
        await listening.close()
        return judging.cancelled(), len(listening.pcm), listening.words.task
    assert asyncio.run(dropped()) == (True, 0, None)


def test_audio_that_trickles_in_ends_at_a_wall_clock_deadline(monkeypatch):
    from types import SimpleNamespace

    from voxd.services.command_center.streaming import listening as module
    from voxd.services.command_center.streaming.judging import StreamTools

    monkeypatch.setattr(module, "DEADLINE_SLACK", 0.05)
    rules = TurnRules(pause=0.16, silence_ceiling=1.5, threshold=0.5, max_turn=0.05, fixed_silence=0.8)

    async def trickle():
        tools = StreamTools(SimpleNamespace(speech=SlowSpeech()), lambda: None, lambda: rules)
        turn = module.ListeningTurn(tools, "home", voice_activity())
        turn.feed(silence(0.02))  # far less audio than the longest turn, and then nothing
        return await turn.listen()
    assert asyncio.run(trickle()) is EndReason.MAX_LENGTH


@pytest.mark.parametrize("text, complete", [("set a timer for", False), ("set a timer for ten minutes", True),
                                            ("stop", True), ("tell me something nice", None),
                                            ("What is 7?", False), ("What is 7 times 12?", True)])
def test_what_the_words_say(text, complete):
    from voxd.services.command_center.streaming.judging import completeness
    assert asyncio.run(completeness(pipeline_hearing(text), text, "home")) is complete


class Chooses:
    """A semantic stage that takes every sentence for one command."""

    def __init__(self, commands, name: str = "set_timer") -> None:
        self.command = next(c for c in commands if c.name == name)

    async def choose_in_stage_thread(self, text: str):
        return self.command


@pytest.mark.parametrize("text, complete", [("Set the timer for it.", False),
                                            ("start a timer for ten minutes please", True)])
def test_a_command_still_missing_what_it_needs_is_half_a_sentence(text, complete):
    """Whisper hears a pause after "set a timer for" as "Set the timer for it.": the semantic stage
    claims it for set_timer, but with no length the rest is still coming, so the turn waits."""
    from voxd.services.command_center.streaming.judging import completeness
    pipeline = pipeline_hearing(text)
    pipeline.semantic, pipeline.semantic_on = Chooses(pipeline.commands), True
    assert asyncio.run(completeness(pipeline, text, "home")) is complete


@pytest.mark.parametrize("configured, complete", [(False, None), (True, True)])
def test_a_question_is_a_whole_command_only_with_a_model_to_answer_it(configured, complete):
    """Whisper heard a pause in "what is twelve … times seven" as "What is well.": answer_question
    claims it, but without a model nothing can answer it, so no command claims it and the turn waits
    for the rest instead of ending on "not understood"."""
    from types import SimpleNamespace

    from voxd.services.command_center.streaming.judging import completeness
    pipeline = pipeline_hearing("What is well.")
    pipeline.semantic, pipeline.semantic_on = Chooses(pipeline.commands, "answer_question"), True

    async def model_configured() -> bool:
        return configured
    pipeline.model = SimpleNamespace(configured=model_configured)
    assert asyncio.run(completeness(pipeline, "What is well.", "home")) is complete


class Certain:
    """An end-of-turn model sure that every pause ends the turn (as it was of espeak-ng's "set a timer for")."""

    def probability(self, pcm: bytes) -> float:
        return 0.99


def test_a_judged_half_sentence_waits_for_the_silence_ceiling_and_a_whole_command_does_not():
    from voxd.services.command_center.streaming.judging import StreamTools
    from voxd.services.command_center.streaming.listening import ListeningTurn

    async def judged(text: str, pause: float) -> EndReason | None:
        tools = StreamTools(pipeline_hearing(text), lambda: Certain(), lambda: RULES)
        listening = ListeningTurn(tools, "home", voice_activity())
        listening.feed(pcm_of(espeak(text)) + silence(pause))
        listening.check()  # the pause is judged in the background
        while not listening.current:
            listening.changed.clear()
            await asyncio.wait_for(listening.changed.wait(), 30)
        reason = listening.check()
        await listening.close()
        return reason
    assert asyncio.run(judged("set a timer for", 0.4)) is None
    assert asyncio.run(judged("set a timer for", 1.6)) is EndReason.SILENCE_CEILING
    assert asyncio.run(judged("set a timer for ten minutes", 0.3)) is EndReason.COMPLETE_COMMAND
    assert asyncio.run(judged("add eggs", 0.4)) is None  # the list may follow
    assert asyncio.run(judged("add eggs", 0.8)) is EndReason.SMART_TURN  # no template claims it here


class HeldSpeech:
    """A speech-to-text service that answers when let go, counting the transcriptions asked of it."""

    def __init__(self) -> None:
        self.go, self.asked = asyncio.Event(), 0

    async def transcribe(self, audio: bytes, household_id: str, identify: bool = True):
        from voxd.wire.speech import Timings, Transcription
        self.asked += 1
        await self.go.wait()
        return Transcription("add eggs", "en", 0, None, Timings(0, 0, 0))


def test_a_sure_model_ends_the_turn_before_the_words_and_the_transcription_under_way_is_the_final_one():
    from voxd.services.command_center.streaming.judging import StreamTools
    from voxd.services.command_center.streaming.listening import ListeningTurn

    async def ended():
        speech = HeldSpeech()
        tools = StreamTools(pipeline_hearing("add eggs"), lambda: Certain(), lambda: RULES)
        tools.pipeline.speech = speech
        listening = ListeningTurn(tools, "home", voice_activity())
        listening.feed(pcm_of(espeak("add eggs")) + silence(0.3))
        reason = await asyncio.wait_for(listening.listen(), 30)  # the words are still being heard
        in_flight = listening.judgement is None
        speech.go.set()
        heard = await listening.transcript()
        await listening.close()
        return reason, in_flight, heard.text, speech.asked
    assert asyncio.run(ended()) == (EndReason.SMART_TURN, True, "add eggs", 1)


def test_the_final_audio_is_held_when_the_transcription_that_becomes_the_transcript_starts():
    """issue 24's wait ends when the server holds the turn's final audio: the start of the pause's
    transcription it keeps (end_of_turn's `held_for_ms`); speech after the pause makes that audio
    stale, and a turn with no pause judged since its speech is cut at the end."""
    import time

    from voxd.services.command_center.streaming.judging import StreamTools
    from voxd.services.command_center.streaming.listening import ListeningTurn
    from voxd.services.command_center.streaming.timeline import held_for_ms

    async def held():
        speech = HeldSpeech()
        tools = StreamTools(pipeline_hearing("add eggs"), lambda: FakeModel(), lambda: RULES)
        tools.pipeline.speech = speech
        listening = ListeningTurn(tools, "home", voice_activity())
        listening.feed(pcm_of(espeak("add eggs")))
        before_pause = listening.audio_held_at()
        asked_at = time.monotonic()
        listening.feed(silence(0.3))
        listening.check()  # the pause: its transcription starts now
        in_flight = listening.audio_held_at()
        speech.go.set()
        heard = await listening.transcript()
        done = listening.audio_held_at()
        listening.feed(pcm_of(espeak("and butter")))  # the person went on: that audio is not the final one
        went_on = listening.audio_held_at()
        await listening.close()
        return before_pause, in_flight >= asked_at, done == in_flight, heard.text, went_on
    assert asyncio.run(held()) == (None, True, True, "add eggs", None)
    assert held_for_ms(None, 5.0) == 0 and held_for_ms(4.75, 5.0) == 250


def test_the_tracker_notes_the_last_loud_sample_beside_silero_s_end_of_speech():
    """The timeline's first mark: the last chunk with a loud sample, which silence does not move."""
    from voxd.services.command_center.streaming.pauses import CHUNK_SAMPLES

    spoken = pcm_of(espeak("stop"))
    tracker = SpeechTracker(voice_activity())
    tracker.feed(spoken)
    loud_end = tracker.loud_end
    tracker.feed(silence(0.5))
    assert 0 < loud_end <= len(spoken) // 2 + CHUNK_SAMPLES and tracker.loud_end == loud_end
    assert tracker.speech_end > 0


class Counted:
    """An end-of-turn model that counts what it is asked, and of how much audio."""

    def __init__(self, probability: float) -> None:
        self.value, self.asked = probability, []

    def probability(self, pcm: bytes) -> float:
        self.asked.append(len(pcm))
        return self.value


def test_the_model_is_asked_only_when_the_words_leave_the_end_open():
    """With `sure` 1 (the default: the model never ends a turn alone) it does not run beside whisper:
    a whole command ends without it; words that are no command ask it, on the pause's own audio."""
    from dataclasses import replace

    from voxd.services.command_center.streaming.judging import StreamTools
    from voxd.services.command_center.streaming.listening import ListeningTurn

    async def ended(text: str) -> tuple[EndReason | str, list[int], int]:
        model = Counted(0.97)
        tools = StreamTools(pipeline_hearing(text), lambda: model, lambda: replace(RULES, sure=1.0, threshold=0.95))
        listening = ListeningTurn(tools, "home", voice_activity())
        listening.feed(pcm_of(espeak(text)) + silence(0.3))
        reason = await asyncio.wait_for(listening.listen(), 30)
        cut = listening.judgement.cut_samples * 2
        await listening.close()
        return reason, model.asked, cut
    assert asyncio.run(ended("set a timer for ten minutes"))[:2] == (EndReason.COMPLETE_COMMAND, [])
    reason, asked, cut = asyncio.run(ended("tell me something nice"))
    assert reason is EndReason.SMART_TURN and asked == [cut]


class DeafSpeech:
    """A speech-to-text service whose speculative transcription fails."""

    async def transcribe(self, audio: bytes, household_id: str, identify: bool = True):
        raise ConnectionError("stt is down")


def test_a_failed_transcription_holds_no_audio_the_turn_is_transcribed_again_at_the_end():
    from voxd.services.command_center.streaming.judging import StreamTools
    from voxd.services.command_center.streaming.listening import ListeningTurn

    async def failed():
        tools = StreamTools(pipeline_hearing("stop"), lambda: FakeModel(), lambda: RULES)
        tools.pipeline.speech = DeafSpeech()
        listening = ListeningTurn(tools, "home", voice_activity())
        listening.feed(pcm_of(espeak("stop")) + silence(0.3))
        listening.check()
        with pytest.raises(ConnectionError):
            await listening.words.task
        held = listening.audio_held_at()
        await listening.close()
        return held
    assert asyncio.run(failed()) is None
