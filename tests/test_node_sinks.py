"""What the node plays ends up in one growing 22050 Hz mono WAV; files of any format can be heard."""

from __future__ import annotations

import asyncio
import wave

import numpy as np

from node_kit import RATE, wav_samples
from voxd_node.audio_sinks import WavFileSink
from voxd_node.audio_sources import FRAME_BYTES, WavFileSource
from voxd_node.chimes import Chime, chime_samples
from voxd_node.chimes import RATE as CHIME_RATE
from voxd_node.pcm import encode_wav


def test_plays_append_and_the_file_stays_valid(tmp_path):
    out = tmp_path / "out.wav"
    out.write_bytes(b"left over from an earlier run")
    one_second_16k = encode_wav((np.sin(np.arange(RATE) / 5) * 5000).astype(np.int16), RATE)

    async def play() -> list[tuple[np.ndarray, int]]:
        sink = WavFileSink(out)
        seen = [wav_samples(out)]
        await sink.play(one_second_16k)
        seen.append(wav_samples(out))
        await sink.play_pcm(chime_samples(Chime.DONE), CHIME_RATE)
        seen.append(wav_samples(out))
        sink.close()
        return seen

    empty, after_one, after_two = asyncio.run(play())
    assert len(empty[0]) == 0 and empty[1] == 22050
    assert after_one[1] == 22050 and len(after_one[0]) == 22050
    assert np.array_equal(after_two[0], np.concatenate([after_one[0], chime_samples(Chime.DONE)]))
    with wave.open(str(out)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 22050)


def test_wav_source_mixes_and_resamples_to_16k_frames(tmp_path):
    stereo_44k = np.stack([np.full(44100 // 2, 1000), np.full(44100 // 2, 3000)], axis=1).astype(np.int16)
    path = tmp_path / "in.wav"
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(44100)
        wav.writeframes(stereo_44k.tobytes())

    async def read(frames: int) -> bytes:
        source = WavFileSource(path)
        return b"".join([(await anext(source)).pcm for _ in range(frames)])

    pcm = np.frombuffer(asyncio.run(read(10)), np.int16)
    assert len(pcm) * 2 == 10 * FRAME_BYTES
    assert np.all(pcm[:7900] == 2000)  # half a second of the mixed channels ...
    assert np.all(pcm[8100:] == 0)  # ... then silence
