"""The speech-to-text service (7706) through a real `voxd serve`: input checks, settings, and (slow)
transcription of spoken household commands with the packaged whisper tiny.en, voice enrollment and
speaker identification with resemblyzer, and the `voxd voices` CLI. Speech is made by espeak-ng +
sox (Debian packages; .ci/run installs them). WAV decoding of every layout, without a daemon:
tests/test_stt_audio.py."""

from __future__ import annotations

import os
import time
import uuid

import httpx
import numpy as np
import pytest
from click.testing import CliRunner

from conftest import Daemon, app_headers, free_port_offset
from spoken import espeak, word_errors, words
from wav_makers import tone, wav_bytes
from voxd.cli import main as cli_main
from voxd.services.stt.app import MAX_PROMPT_CHARS

SERVICES = ["config", "auth", "stt"]


# --- the service without models ---------------------------------------------------------------


@pytest.fixture(scope="module")
def stt_daemon(tmp_path_factory):
    daemon = Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(), SERVICES)
    daemon.start()
    yield daemon
    assert daemon.stop() == 0, daemon.output()


def transcribe(daemon: Daemon, clip: bytes, household_id: str | None = None, content_type: str = "audio/wav",
               headers: dict | None = None, prompt: str | None = None, identify: str | None = None) -> httpx.Response:
    params = {"household_id": household_id} if household_id else {}
    if prompt is not None:
        params["prompt"] = prompt
    if identify is not None:
        params["identify"] = identify
    return httpx.post(daemon.url("stt") + "/transcribe", content=clip, params=params, timeout=120,
                      headers={**(headers or app_headers(daemon, "command-center")), "Content-Type": content_type})


def error_code(answer: httpx.Response) -> str:
    return answer.json()["error"]["code"]


def test_bad_input_is_refused_before_any_model_runs(stt_daemon):
    not_wav = transcribe(stt_daemon, b"this is text, not a recording")
    assert not_wav.status_code == 400 and error_code(not_wav) == "not_wav"
    assert "WAV" in not_wav.json()["error"]["message"]
    empty = transcribe(stt_daemon, b"")
    assert empty.status_code == 400 and error_code(empty) == "empty_audio"
    no_samples = transcribe(stt_daemon, wav_bytes(np.zeros(0), 16000))
    assert no_samples.status_code == 400 and error_code(no_samples) == "empty_audio"
    too_long = transcribe(stt_daemon, wav_bytes(np.zeros(8000 * 31), 8000))
    assert too_long.status_code == 413 and error_code(too_long) == "audio_too_long"
    assert "30" in too_long.json()["error"]["message"]
    wrong_type = transcribe(stt_daemon, wav_bytes(tone(1, 16000), 16000), content_type="application/json")
    assert wrong_type.status_code == 415 and "audio/wav" in wrong_type.json()["error"]["message"]
    huge = transcribe(stt_daemon, bytes(20 * 1024 * 1024))
    assert huge.status_code == 413
    anonymous = httpx.post(stt_daemon.url("stt") + "/transcribe", content=b"RIFF", headers={"Content-Type": "audio/wav"})
    assert anonymous.status_code == 401
    wrong_part = httpx.post(stt_daemon.url("stt") + "/transcribe", headers=app_headers(stt_daemon, "command-center"),
                            files={"recording": ("a.wav", wav_bytes(tone(1, 16000), 16000), "audio/wav")})
    assert wrong_part.status_code == 400 and error_code(wrong_part) == "audio_missing"


@pytest.mark.parametrize("prompt", ["", "   ", "x" * (MAX_PROMPT_CHARS + 1), "two\nlines", "a\x00b", "tab\there"])
def test_a_bad_prompt_is_refused_before_any_model_runs(stt_daemon, prompt):
    answer = transcribe(stt_daemon, wav_bytes(tone(1, 16000), 16000), prompt=prompt)
    assert answer.status_code == 400 and error_code(answer) in ("invalid_query", "invalid_prompt"), answer.text
    assert "prompt" in answer.text


