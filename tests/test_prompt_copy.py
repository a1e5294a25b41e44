"""Whisper copying a sentence of the prompt instead of hearing the clip ("what time is it back home in
Manila" → "What time is it."): the transcriber decodes again without the prompt, but only when the
clip holds clearly more speech than the copied sentence, so ordinary short commands are decoded once."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from voxd.kit.settings import Settings
from voxd.services.stt.prompt_copy import copied_sentence, says_more_than, sentences, speech_seconds, syllables
from voxd.services.stt.settings import load_settings
from voxd.services.stt.transcriber import Transcriber

RATE = 16_000
PROMPT = "Stop. What time is it. Set me a timer for five minutes. On the list: milk, eggs. Anna, Ben."


def speech(seconds: float, quiet_around: float = 0.4) -> np.ndarray:
    """A tone standing for `seconds` of speech, with near silence before and after (as a node records)."""
    t = np.arange(int(seconds * RATE)) / RATE
    voiced = 0.3 * np.sin(2 * np.pi * 220 * t)
    hush = np.random.default_rng(1).normal(0, 1e-4, int(quiet_around * RATE))
    return np.concatenate([hush, voiced, hush]).astype(np.float32)


def test_a_transcript_is_a_copy_when_it_is_one_of_the_prompts_sentences_word_for_word():
    assert sentences(PROMPT)[:2] == ["stop", "what time is it"]
    assert copied_sentence("What time is it?", PROMPT) == "what time is it"
    assert copied_sentence("on the list, milk, eggs", PROMPT) == "on the list milk eggs"
    assert copied_sentence("what time is it back home in Manila", PROMPT) is None
    assert copied_sentence("what time", PROMPT) is None
    assert copied_sentence("", PROMPT) is None


def test_speech_is_measured_without_the_quiet_around_it():
    assert speech_seconds(speech(1.5), RATE) == pytest.approx(1.5, abs=0.04)
    assert speech_seconds(np.zeros(RATE, dtype=np.float32), RATE) == 0.0
    assert syllables("what time is it") == 4 and syllables("set me a timer for five minutes") >= 9


def test_a_clip_says_more_than_a_sentence_when_it_is_clearly_longer_than_saying_it_takes():
    assert not says_more_than(speech(0.8), RATE, "what time is it")  # "what time is it" said: ~0.8 s
    assert says_more_than(speech(1.8), RATE, "what time is it")  # "... back home in Manila": ~1.8 s
    assert not says_more_than(speech(1.8), RATE, "set me a timer for five minutes")


@dataclass
class Segment:
    text: str


@dataclass
class Info:
    language: str = "en"


@dataclass
class CopyingModel:
    """whisper as seen: with the prompt it answers `copied`, without it `heard`."""

    copied: str
    heard: str
    prompts: list[str | None] = field(default_factory=list)

    def transcribe(self, samples, initial_prompt=None, **options):
        self.prompts.append(initial_prompt)
        return iter([Segment(self.copied if initial_prompt else self.heard)]), Info()


def transcriber_with(model: CopyingModel) -> Transcriber:
    transcriber = Transcriber(load_settings(Settings.load({})))
    transcriber._model = model
    return transcriber


def test_a_copied_sentence_from_a_longer_clip_is_decoded_again_without_the_prompt():
    model = CopyingModel("What time is it.", "What time is it back home in Manila?")
    assert transcriber_with(model)._transcribe(speech(1.8), PROMPT).text == "What time is it back home in Manila?"
    assert model.prompts == [PROMPT, None]


def test_an_ordinary_short_command_that_is_a_prompt_sentence_is_decoded_once():
    model = CopyingModel("What time is it.", "What time is it.")
    assert transcriber_with(model)._transcribe(speech(0.8), PROMPT).text == "What time is it."
    assert model.prompts == [PROMPT]


def test_the_prompted_text_stays_when_the_second_decode_hears_no_more_words():
    model = CopyingModel("Stop.", "Stob")
    assert transcriber_with(model)._transcribe(speech(1.5), PROMPT).text == "Stop."
    assert model.prompts == [PROMPT, None]


def test_a_transcript_that_is_no_prompt_sentence_is_decoded_once():
    model = CopyingModel("Set a timer for ninety seconds.", "unused")
    assert transcriber_with(model)._transcribe(speech(2.5), PROMPT).text == "Set a timer for ninety seconds."
    unprompted = CopyingModel("unused", "What time is it.")
    assert transcriber_with(unprompted)._transcribe(speech(1.8), None).text == "What time is it."
    assert unprompted.prompts == [None]
