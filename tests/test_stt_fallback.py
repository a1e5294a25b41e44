"""Whisper's temperature fallback said in the log (voxd/services/stt/transcriber.py): a greedy decode that
fails whisper's checks is decoded again, sampled, which takes about twice the time and gives words that
vary from run to run; the slow streamed turns of docs/performance.md (issue 24) are read with it."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import numpy as np

from voxd.services.stt.transcriber import Transcriber


class DecodedAt:
    """A whisper model whose one segment came from the given temperature."""

    def __init__(self, temperature: float) -> None:
        self.temperature = temperature

    def transcribe(self, samples, **options):
        return iter([SimpleNamespace(text=" Spa.", temperature=self.temperature)]), SimpleNamespace(language="en")


def decoded(temperature: float, caplog) -> list[str]:
    transcriber = Transcriber.__new__(Transcriber)
    transcriber.config = SimpleNamespace(beam_size=1, language="en")
    with caplog.at_level(logging.INFO, logger="voxd.stt"):
        heard = transcriber._decode(DecodedAt(temperature), np.zeros(1600, np.float32), None)
    assert heard.text == "Spa."
    return [record.getMessage() for record in caplog.records]


def test_a_sampled_decode_is_said_and_a_greedy_one_is_not(caplog):
    assert any("sampled at temperature 0.2" in line for line in decoded(0.2, caplog))
    caplog.clear()
    assert not any("sampled" in line for line in decoded(0.0, caplog))