def test_profiles_need_a_known_user(stt_daemon):
    admin = {"X-Admin-Key": stt_daemon.admin_key}
    listed = httpx.get(stt_daemon.url("stt") + "/voices", headers=admin)
    assert listed.status_code == 200 and listed.json() == {"profiles": []}
    clip = wav_bytes(tone(2, 16000), 16000)
    unknown = httpx.post(stt_daemon.url("stt") + "/voices/no-such-user/samples", content=clip,
                         headers={**admin, "Content-Type": "audio/wav"})
    assert unknown.status_code == 404, unknown.text
    short = httpx.post(stt_daemon.url("stt") + "/voices/no-such-user/samples", content=wav_bytes(tone(0.5, 16000), 16000),
                       headers={**admin, "Content-Type": "audio/wav"})
    assert short.status_code == 400 and error_code(short) == "sample_too_short"
    gone = httpx.delete(stt_daemon.url("stt") + "/voices/no-such-user", headers=admin)
    assert gone.status_code == 404 and error_code(gone) == "voice_profile_not_found"
    assert httpx.get(stt_daemon.url("stt") + "/voices").status_code == 401


def test_a_model_that_is_not_on_disk_is_a_clear_503(make_daemon, tmp_path):
    daemon = make_daemon(SERVICES, VOXD_STT_MODEL="small.en", HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="1")
    answer = transcribe(daemon, wav_bytes(tone(1, 16000), 16000))
    assert answer.status_code == 503, answer.text
    assert error_code(answer) == "stt_unavailable"
    assert "voxd models pull whisper-small.en" in answer.json()["error"]["message"]


@pytest.mark.parametrize("setting,value", [
    ("VOXD_STT_BEAM_SIZE", "0"), ("VOXD_STT_THREADS", "many"), ("VOXD_STT_COMPUTE_TYPE", "int3"),
    ("VOXD_SPEAKER_THRESHOLD", "1.5"), ("VOXD_STT_MODEL", "/no/such/model/dir"), ("VOXD_STT_PRELOAD", "maybe"),
    ("VOXD_STT_WINDOW_MARGIN", "0.1"),
])
def test_bad_settings_stop_the_daemon_at_start(make_daemon, setting, value):
    daemon = make_daemon(SERVICES, start=False, **{setting: value})
    with pytest.raises(RuntimeError) as raised:
        daemon.start()
    assert setting in str(raised.value)


# --- real models (slow) -----------------------------------------------------------------------

COMMANDS = [
    "set a timer for five minutes",
    "what time is it",
    "turn off the kitchen lights",
    "what is the weather like tomorrow",
]


@pytest.mark.slow
def test_household_commands_are_transcribed(stt_daemon):
    for sentence in COMMANDS:
        answer = transcribe(stt_daemon, espeak(sentence))
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert word_errors(sentence, body["text"]) <= 1, (sentence, body["text"])
        assert body["language"] == "en" and body["speaker"] is None
        assert 500 < body["duration_ms"] < 5000
        assert set(body["timings"]) == {"decode", "transcribe", "speaker"}


