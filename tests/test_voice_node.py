"""The voice node as a person uses it, against the real daemon: `voxd node register --config` writes
the node's file, `voxd-node` reads a WAV for a microphone and writes what it plays into another WAV.
The spoken story (wake word, command, reply, the timer ringing on that node) runs with the real
speech models once through the embedded broker and once through a real mosquitto."""

from __future__ import annotations

import time
import tomllib
from pathlib import Path

import httpx
import pytest

from conftest import Daemon, app_headers, say
from mosquitto import Mosquitto
from node_kit import RATE, RunningNode, clip, start_node, wav_samples, write_clip
from spoken import words

WITHOUT_SPEECH = ["config", "auth", "logs", "command-center"]
COMMANDS_SENT = " -> set_timer via pre_route in "  # the one console line of each command
REQUESTS_SENT = "POST /api/v0/command ->"  # a request's line, on the console at debug


def start_node_on(tmp_path: Path, config: Path, samples, exit_after: float) -> RunningNode:
    """The node with `samples` (a WAV) for its microphone, until --exit-after."""
    microphone = write_clip(tmp_path / "mic.wav", samples)
    return start_node(tmp_path, config, str(microphone), "--exit-after", str(exit_after))


def register_with_cli(voxd_cli, daemon: Daemon, tmp_path: Path, room: str = "kitchen") -> tuple[Path, dict]:
    """As the README says: a household, then `voxd node register --config node.toml`."""
    admin = {"X-Admin-Key": daemon.admin_key}
    household = httpx.post(daemon.url("auth") + "/households", json={"name": "Home", "timezone": "Europe/London"},
                           headers=admin).json()
    config = tmp_path / "node.toml"
    result = voxd_cli("node", "register", "--household", household["household_id"], "--room", room,
                      "--name", f"{room}-pi", "--config", str(config), target=daemon)
    assert result.exit_code == 0, result.output
    return config, tomllib.loads(config.read_text())


def transcribe(daemon: Daemon, wav: bytes) -> str:
    answer = httpx.post(daemon.url("stt") + "/transcribe", content=wav, timeout=60,
                        headers={**app_headers(daemon, "command-center"), "Content-Type": "audio/wav"})
    assert answer.status_code == 200, answer.text
    return answer.json()["text"]


@pytest.mark.slow
@pytest.mark.parametrize("broker", ["embedded", "mosquitto"])
def test_a_spoken_timer_is_answered_and_later_rings_on_that_node(broker, make_daemon, voxd_cli, tmp_path):
    mosquitto = Mosquitto(tmp_path).start() if broker == "mosquitto" else None
    try:
        extra = mosquitto.env if mosquitto else {}
        daemon = make_daemon(**extra)
        config, node = register_with_cli(voxd_cli, daemon, tmp_path)
        if mosquitto:
            mosquitto.add_user(node["node_id"], node["api_key"])
        samples = clip(0.5, "hey jarvis", 0.3, "set a timer for three seconds", 1.0)

        running = start_node_on(tmp_path, config, samples, exit_after=len(samples) / RATE + 20)
        running.wait_for("announcement (timer): ")
        log = running.stop()  # the ring is in the WAV once its line is logged (the file sink never waits)

        assert "wake word detected" in log and "broker connected" in log
        assert "reply: Timer set for 3 seconds." in log
        assert "announcement (timer): Your timer for 3 seconds is done." in log
        assert node["api_key"] not in log
        assert daemon.output().count(COMMANDS_SENT) == 1  # one request, after the wake word
        played, rate = wav_samples(running.output)
        assert rate == 22050
        heard = words(transcribe(daemon, running.output.read_bytes()))
        assert heard.count("timer") == 2 and "done" in heard, heard  # the reply, then the ring
    finally:
        if mosquitto:
            mosquitto.stop()


def test_without_the_wake_word_nothing_reaches_the_server(make_daemon, voxd_cli, tmp_path):
    daemon = make_daemon(WITHOUT_SPEECH, VOXD_LOG_LEVEL="debug")  # debug: every request's line
    config, _ = register_with_cli(voxd_cli, daemon, tmp_path)
    samples = clip(0.5, "set a timer for five minutes", 0.5, "what time is it", 1.0)

    log = start_node_on(tmp_path, config, samples, exit_after=len(samples) / RATE + 3).finish()

    assert "broker connected" in log  # the node was up and talking to the server side
    assert "wake word detected" not in log
    assert REQUESTS_SENT not in daemon.output()  # the server's own log: no command arrived
    assert len(wav_samples(tmp_path / "speaker.wav")[0]) == 0


def test_the_node_rides_out_a_broker_restart_and_a_timer_that_ended_meanwhile_still_rings(
        make_daemon, voxd_cli, tmp_path):
    mosquitto = Mosquitto(tmp_path).start()
    try:
        daemon = make_daemon(WITHOUT_SPEECH, **mosquitto.env)
        config, node = register_with_cli(voxd_cli, daemon, tmp_path)
        mosquitto.add_user(node["node_id"], node["api_key"])
        running = start_node_on(tmp_path, config, clip(0.5), exit_after=90)
        url = daemon.url("command-center") + f"/api/v0/nodes/{node['node_id']}/announce"

        def announce(text: str) -> None:
            answer = httpx.post(url, json={"text": text}, headers={"X-Admin-Key": daemon.admin_key})
            assert answer.status_code == 202, answer.text

        running.wait_for("broker connected")
        announce("Dinner is ready.")
        running.wait_for("announcement (notification): Dinner is ready.")

        assert say(daemon, node, "set a timer for 2 seconds").json()["command"] == "set_timer"
        mosquitto.stop()
        time.sleep(4)  # the timer ends while the broker is away: the bell cannot ring it yet
        assert "cannot ring timer" in daemon.output()
        mosquitto.start()
        running.wait_for("announcement (timer): Your timer for 2 seconds is done.", timeout=60)
        running.wait_for("broker connected", count=2)
        announce("The laundry is done.")
        log = running.wait_for("announcement (notification): The laundry is done.")

        running.stop()
        assert "Traceback" not in log
        assert log.count("announcements unavailable") == 1  # one warning for the whole outage
    finally:
        mosquitto.stop()
