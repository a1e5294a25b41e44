"""Announcements reach the node through a real MQTT broker (mosquitto) while it listens on stdin,
and SIGTERM stops it cleanly."""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from mosquitto import Mosquitto
from node_kit import RunningNode, refused_url, start_node, tone_wav, wav_samples, write_config
from voxd_node.chimes import Chime, chime_samples
from voxd_node.pcm import decode_wav

WAIT_SECONDS = 20
ANNOUNCE = "voxd/nodes/node-1/announce"


def broker_for_the_node(folder: Path) -> Mosquitto:
    """A real mosquitto that knows the test node's login (write_config's node-1)."""
    broker = Mosquitto(folder)
    broker.add_user("node-1", "secret-key-123")
    return broker


@pytest.fixture
def broker(tmp_path) -> Iterator[Mosquitto]:
    running = broker_for_the_node(tmp_path).start()
    yield running
    running.stop()


@contextmanager
def node_listening(tmp_path: Path, broker_port: int) -> Iterator[RunningNode]:
    """A node on a quiet stdin with announcements from the broker; stopped with SIGTERM, which must
    end it cleanly."""
    config = write_config(tmp_path / "node.toml", refused_url(), broker_url=f"mqtt://127.0.0.1:{broker_port}")
    node = start_node(tmp_path, config, "-", stdin=subprocess.PIPE)
    try:
        yield node
        node.stop()
    finally:
        node.kill()


def test_timer_and_alarm_announcements_ring_then_speak(tmp_path, broker):
    speech = tone_wav(350, 0.4)
    with node_listening(tmp_path, broker.port) as node:
        node.wait_for("broker connected", timeout=WAIT_SECONDS)
        broker.publish(ANNOUNCE,
                b"not json",
                json.dumps({"id": "a1", "kind": "timer", "text": "Your tea timer is done.",
                            "audio": base64.b64encode(speech).decode()}).encode(),
                json.dumps({"id": "a2", "kind": "notification", "text": "Dinner is ready.", "audio": None}).encode(),
                json.dumps({"id": "a3", "kind": "alarm", "text": "Your alarm: it's 7 am.", "audio": None}).encode())
        node.wait_for("announcement (alarm): Your alarm: it's 7 am.", timeout=WAIT_SECONDS)
    text = node.log
    assert "skipping a bad announcement" in text
    assert "announcement (timer): Your tea timer is done." in text
    assert "secret-key-123" not in text
    played, _ = wav_samples(tmp_path / "speaker.wav")
    # the notification had no audio: its notice; the alarm (issue 25) rings like a timer
    expected = [chime_samples(Chime.ALARM), decode_wav(speech)[0], chime_samples(Chime.NOTICE), chime_samples(Chime.ALARM)]
    assert np.array_equal(played, np.concatenate(expected))


def test_a_late_broker_is_waited_for(tmp_path):
    broker = broker_for_the_node(tmp_path)
    with node_listening(tmp_path, broker.port) as node:
        node.wait_for("announcements unavailable", timeout=WAIT_SECONDS)
        broker.start()
        try:
            node.wait_for("broker connected", timeout=WAIT_SECONDS)
            broker.publish(ANNOUNCE, json.dumps({"id": "a3", "kind": "notification", "text": "Hello.", "audio": None}).encode())
            node.wait_for("announcement (notification): Hello.", timeout=WAIT_SECONDS)
            assert node.log.count("announcements unavailable") == 1  # one warning for the whole outage
        finally:
            broker.stop()