@pytest.mark.slow
def test_a_prompt_biases_the_words_heard(stt_daemon):
    """tiny.en hears espeak-ng's "add milk to the shopping list" as "and milk ..."; with the household's
    sentences as the prompt it hears "add" (docs/speech.md, Biasing)."""
    clip = espeak("add milk to the shopping list")
    plain = transcribe(stt_daemon, clip)
    assert plain.status_code == 200 and words(plain.json()["text"])[0] == "and", plain.text
    prompt = "Set me a timer for five minutes. Add milk to the shopping list. Cancel the timer."
    biased = transcribe(stt_daemon, clip, prompt=prompt)
    assert biased.status_code == 200, biased.text
    assert words(biased.json()["text"]) == words("add milk to the shopping list"), biased.text
    longest = transcribe(stt_daemon, clip, prompt="milk " * (MAX_PROMPT_CHARS // 5))
    assert longest.status_code == 200, longest.text


@pytest.mark.slow
@pytest.mark.parametrize("rate,channels,encoding", [(8000, 1, "int16"), (44100, 2, "int16"), (48000, 1, "float32")])
def test_any_rate_channels_and_sample_type(stt_daemon, rate, channels, encoding):
    answer = transcribe(stt_daemon, espeak("set a timer for five minutes", rate=rate, channels=channels,
                                           encoding=encoding))
    assert answer.status_code == 200, answer.text
    heard = words(answer.json()["text"])
    assert "timer" in heard and "5" in heard, heard


@pytest.mark.slow
def test_multipart_file_part(stt_daemon):
    answer = httpx.post(stt_daemon.url("stt") + "/transcribe", headers={"X-Admin-Key": stt_daemon.admin_key},
                        files={"file": ("cmd.wav", espeak("what time is it"), "audio/wav")}, timeout=120)
    assert answer.status_code == 200, answer.text
    assert word_errors("what time is it", answer.json()["text"]) <= 1


@pytest.mark.slow
def test_the_models_load_in_the_background_at_start_and_health_says_when_they_are_warm(make_daemon):
    """VOXD_STT_PRELOAD is on by default (the suite turns it off): the daemon is ready before the
    models are, a request that comes meanwhile is served (it waits for the model), and GET /health
    and the console say when each is warm."""
    daemon = make_daemon(SERVICES, VOXD_STT_PRELOAD="true")
    early = transcribe(daemon, espeak("what time is it"))
    assert early.status_code == 200 and word_errors("what time is it", early.json()["text"]) <= 1
    warm = {"whisper": "warm", "speaker model": "warm"}
    deadline = time.monotonic() + 60
    while httpx.get(daemon.url("stt") + "/health").json()["engines"] != warm and time.monotonic() < deadline:
        time.sleep(0.2)
    assert httpx.get(daemon.url("stt") + "/health").json()["engines"] == warm
    output = daemon.output()
    assert "stt: whisper ready in" in output and "stt: speaker model ready in" in output, output
    assert "loaded whisper tiny.en" in output and "loaded the speaker model" in output, output


@pytest.mark.slow
def test_silence_is_no_words(stt_daemon):
    answer = transcribe(stt_daemon, wav_bytes(np.zeros(16000 * 25), 16000))  # whisper alone hears "you"
    assert answer.status_code == 200 and answer.json()["text"] == "", answer.text


def cli(daemon: Daemon, *args: str):
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith(("VOXD_", "SERVICE_"))}
    env.update(daemon.env)
    return CliRunner().invoke(cli_main, list(args), env=env, catch_exceptions=False)


ENROLLMENT = ("the quick brown fox jumps over the lazy dog", "please turn on the kitchen lights",
              "what is the weather going to be like tomorrow morning")
COMMAND = "how long is left on the pasta timer"


def new_household(daemon: Daemon, name: str) -> str:
    made = httpx.post(daemon.url("auth") + "/households", json={"name": name, "timezone": "Europe/London"},
                      headers={"X-Admin-Key": daemon.admin_key})
    assert made.status_code == 201, made.text
    return made.json()["household_id"]


def new_user(daemon: Daemon, household_id: str, name: str) -> str:
    made = httpx.post(daemon.url("auth") + "/users", headers={"X-Admin-Key": daemon.admin_key}, json={
        "email": f"{name}-{uuid.uuid4().hex[:6]}@example.org", "display_name": name, "password": "long password",
        "household_id": household_id})
    assert made.status_code == 201, made.text
    return made.json()["user_id"]


def enroll(daemon: Daemon, tmp_path, user: str, flatmate: str, home: str) -> None:
    """`user` enrolls with the CLI (espeak's en-us+m1), `flatmate` through the API (en-gb+f3)."""
    files = []
    for number, sentence in enumerate(ENROLLMENT):
        files.append(tmp_path / f"sample{number}.wav")
        files[-1].write_bytes(espeak(sentence, voice="en-us+m1"))
    enrolled = cli(daemon, "voices", "enroll", "--user", user, *map(str, files))
    assert enrolled.exit_code == 0, enrolled.output
    assert "3 voice sample" in enrolled.output and "3/3" in enrolled.output  # the progress bar, done
    for sentence in ENROLLMENT:  # the flatmate enrolls through the API, as multipart
        added = httpx.post(daemon.url("stt") + f"/voices/{flatmate}/samples", timeout=120,
                           headers={"X-Admin-Key": daemon.admin_key},
                           files={"file": ("s.wav", espeak(sentence, voice="en-gb+f3"), "audio/wav")})
        assert added.status_code == 201, added.text
    assert added.json()["samples"] == 3 and added.json()["household_id"] == home
    listed = cli(daemon, "voices", "list", "--json")
    assert listed.exit_code == 0, listed.output
    assert listed.output.count('"samples": 3') == 2 and home in listed.output


def assert_threshold_is_live(daemon: Daemon, home: str, confidence: float) -> None:
    """Raised past this voice's similarity, the same words are nobody's at once; reset, it is 0.86 again."""
    setting = daemon.url("stt") + "/internal/settings/speaker_threshold"
    raised = httpx.put(setting, headers=app_headers(daemon, "settings"),
                       json={"value": min(0.999, confidence + 0.005), "changed_by": "test"})
    assert raised.status_code == 200 and raised.json()["pending_restart"] is False, raised.text
    assert transcribe(daemon, espeak(COMMAND, voice="en-us+m1"), household_id=home).json()["speaker"] is None
    lowered = httpx.request("DELETE", setting, headers=app_headers(daemon, "settings"), json={"changed_by": "test"})
    assert lowered.json()["value"] == 0.86


@pytest.mark.slow
def test_an_enrolled_voice_is_recognized(stt_daemon, tmp_path):
    admin = {"X-Admin-Key": stt_daemon.admin_key}
    home, elsewhere = new_household(stt_daemon, "The Kims"), new_household(stt_daemon, "Next door")
    user, flatmate = new_user(stt_daemon, home, "kim"), new_user(stt_daemon, home, "lee")
    enroll(stt_daemon, tmp_path, user, flatmate, home)

    spoken = transcribe(stt_daemon, espeak(COMMAND, voice="en-us+m1"), household_id=home)
    assert spoken.status_code == 200, spoken.text
    speaker = spoken.json()["speaker"]
    assert speaker is not None and speaker["user_id"] == user, spoken.json()
    assert 0.86 <= speaker["confidence"] <= 1
    assert word_errors(COMMAND, spoken.json()["text"]) <= 1
    assert_threshold_is_live(stt_daemon, home, speaker["confidence"])

    for other_voice in ("en-gb+f3", "en+f3"):  # the flatmate, and a voice nobody enrolled
        other = transcribe(stt_daemon, espeak(COMMAND, voice=other_voice), household_id=home)
        assert other.status_code == 200
        assert other.json()["speaker"] is None or other.json()["speaker"]["user_id"] != user, other_voice
    # Only the household's own profiles are compared.
    next_door = transcribe(stt_daemon, espeak(COMMAND, voice="en-us+m1"), household_id=elsewhere)
    assert next_door.json()["speaker"] is None
    # None at all when the caller knows who spoke (a user's own audio, sent with their token).
    known = transcribe(stt_daemon, espeak(COMMAND, voice="en-us+m1"), household_id=home, identify="false")
    assert known.status_code == 200 and known.json()["speaker"] is None
    assert word_errors(COMMAND, known.json()["text"]) <= 1

    deleted = cli(stt_daemon, "voices", "delete", "--user", user)
    assert deleted.exit_code == 0, deleted.output
    remaining = httpx.get(stt_daemon.url("stt") + "/voices", headers=admin, params={"household_id": home}).json()
    assert [p["user_id"] for p in remaining["profiles"]] == [flatmate]
    again = httpx.delete(stt_daemon.url("stt") + f"/voices/{user}", headers=admin)
    assert again.status_code == 404
